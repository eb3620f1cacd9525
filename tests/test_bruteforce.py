"""rankmetrics against the brute-force oracle (tests/oracle.py) on small, tie-heavy inputs.

For every measure, cut-off, gain, discount, threshold and empty rule of the contract:

* ``ties="average"`` equals the mean over all score-consistent orderings (McSherry-Najork 2008),
* ``"optimistic"`` / ``"pessimistic"`` equal the max / min over those orderings (only checked for
  the named, non-increasing discounts, where those bounds are well defined),
* ``"stable"`` equals the ordering that keeps tied rows in input order,

through the per-query functions, the ``QueryPlan`` methods and ``QueryPlan.evaluate``.
"""

from __future__ import annotations

import os
from typing import Any

import hypothesis.strategies as st
import numpy as np
from hypothesis import HealthCheck, given, settings
from oracle import (
    BINARY_METRICS,
    CURVES,
    GAIN_METRICS,
    TIE_MODES,
    per_query,
    per_query_all,
)

import rankmetrics

# RANKMETRICS_EXAMPLES=<n> runs a deeper search (e.g. before a release); the default keeps CI fast
SETTINGS = settings(
    max_examples=int(os.environ.get("RANKMETRICS_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

KS = [None, 1, 2, 3, 5, 10]
LOG_BASES = [2, 3, 10]
NAMED_DISCOUNTS = ["log", "jarvelin2002", "jarvelin2008", "none"]


def _sqrt_gain(labels: np.ndarray) -> np.ndarray:
    return np.sqrt(labels)


def _hump_gain(labels: np.ndarray) -> np.ndarray:
    # not monotone in the label: the optimistic order must follow the gain, not the label
    return 1.0 + (labels - 2.0) ** 2


def _inverse_rank(ranks: np.ndarray) -> np.ndarray:
    return 1.0 / ranks


def _increasing(ranks: np.ndarray) -> np.ndarray:
    return np.sqrt(ranks.astype(np.float64))


# gains valid for integer labels 0..4, and the subset valid for fractional labels
INT_GAINS: list[Any] = [
    "exponential",
    "linear",
    [0, 1, 10, 100, 1000],
    (0.0, 1.0, 4.0, 10.0, 10.0),
    {0: 0.0, 1: 1.0, 2: 4.0, 3: 10.0, 4: 25.0},
    _sqrt_gain,
    _hump_gain,
]
FLOAT_GAINS: list[Any] = ["linear", _sqrt_gain, _hump_gain]
CALLABLE_DISCOUNTS = [_inverse_rank, _increasing]


@st.composite
def queries(draw: st.DrawFn, float_labels: bool = False) -> tuple:
    """1-4 queries of 1-7 rows, scores from {0..3} (heavy ties), rows of a query scattered."""
    n_queries = draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(1, 7), min_size=n_queries, max_size=n_queries))
    ids = draw(st.lists(st.integers(-20, 20), min_size=n_queries, max_size=n_queries, unique=True))
    qid = np.repeat(np.array(ids, dtype=np.int64), sizes)
    n = qid.size
    if float_labels:
        levels = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.25, 4.0])
    else:
        levels = st.integers(0, 4)
    labels = np.array(draw(st.lists(levels, min_size=n, max_size=n)))
    codes = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.int64)
    form = draw(st.sampled_from(["int", "fraction", "signed_zero"]))
    if form == "int":
        scores = codes.astype(np.float64)
    elif form == "fraction":
        scores = codes / 4.0 - 0.3  # non-integer scores, same tie structure
    else:
        # -0.0 and 0.0 are the same score: they must tie
        scores = np.array([-0.0, 0.0, 0.5, -1.0])[codes]
    perm = np.array(draw(st.permutations(range(n))), dtype=np.int64)
    return labels[perm], scores[perm], qid[perm]


def _check(
    metric: str,
    data: tuple,
    params: dict[str, Any],
    modes: tuple[str, ...],
) -> None:
    labels, scores, qid = data
    expected = per_query_all(metric, labels, scores, qid, **params)
    fn = getattr(rankmetrics, metric)
    plan = rankmetrics.QueryPlan(labels, qid)
    np.testing.assert_array_equal(plan.qids, np.unique(qid))
    for ties in modes:
        context = f"{metric} ties={ties} {params} labels={labels!r} scores={scores!r} qid={qid!r}"
        got = fn(labels, scores, qid, ties=ties, **params)
        assert isinstance(got, np.ndarray) and got.dtype == np.float64, context
        assert got.shape == expected[ties].shape, context
        np.testing.assert_allclose(got, expected[ties], rtol=1e-12, atol=1e-12, err_msg=context)
        got_plan = getattr(plan, metric)(scores, ties=ties, **params)
        np.testing.assert_allclose(
            got_plan, expected[ties], rtol=1e-12, atol=1e-12, err_msg="plan " + context
        )


def _gain_params(draw: st.DrawFn, metric: str, float_labels: bool) -> tuple[dict, bool]:
    """Parameters for a cg/dcg/ncg/ndcg family measure; returns (params, bounds_defined)."""
    params: dict[str, Any] = {
        "gain": draw(st.sampled_from(FLOAT_GAINS if float_labels else INT_GAINS))
    }
    bounds = True
    if metric.startswith(("dcg", "ndcg")):
        discount = draw(st.sampled_from(NAMED_DISCOUNTS + CALLABLE_DISCOUNTS))
        params["discount"] = discount
        params["log_base"] = draw(st.sampled_from(LOG_BASES))
        bounds = isinstance(discount, str)
    if metric.startswith(("ncg", "ndcg")):
        params["empty"] = draw(st.sampled_from([0.0, 1.0, "skip"]))
    return params, bounds


@SETTINGS
@given(data=st.data(), metric=st.sampled_from(GAIN_METRICS), float_labels=st.booleans())
def test_gain_measures_match_bruteforce(data: st.DataObject, metric: str, float_labels: bool):
    q = data.draw(queries(float_labels=float_labels))
    params, bounds = _gain_params(data.draw, metric, float_labels)
    params["k"] = data.draw(st.sampled_from(KS))
    modes = TIE_MODES if bounds else ("average", "stable")
    _check(metric, q, params, modes)


@SETTINGS
@given(
    data=st.data(),
    metric=st.sampled_from(BINARY_METRICS),
    float_labels=st.booleans(),
    k=st.sampled_from(KS),
    empty=st.sampled_from([0.0, 1.0, "skip"]),
)
def test_binary_measures_match_bruteforce(
    data: st.DataObject, metric: str, float_labels: bool, k: int | None, empty: Any
):
    q = data.draw(queries(float_labels=float_labels))
    thresholds = [0.5, 1, 1.5, 3] if float_labels else [1, 2, 3, 4]
    params: dict[str, Any] = {
        "k": k,
        "threshold": data.draw(st.sampled_from(thresholds)),
        "empty": empty,
    }
    if metric == "fbeta":
        params["beta"] = data.draw(st.sampled_from([0.5, 1.0, 2.0, 3.0]))
    if metric == "average_precision":
        params["denominator"] = data.draw(st.sampled_from(["relevant", "min_k_relevant"]))
    _check(metric, q, params, TIE_MODES)


@SETTINGS
@given(data=st.data(), metric=st.sampled_from(CURVES), float_labels=st.booleans())
def test_curves_match_bruteforce(data: st.DataObject, metric: str, float_labels: bool):
    q = data.draw(queries(float_labels=float_labels))
    params, bounds = _gain_params(data.draw, metric, float_labels)
    params["depth"] = data.draw(st.integers(1, 10))
    modes = TIE_MODES if bounds else ("average", "stable")
    _check(metric, q, params, modes)
    # column k-1 of a curve is the measure at cut-off k
    labels, scores, qid = q
    scalar = metric.removesuffix("_curve")
    curve = getattr(rankmetrics, metric)(labels, scores, qid, **params)
    scalar_params = {name: v for name, v in params.items() if name != "depth"}
    for k in range(1, params["depth"] + 1):
        at_k = getattr(rankmetrics, scalar)(labels, scores, qid, k=k, **scalar_params)
        np.testing.assert_allclose(curve[:, k - 1], at_k, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(data=st.data(), dcg=st.booleans(), float_labels=st.booleans())
def test_ideal_curves_match_bruteforce(data: st.DataObject, dcg: bool, float_labels: bool):
    labels, scores, qid = data.draw(queries(float_labels=float_labels))
    metric = "ideal_dcg_curve" if dcg else "ideal_cg_curve"
    params, _ = _gain_params(data.draw, "dcg" if dcg else "cg", float_labels)
    params["depth"] = data.draw(st.integers(1, 10))
    expected = per_query(metric, labels, None, qid, **params)
    got = getattr(rankmetrics, metric)(labels, qid, **params)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    got_plan = getattr(rankmetrics.QueryPlan(labels, qid), metric)(**params)
    np.testing.assert_allclose(got_plan, expected, rtol=1e-12, atol=1e-12)


# metric name in QueryPlan.evaluate -> (oracle measure, fixed parameters)
EVAL_NAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "ndcg@3": ("ndcg", {"k": 3}),
    "ndcg": ("ndcg", {}),
    "dcg": ("dcg", {}),
    "dcg@2": ("dcg", {"k": 2}),
    "cg@5": ("cg", {"k": 5}),
    "ncg@2": ("ncg", {"k": 2}),
    "precision@5": ("precision", {"k": 5}),
    "p@2": ("precision", {"k": 2}),
    "recall@3": ("recall", {"k": 3}),
    "r@1": ("recall", {"k": 1}),
    "f1@3": ("f1", {"k": 3}),
    "ap": ("average_precision", {}),
    "map": ("average_precision", {}),
    "ap@2": ("average_precision", {"k": 2}),
    "rr": ("reciprocal_rank", {}),
    "mrr": ("reciprocal_rank", {}),
    "rr@2": ("reciprocal_rank", {"k": 2}),
}


@SETTINGS
@given(
    data=st.data(),
    names=st.lists(st.sampled_from(sorted(EVAL_NAMES)), min_size=1, max_size=6, unique=True),
    ties=st.sampled_from(TIE_MODES),
    gain=st.sampled_from(["exponential", "linear", [0, 1, 10, 100, 1000]]),
    discount=st.sampled_from(NAMED_DISCOUNTS),
    log_base=st.sampled_from(LOG_BASES),
    threshold=st.sampled_from([1, 2]),
    empty=st.sampled_from([0.0, 1.0, "skip"]),
    denominator=st.sampled_from(["relevant", "min_k_relevant"]),
)
def test_plan_evaluate_matches_bruteforce(
    data: st.DataObject,
    names: list[str],
    ties: str,
    gain: Any,
    discount: str,
    log_base: int,
    threshold: int,
    empty: Any,
    denominator: str,
):
    labels, scores, qid = data.draw(queries())
    common = {
        "gain": gain,
        "discount": discount,
        "log_base": log_base,
        "threshold": threshold,
        "empty": empty,
        "denominator": denominator,
    }
    plan = rankmetrics.QueryPlan(labels, qid)
    got = plan.evaluate(scores, names, ties=ties, **common)
    assert set(got) == set(names)
    for name in names:
        measure, fixed = EVAL_NAMES[name]
        accepted = {
            "cg": ("gain",),
            "dcg": ("gain", "discount", "log_base"),
            "ncg": ("gain", "empty"),
            "ndcg": ("gain", "discount", "log_base", "empty"),
            "average_precision": ("threshold", "empty", "denominator"),
        }.get(measure, ("threshold", "empty"))
        params = {p: common[p] for p in accepted} | fixed
        expected = per_query(measure, labels, scores, qid, ties=ties, **params)
        np.testing.assert_allclose(
            got[name], expected, rtol=1e-12, atol=1e-12, err_msg=f"{name} {ties} {common}"
        )


@SETTINGS
@given(data=st.data(), metric=st.sampled_from(GAIN_METRICS + BINARY_METRICS))
def test_plan_from_group_sizes_matches_bruteforce(data: st.DataObject, metric: str):
    labels, scores, qid = data.draw(queries())
    order = np.argsort(qid, kind="stable")  # contiguous queries, rows keep their order
    labels, scores, qid = labels[order], scores[order], qid[order]
    _, sizes = np.unique(qid, return_counts=True)
    plan = rankmetrics.QueryPlan.from_group_sizes(labels, sizes)
    np.testing.assert_array_equal(plan.sizes, sizes)
    assert plan.n_queries == sizes.size
    k = data.draw(st.sampled_from(KS))
    for ties in TIE_MODES:
        expected = per_query(metric, labels, scores, qid, ties=ties, k=k)
        got = getattr(plan, metric)(scores, k=k, ties=ties)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(data=st.data(), metric=st.sampled_from(GAIN_METRICS + BINARY_METRICS))
def test_single_query_and_defaults_match_bruteforce(data: st.DataObject, metric: str):
    # qid=None: the whole input is one query; every parameter left at its default
    n = data.draw(st.integers(1, 7))
    labels = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    scores = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    expected = per_query(metric, labels, scores)
    got = getattr(rankmetrics, metric)(labels, scores)
    assert got.shape == (1,)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
