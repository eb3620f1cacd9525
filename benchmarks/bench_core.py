"""Tie-aware nDCG@10 side by side on the MSLR-WEB30K-sized reference validation set.

Run:  python benchmarks/bench_core.py [--queries 10000] [--repeat 5] [--scaling]

Builds 10 000 queries with 20..220 documents (about 1.2 M rows), labels skewed about
52/31/13/2/1 %, scores quantised so about half the documents tie with another of their query
(``rankmetrics.datasets.make_benchmark_scores``), and times nDCG@10 in one process, one thread,
median of ``--repeat`` runs:

* rankmetrics, ties="average", one call from raw arrays (plan built inside);
* rankmetrics with a cached ``QueryPlan`` (what an eval function does every boosting round);
* LightGBM's built-in ndcg@10 on the same scores (validation Dataset with init_score=scores on a
  0-tree Booster, ``eval_valid()``); not tie-aware;
* scikit-learn ``ndcg_score(k=10, ignore_ties=False)`` on a padded matrix (tie-averaged);
* a bare ``np.lexsort((-score, qid))`` (the sort every evaluator needs).

``--scaling`` also times the cached-plan call from 1e5 to 1e7 rows to show linear cost.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402

import rankmetrics as rm  # noqa: E402
from rankmetrics.datasets import make_benchmark_scores  # noqa: E402


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def lightgbm_builtin(y: np.ndarray, s: np.ndarray, sizes: np.ndarray) -> Callable[[], object]:
    """A callable that evaluates LightGBM's own ndcg@10 on fixed scores ``s``."""
    import lightgbm as lgb

    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": [10], "num_threads": 1,
              "verbose": -1}
    x = np.zeros((y.shape[0], 1))
    train = lgb.Dataset(x[:2], label=y[:2], group=[2], params=params, free_raw_data=False)
    booster = lgb.Booster(params, train)  # no boosting round: predictions = init_score
    valid = lgb.Dataset(x, label=y, group=sizes, init_score=s, reference=train, params=params)
    booster.add_valid(valid, "valid")
    return booster.eval_valid


def sklearn_padded(y: np.ndarray, s: np.ndarray, sizes: np.ndarray) -> Callable[[], object]:
    from sklearn.metrics import ndcg_score

    n_q, width = sizes.shape[0], int(sizes.max())
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    row = np.repeat(np.arange(n_q), sizes)
    col = np.arange(y.shape[0]) - offsets[row]
    yt = np.zeros((n_q, width))
    ys = np.full((n_q, width), s.min() - 1.0)  # padding ranks last and has gain 0
    yt[row, col] = y
    ys[row, col] = s
    return lambda: ndcg_score(yt, ys, k=10, ignore_ties=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scaling", action="store_true")
    ap.add_argument("--skip-sklearn", action="store_true")
    args = ap.parse_args()

    y, s, q = make_benchmark_scores(args.queries)
    sizes = np.bincount(q)
    print(f"{y.shape[0]:,} rows, {sizes.shape[0]:,} queries; numpy {np.__version__}; "
          f"{platform.processor() or platform.machine()}; 1 thread; median of {args.repeat}")

    plan = rm.QueryPlan(y, q)
    rows: list[tuple[str, float]] = []
    ref = rm.ndcg(y, s, q, k=10)
    np.testing.assert_allclose(plan.ndcg(s, k=10), ref)
    rows.append(("rankmetrics ndcg@10 (one call, plan built inside)",
                 median_ms(lambda: rm.ndcg(y, s, q, k=10), args.repeat)))
    rows.append(("rankmetrics ndcg@10 (cached QueryPlan)",
                 median_ms(lambda: plan.ndcg(s, k=10), args.repeat)))
    try:
        rows.append(("LightGBM built-in ndcg@10 (eval_valid, not tie-aware)",
                     median_ms(lightgbm_builtin(y, s, sizes), args.repeat)))
    except ImportError:
        print("lightgbm not installed: skipped")
    if not args.skip_sklearn:
        try:
            rows.append(("sklearn ndcg_score(k=10) padded, ties averaged",
                         median_ms(sklearn_padded(y, s, sizes), max(1, args.repeat // 2))))
        except ImportError:
            print("scikit-learn not installed: skipped")
    rows.append(("np.lexsort((-score, qid))", median_ms(lambda: np.lexsort((-s, q)), args.repeat)))

    cached = rows[1][1]
    print(f"\n| {'what':<56} | {'ms':>8} | {'vs cached plan':>14} |")
    print(f"|{'-' * 58}|{'-' * 10}|{'-' * 16}|")
    for name, ms in rows:
        print(f"| {name:<56} | {ms:8.1f} | {ms / cached:13.2f}x |")

    if args.scaling:
        print("\nscaling (cached QueryPlan, ndcg@10):")
        print(f"| {'rows':>10} | {'ms':>8} | {'ns/row':>7} |")
        for n_q in (830, 8_300, 83_000):
            yy, ss, qq = make_benchmark_scores(n_q, random_state=1)
            p = rm.QueryPlan(yy, qq)
            ms = median_ms(lambda p=p, ss=ss: p.ndcg(ss, k=10), 3)
            print(f"| {yy.shape[0]:>10,} | {ms:8.1f} | {1e6 * ms / yy.shape[0]:7.1f} |")


if __name__ == "__main__":
    main()
