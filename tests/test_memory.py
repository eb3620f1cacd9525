"""Peak extra memory of metric calls (tracemalloc sees numpy buffers).

The compiled kernel allocates every array it keeps or needs per row through numpy (tracked
here); its own stack buffers are O(log n). Bounds, on every workload shape: many small
queries (contiguous, shuffled), one huge query (issue #17 item 12):

* at most 2x the inputs for 64-bit inputs (float64 labels and scores, int64 qids);
* at most 32 bytes per row whatever the input dtypes. A one-call function keeps integer and
  float64 labels as given; the label side is then the float64 gains (8 bytes per row) or float32
  relevance (4); a ``QueryPlan`` copies its labels (8). The fused pass holds the candidates of
  one query (scores and row indices: 12 bytes per row of the longest query), a grouped row
  order 4 when qids are not contiguous, and a whole-list nDCG of one huge query its discount
  table (8 bytes per rank).

``RANKMETRICS_MEMORY_ROWS`` sets the huge query's length (default 5 000 000).
"""

from __future__ import annotations

import os
import tracemalloc

import numpy as np
import pytest

import rankmetrics as rm
from rankmetrics.datasets import make_benchmark_scores

HUGE = int(float(os.environ.get("RANKMETRICS_MEMORY_ROWS", "5e6")))
MAX_BYTES_PER_ROW = 32


@pytest.fixture(scope="module")
def shapes() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    y, s, q = make_benchmark_scores(2000, random_state=3)  # ~240k rows, heavy ties
    y = y.astype(np.float64)
    shuffled = np.random.default_rng(0).permutation(y.shape[0])  # non-contiguous queries too
    rng = np.random.default_rng(1)
    n = HUGE
    yh = rng.choice(5, n, p=[0.5, 0.3, 0.13, 0.05, 0.02]).astype(np.float64)
    sh = np.round(rng.random(n), 3)  # ~5 000 documents per tie group
    return {
        "many queries": (y, s, q),
        "many queries, shuffled": (y[shuffled], s[shuffled], q[shuffled]),
        "many queries, shuffled, int8/float32/int32": (
            y[shuffled].astype(np.int8), s[shuffled].astype(np.float32),
            q[shuffled].astype(np.int32)),
        "one huge query": (yh, sh, np.zeros(n, dtype=np.int64)),
    }


CALLS = {
    "ndcg@10": lambda y, s, q: rm.ndcg(y, s, q, k=10),
    "ndcg": lambda y, s, q: rm.ndcg(y, s, q),
    "average_precision": lambda y, s, q: rm.average_precision(y, s, q),
    "reciprocal_rank": lambda y, s, q: rm.reciprocal_rank(y, s, q),
    "precision@10 optimistic": lambda y, s, q: rm.precision(y, s, q, k=10, ties="optimistic"),
    "ndcg_curve": lambda y, s, q: rm.ndcg_curve(y, s, q, depth=20),
    "evaluate": lambda y, s, q: rm.QueryPlan(y, q).evaluate(s, ["ndcg@10", "map", "mrr", "p@5"]),
}
# the huge query runs the whole-list measures of issue #17 item 12
HUGE_CALLS = ("ndcg", "average_precision", "reciprocal_rank")


def _peak(fn, *args) -> int:
    tracemalloc.start()
    try:
        fn(*args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


CASES = [(shape, name) for shape in ("many queries", "many queries, shuffled",
                                     "many queries, shuffled, int8/float32/int32")
         for name in CALLS] + [("one huge query", name) for name in HUGE_CALLS]


@pytest.mark.parametrize(("shape", "name"), CASES)
def test_peak_extra_memory(shapes, shape: str, name: str) -> None:
    y, s, q = shapes[shape]
    CALLS[name](y[:300], s[:300], q[:300])  # first call of a dtype: imports, compiled code
    inputs = y.nbytes + s.nbytes + q.nbytes
    peak = _peak(CALLS[name], y, s, q)
    per_row = peak / y.shape[0]
    assert per_row <= MAX_BYTES_PER_ROW, f"{name} on {shape}: {per_row:.1f} bytes per row"
    if y.dtype.itemsize == 8 and s.dtype.itemsize == 8 and q.dtype.itemsize == 8:
        assert peak <= 2 * inputs, f"{name} on {shape}: peak {peak / inputs:.2f}x inputs"
