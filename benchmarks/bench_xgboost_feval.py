"""Per-round cost of rankmetrics' XGBoost custom metric against XGBoost's built-in ndcg@10.

Two measurements, one thread, on the reference validation set of the core benchmark
(``rankmetrics.datasets.make_benchmark_scores()``: 10 000 queries, ~1.2 M rows, labels 0..4):

1. *Inside xgb.train.* Five trainings that differ only in evaluation, interleaved and repeated:
   no evaluation set (baseline), the built-in ``eval_metric="ndcg@10"``, a do-nothing
   ``custom_metric`` (the price of XGBoost predicting the validation set and handing the
   predictions to Python), our ``make_custom_metric("ndcg", k=10)`` and ours with
   ``bounds=True``. A callback time-stamps every round; the extra cost of an evaluation is the
   median round time minus the baseline's. Times are process CPU time (``time.process_time``):
   with one thread this is the work done, little affected by other processes sharing the cores
   (wall time is printed beside it). The validation rows get 8 random 5-level ordinal features,
   which keep the model's scores heavily tied; the model is trained on a small
   ``make_ranking_data`` set with the same 8 discrete columns.
2. *One evaluation of fixed scores.* The benchmark's own scores (half the documents tied):
   XGBoost's ndcg@10 through a zero-tree booster whose DMatrix carries ``base_margin=scores``
   against one call of our custom metric on a DMatrix.

Medians with the spread (25th-75th percentile of the per-round times) and the 1-minute load
average before and after are printed: the benchmark machine may be shared with other jobs.

Run (a minute or two)::

    python benchmarks/bench_xgboost_feval.py            # full size
    python benchmarks/bench_xgboost_feval.py --quick    # 1 000 queries, smoke test
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import xgboost as xgb

from rankmetrics.datasets import make_benchmark_scores, make_ranking_data
from rankmetrics.xgboost import make_custom_metric

N_FEATURES = 8


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:  # pragma: no cover - platform without getloadavg
        return "n/a"


def _spread(xs: list[float]) -> tuple[float, float, float]:
    q1, med, q3 = np.percentile(xs, [25, 50, 75])
    return float(med), float(q1), float(q3)


class RoundTimer(xgb.callback.TrainingCallback):
    """Records CPU and wall time at the end of every round (update + evaluation)."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu = [time.process_time()]
        self.wall = [time.perf_counter()]

    def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
        self.cpu.append(time.process_time())
        self.wall.append(time.perf_counter())
        return False

    def rounds(self) -> tuple[list[float], list[float]]:
        # round 1 also builds caches (our plan, XGBoost's metric cache): left out
        return list(np.diff(self.cpu)[1:]), list(np.diff(self.wall)[1:])


def _noop(predt: np.ndarray, dmatrix: Any) -> tuple[str, float]:
    return "noop", 0.0


def build_data(n_queries: int, n_train_queries: int, seed: int) -> dict[str, Any]:
    y, scores, qid = make_benchmark_scores(n_queries=n_queries, random_state=seed)
    rng = np.random.default_rng(seed + 1)
    X_valid = rng.integers(0, 5, size=(len(y), N_FEATURES)).astype(np.float32)
    train = make_ranking_data(n_train_queries, n_features=N_FEATURES, n_discrete=N_FEATURES,
                              random_state=seed)
    return {"y": y, "scores": scores, "qid": qid, "X_valid": X_valid, "train": train}


def bench_in_training(d: dict[str, Any], rounds: int,
                      repeats: int) -> dict[str, tuple[list[float], list[float]]]:
    base = {"objective": "rank:ndcg", "max_depth": 4, "eta": 0.1, "nthread": 1,
            "tree_method": "hist", "seed": 0}
    dtrain = xgb.DMatrix(d["train"].X, label=d["train"].y, qid=d["train"].qid)
    dvalid = xgb.DMatrix(d["X_valid"], label=d["y"], qid=d["qid"])
    off = {"disable_default_eval_metric": 1}
    configs: dict[str, tuple[dict[str, Any], bool, Callable[[], Any]]] = {
        "no evaluation (baseline)": ({}, False, lambda: None),
        'built-in eval_metric="ndcg@10"': ({"eval_metric": "ndcg@10"}, True, lambda: None),
        "do-nothing custom_metric": (off, True, lambda: _noop),
        'rankmetrics make_custom_metric("ndcg", k=10)': (
            off, True, lambda: make_custom_metric("ndcg", k=10)),
        "rankmetrics, bounds=True": (off, True,
                                     lambda: make_custom_metric("ndcg", k=10, bounds=True)),
    }
    cpu: dict[str, list[float]] = {name: [] for name in configs}
    wall: dict[str, list[float]] = {name: [] for name in configs}
    for _ in range(repeats):
        for name, (params, with_evals, make) in configs.items():
            timer = RoundTimer()
            xgb.train({**base, **params}, dtrain, num_boost_round=rounds,
                      evals=[(dvalid, "valid")] if with_evals else [], custom_metric=make(),
                      verbose_eval=False, callbacks=[timer])
            c, w = timer.rounds()
            cpu[name].extend(c)
            wall[name].extend(w)
    return {name: (cpu[name], wall[name]) for name in configs}


def builtin_eval_times(y: np.ndarray, scores: np.ndarray, qid: np.ndarray, *,
                       repeats: int) -> list[float]:
    """CPU seconds of XGBoost's ndcg@10 on fixed scores (zero-tree booster, base_margin)."""
    d = xgb.DMatrix(np.zeros((len(y), 1), dtype=np.float32), label=y, qid=qid,
                    base_margin=scores)
    booster = xgb.train({"objective": "rank:ndcg", "eval_metric": "ndcg@10", "nthread": 1,
                         "base_score": 0.0}, d, num_boost_round=0)
    booster.eval(d)  # warm-up: builds XGBoost's metric cache
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        booster.eval(d)
        times.append(time.process_time() - t0)
    return times


def ours_eval_times(y: np.ndarray, scores: np.ndarray, qid: np.ndarray, metric: Any, *,
                    repeats: int) -> tuple[float, list[float]]:
    d = xgb.DMatrix(np.zeros((len(y), 1), dtype=np.float32), label=y, qid=qid)
    t0 = time.process_time()
    metric(scores, d)
    first = time.process_time() - t0
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        metric(scores, d)
        times.append(time.process_time() - t0)
    return first, times


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1 000 queries, fewer rounds")
    p.add_argument("--rounds", type=int, default=12)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    n_queries = 1_000 if args.quick else 10_000
    rounds = 5 if args.quick else args.rounds
    repeats = 1 if args.quick else args.repeats
    n_eval = 5 if args.quick else 20

    load_before = _load()
    d = build_data(n_queries, 1_000, args.seed)
    n = len(d["y"])
    print(f"validation set: make_benchmark_scores(n_queries={n_queries}): {n} rows, "
          f"{n_queries} queries; xgboost {xgb.__version__}, numpy {np.__version__}, "
          f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, "
          f"1 thread; 1-min load average before: {load_before}")

    res = bench_in_training(d, rounds, repeats)
    base_cpu = statistics.median(res["no evaluation (baseline)"][0])
    base_wall = statistics.median(res["no evaluation (baseline)"][1])
    builtin = statistics.median(res['built-in eval_metric="ndcg@10"'][0]) - base_cpu
    print(f"\n1. per boosting round inside xgb.train ({rounds - 1} timed rounds x {repeats} "
          "repeats, CPU ms: median [25th-75th percentile]; extra = median - baseline)\n")
    print("| evaluation | ms / round | extra ms / round | extra vs built-in | "
          "(wall: extra ms / round) |")
    print("|---|---:|---:|---:|---:|")
    for name, (c, w) in res.items():
        med, q1, q3 = _spread(c)
        extra = med - base_cpu
        ratio = "" if name.startswith("no evaluation") else f"{extra / builtin:.2f}x"
        print(f"| {name} | {med * 1e3:.1f} [{q1 * 1e3:.1f}-{q3 * 1e3:.1f}] | "
              f"{extra * 1e3:.1f} | {ratio} | {(statistics.median(w) - base_wall) * 1e3:.1f} |")

    y, scores, qid = d["y"], d["scores"], d["qid"]
    t_builtin = builtin_eval_times(y, scores, qid, repeats=n_eval)
    first, t_ours = ours_eval_times(y, scores, qid, make_custom_metric("ndcg", k=10),
                                    repeats=n_eval)
    _, t_bounds = ours_eval_times(y, scores, qid, make_custom_metric("ndcg", k=10, bounds=True),
                                  repeats=n_eval)
    _, t_multi = ours_eval_times(y, scores, qid, make_custom_metric("ndcg", k=(1, 3, 5, 10)),
                                 repeats=n_eval)
    ref = statistics.median(t_builtin)
    print(f"\n2. one evaluation of the benchmark's fixed scores (CPU ms: median "
          f"[25th-75th percentile] of {n_eval})\n")
    print("| evaluation | ms | vs built-in |")
    print("|---|---:|---:|")
    rows = [("XGBoost built-in ndcg@10 (zero-tree booster, base_margin)", t_builtin),
            ('rankmetrics make_custom_metric("ndcg", k=10)', t_ours),
            ("rankmetrics, bounds=True", t_bounds),
            ("rankmetrics, k=(1, 3, 5, 10)", t_multi)]
    for name, t in rows:
        med, q1, q3 = _spread(t)
        print(f"| {name} | {med * 1e3:.1f} [{q1 * 1e3:.1f}-{q3 * 1e3:.1f}] | {med / ref:.2f}x |")
    print(f"\nfirst call of our metric on a new DMatrix (builds the label-side plan): "
          f"{first * 1e3:.0f} ms")
    print(f"1-min load average after: {_load()} (a shared machine: other jobs may run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
