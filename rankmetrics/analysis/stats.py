"""Significance tests between retrieval systems over per-query scores (Järvelin & Kekäläinen 2002).

JK 2002 (Sec. 3.6, Table 1) test differences between query types on per-request averages of
normalised (D)CG vectors with the Friedman test (ordinal view of the relevance scale) and ANOVA
(ratio-scale weights 0-1-10-100), and report per-system averages, pairwise differences and
significance markers. :func:`compare` runs those tests, the paired t-test, the Wilcoxon
signed-rank test, Fisher's randomization test and the paired bootstrap test (with confidence
intervals) on the per-query scores of any metric for two or more systems, with Holm,
Bonferroni or Benjamini-Hochberg corrections; :func:`significance_table` prints the Table 1
layout with relative differences (other formats: :mod:`rankmetrics.analysis.report`);
:func:`compare_runs` evaluates TREC runs first (through :func:`rankmetrics.trec.evaluate`, or
the per-topic avg-pos of their gain vectors for ``avg-<curve>@<k>`` names).

scipy and statsmodels are imported lazily (extra ``rankmetrics[stats]``); pandas only for
DataFrame input/output.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..core.validation import check_choice, check_flag, check_qid, is_missing
from ..measures.grammar import measure_items, parse_avg_pos

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

Values = NDArray[np.float64]

__all__ = [
    "TESTS",
    "Comparison",
    "Omnibus",
    "Pairwise",
    "align_scores",
    "compare",
    "compare_runs",
    "parse_avg_pos",
    "per_query_scores",
    "run_labels",
    "sparck_jones_class",
    "significance_table",
]

#: tests of :func:`compare`: paired t, Wilcoxon signed-rank, Friedman (+ Conover), ANOVA (+ Tukey),
#: Fisher's randomization test and the paired bootstrap
TESTS = ("t", "wilcoxon", "friedman", "anova", "randomization", "bootstrap")
_TEST_ALIASES = {
    "t": "t", "ttest": "t", "t-test": "t", "paired-t": "t", "paired_t": "t",
    "wilcoxon": "wilcoxon", "signrank": "wilcoxon", "signed-rank": "wilcoxon",
    "friedman": "friedman", "anova": "anova",
    "randomization": "randomization", "randomisation": "randomization",
    "permutation": "randomization", "fisher": "randomization",
    "bootstrap": "bootstrap",
}
_TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "friedman": "Friedman test (pairs: Conover's post-hoc)",
    "anova": "two-way ANOVA, queries as blocks (pairs: Tukey HSD)",
    "randomization": "Fisher's randomization test (paired sign flips)",
    "bootstrap": "paired bootstrap test (shifted to mean 0)",
}
MISSING = ("intersect", "zero", "error")
CORRECTIONS = ("none", "holm", "bonferroni", "bh")
_STATSMODELS_METHOD = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}
_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni",
                     "bh": "Benjamini-Hochberg (FDR)"}
_RESAMPLING = ("randomization", "bootstrap")


def _scipy_stats() -> Any:
    try:
        from scipy import stats
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "significance tests need scipy: pip install 'rankmetrics[stats]'"
        ) from exc
    return stats


def _test_name(test: str) -> str:
    key = _TEST_ALIASES.get(str(test).lower()) if isinstance(test, str) else None
    if key is None:
        raise ValueError(f"test must be one of {', '.join(map(repr, TESTS))}; got {test!r}")
    return key


@dataclass(frozen=True)
class Pairwise:
    """One pairwise comparison, system ``b`` against system ``a`` (``a`` listed first).

    Attributes
    ----------
    a, b : str
    mean_a, mean_b : float
        Means over the compared queries.
    mean_diff : float
        ``mean_b - mean_a`` (JK 2002 Table 1's "Difference B - A").
    statistic : float
        t (t-test), W = min(W+, W-) (Wilcoxon), Conover's t (Friedman), Tukey's q (ANOVA), the
        mean difference (randomization, bootstrap).
    pvalue : float
        Two-sided p-value, after ``correction``.
    effect_size : float
    effect_name : str
        "cohen_dz" (mean difference / SD of differences) for t, ANOVA, randomization and
        bootstrap; "rank_biserial"
        (matched pairs, (W+ - W-) / (W+ + W-), positive when b is higher) for Wilcoxon;
        "mean_rank_diff" (difference of mean within-query ranks, rank k = best) for Friedman.
    significant : bool
        ``pvalue < alpha`` (for Friedman also the omnibus p-value < alpha: Conover's pairwise
        comparisons follow a significant Friedman test).
    ci_low, ci_high : float
        Bootstrap test only: the ``1 - alpha`` percentile confidence interval of the mean
        difference ``b - a``; NaN for the other tests.
    """

    a: str
    b: str
    mean_a: float
    mean_b: float
    mean_diff: float
    statistic: float
    pvalue: float
    effect_size: float
    effect_name: str
    significant: bool
    ci_low: float = math.nan
    ci_high: float = math.nan

    @property
    def rel_diff(self) -> float:
        """Relative difference ``(mean_b - mean_a) / mean_a`` (JK 2002 Sec. 3); NaN if a is 0."""
        return self.mean_diff / self.mean_a if self.mean_a != 0 else math.nan

    @property
    def sparck_jones(self) -> str:
        """Sparck Jones's (1974) reading of :attr:`rel_diff`, as cited by JK 2002 (Sec. 2.3).

        "marginal" below 5 %, "noticeable" from 5 % to 10 %, "essential" above 10 %
        (absolute relative difference); "undefined" when ``mean_a`` is 0.
        """
        return sparck_jones_class(self.rel_diff)


@dataclass(frozen=True)
class Omnibus:
    """Omnibus test of "all systems equal" (Friedman or ANOVA).

    Attributes
    ----------
    name : str
    statistic : float
        Friedman's chi-square (tie-corrected) or F.
    df : tuple of float
        (k - 1,) for Friedman; (k - 1, (n - 1)(k - 1)) for ANOVA.
    pvalue : float
    effect_size : float
        Kendall's W = chi2 / (n (k - 1)) for Friedman; partial eta^2 = SS_systems /
        (SS_systems + SS_error) for ANOVA (0 when SS_systems is 0 to the sums' rounding).
    effect_name : str
    """

    name: str
    statistic: float
    df: tuple[float, ...]
    pvalue: float
    effect_size: float
    effect_name: str


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare`.

    Attributes
    ----------
    test : str
        "t", "wilcoxon", "friedman", "anova", "randomization" or "bootstrap" (aliases such as
        "permutation" are stored under these names).
    systems : tuple of str
    queries : ndarray of shape (n_queries,)
        The compared queries (after the ``missing`` rule).
    scores : ndarray of float64, shape (n_queries, n_systems)
    means : ndarray of float64, shape (n_systems,)
    pairwise : tuple of Pairwise
        Every pair (i < j) in system order.
    omnibus : Omnibus or None
        For Friedman and ANOVA.
    alpha : float
    missing : str
        The rule applied to queries missing in some systems.
    missing_queries : dict
        System -> the queries it lacked (dropped with "intersect", scored 0 with "zero").
    correction : str
    metric : str or None
    n_resamples : int or None
        Randomization and bootstrap tests: permutations / resamples drawn (None otherwise).
        The randomization test enumerates all 2^n sign flips when ``2^n <= n_resamples``.
    seed : int or None
        Seed of the resampling tests.
    exact : bool
        Randomization test: every sign flip enumerated (else Monte Carlo).
    undefined_queries : list
        :func:`compare_runs`: queries whose metric is undefined (NaN from
        ``empty="skip"``), left out for every system under every ``missing`` rule.
    """

    test: str
    systems: tuple[str, ...]
    queries: np.ndarray
    scores: Values
    means: Values
    pairwise: tuple[Pairwise, ...]
    omnibus: Omnibus | None
    alpha: float
    missing: str
    missing_queries: dict[str, list[Any]] = field(default_factory=dict)
    correction: str = "none"
    metric: str | None = None
    n_resamples: int | None = None
    seed: int | None = None
    exact: bool = False
    undefined_queries: list[Any] = field(default_factory=list)

    @property
    def n_queries(self) -> int:
        """Number of compared queries."""
        return int(self.scores.shape[0])

    @property
    def dropped_queries(self) -> list[Any]:
        """Queries left out: lacking in some system with ``missing="intersect"``, and the
        :attr:`undefined_queries` under every rule."""
        out = set(self.undefined_queries)
        if self.missing == "intersect":
            out.update(q for qs in self.missing_queries.values() for q in qs)
        return sorted(out, key=str)

    def __repr__(self) -> str:
        sig = sum(p.significant for p in self.pairwise)
        dropped = len(self.dropped_queries)
        res = f", n_resamples={self.n_resamples}, seed={self.seed}" if self.n_resamples else ""
        corr = f", correction={self.correction!r}" if self.correction != "none" else ""
        return (f"Comparison(test={self.test!r}, metric={self.metric!r}, "
                f"systems={list(self.systems)!r}, n_queries={self.n_queries}, "
                f"dropped={dropped}, significant={sig}/{len(self.pairwise)} pairs at "
                f"alpha={self.alpha:g}{corr}{res})")

    def method_statement(self, *, alpha: bool = True) -> str:
        """The test, its level, correction and (for resampling tests) draws and seed.

        Parameters
        ----------
        alpha : bool, default True
            Whether to state the level (the comparison's own ``alpha``; this flag does not set
            it).

        Raises
        ------
        TypeError
            ``alpha`` not True or False (``alpha=0.01`` printed "alpha 0.05").
        """
        shown = check_flag("alpha", alpha)
        out = _TEST_NAMES[self.test] + (f", alpha {self.alpha:g}" if shown else "")
        if self.test == "randomization":
            out += (f", all 2^{self.n_queries} sign flips (exact)" if self.exact else
                    f", {self.n_resamples} random sign flips, seed {self.seed}")
        elif self.test == "bootstrap":
            out += (f", {self.n_resamples} resamples, seed {self.seed}, "
                    f"{_ci_level(self.alpha)} percentile CI")
        if self.correction != "none":
            out += f", {_CORRECTION_NAMES[self.correction]} corrected over pairs"
        return out

    def pair(self, a: str, b: str) -> Pairwise:
        """The comparison of systems ``a`` and ``b`` (either order; ``mean_diff`` is b - a).

        Raises
        ------
        KeyError
            Unknown system names.
        """
        for p in self.pairwise:
            if (p.a, p.b) == (a, b):
                return p
            if (p.a, p.b) == (b, a):
                signed = self.test in ("t", "randomization", "bootstrap")
                return Pairwise(a, b, p.mean_b, p.mean_a, -p.mean_diff,
                                -p.statistic if signed else p.statistic, p.pvalue,
                                -p.effect_size, p.effect_name, p.significant,
                                -p.ci_high, -p.ci_low)
        raise KeyError(f"no pair ({a!r}, {b!r}); systems are {list(self.systems)}")

    def missing_statement(self) -> str:
        """One line stating how queries missing in some systems were handled."""
        lacking = sorted({q for qs in self.missing_queries.values() for q in qs}, key=str)
        head = f"queries compared: {self.n_queries} (missing={self.missing!r}"
        undefined = (f"; {_short(self.undefined_queries)} undefined (empty='skip'), left out "
                     "for every system" if self.undefined_queries else "")
        if not lacking:
            other = " other" if undefined else ""
            return head + f": every system scored every{other} query{undefined})"
        what = "dropped" if self.missing == "intersect" else "scored 0 where absent"
        per = "; ".join(f"{s} lacks {_short(q)}" for s, q in self.missing_queries.items() if q)
        return head + f": {len(lacking)} {what}; {per}{undefined})"

    def table(self, *, digits: int = 3) -> str:
        """JK 2002 Table 1 layout for this comparison alone (see :func:`significance_table`)."""
        return significance_table([self], digits=digits)

    def summary(self, *, digits: int = 4) -> str:
        """A plain-text report: omnibus test, every pair with p-value and effect size.

        Raises
        ------
        TypeError, ValueError
            ``digits`` not an int in 0..17.
        """
        from .report import check_digits

        check_digits(digits)
        lines = [f"{self.method_statement()}; metric {self.metric or 'score'}",
                 self.missing_statement()]
        if self.omnibus is not None:
            o = self.omnibus
            df = ", ".join(f"{d:g}" for d in o.df)
            lines.append(f"omnibus {o.name}({df}) = {o.statistic:.{digits}f}, "
                         f"p = {_p(o.pvalue)}, {o.effect_name} = {o.effect_size:.{digits}f}")
        for p in self.pairwise:
            mark = " *" if p.significant else ""
            ci = (f", {_ci_level(self.alpha)} CI [{p.ci_low:+.{digits}f}, {p.ci_high:+.{digits}f}]"
                  if not math.isnan(p.ci_low) else "")
            lines.append(
                f"{p.b} - {p.a}: diff {p.mean_diff:+.{digits}f} ({_pct(p.rel_diff)}, "
                f"{p.sparck_jones}){ci}, statistic "
                f"{p.statistic:.{digits}f}, p = {_p(p.pvalue)}, {p.effect_name} "
                f"{p.effect_size:+.{digits}f}{mark}"
            )
        return "\n".join(lines)

    def to_frame(self) -> pd.DataFrame:
        """Pairwise results as a DataFrame, one row per pair (needs pandas)."""
        import pandas as pd

        rows = [{**p.__dict__, "rel_diff": p.rel_diff, "sparck_jones": p.sparck_jones}
                for p in self.pairwise]
        return pd.DataFrame(rows)


def sparck_jones_class(rel_diff: float) -> str:
    """Sparck Jones's (1974) criteria for a relative difference, as JK 2002 (Sec. 2.3) cite them.

    Parameters
    ----------
    rel_diff : float
        Relative difference, e.g. 0.07 for +7 %.

    Returns
    -------
    str
        "marginal" (absolute value < 5 %), "noticeable" (5 % to 10 %), "essential" (> 10 %), or
        "undefined" for NaN. The value is rounded to 12 decimals first, so that a difference
        of exactly 5 % or 10 % that floating point puts a hair off the boundary (0.5 to 0.55:
        0.10000000000000009) is classed as the criteria say.

    Raises
    ------
    TypeError
        ``rel_diff`` is not a real number (text, None, a bool, an array).

    References
    ----------
    Sparck Jones, K. (1974). Automatic indexing. Journal of Documentation 30(4), 393-432.
    Järvelin, K., Kekäläinen, J. (2002). Cumulated gain-based indicators of IR performance,
    Sec. 2.3 ("differences less than 5 % are marginal and differences over 10 % are essential").

    Examples
    --------
    >>> sparck_jones_class(0.03), sparck_jones_class(-0.07), sparck_jones_class(0.25)
    ('marginal', 'noticeable', 'essential')
    """
    if not isinstance(rel_diff, numbers.Real) or isinstance(rel_diff, (bool, np.bool_)):
        raise TypeError(f"rel_diff must be a real number; got {rel_diff!r}")
    if math.isnan(rel_diff):
        return "undefined"
    r = round(abs(rel_diff), 12)  # 0.5 -> 0.55 is 10 % (float: 0.10000000000000009)
    if r < 0.05:
        return "marginal"
    return "noticeable" if r <= 0.10 else "essential"


def _ci_level(alpha: float) -> str:
    """The confidence level ``1 - alpha`` in percent, as many digits as it has ("97.5%" for
    alpha 0.025; whole percents printed 98% there and 100% for alpha 0.001)."""
    return f"{100 - 100 * alpha:.12g}%"


def _pct(r: float) -> str:
    return "n/a" if math.isnan(r) else f"{r:+.1%}"


def _short(qs: Sequence[Any], n: int = 5) -> str:
    shown = ", ".join(str(q) for q in list(qs)[:n])
    return f"{len(qs)} ({shown}{', ...' if len(qs) > n else ''})"


def _p(p: float) -> str:
    return f"{p:.3g}" if p >= 1e-4 else f"{p:.2e}"


# ------------------------------------------------------------------------------ alignment
def align_scores(
    scores: Any, *, missing: str = "intersect", systems: Sequence[str] | None = None
) -> tuple[tuple[str, ...], np.ndarray, Values, dict[str, list[Any]]]:
    """Per-query scores of several systems as one (n_queries, n_systems) matrix.

    Parameters
    ----------
    scores : mapping {system: scores}, DataFrame or 2-D array
        A mapping's values are pandas Series (indexed by query id), mappings {query id: score},
        or plain 1-D arrays (then all of one length, paired by position). A DataFrame has one
        column per system and one row per query. A 2-D array of shape (n_queries, n_systems)
        pairs by row; name its columns with ``systems``. NaN means "no score for this query".
    missing : {"intersect", "zero", "error"}, default "intersect"
        Queries without a score in some system: "intersect" drops them, "zero" scores them 0
        (right for metrics where an empty result scores 0), "error" raises.
    systems : sequence of str, optional
        Names for the columns of a 2-D array (default "S1", "S2", ...); refused with a
        mapping or DataFrame, which name their systems.

    Returns
    -------
    systems : tuple of str
    queries : ndarray of shape (n_queries,)
    matrix : ndarray of float64, shape (n_queries, n_systems)
    missing_queries : dict {system: list of query ids it lacked}

    Raises
    ------
    ValueError
        Fewer than 2 systems, non-finite scores other than NaN, scores of magnitude above
        1e145 (or all nonzero ones below 1e-145: the tests square them), arrays of different
        lengths, missing queries with ``missing="error"``, fewer than 2 queries left, or a
        system name given twice (names are compared as strings), or ``systems`` given with a
        mapping or DataFrame.
    TypeError
        Scores that are not real numbers (text, complex numbers, dates), naming the system.
    """
    check_choice("missing", missing, MISSING)
    names, queries, mat = _to_matrix(scores, systems)
    if len(names) < 2:
        raise ValueError(f"compare needs at least 2 systems; got {len(names)}")
    if np.isinf(mat).any():
        raise ValueError("per-query scores must be finite (NaN marks a missing query)")
    big = float(np.nanmax(np.abs(mat))) if mat.size and not np.isnan(mat).all() else 0.0
    if big > _LARGEST or 0.0 < big < _SMALLEST:
        # their squares (variances, sums of squares) would overflow or underflow to 0
        raise ValueError(f"per-query scores up to {big:.3g} in magnitude; the tests square "
                         f"them, which needs magnitudes within [{_SMALLEST:g}, {_LARGEST:g}] "
                         "(rescale the scores, e.g. divide by their largest value)")
    absent = np.isnan(mat)
    lacking = {s: queries[absent[:, j]].tolist() for j, s in enumerate(names)}
    if absent.any():
        if missing == "error":
            per = "; ".join(f"{s} lacks {_short(q)}" for s, q in lacking.items() if q)
            raise ValueError(f"queries are missing in some systems ({per}); pass "
                             "missing='intersect' to drop them or missing='zero' to score them 0")
        if missing == "intersect":
            keep = ~absent.any(axis=1)
            queries, mat = queries[keep], mat[keep]
        else:
            mat = np.where(absent, 0.0, mat)
    if mat.shape[0] < 2:
        raise ValueError(
            f"{mat.shape[0]} query left to compare (missing={missing!r}); tests need at least 2"
        )
    return names, queries, mat, {s: q for s, q in lacking.items()}


#: the largest per-query magnitude accepted (squared sums of up to 1e8 values stay finite),
#: and the smallest nonzero one (squares stay normal floats)
_LARGEST = 1e145
_SMALLEST = 1e-145


def _to_matrix(scores: Any, systems: Sequence[str] | None
               ) -> tuple[tuple[str, ...], np.ndarray, Values]:
    keyed_input = hasattr(scores, "columns") and hasattr(scores, "index") \
        or isinstance(scores, Mapping)
    if systems is not None and keyed_input:  # was ignored: every column compared, unrenamed
        raise ValueError(
            "systems= names the columns of a 2-D array; a mapping or DataFrame names its "
            "systems itself (to compare some of them, pass only those, e.g. df[['A', 'B']])")
    if hasattr(scores, "columns") and hasattr(scores, "index"):  # DataFrame
        names = _system_names(scores.columns)
        index = np.asarray(scores.index)
        ids = np.empty(index.shape[0], dtype=object)
        ids[:] = index.tolist()
        check_qid(ids, ids.shape[0], "query ids of scores")  # as a mapping's keys
        _unique_ids(scores.index)
        cols = [_reals(scores.iloc[:, j], n) for j, n in enumerate(names)]
        return names, index, (np.column_stack(cols) if cols else
                              np.empty((index.shape[0], 0)))
    if isinstance(scores, Mapping):
        names = _system_names(scores)
        if not names:  # no system: "fewer than 2 systems", not a shape complaint
            return names, np.arange(0), np.empty((0, 0))
        vals = list(scores.values())
        keyed = [_keyed(v, n) for v, n in zip(vals, names, strict=True)]
        if all(k is None for k in keyed):
            arrs = [_reals(v, n) for v, n in zip(vals, names, strict=True)]
            if any(a.ndim != 1 for a in arrs) or len({a.shape[0] for a in arrs}) != 1:
                raise ValueError(
                    "per-query score arrays must be 1-D and of one length (paired by position); "
                    f"got shapes {[a.shape for a in arrs]}"
                )
            return names, np.arange(arrs[0].shape[0]), np.column_stack(arrs)
        if any(k is None for k in keyed):
            raise ValueError("mix of keyed (Series/mapping) and positional per-query scores; "
                             "give every system query ids or none")
        union: dict[Any, None] = {}
        for k in keyed:
            assert k is not None
            union.update(dict.fromkeys(k))
        ids = np.empty(len(union), dtype=object)
        ids[:] = list(union)
        # the core's qid rule: ids of one kind (numbers or strings), none missing; so that a
        # query is never paired with another one's id (1 vs "1") or a NaN key
        check_qid(ids, ids.shape[0], "query ids of scores")
        queries = np.array(sorted(union))
        pos = {q: i for i, q in enumerate(queries.tolist())}
        mat = np.full((len(queries), len(names)), np.nan)
        for j, k in enumerate(keyed):
            assert k is not None
            for q, v in k.items():
                mat[pos[q], j] = float(v)
        return names, queries, mat
    arr = _reals(scores, "")
    if arr.ndim != 2:
        raise ValueError(f"scores must be a mapping, a DataFrame or a 2-D (n_queries, n_systems) "
                         f"array; got shape {arr.shape}")
    if systems is None:
        names = tuple(f"S{j + 1}" for j in range(arr.shape[1]))
    else:
        names = _system_names(systems)
        if len(names) != arr.shape[1]:
            raise ValueError(f"systems names {len(names)} columns; scores have {arr.shape[1]}")
    return names, np.arange(arr.shape[0]), arr


def _system_names(keys: Any) -> tuple[str, ...]:
    """System names as strings, none twice (``1`` and ``"1"`` would share a report column)."""
    names = tuple(str(k) for k in keys)
    if len(set(names)) < len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"system name {twice!r} is given twice (names are compared as strings)")
    return names


def _unique_ids(index: Any) -> None:
    """A Series/DataFrame index holds each query once (a repeated one would lose values)."""
    if index.has_duplicates:
        q = index[index.duplicated()][0]
        raise ValueError(
            f"per-query scores list query {q.item() if isinstance(q, np.generic) else q!r} "
            "twice; give one value per query"
        )


def _value(x: Any, system: str = "") -> float:
    """A per-query value; a missing one (None, pandas.NA, NaN) is NaN, as in a list. Text,
    complex numbers and dates are refused: ``float("0.3")`` and a complex number's real part
    would be a guess."""
    if is_missing(x):
        return math.nan
    if isinstance(x, (str, bytes, complex, np.complexfloating, np.datetime64, np.timedelta64)) \
            or not isinstance(x, (int, float, np.number, np.bool_)) and not hasattr(x, "__float__"):
        raise TypeError(f"per-query scores{' of system ' + repr(system) if system else ''} must be "
                        f"real numbers; got {type(x).__name__} {x!r}")
    try:
        return float(x)
    except OverflowError:  # a Python int past the float range
        raise ValueError(
            f"per-query scores{' of system ' + repr(system) if system else ''} hold an integer "
            "too large for a float; the tests need "
            f"magnitudes within [{_SMALLEST:g}, {_LARGEST:g}] (rescale the scores)") from None


def _reals(v: Any, system: str) -> NDArray[np.float64]:
    """``v`` (array-like, Series or DataFrame column) as float64; NaN (or None, pandas.NA)
    marks a missing query; text, complex, date and duration values are a TypeError naming
    ``system``."""
    if hasattr(v, "to_numpy") and hasattr(v, "dtype"):  # pandas Series / column
        kind = getattr(v.dtype, "kind", "O")
        if kind in "biuf":
            return np.asarray(v.to_numpy(dtype=np.float64, na_value=np.nan))
        v = v.to_numpy(dtype=object)
    arr = np.asarray(v)
    if arr.dtype.kind in "biuf":
        return arr.astype(np.float64)
    if arr.dtype.kind == "O":
        flat = [_value(x, system) for x in arr.ravel().tolist()]
        return np.array(flat, dtype=np.float64).reshape(arr.shape)
    raise TypeError(f"per-query scores{' of system ' + repr(system) if system else ''} must be "
                    f"real numbers; got dtype {arr.dtype}")


def _keyed(v: Any, system: str) -> dict[Any, float] | None:
    if hasattr(v, "index") and hasattr(v, "to_numpy"):  # pandas Series
        _unique_ids(v.index)
        return {(q.item() if isinstance(q, np.generic) else q): float(x)
                for q, x in zip(v.index, _reals(v, system), strict=True)}
    if isinstance(v, Mapping):
        return {q: _value(x, system) for q, x in v.items()}
    return None


# ------------------------------------------------------------------------------------ tests
def _paired_t(d: Values) -> tuple[float, float, float]:
    """(t, p, Cohen's d_z) of paired differences; degenerate zero-variance cases handled."""
    stats = _scipy_stats()
    n = d.shape[0]
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd <= 1e-12 * float(np.abs(d).max()):  # constant differences up to rounding
        if mean == 0.0:
            return 0.0, 1.0, 0.0
        return math.copysign(math.inf, mean), 0.0, math.copysign(math.inf, mean)
    t = mean / (sd / math.sqrt(n))
    return t, float(2 * stats.t.sf(abs(t), n - 1)), mean / sd


def _wilcoxon(d: Values) -> tuple[float, float, float]:
    """(W = min(W+, W-), p, matched-pairs rank-biserial r); zero differences are dropped. The
    p-value is ``scipy.stats.wilcoxon(d)``'s (zero_method="wilcox"), given every difference:
    scipy chooses its exact, permutation or normal method on them, zeros included."""
    stats = _scipy_stats()
    nz = d[d != 0]
    if nz.size == 0:
        return 0.0, 1.0, 0.0
    ranks = stats.rankdata(np.abs(nz))
    w_plus = float(ranks[nz > 0].sum())
    w_minus = float(ranks[nz < 0].sum())
    res = stats.wilcoxon(d, zero_method="wilcox", alternative="two-sided")
    return min(w_plus, w_minus), float(res.pvalue), (w_plus - w_minus) / (w_plus + w_minus)


def _adjust(p: Values, correction: str) -> Values:
    """Adjusted p-values by statsmodels' ``multipletests`` (Holm, Bonferroni, BH)."""
    if correction == "none" or p.size == 0:
        return p
    try:
        from statsmodels.stats.multitest import multipletests
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "p-value corrections need statsmodels: pip install 'rankmetrics[stats]'"
        ) from exc
    return np.asarray(multipletests(p, method=_STATSMODELS_METHOD[correction])[1],
                      dtype=np.float64)


def _rng_kw(fn: Any, seed: int) -> dict[str, Any]:
    """scipy >= 1.15 takes ``rng``; older versions ``random_state``."""
    import inspect

    name = "rng" if "rng" in inspect.signature(fn).parameters else "random_state"
    return {name: np.random.default_rng(seed)}


#: float64 values of one batch of resamples handed to scipy (``batch=``): scipy's sign-flip
#: test holds about 8 arrays of that size at once, so all at once 30 000 queries x 10 000
#: flips needed about 20 GiB; batches draw the same numbers, so p-values are unchanged
_BATCH_VALUES = 2**20


def _batch(n: int) -> int:
    """Resamples per scipy batch for ``n`` queries."""
    return max(1, _BATCH_VALUES // max(n, 1))


def _check_resample_memory(n: int, n_resamples: int, flips: bool) -> None:
    """scipy draws the resamples in batches (:func:`_batch`) but keeps one float64 statistic
    per resample (``flips``, the randomization test: 2^n of them when fewer). Statistics this
    machine cannot hold are a ValueError naming n_resamples (2**70 got the process killed)."""
    draws = min(n_resamples, 2**n) if flips and n < 64 else n_resamples
    # the statistics (and scipy's copies of them), and one batch's working arrays
    need = 8 * 4 * draws + 8 * 8 * n * min(draws, _batch(n))
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not a POSIX system
        total = 1 << 50
    if need > total // 2:
        raise ValueError(
            f"n_resamples={n_resamples} asks scipy for {draws} float64 statistics of resamples "
            f"of {n} queries ({need / 2**30:.3g} GiB), more than half this machine's "
            f"{total / 2**30:.3g} GiB; use fewer (10 000 give p-values to about 0.01)"
        )


def _randomization(d: Values, n_resamples: int, seed: int) -> tuple[float, float, float, bool]:
    """(mean difference, two-sided p, d_z, exact) of Fisher's paired randomization test.

    ``scipy.stats.permutation_test`` with one sample and ``permutation_type="samples"`` flips
    the sign of every difference at random (all 2^n flips when that is <= n_resamples)."""
    stats = _scipy_stats()
    mean = float(d.mean())
    # exact: all 2^n flips are enumerated (what the report states), for every pair alike
    exact = 2 ** d.shape[0] <= n_resamples
    if not np.any(d != 0):
        return 0.0, 1.0, 0.0, exact
    res = stats.permutation_test((d,), np.mean, permutation_type="samples",
                                 n_resamples=n_resamples, alternative="two-sided",
                                 vectorized=True, batch=_batch(d.shape[0]),
                                 **_rng_kw(stats.permutation_test, seed))
    return mean, float(min(res.pvalue, 1.0)), _paired_t(d)[2], exact


def _bootstrap(d: Values, n_resamples: int, seed: int, alpha: float
               ) -> tuple[float, float, float, float, float]:
    """(mean, p, d_z, ci_low, ci_high): paired bootstrap test and percentile CI of the mean.

    One ``scipy.stats.bootstrap`` call gives the CI and the bootstrap distribution of the mean;
    shifting it by the observed mean gives the null distribution of the shifted bootstrap
    test (Efron & Tibshirani 1993, Alg. 16.2; Sakai 2006)."""
    stats = _scipy_stats()
    mean = float(d.mean())
    if np.all(d == d[0]):
        return mean, (1.0 if mean == 0 else 1.0 / (n_resamples + 1)), _paired_t(d)[2], mean, mean
    res = stats.bootstrap((d,), np.mean, n_resamples=n_resamples, vectorized=True,
                          confidence_level=1 - alpha, method="percentile",
                          batch=_batch(d.shape[0]), **_rng_kw(stats.bootstrap, seed))
    null = np.asarray(res.bootstrap_distribution) - mean
    hits = int(np.count_nonzero(np.abs(null) >= abs(mean) * (1 - 1e-12)))
    p = (hits + 1) / (n_resamples + 1)
    ci = res.confidence_interval
    return mean, p, _paired_t(d)[2], float(ci.low), float(ci.high)


def compare(
    scores: Any,
    *,
    test: str = "t",
    alpha: float = 0.05,
    missing: str = "intersect",
    correction: str = "none",
    systems: Sequence[str] | None = None,
    metric: str | None = None,
    n_resamples: int = 10000,
    seed: int = 0,
) -> Comparison:
    """Test differences between two or more systems over their per-query scores.

    Parameters
    ----------
    scores : mapping {system: per-query scores}, DataFrame or 2-D array
        See :func:`align_scores`; e.g. ``{"BOOL": s1, "SUM": s2}`` with arrays of
        ``rankmetrics.ndcg(...)`` values or ``EvalResult.per_query`` columns.
    test : {"t", "wilcoxon", "friedman", "anova", "randomization", "bootstrap"}, default "t"
        "t": paired t-test for every pair. "wilcoxon": Wilcoxon signed-rank test for every pair
        (zero differences dropped; the p-value is ``scipy.stats.wilcoxon``'s on the paired
        differences, by the method scipy chooses for them). "friedman": Friedman's test over all
        systems (ranks
        within queries, tie-corrected), with Conover's post-hoc comparisons for pairs.
        "anova": two-way ANOVA without replication (systems x queries, queries as blocks), with
        Tukey's HSD for pairs. "randomization": Fisher's randomization test of the mean paired
        difference for every pair (Smucker, Allan & Carterette 2007), by
        ``scipy.stats.permutation_test``: random sign flips of the differences, or all 2^n
        flips (an exact test) when 2^n <= ``n_resamples``. "bootstrap": the paired bootstrap
        test (the differences shifted to mean 0, resampled) with a percentile confidence
        interval of the mean difference (``Pairwise.ci_low``/``ci_high``), by
        ``scipy.stats.bootstrap``.
    alpha : float in (0, 1), default 0.05
        Level for ``Pairwise.significant`` and the table markers.
    missing : {"intersect", "zero", "error"}, default "intersect"
        Queries absent in some system (see :func:`align_scores`); stated in every report.
    correction : {"none", "holm", "bonferroni", "bh"}, default "none"
        Adjustment of the pairwise p-values over the family of pairs, by statsmodels'
        ``multipletests`` ("bh": Benjamini-Hochberg false discovery rate). Tukey's HSD already
        controls the family-wise error; Conover's comparisons follow a significant Friedman test.
    systems : sequence of str, optional
        Column names for a 2-D array (a mapping or DataFrame names its systems: ValueError).
    metric : str, optional
        Name of the metric, for reports.
    n_resamples : int >= 1, default 10000
        Randomization and bootstrap tests: random sign flips / bootstrap resamples. Stated in
        every report (``Comparison.method_statement``).
    seed : int, default 0
        Seed of those draws (the same seed gives the same p-values).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        Unknown test, missing rule or correction, alpha outside (0, 1), fewer than 2 systems or
        2 queries, non-finite scores, scores beyond the magnitudes of :func:`align_scores`,
        system names given twice (compared as strings, ``systems=`` included).
    TypeError
        Scores that are not real numbers (text, complex numbers, dates), naming the system.
    ImportError
        scipy is not installed (statsmodels, for a correction).

    Notes
    -----
    With n queries, k systems and x_ij the score of system j on query i:

    * randomization: d = x_b - x_a, T = mean(d); under H0 every sign pattern of d is equally
      likely; p = 2 min(P(T* <= T), P(T* >= T)) over the sign flips (scipy's two-sided rule;
      Monte Carlo p-values count the observed flip, (hits + 1) / (n_resamples + 1)).
    * bootstrap: B resamples of d with replacement, means m*_b; the null distribution is
      m*_b - mean(d); p = (1 + #{abs(m*_b - mean(d)) >= abs(mean(d))}) / (B + 1); CI = the
      alpha/2 and 1 - alpha/2 percentiles of m*_b.

    * paired t: t = mean(d) / (sd(d) / sqrt(n)), d = x_b - x_a, n - 1 degrees of freedom;
      effect d_z = mean(d) / sd(d). **Unlike** ``scipy.stats.ttest_rel``, which gives NaN,
      two systems equal on every query (every difference 0) give t = 0 and p = 1: no evidence
      of a difference; constant non-zero differences give t = +-inf and p = 0, as scipy does.
    * Friedman (Conover 1999, Sec. 5.8): r_ij = rank of x_ij within query i (average ranks for
      ties), R_j = sum_i r_ij, A = sum r_ij^2, C = n k (k + 1)^2 / 4,
      T = (k - 1) sum_j (R_j - n (k + 1) / 2)^2 / (A - C) ~ chi2(k - 1); Kendall's
      W = T / (n (k - 1)).
      Pairs: t = abs(R_a - R_b) / sqrt(2 (n A - sum_j R_j^2) / ((n - 1)(k - 1))) with
      (n - 1)(k - 1) degrees of freedom; a pair is marked significant only when the Friedman
      test itself is (its p-value is reported either way).
    * ANOVA: SS_sys = n sum_j (m_j - m)^2, SS_err = SS_total - SS_sys - SS_queries,
      F = (SS_sys / (k - 1)) / (SS_err / ((n - 1)(k - 1))); partial eta^2 = SS_sys /
      (SS_sys + SS_err). Pairs: q = abs(m_a - m_b) / sqrt(MS_err / n), studentized range with k and
      (n - 1)(k - 1) degrees of freedom. With k = 2, F = t^2 and the Tukey p equals the t-test p.

    JK 2002 (Sec. 3.6) used Friedman for the ordinal view of relevance and ANOVA for ratio-scale
    weights; the two can disagree (their Table 1).

    References
    ----------
    Järvelin, K., Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques. ACM
    TOIS 20(4), 422-446, Sec. 3.6 and Table 1. Conover, W. J. (1999). Practical Nonparametric
    Statistics, 3rd ed., Wiley. Smucker, M. D., Allan, J., Carterette, B. (2007). A comparison of
    statistical significance tests for information retrieval evaluation. CIKM, 623-632.
    Efron, B., Tibshirani, R. (1993). An Introduction to the Bootstrap, Ch. 16. Sakai, T. (2006).
    Evaluating evaluation metrics based on the bootstrap. SIGIR, 525-532. Benjamini, Y.,
    Hochberg, Y. (1995). Controlling the false discovery rate. JRSS B 57(1), 289-300.

    Examples
    --------
    >>> from rankmetrics.stats import compare
    >>> c = compare({"A": [0.2, 0.4, 0.3, 0.5], "B": [0.3, 0.6, 0.4, 0.7]}, test="t")
    >>> round(c.pair("A", "B").mean_diff, 3), round(c.pair("A", "B").pvalue, 4)
    (0.15, 0.0138)
    """
    key = _test_name(test)
    check_choice("correction", correction, CORRECTIONS)
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, numbers.Real) \
            or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number in (0, 1); got {alpha!r}")
    alpha = float(alpha)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) \
            or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive int; got {n_resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int; got {seed!r}")
    if seed < 0:  # numpy's generators take none
        raise ValueError(f"seed must be a non-negative int; got {seed}")
    names, queries, x, lacking = align_scores(scores, missing=missing, systems=systems)
    stats = _scipy_stats()
    n, k = x.shape
    means = x.mean(axis=0)
    pairs = list(_pairs(k))
    stat = np.zeros(len(pairs))
    pval = np.ones(len(pairs))
    eff = np.zeros(len(pairs))
    omnibus: Omnibus | None = None
    ci = np.full((len(pairs), 2), np.nan)
    exact = False
    if key in ("randomization", "bootstrap"):
        _check_resample_memory(n, int(n_resamples), key == "randomization")
    if key == "randomization":
        for i, (a, b) in enumerate(pairs):
            stat[i], pval[i], eff[i], exact = _randomization(x[:, b] - x[:, a],
                                                             int(n_resamples), int(seed))
        eff_name = "cohen_dz"
    elif key == "bootstrap":
        for i, (a, b) in enumerate(pairs):
            stat[i], pval[i], eff[i], ci[i, 0], ci[i, 1] = _bootstrap(
                x[:, b] - x[:, a], int(n_resamples), int(seed), float(alpha))
        eff_name = "cohen_dz"
    elif key in ("t", "wilcoxon"):
        fn = _paired_t if key == "t" else _wilcoxon
        for i, (a, b) in enumerate(pairs):
            stat[i], pval[i], eff[i] = fn(x[:, b] - x[:, a])
        eff_name = "cohen_dz" if key == "t" else "rank_biserial"
    elif key == "friedman":
        r = stats.rankdata(x, axis=1)
        rs = r.sum(axis=0)
        a1 = float((r**2).sum())
        c1 = n * k * (k + 1) ** 2 / 4.0
        if a1 - c1 <= 1e-12 * max(a1, 1.0):
            chi2, p_omni = 0.0, 1.0
        else:
            chi2 = (k - 1) * float(((rs - n * (k + 1) / 2.0) ** 2).sum()) / (a1 - c1)
            p_omni = float(stats.chi2.sf(chi2, k - 1))
        omnibus = Omnibus("friedman_chi2", chi2, (float(k - 1),), p_omni,
                          chi2 / (n * (k - 1)), "kendall_w")
        df = (n - 1) * (k - 1)
        var = 2.0 * (n * a1 - float((rs**2).sum())) / df
        for i, (a, b) in enumerate(pairs):
            diff = float(rs[b] - rs[a])
            eff[i] = diff / n
            if var <= 1e-12 * max(n * a1, 1.0):
                stat[i], pval[i] = (0.0, 1.0) if diff == 0 else (math.inf, 0.0)
            else:
                stat[i] = abs(diff) / math.sqrt(var)
                pval[i] = float(2 * stats.t.sf(stat[i], df))
        eff_name = "mean_rank_diff"
    else:  # anova
        # queries as blocks: each query's level is removed first, and SS_err is summed from
        # the residuals; SS_total - SS_sys - SS_queries lost the residuals to the rounding of
        # large query levels (levels of 1e6: Tukey p 0.0 for the t-test's 0.10; of 1e8: F 0)
        y = x - x.mean(axis=1, keepdims=True)
        sys_eff = y.mean(axis=0)
        sys_eff -= sys_eff.mean()
        ss_sys = n * float((sys_eff**2).sum())
        ss_err = float(((y - sys_eff) ** 2).sum())
        df1, df2 = k - 1, (n - 1) * (k - 1)
        # the rounding of the centring (a few ulps of the largest score per cell), or a
        # residual 1e-12 of the within-query variation, is no variation
        noise = n * k * (4.0 * k * np.finfo(np.float64).eps * float(np.abs(x).max())) ** 2
        tiny = max(1e-12 * (ss_sys + ss_err), noise, 1e-300)
        if ss_err <= tiny:
            f_stat, p_omni = (0.0, 1.0) if ss_sys <= tiny else (math.inf, 0.0)
        else:
            f_stat = (ss_sys / df1) / (ss_err / df2)
            p_omni = float(stats.f.sf(f_stat, df1, df2))
        # SS_sys below the rounding of the sums is no effect (identical systems left 1e-32
        # over 1e-32 of error: partial eta^2 1.0)
        eta = 0.0 if ss_sys <= tiny else ss_sys / (ss_sys + ss_err)
        omnibus = Omnibus("anova_F", f_stat, (float(df1), float(df2)), p_omni, eta,
                          "partial_eta_squared")
        mse = ss_err / df2
        for i, (a, b) in enumerate(pairs):
            diff = float(sys_eff[b] - sys_eff[a])  # means[b] - means[a], without query levels
            eff[i] = _paired_t(x[:, b] - x[:, a])[2]
            if mse <= tiny / df2:
                stat[i], pval[i] = (0.0, 1.0) if n * diff**2 <= tiny else (math.inf, 0.0)
            else:
                stat[i] = abs(diff) / math.sqrt(mse / n)
                pval[i] = float(stats.studentized_range.sf(stat[i], k, df2))
        eff_name = "cohen_dz"
    pval = np.clip(pval, 0.0, 1.0)
    padj = _adjust(pval, correction)
    # Conover's comparisons are made only once the Friedman test rejects (Conover 1999)
    gate = key != "friedman" or (omnibus is not None and omnibus.pvalue < alpha)
    results = tuple(
        Pairwise(names[a], names[b], float(means[a]), float(means[b]),
                 float(means[b] - means[a]), float(stat[i]), float(padj[i]), float(eff[i]),
                 eff_name, bool(gate and padj[i] < alpha), float(ci[i, 0]), float(ci[i, 1]))
        for i, (a, b) in enumerate(pairs)
    )
    resampling = key in _RESAMPLING
    return Comparison(key, names, queries, x, means, results, omnibus, float(alpha), missing,
                      lacking, correction, metric,
                      int(n_resamples) if resampling else None,
                      int(seed) if resampling else None, bool(exact and key == "randomization"))


def _pairs(k: int) -> Iterable[tuple[int, int]]:
    for a in range(k):
        for b in range(a + 1, k):
            yield a, b


# ------------------------------------------------------------------------------- table
_SYMBOLS = ("*", "#", "+", "$", "%", "&")


def significance_table(
    comparisons: Sequence[Comparison],
    *,
    digits: int = 3,
    symbols: Sequence[str] = _SYMBOLS,
    repeat: int = 1,
    relative: bool = True,
) -> str:
    """Per-system averages, pairwise differences and significance markers (JK 2002, Table 1).

    One row per metric; columns are the systems' mean scores, then ``B - A`` for every pair in
    system order, each difference followed by one marker per test that found it significant at
    that comparison's alpha (first test "*", second "#", ...; JK 2002 print "**" for Friedman and
    "(##)" for ANOVA at p < 0.01: pass ``repeat=2`` and ``alpha=0.01`` for that look) and by the
    relative difference ``(B - A) / A`` (JK 2002 read differences relatively, with Sparck
    Jones's criteria: < 5 % marginal, > 10 % essential). Other formats (Markdown, LaTeX, CSV,
    JSON): :func:`rankmetrics.analysis.report.render_report`.

    Parameters
    ----------
    comparisons : sequence of Comparison
        All over the same systems; several tests of one metric share a row.
    digits : int, default 3
    symbols : sequence of str
        Marker per distinct test, in order of first appearance.
    repeat : int, default 1
        Times each marker symbol is repeated.
    relative : bool, default True
        Show the relative difference next to every absolute one.

    Returns
    -------
    str
        The table, a legend line per test (with its correction, and the number of permutations
        or resamples and the seed of resampling tests), the relative-difference legend, omnibus
        results and each comparison's missing-query statement (naming dropped queries).

    Raises
    ------
    ValueError
        No comparisons, different systems, more tests than symbols, ``digits`` outside 0..17,
        ``repeat`` outside 1..10, or empty or repeated ``symbols``.
    TypeError
        Not Comparison objects, or ``digits``, ``repeat`` or ``symbols`` of the wrong type.

    Examples
    --------
    >>> from rankmetrics.stats import compare
    >>> c = compare({"A": [0.2, 0.4, 0.3, 0.5], "B": [0.3, 0.6, 0.4, 0.7]}, metric="P@5")
    >>> print(significance_table([c]).splitlines()[1])
    P@5 0.350 0.500 0.150* (+42.9%)
    """
    from .report import render_report

    if not comparisons:
        raise ValueError("significance_table needs at least one Comparison")
    return render_report(comparisons, "text", digits=digits, relative=relative,
                         symbols=symbols, repeat=repeat)


# -------------------------------------------------------------------------- TREC runs
def run_labels(runs: Sequence[Any]) -> list[str]:
    """Names for runs in legends and tables: file names without their extension.

    Paths become their base name without the extension (``runs/bm25.run`` -> ``bm25``); when
    that makes two names equal, the full base names are kept; still equal names get ``#i``;
    other objects are ``run1``, ``run2``, ...

    Examples
    --------
    >>> run_labels(["x/bm25.run", "y/dense.txt", "z/dense.run"])
    ['bm25', 'dense.txt', 'dense.run']

    Raises
    ------
    TypeError
        ``runs`` is one run (a path or a DataFrame), not a sequence of them.
    """
    _one_run_refused(runs)
    base = [os.path.basename(os.fspath(r)) if isinstance(r, (str, os.PathLike)) else None
            for r in runs]
    stems = [os.path.splitext(b)[0] or b if b is not None else None for b in base]
    out: list[str] = []
    for i, (b, st) in enumerate(zip(base, stems, strict=True)):
        if b is None:
            name = f"run{i + 1}"
        else:
            assert st is not None
            name = st if stems.count(st) == 1 else b
        out.append(name if name not in out else f"{name}#{i + 1}")
    return out


def _one_run_refused(runs: Any) -> None:
    """A single run (a path, or a frame) where a list of runs is expected: iterating it gave
    its characters or column names as runs (a path "x.run" read "x", ".", ...)."""
    if isinstance(runs, (str, bytes, os.PathLike)) or hasattr(runs, "columns"):
        raise TypeError(f"runs must be a list of runs (or a {{name: run}} mapping); got one "
                        f"{type(runs).__name__}: wrap it in a list")


def _run_names(runs: Any) -> dict[str, Any]:
    if isinstance(runs, Mapping):  # 1 and "1" would be merged, one run lost
        return dict(zip(_system_names(runs), runs.values(), strict=True))
    _one_run_refused(runs)
    runs = list(runs)
    return dict(zip(run_labels(runs), runs, strict=True))


def per_query_scores(qrels: Any, runs: Any, metric: str, **evaluate_kwargs: Any
                     ) -> pd.DataFrame:
    """Per-query scores of several TREC runs for one metric (NaN where a run lacks a query).

    Parameters
    ----------
    qrels : path, DataFrame or mapping
        Anything :func:`rankmetrics.trec.read_qrels` accepts.
    runs : mapping {name: run} or sequence of runs
        Runs as :func:`rankmetrics.trec.read_run` accepts; a sequence is named by
        :func:`run_labels` (file name without extension).
    metric : str
        A metric name :func:`rankmetrics.trec.evaluate` accepts, e.g. ``"ndcg@10"``.
    **evaluate_kwargs
        Passed to :func:`rankmetrics.trec.evaluate` (ties, gain, discount, ...).

    Returns
    -------
    pandas.DataFrame
        Index: query id; one column per run.

    Raises
    ------
    ValueError, OSError
        From reading or evaluating the runs; two runs whose names are equal as strings.
    """
    return _evaluate_runs(qrels, runs, [metric], **evaluate_kwargs)[0][metric]


def _evaluate_runs(qrels: Any, runs: Any, metrics: Sequence[str], **evaluate_kwargs: Any
                   ) -> tuple[dict[str, pd.DataFrame], dict[str, set[Any]]]:
    """Per-query tables (NaN: lacking or undefined) and, per metric, the queries a run scored
    NaN (``empty="skip"``): undefined, unlike those a run lacks."""
    import pandas as pd

    from ..trec import evaluate, read_qrels, read_run
    from ..trec.match import refuse_duplicates

    judged = read_qrels(qrels)
    refuse_duplicates(judged, "qrels", qrels)  # here, where the file's name is known
    named = _run_names(runs)
    vector = {m: parse_avg_pos(m) for m in metrics}
    plain = [m for m in metrics if vector[m] is None]
    cols: dict[str, dict[str, Any]] = {m: {} for m in plain}
    undefined: dict[str, set[Any]] = {m: set() for m in metrics}
    if plain:
        for name, run in named.items():
            frame = read_run(run)
            refuse_duplicates(frame, "run", run)
            try:
                res = evaluate(judged, frame, plain, **evaluate_kwargs)
            except ValueError as exc:
                # evaluate reads a frame, not the file: say which run has no judged query
                if frame["qid"].astype(str).isin(set(judged["qid"].astype(str))).any():
                    raise
                where = f" ({run})" if isinstance(run, (str, os.PathLike)) else ""
                raise ValueError(f"run {name!r}{where}: {exc}") from None
            for m in plain:
                col = res.per_query[m]
                cols[m][name] = col
                undefined[m].update(col.index[col.isna()].tolist())
    out = {m: pd.DataFrame(c) for m, c in cols.items()}
    curves = {v[0] for v in vector.values() if v is not None}
    if curves:
        from .plot import trec_gain_vectors

        kw = _vector_kwargs(evaluate_kwargs)
        for curve in sorted(curves):
            depth = max(v[2] for v in vector.values() if v is not None and v[0] == curve)
            gv = trec_gain_vectors(judged, named, curve=curve, depth=depth, missing="zero",
                                   **kw)
            for m, v in vector.items():
                if v is None or v[0] != curve:
                    continue
                frame = gv.avg_pos(v[2], start=v[1])
                for name, lacks in gv.missing_queries.items():  # NaN: let compare decide
                    absent = frame.index.isin(lacks)
                    undefined[m].update(frame.index[frame[name].isna() & ~absent].tolist())
                    frame.loc[absent, name] = np.nan
                out[m] = frame
    return out, undefined


#: options of :func:`rankmetrics.trec.evaluate` that shape a gain vector (``avg-*`` metrics)
_VECTOR_OPTIONS = ("gain", "discount", "log_base", "ties", "empty")
#: options that change no number of a gain vector (its docno ties compare doubles)
_INERT_OPTIONS = ("threads", "progress")


def _vector_kwargs(evaluate_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The ``avg-*`` metrics' options from ``evaluate_kwargs``, with evaluate's defaults (linear
    gain: ``avg-ndcg@10-10`` is ``nDCG@10``); an option they cannot honour raises rather than
    being dropped."""
    import inspect

    from ..trec import evaluate

    known = inspect.signature(evaluate).parameters
    unknown = sorted(set(evaluate_kwargs) - set(known))
    if unknown:
        raise TypeError(f"compare_runs() got unexpected keyword arguments {unknown}")
    other = sorted(set(evaluate_kwargs) - {*_VECTOR_OPTIONS, *_INERT_OPTIONS, "docno_scores"})
    if evaluate_kwargs.get("docno_scores", "double") != "double":
        other.append("docno_scores")
    if other:
        raise ValueError(
            f"avg-<curve> metrics take only {', '.join(_VECTOR_OPTIONS)} (and compare docno-tied "
            f"scores as doubles); got {', '.join(f'{k}={evaluate_kwargs[k]!r}' for k in other)}")
    return {"gain": "linear", **{k: evaluate_kwargs[k] for k in _VECTOR_OPTIONS
                                 if k in evaluate_kwargs}}


def compare_runs(
    qrels: Any,
    runs: Any,
    metrics: str | Sequence[str] = "ndcg@10",
    *,
    tests: str | Sequence[str] = "t",
    alpha: float = 0.05,
    missing: str = "intersect",
    correction: str = "none",
    n_resamples: int = 10000,
    seed: int = 0,
    **evaluate_kwargs: Any,
) -> list[Comparison]:
    """Evaluate TREC runs per query and compare them (one Comparison per metric and test).

    Parameters
    ----------
    qrels, runs
        As in :func:`per_query_scores`.
    metrics : str or sequence of str, default "ndcg@10"
        Names :func:`rankmetrics.trec.evaluate` accepts, or per-query vector averages
        ``avg-<curve>@<k>`` / ``avg-<curve>@<start>-<k>`` (curve cg, dcg, ncg or ndcg): the
        avg-pos (JK 2002 eq. 6) of each topic's vector over ranks start..k, as JK 2002 Table 1
        (``avg-ncg@200``, ``avg-ndcg@200``) and TOIS Table 2 (ranks 1-10 vs 1-100) test them.
        Gain, discount, log base, ties and the empty rule come from ``evaluate_kwargs``, with
        :func:`rankmetrics.trec.evaluate`'s defaults (linear gain), so ``avg-ndcg@10-10``
        equals ``nDCG@10``; their other options raise for these metrics.
    tests : str or sequence of str, default "t"
    alpha, missing, correction, n_resamples, seed
        As in :func:`compare`. Which queries each run scores follows
        :func:`rankmetrics.trec.evaluate` (topics of the run that have judgments); ``missing``
        then decides about topics that some runs lack. Topics whose metric is undefined
        (NaN with ``empty="skip"``: no relevant document) are left out for every run under
        every rule, and stated (``Comparison.undefined_queries``).
    **evaluate_kwargs
        Passed to :func:`rankmetrics.trec.evaluate`.

    Returns
    -------
    list of Comparison
        Ordered metric by metric, test by test; print them with :func:`significance_table`.

    Raises
    ------
    ValueError, OSError, ImportError
        As :func:`per_query_scores` and :func:`compare`; a qrels pair judged twice with
        different labels, or a run retrieving a document twice (naming file and lines);
        ``avg-*`` metrics with an option of ``evaluate_kwargs`` they cannot honour.
    TypeError
        An ``evaluate_kwargs`` name :func:`rankmetrics.trec.evaluate` does not take; ``runs``
        is one run (a path or a DataFrame), not a list of them.
    """
    metric_list = measure_items(metrics)
    test_list = [tests] if isinstance(tests, str) else list(tests)
    for t in test_list:
        _test_name(t)
    tables, undefined = _evaluate_runs(qrels, runs, metric_list, **evaluate_kwargs)
    out = []
    for m in metric_list:
        # undefined for every run alike (no relevant document): neither lacking nor 0
        gone = sorted(undefined[m], key=str)
        table = tables[m].drop(index=gone)
        for t in test_list:
            c = compare(table, test=t, alpha=alpha, missing=missing, correction=correction,
                        metric=m, n_resamples=n_resamples, seed=seed)
            out.append(replace(c, undefined_queries=gone) if gone else c)
    return out
