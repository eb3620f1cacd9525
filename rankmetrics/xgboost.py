"""Tie-aware ranking metrics for XGBoost: ``xgb.train(custom_metric=...)``,
``XGBRanker(eval_metric=...)`` and early stopping on them.

XGBoost's built-in ``ndcg@k``, ``map@k`` and ``pre@k`` order each query's rows by score and keep
row order within ties, so early boosting rounds, whose scores are heavily tied, are scored by an
arbitrary order. The objects here report the exact expected value over all orderings of tied
scores (McSherry & Najork 2008) -- or any other tie rule of the core -- computed by
:class:`rankmetrics.QueryPlan`. With ``ties="stable"`` and the default options they reproduce
XGBoost's built-in values (to float32 precision of its labels).

This module is an adapter only: it reads labels, query boundaries (``group_ptr``, set by
``qid=`` or ``group=``) and query weights from a ``DMatrix``, calls the core and returns
XGBoost's ``[(name, value), ...]``. The label-side plan is cached per DMatrix, so each boosting
round only orders the new scores.

Entry points
------------
:func:`make_custom_metric`
    ``custom_metric(predt, dmatrix)`` for :func:`xgboost.train` / :func:`xgboost.cv`: several
    metrics and cutoffs, bounds, exact means over queries.
:func:`make_eval_metric`
    One metric for ``XGBRanker(eval_metric=...)``; see "The scikit-learn API" below.
:func:`early_stopping`
    ``xgb.callback.EarlyStopping`` on one of our metrics, always maximising.
:func:`builtin_metric`
    XGBoost's own ``ndcg@k`` / ``map@k`` / ``pre@k`` on arbitrary scores, for side-by-side checks.

XGBoost's conventions, reproduced by default
--------------------------------------------
* ``ndcg@k``: exponential gain ``2**label - 1`` (XGBoost's ``ndcg_exp_gain=True``), discount
  ``1 / log2(rank + 1)``; a query whose ideal DCG is 0 scores 1 (XGBoost's ``ndcg@k-`` scores
  it 0: ``empty=0.0``).
* ``map@k``: average precision over the top k divided by ``min(k, R)``, R the relevant rows of the
  query (``denominator="min_k_relevant"``); no relevant row scores 1.
* ``pre@k``: relevant rows in the top k divided by ``min(k, n_q)``, the query's length when it is
  shorter than k (``precision_denominator="min_k_size"``); no relevant row scores 0. Ours is
  named ``"precision@k"``.
* ``empty=None`` (default) applies these rules per metric: 1.0, but 0.0 for precision.
* XGBoost's ``map`` and ``pre`` accept binary labels only; ours take graded labels and count
  ``label >= threshold`` as relevant (threshold 1, identical on binary labels).
* Weights of a ranking DMatrix are one per query (XGBoost's rule); the value is their weighted
  mean over queries. (XGBoost's own weighted ``ndcg`` adds a query without relevant rows as 1.0
  without its weight; we weight every query alike, so the two differ when such queries exist:
  a UserWarning says so once per DMatrix, unless their weights sum to their count.)

The scikit-learn API (``XGBRanker``)
------------------------------------
``XGBRanker`` wraps a callable ``eval_metric`` with ``xgboost.sklearn.ltr_metric_decorator``
(XGBoost >= 2.0): the callable is called as ``f(y_true, y_score)`` **once per query** of the
evaluation set (boundaries from ``eval_qid`` / ``eval_group``), so an evaluation set is never
scored as one query. XGBoost then aggregates the per-query values itself: a single-row query
counts 1.0 without calling ``f``, and the mean is weighted by the number of rows of each query
(``np.average(scores, weights=dmatrix.get_group())`` in XGBoost 3.2). :class:`EvalMetric`
computes each query's value with the core; the reported number is therefore XGBoost's row-weighted
mean of exact per-query values, not the plain mean over queries of :func:`make_custom_metric`.
For the plain mean use :func:`xgboost.train` with :func:`make_custom_metric` (or
``rankmetrics.sklearn.QueryGroupRanker(XGBRanker(...), early_stopping=True)``). ``XGBRegressor``
and ``XGBClassifier`` pass the whole evaluation set to the callable without query boundaries;
:class:`EvalMetric` detects this call and raises instead of scoring the set as one query.

``XGBRanker(early_stopping_rounds=n)`` picks the direction from the metric *name*: names starting
with ``ndcg``, ``map`` or ``pre`` are maximised, every other name (``ap``, ``mrr``, ``recall``,
``dcg``, ...) minimised. For those pass ``callbacks=[early_stopping(n, metric)]`` instead.
"""

from __future__ import annotations

import json
import math
import numbers
import sys
import warnings
import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .core.gains import DiscountLike, GainLike
from .core.plan import (
    PRECISION_DENOMINATORS,
    QueryPlan,
    parse_metric,
    warn_weighted_empty_ndcg,
    weighted_mean,
)
from .core.validation import as_float64, check_choice, real_host_array, refuse_masked
from .lightgbm import _BOUNDS, _refuse_empty_groups, _TieAwareMetric

if TYPE_CHECKING:  # pragma: no cover
    import xgboost

__all__ = [
    "CustomMetric",
    "EvalMetric",
    "builtin_metric",
    "early_stopping",
    "make_custom_metric",
    "make_eval_metric",
]

#: Metric-name prefixes that XGBoost's EarlyStopping maximises when ``maximize`` is not given.
_XGB_MAXIMIZED = ("auc", "aucpr", "pre", "map", "ndcg")


def _xgboost_maximizes(name: str) -> bool:
    """Whether XGBoost's ``EarlyStopping`` without ``maximize`` maximises the metric ``name``:
    its guess in ``xgboost.callback`` (a prefix of :data:`_XGB_MAXIMIZED`, and not ``mape``)."""
    return name != "mape" and name.startswith(_XGB_MAXIMIZED)


def _import_xgboost() -> Any:
    try:
        import xgboost as xgb
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            'rankmetrics.xgboost needs XGBoost: pip install "rankmetrics[xgboost]"'
        ) from exc
    return xgb


class _Entry:
    """Label-side state of one DMatrix: plan and query weights, and the labels, group pointer
    and weights read from it (compared at every call: a DMatrix's ``set_label``,
    ``set_group`` / ``set_qid`` and ``set_weight`` change them in place)."""

    __slots__ = ("plan", "query_weight", "source")

    def __init__(self, plan: QueryPlan, query_weight: NDArray[np.float64] | None,
                 source: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        self.plan = plan
        self.query_weight = query_weight
        self.source = source


def _dmatrix_source(dmatrix: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(labels, group_ptr, weights) of a DMatrix, as XGBoost returns them (copies: [mem] 4
    bytes per row kept; one pass over the rows per call)."""
    return (dmatrix.get_label(), np.asarray(dmatrix.get_uint_info("group_ptr")),
            dmatrix.get_weight())


def _read_dmatrix(dmatrix: Any, source: tuple[np.ndarray, np.ndarray, np.ndarray]
                  ) -> _Entry:
    """Build the plan of a DMatrix from its labels, ``group_ptr`` and (per-query) weights."""
    labels, ptr, w = source
    ptr = ptr.astype(np.int64)
    if ptr.size < 2:
        raise ValueError(
            "the DMatrix has no query groups; ranking metrics need them: "
            "xgb.DMatrix(X, label=y, qid=qid) (or group=sizes), "
            "XGBRanker.fit(..., eval_set=[(X, y)], eval_qid=[qid])"
        )
    sizes = np.diff(ptr)
    _refuse_empty_groups(sizes, "XGBoost", "the DMatrix's query groups (group=)")
    if int(ptr[-1]) != labels.shape[0]:
        raise ValueError(
            f"the DMatrix's query groups cover {int(ptr[-1])} rows but it has "
            f"{labels.shape[0]} labels"
        )
    plan = QueryPlan.from_group_sizes(labels, sizes)
    qw: NDArray[np.float64] | None = None
    if w.size:
        if w.size != sizes.size:
            raise ValueError(
                f"a ranking DMatrix needs one weight per query ({sizes.size}); it has {w.size} "
                "(XGBoost's rule for ranking: weights are per query group)"
            )
        qw = np.asarray(w, dtype=np.float64)
    return _Entry(plan, qw, source)


class _DMatrixCache:
    """Plans keyed by the DMatrix object itself (weakly: a collected DMatrix drops its plan)."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self.entries: weakref.WeakKeyDictionary[Any, _Entry] = weakref.WeakKeyDictionary()
        self.builds = 0

    def get(self, dmatrix: Any) -> _Entry:
        entry = self.entries.get(dmatrix)
        source = _dmatrix_source(dmatrix)
        if entry is not None and all(
                a.shape == b.shape and np.array_equal(a, b)
                for a, b in zip(entry.source, source, strict=True)):
            return entry
        entry = _read_dmatrix(dmatrix, source)
        self.builds += 1
        if len(self.entries) >= self.maxsize:
            self.entries.pop(next(iter(self.entries)), None)
        self.entries[dmatrix] = entry
        return entry

    def clear(self) -> None:
        self.entries.clear()

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return (_DMatrixCache, (self.maxsize,))  # plans are never copied or pickled


class _XGBoostMetric(_TieAwareMetric):
    """Shared configuration: the LightGBM adapter's options plus ``precision_denominator``."""

    def __init__(self, metrics: str | Iterable[str] = "ndcg",
                 k: int | None | Sequence[int | None] = None, *,
                 precision_denominator: str = "min_k_size", **options: Any) -> None:
        # empty=None: XGBoost's rules, 1 for a query without relevant rows, but 0 for pre@k
        self._xgboost_empty = options.get("empty") is None
        if self._xgboost_empty:
            options["empty"] = 1.0
        options.setdefault("denominator", "min_k_relevant")
        options.setdefault("threshold", 1.0)  # XGBoost's map / pre take binary labels only
        cache_size = options.get("cache_size", 16)
        super().__init__(metrics, k, **options)
        self._zero_empty = [m for m in self.metrics if parse_metric(m)[0] == "precision"] \
            if self._xgboost_empty else []
        self.precision_denominator = check_choice(
            "precision_denominator", precision_denominator, PRECISION_DENOMINATORS)
        self._dcache = _DMatrixCache(int(cache_size))

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_dcache"] = _DMatrixCache(self._dcache.maxsize)
        return state

    def __repr__(self) -> str:
        empty = "None (XGBoost's rules)" if self._xgboost_empty else repr(self.empty)
        return (f"{type(self).__name__}(metrics={self.metrics!r}, ties={self.ties!r}, "
                f"gain={self.gain!r}, empty={empty}, bounds={self.bounds})")

    def clear_cache(self) -> None:
        """Drop every cached plan."""
        super().clear_cache()
        self._dcache.clear()

    def _core_kwargs(self) -> dict[str, Any]:
        kw = super()._core_kwargs()
        kw["precision_denominator"] = self.precision_denominator
        return kw

    def _values(self, plan: QueryPlan, preds: ArrayLike, name: str = "y_score"
                ) -> dict[str, NDArray[np.float64]]:
        """Values of every reported name (name -> (n_queries,) float64) for ``preds``, one
        score per row of ``plan``: shape (n_rows,), or 2-D holding n_rows values. Errors for
        bad scores name ``name``, the host's name for them (see ``_checked``)."""
        return self._checked(preds, plan.n_rows, name,
                             lambda scores: self._ranked_values(plan, scores), one_column=True)

    def _ranked_values(self, plan: QueryPlan, preds: np.ndarray
                       ) -> dict[str, NDArray[np.float64]]:
        kw = self._core_kwargs()
        # a measure with its own ties= (e.g. "nDCG(ties=stable)@10") ranks the scores itself
        # used within this call: plan._rank keeps no copy of XGBoost's prediction buffer
        ranking: Any = preds if self._own_ties else plan._rank(preds, self._depth, self.ties)
        values = self._evaluate(plan, ranking, self.ties, kw, self.metrics)
        out = {self.prefix + m: values[m] for m in self.metrics}
        if self.bounds:
            # one ordering serves all tie rules except "stable", which fixes row order
            tied = ranking if not self._own_ties and self.ties != "stable" else plan._rank(
                preds, self._depth, "average")
            for rule in _BOUNDS:
                vals = self._evaluate(plan, tied, rule, kw, self._bound_metrics)
                out.update({f"{self.prefix}{m}_{rule}": vals[m] for m in self.metrics})
        return {n: out[n] for n in self.names}

    def _evaluate(self, plan: QueryPlan, ranking: Any, ties: str, kw: dict[str, Any],
                  metrics: list[Any]) -> dict[str, NDArray[np.float64]]:
        """Values of ``metrics`` (names, or measures of the bounds keyed by the same names)."""
        values = plan.evaluate(ranking, metrics, ties=ties, **kw)
        zero = [m for m in metrics if str(m) in self._zero_empty]
        if zero:
            values.update(plan.evaluate(ranking, zero, ties=ties, **{**kw, "empty": 0.0}))
        return values


class CustomMetric(_XGBoostMetric):
    """Tie-aware ranking metrics as XGBoost's ``custom_metric(predt, dmatrix)``.

    Build it with :func:`make_custom_metric`; the parameters are documented there.

    Attributes
    ----------
    names : list of str
        The metric names it reports, in order (XGBoost's ``EarlyStopping`` without
        ``metric_name`` watches the *last* one: pass ``metric_name`` or use :func:`early_stopping`).
    """

    def per_query(self, predt: ArrayLike, dmatrix: xgboost.DMatrix) -> dict[str, Any]:
        """Per-query values behind :meth:`__call__`: name -> array of shape (n_queries,), in the
        DMatrix's query order (NaN for queries left out by ``empty="skip"``)."""
        entry = self._dcache.get(dmatrix)
        return self._values(entry.plan, predt, "predt")

    def query_weights(self, dmatrix: xgboost.DMatrix) -> NDArray[np.float64]:
        """The weight of each query of ``dmatrix`` in the mean, shape (n_queries,), float64:
        its per-query weights, else ones."""
        entry = self._dcache.get(dmatrix)
        if entry.query_weight is None:
            return np.ones(entry.plan.n_queries)
        return entry.query_weight

    def __call__(self, predt: ArrayLike, dmatrix: xgboost.DMatrix) -> list[tuple[str, float]]:
        """Evaluate one round's predictions on one evaluation DMatrix.

        Parameters
        ----------
        predt : ndarray of shape (n_rows,)
            Predictions of the rows of ``dmatrix`` (higher ranks first).
        dmatrix : xgboost.DMatrix
            With labels and query groups (``qid=`` or ``group=``); its weights, one per query,
            weight the mean.

        Returns
        -------
        list of (str, float)
            ``(name, (weighted) mean over queries)`` for every name of :attr:`names`.

        Raises
        ------
        ValueError
            The DMatrix has no query groups or a group of size 0 (XGBoost scores it 1.0),
            weights that are not one per query, or labels/scores the core rejects
            (negative labels with exponential gain, NaN scores, a prediction length other than
            the row count).
        TypeError
            ``dmatrix`` is not a DMatrix (the metric was given to ``XGBRanker(eval_metric=...)``,
            which calls it per query with label arrays: use :func:`make_eval_metric` there).

        Warns
        -----
        UserWarning
            At the first evaluation of a training whose Booster has a built-in ``eval_metric``
            named as one of :attr:`names`: XGBoost records both values under one name.
            At the first evaluation of a training whose Booster's ``ndcg_exp_gain`` (of its
            built-in ndcg metric, else of its ranking objective) is not the gain of an nDCG
            output left at the default gain or given ``label_gain``: XGBoost's ndcg differs.
            At the first evaluation of a training whose ``xgb.callback.EarlyStopping``
            (``early_stopping_rounds`` without ``maximize=True``) would minimise one of
            :attr:`names` (XGBoost maximises only names starting with ndcg, map, pre, auc).
        """
        if not hasattr(dmatrix, "get_uint_info"):
            raise TypeError(
                f"{type(self).__name__} takes (predt, DMatrix), as xgb.train(custom_metric=...) "
                f"passes them; got a {type(dmatrix).__name__} for the DMatrix. For "
                "XGBRanker(eval_metric=...) use rankmetrics.xgboost.make_eval_metric"
            )
        caller = sys._getframe(1)  # a Booster's eval_set: each training checked once
        if str(caller.f_globals.get("__name__", "")).startswith("xgboost.") \
                and self._new_booster(caller.f_locals.get("self")):
            self._warn_builtin_names(caller.f_locals.get("self"))
            self._warn_minimising_stopper(caller)
        entry = self._dcache.get(dmatrix)
        values = self._values(entry.plan, predt, "predt")
        nq = entry.plan.n_queries
        if entry.query_weight is not None:
            warn_weighted_empty_ndcg(entry.plan, entry.query_weight, self.metrics, self.gain,
                                     self.empty, "XGBoost", self._empty_checked)
        return [(name, weighted_mean(v, entry.query_weight, nq)) for name, v in values.items()]

    def _warn_builtin_names(self, booster: Any) -> None:
        """Warn when the evaluating Booster has a built-in metric of one of our names: XGBoost
        appends both values to one history (``evals_result``, ``xgb.cv``, early stopping)."""
        try:
            learner = json.loads(booster.save_config())["learner"]
            metrics = learner["metrics"]
            builtin = {str(m["name"]) for m in metrics}
        except Exception:  # not a Booster, or another config layout: nothing to compare
            return
        self._warn_xgboost_gain(learner)
        clash = sorted(set(self.names) & builtin)
        if clash:
            warnings.warn(
                f"custom metric outputs {clash} have the names of XGBoost's built-in "
                "eval_metric of this Booster: XGBoost records both values under one name "
                "(evals_result, xgb.cv, early stopping); give ours a prefix "
                "(make_custom_metric(..., prefix='tie_')) or drop the built-in one",
                UserWarning, stacklevel=3,
            )

    def _warn_minimising_stopper(self, frame: Any) -> None:
        """Warn when an ``xgb.callback.EarlyStopping`` of this training (``xgb.train`` /
        ``xgb.cv``'s ``early_stopping_rounds``, or one in ``callbacks``) will minimise one of our
        metrics: without ``maximize`` XGBoost guesses the direction from the name, and only
        names starting with ``ndcg``, ``map``, ``pre`` or ``auc`` are maximised (not ``mrr``,
        ``recall@10`` or a prefixed ``tie_ndcg@10``), so it keeps the worst round."""
        xgb = sys.modules.get("xgboost")
        container_type = getattr(getattr(xgb, "callback", None), "CallbackContainer", None)
        stopper_type = getattr(getattr(xgb, "callback", None), "EarlyStopping", None)
        if container_type is None or stopper_type is None:
            return
        container = None
        for _ in range(6):  # Booster.eval_set <- (CVPack.eval <-) CallbackContainer
            frame = frame.f_back
            if frame is None:
                return
            candidate = frame.f_locals.get("self")
            if isinstance(candidate, container_type):
                container = candidate
                break
        if container is None or getattr(container, "metric", None) is not self:
            return
        for cb in getattr(container, "callbacks", ()):
            if not isinstance(cb, stopper_type):
                continue
            watched = getattr(cb, "metric_name", None) or self.names[-1]  # XGBoost: the last
            if watched not in self.names:
                continue
            maximize = getattr(cb, "maximize", None)
            if maximize is None:  # XGBoost's guess from the name (xgboost.callback)
                maximize = _xgboost_maximizes(watched)
            if not maximize:
                warnings.warn(
                    f"XGBoost's early stopping will minimise {watched!r} (without maximize it "
                    "maximises only names starting with ndcg, map, pre or auc), keeping the "
                    "worst round; pass maximize=True to xgb.train / xgb.cv or use "
                    "callbacks=[rankmetrics.xgboost.early_stopping(rounds, metric)]",
                    UserWarning, stacklevel=3,
                )

    def _warn_xgboost_gain(self, learner: Any) -> None:
        """Warn when the Booster's ``ndcg_exp_gain`` (its built-in ndcg metric's, else its
        ranking objective's) is not the gain of our nDCG outputs: XGBoost's ndcg differs."""
        exp_gain = True
        try:
            params = [m.get("lambdarank_param", {}) for m in learner["metrics"]]
            params.append(learner.get("objective", {}).get("lambdarank_param", {}))
            flag = next((p["ndcg_exp_gain"] for p in params if "ndcg_exp_gain" in p), "1")
            exp_gain = str(flag).strip().lower() not in ("0", "false")
        except Exception:  # another config layout: nothing to compare
            return
        names = self._gain_mismatch(
            (lambda i: 2.0 ** i - 1.0) if exp_gain else float, 32)
        if names:
            shown = "2**label - 1" if exp_gain else "the label (ndcg_exp_gain=False)"
            hint = "" if exp_gain else ' (gain="linear")'
            warnings.warn(
                f"custom metric outputs {names} use a gain other than the Booster's ({shown}): "
                "XGBoost's own ndcg of these params differs from ours; give "
                f"make_custom_metric the Booster's gain{hint} to match it",
                UserWarning, stacklevel=4,
            )


class EvalMetric(_XGBoostMetric):
    """One tie-aware metric for ``XGBRanker(eval_metric=...)``, called once per query.

    XGBoost's ranker calls it as ``f(y_true, y_score)`` on the rows of one query and averages
    the results itself (see the module notes: single-row queries count 1.0, the mean is
    weighted by query size). Its ``__name__`` is the reported metric name. Build it with
    :func:`make_eval_metric`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if len(self.metrics) != 1 or self.bounds:
            raise ValueError(
                "XGBRanker takes one custom metric returning one value: give one metric and "
                f"one cutoff, without bounds (got {self.names}); use make_custom_metric with "
                "xgb.train for several"
            )
        if self.empty == "skip":
            raise ValueError("empty='skip' cannot be used with XGBRanker (it averages every "
                             "query); use a number")
        self.__name__ = self.names[0]

    def __call__(self, y_true: ArrayLike, y_score: ArrayLike,
                 sample_weight: ArrayLike | None = None) -> float:
        """Value of the metric on the rows of one query.

        Parameters
        ----------
        y_true : ndarray of shape (n_rows,)
            Labels of one query's rows.
        y_score : ndarray of shape (n_rows,)
            Scores of those rows.
        sample_weight : array-like, optional
            Never given by ``XGBRanker`` (it weighs the per-query values itself); XGBoost's
            regressors and classifiers pass it with evaluation weights, which raises.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            Called by ``XGBRegressor`` / ``XGBClassifier``, which pass the whole evaluation
            set without query boundaries; ``y_true`` not one label per row (2-D, empty); or
            inputs the core rejects.
        """
        caller = sys._getframe(1)
        if sample_weight is not None or (caller.f_globals.get("__name__") == "xgboost.sklearn"
                                         and caller.f_code.co_name == "inner"):
            raise ValueError(
                f"{self.__name__}: XGBoost passed the whole evaluation set without query "
                "boundaries (XGBRegressor/XGBClassifier eval_metric); a ranking metric cannot "
                "score it as one query. Use XGBRanker(eval_metric=...) with eval_qid, or "
                "xgb.train(custom_metric=make_custom_metric(...)) on a DMatrix with qid"
            )
        refuse_masked(y_true, "y_true")  # np.asarray would read the hidden labels
        y = np.asarray(y_true)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.reshape(-1)
        if y.ndim != 1 or y.size == 0:
            raise ValueError(f"{self.__name__}: y_true must be one label per row of one query "
                             f"(1-D, not empty); got shape {y.shape}")
        plan = QueryPlan.from_group_sizes(y, [y.shape[0]])
        return float(self._values(plan, y_score)[self.__name__][0])

    @property
    def xgboost_maximizes(self) -> bool:
        """Whether ``XGBRanker(early_stopping_rounds=...)`` maximises this name (it guesses the
        direction from the name's prefix); if False, stop with :func:`early_stopping`."""
        return _xgboost_maximizes(self.__name__)


_FACTORY_DOC = """
    Parameters
    ----------
    metrics : str or iterable of str, default "ndcg"
        Core metric names: ``"ndcg"``, ``"dcg"``, ``"cg"``, ``"ncg"``, ``"precision"``/``"p"``,
        ``"recall"``/``"r"``, ``"f1"``, ``"fbeta"``, ``"ap"``/``"map"``, ``"rr"``/``"mrr"``; a
        name with its own cutoff (``"map@100"``) keeps it, the others get every cutoff of ``k``.
    k : int, None or sequence of them, default None
        Cutoffs, e.g. ``(1, 3, 5, 10)``; None is the whole list (name without ``@``), as
        XGBoost's own ``ndcg`` / ``map`` without ``@k``: a cutoff comes only from the name or
        ``k``, as in every entry point.
    ties : {"average", "optimistic", "pessimistic", "stable"}, default "average"
        Tie rule. "average" is the exact mean over all orderings of tied scores; "stable" is
        row order within ties, XGBoost's built-in behaviour.
    gain : str, sequence, mapping or callable, default "exponential"
        As in the core: "exponential" is ``2**label - 1`` (XGBoost's ``ndcg_exp_gain=True``);
        "linear" is the label itself (``ndcg_exp_gain=False``). Left at the default, a
        :func:`make_custom_metric` nDCG evaluated by a Booster with ``ndcg_exp_gain=False``
        warns (first round).
    label_gain : sequence of float, optional
        Gain of integer label ``i`` is ``label_gain[i]`` (instead of ``gain``).
    discount, log_base : default "log", 2
        Rank discount; the default ``1 / log2(rank + 1)`` is XGBoost's.
    threshold : float, default 1
        Binary metrics: relevant iff ``label >= threshold``.
    beta : float, default 1.0
        For ``"fbeta"``.
    empty : float, "skip", "error" or None, default None
        Value of a query without relevant documents (nDCG/nCG: ideal gain 0; binary metrics:
        no label >= threshold). None is XGBoost's rules: 1.0 (its ``ndcg``/``map``), except
        precision, 0.0 (its ``pre``). A number or "skip" (leave such queries out of the mean)
        applies to every metric; 0.0 is XGBoost's ``ndcg-``/``map-``.
    denominator : {"relevant", "min_k_relevant", "found"}, default "min_k_relevant"
        Average-precision denominator; ``min(k, R)`` is XGBoost's ``map@k``.
    precision_denominator : {"k", "min_k_size"}, default "min_k_size"
        Precision denominator; ``min(k, n_q)`` is XGBoost's ``pre@k``.
    bounds : bool, default False
        Also report, for every metric, ``<name>_optimistic`` and ``<name>_pessimistic``: the
        best and worst value over all orderings of the tied scores (after the main values).
    prefix : str, default ""
        Prepended to every name (no whitespace), e.g. ``"tie_"`` when XGBoost's built-in
        metric of the same name is also on (``eval_metric="ndcg@10"``): XGBoost would append
        both values to one history list (:class:`CustomMetric` warns when it sees this).
    cache_size : int, default 16
        DMatrix objects whose label-side plan is kept.

    Raises
    ------
    ValueError
        Unknown metric, gain, discount, tie or empty rule, denominators; non-positive cutoffs;
        a ``k`` that no name takes; duplicate names; whitespace in ``prefix``; ``gain``
        together with ``label_gain``.
    TypeError
        Non-integer cutoffs, non-string metric names, non-boolean ``bounds``.
"""


def _eval_metric_doc(doc: str) -> str:
    """``_FACTORY_DOC`` for :func:`make_eval_metric`: one name, one cutoff, no bounds."""
    edits = [
        ("metrics : str or iterable of str", "metric : str"),
        ('empty : float, "skip", "error" or None', 'empty : float, "error" or None'),
        ("the others get every cutoff of ``k``.", "the others get the cutoff ``k``."),
        ("    k : int, None or sequence of them, default None\n"
         "        Cutoffs, e.g. ``(1, 3, 5, 10)``; None",
         "    k : int or None, default None\n"
         "        Cutoff, e.g. ``10``; None"),
        ("A number or \"skip\" (leave such queries out of the mean)\n"
         "        applies to every metric;", "A number applies to every metric;"),
        ("\n    cache_size : int, default 16\n"
         "        DMatrix objects whose label-side plan is kept.\n", "\n"),
        ("a ``k`` that no name takes;", "several names or cutoffs; ``empty=\"skip\"``;"),
        (", non-boolean ``bounds``.", "."),
    ]
    head, sep, tail = doc.partition("    bounds : bool, default False\n")
    if not sep:
        raise AssertionError("bounds")
    doc = head + tail[tail.index("    prefix :"):]
    for old, new in edits:
        if old not in doc:
            raise AssertionError(old)
        doc = doc.replace(old, new)
    return doc


def make_custom_metric(
    metrics: str | Iterable[str] = "ndcg",
    k: int | None | Sequence[int | None] = None,
    *,
    ties: str = "average",
    gain: GainLike = "exponential",
    label_gain: Sequence[float] | None = None,
    discount: DiscountLike = "log",
    log_base: float = 2,
    threshold: float = 1,
    beta: float = 1.0,
    empty: float | str | None = None,
    denominator: str = "min_k_relevant",
    precision_denominator: str = "min_k_size",
    bounds: bool = False,
    prefix: str = "",
    cache_size: int = 16,
) -> CustomMetric:
    return CustomMetric(metrics, k, ties=ties, gain=gain, label_gain=label_gain,
                        discount=discount, log_base=log_base, threshold=threshold, beta=beta,
                        empty=empty, denominator=denominator,
                        precision_denominator=precision_denominator, bounds=bounds,
                        prefix=prefix, cache_size=cache_size)


make_custom_metric.__doc__ = (
    """Tie-aware ranking metrics for ``xgb.train(..., custom_metric=...)``.

    The returned :class:`CustomMetric` is called by XGBoost as ``custom_metric(predt, dmatrix)``
    once per evaluation set and round; it reads labels, query boundaries (``group_ptr``) and
    per-query weights from the DMatrix and returns ``[(name, value), ...]``.
"""
    + _FACTORY_DOC
    + """
    Returns
    -------
    CustomMetric

    Notes
    -----
    The label-side plan (query layout, gains, ideal DCG per cutoff) is built on the first call
    for a DMatrix and kept while that DMatrix lives (weak reference). Each later call ranks the
    scores once (only the top ``max(k)`` when every metric has a cutoff) and evaluates all
    metrics on that ranking. Every call compares the DMatrix's labels, query groups and
    weights with the plan's (one pass over the rows, inside the per-round figures of
    ``benchmarks/bench_xgboost_feval.py``): a plan is rebuilt after
    ``set_label``, ``set_group`` / ``set_qid`` or ``set_weight``.

    nDCG@k of query q with tie rule "average" (McSherry & Najork 2008, eq. 6): the DCG over the
    top k with each tie group's gains replaced by their mean, divided by the ideal DCG@k.

    References
    ----------
    McSherry, F., & Najork, M. (2008). Computing information retrieval performance measures
    efficiently in the presence of tied scores. ECIR 2008, LNCS 4956, 414-421.

    Examples
    --------
    >>> import numpy as np
    >>> import xgboost as xgb
    >>> from rankmetrics.xgboost import make_custom_metric
    >>> metric = make_custom_metric("ndcg", k=(1, 3), bounds=True)
    >>> metric.names
    ['ndcg@1', 'ndcg@3', 'ndcg@1_optimistic', 'ndcg@1_pessimistic', \
'ndcg@3_optimistic', 'ndcg@3_pessimistic']
    >>> d = xgb.DMatrix(np.zeros((5, 1)), label=[2, 0, 0, 1, 0], qid=[0, 0, 0, 1, 1])
    >>> [(n, round(v, 4)) for n, v in metric(np.array([0.5, 0.5, 0.5, 0.1, 0.2]), d)][:4]
    [('ndcg@1', 0.1667), ('ndcg@3', 0.6706), ('ndcg@1_optimistic', 0.5), \
('ndcg@1_pessimistic', 0.0)]
"""
)


def make_eval_metric(
    metric: str = "ndcg",
    k: int | None = None,
    *,
    ties: str = "average",
    gain: GainLike = "exponential",
    label_gain: Sequence[float] | None = None,
    discount: DiscountLike = "log",
    log_base: float = 2,
    threshold: float = 1,
    beta: float = 1.0,
    empty: float | str | None = None,
    denominator: str = "min_k_relevant",
    precision_denominator: str = "min_k_size",
    prefix: str = "",
) -> EvalMetric:
    return EvalMetric(metric, k, ties=ties, gain=gain, label_gain=label_gain,
                      discount=discount, log_base=log_base, threshold=threshold, beta=beta,
                      empty=empty, denominator=denominator,
                      precision_denominator=precision_denominator, prefix=prefix)


make_eval_metric.__doc__ = (
    """One tie-aware metric for ``XGBRanker(eval_metric=...)``.

    XGBoost's ranker calls the returned :class:`EvalMetric` once per query of each evaluation
    set (boundaries from ``eval_qid`` / ``eval_group``) and averages the values itself: it
    counts a single-row query as 1.0 and weights each query by its row count (XGBoost 3.x). For
    the plain mean over queries, several metrics or bounds use :func:`make_custom_metric` with
    :func:`xgboost.train`. ``bounds`` and ``empty="skip"`` are not available here; ``metric``
    is one name and ``k`` one cutoff.
"""
    + _eval_metric_doc(_FACTORY_DOC)
    + """
    Returns
    -------
    EvalMetric
        Its ``__name__`` is the reported name. Passing it to ``XGBRegressor`` /
        ``XGBClassifier`` raises at the first evaluation (they give no query boundaries).

    Examples
    --------
    >>> from rankmetrics.xgboost import make_eval_metric
    >>> metric = make_eval_metric("ndcg", k=10)
    >>> metric.__name__, round(metric([2, 0, 0], [0.5, 0.5, 0.5]), 4)
    ('ndcg@10', 0.7103)
    >>> make_eval_metric("mrr", k=None).xgboost_maximizes  # use early_stopping(...) for it
    False
"""
)


def early_stopping(
    rounds: int,
    metric: str | _TieAwareMetric,
    *,
    data_name: str | None = None,
    min_delta: float = 0.0,
    save_best: bool = False,
) -> Any:
    """``xgb.callback.EarlyStopping`` on a tie-aware metric, maximising.

    Parameters
    ----------
    rounds : int
        Stop when the metric has not improved for this many rounds (``>= 1``).
    metric : str, CustomMetric or EvalMetric
        The reported name to watch (e.g. ``"tie_ndcg@10"``), or a metric object whose first
        name is used.
    data_name : str, optional
        Evaluation set to watch (its name in ``evals``; ``"validation_0"`` for the first
        ``eval_set`` of the scikit-learn API). Default: XGBoost's rule, the last set.
    min_delta : float, default 0.0
        Minimum improvement that counts.
    save_best : bool, default False
        Return the model truncated at the best iteration (XGBoost's option).

    Returns
    -------
    xgboost.callback.EarlyStopping
        With ``maximize=True`` (all our metrics are better when higher) and ``metric_name``
        set. At its first round it checks that the metric is reported once per round: a
        built-in metric of the same name would be merged into the same history (use
        ``prefix``). After training ``booster.best_iteration`` (0-based) and ``best_score``
        are set.

    Raises
    ------
    ValueError
        Bad ``rounds`` or ``min_delta``; at the first round, a metric reported twice per round
        or not at all.
    TypeError
        ``metric`` is neither a name nor a metric object.

    Examples
    --------
    >>> from rankmetrics.xgboost import early_stopping, make_custom_metric
    >>> cb = early_stopping(20, make_custom_metric("map", k=(5, 10), prefix="tie_"))
    >>> cb.metric_name, cb.maximize
    ('tie_map@5', True)
    """
    xgb = _import_xgboost()
    if isinstance(metric, _TieAwareMetric):
        name = metric.names[0]
    elif isinstance(metric, str) and metric:
        name = metric
    else:
        raise TypeError(f"metric must be a reported metric name or a metric object; "
                        f"got {metric!r}")
    if isinstance(rounds, bool) or not isinstance(rounds, numbers.Integral) or rounds < 1:
        raise ValueError(f"rounds must be an int >= 1; got {rounds!r}")
    if isinstance(min_delta, bool) or not isinstance(min_delta, numbers.Real) \
            or not math.isfinite(as_float64(min_delta, "min_delta")) or min_delta < 0:
        raise ValueError(f"min_delta must be a finite number >= 0; got {min_delta!r}")

    class _EarlyStopping(xgb.callback.EarlyStopping):  # type: ignore[misc, name-defined]
        def before_training(self, model: Any) -> Any:
            self._checked = False
            return super().before_training(model)

        def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
            if not self._checked:
                self._checked = True
                sets = [self.data] if self.data else list(evals_log)[-1:]
                for data in sets:
                    hist = evals_log.get(data, {})
                    if self.metric_name not in hist:
                        have = {d: list(m) for d, m in evals_log.items()}
                        raise ValueError(
                            f"early_stopping: metric {self.metric_name!r} is not reported on "
                            f"{data!r}; reported: {have}"
                        )
                    if len(hist[self.metric_name]) != 1:
                        raise ValueError(
                            f"metric {self.metric_name!r} is reported twice per round on "
                            f"{data!r}: a built-in eval_metric has the same name as a custom "
                            "one; give ours a prefix (make_custom_metric(..., prefix='tie_'))"
                        )
            return bool(super().after_iteration(model, epoch, evals_log))

    return _EarlyStopping(rounds=int(rounds), metric_name=name, data_name=data_name,
                          maximize=True, save_best=save_best, min_delta=float(min_delta))


def builtin_metric(
    y_true: ArrayLike,
    y_score: ArrayLike,
    qid: ArrayLike,
    metrics: str | Sequence[str] = "ndcg@10",
    *,
    weight: ArrayLike | None = None,
    ndcg_exp_gain: bool = True,
    nthread: int = 1,
) -> dict[str, float]:
    """XGBoost's own ranking metrics of arbitrary scores (ties kept in row order).

    A booster with zero trees and ``base_score=0`` predicts its DMatrix's ``base_margin``, so
    a DMatrix carrying ``base_margin=y_score`` evaluated by such a booster yields XGBoost's
    metric on exactly these scores.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Labels (binary for ``map`` / ``pre``, as XGBoost requires).
    y_score : array-like of shape (n_rows,)
        Scores.
    qid : array-like of shape (n_rows,)
        Query id of each row, rows of a query contiguous and ids sorted (XGBoost's rule).
    metrics : str or sequence of str, default "ndcg@10"
        XGBoost metric names: ``"ndcg@k"``, ``"map@k"``, ``"pre@k"``, ``"ndcg@k-"``, ...
    weight : array-like of shape (n_queries,), optional
        Query weights.
    ndcg_exp_gain : bool, default True
        XGBoost's parameter (False: linear gain).
    nthread : int, default 1

    Returns
    -------
    dict
        XGBoost metric name -> value (float64 parse of XGBoost's printed value).

    Raises
    ------
    ImportError
        XGBoost is not installed.
    xgboost.core.XGBoostError
        XGBoost's own checks (e.g. graded labels for ``map``).
    ValueError, TypeError
        A masked array with masked entries, or complex, date, text or record values, naming
        the argument (big-endian arrays are read in native byte order first).

    Examples
    --------
    >>> from rankmetrics.xgboost import builtin_metric
    >>> builtin_metric([2, 0, 0], [0.5, 0.5, 0.5], [0, 0, 0], "ndcg@1")  # first tied row wins
    {'ndcg@1': 1.0}
    >>> builtin_metric([0, 0, 2], [0.5, 0.5, 0.5], [0, 0, 0], "ndcg@1")
    {'ndcg@1': 0.0}
    """
    xgb = _import_xgboost()
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    # native byte order: a DMatrix reads a big-endian array's bytes as native ones (labels
    # 1.0 as 4.6e-320, qids regrouped), silently
    s = real_host_array(y_score, "y_score").astype(np.float64)
    d = xgb.DMatrix(np.zeros((s.shape[0], 1)), label=real_host_array(y_true, "y_true"),
                    qid=real_host_array(qid, "qid"), base_margin=s,
                    weight=None if weight is None else real_host_array(weight, "weight"))
    params = {"objective": "rank:ndcg", "eval_metric": names, "base_score": 0.0,
              "nthread": nthread, "ndcg_exp_gain": ndcg_exp_gain}
    booster = xgb.train(params, d, num_boost_round=0)
    out: dict[str, float] = {}
    for item in booster.eval(d, "d").split()[1:]:
        key, value = item.split(":")
        out[key[len("d-"):]] = float(value)
    return out


def _holdout_callback(X_val: Any, y_val: ArrayLike, sizes_val: ArrayLike, metric: str, *,
                      ties: str, rounds: int, tol: float, estimator: Any) -> Any:
    """Training callback for ``QueryGroupRanker(XGBRanker(...), early_stopping=True)``.

    XGBRanker's own ``eval_metric`` route averages per-query values weighted by query size (see
    the module notes), so the wrapper scores its held-out queries itself: every round it
    predicts them (XGBoost updates a cached DMatrix's predictions with the new trees only),
    takes the core's plain mean over queries with the core's default options, stops after
    ``rounds`` rounds without an improvement above ``tol`` and marks the best round as the
    booster's ``best_iteration`` (which ``XGBRanker.predict`` then uses).
    """
    xgb = _import_xgboost()
    plan = QueryPlan.from_group_sizes(y_val, sizes_val)
    params = estimator.get_params()

    class _Holdout(xgb.callback.TrainingCallback):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.curve: list[float] = []
            self.best_round = -1
            self._start = -1

        def before_training(self, model: Any) -> Any:
            self.dval = xgb.DMatrix(X_val, missing=params.get("missing", np.nan),
                                    enable_categorical=bool(params.get("enable_categorical")))
            self.curve, self.best_round, self._start = [], -1, -1
            return model

        def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
            pred = model.predict(self.dval, output_margin=True)
            # the core's mean over queries: queries a measure skips (empty="skip", NaN) are
            # left out, as on LightGBM's route and in the scorers
            value = weighted_mean(plan.evaluate(pred, metric, ties=ties)[metric], None,
                                  plan.n_queries)
            self.curve.append(value)
            i = len(self.curve) - 1
            if self.best_round < 0 or value > self.curve[self.best_round] + tol:
                self.best_round = i
            if self._start < 0:
                self._start = epoch
            return i - self.best_round >= rounds

        def after_training(self, model: Any) -> Any:
            if self.best_round >= 0:
                model.set_attr(best_iteration=str(self._start + self.best_round),
                               best_score=repr(self.curve[self.best_round]))
            del self.dval
            return model

        def __deepcopy__(self, memo: dict[int, Any]) -> Any:
            return self  # its curve must be readable after fit

    return _Holdout()
