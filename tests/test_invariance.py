"""Invariance properties every rankmetrics measure must satisfy (no oracle needed).

* ties="average" does not depend on the order of the input rows (within or across queries);
* a strictly increasing transform of the scores changes nothing, in every tie mode;
* pessimistic <= average <= optimistic (named, non-increasing discounts);
* the 2-D (n_queries, n_docs) layout equals the flat layout with qid;
* ``*_score`` is the (weighted) mean of the per-query values, NaN queries left out;
* inputs are never mutated, read-only inputs work;
* lists, tuples, int / float32 / bool arrays and any sortable qid dtype are accepted.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import rankmetrics
from rankmetrics.core.functions import RENAMED

# RANKMETRICS_EXAMPLES=<n> runs a deeper search (e.g. before a release); the default keeps CI fast
SETTINGS = settings(
    max_examples=int(os.environ.get("RANKMETRICS_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# for the input-form tests, which make many calls per example and depend little on the data
LIGHT_SETTINGS = settings(SETTINGS, max_examples=max(1, SETTINGS.max_examples // 4))

# (function name, keyword arguments): every measure of the contract, several configurations
MEASURES: list[tuple[str, dict[str, Any]]] = [
    ("cg", {}),
    ("cg", {"k": 3, "gain": "linear"}),
    ("dcg", {"k": 5}),
    ("dcg", {"k": 4, "discount": "jarvelin2002", "log_base": 3}),
    ("dcg", {"discount": "jarvelin2008", "log_base": 10, "gain": [0, 1, 10, 100, 1000]}),
    ("ncg", {"k": 2}),
    ("ncg", {"k": 6, "gain": {0: 0, 1: 1, 2: 3, 3: 9, 4: 27}, "empty": "skip"}),
    ("ndcg", {}),
    ("ndcg", {"k": 1}),
    ("ndcg", {"k": 10, "discount": "none", "empty": 1.0}),
    ("ndcg", {"k": 3, "discount": "jarvelin2002", "log_base": 10, "empty": "skip"}),
    ("precision", {"k": 3}),
    ("precision", {"k": 10, "threshold": 2}),
    ("recall", {"k": 2, "threshold": 2}),
    ("recall", {"empty": "skip"}),
    ("f1", {"k": 4}),
    ("fbeta", {"k": 3, "beta": 2.0, "threshold": 3, "empty": 1.0}),
    ("average_precision", {}),
    ("average_precision", {"k": 3, "denominator": "min_k_relevant", "empty": "skip"}),
    ("reciprocal_rank", {}),
    ("reciprocal_rank", {"k": 2, "threshold": 2}),
]
CURVE_MEASURES: list[tuple[str, dict[str, Any]]] = [
    ("cg_curve", {"depth": 6}),
    ("dcg_curve", {"depth": 9, "discount": "jarvelin2008", "log_base": 3}),
    ("ncg_curve", {"depth": 4, "empty": "skip"}),
    ("ndcg_curve", {"depth": 12}),
]
ALL_MEASURES = MEASURES + CURVE_MEASURES
SCORE_FUNCTIONS = [
    "cg",
    "dcg",
    "ncg",
    "ndcg",
    "precision",
    "recall",
    "f1",
    "fbeta",
    "average_precision",
    "reciprocal_rank",
]
TIE_MODES = ("average", "optimistic", "pessimistic", "stable")


def _close(a: Any, b: Any, msg: str = "") -> None:
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=msg)


@st.composite
def datasets(draw: st.DrawFn, max_rows: int = 25) -> tuple:
    """1-5 queries of 1-max_rows rows, tie-heavy scores, rows of a query scattered."""
    n_queries = draw(st.integers(1, 5))
    sizes = draw(st.lists(st.integers(1, max_rows), min_size=n_queries, max_size=n_queries))
    ids = draw(st.lists(st.integers(0, 1000), min_size=n_queries, max_size=n_queries, unique=True))
    qid = np.repeat(np.array(ids, dtype=np.int64), sizes)
    n = qid.size
    labels = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=np.int64)
    n_levels = draw(st.sampled_from([2, 4, 50]))
    scores = np.array(
        draw(st.lists(st.integers(0, n_levels - 1), min_size=n, max_size=n)), dtype=np.float64
    )
    scores = scores / 8.0 - 1.0  # exact binary fractions: distinct values stay distinct
    perm = np.array(draw(st.permutations(range(n))), dtype=np.int64)
    return labels[perm], scores[perm], qid[perm]


def _call(name: str, kwargs: dict, labels: Any, scores: Any, qid: Any, **extra: Any) -> Any:
    return getattr(rankmetrics, name)(labels, scores, qid, **kwargs, **extra)


@SETTINGS
@given(data=datasets(), perm_seed=st.integers(0, 2**32 - 1))
def test_average_ignores_row_order(data: tuple, perm_seed: int) -> None:
    labels, scores, qid = data
    perm = np.random.default_rng(perm_seed).permutation(labels.size)
    for name, kwargs in ALL_MEASURES:
        before = _call(name, kwargs, labels, scores, qid)
        after = _call(name, kwargs, labels[perm], scores[perm], qid[perm])
        _close(after, before, f"{name} {kwargs}")


@SETTINGS
@given(data=datasets(), transform=st.sampled_from(["affine", "exp", "cube", "shift"]))
def test_strictly_increasing_score_transform_changes_nothing(data: tuple, transform: str) -> None:
    labels, scores, qid = data
    new = {
        "affine": lambda s: 3.0 * s + 1.0,
        "exp": np.exp,
        "cube": lambda s: s**3 + 5.0 * s,
        "shift": lambda s: s - 1e6,
    }[transform](scores)
    # the transform really is strictly increasing on these values (ties exactly preserved)
    order = np.argsort(scores, kind="stable")
    assert np.all(np.diff(new[order])[np.diff(scores[order]) > 0] > 0)
    assert np.all(np.diff(new[order])[np.diff(scores[order]) == 0] == 0)
    for name, kwargs in ALL_MEASURES:
        for ties in TIE_MODES:
            before = _call(name, kwargs, labels, scores, qid, ties=ties)
            after = _call(name, kwargs, labels, new, qid, ties=ties)
            _close(after, before, f"{name} {kwargs} {ties} {transform}")


@SETTINGS
@given(data=datasets())
def test_pessimistic_average_optimistic_order(data: tuple) -> None:
    labels, scores, qid = data
    for name, kwargs in ALL_MEASURES:
        low = _call(name, kwargs, labels, scores, qid, ties="pessimistic")
        mid = _call(name, kwargs, labels, scores, qid, ties="average")
        high = _call(name, kwargs, labels, scores, qid, ties="optimistic")
        stable = _call(name, kwargs, labels, scores, qid, ties="stable")
        nan = np.isnan(mid)
        for other in (low, high, stable):
            np.testing.assert_array_equal(np.isnan(other), nan)
        ok = ~nan
        msg = f"{name} {kwargs}"
        assert np.all(low[ok] <= mid[ok] + 1e-12), msg
        assert np.all(mid[ok] <= high[ok] + 1e-12), msg
        assert np.all(low[ok] <= stable[ok] + 1e-12), msg
        assert np.all(stable[ok] <= high[ok] + 1e-12), msg


@SETTINGS
@given(data=datasets())
def test_no_ties_all_modes_agree(data: tuple) -> None:
    labels, scores, qid = data
    distinct = scores + np.arange(labels.size) * 1e-3 / 8  # break every tie, keep strict order
    for name, kwargs in ALL_MEASURES:
        ref = _call(name, kwargs, labels, distinct, qid, ties="average")
        for ties in TIE_MODES[1:]:
            _close(_call(name, kwargs, labels, distinct, qid, ties=ties), ref, f"{name} {ties}")


@SETTINGS
@given(
    n_queries=st.integers(1, 5),
    n_docs=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
)
def test_2d_layout_equals_flat_layout(n_queries: int, n_docs: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 5, size=(n_queries, n_docs))
    scores = rng.integers(0, 4, size=(n_queries, n_docs)).astype(np.float64)
    qid = np.repeat(np.arange(n_queries), n_docs)
    for name, kwargs in ALL_MEASURES:
        for ties in TIE_MODES:
            two_d = getattr(rankmetrics, name)(labels, scores, **kwargs, ties=ties)
            flat = _call(name, kwargs, labels.ravel(), scores.ravel(), qid, ties=ties)
            assert two_d.shape == flat.shape, name
            _close(two_d, flat, f"{name} {kwargs} {ties}")
    for name in SCORE_FUNCTIONS:
        flat = _score_fn(name)(labels.ravel(), scores.ravel(), qid)
        if n_docs == 1 and name in ("ndcg", "dcg"):  # scikit-learn's names refuse it
            with pytest.raises(ValueError, match="more than 1 document per row"):
                _score_fn(name)(labels, scores)
            continue
        two_d = _score_fn(name)(labels, scores)
        _close(two_d, flat, name)


def _score_fn(name: str):
    """The mean form of a per-query function (the mean_* spelling where scikit-learn's name
    means a classification metric)."""
    full = name + "_score"
    return getattr(rankmetrics, RENAMED.get(full, full))


def _same_gain(name: str, kwargs: dict) -> dict:
    """ndcg_score/dcg_score default to scikit-learn's linear gain, the per-query functions to
    2**l - 1: give the score the per-query function's gain explicitly."""
    if name in ("ndcg", "dcg") and "gain" not in kwargs:
        return {**kwargs, "gain": "exponential"}
    return kwargs


@SETTINGS
@given(data=datasets(), weighted=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_score_is_weighted_mean_of_per_query_values(data: tuple, weighted: bool, seed: int) -> None:
    labels, scores, qid = data
    n_queries = np.unique(qid).size
    weights = np.random.default_rng(seed).uniform(0.1, 3.0, size=n_queries) if weighted else None
    for name, kwargs in MEASURES:
        for ties in ("average", "pessimistic"):
            values = _call(name, kwargs, labels, scores, qid, ties=ties)
            assert values.shape == (n_queries,)
            keep = ~np.isnan(values)
            w = np.ones(n_queries) if weights is None else weights
            expected = np.sum(values[keep] * w[keep]) / np.sum(w[keep]) if keep.any() else np.nan
            with warnings.catch_warnings():
                if not keep.any():  # nothing to average: NaN (a warning is allowed)
                    warnings.simplefilter("ignore", UserWarning)
                got = _score_fn(name)(
                    labels, scores, qid, **_same_gain(name, kwargs), ties=ties,
                    query_weight=weights
                )
            assert isinstance(got, float), name
            _close(got, expected, f"{name}_score {kwargs} {ties}")


@LIGHT_SETTINGS
@given(data=datasets(max_rows=10))
def test_inputs_are_not_mutated(data: tuple) -> None:
    labels, scores, qid = data
    lab32 = labels.astype(np.float32)
    weights = np.linspace(0.5, 2.0, np.unique(qid).size)
    inputs = [labels, scores, qid, lab32, weights]
    copies = [a.copy() for a in inputs]

    def unchanged(what: str) -> None:  # checked after every call
        for before, now in zip(copies, inputs, strict=True):
            np.testing.assert_array_equal(now, before, err_msg=what)
            assert now.dtype == before.dtype, what

    for name, kwargs in ALL_MEASURES:
        for ties in TIE_MODES:
            _call(name, kwargs, labels, scores, qid, ties=ties)
            unchanged(f"{name} {ties}")
            _call(name, kwargs, lab32, scores, qid, ties=ties)
            unchanged(f"{name} {ties} float32 labels")
    for name in SCORE_FUNCTIONS:
        _score_fn(name)(labels, scores, qid, query_weight=weights)
        unchanged(name + "_score")
    plan = rankmetrics.QueryPlan(labels, qid)
    unchanged("QueryPlan")
    plan.evaluate(scores, ["ndcg@3", "map", "mrr", "p@2"])
    unchanged("QueryPlan.evaluate")
    plan.ndcg(scores, k=3)
    unchanged("QueryPlan.ndcg")
    rankmetrics.ideal_dcg_curve(labels, qid, depth=5)
    unchanged("ideal_dcg_curve")


@LIGHT_SETTINGS
@given(data=datasets(max_rows=10))
def test_read_only_inputs_accepted(data: tuple) -> None:
    labels, scores, qid = data
    expected = {
        (name, i): _call(name, kwargs, labels, scores, qid)
        for i, (name, kwargs) in enumerate(ALL_MEASURES)
    }
    frozen = [labels.copy(), scores.copy(), qid.copy()]
    for a in frozen:
        a.flags.writeable = False
    for i, (name, kwargs) in enumerate(ALL_MEASURES):
        _close(_call(name, kwargs, *frozen), expected[(name, i)], name)
    plan = rankmetrics.QueryPlan(frozen[0], frozen[2])
    _close(plan.ndcg(frozen[1], k=3), rankmetrics.ndcg(labels, scores, qid, k=3))


@LIGHT_SETTINGS
@given(data=datasets(max_rows=10))
def test_array_like_and_dtypes_accepted(data: tuple) -> None:
    labels, scores, qid = data
    int_scores = (scores * 8).astype(np.int64)  # scores are multiples of 1/8: same order
    label_forms = [
        labels.tolist(),
        tuple(labels.tolist()),
        labels.astype(np.int32),
        labels.astype(np.uint8),
        labels.astype(np.float32),
        labels.astype(np.float64),
    ]
    score_forms = [
        scores.tolist(),
        tuple(scores.tolist()),
        scores.astype(np.float32),
        int_scores,
        int_scores.astype(np.int16),
        int_scores.tolist(),
    ]
    qid_forms = [qid.tolist(), tuple(qid.tolist()), qid.astype(np.float64), qid.astype(str)]
    for name, kwargs in ALL_MEASURES:
        for ties in ("average", "stable"):
            ref = _call(name, kwargs, labels, scores, qid, ties=ties)
            msg = f"{name} {kwargs} {ties}"
            for lab in label_forms:
                _close(_call(name, kwargs, lab, scores, qid, ties=ties), ref, msg)
            for sc in score_forms:
                _close(_call(name, kwargs, labels, sc, qid, ties=ties), ref, msg)
            for q in qid_forms[:3]:
                _close(_call(name, kwargs, labels, scores, q, ties=ties), ref, msg)
    # str ids sort lexicographically: compare against the same np.unique order
    str_qid = qid.astype(str)
    str_order = np.argsort(np.unique(qid).astype(str), kind="stable")
    for name, kwargs in ALL_MEASURES:
        ref = _call(name, kwargs, labels, scores, qid)
        _close(_call(name, kwargs, labels, scores, str_qid), ref[str_order], name)


@LIGHT_SETTINGS
@given(data=datasets(max_rows=10))
def test_bool_inputs_accepted(data: tuple) -> None:
    labels, scores, qid = data
    bool_labels = labels >= 2
    bool_scores = scores > np.median(scores)
    as_int_labels = bool_labels.astype(np.int64)
    as_float_scores = bool_scores.astype(np.float64)
    for name, kwargs in ALL_MEASURES:
        for ties in TIE_MODES:
            ref = _call(name, kwargs, as_int_labels, as_float_scores, qid, ties=ties)
            got = _call(name, kwargs, bool_labels, bool_scores, qid, ties=ties)
            _close(got, ref, f"{name} {kwargs} {ties}")


@SETTINGS
@given(data=datasets(max_rows=10))
def test_qid_renaming_follows_sorted_ids(data: tuple) -> None:
    # a decreasing relabelling of the ids reverses the per-query output
    labels, scores, qid = data
    for name, kwargs in ALL_MEASURES:
        ref = _call(name, kwargs, labels, scores, qid, ties="stable")
        got = _call(name, kwargs, labels, scores, 5000 - qid, ties="stable")
        _close(got, ref[::-1], f"{name} {kwargs}")


@pytest.mark.parametrize("name", SCORE_FUNCTIONS)
def test_score_skips_nan_queries(name: str) -> None:
    # query 0 has no relevant document (and zero ideal gain): skipped under empty="skip"
    labels = np.array([0, 0, 0, 2, 1, 0])
    scores = np.array([1.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    qid = np.array([0, 0, 0, 1, 1, 1])
    kwargs = {} if name in ("cg", "dcg") else {"empty": "skip"}
    per_q = getattr(rankmetrics, name)(labels, scores, qid, k=2, **kwargs)
    kwargs = _same_gain(name, kwargs)
    if name not in ("cg", "dcg"):
        assert np.isnan(per_q[0]) and not np.isnan(per_q[1])
    got = _score_fn(name)(labels, scores, qid, k=2, **kwargs)
    expected = per_q[1] if name not in ("cg", "dcg") else per_q.mean()
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    weighted = _score_fn(name)(
        labels, scores, qid, k=2, query_weight=[10.0, 1.0], **kwargs
    )
    if name in ("cg", "dcg"):
        expected = (10 * per_q[0] + per_q[1]) / 11
    assert weighted == pytest.approx(expected, rel=1e-12, abs=1e-12)
