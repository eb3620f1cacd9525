"""The kernel's peak extra memory stays within 3x the inputs (tracemalloc sees numpy buffers)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import rankmetrics as rm
from rankmetrics.datasets import make_benchmark_scores


@pytest.fixture(scope="module")
def data():
    return make_benchmark_scores(2000, random_state=3)  # ~240k rows, heavy ties


CALLS = {
    "ndcg@10": lambda y, s, q: rm.ndcg(y, s, q, k=10),
    "ndcg": lambda y, s, q: rm.ndcg(y, s, q),
    "average_precision": lambda y, s, q: rm.average_precision(y, s, q),
    "reciprocal_rank": lambda y, s, q: rm.reciprocal_rank(y, s, q),
    "precision@10 optimistic": lambda y, s, q: rm.precision(y, s, q, k=10, ties="optimistic"),
    "ndcg_curve": lambda y, s, q: rm.ndcg_curve(y, s, q, depth=100),
    "evaluate": lambda y, s, q: rm.QueryPlan(y, q).evaluate(s, ["ndcg@10", "map", "mrr", "p@5"]),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_peak_extra_memory_within_three_times_inputs(data, name):
    y, s, q = data
    inputs = y.nbytes + s.nbytes + q.nbytes
    shuffled = np.random.default_rng(0).permutation(y.shape[0])  # non-contiguous queries too
    for yy, ss, qq in [(y, s, q), (y[shuffled], s[shuffled], q[shuffled])]:
        tracemalloc.start()
        try:
            CALLS[name](yy, ss, qq)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak <= 3 * inputs, f"{name}: peak {peak / inputs:.2f}x inputs"
