"""Gain-by-rank curves and their plots (Järvelin & Kekäläinen 2002 Figs 1-4; Järvelin et al. 2008).

Two layers:

* *vectors* (numpy only): :func:`gain_curves` averages the per-query CG/DCG/nCG/nDCG vectors of
  several systems and the ideal vector; :func:`trec_gain_curves` does the same for TREC runs and
  qrels; :func:`interpolated_precision` gives 11-point interpolated precision-recall curves;
* *figures* (matplotlib, extra ``rankmetrics[plot]``, imported lazily): every ``plot_*`` function
  returns a :class:`matplotlib.figure.Figure` drawn on the Agg canvas without touching pyplot's
  global state (save it with ``fig.savefig("curves.png")``; in a notebook it displays itself).
  Pass ``ax=`` to draw into an existing Axes instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..core.gains import DiscountLike, GainLike, gain_key
from ..core.plan import QueryPlan
from ..core.validation import (
    check_choice,
    check_depth,
    check_empty,
    check_flag,
    check_labels,
    check_result_size,
    check_threshold,
)
from .pr import _recall_base
from .stats import _system_names
from .vectors import _reals, avg_pos, avg_vect, horizontal_reading, norm_vect

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .session import SessionDCG

Values = NDArray[np.float64]

__all__ = [
    "CURVES",
    "RECALL_LEVELS",
    "GainVectors",
    "gain_curves",
    "trec_gain_curves",
    "trec_gain_vectors",
    "interpolated_precision",
    "trec_interpolated_precision",
    "plot_curves",
    "plot_gain_curves",
    "plot_precision_recall",
    "plot_precision_recall_points",
    "topics_statement",
    "plot_trec_curves",
    "plot_session_curves",
    "plot_query_position_curves",
    "query_position_curves",
    "session_average",
]

#: gain curves of :func:`gain_curves` (JK 2002: cumulated gain, discounted, normalised)
CURVES = ("cg", "dcg", "ncg", "ndcg")
AVERAGES = ("per_query", "ideal")
#: the 11 recall levels 0.0, 0.1, ..., 1.0 of interpolated precision-recall curves
RECALL_LEVELS = np.arange(11) / 10.0
_LABELS = {
    "cg": "CG (cumulated gain)",
    "dcg": "DCG (discounted cumulated gain)",
    "ncg": "nCG (normalised CG)",
    "ndcg": "nDCG (normalised DCG)",
}
_COMMON = """curve : {"cg", "dcg", "ncg", "ndcg"}, default "ndcg"
        Which vector: CG (JK 2002 eq. 1, Fig. 1), DCG (eq. 2, Fig. 2), nCG or nDCG (eq. 5,
        Figs 3-4).
    depth : int >= 1, default 100
        Ranks 1..depth.
    gain, discount, log_base, ties
        As in :func:`rankmetrics.dcg_curve` (discount and log_base only for DCG/nDCG). For TREC
        runs a mapping ``{level: gain}`` may leave levels out: they keep their linear gain, as in
        :func:`rankmetrics.trec.evaluate`.
    average : {"per_query", "ideal"}, default "per_query"
        Normalised curves only. "per_query": avg-vect of every query's norm-vect(V, I), so rank
        k reads as the mean nDCG@k. "ideal": norm-vect(avg-vect(V), avg-vect(I)), the average
        vector divided by the average ideal vector, as JK 2002 draw Figs 3-4 (Sec. 3.3).
    empty : float or "skip", default 0.0
        Normalised value of a query whose ideal vector is 0 ("skip" leaves it out)."""


def _check_curve(curve: str) -> str:
    return check_choice("curve", curve, CURVES)


def _gain_kwargs(curve: str, gain: GainLike, discount: DiscountLike, log_base: float
                 ) -> dict[str, Any]:
    if curve in ("dcg", "ndcg"):
        return {"gain": gain, "discount": discount, "log_base": log_base}
    return {"gain": gain}


def _average(curve: str, curves: Values, ideal: Values, average: str, empty: float | str
             ) -> Values:
    """Average per-query (n_q, depth) vectors: raw for CG/DCG, normalised for nCG/nDCG."""
    if curve in ("cg", "dcg"):
        return avg_vect(curves)
    rule = check_empty(empty)
    if rule == "error":
        if np.any(ideal[:, -1] <= 0):
            raise ValueError("some queries have no relevant document (ideal vector 0); pass "
                             "empty=0.0 or 'skip'")
        rule = 0.0
    if average == "ideal":
        if rule == "skip":
            keep = ideal[:, -1] > 0
            return norm_vect(avg_vect(curves[keep]), avg_vect(ideal[keep]))
        # every ideal 0: the average ideal is 0 and the value is empty's, as per query
        return norm_vect(avg_vect(curves), avg_vect(ideal), empty=float(rule))
    normed = norm_vect(curves, ideal, empty=np.nan if rule == "skip" else float(rule))
    return avg_vect(normed)


def _systems(value: Any, name: str, what: str = "system") -> Mapping[Any, Any]:
    """``value``, a non-empty mapping {system name: ...}: a list, tuple, array or DataFrame was
    AttributeError "no attribute 'values'" or numpy's "truth value ... is ambiguous"."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping {{system name: ...}}; got "
                        f"{type(value).__name__}")
    if not value:
        raise ValueError(f"{name} must hold at least one {what}")
    return value


def gain_curves(
    y_true: ArrayLike,
    scores: Mapping[str, ArrayLike],
    qid: ArrayLike | None = None,
    *,
    curve: str = "ndcg",
    depth: int = 100,
    gain: GainLike = "exponential",
    discount: DiscountLike = "log",
    log_base: float = 2,
    ties: str = "average",
    average: str = "per_query",
    empty: float | str = 0.0,
) -> tuple[dict[str, Values], Values]:
    """Average gain vectors of several systems over the same queries, and the ideal vector.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Graded labels, shared by every system.
    scores : mapping {system name: array-like of shape (n_rows,)}
        Each system's scores for the same rows.
    qid : array-like of shape (n_rows,), optional
        Query of every row.
    {common}

    Returns
    -------
    vectors : dict {system name: ndarray of float64, shape (depth,)}
        The average vector of every system (avg-vect, JK 2002 eq. 3).
    ideal : ndarray of float64, shape (depth,)
        The average ideal vector (eq. 4) for CG/DCG; all ones for nCG/nDCG (norm-vect(I, I)).

    Raises
    ------
    ValueError, TypeError
        Unknown ``curve`` or ``average``, no systems, ``scores`` not a mapping (TypeError),
        two systems whose names are equal as strings (``1`` and ``"1"``), or any input error
        of the curves.

    Examples
    --------
    >>> from rankmetrics.plot import gain_curves
    >>> vecs, ideal = gain_curves([2, 0, 1], {"A": [3, 2, 1], "B": [1, 2, 3]}, curve="cg",
    ...                           depth=3, gain="linear")
    >>> vecs["A"], vecs["B"], ideal
    (array([2., 2., 3.]), array([1., 1., 3.]), array([2., 3., 3.]))
    """
    _check_curve(curve)
    check_choice("average", average, AVERAGES)
    _systems(scores, "scores")
    plan = QueryPlan(y_true, qid)
    kw = _gain_kwargs(curve, gain, discount, log_base)
    raw = "cg" if curve in ("cg", "ncg") else "dcg"
    ideal = getattr(plan, f"ideal_{raw}_curve")(depth=depth, **kw)
    out = {}
    for name, s in zip(_system_names(scores), scores.values(), strict=True):
        c = getattr(plan, f"{raw}_curve")(s, depth=depth, ties=ties, **kw)
        out[name] = _average(curve, c, ideal, average, empty)
    ideal_avg = avg_vect(ideal) if curve in ("cg", "dcg") else np.ones(ideal.shape[1])
    return out, ideal_avg


gain_curves.__doc__ = (gain_curves.__doc__ or "").replace("{common}", _COMMON)


def interpolated_precision(
    y_true: ArrayLike,
    y_score: ArrayLike,
    qid: ArrayLike | None = None,
    *,
    threshold: float = 1,
    ties: str = "average",
    n_relevant: ArrayLike | None = None,
    empty: float | str = 0.0,
    rule: str = "trec",
) -> Values:
    """11-point interpolated precision per query, at recall 0.0, 0.1, ..., 1.0.

    Parameters
    ----------
    y_true, y_score, qid
        As in :func:`rankmetrics.precision`.
    threshold : float, default 1
        A document is relevant when its label is >= threshold.
    ties : {"optimistic", "pessimistic", "stable"}
        The order of tied scores; "average" (the default elsewhere) raises, see Notes.
    n_relevant : int or array-like of shape (n_queries,), optional
        Relevant documents of every query's recall base (e.g. from qrels, when not all of them
        were retrieved), in ``np.unique(qid)`` order, whole numbers (one int for every query);
        default: the relevant rows of the query.
    empty : float or "skip", default 0.0
        Value (every level) for a query without relevant documents; "skip" gives NaN.
    rule : {"trec", "recall"}, default "trec"
        When a ranking reaches recall level r: "trec" once it holds ``lround(r * R)`` relevant
        documents (trec_eval 10.0's ``iprec_at_recall``, the default of
        :func:`rankmetrics.trec.evaluate`); "recall" once recall >= r (the textbook rule).

    Returns
    -------
    ndarray of float64, shape (n_queries, 11)
        Column l is the interpolated precision at recall l / 10; rows in ``np.unique(qid)`` order.

    Raises
    ------
    ValueError, TypeError
        As :func:`rankmetrics.precision`; ``ties="average"``; ``n_relevant`` not numbers
        (TypeError), or of the wrong shape, negative, fractional, non-finite, above 2**53 or
        smaller than the relevant rows of a query (ValueError).

    Notes
    -----
    P_interp(r) = max over ranks i at or after the rank where the list reaches recall r of
    precision(i), and 0 when it never does (trec_eval's ``iprec_at_recall``; the lecture slides'
    "11-point interpolated average precision"). Precision and recall at rank i are computed from the
    number of relevant documents in the top i of the ordering the tie rule picks ("stable",
    "optimistic", "pessimistic"). ``ties="average"`` raises, as it does for IPrec and 11pt_avg
    in :func:`rankmetrics.trec.evaluate`: interpolation takes a maximum over ranks, and the
    maximum of tie-averaged precisions is not the average over orderings of the interpolated
    curves. That average is computed exactly by
    :func:`rankmetrics.analysis.pr.expected_interpolated_precision`; the uninterpolated points of
    :func:`rankmetrics.analysis.pr.precision_recall_points` are exact under ``ties="average"``.

    Examples
    --------
    Relevant documents at ranks 1 and 3 of 4 (R = 2). trec_eval needs lround(0.7 * 2) = 1
    relevant document for recall 0.7, the textbook rule needs recall 1:

    >>> from rankmetrics.plot import interpolated_precision
    >>> interpolated_precision([1, 0, 1, 0], [4, 3, 2, 1], ties="stable").round(3).tolist()
    [[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.667, 0.667, 0.667]]
    >>> interpolated_precision([1, 0, 1, 0], [4, 3, 2, 1], ties="stable",
    ...                        rule="recall").round(3).tolist()
    [[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.667, 0.667, 0.667, 0.667, 0.667]]
    """
    _check_iprec_ties(ties)
    labels = check_labels(y_true)
    t = check_threshold(threshold)
    check_choice("rule", rule, ("trec", "recall"))
    empty_rule = check_empty(empty)
    rel = (labels >= t).astype(np.float64)
    plan = QueryPlan(rel, qid)
    width = int(plan.sizes.max())
    c = plan.cg_curve(y_score, depth=width, gain="linear", ties=ties)
    r_rows = plan.ideal_cg_curve(depth=width, gain="linear")[:, -1]
    r_all = _recall_base(n_relevant, r_rows, plan.n_queries)
    return _interpolate(c, np.asarray(plan.sizes, dtype=np.int64), r_all, empty_rule, rule)


def _check_iprec_ties(ties: str) -> None:
    """As :func:`rankmetrics.trec.evaluate` for IPrec/11pt_avg: no tie average, so raise."""
    if ties == "average":
        raise ValueError(
            "11-point interpolated precision has no exact tie-averaged form (it is a maximum "
            "over ranks, not a sum; rankmetrics.trec.evaluate raises for IPrec/11pt_avg too); "
            "pass ties='docno' (trec_eval), 'stable', 'optimistic' or 'pessimistic'; the exact "
            "tie average is rankmetrics.analysis.pr.expected_interpolated_precision"
        )


def _needed(level: float, r_all: Values, rule: str) -> Values:
    """Relevant documents (possibly fractional, expected) needed to reach recall ``level``."""
    v = level * r_all
    if rule == "trec":
        return np.floor(v + 0.5)  # C's lround for v >= 0
    return v * (1.0 - 1e-12)


def _interpolate(c: Values, sizes: NDArray[np.int64], r_all: Values, empty: float | str,
                 rule: str) -> Values:
    n_q, width = c.shape
    ranks = np.arange(1, width + 1, dtype=np.float64)
    inside = ranks[None, :] <= sizes[:, None]
    prec = np.where(inside, c / ranks[None, :], 0.0)
    cnt = np.where(inside, c, -1.0)
    sufmax = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]
    out = np.zeros((n_q, RECALL_LEVELS.shape[0]))
    for j, level in enumerate(RECALL_LEVELS):
        reach = cnt >= (_needed(float(level), r_all, rule) - 1e-9)[:, None]
        first = np.argmax(reach, axis=1)
        out[:, j] = np.where(reach.any(axis=1), sufmax[np.arange(n_q), first], 0.0)
    rule_e = empty
    if np.any(r_all <= 0):
        if rule_e == "error":
            raise ValueError("interpolated precision is undefined for queries without relevant "
                             "documents; pass empty=0.0 or 'skip'")
        out[r_all <= 0] = np.nan if rule_e == "skip" else float(rule_e)
    return out


# ------------------------------------------------------------------------------ TREC runs
def _trec_inputs(qrels: Any, runs: Any, ties: str) -> tuple[Any, dict[str, Any], str]:
    """qrels (labels clipped at 0), runs joined with their labels, and the core tie rule.

    ``ties="docno"`` (trec_eval's order: document id descending within equal scores) sorts
    every run so and returns "stable"."""
    from ..trec import read_qrels, read_run
    from ..trec.match import refuse_duplicates
    from .stats import _run_names

    check_choice("ties", ties, ("average", "optimistic", "pessimistic", "stable", "docno"))
    judged = read_qrels(qrels)
    judged = judged.assign(qid=judged["qid"].astype(str), docid=judged["docid"].astype(str))
    refuse_duplicates(judged, "qrels", qrels)
    judged = judged.assign(
        label=np.clip(judged["label"].to_numpy(dtype=np.float64), 0.0, None),
    ).drop_duplicates(["qid", "docid"])
    read = {}
    for name, run in _run_names(runs).items():
        r = read_run(run)
        r = r.assign(qid=r["qid"].astype(str), docid=r["docid"].astype(str))
        refuse_duplicates(r, "run", run)
        r = r[r["qid"].isin(set(judged["qid"]))]
        if ties == "docno":
            r = r.sort_values(["qid", "docid"], ascending=[True, False], kind="stable")
        merged = r.merge(judged, on=["qid", "docid"], how="left")
        read[name] = merged.assign(label=merged["label"].fillna(0.0))
    if not read:
        raise ValueError("runs must hold at least one run")
    return judged, read, "stable" if ties == "docno" else ties


def _query_set(read: Mapping[str, Any], missing: str) -> NDArray[np.str_]:
    check_choice("missing", missing, ("intersect", "zero"))
    sets = [set(r["qid"]) for r in read.values()]
    qs = set.intersection(*sets) if missing == "intersect" else set.union(*sets)
    if not qs:
        # which run is the cause: one without any judged topic is the usual one
        none = [name for name, q in zip(read, sets, strict=True) if not q]
        why = (f"{', '.join(map(repr, none))} {'has' if len(none) == 1 else 'have'} no topic "
               "judged in the qrels (query ids must match exactly, as strings)" if none
               else "the runs share no judged topic")
        raise ValueError(f"no query is left to plot (missing={missing!r}): {why}")
    return np.array(sorted(qs))


def _per_query(frame: Any, queries: NDArray[np.str_], fn: Any, width: int, **kw: Any
               ) -> Values:
    """Per-query vectors of one run for ``queries`` (zero rows for queries the run lacks)."""
    out = np.zeros((queries.shape[0], width))
    sub = frame[frame["qid"].isin(set(queries))]
    if len(sub):
        plan = QueryPlan(sub["label"].to_numpy(), sub["qid"].to_numpy())
        vals = fn(plan, sub["score"].to_numpy(dtype=np.float64), **kw)
        out[np.searchsorted(queries, plan.qids)] = vals
    return out


@dataclass(frozen=True)
class GainVectors:
    """Per-query gain vectors of TREC runs (output of :func:`trec_gain_vectors`).

    Attributes
    ----------
    curve : str
        "cg", "dcg", "ncg" or "ndcg".
    queries : ndarray of str, shape (n_queries,)
        The topics, sorted; rows of every matrix follow this order.
    vectors : dict {run name: ndarray of float64, shape (n_queries, depth)}
        One vector per topic (normalised per topic for nCG/nDCG; NaN rows with
        ``empty="skip"`` for topics without relevant documents).
    ideal : ndarray of float64, shape (n_queries, depth)
        The ideal CG/DCG vectors from the qrels' recall base (JK 2002 eq. 4), unnormalised.
    missing : str
        The rule for topics that some runs lack.
    missing_queries : dict {run name: list of str}
        Judged topics each run lacks (dropped with "intersect", zero vectors with "zero").
    gain, ties : str
        Descriptions of the gain and tie rule, for titles and reports.
    """

    curve: str
    queries: NDArray[np.str_]
    vectors: dict[str, Values]
    ideal: Values
    missing: str
    missing_queries: dict[str, list[str]]
    gain: str = ""
    ties: str = ""

    @property
    def depth(self) -> int:
        """Length of the vectors."""
        return int(self.ideal.shape[1])

    @property
    def dropped_queries(self) -> list[str]:
        """Topics left out with ``missing="intersect"``."""
        if self.missing != "intersect":
            return []
        return sorted({q for qs in self.missing_queries.values() for q in qs})

    def avg_pos(self, k: int, *, start: int = 1) -> pd.DataFrame:
        """Per-query avg-pos of every run's vectors over ranks start..k (JK 2002 eq. 6).

        Returns
        -------
        pandas.DataFrame
            Index: topic; one column per run; ready for :func:`rankmetrics.stats.compare`.
        """
        import pandas as pd

        return pd.DataFrame({n: avg_pos(v, k, start=start) for n, v in self.vectors.items()},
                            index=pd.Index(self.queries, name="qid"))

    def horizontal(self, n: int, *, reference: str = "ideal") -> pd.DataFrame:
        """Rank every run needs, per topic, to reach the reference's gain at rank n.

        JK 2002's horizontal reading (see :func:`rankmetrics.vectors.horizontal_reading`) on
        raw CG/DCG vectors.

        Parameters
        ----------
        n : int
        reference : str, default "ideal"
            "ideal", or the name of a run.

        Returns
        -------
        pandas.DataFrame
            Index: topic, one column per run; NaN where the run never reaches it within the
            depth, or the reference is 0 there.

        Raises
        ------
        ValueError
            Normalised vectors (read the raw ones) or an unknown reference; ``n`` outside
            1..depth.
        TypeError
            ``reference`` not a string; ``n`` not an int.
        """
        import pandas as pd

        if self.curve not in ("cg", "dcg"):
            raise ValueError(f"horizontal readings need cumulated vectors (curve 'cg' or 'dcg');"
                             f" these are {self.curve!r}")
        ref = self._reference(reference)
        return pd.DataFrame({name: horizontal_reading(v, ref, n)
                             for name, v in self.vectors.items()},
                            index=pd.Index(self.queries, name="qid"))

    def horizontal_on_average(self, n: int, *, reference: str = "ideal") -> dict[str, float]:
        """The reading on the average curves, as JK 2002 read their Fig. 1 (30 / 60 / 170).

        ``n`` and ``reference`` as in :meth:`horizontal`, and the same errors.
        """
        if self.curve not in ("cg", "dcg"):
            raise ValueError(f"horizontal readings need cumulated vectors (curve 'cg' or 'dcg');"
                             f" these are {self.curve!r}")
        ref = avg_vect(self._reference(reference))
        return {name: horizontal_reading(avg_vect(v), ref, n)  # type: ignore[misc]
                for name, v in self.vectors.items()}

    def _reference(self, reference: str) -> Values:
        if not isinstance(reference, str):  # a list: "unhashable type: 'list'", naming nothing
            raise TypeError(f"reference must be 'ideal' or a run name (a string); got "
                            f"{reference!r}")
        if reference == "ideal":
            return self.ideal
        if reference not in self.vectors:
            raise ValueError(f"reference must be 'ideal' or a run name "
                             f"{sorted(self.vectors)}; got {reference!r}")
        return self.vectors[reference]


def _describe_gain(gain: Any) -> str:
    """The gain as the legend names it; ``gain`` is checked already (:func:`gain_key`)."""
    if isinstance(gain, str):
        return gain
    if isinstance(gain, Mapping):
        _, pairs = gain_key(gain)  # the keys and weights as floats
        return "{" + ", ".join(f"{k:g}: {v:g}" for k, v in pairs) + "}"
    if callable(gain):
        return getattr(gain, "__name__", "custom")
    return "-".join(f"{float(g):g}" for g in gain)


def trec_gain_vectors(
    qrels: Any,
    runs: Any,
    *,
    curve: str = "ndcg",
    depth: int = 100,
    gain: GainLike = "exponential",
    discount: DiscountLike = "log",
    log_base: float = 2,
    ties: str = "average",
    empty: float | str = 0.0,
    missing: str = "intersect",
) -> GainVectors:
    """Per-query CG/DCG/nCG/nDCG vectors of TREC runs, with the ideal from the qrels.

    The matrices behind JK 2002 Table 1 and TOIS Table 2: average a run's per-query vectors
    with :func:`rankmetrics.vectors.avg_vect` for the figures, take their avg-pos over a rank
    range (:meth:`GainVectors.avg_pos`) for the tables and tests, or read them horizontally
    (:meth:`GainVectors.horizontal`).

    Parameters
    ----------
    qrels : path, DataFrame or mapping
        As :func:`rankmetrics.trec.read_qrels` accepts. Every judged document of a topic is in
        its recall base (negative labels count as 0); unjudged retrieved documents gain 0.
    runs : mapping {name: run} or sequence of runs
        As :func:`rankmetrics.trec.read_run` accepts; a sequence is named by file name.
    {common}
    ties : {"average", "optimistic", "pessimistic", "stable", "docno"}
        As above; "docno" breaks equal scores by document id descending (trec_eval's order).
    missing : {"intersect", "zero"}, default "intersect"
        Judged topics that some runs lack: "intersect" keeps the topics every run has;
        "zero" keeps every topic any run has, a lacking run scoring 0 there.

    Returns
    -------
    GainVectors

    Raises
    ------
    ValueError, OSError
        Unreadable inputs, unknown options, two runs whose names are equal as strings
        (``1`` and ``"1"``), or no query left.
    TypeError, ValueError
        A ``gain`` the core refuses (as :func:`rankmetrics.ndcg`: a mapping key that is not
        a number, a negative weight, ...), raised before any run is read.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankmetrics.plot import trec_gain_vectors
    >>> qrels = pd.DataFrame({"qid": ["1", "1", "2"], "docid": ["a", "b", "c"],
    ...                       "label": [2, 1, 1]})
    >>> run = pd.DataFrame({"qid": ["1", "1", "2"], "docid": ["b", "a", "x"],
    ...                     "score": [2.0, 1.0, 1.0]})
    >>> gv = trec_gain_vectors(qrels, {"r": run}, curve="cg", depth=3, gain="linear")
    >>> gv.vectors["r"].tolist(), gv.ideal.tolist()
    ([[1.0, 3.0, 3.0], [0.0, 0.0, 0.0]], [[2.0, 3.0, 3.0], [1.0, 1.0, 1.0]])
    """
    _check_curve(curve)
    d = check_depth(depth)
    gain_key(gain)  # the core's check of the gain, before any run is read
    tie_name = ties
    judged, read, ties = _trec_inputs(qrels, runs, ties)
    queries = _query_set(read, missing)
    lacking = _lacking(read)
    gain_arg = gain
    if isinstance(gain, Mapping):  # as rankmetrics.trec.evaluate: other levels keep l
        levels = np.unique(judged["label"].to_numpy(dtype=np.float64)).tolist()
        gain = {**{lv: lv for lv in [*levels, 0.0]}, **{float(k): v for k, v in gain.items()}}
    kw = _gain_kwargs(curve, gain, discount, log_base)
    raw = "cg" if curve in ("cg", "ncg") else "dcg"
    # the ideal and each run's (n, depth) matrix, and one run's curve while it is computed:
    # bounded here, naming depth, before numpy refuses ("array is too big") or the machine
    # runs out of memory
    check_result_size(queries.shape[0], d, copies=len(read) + 2)
    jq = judged[judged["qid"].isin(set(queries))]
    iplan = QueryPlan(jq["label"].to_numpy(), jq["qid"].to_numpy())
    ideal = np.zeros((queries.shape[0], d))
    ideal[np.searchsorted(queries, iplan.qids)] = getattr(
        iplan, f"ideal_{raw}_curve")(depth=d, **kw)
    out = {}
    for name, frame in read.items():
        c = _per_query(frame, queries, lambda p, s: getattr(p, f"{raw}_curve")(
            s, depth=d, ties=ties, **kw), d)
        if curve in ("ncg", "ndcg"):
            rule = check_empty(empty)
            if rule == "error" and np.any(ideal[:, -1] <= 0):
                raise ValueError("some topics have no relevant document (ideal vector 0); "
                                 "pass empty=0.0 or 'skip'")
            fill = np.nan if rule == "skip" else (0.0 if rule == "error" else float(rule))
            c = norm_vect(c, ideal, empty=fill)
        out[name] = c
    return GainVectors(curve, queries, out, ideal, missing, lacking,
                       _describe_gain(gain_arg), tie_name)


trec_gain_vectors.__doc__ = (trec_gain_vectors.__doc__ or "").replace(
    "{common}", _COMMON.split("    average :")[0].rstrip() + "\n    empty : float or \"skip\", "
    "default 0.0\n        Normalised value of a query whose ideal vector is 0 (\"skip\": NaN).")


def trec_gain_curves(
    qrels: Any,
    runs: Any,
    *,
    curve: str = "ndcg",
    depth: int = 100,
    gain: GainLike = "exponential",
    discount: DiscountLike = "log",
    log_base: float = 2,
    ties: str = "average",
    average: str = "per_query",
    empty: float | str = 0.0,
    missing: str = "intersect",
) -> tuple[dict[str, Values], Values]:
    """Average gain vectors of TREC runs, with the ideal from the qrels' recall base.

    Parameters
    ----------
    qrels : path, DataFrame or mapping
        As :func:`rankmetrics.trec.read_qrels` accepts. Every judged document of a topic is in
        its recall base (negative labels count as 0); unjudged retrieved documents gain 0.
    runs : mapping {name: run} or sequence of runs
        As :func:`rankmetrics.trec.read_run` accepts; a sequence is named by file name.
    {common}
    ties : {"average", "optimistic", "pessimistic", "stable", "docno"}
        As above; "docno" breaks equal scores by document id descending (trec_eval's order).
    missing : {"intersect", "zero"}, default "intersect"
        Judged topics that some runs lack: "intersect" averages over the topics every run has;
        "zero" over every topic any run has, a lacking run scoring 0 there.

    Returns
    -------
    vectors : dict {run name: ndarray of float64, shape (depth,)}
    ideal : ndarray of float64, shape (depth,)

    Raises
    ------
    ValueError, OSError
        Unreadable inputs, unknown options, two runs whose names are equal as strings
        (``1`` and ``"1"``), or no query left.
    TypeError, ValueError
        A ``gain`` the core refuses (as :func:`rankmetrics.ndcg`: a mapping key that is not
        a number, a negative weight, ...), raised before any run is read.
    """
    return _trec_curves(qrels, runs, curve=curve, depth=depth, gain=gain, discount=discount,
                        log_base=log_base, ties=ties, average=average, empty=empty,
                        missing=missing)[:2]


def _trec_curves(qrels: Any, runs: Any, *, curve: str, depth: int, gain: GainLike,
                 discount: DiscountLike, log_base: float, ties: str, average: str,
                 empty: float | str, missing: str
                 ) -> tuple[dict[str, Values], Values, GainVectors]:
    """Average curves from the raw per-query vectors (normalised per query or via the ideal)."""
    _check_curve(curve)
    check_choice("average", average, AVERAGES)
    raw = "cg" if curve in ("cg", "ncg") else "dcg"
    gv = trec_gain_vectors(qrels, runs, curve=raw, depth=depth, gain=gain, discount=discount,
                           log_base=log_base, ties=ties, missing=missing)
    out = {name: _average(curve, v, gv.ideal, average, empty) for name, v in gv.vectors.items()}
    ideal_avg = avg_vect(gv.ideal) if curve in ("cg", "dcg") else np.ones(gv.depth)
    return out, ideal_avg, gv


trec_gain_curves.__doc__ = (trec_gain_curves.__doc__ or "").replace("{common}", _COMMON)


def trec_interpolated_precision(
    qrels: Any, runs: Any, *, threshold: float = 1, ties: str = "average",
    missing: str = "intersect", empty: float | str = 0.0, rule: str = "trec",
) -> dict[str, Values]:
    """Average 11-point interpolated precision of TREC runs (recall base from the qrels).

    Parameters
    ----------
    qrels, runs, missing
        As in :func:`trec_gain_curves`.
    threshold, ties, empty, rule
        As in :func:`interpolated_precision` (``ties="average"`` raises); ``ties`` also takes
        "docno" (trec_eval's order). With ``ties="stable"`` or ``"docno"`` the values are those
        of ``rankmetrics.trec.evaluate(..., ["iprec_at_recall"])``.

    Returns
    -------
    dict {run name: ndarray of float64, shape (11,)}
        Mean over queries of the interpolated precision at recall 0.0, 0.1, ..., 1.0.

    Raises
    ------
    ValueError, OSError
        Unreadable inputs or no query left.
    """
    return _trec_iprec(qrels, runs, threshold=threshold, ties=ties, missing=missing,
                       empty=empty, rule=rule)[0]


def _trec_iprec(qrels: Any, runs: Any, *, threshold: float, ties: str, missing: str,
                empty: float | str, rule: str
                ) -> tuple[dict[str, Values], NDArray[np.str_], dict[str, list[str]]]:
    _check_iprec_ties(ties)
    t = check_threshold(threshold)
    check_choice("rule", rule, ("trec", "recall"))
    empty_rule = check_empty(empty)
    judged, read, ties = _trec_inputs(qrels, runs, ties)
    queries = _query_set(read, missing)
    rel = judged[judged["label"] >= t].groupby("qid").size()
    r_all = rel.reindex(queries, fill_value=0).to_numpy(dtype=np.float64)
    out = {}
    for name, frame in read.items():
        sub = frame[frame["qid"].isin(set(queries))]
        per_q = np.zeros((queries.shape[0], RECALL_LEVELS.shape[0]))
        if len(sub):
            plan = QueryPlan((sub["label"].to_numpy() >= t).astype(np.float64),
                             sub["qid"].to_numpy())
            c = plan.cg_curve(sub["score"].to_numpy(dtype=np.float64),
                              depth=int(plan.sizes.max()), gain="linear", ties=ties)
            rows = np.searchsorted(queries, plan.qids)
            per_q[rows] = _interpolate(c, np.asarray(plan.sizes, dtype=np.int64), r_all[rows],
                                       0.0, rule)
        if np.any(r_all <= 0):
            if empty_rule == "error":
                raise ValueError("interpolated precision is undefined for topics without "
                                 "relevant documents; pass empty=0.0 or 'skip'")
            per_q[r_all <= 0] = np.nan if empty_rule == "skip" else float(empty_rule)
        out[name] = avg_vect(per_q)
    return out, queries, _lacking(read)


def _lacking(read: Mapping[str, Any]) -> dict[str, list[str]]:
    union: set[str] = set().union(*(set(f["qid"]) for f in read.values()))
    return {name: sorted(union - set(f["qid"])) for name, f in read.items()}


# ---------------------------------------------------------------------------- figures
def _axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    if ax is not None:
        return ax.figure, ax  # type: ignore[return-value]
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install 'rankmetrics[plot]'") from exc
    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def check_image_path(path: str | os.PathLike[str], what: str = "path") -> None:
    """Check that ``path`` names an image file by its extension (used by the plot functions
    and the CLI's ``-o``; not in ``__all__``).

    Parameters
    ----------
    path : str or path-like
        Where the figure is to be saved; its extension names the format.
    what : str, default "path"
        The argument's name in the message.

    Raises
    ------
    ValueError
        No file extension after the last dot (``"curves"``, ``"curves."``): matplotlib would
        save to ``<name>.png`` instead of the name given.
    """
    name = os.fspath(path)
    if isinstance(name, str) and not os.path.splitext(name)[1][1:]:
        raise ValueError(f"{what} needs an image file name with its extension (.png, .svg, "
                         f".pdf); got {name!r} (matplotlib would write "
                         f"{name.rstrip('.') + '.png'!r} instead)")


def _finish(fig: Figure, path: str | os.PathLike[str] | None, dpi: int) -> Figure:
    if path is not None:
        check_image_path(path)
        fig.savefig(os.fspath(path), dpi=dpi)
    return fig


def plot_curves(
    vectors: Mapping[str, ArrayLike],
    *,
    ideal: ArrayLike | None = None,
    curve: str | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    xlabel: str = "Rank",
    ylabel: str | None = None,
    figsize: tuple[float, float] = (6.4, 4.4),
    path: str | os.PathLike[str] | None = None,
    dpi: int = 120,
) -> Figure:
    """Draw one line per system (and the ideal) against rank 1..depth.

    Parameters
    ----------
    vectors : mapping {system name: array-like of shape (depth,) or (n_queries, depth)}
        2-D input is averaged with avg-vect (JK 2002 eq. 3) before drawing.
    ideal : array-like of shape (depth,) or (n_queries, depth), optional
        Drawn as a black dashed line labelled "ideal".
    curve : {"cg", "dcg", "ncg", "ndcg"}, optional
        Only sets the default y label.
    ax : matplotlib Axes, optional
        Draw here instead of a new figure.
    title, xlabel, ylabel : str, optional
    figsize : (float, float)
    path : path, optional
        Also save the figure there; the extension names the format (.png, .svg, .pdf, ...),
        and a name without one is a ValueError (matplotlib would write ``<name>.png``).
    dpi : int, default 120

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        No vectors, vectors of different lengths, or two system names equal as strings
        (``1`` and ``"1"``).
    TypeError
        ``vectors`` not a mapping; values that are not numbers.
    ImportError
        matplotlib is not installed.
    """
    _systems(vectors, "vectors")
    # 1 and "1" would share one label and the dict would keep one line: refused
    lines = dict(zip(_system_names(vectors), map(_vector, vectors.values()), strict=True))
    ideal_v = None if ideal is None else _vector(ideal, "ideal")
    lengths = {v.shape[0] for v in lines.values()} | (
        set() if ideal_v is None else {ideal_v.shape[0]})
    if len(lengths) != 1:
        raise ValueError(f"every vector must have the same depth; got {sorted(lengths)}")
    fig, axes = _axes(ax, figsize)
    x = np.arange(1, lengths.pop() + 1)
    if ideal_v is not None:
        axes.plot(x, ideal_v, color="black", linestyle="--", linewidth=1.5, label="ideal")
    for name, v in lines.items():
        axes.plot(x, v, linewidth=1.8, label=name)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel or (_LABELS.get(curve, "value") if curve else "value"))
    if curve in ("ncg", "ndcg"):
        axes.set_ylim(0, 1.02)
    else:
        axes.set_ylim(bottom=0)
    axes.set_xlim(1, max(int(x[-1]), 2))
    axes.grid(True, alpha=0.3)
    axes.legend(loc="best", fontsize="small")
    if title:
        axes.set_title(title)
    return _finish(fig, path, dpi)


def _vector(v: ArrayLike, name: str = "vectors") -> Values:
    # as avg_vect: text ("1"), complex, dates and durations are a TypeError, pandas.NA NaN
    a = _reals(v, name)
    if a.ndim == 2:
        return avg_vect(a)
    if a.ndim != 1 or a.shape[0] == 0:
        raise ValueError(f"vectors must be 1-D (depth,) or 2-D (n_queries, depth); got {a.shape}")
    return a


def plot_gain_curves(
    y_true: ArrayLike,
    scores: Mapping[str, ArrayLike],
    qid: ArrayLike | None = None,
    *,
    curve: str = "ndcg",
    depth: int = 100,
    gain: GainLike = "exponential",
    discount: DiscountLike = "log",
    log_base: float = 2,
    ties: str = "average",
    average: str = "per_query",
    empty: float | str = 0.0,
    show_ideal: bool = True,
    ax: Axes | None = None,
    title: str | None = None,
    path: str | os.PathLike[str] | None = None,
) -> Figure:
    """Average CG/DCG (with the ideal curve) or nCG/nDCG curves of several systems.

    JK 2002 Figs 1-2 (CG, DCG with the ideal) and Figs 3-4 (nCG, nDCG). The data are those of
    :func:`gain_curves` with the same arguments.

    Parameters
    ----------
    y_true, scores, qid, curve, depth, gain, discount, log_base, ties, average, empty
        As in :func:`gain_curves`.
    show_ideal : bool, default True
        Draw the ideal curve for CG/DCG (for nCG/nDCG it is the line 1 and is not drawn).
    ax, title, path
        As in :func:`plot_curves`.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError, TypeError, ImportError
        As :func:`gain_curves` and :func:`plot_curves`; TypeError for a ``show_ideal`` that
        is not True or False.
    """
    show_ideal = check_flag("show_ideal", show_ideal)
    vecs, ideal = gain_curves(y_true, scores, qid, curve=curve, depth=depth, gain=gain,
                              discount=discount, log_base=log_base, ties=ties, average=average,
                              empty=empty)
    show = show_ideal and curve in ("cg", "dcg")
    return plot_curves(vecs, ideal=ideal if show else None, curve=curve, ax=ax, title=title,
                       path=path)


def plot_precision_recall(
    curves: Mapping[str, ArrayLike],
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (5.6, 4.4),
    path: str | os.PathLike[str] | None = None,
    dpi: int = 120,
) -> Figure:
    """11-point interpolated precision-recall curves.

    Parameters
    ----------
    curves : mapping {system name: array-like of shape (11,) or (n_queries, 11)}
        E.g. :func:`interpolated_precision` per system (2-D input is averaged over queries,
        NaN rows left out) or :func:`trec_interpolated_precision`.
    ax, title, figsize, path, dpi
        As in :func:`plot_curves`.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        No curves, or a curve without 11 points.
    TypeError
        ``curves`` not a mapping; values that are not numbers.
    ImportError
        matplotlib is not installed.
    """
    _systems(curves, "curves")
    fig, axes = _axes(ax, figsize)
    for name, v in curves.items():
        y = _vector(v, "curves")
        if y.shape != RECALL_LEVELS.shape:
            raise ValueError(f"curve {name!r} must have 11 points (recall 0.0..1.0); got "
                             f"{y.shape[0]}")
        axes.plot(RECALL_LEVELS, y, marker="o", markersize=3.5, linewidth=1.6, label=str(name))
    axes.set_xlabel("Recall")
    axes.set_ylabel("Interpolated precision")
    # a small margin keeps the recall-1.0 points and the 1.0 tick labels inside the figure
    axes.set_xlim(-0.02, 1.02)
    axes.set_ylim(0, 1.02)
    axes.set_xticks(RECALL_LEVELS, [f"{x:.1f}" for x in RECALL_LEVELS])
    axes.set_yticks(np.linspace(0.0, 1.0, 6), [f"{y:.1f}" for y in np.linspace(0.0, 1.0, 6)])
    axes.grid(True, alpha=0.3)
    axes.legend(loc="best", fontsize="small")
    if title:
        axes.set_title(title)
    return _finish(fig, path, dpi)


def plot_precision_recall_points(
    points: Mapping[str, tuple[ArrayLike, ArrayLike]],
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (5.6, 4.4),
    path: str | os.PathLike[str] | None = None,
    dpi: int = 120,
) -> Figure:
    """Uninterpolated precision-recall curves: one point per rank (the lecture slides' figure).

    Parameters
    ----------
    points : mapping {label: (recall, precision)}
        1-D arrays of one ranking, e.g. a row of each array of
        :func:`rankmetrics.analysis.pr.precision_recall_points`; NaN points are skipped.
    ax, title, figsize, path, dpi
        As in :func:`plot_curves`.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        No curves, or recall and precision of different shapes.
    TypeError
        ``points`` not a mapping; values that are not numbers.
    ImportError
        matplotlib is not installed.
    """
    _systems(points, "points", "curve")
    fig, axes = _axes(ax, figsize)
    for name, (r, p) in points.items():
        rr, pp = _reals(r, f"recall of {name!r}"), _reals(p, f"precision of {name!r}")
        if rr.shape != pp.shape or rr.ndim != 1:
            raise ValueError(f"curve {name!r}: recall and precision must be 1-D of one shape; "
                             f"got {rr.shape} and {pp.shape}")
        keep = ~(np.isnan(rr) | np.isnan(pp))
        axes.plot(rr[keep], pp[keep], marker="o", markersize=3.5, linewidth=1.2,
                  label=str(name))
    axes.set_xlabel("Recall")
    axes.set_ylabel("Precision (uninterpolated, one point per rank)")
    axes.set_xlim(0, 1.02)
    axes.set_ylim(0, 1.02)
    axes.grid(True, alpha=0.3)
    axes.legend(loc="best", fontsize="small")
    if title:
        axes.set_title(title)
    return _finish(fig, path, dpi)


def plot_trec_curves(
    qrels: Any,
    runs: Any,
    *,
    curve: str = "ndcg",
    depth: int = 100,
    gain: GainLike = "exponential",
    discount: DiscountLike = "log",
    log_base: float = 2,
    ties: str = "average",
    average: str = "per_query",
    empty: float | str = 0.0,
    missing: str = "intersect",
    threshold: float = 1,
    show_ideal: bool = True,
    ax: Axes | None = None,
    title: str | None = None,
    path: str | os.PathLike[str] | None = None,
) -> Figure:
    """Gain curves (``curve`` in cg/dcg/ncg/ndcg) or 11-point PR curves (``curve="pr"``) of runs.

    Parameters
    ----------
    qrels, runs, curve, depth, gain, discount, log_base, ties, average, empty, missing
        As in :func:`trec_gain_curves`; ``curve="pr"`` draws
        :func:`trec_interpolated_precision` (``threshold``, ``ties``, ``missing``).
    threshold : float, default 1
        Relevance threshold for precision-recall.
    show_ideal, ax, path
        As in :func:`plot_gain_curves`.
    title : str, optional
        Default (None): the measure, gain (and discount), tie rule, number of topics, and the
        topics ``missing="intersect"`` dropped (or ``"zero"`` filled) with the runs lacking
        them. ``""`` for no title.

    Returns
    -------
    matplotlib.figure.Figure
        Legend: run names (file names without extension for a sequence of paths).

    Raises
    ------
    ValueError, OSError, ImportError
        As the functions above (``curve="pr"`` with ``ties="average"`` raises).
    TypeError
        As the functions above; ``show_ideal`` not True or False.
    """
    show_ideal = check_flag("show_ideal", show_ideal)
    if curve == "pr":
        pr, queries, lacking = _trec_iprec(qrels, runs, threshold=threshold, ties=ties,
                                           missing=missing, empty=empty, rule="trec")
        auto = (f"11-point interpolated precision (relevant: label >= {threshold:g}), "
                f"ties={ties}")
        fig = plot_precision_recall(pr, ax=ax, title=None)
    else:
        vecs, ideal, gv = _trec_curves(qrels, runs, curve=curve, depth=depth, gain=gain,
                                       discount=discount, log_base=log_base, ties=ties,
                                       average=average, empty=empty, missing=missing)
        queries, lacking = gv.queries, gv.missing_queries
        disc = f", discount {discount} (base {log_base:g})" if curve in ("dcg", "ndcg") else ""
        auto = f"{_NAMES[curve]}, gain {gv.gain}{disc}, ties={ties}"
        show = show_ideal and curve in ("cg", "dcg")
        fig = plot_curves(vecs, ideal=ideal if show else None, curve=curve, ax=ax, title=None)
    if title is None:
        title = auto + "\n" + topics_statement(len(queries), missing, lacking)
    if title:
        fig.axes[0].set_title(title, fontsize="small")
    return _finish(fig, path, 120)


_NAMES = {"cg": "CG", "dcg": "DCG", "ncg": "nCG", "ndcg": "nDCG"}


def topics_statement(n_topics: int, missing: str, lacking: Mapping[str, Sequence[Any]],
                     *, unit: str = "topics", shown: int = 6) -> str:
    """"50 topics" plus which were dropped or zero-filled, and by which runs' lack.

    Examples
    --------
    >>> topics_statement(49, "intersect", {"a": [], "b": ["302"]})
    "49 topics (missing='intersect' dropped 302: lacking in b)"
    """
    union = sorted({q for qs in lacking.values() for q in qs}, key=str)
    if not union:
        return f"{n_topics} {unit}"
    what = "dropped" if missing == "intersect" else "scored 0 where lacking"
    qs = ", ".join(map(str, union[:shown])) + (f", ... ({len(union)})" if len(union) > shown
                                                else "")
    who = ", ".join(name for name, q in lacking.items() if q)
    return f"{n_topics} {unit} (missing={missing!r} {what} {qs}: lacking in {who})"


# ------------------------------------------------------------------------------ sessions
def _session(value: Any, name: str = "result") -> SessionDCG:
    """``value``, a SessionDCG (a list of them, None, ... was AttributeError "no attribute
    'curve'")."""
    from .session import SessionDCG

    if not isinstance(value, SessionDCG):
        raise TypeError(f"{name} must be a SessionDCG (rankmetrics.session.session_dcg or "
                        f"evaluate_sessions); got {type(value).__name__}")
    return value


def _session_map(results: SessionDCG | Mapping[str, SessionDCG]) -> dict[str, SessionDCG]:
    if isinstance(results, Mapping):
        out = {str(k): _session(v, f"results[{k!r}]") for k, v in results.items()}
    else:
        out = {"sessions": _session(results, "results")}
    if not out:
        raise ValueError("results must hold at least one SessionDCG")
    return out


def session_average(result: SessionDCG, width: int, *, normalised: bool = False,
                    average: str = "per_session", min_queries: int | None = None
                    ) -> tuple[Values, Values]:
    """Average concatenated session vector (and ideal) over sessions, held flat to ``width``.

    Parameters
    ----------
    result : SessionDCG
    width : int
        At least the result's own width.
    normalised : bool, default False
        Average normalised vectors (2008 Fig. 2) instead of raw ones (Fig. 3).
    average : {"per_session", "ideal"}, default "per_session"
        Normalised only: mean of the sessions' normalised vectors, or the mean vector divided by
        the mean ideal vector (JK 2002's way).
    min_queries : int, optional
        Only sessions with at least this many queries (2008 Fig. 3's "4Q" lines).

    Returns
    -------
    (vector, ideal) : ndarrays of float64, shape (width,)
        ``ideal`` is the mean ideal vector (ones when normalised).

    Raises
    ------
    ValueError
        No session has ``min_queries`` queries, or an unknown ``average``.
    TypeError
        ``result`` not a SessionDCG; ``normalised`` not True or False.
    """
    _session(result)
    check_flag("normalised", normalised)
    check_choice("average", average, ("per_session", "ideal"))
    keep = np.ones(result.n_sessions, dtype=bool)
    if min_queries is not None:
        keep = result.n_queries >= min_queries
        if not keep.any():
            raise ValueError(f"no session has at least {min_queries} queries")
    raw = result.extended(width)[keep]
    ideal = _hold_rows(result.ideal, width)[keep]
    if not normalised:
        return avg_vect(raw), avg_vect(ideal)
    if average == "ideal":
        return norm_vect(avg_vect(raw), avg_vect(ideal)), np.ones(width)
    return avg_vect(result.extended(width, normalised=True)[keep]), np.ones(width)


def _hold_rows(v: Values, width: int) -> Values:
    if width == v.shape[1]:
        return v
    return np.concatenate([v, np.repeat(v[:, -1:], width - v.shape[1], axis=1)], axis=1)


def _session_axis(axes: Axes, results: Mapping[str, SessionDCG], width: int) -> None:
    xs = {(r.depth, r.pad) for r in results.values()}
    if len(xs) == 1:
        depth, pad = xs.pop()
        if pad and width > depth:
            n_q = width // depth
            for q in range(1, n_q):
                axes.axvline(q * depth + 0.5, color="grey", linewidth=0.5, alpha=0.4)
            step = max(1, n_q // 12)
            centers = [(q - 1) * depth + (depth + 1) / 2 for q in range(1, n_q + 1, step)]
            axes.set_xticks(centers, [f"Q{q}" for q in range(1, n_q + 1, step)])
            axes.set_xlabel(f"Query in session (top {depth} of each, concatenated)")
            return
    axes.set_xlabel("Position in the concatenated session vector")


def plot_session_curves(
    results: SessionDCG | Mapping[str, SessionDCG],
    *,
    normalised: bool = False,
    min_queries: int | None = None,
    individual: bool = False,
    average: str = "per_session",
    show_ideal: bool = False,
    width: int | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (7.2, 4.4),
    path: str | os.PathLike[str] | None = None,
    dpi: int = 120,
) -> Figure:
    """Concatenated session curves (Järvelin et al. 2008, Figs 2-4).

    Parameters
    ----------
    results : SessionDCG or mapping {system name: SessionDCG}
        From :func:`rankmetrics.session.session_dcg` / ``evaluate_sessions``.
    normalised : bool, default False
        Normalised sDCG (Fig. 2) instead of raw concatenated sDCG (Figs 3-4).
    min_queries : int, optional
        Also draw, dashed, each system's average over sessions with at least this many queries
        (Fig. 3's "/4Q" lines).
    individual : bool, default False
        One line per session of a single system (Fig. 4) instead of system averages.
    average : {"per_session", "ideal"}, default "per_session"
        How normalised averages are formed (see :func:`session_average`).
    show_ideal : bool, default False
        Draw each system's average ideal session vector (raw curves only), dotted.
    width : int, optional
        Positions to draw (default: the longest session); shorter sessions are held flat.
    ax, title, figsize, path, dpi
        As in :func:`plot_curves`.

    Returns
    -------
    matplotlib.figure.Figure
        Line labels: the system name, ``"<name> (>= m queries)"``, ``"<name> ideal"``, or the
        session id when ``individual``.

    Raises
    ------
    ValueError
        ``individual`` with several systems, ``width`` below a result's width, no session with
        ``min_queries`` queries.
    TypeError
        ``results`` not a SessionDCG or a mapping of them; ``individual`` or ``show_ideal``
        not True or False.
    ImportError
        matplotlib is not installed.
    """
    individual = check_flag("individual", individual)
    show_ideal = check_flag("show_ideal", show_ideal)
    res = _session_map(results)
    w = max(r.curve.shape[1] for r in res.values())
    if width is not None:
        if width < w:
            raise ValueError(f"width must be >= the longest session vector {w}; got {width}")
        w = int(width)
    fig, axes = _axes(ax, figsize)
    x = np.arange(1, w + 1)
    if individual:
        if len(res) != 1:
            raise ValueError("individual=True draws the sessions of one system; got "
                             f"{len(res)} systems")
        (r,) = res.values()
        v = r.extended(w, normalised=normalised)
        for sid, row in zip(r.sessions.tolist(), v, strict=True):
            axes.plot(x, row, linewidth=1.0, label=str(sid))
    else:
        for name, r in res.items():
            vec, ideal = session_average(r, w, normalised=normalised, average=average)
            (line,) = axes.plot(x, vec, linewidth=1.8, label=name)
            if show_ideal and not normalised:
                axes.plot(x, ideal, linestyle=":", color=line.get_color(),
                          label=f"{name} ideal")
            if min_queries is not None:
                sub, _ = session_average(r, w, normalised=normalised, average=average,
                                         min_queries=min_queries)
                axes.plot(x, sub, linestyle="--", color=line.get_color(), linewidth=1.4,
                          label=f"{name} (>= {min_queries} queries)")
    _session_axis(axes, res, w)
    axes.set_ylabel("normalised sDCG" if normalised else "cumulated sDCG")
    if normalised:
        axes.set_ylim(0, 1.02)
    axes.set_xlim(1, max(w, 2))
    axes.grid(True, axis="y", alpha=0.3)
    if len(axes.get_lines()) <= 20:
        axes.legend(loc="best", fontsize="small")
    if title:
        axes.set_title(title)
    return _finish(fig, path, dpi)


def query_position_curves(result: SessionDCG) -> tuple[Values, Values]:
    """Average sDCG(q) vectors of each session's last query and of its earlier queries.

    The data of Järvelin et al. 2008 Fig. 1 ("last vs. non-last queries"); evaluate the sessions
    with the depth to show (the paper: 100).

    Parameters
    ----------
    result : SessionDCG
        Output of :func:`rankmetrics.session.session_dcg` or ``evaluate_sessions``.

    Returns
    -------
    (last, non_last) : ndarrays of float64, shape (depth,)
        ``non_last`` is NaN when every session has a single query.

    Raises
    ------
    ValueError
        A result without any session.
    TypeError
        ``result`` not a SessionDCG.
    """
    qc = _session(result).query_curves
    idx = result.n_queries - 1
    last = qc[np.arange(result.n_sessions), idx]
    pos = np.arange(qc.shape[1])[None, :]
    earlier = qc[pos < idx[:, None]]
    non_last = avg_vect(earlier) if earlier.shape[0] else np.full(qc.shape[2], np.nan)
    return avg_vect(last), non_last


def plot_query_position_curves(
    results: SessionDCG | Mapping[str, SessionDCG],
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (6.4, 4.4),
    path: str | os.PathLike[str] | None = None,
    dpi: int = 120,
) -> Figure:
    """Average sDCG(q) by rank of last vs. non-last queries per system (2008, Fig. 1).

    Parameters
    ----------
    results : SessionDCG or mapping {system name: SessionDCG}
    ax, title, figsize, path, dpi
        As in :func:`plot_curves`.

    Returns
    -------
    matplotlib.figure.Figure
        Lines labelled ``"<name> last query"`` and ``"<name> non-last queries"``.

    Raises
    ------
    TypeError
        ``results`` not a SessionDCG or a mapping of them.
    ImportError
        matplotlib is not installed.
    """
    res = _session_map(results)
    fig, axes = _axes(ax, figsize)
    for name, r in res.items():
        last, non_last = query_position_curves(r)
        x = np.arange(1, last.shape[0] + 1)
        (line,) = axes.plot(x, last, linewidth=1.8, label=f"{name} last query")
        if not np.isnan(non_last).all():
            axes.plot(x, non_last, linestyle="--", color=line.get_color(), linewidth=1.4,
                      label=f"{name} non-last queries")
    axes.set_xlabel("Rank")
    axes.set_ylabel("sDCG(q) (discounted by rank and query position)")
    axes.grid(True, alpha=0.3)
    axes.legend(loc="best", fontsize="small")
    if title:
        axes.set_title(title)
    return _finish(fig, path, dpi)
