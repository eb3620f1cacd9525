"""Where the time of the many-measures call goes: packing the sort keys, numpy's sort, the kernel.

Run:  python benchmarks/bench_many.py [--repeat 15]

On the reference shape (``make_benchmark_scores()``: 10 000 queries of 20..220 documents, half
the documents tied) with a cached ``QueryPlan``, one thread, process CPU time, medians of
``--repeat`` calls: one nDCG@10, whole-list MAP, and nDCG@1,3,5,10 + MAP + MRR + P@10 in one
``evaluate`` (the seven measures of ``bench_shapes.py``), each split into the time spent
packing the sort keys of lists ranked whole (``backend._pack``), in the compiled kernel
(``eval_segments``: reading the keys back, the walks) and the rest (numpy's sort of the packed
keys, the Python side). Twice: with warm caches, and with the CPU caches evicted before every
call (a 64 MiB array summed), as the interleaved ``bench_shapes.py`` evicts them by running
LightGBM between our calls. Prints the many-measures call as a multiple of one nDCG@10 in
both settings. The wrappers add a few microseconds per kernel call (27 calls per evaluate).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

import rankmetrics as rm  # noqa: E402
from rankmetrics.core import backend  # noqa: E402
from rankmetrics.datasets import make_benchmark_scores  # noqa: E402

MANY = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "map", "mrr", "p@10"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if backend.get_backend() != "numba":
        ap.error("the split needs the compiled kernel (install numba)")
    y, s, q = make_benchmark_scores()
    plan = rm.QueryPlan(y, q)
    nk = backend._numba_module()
    spent: dict[str, float] = {}

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*a: Any) -> Any:
            t = time.process_time()
            try:
                return fn(*a)
            finally:
                spent[name] = spent.get(name, 0.0) + time.process_time() - t
        return wrapper

    pack, kernel = backend._pack, nk.eval_segments
    backend._pack = timed("pack", pack)
    nk.eval_segments = timed("kernel", kernel)
    trash = np.ones(8 << 20)  # 64 MiB: more than the last-level cache
    calls = {"nDCG@10": lambda: plan.ndcg(s, k=10), "MAP": lambda: plan.evaluate(s, ["map"]),
             "seven measures": lambda: plan.evaluate(s, MANY)}
    try:
        for fn in calls.values():
            fn()  # compiles or loads the kernel
        print(f"reference shape, {y.shape[0]:,} rows; one thread, process CPU time, median of "
              f"{args.repeat} calls; load average {os.getloadavg()[0]:.2f}")
        for cold in (False, True):
            print(f"\n{'caches evicted before each call' if cold else 'warm caches'}\n")
            print("| call | total ms | packing keys ms | kernel ms | rest ms (sort, Python) |")
            print("|---|---:|---:|---:|---:|")
            totals = {}
            for name, fn in calls.items():
                rows = []
                for _ in range(args.repeat):
                    if cold:
                        trash.sum()
                    spent.clear()
                    t = time.process_time()
                    fn()
                    total = time.process_time() - t
                    rows.append((total, spent.get("pack", 0.0), spent.get("kernel", 0.0)))
                tot, pk, ke = (1e3 * statistics.median(c) for c in zip(*rows, strict=True))
                totals[name] = tot
                print(f"| {name} | {tot:.2f} | {pk:.2f} | {ke:.2f} | {tot - pk - ke:.2f} |")
            print(f"\nseven measures / one nDCG@10: "
                  f"{totals['seven measures'] / totals['nDCG@10']:.2f}x")
        print(f"\n(load average {os.getloadavg()[0]:.2f})")
    finally:
        backend._pack, nk.eval_segments = pack, kernel


if __name__ == "__main__":
    main()
