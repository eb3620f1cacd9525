"""Run the compiled kernel with numba's bounds checking on every work-buffer sizing path.

Run:  NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/check_kernel_bounds.py

numba does not check indices by default, so a work buffer sized too small
(``rankmetrics/core/_numba_sizes.py``: candidates of a small cutoff, the bounds' value buffer;
the fixed-size merge and sparse buffers) would corrupt memory silently. With
``NUMBA_BOUNDSCHECK=1`` (and a fresh cache directory, so that nothing compiled without checks
is reused) an out-of-bounds index raises IndexError instead. Every metric, tie rule and small
or large cutoff on one long query, many queries and long interleaved queries; a few minutes,
most of it compiling. Prints "bounds ok".
"""

from __future__ import annotations

import os
import sys

import numpy as np

import rankmetrics as rm
from rankmetrics.datasets import make_benchmark_scores


def main() -> int:
    if os.environ.get("NUMBA_BOUNDSCHECK") != "1":
        print("set NUMBA_BOUNDSCHECK=1 (and a fresh NUMBA_CACHE_DIR)", file=sys.stderr)
        return 2
    rng = np.random.default_rng(0)
    n = 200_000
    y = rng.choice(5, n, p=[0.5, 0.3, 0.13, 0.05, 0.02])
    s = np.round(rng.random(n), 3)
    yb, sb, qb = make_benchmark_scores(200, random_state=3)
    perm = rng.permutation(yb.size)
    small = np.repeat(np.arange(5_000), rng.integers(1, 25, 5_000))
    shapes = [
        (y.astype(np.float64), s, np.zeros(n, np.int64)),
        (y.astype(np.int8), s.astype(np.float32), np.zeros(n, np.int32)),
        (yb, sb, qb),
        (yb[perm], sb[perm], qb[perm]),
        (y, np.zeros(n), np.zeros(n, np.int64)),
        (y, s, np.repeat(np.arange(5), n // 5)[rng.permutation(n)]),
        # lists of 1..24 rows (read by counting), tied scores
        (y[: small.size], np.round(s[: small.size], 1), small),
    ]
    for yy, ss, qq in shapes:
        for t in ("average", "optimistic", "pessimistic", "stable"):
            for k in (1, 10, 64, 65, None):
                rm.ndcg(yy, ss, qq, k=k, ties=t)
                rm.precision(yy, ss, qq, k=k, ties=t)
                rm.average_precision(yy, ss, qq, k=k, ties=t)
            plan = rm.QueryPlan(yy, qq)
            plan.evaluate(ss, ["ndcg@10", "map", "mrr", "p@5", "ndcg"], ties=t)
            plan.evaluate(ss, ["ndcg@10", "mrr@5", "p@5"], ties=t)
            rm.ndcg_curve(yy, ss, qq, depth=20, ties=t)
            rm.ndcg_curve(yy, ss, qq, depth=100, ties=t)
            rm.err(yy, ss, qq, k=10, ties=t)
    print("bounds ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
