"""Peak extra memory (tracemalloc) of metric calls on several workload shapes.

Run:  python benchmarks/bench_memory.py [--rows 5e6] [--quick] [--kernel numba|numpy]

Shapes: one query of ``--rows`` rows (float64 labels and scores, int64 qid; and int8 / float32 /
int32), the reference shape ``make_benchmark_scores(2000)`` (~240 k rows) with contiguous and
with shuffled rows, and 100 000 queries of 1..4 rows (where what a call holds per query, such
as the layout, the ideal and the results, outweighs what it holds per row). Prints peak extra
memory as a multiple of the inputs and in bytes per row, the size of the call's result (the
per-query values it returns: a curve of depth 100 holds 100 float64 per query, four measures 4),
and the peak less the result: the memory the call needs beyond what it hands back.
``tests/test_memory.py`` asserts the bounds (2x the inputs, 24 bytes per row) on the peak of
every call of the first three shapes and of every single measure on the last one, and on the
peak less the result of every call.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc

import numpy as np

import rankmetrics as rm
from rankmetrics.datasets import make_benchmark_scores

CALLS = {
    "ndcg@10": lambda y, s, q: rm.ndcg(y, s, q, k=10),
    "ndcg": lambda y, s, q: rm.ndcg(y, s, q),
    "ap": lambda y, s, q: rm.average_precision(y, s, q),
    "rr": lambda y, s, q: rm.reciprocal_rank(y, s, q),
    "p@10 optimistic": lambda y, s, q: rm.precision(y, s, q, k=10, ties="optimistic"),
    "ndcg optimistic": lambda y, s, q: rm.ndcg(y, s, q, ties="optimistic"),
    "ndcg_curve depth 100": lambda y, s, q: rm.ndcg_curve(y, s, q, depth=100),
    "evaluate ndcg@10,map,mrr,p@5": lambda y, s, q: rm.QueryPlan(y, q).evaluate(
        s, ["ndcg@10", "map", "mrr", "p@5"]),
}


def result_bytes(res: object) -> int:
    """Bytes of the numpy arrays a call returns (an array, or a dict of them)."""
    vals = res.values() if isinstance(res, dict) else [res]
    return sum(v.nbytes for v in vals if isinstance(v, np.ndarray))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=5e6, help="length of the one huge query")
    ap.add_argument("--quick", action="store_true", help="a 500 000-row query")
    ap.add_argument("--kernel", choices=["numba", "numpy"], default=None,
                    help="backend (default: the compiled kernel when numba is installed)")
    args = ap.parse_args(argv)
    if args.kernel is not None:
        rm.set_backend(args.kernel)
    n = 500_000 if args.quick else int(args.rows)
    rng = np.random.default_rng(0)
    y = rng.choice(5, n, p=[0.5, 0.3, 0.13, 0.05, 0.02])
    s = np.round(rng.random(n), 3)
    yb, sb, qb = make_benchmark_scores(2000, random_state=3)
    perm = rng.permutation(yb.size)
    qt = np.repeat(np.arange(100_000), rng.integers(1, 5, 100_000))
    yt = rng.integers(0, 4, qt.size)
    st = np.round(rng.normal(size=qt.size), 1)
    shapes = {
        f"one query of {n:,} rows": (y.astype(np.float64), s, np.zeros(n, np.int64)),
        f"one query of {n:,} rows, int8/float32/int32": (
            y.astype(np.int8), s.astype(np.float32), np.zeros(n, np.int32)),
        f"{qb.max() + 1:,} queries, {yb.size:,} rows": (yb.astype(np.float64), sb, qb),
        f"{qb.max() + 1:,} queries, {yb.size:,} rows, shuffled": (
            yb[perm].astype(np.float64), sb[perm], qb[perm]),
        f"{qb.max() + 1:,} queries, {yb.size:,} rows, shuffled, int8/float32/int32": (
            yb[perm].astype(np.int8), sb[perm].astype(np.float32), qb[perm].astype(np.int32)),
        f"100,000 queries of 1..4 rows, {qt.size:,} rows": (yt.astype(np.float64), st, qt),
        f"100,000 queries of 1..4 rows, {qt.size:,} rows, int8/float32/int32": (
            yt.astype(np.int8), st.astype(np.float32), qt.astype(np.int32)),
    }
    print(f"kernel {rm.get_backend()}; peak extra memory by tracemalloc (numpy buffers)\n")
    print("| shape | call | peak / inputs | bytes per row | result, bytes per row "
          "| peak less result / inputs | bytes per row | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    worst = (0.0, "")
    worst_work = (0.0, "")
    worst_ratio = (0.0, "")
    for shape, (yy, ss, qq) in shapes.items():
        inputs = yy.nbytes + ss.nbytes + qq.nbytes
        for name, fn in CALLS.items():
            # imports and compiled code, long-list paths included (20 000 rows: one list of
            # more than 4096 rows on the one-query shapes)
            fn(yy[:20_000], ss[:20_000], qq[:20_000])
            tracemalloc.start()
            t0 = time.perf_counter()
            try:
                res = fn(yy, ss, qq)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            n = yy.shape[0]
            out = result_bytes(res)
            print(f"| {shape} | {name} | {peak / inputs:.2f}x | {peak / n:.1f} | {out / n:.1f} | "
                  f"{(peak - out) / inputs:.2f}x | {(peak - out) / n:.1f} | "
                  f"{time.perf_counter() - t0:.2f} |", flush=True)
            del res
            worst = max(worst, (peak / n, f"{name} on {shape}"))
            worst_work = max(worst_work, ((peak - out) / n, f"{name} on {shape}"))
            worst_ratio = max(worst_ratio, ((peak - out) / inputs, f"{name} on {shape}"))
    print(f"\nlargest peak: {worst[0]:.1f} bytes per row ({worst[1]})")
    print(f"largest peak less the result: {worst_work[0]:.1f} bytes per row "
          f"({worst_work[1]}); {worst_ratio[0]:.2f}x the inputs ({worst_ratio[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
