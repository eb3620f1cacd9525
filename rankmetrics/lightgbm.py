"""Tie-aware ranking metrics for LightGBM: ``lgb.train(feval=...)``,
``LGBMRanker.fit(eval_metric=...)`` and early stopping on them.

LightGBM's built-in ``ndcg``/``map`` metrics break score ties by row order (a ``stable_sort`` of
the validation rows), so the reported value changes when the validation rows are shuffled, and
early boosting rounds, whose scores are heavily tied, are scored by an arbitrary order. The
objects here report the exact expected value over all orderings of tied scores (McSherry &
Najork 2008) -- or any other tie rule of the core -- computed by :class:`rankmetrics.QueryPlan`.

This module is an adapter only: it turns LightGBM's inputs (labels, query group sizes, row
weights, predictions) into core calls and the results into LightGBM's
``(name, value, is_higher_better)`` tuples. Everything that depends on labels only is cached per
evaluation set, so each boosting round only orders the new scores.

Entry points
------------
:func:`make_feval`
    ``feval(preds, eval_data)`` for :func:`lightgbm.train` / :func:`lightgbm.cv`.
:func:`make_eval_metric`
    ``eval_metric(y_true, y_pred, weight, group)`` for ``LGBMRanker.fit(eval_metric=...)``.
:func:`early_stopping`
    A callback that stops on one of *our* metrics whatever built-in metrics are also on.
:func:`builtin_ndcg`
    LightGBM's own ``ndcg@k`` on arbitrary scores (row-order ties), for side-by-side checks.

Early stopping and ``first_metric_only``
----------------------------------------
LightGBM lists, for every evaluation set, the built-in metrics of ``params["metric"]`` *before*
the ``feval`` results, and ``LGBMRanker`` turns on ``ndcg`` at ``eval_at=(1, 2, 3, 4, 5)`` by
default. ``lgb.early_stopping(first_metric_only=True)`` therefore stops on the built-in metric
unless ``metric="None"``; without ``first_metric_only`` it stops as soon as *any* metric (ours,
the bounds or a built-in one) has not improved for ``stopping_rounds``. Two ways to stop on ours:

* ``params["metric"] = "None"`` plus ``lgb.early_stopping(n, first_metric_only=True)``: the first
  output of the feval (the first metric/cutoff given, see :attr:`Feval.names`) is used;
* :func:`early_stopping` ``(n, feval)``: stops on the feval's first metric (or ``metric=``) on the
  first validation set, with built-in metrics left on for comparison.

Our names and LightGBM's built-in names must not coincide (``ndcg@10`` twice for one data set
would be merged by ``record_evaluation`` and ``best_score``): pass ``prefix="tie_"`` when the
built-in metric runs at the same cutoff. :func:`early_stopping` checks this, and a metric
evaluated by a Booster whose params turn on a built-in metric of one of its names warns.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import sys
import warnings
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .core.gains import DiscountLike, GainLike, apply_gain
from .core.options import MetricOptions
from .core.plan import QueryPlan, core_metric, warn_weighted_empty_ndcg, weighted_mean
from .core.validation import (
    as_float64,
    check_choice,
    check_finite,
    check_flag,
    check_group_sizes,
    check_ks,
    check_labels,
    check_scores,
    check_ties,
    check_weights,
    has_masked,
    real_host_array,
)
from .measures.grammar import measure_items, parse_measure, parse_measures
from .measures.registry import REGISTRY

if TYPE_CHECKING:  # pragma: no cover
    import lightgbm

__all__ = [
    "LIGHTGBM_THRESHOLD",
    "EarlyStopping",
    "EvalMetric",
    "Feval",
    "builtin_map",
    "builtin_ndcg",
    "early_stopping",
    "make_eval_metric",
    "make_feval",
]

EvalTuple = tuple[str, float, bool]
_BOUNDS = ("optimistic", "pessimistic")
#: The default ``threshold``: LightGBM's ``map@k`` counts a row relevant when its label, held
#: as a C float, is > 0.5 (``map_metric.hpp``); as ``label >= threshold`` on float64 labels that
#: is the least float64 whose float32 rounding exceeds 0.5 (0.5 + 2**-25 itself rounds to 0.5,
#: the even neighbour). Integer labels: the same rows as a threshold of 1.
LIGHTGBM_THRESHOLD = float(np.nextafter(0.5 + 2.0**-25, 1.0))


# ---------------------------------------------------------------------------------------------
# label-side cache
# ---------------------------------------------------------------------------------------------


class _Entry:
    """Cached label-side state of one evaluation set.

    Holds strong references to the very label / group / weight objects it was built from: an
    identity match then cannot be a recycled ``id()`` of a collected array.
    """

    __slots__ = ("labels", "group", "weight", "plan", "query_weight")

    def __init__(self, labels: Any, group: Any, weight: Any, plan: QueryPlan,
                 query_weight: NDArray[np.float64] | None) -> None:
        self.labels = labels
        self.group = group
        self.weight = weight
        self.plan = plan
        self.query_weight = query_weight

    def same_objects(self, labels: Any, group: Any, weight: Any) -> bool:
        return self.labels is labels and self.group is group and self.weight is weight

    def same_content(self, labels: Any, group: Any, weight: Any) -> bool:
        return (
            _equal(self.group, group)
            and _equal(self.labels, labels)
            and (self.weight is None) == (weight is None)
            and (weight is None or _equal(self.weight, weight))
        )


def _equal(a: Any, b: Any) -> bool:
    if has_masked(a) or has_masked(b):
        return False  # np.asarray would drop the mask: a new entry's checks refuse it
    x, y = np.asarray(a), np.asarray(b)
    return x.shape == y.shape and bool(np.array_equal(x, y))


def _query_weights(weight: Any, sizes: NDArray[np.int64], rule: str) -> NDArray[np.float64]:
    """Row weights -> one weight per query (``rule`` "mean", LightGBM's, or "first")."""
    n = int(sizes.sum())
    # every row weight must be >= 0 (a query mean >= 0 could hide a negative one)
    w = check_weights(weight, (n,), "weight", per="entry per row")
    starts = np.zeros(sizes.shape[0], dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    if rule == "first":
        return w[starts]
    return np.add.reduceat(w, starts) / sizes


class _PlanCache:
    """Most-recently-used list of :class:`_Entry`, looked up by identity, then by content."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self.entries: list[_Entry] = []
        self.builds = 0  # number of plans built (for tests and diagnostics)

    def get(self, labels: Any, group: Any, weight: Any, query_weight_rule: str,
            label_name: str = "label") -> _Entry:
        for i, e in enumerate(self.entries):
            if e.same_objects(labels, group, weight):
                if i:
                    self.entries.insert(0, self.entries.pop(i))
                return e
        for i, e in enumerate(self.entries):
            if e.same_content(labels, group, weight):
                # same data in new objects (e.g. a reader that copies): adopt the new objects
                e.labels, e.group, e.weight = labels, group, weight
                self.entries.insert(0, self.entries.pop(i))
                return e
        if group is None:
            raise ValueError(
                "the evaluation data has no query groups; ranking metrics need them "
                "(lgb.Dataset(..., group=sizes) or LGBMRanker.fit(..., eval_group=[sizes]))"
            )
        y = check_labels(labels, label_name)
        if y.ndim != 1:
            raise ValueError(f"{label_name} must be 1-D; got shape {y.shape}")
        _refuse_empty_groups(group, "LightGBM", "group")
        sizes = check_group_sizes(group, y.shape[0], "group", label_name)
        plan = QueryPlan.from_group_sizes(y, sizes)
        qw = None if weight is None else _query_weights(weight, plan.sizes, query_weight_rule)
        entry = _Entry(labels, group, weight, plan, qw)
        self.builds += 1
        self.entries.insert(0, entry)
        del self.entries[self.maxsize:]
        return entry

    def clear(self) -> None:
        self.entries.clear()


# ---------------------------------------------------------------------------------------------
# the metric objects
# ---------------------------------------------------------------------------------------------


def _refuse_empty_groups(sizes: Any, host: str, arg: str) -> None:
    """A query group of size 0 is a ValueError saying what the host does with it: LightGBM and
    XGBoost score it as a query without relevant documents (ndcg and map 1.0), which a group
    array made with ``np.bincount`` of query ids with gaps holds silently."""
    arr = np.asarray(sizes)
    if arr.ndim != 1 or arr.dtype.kind not in "iuf" or arr.size == 0:
        return  # check_group_sizes reports these
    empty = np.flatnonzero(arr == 0)
    if empty.size:
        raise ValueError(
            f"{arg}: {empty.size} quer{'y' if empty.size == 1 else 'ies'} of size 0 (the "
            f"first at position {int(empty[0])}); {host}'s built-in metrics count each as a "
            "query without relevant documents (ndcg and map 1.0), so their mean moves toward "
            "1 with every one; rankmetrics refuses them: drop the zero sizes (group sizes from "
            "np.bincount of query ids with gaps hold them)"
        )


def _expand(metrics: Any, k: Any) -> list[str]:
    """Measure names x cutoffs -> unique names such as ``"ndcg@10"`` (the LightGBM outputs).

    A name with its own cutoff (``"map@5"``) keeps it; the others get every cutoff of ``k``
    (None: the whole list), so a cutoff comes only from the name or from ``k``.
    """
    given = measure_items(metrics)
    if not given:
        raise ValueError("metrics must name at least one metric, e.g. 'ndcg@10' or 'map@10'")
    ks = [None] if k is None else check_ks(k)
    out: list[str] = []
    used = False
    for item in given:
        for m in parse_measure(item):  # validates the name (TypeError / ValueError)
            core_metric(m)
            token = "".join(m.name.split())
            if m.k is not None or REGISTRY[m.kind].cutoff == "none":
                out.append(token)
                continue
            used = True
            out.extend(token if c is None else f"{token}@{c}" for c in ks)
    if k is not None and not used:  # dropped silently before; the scikit-learn scorer refuses
        raise ValueError(f"k={k!r} applies to none of the metrics {out}: each has its own cutoff "
                         "or takes none; drop k or write the cutoff in the name")
    dup = sorted({n for n in out if out.count(n) > 1})
    if dup:
        raise ValueError(f"metric names must be unique; {dup} requested more than once")
    return out


class _TieAwareMetric:
    """Configuration, names and plan cache shared by :class:`Feval` and :class:`EvalMetric`."""

    _cache: _PlanCache
    _depth: int | None
    _own_ties: bool
    metrics: list[str]
    _arg_names = ("label", "preds")  # how the host names labels and scores, for messages

    def __init__(
        self,
        metrics: str | Iterable[str] = "ndcg",
        k: int | None | Sequence[int | None] = None,
        *,
        ties: str = "average",
        gain: GainLike = "exponential",
        label_gain: Sequence[float] | None = None,
        discount: DiscountLike = "log",
        log_base: float = 2,
        threshold: float = LIGHTGBM_THRESHOLD,
        beta: float = 1.0,
        empty: float | str = 1.0,
        denominator: str = "min_k_relevant",
        bounds: bool = False,
        query_weight: str = "mean",
        prefix: str = "",
        cache_size: int = 16,
    ) -> None:
        self.metrics = _expand(metrics, k)
        self.ties = check_ties(ties)
        # the gain is the host's unless chosen otherwise: compared with the evaluating Booster's
        # (LightGBM's label_gain, XGBoost's ndcg_exp_gain) at its first evaluation
        self._host_gain = label_gain is not None or (isinstance(gain, str)
                                                      and gain == "exponential")
        if label_gain is not None:
            if not (isinstance(gain, str) and gain == "exponential"):
                raise ValueError("pass either gain or label_gain, not both")
            if isinstance(label_gain, (str, bytes)) or not isinstance(
                label_gain, (Sequence, np.ndarray)
            ):
                raise TypeError(f"label_gain must be a sequence of numbers; got {label_gain!r}")
            try:
                MetricOptions(gain=list(label_gain))
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"label_gain: {exc}") from None
            gain = [float(g) for g in label_gain]
            drop = next((i for i in range(1, len(gain)) if gain[i] < gain[i - 1]), None)
            if drop is not None and any(REGISTRY[parse_measure(m)[0].kind].quantity == "gain"
                                        for m in self.metrics):
                warnings.warn(
                    f"label_gain decreases from label {drop - 1} to {drop} ({gain[drop - 1]:g} "
                    f"> {gain[drop]:g}): LightGBM's ideal DCG orders the documents by label, "
                    "not by gain, so its ndcg can exceed 1; rankmetrics' ideal orders them by "
                    "gain (the exact maximum) and its ndcg differs from LightGBM's there",
                    UserWarning, stacklevel=3,
                )
        # validated now rather than at the first boosting round
        opts = MetricOptions(gain=gain, discount=discount, log_base=log_base,
                             threshold=threshold, beta=beta, empty=empty,
                             denominator=denominator)
        self.gain, self.discount, self.log_base = opts.gain, opts.discount, opts.log_base
        self.threshold, self.beta, self.empty = opts.threshold, opts.beta, opts.empty
        self.denominator = opts.denominator
        self.bounds = check_flag("bounds", bounds)
        self.query_weight = check_choice("query_weight", query_weight, ("mean", "first"))
        if not isinstance(prefix, str) or any(c.isspace() for c in prefix):
            raise ValueError(f"prefix must be a string without whitespace; got {prefix!r}")
        self.prefix = prefix
        if isinstance(cache_size, bool) or not isinstance(cache_size, numbers.Integral) \
                or cache_size < 1:
            raise ValueError(f"cache_size must be an int >= 1; got {cache_size!r}")
        self._cache = _PlanCache(int(cache_size))
        self._empty_checked: weakref.WeakSet[QueryPlan] = weakref.WeakSet()
        parsed = [m for name in self.metrics for m in parse_measure(name)]
        self._own_ties = any(m.ties is not None for m in parsed)
        # the bounds are over every ordering of tied scores: a measure's own ties= sets its
        # main value only
        self._bound_metrics: list[Any] = [
            m.name if m.ties is None else dataclasses.replace(m, ties=None) for m in parsed]
        cuts = [None if m.kind == "rprec" else m.k for m in parsed]
        self._depth = None if any(c is None for c in cuts) else max(c for c in cuts if c)

    # -- names -----------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """Output names in LightGBM's order: every metric, then (``bounds=True``) for every
        metric ``<name>_optimistic`` and ``<name>_pessimistic``."""
        main = [self.prefix + m for m in self.metrics]
        if not self.bounds:
            return main
        return main + [f"{n}_{b}" for n in main for b in _BOUNDS]

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(metrics={self.metrics!r}, ties={self.ties!r}, "
                f"gain={self.gain!r}, empty={self.empty!r}, bounds={self.bounds})")

    # -- copying: the cache is per object and never copied ---------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_cache"] = _PlanCache(self._cache.maxsize)
        state.pop("_empty_checked", None)  # weak references do not pickle: made again
        state.pop("_clash_seen", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._empty_checked = weakref.WeakSet()

    def __deepcopy__(self, memo: dict[int, Any]) -> _TieAwareMetric:
        # LGBMModel.fit deep-copies eval_metric; the copy starts with an empty cache.
        new = type(self).__new__(type(self))
        new.__setstate__(self.__getstate__())
        memo[id(self)] = new
        return new

    def clear_cache(self) -> None:
        """Drop every cached plan (and the references to label arrays it holds)."""
        self._cache.clear()

    # -- evaluation ------------------------------------------------------------------------
    def _core_kwargs(self) -> dict[str, Any]:
        return dict(gain=self.gain, discount=self.discount, log_base=self.log_base,
                    threshold=self.threshold, beta=self.beta, empty=self.empty,
                    denominator=self.denominator)

    def _per_query(self, labels: Any, preds: ArrayLike, group: Any,
                   weight: Any) -> tuple[dict[str, NDArray[np.float64]], _Entry]:
        label_name, pred_name = self._arg_names
        entry = self._cache.get(labels, group, weight, self.query_weight, label_name)
        return self._checked(preds, entry.plan.n_rows, pred_name,
                             lambda scores: self._evaluated(entry, scores)), entry

    @staticmethod
    def _checked(preds: ArrayLike, n_rows: int, name: str,
                 evaluate: Callable[[np.ndarray], dict[str, NDArray[np.float64]]],
                 one_column: bool = False) -> dict[str, NDArray[np.float64]]:
        """``evaluate(scores)`` for ``preds`` checked to be one real score per row: shape
        (n_rows,) (or 2-D holding n_rows values, one output per row, when ``one_column``),
        float32/float64 after conversion. Errors name ``name``, the host's name for the
        scores: TypeError for non-numeric scores, ValueError for another shape or for NaN/inf.
        NaN and inf are not looked for first: the core finds them as it ranks (the compiled
        one-pass evaluation reads each list once for both), and its error is raised again
        naming ``name``."""
        scores = check_scores(preds, name, finite=False)
        if one_column and scores.ndim == 2 and scores.size == n_rows:
            scores = scores.reshape(-1)  # one output per row
        if scores.shape != (n_rows,):
            raise ValueError(
                f"{name} must have one score per row ({n_rows}); got shape {scores.shape}")
        try:
            return evaluate(scores)
        except ValueError as exc:
            failure = exc
        check_finite(scores, name)  # raises (naming this argument) when that was the cause
        raise failure

    def _evaluated(self, entry: _Entry, preds: np.ndarray) -> dict[str, NDArray[np.float64]]:
        """Per-query values (name -> shape (n_queries,)) of every reported name for scores
        ``preds`` (float32/float64, shape (n_rows,), NaN/inf not looked for yet: the core
        raises ValueError naming ``y_score`` when it meets one)."""
        plan = entry.plan
        kw = self._core_kwargs()
        if not self.bounds:  # one pass: the compiled kernel ranks each query once for all
            values = plan.evaluate(preds, self.metrics, ties=self.ties, **kw)
            return {self.prefix + m: values[m] for m in self.metrics}
        if not self._own_ties and plan._backend == "numba":
            # the bounds as measures with their own tie rule: one pass for all three rules
            ms = parse_measures(self.metrics)
            extra = [dataclasses.replace(m, ties=rule, name=f"{m.name}_{rule}")
                     for m in ms for rule in _BOUNDS]
            values = plan.evaluate(preds, [*ms, *extra], ties=self.ties, **kw)
            out = {self.prefix + name: v for name, v in values.items()}
            return {n: out[n] for n in self.names}
        ranking = plan._rank(preds, self._depth, self.ties)  # used within this call: no copy
        # a measure with its own ties= (e.g. "nDCG(ties=stable)@10") ranks the scores itself
        values = plan.evaluate(preds if self._own_ties else ranking, self.metrics,
                               ties=self.ties, **kw)
        out = {self.prefix + m: values[m] for m in self.metrics}
        if self.bounds:
            # one ordering serves all tie rules except "stable", which fixes row order
            tied = ranking if self.ties != "stable" else plan._rank(preds, self._depth, "average")
            for rule in _BOUNDS:
                vals = plan.evaluate(tied, self._bound_metrics, ties=rule, **kw)
                out.update({f"{self.prefix}{m}_{rule}": vals[m] for m in self.metrics})
        return {n: out[n] for n in self.names}

    def _new_booster(self, booster: Any) -> bool:
        """Whether ``booster`` is not the one whose params were compared last (it is held
        weakly): each training is checked at its first evaluation only."""
        seen = self.__dict__.get("_clash_seen")
        if seen is not None and seen() is booster:
            return False
        try:
            self._clash_seen: weakref.ref[Any] | None = weakref.ref(booster)
        except TypeError:
            self._clash_seen = None
        return True

    def _gain_mismatch(self, host_gain: Callable[[int], float], levels: int) -> list[str]:
        """Names of our nDCG outputs (the gain is the call's, not the measure's own) whose gain
        of some integer label ``0 .. levels - 1`` is not ``host_gain(label)``; none when the gain
        was chosen (``gain=`` other than the default) rather than left to the host's."""
        if not self.__dict__.get("_host_gain", True):
            return []
        differs = False
        for level in range(levels):
            try:
                ours = float(apply_gain(self.gain, np.array([float(level)]))[0])
            except ValueError:
                continue  # a label without a gain is refused when it occurs
            if not math.isclose(ours, host_gain(level), rel_tol=1e-9, abs_tol=1e-12):
                differs = True
                break
        if not differs:
            return []
        return [self.prefix + name for name in self.metrics
                for m in parse_measure(name)
                if m.kind == "ndcg" and m.gain is None and m.gains is None]

    def _warn_lightgbm_gain(self, params: Any) -> None:
        """Warn when LightGBM's ``label_gain`` of ``params`` (default ``2**i - 1``, i < 31) is
        not the gain of our nDCG outputs: LightGBM's ndcg of the same name differs."""
        if not isinstance(params, dict):
            return
        given = params.get("label_gain")
        try:
            if given is None:
                table = [2.0 ** i - 1.0 for i in range(31)]
            else:
                items = given.split(",") if isinstance(given, str) else list(given)
                table = [float(g) for g in items]
        except (TypeError, ValueError):
            return  # unreadable: the check is a courtesy
        names = self._gain_mismatch(table.__getitem__, len(table))
        if names:
            shown = "the default 2**i - 1" if given is None else f"label_gain={table}"
            warnings.warn(
                f"metric outputs {names} use a gain other than the Booster's ({shown}): "
                "LightGBM's own ndcg of these params differs from ours; pass the Booster's "
                "label_gain to make_feval / make_eval_metric (label_gain=[...]) to match it",
                UserWarning, stacklevel=4,
            )

    def _warn_builtin_clash(self) -> None:
        """Warn when the LightGBM Booster evaluating us has a built-in metric of one of
        our names: LightGBM records both values under one name. Only a Booster's evaluation
        (``Booster.__inner_eval``, two frames up at most: ``LGBMRanker`` wraps ``__call__``)
        merges them, and its params are this training's (a reused Dataset keeps the first's)."""
        frame: Any = sys._getframe(2)
        for _ in range(3):
            if frame is None:
                return
            if (frame.f_globals.get("__name__") == "lightgbm.basic"
                    and frame.f_code.co_name == "__inner_eval"):
                break
            frame = frame.f_back
        else:
            return
        booster = frame.f_locals.get("self")
        if not self._new_booster(booster):
            return
        self._warn_lightgbm_gain(getattr(booster, "params", None))
        clash = sorted(set(self.names) & _lightgbm_builtin_names(getattr(booster, "params", None)))
        if clash:
            warnings.warn(
                f"metric outputs {clash} have the names of LightGBM's built-in metrics of "
                "params (metric / eval_at; with no metric, the ranking objective's ndcg@1..5): "
                "record_evaluation, evals_result_, best_score and lgb.early_stopping mix the "
                "two values under one name; give ours a prefix (prefix='tie_') or set "
                "metric='None'",
                UserWarning, stacklevel=3,
            )

    def _results(self, labels: Any, preds: ArrayLike, group: Any, weight: Any) -> list[EvalTuple]:
        per_query, entry = self._per_query(labels, preds, group, weight)
        nq = entry.plan.n_queries
        if entry.query_weight is not None:
            warn_weighted_empty_ndcg(entry.plan, entry.query_weight, self.metrics, self.gain,
                                     self.empty, "LightGBM", self._empty_checked)
        return [(name, weighted_mean(v, entry.query_weight, nq), True)
                for name, v in per_query.items()]


#: LightGBM's names of its ranking metrics and parameters (config.h aliases)
_LGB_METRIC_KEYS = ("metric", "metrics", "metric_types")
_LGB_EVAL_AT_KEYS = ("eval_at", "ndcg_eval_at", "ndcg_at", "map_eval_at", "map_at")
_LGB_RANKING = {"ndcg": "ndcg", "lambdarank": "ndcg", "rank_xendcg": "ndcg", "xendcg": "ndcg",
                "xe_ndcg": "ndcg", "xe_ndcg_mart": "ndcg", "xendcg_mart": "ndcg",
                "map": "map", "mean_average_precision": "map"}


def _lightgbm_builtin_names(params: Any) -> set[str]:
    """Names LightGBM's own ranking metrics report under ``params`` (a Booster's): ``ndcg@k``
    / ``map@k`` for every ``eval_at`` (default 1..5); with no ``metric`` the objective's (ndcg
    for the rankers). Anything unreadable gives no names (the check is a courtesy)."""
    if not isinstance(params, dict):
        return set()
    try:
        given = next((params[key] for key in _LGB_METRIC_KEYS if key in params), "")
        items = given.split(",") if isinstance(given, str) else list(given)
        kinds = [str(m).strip().lower() for m in items if str(m).strip()]
        if not kinds:
            kinds = [str(params.get("objective", "")).strip().lower()]
        at = next((params[key] for key in _LGB_EVAL_AT_KEYS if key in params), (1, 2, 3, 4, 5))
        if isinstance(at, str):
            at = at.split(",")
        elif isinstance(at, numbers.Integral):
            at = [at]
        cuts = [int(c) for c in at]
    except (TypeError, ValueError):
        return set()
    return {f"{_LGB_RANKING[m]}@{c}" for m in kinds if m in _LGB_RANKING for c in cuts}


class Feval(_TieAwareMetric):
    """Tie-aware ranking metrics as a LightGBM ``feval``: ``feval(preds, eval_data)``.

    Build it with :func:`make_feval`; the parameters are documented there.

    Attributes
    ----------
    names : list of str
        The metric names it reports, in order (the first one is what
        ``lgb.early_stopping(first_metric_only=True)`` uses when ``metric="None"``).
    """

    def __call__(self, preds: ArrayLike, eval_data: lightgbm.Dataset) -> list[EvalTuple]:
        """Evaluate one round's predictions on a constructed LightGBM Dataset.

        Parameters
        ----------
        preds : ndarray of shape (n_rows,)
            Raw scores of the rows of ``eval_data`` (higher ranks first).
        eval_data : lightgbm.Dataset
            Constructed Dataset with labels and query groups (``group=``); its weights, if
            any, become query weights (see ``query_weight`` in :func:`make_feval`).

        Returns
        -------
        list of (str, float, bool)
            ``(name, (weighted) mean over queries, True)`` for every name of :attr:`names`.

        Raises
        ------
        ValueError
            The Dataset has no query groups, or labels/scores the core rejects (negative or
            non-integer labels with exponential gain, NaN/inf scores, wrong lengths).
        TypeError
            ``eval_data`` is not a Dataset (the feval was given to
            ``LGBMRanker.fit(eval_metric=...)``: use :func:`make_eval_metric` there).

        Warns
        -----
        UserWarning
            At the first evaluation of a training whose Booster's params turn on a LightGBM
            metric of one of :attr:`names` (``metric`` / ``eval_at``; with no ``metric``, the
            ranking objective's ``ndcg@1..5``): LightGBM records both values under one name.
            At the first evaluation of a training whose Booster's ``label_gain`` (default
            ``2**i - 1``) is not the gain of an nDCG output left at the default gain or given
            ``label_gain``: LightGBM's ndcg of that Booster differs from ours.
        """
        if not hasattr(eval_data, "get_group"):
            raise TypeError(
                f"{type(self).__name__} takes (preds, Dataset), as lgb.train(feval=...) passes "
                f"them; got a {type(eval_data).__name__} for the Dataset. For "
                "LGBMRanker.fit(eval_metric=...) use rankmetrics.lightgbm.make_eval_metric"
            )
        self._warn_builtin_clash()
        return self._results(eval_data.get_label(), preds, eval_data.get_group(),
                             eval_data.get_weight())

    def per_query(self, preds: ArrayLike,
                  eval_data: lightgbm.Dataset) -> dict[str, NDArray[np.float64]]:
        """Per-query values behind :meth:`__call__`: name -> array of shape (n_queries,),
        queries in the Dataset's group order (NaN for queries left out by ``empty="skip"``)."""
        return self._per_query(eval_data.get_label(), preds, eval_data.get_group(),
                               eval_data.get_weight())[0]


class EvalMetric(_TieAwareMetric):
    """Tie-aware ranking metrics for ``LGBMRanker.fit(eval_metric=...)``.

    LightGBM's scikit-learn wrapper calls a custom metric with 2, 3 or 4 positional arguments,
    chosen by ``len(inspect.signature(f).parameters)``; :meth:`__call__` takes exactly four,
    so it receives the query groups. Build it with :func:`make_eval_metric`.
    """

    _arg_names = ("y_true", "y_pred")

    def __call__(self, y_true: ArrayLike | None, y_pred: ArrayLike,
                 weight: ArrayLike | None = None, group: ArrayLike | None = None
                 ) -> list[EvalTuple]:
        """Evaluate predictions of one evaluation set.

        Parameters
        ----------
        y_true : ndarray of shape (n_rows,)
            Graded labels, rows grouped by query.
        y_pred : ndarray of shape (n_rows,)
            Raw scores.
        weight : ndarray of shape (n_rows,) or None
            Row weights (``eval_sample_weight``); turned into query weights.
        group : ndarray of shape (n_queries,)
            Query group sizes, summing to ``n_rows`` (``eval_group``).

        Returns
        -------
        list of (str, float, bool)
            ``(name, (weighted) mean over queries, True)`` for every name of :attr:`names`.

        Raises
        ------
        ValueError
            ``group`` is None or does not add up to the rows, or inputs the core rejects.
        TypeError
            ``y_true`` is None (a Dataset without labels), or called as a ``feval`` (with a
            Dataset: use :func:`make_feval` there).

        Warns
        -----
        UserWarning
            At the first evaluation of a training whose Booster's params turn on a LightGBM
            metric of one of :attr:`names` (``LGBMRanker``'s default ``eval_at`` is 1..5):
            LightGBM records both values under one name. At the first evaluation of a
            training whose Booster's ``label_gain`` (default ``2**i - 1``) is not the gain of
            an nDCG output left at the default gain or given ``label_gain``.
        """
        if hasattr(y_pred, "get_group"):  # lgb.train(feval=...) passes (preds, Dataset)
            raise TypeError(
                f"{type(self).__name__} takes (y_true, y_pred, weight, group), as "
                "LGBMRanker.fit(eval_metric=...) passes them; got a Dataset. For "
                "lgb.train(feval=...) use rankmetrics.lightgbm.make_feval"
            )
        self._warn_builtin_clash()
        return self._results(y_true, y_pred, group, weight)


_FACTORY_DOC = """
    Parameters
    ----------
    metrics : str, measure object or iterable of them, default "ndcg"
        Names of the measure language (:mod:`rankmetrics.measures`): LightGBM's ``"ndcg@10"``,
        ``"map@5"``, as well as ``"nDCG@10"``, ``"AP@100"``, ``"P(rel=2)@5"``, ``"RR"``,
        ``"Rprec"``, ``"Success@10"``, ``"SetF(beta=0.5)"``, ``"ndcg_cut.10"``, ... A name with
        its own cutoff (``"map@100"``) keeps it, the others get every cutoff of ``k``. Output
        names are the given names without spaces (a measure object: its printed name), with
        ``@k`` appended where ``k`` supplied the cutoff.
    k : int, None or sequence of them, default None
        Cutoffs for the names without one, e.g. ``(1, 3, 5, 10)``; None is the whole list.
        (A cutoff comes only from the name or from ``k``: ``make_feval("map")`` is MAP over the
        whole list, not LightGBM's default ``eval_at``.)
    ties : {"average", "optimistic", "pessimistic", "stable"}, default "average"
        Tie rule. "average" is the exact mean over all orderings of tied scores; "stable" is
        row order within ties, i.e. LightGBM's built-in behaviour.
    gain : str, sequence, mapping or callable, default "exponential"
        As in the core: "exponential" is ``2**label - 1``, LightGBM's default ``label_gain``.
    label_gain : sequence of float, optional
        LightGBM's ``label_gain`` parameter (gain of integer label ``i`` is ``label_gain[i]``);
        use it instead of ``gain`` to match a model trained with a custom ``label_gain``.
    discount, log_base : default "log", 2
        Rank discount; the default ``1 / log2(rank + 1)`` is LightGBM's.
    threshold : float, default ``LIGHTGBM_THRESHOLD`` (0.5 + 2**-25, rounded up)
        Binary metrics: relevant iff ``label >= threshold``. The default is LightGBM's rule for
        ``map@k``, ``label > 0.5`` on labels held as float32 (integer labels: ``label >= 1``).
    beta : float, default 1.0
        For ``"fbeta"``.
    empty : float, "skip" or "error", default 1.0
        Value of a query without relevant documents (nDCG/nCG: ideal gain 0; binary metrics:
        no label >= threshold), for every metric. 1.0 is LightGBM's convention for ``ndcg``
        (an all-zero-label query scores 1); 0.0 is scikit-learn's; "skip" leaves such
        queries out of the mean.
    denominator : {"relevant", "min_k_relevant", "found"}, default "min_k_relevant"
        Average-precision denominator (see :func:`rankmetrics.average_precision`).
        "min_k_relevant", min(k, R), is LightGBM's ``map@k`` (with ``empty=1.0``, its value
        for a query without relevant documents); "relevant" (R) is trec_eval's ``map_cut``.
    bounds : bool, default False
        Also report, for every metric, ``<name>_optimistic`` and ``<name>_pessimistic``: the
        best and worst value over all orderings of the tied scores (after the main values).
    query_weight : {"mean", "first"}, default "mean"
        With row weights, the weight of a query is the mean of its rows' weights (LightGBM's
        ``Metadata`` rule, equal to every row's weight when weights are constant per query)
        or its first row's weight. The reported value is the weighted mean over queries.
        (LightGBM's own weighted ``ndcg`` adds an all-zero-label query's 1.0 without its
        weight; we weight every query alike, so the two differ when such queries exist: a
        UserWarning says so once per Dataset, unless their weights sum to their count.)
    prefix : str, default ""
        Prepended to every name (no whitespace); e.g. ``"tie_"`` when LightGBM's built-in
        metric runs at the same cutoffs.
    cache_size : int, default 16
        Evaluation sets whose label-side plan is kept (most recently used first); raise it
        above the number of sets evaluated per round (e.g. folds of ``lgb.cv``).

    Raises
    ------
    ValueError
        Unknown metric, gain, discount, tie or empty rule; non-positive cutoffs; a ``k`` that
        no name takes (each has its own cutoff or takes none); duplicate names; whitespace in
        ``prefix``; ``gain`` together with ``label_gain``. At a call: a query group of size 0
        (LightGBM scores it 1.0, a query without relevant documents).
    TypeError
        Non-integer cutoffs, non-string metric names, non-boolean ``bounds``.

    Warns
    -----
    UserWarning
        A ``label_gain`` that decreases somewhere, with a gain measure: LightGBM's ideal DCG
        orders documents by label, ours by gain, and the two ndcg differ. At the first
        evaluation of a training, a Booster whose ``label_gain`` (LightGBM's default
        ``2**i - 1`` when not set) differs from the gain of an nDCG output, unless ``gain`` was
        chosen (not ``"exponential"``): LightGBM's ndcg of that Booster differs from ours.

    Notes
    -----
    The label-side plan (query layout, gains, ideal DCG per cutoff) is built on the first call
    for an evaluation set and kept, keyed by the label, group and weight objects (held, so a
    recycled ``id`` cannot alias) and, failing that, by their content. Each later call ranks
    the scores once (only the top ``max(k)`` when every metric has a cutoff) and evaluates all
    metrics on that ranking; ``bounds`` reuse the same ranking. Labels changed *in place*
    after the first call are not noticed: call :meth:`clear_cache`.
"""


def make_feval(
    metrics: str | Iterable[str] = "ndcg",
    k: int | None | Sequence[int | None] = None,
    *,
    ties: str = "average",
    gain: GainLike = "exponential",
    label_gain: Sequence[float] | None = None,
    discount: DiscountLike = "log",
    log_base: float = 2,
    threshold: float = LIGHTGBM_THRESHOLD,
    beta: float = 1.0,
    empty: float | str = 1.0,
    denominator: str = "min_k_relevant",
    bounds: bool = False,
    query_weight: str = "mean",
    prefix: str = "",
    cache_size: int = 16,
) -> Feval:
    return Feval(metrics, k, ties=ties, gain=gain, label_gain=label_gain, discount=discount,
                 log_base=log_base, threshold=threshold, beta=beta, empty=empty,
                 denominator=denominator, bounds=bounds, query_weight=query_weight,
                 prefix=prefix, cache_size=cache_size)


make_feval.__doc__ = (
    """Tie-aware ranking metrics as an eval function for ``lgb.train(..., feval=...)``.

    The returned :class:`Feval` is called by LightGBM as ``feval(preds, eval_data)`` once per
    evaluation set and round; it reads labels, query group sizes and weights from the Dataset
    and returns ``[(name, value, True), ...]``.
"""
    + _FACTORY_DOC
    + """
    Returns
    -------
    Feval

    Examples
    --------
    >>> import numpy as np
    >>> import lightgbm as lgb
    >>> from rankmetrics.lightgbm import make_feval
    >>> feval = make_feval("ndcg", k=(1, 3), bounds=True)
    >>> feval.names
    ['ndcg@1', 'ndcg@3', 'ndcg@1_optimistic', 'ndcg@1_pessimistic', \
'ndcg@3_optimistic', 'ndcg@3_pessimistic']
    >>> data = lgb.Dataset(np.zeros((5, 1)), label=[2, 0, 0, 1, 0], group=[3, 2],
    ...                    params={"verbose": -1}).construct()
    >>> [(n, round(v, 4)) for n, v, _ in feval(np.array([0.5, 0.5, 0.5, 0.1, 0.2]), data)][:4]
    [('ndcg@1', 0.1667), ('ndcg@3', 0.6706), ('ndcg@1_optimistic', 0.5), \
('ndcg@1_pessimistic', 0.0)]
"""
)


def make_eval_metric(
    metrics: str | Iterable[str] = "ndcg",
    k: int | None | Sequence[int | None] = None,
    *,
    ties: str = "average",
    gain: GainLike = "exponential",
    label_gain: Sequence[float] | None = None,
    discount: DiscountLike = "log",
    log_base: float = 2,
    threshold: float = LIGHTGBM_THRESHOLD,
    beta: float = 1.0,
    empty: float | str = 1.0,
    denominator: str = "min_k_relevant",
    bounds: bool = False,
    query_weight: str = "mean",
    prefix: str = "",
    cache_size: int = 16,
) -> EvalMetric:
    return EvalMetric(metrics, k, ties=ties, gain=gain, label_gain=label_gain,
                      discount=discount, log_base=log_base, threshold=threshold, beta=beta,
                      empty=empty, denominator=denominator, bounds=bounds,
                      query_weight=query_weight, prefix=prefix, cache_size=cache_size)


make_eval_metric.__doc__ = (
    """Tie-aware ranking metrics for ``LGBMRanker.fit(..., eval_metric=...)``.

    The returned :class:`EvalMetric` has ``__call__(y_true, y_pred, weight, group)`` (exactly
    four parameters, which is how LightGBM knows to pass the query groups).
"""
    + _FACTORY_DOC
    + """
    Returns
    -------
    EvalMetric

    Examples
    --------
    >>> import inspect
    >>> from rankmetrics.lightgbm import make_eval_metric
    >>> metric = make_eval_metric("ndcg", k=10, prefix="tie_")
    >>> len(inspect.signature(metric).parameters)
    4
    >>> [(n, round(v, 4)) for n, v, _ in metric([2, 0, 0], [0.5, 0.5, 0.5], None, [3])]
    [('tie_ndcg@10', 0.7103)]
"""
)


# ---------------------------------------------------------------------------------------------
# early stopping on our metric
# ---------------------------------------------------------------------------------------------


class EarlyStopping:
    """LightGBM callback: stop when one metric on one evaluation set stops improving.

    Build it with :func:`early_stopping`. Unlike ``lgb.early_stopping``, which watches the
    first metric (``first_metric_only=True``) or every metric, it watches the named metric
    only, so built-in metrics can stay on for comparison.
    """

    order: int
    before_iteration: bool
    stopping_rounds: int
    metric: str
    data_name: str | None
    min_delta: float
    verbose: bool

    def __init__(self, stopping_rounds: int, metric: str, *, data_name: str | None = None,
                 min_delta: float = 0.0, verbose: bool = True) -> None:
        if isinstance(stopping_rounds, bool) or not isinstance(stopping_rounds, numbers.Integral) \
                or stopping_rounds < 1:
            raise ValueError(f"stopping_rounds must be an int >= 1; got {stopping_rounds!r}")
        if not isinstance(metric, str) or not metric:
            raise TypeError(f"metric must be a metric name such as 'ndcg@10'; got {metric!r}")
        if isinstance(min_delta, bool) or not isinstance(min_delta, numbers.Real) \
                or not math.isfinite(as_float64(min_delta, "min_delta")) or min_delta < 0:
            raise ValueError(f"min_delta must be a finite number >= 0; got {min_delta!r}")
        # instance attributes: lgb.train overwrites an `order` missing from the instance dict;
        # 30 runs it where lgb.early_stopping runs, after record_evaluation / log_evaluation
        self.order = 30
        self.before_iteration = False
        self.stopping_rounds = int(stopping_rounds)
        self.metric = metric
        self.data_name = data_name
        self.min_delta = float(min_delta)
        self.verbose = verbose
        self._reset()

    def _reset(self) -> None:
        self.best_iteration = -1
        self.best_score = math.nan
        self.best_results: list[Any] = []
        self._index = -1
        self._maximize = True
        self.enabled = True
        # per training (by its model's id): one callback object passed to trainings that run
        # at once (threads: a threading joblib backend, Dask's threaded scheduler) compared
        # one's scores with another's best; the attributes above mirror the last one updated
        self._runs: dict[int, dict[str, Any]] = {}

    def _publish(self, run: dict[str, Any]) -> None:
        self.best_iteration, self.best_score = run["best_iteration"], run["best_score"]
        self.best_results, self.enabled = run["best_results"], run["enabled"]
        self._index, self._maximize = run["index"], run["maximize"]

    def _find(self, env: Any) -> tuple[int, bool]:
        """(index in the evaluation results, maximize) of the watched metric."""
        import lightgbm as lgb

        results = list(env.evaluation_result_list or [])
        if not results:
            raise ValueError("early_stopping needs at least one validation set and metric")
        is_cv = not isinstance(env.model, lgb.Booster)  # lgb.cv passes a CVBooster
        train_name = getattr(env.model, "_train_data_name", "training")
        seen: set[tuple[str, str]] = set()
        for r in results:
            key = (r[0], r[1])
            if key in seen:
                raise ValueError(
                    f"metric {r[1]!r} is reported twice for data set {r[0]!r}: a built-in metric "
                    "has the same name as a feval output; give the feval a prefix "
                    "(make_feval(..., prefix='tie_'))"
                )
            seen.add(key)
        wanted = self.data_name
        for i, r in enumerate(results):
            if r[1] != self.metric:
                continue
            if wanted is None:
                if (is_cv and r[0] == "train") or (not is_cv and r[0] == train_name):
                    continue  # never stop on the training data
            elif r[0] != wanted:
                continue
            return i, bool(r[3])
        names = sorted({f"{r[0]}'s {r[1]}" for r in results})
        where = "a validation set" if wanted is None else f"data set {wanted!r}"
        raise ValueError(
            f"early_stopping: metric {self.metric!r} not reported on {where}; available: {names}"
        )

    def __call__(self, env: Any) -> None:
        import lightgbm as lgb

        key = id(env.model)
        runs = self._runs = self.__dict__.get("_runs", {})  # pickled before it kept runs
        run = runs.get(key)
        if env.iteration == env.begin_iteration or run is None:
            run = {"best_iteration": -1, "best_score": math.nan, "best_results": [],
                   "index": -1, "maximize": True, "enabled": True}
            boosting = [env.params.get(a) for a in ("boosting", "boosting_type", "boost")]
            if "dart" in boosting:
                run["enabled"] = False
                runs[key] = run
                self._publish(run)
                print("early_stopping: not available in dart mode; disabled")
                return
            run["index"], run["maximize"] = self._find(env)
            runs[key] = run
        if not run["enabled"]:
            self._publish(run)
            return
        results = env.evaluation_result_list
        score = float(results[run["index"]][2])
        best = run["best_score"]
        better = (score > best + self.min_delta if run["maximize"]
                  else score < best - self.min_delta)
        if run["best_iteration"] < 0 or better:
            run["best_score"], run["best_iteration"] = score, env.iteration
            run["best_results"] = results
        self._publish(run)
        stop = env.iteration - run["best_iteration"] >= self.stopping_rounds
        if stop or env.iteration == env.end_iteration - 1:
            runs.pop(key, None)
            if self.verbose:
                r = results[run["index"]]
                how = "Early stopping" if stop else "Did not meet early stopping"
                print(f"{how} on {r[0]}'s {r[1]}: best iteration is "
                      f"[{run['best_iteration'] + 1}] with {run['best_score']:.6g}")
            raise lgb.callback.EarlyStopException(run["best_iteration"], run["best_results"])


def early_stopping(
    stopping_rounds: int,
    feval: _TieAwareMetric | None = None,
    *,
    metric: str | None = None,
    data_name: str | None = None,
    min_delta: float = 0.0,
    verbose: bool = True,
) -> EarlyStopping:
    """Callback that stops training on a tie-aware metric (built-in metrics may stay on).

    Parameters
    ----------
    stopping_rounds : int
        Stop when the metric has not improved for this many rounds (``>= 1``).
    feval : Feval or EvalMetric, optional
        Watch its first output (``feval.names[0]``) unless ``metric`` is given.
    metric : str, optional
        Name of the metric to watch, as reported (e.g. ``"tie_ndcg@10"``). Required without
        ``feval``.
    data_name : str, optional
        Evaluation set to watch (``valid_names`` entry, ``"valid_0"`` by default in LightGBM).
        Default: the first set reporting ``metric`` that is not the training data.
    min_delta : float, default 0.0
        Minimum improvement that counts.
    verbose : bool, default True
        Print the best iteration when training stops.

    Returns
    -------
    EarlyStopping
        Pass it in ``callbacks=[...]`` of ``lgb.train``, ``lgb.cv`` or ``LGBMRanker.fit``.
        On stopping (and at the last round) it raises LightGBM's ``EarlyStopException``, so
        ``booster.best_iteration`` and ``best_score`` are set as by ``lgb.early_stopping``.

    Raises
    ------
    ValueError
        Bad ``stopping_rounds`` / ``min_delta``; at the first round, the metric is not
        reported on a validation set, or a data set reports the same metric name twice (a
        built-in metric with the feval's name: use ``prefix``).
    TypeError
        Neither ``feval`` nor ``metric`` given, or, without ``metric``, ``feval`` is not what
        :func:`make_feval` or :func:`make_eval_metric` returned (a name such as
        ``"ndcg@10"`` goes in ``metric=``).

    Examples
    --------
    >>> from rankmetrics.lightgbm import early_stopping, make_feval
    >>> feval = make_feval("ndcg", k=(5, 10), prefix="tie_")
    >>> early_stopping(20, feval).metric
    'tie_ndcg@5'
    >>> early_stopping(20, feval, metric="tie_ndcg@10").metric
    'tie_ndcg@10'
    """
    if metric is None:
        if feval is None:
            raise TypeError("early_stopping needs feval (to watch its first metric) or metric=")
        if not isinstance(feval, _TieAwareMetric):  # with metric= it is not read
            hint = " (a metric name goes in metric=)" if isinstance(feval, str) else ""
            raise TypeError(f"feval must be what make_feval or make_eval_metric returned (its "
                            f"first metric is watched); got {feval!r}{hint}")
        metric = feval.names[0]
    return EarlyStopping(stopping_rounds, metric, data_name=data_name, min_delta=min_delta,
                         verbose=verbose)


# ---------------------------------------------------------------------------------------------
# LightGBM's own metric on given scores (for comparisons)
# ---------------------------------------------------------------------------------------------


def builtin_ndcg(
    y_true: ArrayLike,
    y_score: ArrayLike,
    group: ArrayLike,
    k: int | Sequence[int] = 10,
    *,
    label_gain: Sequence[float] | None = None,
    weight: ArrayLike | None = None,
    per_query: bool = False,
    num_threads: int = 1,
) -> dict[str, Any]:
    """LightGBM's built-in ``ndcg@k`` of arbitrary scores (ties broken by row order).

    A Booster with zero trees predicts its Dataset's ``init_score``, so a Dataset carrying
    ``init_score=y_score`` and evaluated with ``eval_train()`` yields LightGBM's own metric on
    exactly these scores. For per-query values every query becomes its own validation set of
    that Booster (LightGBM's ``ndcg`` of a one-query set is that query's value); one
    ``eval_valid()`` call then evaluates them all.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Integer labels (LightGBM requires ``0 <= label < len(label_gain)``).
    y_score : array-like of shape (n_rows,)
        Scores, rows grouped by query.
    group : array-like of shape (n_queries,)
        Query sizes, summing to ``n_rows``.
    k : int or sequence of int, default 10
        LightGBM's ``eval_at``.
    label_gain : sequence of float, optional
        LightGBM's ``label_gain`` (default ``2**i - 1``).
    weight : array-like of shape (n_rows,), optional
        Row weights (LightGBM averages them per query).
    per_query : bool, default False
        Return per-query arrays instead of means (one LightGBM Dataset per query: for small
        data).
    num_threads : int, default 1

    Returns
    -------
    dict
        ``"ndcg@k"`` -> float (mean over queries), or ndarray of shape (n_queries,) with
        ``per_query=True``.

    Raises
    ------
    ImportError
        LightGBM is not installed.
    ValueError
        Inputs of different lengths, group sizes that do not add up to them, or masked
        entries (naming the argument).
    TypeError
        ``k`` is not a positive int or a sequence of them; complex, date, text or record
        values (naming the argument).
    lightgbm.basic.LightGBMError
        LightGBM's own checks (not a ValueError): a label without a gain (>= 31 with the
        default ``label_gain``), a negative or non-integer label.

    Examples
    --------
    >>> from rankmetrics.lightgbm import builtin_ndcg
    >>> builtin_ndcg([2, 0, 0], [0.5, 0.5, 0.5], [3], k=1)  # the first tied row wins
    {'ndcg@1': 1.0}
    >>> builtin_ndcg([0, 0, 2], [0.5, 0.5, 0.5], [3], k=1)
    {'ndcg@1': 0.0}
    """
    return _builtin("ndcg", y_true, y_score, group, k, label_gain=label_gain, weight=weight,
                    per_query=per_query, num_threads=num_threads)


def builtin_map(
    y_true: ArrayLike,
    y_score: ArrayLike,
    group: ArrayLike,
    k: int | Sequence[int] = 10,
    *,
    weight: ArrayLike | None = None,
    per_query: bool = False,
    num_threads: int = 1,
) -> dict[str, Any]:
    """LightGBM's built-in ``map@k`` of arbitrary scores (ties broken by row order).

    As :func:`builtin_ndcg`, with LightGBM's ``map`` metric: the precision at every relevant
    rank (label > 0.5) up to k, summed and divided by min(k, R); 1 for a query without relevant
    documents. ``make_feval("map@k", ties="stable")`` gives the same numbers.

    Parameters
    ----------
    y_true, y_score, group, k, weight, per_query, num_threads
        As in :func:`builtin_ndcg`.

    Returns
    -------
    dict
        ``"map@k"`` -> float (mean over queries), or ndarray of shape (n_queries,) with
        ``per_query=True``.

    Raises
    ------
    ImportError
        LightGBM is not installed.
    ValueError
        Inputs of different lengths, group sizes that do not add up to them, or masked
        entries (naming the argument).
    TypeError
        ``k`` is not a positive int or a sequence of them; complex, date, text or record
        values (naming the argument).

    Examples
    --------
    >>> from rankmetrics.lightgbm import builtin_map
    >>> builtin_map([0, 1, 1], [0.9, 0.5, 0.1], [3], k=2)   # (1/2) / min(2, 2)
    {'map@2': 0.25}
    """
    return _builtin("map", y_true, y_score, group, k, label_gain=None, weight=weight,
                    per_query=per_query, num_threads=num_threads)


def _builtin(metric: str, y_true: ArrayLike, y_score: ArrayLike, group: ArrayLike,
             k: int | Sequence[int], *, label_gain: Sequence[float] | None,
             weight: ArrayLike | None, per_query: bool, num_threads: int) -> dict[str, Any]:
    import lightgbm as lgb

    # masked, complex and date arrays refused (numpy's float64 cast would read them silently)
    y = real_host_array(y_true, "y_true").astype(np.float64)
    s = real_host_array(y_score, "y_score").astype(np.float64)
    try:  # LightGBM's eval_at: no None (the whole list), no str (a sequence of characters)
        cuts = () if k is None or isinstance(k, str) else check_ks(k)
    except (TypeError, ValueError):
        cuts = ()
    if not cuts or None in cuts:
        raise TypeError(f"k must be a positive int or a sequence of them; got {k!r}")
    ks = [int(c) for c in cuts if c is not None]
    if y.ndim != 1 or s.shape != y.shape:
        raise ValueError(
            f"y_true {y.shape} and y_score {s.shape} must be 1-D of equal length"
        )
    g = check_group_sizes(group, y.shape[0], "group", "y_true")
    # map under a regression objective: lambdarank refuses fractional labels, which LightGBM's
    # map metric reads (relevant when > LIGHTGBM_THRESHOLD); the zero-tree scores are the same
    objective = "regression" if metric == "map" else "lambdarank"
    params: dict[str, Any] = {"objective": objective, "metric": metric, "eval_at": ks,
                              "verbose": -1, "num_threads": num_threads,
                              "min_data_in_leaf": 1, "min_data_in_bin": 1}
    if label_gain is not None:
        params["label_gain"] = list(label_gain)
    X = np.zeros((y.shape[0], 1))
    w = None if weight is None else real_host_array(weight, "weight").astype(np.float64)
    train = lgb.Dataset(X, label=y, group=g, weight=w, init_score=s, params=params,
                        free_raw_data=False)
    booster = lgb.Booster(params, train)
    if not per_query:
        return {r[1]: float(r[2]) for r in booster.eval_train()}
    starts = np.r_[0, np.cumsum(g)]
    for i in range(g.shape[0]):
        a, b = int(starts[i]), int(starts[i + 1])
        part = lgb.Dataset(X[a:b], label=y[a:b], group=[b - a], init_score=s[a:b],
                           weight=None if w is None else w[a:b], reference=train,
                           params=params)
        booster.add_valid(part, f"q{i}")
    out: dict[str, Any] = {f"{metric}@{c}": np.empty(g.shape[0]) for c in ks}
    for r in booster.eval_valid():
        out[r[1]][int(r[0][1:])] = r[2]
    return out

