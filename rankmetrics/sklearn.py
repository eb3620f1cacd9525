"""scikit-learn integration: query-aware ranking scorers and a group-size wrapper for rankers.

scikit-learn's own ``ndcg_score`` needs a padded ``(n_queries, n_labels)`` matrix and cannot see
query ids, and rankers such as ``lightgbm.LGBMRanker`` need ``group`` sizes that cross-validation
cannot slice. This module fixes both through scikit-learn's metadata routing (SLEP006):

- :func:`make_ranking_scorer` (and :func:`ranking_scorers`, :data:`ndcg_scorer`, ...) build
  ``make_scorer`` scorers that receive the per-row query ids of the evaluated rows (already
  sliced to the test fold) and call the core ``rankmetrics.*_score`` functions on them.
- :class:`QueryGroupRanker` wraps any ranker whose ``fit`` wants group sizes: it receives per-row
  query ids through routing, sorts the rows by query and passes the sizes on.

**Metadata keys.** Scorers and :class:`QueryGroupRanker` request two keys by default:
``groups`` (scikit-learn's standard key, the one ``GroupKFold`` / ``GroupShuffleSplit`` already
consume) and ``qid`` (explicit query ids). ``qid`` wins when both are given. Passing only
``groups`` is the recommended setup, because one array then drives the splitter, the ranker and
the scorer, and grouped splitters keep each query whole::

    sklearn.set_config(enable_metadata_routing=True)
    cross_validate(est, X, y, cv=GroupKFold(5), scoring=ndcg_scorer, params={"groups": qid})
    GridSearchCV(est, grid, cv=GroupKFold(5), scoring=ndcg_scorer).fit(X, y, groups=qid)

Pass ``qid`` as well when the CV groups are coarser than queries (e.g. split by user, several
queries per user): ``params={"groups": user_id, "qid": qid}``.

Requires scikit-learn >= 1.6.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import sys
import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import scipy.sparse as sp
import sklearn
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.metrics import make_scorer
from sklearn.utils import _safe_indexing, check_random_state, get_tags
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.validation import check_consistent_length, check_is_fitted, validate_data

from .core.options import MetricOptions
from .core.plan import (
    QueryPlan,
    core_metric,
    parse_metric,
    query_weights_of_rows,
    weighted_mean,
)
from .core.validation import (
    as_float64,
    check_flag,
    check_k,
    check_qid,
    check_ties,
    check_weights,
    flatten_inputs,
)
from .measures.grammar import Measure, parse_measure

try:  # scikit-learn's make_scorer class (private; checked against 1.9): for the split check
    from sklearn.metrics._scorer import _Scorer
except ImportError:  # pragma: no cover - depends on the scikit-learn version
    _Scorer = None

__all__ = [
    "QueryGroupRanker",
    "RankingCVWarning",
    "make_ranking_scorer",
    "ranking_scorers",
    "ndcg_scorer",  # noqa: F822 (built at each access: __getattr__)
    "ndcg_at_10_scorer",  # noqa: F822 (built at each access: __getattr__)
    "map_scorer",  # noqa: F822 (built at each access: __getattr__)
    "mrr_scorer",  # noqa: F822 (built at each access: __getattr__)
]

_MIN_SKLEARN = (1, 6)


def _sklearn_version() -> tuple[int, int]:
    parts = sklearn.__version__.split(".")
    try:
        return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)
    except (IndexError, ValueError):  # pragma: no cover - exotic version strings
        return _MIN_SKLEARN


if _sklearn_version() < _MIN_SKLEARN:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"rankmetrics.sklearn needs scikit-learn >= 1.6 (metadata routing, validate_data, "
        f"estimator tags); found {sklearn.__version__}. Upgrade: pip install -U scikit-learn"
    )

#: options each core metric takes (besides ``ties``): what a scorer accepts as ``**options``
_OPTIONS: dict[str, tuple[str, ...]] = {
    "ndcg": ("gain", "discount", "log_base", "empty"),
    "dcg": ("gain", "discount", "log_base"),
    "ncg": ("gain", "empty"),
    "cg": ("gain",),
    "precision": ("threshold", "empty"),
    "recall": ("threshold", "empty"),
    "fbeta": ("threshold", "empty", "beta"),
    "ap": ("threshold", "empty", "denominator"),
    "rr": ("threshold", "empty"),
    "rprec": ("threshold", "empty"),
    "success": ("threshold", "empty"),
    "err": ("empty",),
    "rbp": ("empty",),
}
#: scikit-learn's conventions: ndcg/dcg scorers use linear gain, as sklearn.metrics.ndcg_score
#: and rankmetrics.ndcg_score / dcg_score (the other measures keep the core's defaults)
_DEFAULTS: dict[str, dict[str, Any]] = {"ndcg": {"gain": "linear"}, "dcg": {"gain": "linear"}}
_RESPONSE_METHODS = ("decision_function", "predict_proba", "predict")
_DEFAULT_RESPONSE = _RESPONSE_METHODS
_SPLIT_CHOICES = ("warn", "raise", "ignore")
_ROUTING_HINT = (
    "Enable metadata routing with sklearn.set_config(enable_metadata_routing=True) (or "
    "sklearn.config_context) and pass the per-row query ids: "
    "cross_validate(..., params={'groups': qid}) or GridSearchCV(...).fit(X, y, groups=qid)"
)


class RankingCVWarning(UserWarning):
    """Warning about query layout in ranking cross-validation.

    Issued for evaluated rows with single-row queries (whose metric value cannot depend on the
    scores) and for query ids that occur both in the training and in the test rows of a
    cross-validation fold (a splitter that cuts queries in two).
    """


#: Layouts already warned about (a search scores the same folds once per candidate).
_WARNED: set[tuple[Any, ...]] = set()
_WARNED_MAX = 4096


def _first_time(kind: str, ids: np.ndarray, *shape: int) -> bool:
    """True the first time a warning of ``kind`` is due for these query ids and row counts."""
    if ids.dtype.kind == "O":  # object ids (tz-aware datetimes): their bytes are addresses,
        # new ones at each slicing of a pandas column and reused after collection; their
        # repr identifies them
        digest = hashlib.sha1(repr(ids.tolist()).encode()).hexdigest()
    else:
        digest = hashlib.sha1(np.ascontiguousarray(ids).tobytes()).hexdigest()
    key = (kind, str(ids.dtype), digest, *shape)
    if key in _WARNED:
        return False
    if len(_WARNED) >= _WARNED_MAX:
        _WARNED.clear()
    _WARNED.add(key)
    return True


def _in_model_selection() -> bool:
    """Whether the scorer runs inside scikit-learn's cross-validation (``_fit_and_score``).

    Only there do the training and the scored rows come from one data set cut by a splitter;
    query ids shared with an independent evaluation set are just reused ids.
    """
    frame: Any = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__") == "sklearn.model_selection._validation":
            return True
        frame = frame.f_back
    return False


def _routing_enabled() -> bool:
    return bool(sklearn.get_config().get("enable_metadata_routing", False))


def _resolve_qid(
    qid: ArrayLike | None, groups: ArrayLike | None, who: str, direct: str
) -> ArrayLike:
    """The query ids to use: ``qid`` if given, else ``groups``; a clear error when neither is.

    ``direct`` shows how to pass the ids by hand (e.g. ``"fit(X, y, qid=qid)"``).
    """
    if qid is not None:
        return qid
    if groups is not None:
        return groups
    if not _routing_enabled():
        raise ValueError(
            f"{who} needs per-row query ids, but scikit-learn metadata routing is not enabled, "
            f"so none were passed. {_ROUTING_HINT}."
        )
    raise ValueError(
        f"{who} needs per-row query ids and got neither 'qid' nor 'groups'. Metadata routing "
        "is enabled; pass them with the data: cross_validate(..., params={'groups': qid}), "
        "cross_val_score(..., params={'groups': qid}), GridSearchCV(...).fit(X, y, groups=qid), "
        f"or {direct} when calling it directly."
    )


# ------------------------------------------------------------------------------------ scorers
def _ranking_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    qid: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    metric: Measure,
    name: str | None = None,
    **options: Any,
) -> float:
    """Score function behind every ranking scorer: mean over queries of a core measure.

    ``qid`` / ``groups`` are the routed per-row query ids of the evaluated rows; ``metric`` is a
    parsed measure, ``name`` the user's name for messages and ``options`` the keyword options of
    :meth:`rankmetrics.QueryPlan.evaluate`. ``sample_weight`` (per row, non-negative): a query
    weighs the mean of its rows' weights (LightGBM's rule, as the LightGBM adapter) in a
    weighted mean over queries.
    """
    label = metric.name if name is None else name
    who = f"ranking scorer {label!r}"
    if y_true is None:  # an unsupervised-style call (y=None) has nothing to rank against
        raise ValueError(f"{who}: y is None; a ranking scorer needs the rows' relevance labels")
    q_raw = _resolve_qid(qid, groups, who, "scorer(estimator, X, y, qid=qid)")
    q = check_qid(q_raw, _num_rows(y_true), "qid" if qid is not None else "groups")
    if tuple(getattr(y_true, "shape", ()))[1:] == (1,):
        # a column vector y (a one-column DataFrame), which scikit-learn's regressors take
        # too: one label per row, as the one-column response below is one score per row
        # (np.ravel keeps a masked array's mask for the core's check)
        y_true = np.ravel(y_true)
    scores = np.asarray(y_score)
    if scores.ndim == 2 and scores.shape[1] == 1:
        scores = scores.ravel()
    if scores.ndim != 1:
        raise ValueError(
            f"ranking scorer {label!r} needs one score per row, but the estimator's response "
            f"has shape {scores.shape}. Use a regressor or ranker (response_method='predict'), "
            "a binary classifier, or reduce the output to one column first."
        )
    uniq, inv, sizes = np.unique(q, return_inverse=True, return_counts=True)
    n_single = int(np.count_nonzero(sizes == 1))
    if n_single and _first_time("single", uniq[sizes == 1], q.shape[0], sizes.size):
        warnings.warn(
            f"ranking scorer {label!r}: {n_single} of {sizes.size} queries in the evaluated rows "
            "have a single row; their value does not depend on the model's scores. If the "
            "splitter cut queries apart, use GroupKFold or GroupShuffleSplit with groups=qid. "
            "(Shown once for these rows, not for every candidate of a search.)",
            RankingCVWarning,
            stacklevel=2,
        )
    qw = None
    if sample_weight is not None:
        qw = query_weights_of_rows(sample_weight, inv.ravel().astype(np.int64), sizes)
    return _mean(metric, y_true, scores, q, options, qw)


def _mean(metric: Measure, y_true: ArrayLike, y_score: ArrayLike, q: ArrayLike | None,
          options: dict[str, Any], query_weight: np.ndarray | None = None) -> float:
    labels, scores, qq = flatten_inputs(y_true, y_score, q)
    plan = QueryPlan._from_checked(labels, qq)  # validated once; the plan lives for this call
    values = plan.evaluate(scores, [metric], **options)[metric.name]
    return weighted_mean(values, query_weight, plan.n_queries, "sample_weight")


def _training_layout(estimator: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """(query ids, rows per query) a fitted estimator was trained on, if it recorded them.

    Looks through fitted searches (``best_estimator_``) and pipelines (last step).
    """
    for _ in range(8):
        qids = getattr(estimator, "train_qids_", None)
        if qids is not None:
            return np.asarray(qids), np.asarray(getattr(estimator, "train_query_sizes_", []))
        if hasattr(estimator, "best_estimator_"):
            estimator = estimator.best_estimator_
        elif hasattr(estimator, "steps") and estimator.steps:
            estimator = estimator.steps[-1][1]
        else:
            return None
    return None


def _fold_shared_ids() -> np.ndarray | None:
    """Query ids found in both the training and the test rows of the fold being scored, read
    from scikit-learn's ``_fit_and_score`` (its ``train`` / ``test`` indices and the unsliced
    routed score parameters); None outside it or when it holds no query ids.

    A plain estimator records no training ids; without this a splitter that cuts queries
    into pieces of two or more rows would be scored silently.
    """
    frame: Any = sys._getframe(2)
    while frame is not None:
        if (frame.f_globals.get("__name__") == "sklearn.model_selection._validation"
                and frame.f_code.co_name == "_fit_and_score"):
            break
        frame = frame.f_back
    if frame is None:
        return None
    local = frame.f_locals
    params, train, test = local.get("score_params"), local.get("train"), local.get("test")
    if not isinstance(params, dict) or train is None or test is None:
        return None
    full = params.get("qid")
    if full is None:
        full = params.get("groups")
    if full is None:
        return None
    try:
        ids = [np.asarray(_safe_indexing(full, np.asarray(rows))) for rows in (train, test)]
        train_ids, test_ids = (check_qid(i, i.shape[0]) for i in ids)
        return np.intersect1d(train_ids, test_ids)
    except (TypeError, ValueError, IndexError):  # ids the scorer itself reports
        return None


def _check_split_queries(estimator: Any, q: ArrayLike, label: str, action: str) -> None:
    if action == "ignore" or not _in_model_selection():
        return
    # the fold's own train/test ids first, for every estimator: exact, where the training
    # layout below cannot tell a query cut into equal halves from training rows scored again
    shared = _fold_shared_ids()
    if shared is not None:
        if shared.size:
            _report_split(shared, np.unique(check_qid(q, _num_rows(q))).size, label, action)
        return
    layout = _training_layout(estimator)
    if layout is None:
        return
    train_qids, train_sizes = layout
    test, test_sizes = np.unique(check_qid(q, _num_rows(q)), return_counts=True)
    try:
        shared, in_train, in_test = np.intersect1d(train_qids, test, return_indices=True)
    except TypeError:  # ids of incomparable types cannot name the same query
        return
    if shared.size == 0 or (
        train_sizes.shape == train_qids.shape
        and np.array_equal(train_sizes[in_train], test_sizes[in_test])
    ):
        # no shared id, or every shared query is scored with exactly its training row count:
        # training rows being scored (return_train_score=True), not a query cut in two
        return
    _report_split(shared, test.size, label, action, train_qids.size)


def _report_split(shared: np.ndarray, n_test: int, label: str, action: str,
                  n_train: int = -1) -> None:
    msg = (
        f"ranking scorer {label!r}: {shared.size} of {n_test} query ids of the evaluated rows "
        f"(e.g. {shared[:3].tolist()}) also occur in the rows the estimator was fitted on. If "
        "they name the same queries, the splitter cut queries between train and test; use "
        "GroupKFold or GroupShuffleSplit with groups=qid. If different queries of the data set "
        "share ids, build the scorer with split_queries='ignore'."
    )
    if action == "raise":
        raise ValueError(msg)
    if _first_time("split", shared, n_train, n_test):
        warnings.warn(msg, RankingCVWarning, stacklevel=4)


if _Scorer is not None:

    class _RankingScorer(_Scorer):  # type: ignore[misc, valid-type]
        """A ``make_scorer`` scorer that also checks for queries split between train and test."""

        _display_name = ""
        _split_queries = "warn"

        def _score(
            self, method_caller: Any, estimator: Any, X: Any, y_true: Any, **kwargs: Any
        ) -> float:
            q = kwargs.get("qid")
            if q is None:
                q = kwargs.get("groups")
            if q is not None:
                _check_split_queries(estimator, q, self._display_name, self._split_queries)
            return super()._score(method_caller, estimator, X, y_true, **kwargs)

        def set_score_request(self, **kwargs: Any) -> Any:
            """As scikit-learn's, but adding to the requests already set (``qid``, ``groups``)
            instead of replacing them: ``set_score_request(sample_weight=True)`` alone would
            stop routing the query ids, and every call would then fail for want of them."""
            current = getattr(self, "_metadata_request", None)
            kept = {} if current is None else {
                p: a for p, a in current.score.requests.items() if p not in kwargs}
            return super().set_score_request(**kept, **kwargs)

        def __repr__(self) -> str:
            shown = {k: v for k, v in self._kwargs.items() if k not in ("metric", "name", "k")}
            if self._split_queries != "warn":
                shown["split_queries"] = self._split_queries
            extra = "".join(f", {k}={v!r}" for k, v in shown.items())
            return (
                f"make_ranking_scorer({self._display_name!r}{extra}, "
                f"response_method={self._response_method!r})"
            )


def _check_response_method(response_method: Any) -> str | tuple[str, ...]:
    if isinstance(response_method, str):
        methods: tuple[str, ...] = (response_method,)
    elif isinstance(response_method, (list, tuple)) and response_method:
        methods = tuple(response_method)
    else:
        raise ValueError(
            f"response_method must be one of {_RESPONSE_METHODS} or a non-empty list/tuple of "
            f"them in order of preference; got {response_method!r}"
        )
    bad = [m for m in methods if m not in _RESPONSE_METHODS]
    if bad:
        raise ValueError(
            f"response_method must name methods among {_RESPONSE_METHODS}; got {bad[0]!r}"
        )
    return response_method if isinstance(response_method, str) else methods


def make_ranking_scorer(
    metric: str,
    *,
    k: int | None = None,
    ties: str = "average",
    response_method: str | Sequence[str] = _DEFAULT_RESPONSE,
    split_queries: str = "warn",
    **options: Any,
) -> Any:
    """Build a scikit-learn scorer for a tie-aware ranking metric averaged over queries.

    The scorer calls ``estimator.<response_method>(X)`` and then the core mean function (e.g.
    :func:`rankmetrics.ndcg_score`) on the evaluated rows, grouping them by the per-row query
    ids it receives through metadata routing (keys ``qid`` or ``groups``, already sliced to the
    test fold; rows of a query need not be contiguous). No metric arithmetic happens here.

    Parameters
    ----------
    metric : str or measure object
        One name of the measure language, as accepted by
        :meth:`rankmetrics.QueryPlan.evaluate`: ``"ndcg"``, ``"ndcg@10"``, ``"nDCG@10"``,
        ``"dcg@5"``, ``"p@5"``, ``"P(rel=2)@5"``, ``"recall@10"``, ``"R@100"``, ``"f1@10"``,
        ``"map"`` / ``"AP@100"``, ``"mrr"`` / ``"RR"``, ``"Rprec"``, ``"Success@10"``,
        ``"SetF(beta=0.5)"``, ``"ndcg_cut.10"`` (case-insensitive), or an object such as
        ``rankmetrics.measures.nDCG@10``.
    k : int >= 1, optional
        Cutoff; an alternative to ``"@k"`` in ``metric`` (both may be given only if equal).
        None (default) with no ``"@k"`` means the whole list.
    ties : {"average", "optimistic", "pessimistic", "stable"}, default "average"
        Tie rule of the core metric; "average" is the exact mean over all orderings of tied
        scores (McSherry & Najork 2008).
    response_method : str or sequence of str, default ("decision_function", "predict_proba", \
"predict")
        Estimator method giving the scores, or methods in order of preference (the first one
        the estimator has is used). Regressors and rankers use ``predict``; binary classifiers
        ``decision_function`` or the positive-class ``predict_proba`` column.
    split_queries : {"warn", "raise", "ignore"}, default "warn"
        What to do when, inside scikit-learn's cross-validation (``cross_validate``, searches,
        ``learning_curve``, ...), the query ids routed for the fold's training rows overlap
        those of its test rows, whatever the estimator: the sign of a splitter that cut queries
        in two. Where the fold's rows are not visible (``permutation_test_score``), a scored
        estimator that is (or ends in) a fitted :class:`QueryGroupRanker` is checked against
        its training query ids instead. Scoring outside cross-validation (e.g. an independent
        test set that reuses ids) is never checked.
    **options
        Further keyword arguments of the core metric: ``gain`` (for nDCG and DCG default
        "linear", the gain of ``sklearn.metrics.ndcg_score``), ``discount``, ``log_base``,
        ``empty`` (nDCG/DCG family); ``threshold``, ``empty``, ``beta`` (F), ``denominator`` (AP).

    Returns
    -------
    scorer : callable
        A ``sklearn.metrics.make_scorer`` scorer, ``scorer(estimator, X, y, qid=...)``, usable
        as ``scoring=`` anywhere in scikit-learn; greater is better. It requests ``qid`` and
        ``groups`` for its ``score`` method (change with ``set_score_request``).

    Raises
    ------
    ValueError
        Unknown metric name, conflicting cutoffs, bad option values (checked now, not deep
        inside a search), an unknown ``response_method`` or ``split_queries``. When scoring:
        no query ids (with a hint on enabling metadata routing), a response that is not one
        score per row, or any input error of the core metric.
    TypeError
        An option the metric does not take (e.g. ``threshold`` for nDCG) or of the wrong type.

    Warns
    -----
    RankingCVWarning
        When scoring rows that contain single-row queries, or (``split_queries="warn"``, in
        cross-validation) query ids also seen in training. Each is shown once per layout (the
        same query ids and row counts), not once per candidate and fold of a search.

    See Also
    --------
    ranking_scorers : several scorers at once, for multi-metric ``scoring=``.
    QueryGroupRanker : makes rankers that need group sizes usable in model selection.

    Notes
    -----
    A test fold must hold whole queries: use ``GroupKFold`` / ``GroupShuffleSplit`` with
    ``groups=qid``. Per-row ``qid`` cannot repair a fold that cut a query: its nDCG ideal would
    be computed from the test rows only.

    Examples
    --------
    >>> import numpy as np, sklearn
    >>> from sklearn.linear_model import LinearRegression
    >>> from rankmetrics import ndcg_score
    >>> from rankmetrics.sklearn import make_ranking_scorer
    >>> X = np.array([[0.0], [1.0], [2.0], [0.0], [1.0], [1.0]])
    >>> y = np.array([0, 1, 2, 1, 0, 2])
    >>> qid = np.array([1, 1, 1, 2, 2, 2])
    >>> model = LinearRegression().fit(X, y)
    >>> scorer = make_ranking_scorer("ndcg@2")
    >>> scorer
    make_ranking_scorer('ndcg@2', ties='average', gain='linear', \
response_method=('decision_function', 'predict_proba', 'predict'))
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     value = scorer(model, X, y, qid=qid)
    >>> round(value, 4), value == ndcg_score(y, model.predict(X), qid, k=2)
    (0.81, True)
    """
    found = parse_measure(metric)
    if len(found) != 1:
        raise ValueError(f"make_ranking_scorer({metric!r}) names {len(found)} measures; give one "
                         "(ranking_scorers builds several)")
    measure = found[0]
    base = core_metric(measure)
    k = check_k(k)
    if measure.k is not None and k is not None and measure.k != k:
        raise ValueError(f"metric {metric!r} has cutoff {measure.k} but k={k} was also given")
    display = str(metric).strip()
    if k is not None and measure.k is None:
        display = f"{display}@{k}"
        (measure,) = parse_measure(display)
    measure = replace(measure, name=display)
    methods = _check_response_method(response_method)
    if split_queries not in _SPLIT_CHOICES:
        raise ValueError(
            f"split_queries must be one of {_SPLIT_CHOICES}; got {split_queries!r}"
        )
    allowed = _OPTIONS[base]
    unknown = [o for o in options if o not in allowed]
    if unknown:
        raise TypeError(
            f"make_ranking_scorer({metric!r}) got option {unknown[0]!r}, which {base} does not "
            f"take; its options: ties, {', '.join(allowed)}"
        )
    kwargs: dict[str, Any] = {"ties": ties, **_DEFAULTS.get(base, {}), **options}
    # validate option values now, on a two-row query, rather than inside a long search
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _mean(measure, [1, 0], [1.0, 0.0], None, kwargs)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"make_ranking_scorer({metric!r}): {exc}") from exc

    score_kwargs = {"metric": measure, "name": display, **kwargs}
    if _Scorer is not None:
        scorer = _RankingScorer(_ranking_score, 1, score_kwargs, methods)
        scorer._display_name = display
        scorer._split_queries = split_queries
    else:  # a future scikit-learn without the private _Scorer class: no split check
        scorer = make_scorer(_ranking_score, response_method=methods, **score_kwargs)
    with sklearn.config_context(enable_metadata_routing=True):
        scorer.set_score_request(qid=True, groups=True)
    return scorer


def ranking_scorers(*metrics: str, **options: Any) -> dict[str, Any]:
    """Scorers for several metrics, keyed by name, for multi-metric ``scoring=``.

    Parameters
    ----------
    *metrics : str
        Metric names as in :func:`make_ranking_scorer` (e.g. ``"ndcg@10"``, ``"map"``).
    **options
        Keyword arguments shared by every scorer (``ties``, ``response_method``, ``gain``, ...);
        each must be accepted by every metric named.

    Returns
    -------
    dict
        ``{name: scorer}`` in the given order; pass it as ``scoring=`` and pick one name as
        ``refit=``. With ``cross_validate`` the results are ``test_<name>``; with a search
        ``mean_test_<name>`` and ``rank_test_<name>``.

    Raises
    ------
    ValueError
        No metric named, a name repeated, or any error of :func:`make_ranking_scorer`.

    Examples
    --------
    >>> from rankmetrics.sklearn import ranking_scorers
    >>> scoring = ranking_scorers("ndcg@10", "map", ties="average")
    >>> list(scoring)
    ['ndcg@10', 'map']
    """
    if not metrics:
        raise ValueError("ranking_scorers needs at least one metric name, e.g. 'ndcg@10'")
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"ranking_scorers got a metric name twice: {list(metrics)}")
    return {m: make_ranking_scorer(m, **options) for m in metrics}


#: the ready-made scorers: module attributes built afresh at each access (PEP 562), as
#: ``sklearn.metrics.get_scorer`` hands out copies, so ``set_score_request`` on one changes
#: no other user's. ``ndcg_scorer``: nDCG over the whole list of each query (linear gain as
#: scikit-learn, log2 discount, ties averaged); ``ndcg_at_10_scorer``: nDCG@10;
#: ``map_scorer``: mean average precision (relevant: label >= 1, ties averaged);
#: ``mrr_scorer``: mean reciprocal rank (relevant: label >= 1, ties averaged).
_READY_SCORERS = {"ndcg_scorer": "ndcg", "ndcg_at_10_scorer": "ndcg@10", "map_scorer": "map",
                  "mrr_scorer": "mrr"}


def __getattr__(name: str) -> Any:
    if name in _READY_SCORERS:
        return make_ranking_scorer(_READY_SCORERS[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_READY_SCORERS})


# ------------------------------------------------------------------------------ the wrapper
def _group_layout(q: np.ndarray) -> tuple[NDArray[np.intp] | None, NDArray[np.int64]]:
    """Row order that makes every query contiguous (None if it already is) and group sizes."""
    n = q.shape[0]
    new_run = np.empty(n, dtype=bool)
    new_run[0] = True
    np.not_equal(q[1:], q[:-1], out=new_run[1:])
    starts = np.flatnonzero(new_run)
    uniq, inverse, counts = np.unique(q, return_inverse=True, return_counts=True)
    if starts.size == uniq.size:  # one run per query: keep the caller's row order
        return None, np.diff(np.r_[starts, n]).astype(np.int64)
    order = np.argsort(inverse.ravel(), kind="stable")
    return order, counts.astype(np.int64)


class QueryGroupRanker(MetaEstimatorMixin, BaseEstimator):
    """Make a ranker that needs query group sizes usable in scikit-learn model selection.

    LightGBM's ``LGBMRanker.fit(X, y, group=sizes)`` (and XGBoost's ``XGBRanker``) want rows
    grouped by query and a list of group sizes, which cross-validation cannot slice. This wrapper
    takes per-row query ids instead (through metadata routing, keys ``qid`` or ``groups``), sorts
    the rows by query when they are not grouped yet, and fits a clone of ``estimator`` with the
    group sizes. It works inside ``GridSearchCV``, ``RandomizedSearchCV``, ``cross_validate`` and
    ``Pipeline``; tune the inner model as ``estimator__<param>``.

    Parameters
    ----------
    estimator : estimator object
        An unfitted ranker whose ``fit`` takes the grouping as the keyword ``group_param``, e.g.
        ``lightgbm.LGBMRanker(n_estimators=50, verbose=-1)``. It is cloned on fit.
    group_param : str, default "group"
        Name of the keyword of ``estimator.fit`` that receives the grouping.
    group_format : {"sizes", "qid"}, default "sizes"
        Pass group sizes in row order (LightGBM ``group``, XGBoost ``group``) or a per-row
        query number of the grouped rows, ``0, 0, 1, ...`` (XGBoost ``qid``, which takes
        ascending integers only, CatBoost ``group_id``), whatever the type of the query ids.
    early_stopping : bool, default False
        Hold out ``validation_fraction`` of the queries (whole queries, drawn with
        ``random_state``) inside ``fit``, train the inner LightGBM or XGBoost ranker on the rest
        and stop when the tie-aware ``scoring`` metric on the hold-out has not improved by more
        than ``tol`` for ``n_iter_no_change`` rounds; the model keeps the best round. As
        scikit-learn's ``HistGradientBoosting*(early_stopping=True)``.
    scoring : str, default "ndcg@10"
        Metric watched on the hold-out: a name as in :func:`make_ranking_scorer`, computed by
        the core with its default options (exponential gain, empty queries 0) and ``ties``;
        its mean over the hold-out queries is the curve.
    validation_fraction : float in (0, 1), default 0.1
        Share of the queries held out (``ceil(fraction * n_queries)``, at least one).
    n_iter_no_change : int, default 10
        Rounds without improvement before stopping.
    tol : float, default 0.0
        Minimum improvement that counts.
    ties : {"average", "optimistic", "pessimistic", "stable"}, default "average"
        Tie rule of the watched metric.
    random_state : int, RandomState instance or None, default None
        Seed of the hold-out draw.

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.
    train_qids_ : ndarray of shape (n_train_queries,)
        Distinct query ids of the training rows, sorted; scorers of this module compare them
        with the scored ids to detect queries split between train and test where the fold's
        own rows are not visible to the scorer (``permutation_test_score``).
    train_query_sizes_ : ndarray of int, shape (n_train_queries,)
        Training rows per query, aligned with ``train_qids_``. In that check, scored queries
        that also occur here with the same row count count as training rows scored again.
    n_features_in_ : int
        Number of features seen in fit.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Column names of ``X`` in fit, when it had string column names.
    validation_qids_ : ndarray
        With ``early_stopping``: the held-out query ids (not in ``train_qids_``).
    validation_score_ : ndarray of shape (n_iterations,)
        With ``early_stopping``: the watched metric on the hold-out after each round.
    best_iteration_ : int
        With ``early_stopping``: rounds kept, the last round that beat the best score so far
        by more than ``tol`` (the hosts' ``min_delta`` rule; with ``tol=0`` the first maximum,
        ``argmax(validation_score_) + 1``).
    n_iter_ : int
        With ``early_stopping``: rounds trained (``best_iteration_ + n_iter_no_change`` when
        it stopped early).

    Raises
    ------
    ValueError
        From ``fit``: no query ids (with a hint on enabling metadata routing), lengths of ``X``,
        ``y``, query ids or ``sample_weight`` that disagree, an unknown ``group_format``, a bad
        ``ties``, ``scoring``, ``validation_fraction``, ``n_iter_no_change`` or ``tol`` (checked
        whether or not ``early_stopping`` is on).

    See Also
    --------
    make_ranking_scorer : the matching query-aware scorers.

    Notes
    -----
    ``fit`` requests ``qid`` and ``groups`` by default, so under
    ``sklearn.set_config(enable_metadata_routing=True)`` a single ``groups=qid`` feeds a grouped
    splitter, this wrapper and the scorers. ``sample_weight`` is requested only after
    ``set_fit_request(sample_weight=True)``; it is reordered with the rows. Without metadata
    routing the ids can still be given by hand: ``fit(X, y, qid=qid)`` or, in a pipeline,
    ``pipe.fit(X, y, querygroupranker__qid=qid)``.

    ``X`` and ``y`` are passed to the inner estimator unconverted (pandas frames keep their
    dtypes, e.g. LightGBM categorical columns); only their rows are reordered.

    Early stopping uses the hosts' routes: for LightGBM the hold-out is the ``eval_set`` of
    ``LGBMRanker.fit`` with :func:`rankmetrics.lightgbm.make_eval_metric` and
    :func:`rankmetrics.lightgbm.early_stopping`; for XGBoost a training callback scores the
    hold-out each round (``XGBRanker``'s own ``eval_metric`` route weights queries by size, see
    :mod:`rankmetrics.xgboost`) and sets the booster's ``best_iteration``. Inside a search each
    candidate and fold draws its hold-out from its own training part, so test folds are never
    seen. Other fit parameters (``eval_set``, ``callbacks``, ...) go to the inner ``fit``
    unchanged (not together with ``early_stopping=True``); under metadata routing the inner
    estimator requests them, e.g. ``LGBMRanker().set_fit_request(callbacks=True)``.

    Examples
    --------
    >>> import numpy as np, sklearn
    >>> from lightgbm import LGBMRanker
    >>> from rankmetrics.sklearn import QueryGroupRanker
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = (X[:, 0] > 0).astype(int) + (X[:, 0] > 1)
    >>> qid = np.tile(np.arange(6), 10)           # rows of a query are not contiguous
    >>> ranker = QueryGroupRanker(
    ...     LGBMRanker(n_estimators=5, min_child_samples=2, n_jobs=1, verbose=-1))
    >>> ranker.fit(X, y, qid=qid).estimator_.n_estimators_
    5
    >>> ranker.predict(X).shape
    (60,)
    """

    __metadata_request__fit = {"qid": True, "groups": True}

    def __init__(
        self,
        estimator: Any,
        *,
        group_param: str = "group",
        group_format: str = "sizes",
        early_stopping: bool = False,
        scoring: str = "ndcg@10",
        validation_fraction: float = 0.1,
        n_iter_no_change: int = 10,
        tol: float = 0.0,
        ties: str = "average",
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.group_param = group_param
        self.group_format = group_format
        self.early_stopping = early_stopping
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.ties = ties
        self.random_state = random_state

    def get_metadata_routing(self) -> Any:
        """Routing: ``qid``/``groups`` (and ``sample_weight`` once requested) are this wrapper's;
        other fit parameters (``eval_set``, ``callbacks``, ...) go to the inner estimator's
        ``fit`` when it requests them (``LGBMRanker().set_fit_request(eval_set=True)``)."""
        router = MetadataRouter(owner=self.__class__.__name__).add_self_request(self)
        router.add(estimator=self.estimator,
                   method_mapping=MethodMapping().add(caller="fit", callee="fit"))
        return router

    def fit(
        self,
        X: Any,
        y: ArrayLike,
        qid: ArrayLike | None = None,
        groups: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        **fit_params: Any,
    ) -> QueryGroupRanker:
        """Fit a clone of ``estimator`` on rows grouped by query.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Features, passed to the inner estimator unconverted (rows reordered if needed).
        y : array-like of shape (n_samples,)
            Graded relevance labels.
        qid : array-like of shape (n_samples,), optional
            Query id of each row (any sortable dtype; rows of a query need not be contiguous).
        groups : array-like of shape (n_samples,), optional
            Used as query ids when ``qid`` is None (scikit-learn's routing key for grouped
            splitters).
        sample_weight : array-like of shape (n_samples,), optional
            Per-row weights, reordered with the rows and passed as ``sample_weight``; an
            XGBoost ranker weighs whole queries, so it gets one weight per query (the rows of
            a query must then share theirs).
        **fit_params
            Further parameters of the inner estimator's ``fit`` (``eval_set``, ``eval_group``,
            ``callbacks``, ...), passed on unchanged, except the per-row ``init_score``
            (LightGBM) and ``base_margin`` (XGBoost), which are reordered with the rows; with
            metadata routing on, the inner estimator must request them.

        Returns
        -------
        self : QueryGroupRanker

        Raises
        ------
        ValueError
            No query ids, inconsistent lengths, empty input, a bad ``group_format``, ``ties``
            or early stopping option (also with ``early_stopping=False``), fewer than two
            queries with ``early_stopping=True``, or ``early_stopping=True`` together with an
            explicit ``eval_set``, ``init_score`` or ``base_margin``; ``sample_weight`` varying
            within a query for an XGBoost ranker.
        TypeError
            ``early_stopping=True`` with an estimator other than LightGBM's or XGBoost's;
            ``early_stopping`` not a bool; ``scoring`` not a string.
        """
        # a refit without early stopping must not keep the curve of an earlier fit
        for attr in _EARLY_STOPPING_ATTRS:
            self.__dict__.pop(attr, None)
        if self.group_format not in ("sizes", "qid"):
            raise ValueError(
                f"group_format must be 'sizes' or 'qid'; got {self.group_format!r}"
            )
        if not isinstance(self.group_param, str) or not self.group_param:
            raise ValueError(
                f"group_param must name a keyword of estimator.fit; got {self.group_param!r}"
            )
        # checked with early stopping off too: a typo in a searched parameter would otherwise
        # give identical candidates silently (scikit-learn checks every parameter at fit)
        _check_early_stopping(self)
        if y is None:
            raise ValueError(
                "QueryGroupRanker requires y to be passed, but the target y is None; pass the "
                "graded relevance labels"
            )
        _check_2d(X)
        q_raw = _resolve_qid(qid, groups, "QueryGroupRanker.fit", "fit(X, y, qid=qid)")
        validate_data(self, X, y, reset=True, skip_check_array=True)
        check_consistent_length(X, y, q_raw, sample_weight)
        n = _num_rows(X)
        if n == 0:
            raise ValueError("QueryGroupRanker.fit got 0 samples; at least one row is needed")
        q = check_qid(q_raw, n, "qid" if qid is not None else "groups")
        if sample_weight is not None:
            sample_weight = _check_weights(sample_weight, n)
        order, sizes = _group_layout(q)
        if order is not None:
            X, y = _take_rows(X, order), _take_rows(y, order)
            q = q[order]
            if sample_weight is not None:
                sample_weight = sample_weight[order]
        if fit_params and _routing_enabled():
            fit_params = dict(process_routing(self, "fit", **fit_params).estimator.fit)
        estimator = clone(self.estimator)
        per_row = sorted(_PER_ROW & set(fit_params))
        if per_row:  # the hosts' per-row offsets: they move with their rows
            if self.early_stopping:
                raise ValueError(
                    f"QueryGroupRanker: {', '.join(per_row)} with early_stopping=True is not "
                    "supported (the hold-out would need its own part); set early_stopping=False")
            fit_params = dict(fit_params)
            for name in per_row:
                fit_params[name] = _per_row(fit_params[name], name, n, order)
        if self.early_stopping:
            X, y, q, sizes, sample_weight, estimator, fit_params, finish = self._hold_out(
                estimator, X, y, q, sizes, sample_weight, fit_params)
        # after the hold-out, which takes per-row weights with its rows
        if sample_weight is not None and _module(estimator) == "xgboost":
            sample_weight = _query_weights(np.asarray(sample_weight, dtype=np.float64), sizes)
        # "qid": each row's query number in the grouped layout (ascending integers, which
        # XGBoost's qid= needs: it rejects string ids and unsorted ones)
        fit_kwargs: dict[str, Any] = {
            self.group_param: sizes if self.group_format == "sizes"
            else np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
        }
        if sample_weight is not None:
            fit_kwargs["sample_weight"] = sample_weight
        self.estimator_ = estimator.fit(X, y, **fit_kwargs, **fit_params)
        if self.early_stopping:
            finish(self.estimator_)
        self.train_qids_, self.train_query_sizes_ = np.unique(q, return_counts=True)
        return self

    def _hold_out(self, estimator: Any, X: Any, y: Any, q: np.ndarray, sizes: np.ndarray,
                  sample_weight: Any, fit_params: dict[str, Any]) -> tuple[Any, ...]:
        """Split whole queries off as a validation set and set up early stopping on it.

        Returns the training part (X, y, q, sizes, sample_weight), the estimator and fit
        parameters to use, and a function that reads the curve from the fitted estimator.
        """
        metric = _check_early_stopping(self)
        if {"eval_set", "eval_X"} & set(fit_params):
            raise ValueError(
                "QueryGroupRanker: early_stopping=True holds out its own validation queries; "
                "do not pass eval_set / eval_X too (or set early_stopping=False)"
            )
        n_q = sizes.shape[0]
        n_val = int(np.ceil(self.validation_fraction * n_q))
        if n_q < 2 or n_val >= n_q:
            raise ValueError(
                f"early_stopping needs at least one training and one validation query; got "
                f"{n_q} queries and validation_fraction={self.validation_fraction}"
            )
        rng = check_random_state(self.random_state)
        is_val = np.zeros(n_q, dtype=bool)
        is_val[rng.choice(n_q, size=n_val, replace=False)] = True
        rows_val = np.flatnonzero(np.repeat(is_val, sizes))
        rows_fit = np.flatnonzero(np.repeat(~is_val, sizes))
        X_val, y_val = _take_rows(X, rows_val), np.asarray(_take_rows(y, rows_val))
        sizes_val = sizes[is_val]
        self.validation_qids_ = np.unique(q[rows_val])
        X, y, q = _take_rows(X, rows_fit), _take_rows(y, rows_fit), q[rows_fit]
        if sample_weight is not None:
            sample_weight = sample_weight[rows_fit]
        module = _module(estimator)
        fit_params = dict(fit_params)
        if module == "lightgbm":
            from .lightgbm import early_stopping as lgb_early_stopping
            from .lightgbm import make_eval_metric as lgb_metric

            # the core's options (XGBoost's route evaluates with the core too), not the
            # LightGBM adapter's defaults (AP over min(k, R), LightGBM's relevance cut)
            core = MetricOptions()
            feval = lgb_metric(metric, k=None, ties=self.ties, gain=core.gain,
                               discount=core.discount, log_base=core.log_base,
                               threshold=core.threshold, beta=core.beta, empty=core.empty,
                               denominator=core.denominator, prefix="holdout_")
            name = feval.names[0]
            callbacks = [lgb_early_stopping(self.n_iter_no_change, feval, min_delta=self.tol,
                                            verbose=False), *fit_params.pop("callbacks", [])]
            if "eval_X" in inspect.signature(estimator.fit).parameters:  # LightGBM >= 4.7
                fit_params.update(eval_X=(X_val,), eval_y=(y_val,))
            else:  # pragma: no cover - older LightGBM
                fit_params.update(eval_set=[(X_val, y_val)])
            fit_params.update(eval_group=[sizes_val], eval_metric=feval, eval_names=["holdout"],
                              callbacks=callbacks)

            def finish(fitted: Any) -> None:
                curve = np.asarray(fitted.evals_result_["holdout"][name], dtype=np.float64)
                self._set_curve(curve, int(fitted.best_iteration_))
        elif module == "xgboost":
            from .xgboost import _holdout_callback

            monitor = _holdout_callback(X_val, y_val, sizes_val, metric, ties=self.ties,
                                        rounds=self.n_iter_no_change, tol=self.tol,
                                        estimator=estimator)
            prior = estimator.get_params().get("callbacks")
            estimator.set_params(callbacks=[*(prior or []), monitor])

            def finish(fitted: Any) -> None:
                self._set_curve(np.asarray(monitor.curve, dtype=np.float64),
                                monitor.best_round + 1)
                # the hold-out's callback leaves with the fit: it would stop a refit of a
                # clone on the old hold-out, and it does not pickle
                fitted.set_params(callbacks=prior)
        else:
            raise TypeError(
                "QueryGroupRanker(early_stopping=True) supports LightGBM and XGBoost rankers "
                f"(lightgbm.LGBMRanker, xgboost.XGBRanker); got {type(estimator).__name__}"
            )
        return X, y, q, sizes[~is_val], sample_weight, estimator, fit_params, finish

    def _set_curve(self, curve: NDArray[np.float64], best_iteration: int) -> None:
        self.validation_score_ = curve
        self.n_iter_ = int(curve.shape[0])
        self.best_iteration_ = int(best_iteration)

    def predict(self, X: Any) -> NDArray[Any]:
        """Scores of the fitted inner estimator, one per row (higher ranks first).

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            When ``X`` has a different number of features (or feature names) than in fit.
        """
        check_is_fitted(self)
        _check_2d(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        return np.asarray(self.estimator_.predict(X))

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        try:
            inner = get_tags(self.estimator)
        except (AttributeError, TypeError, ValueError):
            # a ranker that only duck-types scikit-learn's API (fit, predict, get_params) has
            # no tags: keep the defaults, as scikit-learn's Pipeline does, instead of failing
            # every fit
            return tags
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        return tags


def _check_early_stopping(est: QueryGroupRanker) -> str:
    """Validate the early-stopping parameters; return the metric name to watch."""
    check_flag("early_stopping", est.early_stopping)
    check_ties(est.ties)
    if not isinstance(est.scoring, str):
        raise TypeError(
            f"scoring must be a ranking metric name such as 'ndcg@10' or 'map'; got "
            f"{est.scoring!r}"
        )
    parse_metric(est.scoring)  # ValueError for unknown names
    frac = est.validation_fraction
    if isinstance(frac, bool) or not isinstance(frac, (int, float, np.floating)) \
            or not 0 < frac < 1:
        raise ValueError(f"validation_fraction must be a float in (0, 1); got {frac!r}")
    n = est.n_iter_no_change
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n_iter_no_change must be an int >= 1; got {n!r}")
    tol = est.tol
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating)) \
            or not math.isfinite(as_float64(tol, "tol")) or tol < 0:
        raise ValueError(f"tol must be a finite number >= 0; got {tol!r}")
    return est.scoring


#: fitted attributes that only a fit with ``early_stopping=True`` sets
_EARLY_STOPPING_ATTRS = ("validation_qids_", "validation_score_", "best_iteration_", "n_iter_")

#: fit parameters of the hosts that hold one value per row (reordered with the rows)
_PER_ROW = frozenset({"init_score", "base_margin"})


def _module(estimator: Any) -> str:
    return type(estimator).__module__.split(".")[0]


def _per_row(values: Any, name: str, n: int, order: NDArray[np.intp] | None) -> Any:
    """A per-row fit parameter checked for length and put in the grouped row order."""
    if _num_rows(values) != n:
        raise ValueError(f"{name} must have one value per row ({n}); got {_num_rows(values)}")
    return values if order is None else _take_rows(values, order)


def _query_weights(sample_weight: NDArray[np.float64], sizes: NDArray[np.int64]
                   ) -> NDArray[np.float64]:
    """One weight per query from per-row weights constant within each query (XGBoost's
    rankers weigh whole queries)."""
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    first = sample_weight[starts]
    if not np.array_equal(np.repeat(first, sizes), sample_weight):
        raise ValueError(
            "sample_weight varies within a query; XGBoost's rankers weigh whole queries: give "
            "each query's rows one weight")
    return first


def _check_2d(X: Any) -> None:
    """Reject 1-D (or 3-D) feature input without converting ``X``."""
    ndim = getattr(X, "ndim", None)
    if ndim is None:
        ndim = np.asarray(X).ndim
    if ndim != 2:
        raise ValueError(
            f"X must be 2-D (n_samples, n_features); got a {ndim}-D input. Reshape your data "
            "with X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample."
        )


def _num_rows(X: Any) -> int:
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    return len(X) if hasattr(X, "__len__") else int(np.asarray(X).shape[0])


def _check_weights(sample_weight: ArrayLike, n: int) -> NDArray[np.float64]:
    w = check_weights(sample_weight, (n,), "sample_weight", per="weight per row")
    if not w.any():
        raise ValueError("sample_weight must not be all zero: no row would count in fit")
    return w


def _take_rows(A: Any, order: NDArray[np.intp]) -> Any:
    """Rows ``order`` of ``A``, keeping its container type (array, list, DataFrame, sparse)."""
    if sp.issparse(A):
        if A.format not in ("csr", "csc"):
            A = A.tocsr()  # formats such as dia/bsr have no row indexing
        return A[order]
    if not hasattr(A, "__getitem__"):
        A = np.asarray(A)
    return _safe_indexing(A, order)
