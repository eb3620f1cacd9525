"""ERR (Chapelle et al. 2009) exact under ties: brute force over every tied ordering."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from _extras import require
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmetrics as rm
from rankmetrics import QueryPlan
from rankmetrics.core.err import _symmetric_means, err_at_cutoffs, stop_probabilities
from rankmetrics.core.kernel import padded


def _err_plain(stops: list[float], k: int | None) -> float:
    total, reach = 0.0, 1.0
    for r, p in enumerate(stops[: len(stops) if k is None else k], 1):
        total += reach * p / r
        reach *= 1.0 - p
    return total


def _brute(labels, scores, k, gmax):
    """(mean, max, min, stable) of plain ERR over every ordering consistent with the scores."""
    stops = [(2.0**g - 1.0) / 2.0**gmax for g in labels]
    levels = sorted(set(scores), reverse=True)
    groups = [[i for i, s in enumerate(scores) if s == v] for v in levels]
    vals = []
    for choice in itertools.product(*[itertools.permutations(g) for g in groups]):
        order = [i for part in choice for i in part]
        vals.append(_err_plain([stops[i] for i in order], k))
    stable = sorted(range(len(scores)), key=lambda i: -scores[i])
    return (sum(vals) / len(vals), max(vals), min(vals),
            _err_plain([stops[i] for i in stable], k))


@pytest.fixture(autouse=True)
def _numpy_kernel():
    """The numpy reference kernel (the compiled one: tests/test_err_rbp.py)."""
    before = rm.get_backend()
    rm.set_backend("numpy")
    yield
    rm.set_backend(before)


def test_compiled_ranking_goes_to_the_compiled_err():
    require("numba")
    rm.set_backend("numba")
    plan = QueryPlan([1, 0])
    stop = np.array([0.5, 0.0, 0.0])
    got = err_at_cutoffs(plan.rank([1.0, 1.0]), 1, stop, "average", [None, 1])
    np.testing.assert_array_equal(got[:, 0], [(0.5 + 0.25) / 2, 0.25])


def _ours(labels, scores, k, gmax, ties):
    plan = QueryPlan(labels)
    ranking = plan.rank(scores, depth=k, ties=ties)
    stop = padded(stop_probabilities(plan.labels, gmax), 0.0)
    return float(err_at_cutoffs(ranking, 1, stop, ties, [k])[0, 0])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    data=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=1, max_size=7),
    k=st.one_of(st.none(), st.integers(1, 8)),
)
def test_err_matches_brute_force_every_tie_mode(data, k):
    labels = [float(a) for a, _ in data]
    scores = [float(b) for _, b in data]
    mean, hi, lo, stable = _brute(labels, scores, k, 4)
    assert _ours(labels, scores, k, 4, "average") == pytest.approx(mean, abs=1e-12)
    assert _ours(labels, scores, k, 4, "optimistic") == pytest.approx(hi, abs=1e-12)
    assert _ours(labels, scores, k, 4, "pessimistic") == pytest.approx(lo, abs=1e-12)
    assert _ours(labels, scores, k, 4, "stable") == pytest.approx(stable, abs=1e-12)


def test_symmetric_means_equal_subset_enumeration():
    rng = np.random.default_rng(0)
    q = rng.random((3, 6))
    got = _symmetric_means(q, 6)
    for row in range(3):
        for m in range(7):
            subsets = list(itertools.combinations(q[row], m))
            want = sum(math.prod(s) for s in subsets) / math.comb(6, m)
            assert got[row, m] == pytest.approx(want, abs=1e-14)


def test_group_of_three_by_hand():
    # labels 1, 0, 0 all tied, gmax 1: R = 1/2 for one document; it sits at rank 1, 2 or 3
    want = (0.5 / 1 + 0.5 / 2 + 0.5 / 3) / 3
    assert _ours([1, 0, 0], [1.0, 1.0, 1.0], None, 1, "average") == pytest.approx(want)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), k=st.sampled_from([1, 2, 3, None]))
def test_err_many_queries_with_partial_selection(seed, k):
    """Several queries of 8..16 rows (the cutoff path selects candidates by np.partition)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(8, 17, size=4)
    labels, scores, qid = [], [], []
    for q, n in enumerate(sizes):
        s = rng.permutation(n).astype(float)
        tie = rng.choice(n, size=3, replace=False)
        s[tie] = s[tie[0]]  # one tie group of three
        labels += rng.integers(0, 4, size=n).tolist()
        scores += s.tolist()
        qid += [q] * n
    plan = QueryPlan(labels, qid)
    stop = padded(stop_probabilities(plan.labels, 3), 0.0)
    for ties, pick in (("average", 0), ("optimistic", 1), ("pessimistic", 2)):
        got = err_at_cutoffs(plan.rank(scores, depth=k, ties=ties), 4, stop, ties, [k])[0]
        for q in range(4):
            rows = [i for i in range(len(qid)) if qid[i] == q]
            want = _brute([labels[i] for i in rows], [scores[i] for i in rows], k, 3)[pick]
            assert got[q] == pytest.approx(want, abs=1e-12)
