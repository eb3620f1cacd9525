"""Per-round cost of rankmetrics' LightGBM feval against LightGBM's built-in ndcg@10.

Two measurements, one thread, on the reference validation set of the core benchmark
(``rankmetrics.datasets.make_benchmark_scores()``: 10 000 queries, ~1.2 M rows, labels 0..4):

1. *Inside lgb.train.* Five trainings that differ only in evaluation, interleaved and repeated:
   ``metric="None"`` with no feval (baseline), the built-in ``metric="ndcg", eval_at=[10]``, a
   do-nothing feval (the price of LightGBM handing predictions to Python), our
   ``make_feval("ndcg", k=10)`` and our feval with ``bounds=True``. A callback time-stamps
   every round; the extra cost of an evaluation is the median round time minus the baseline's.
   Times are process CPU time (``time.process_time``): with one thread this is the work done,
   unaffected by other processes sharing the cores (wall time is printed beside it).
   The benchmark set has labels and query groups but no features, so the validation rows get
   random features: 8 uninformative 5-level ordinal columns, which keep the model's scores
   heavily tied (as in early boosting rounds). The model is trained on a small
   ``make_ranking_data`` set with the same 8 discrete columns, so a round costs little beyond
   updating and evaluating the 1.2 M validation scores.
2. *One evaluation of fixed scores.* The benchmark's own scores (half the documents tied):
   ``builtin_ndcg_eval_time`` (LightGBM's ndcg@10 through a zero-tree Booster whose data carry
   ``init_score=scores``) against one call of our feval on a constructed Dataset.

Run (about a minute)::

    python benchmarks/bench_lightgbm_feval.py            # full size
    python benchmarks/bench_lightgbm_feval.py --quick    # 1 000 queries, smoke test

``builtin_ndcg_eval_time(y, scores, group)`` is importable for the core benchmark.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import lightgbm as lgb
import numpy as np

from rankmetrics.datasets import make_benchmark_scores, make_ranking_data
from rankmetrics.lightgbm import make_feval

N_FEATURES = 8


def builtin_ndcg_eval_time(
    y: np.ndarray,
    scores: np.ndarray,
    group: np.ndarray,
    k: int = 10,
    *,
    repeats: int = 20,
    num_threads: int = 1,
    clock: Callable[[], float] = time.process_time,
) -> float:
    """Median seconds LightGBM's built-in ``ndcg@k`` takes to evaluate ``scores`` once.

    A Booster with no trees predicts its data's ``init_score``; ``eval_train()`` then runs only
    LightGBM's C++ NDCG metric (its Init, the label-side cache, is done once at construction,
    as in training), so the timing is the metric's per-round cost.

    Parameters
    ----------
    y : ndarray of shape (n_rows,)
        Integer labels 0..30.
    scores : ndarray of shape (n_rows,)
        Scores, rows grouped by query.
    group : ndarray of shape (n_queries,)
        Query sizes in row order.
    k : int, default 10
    repeats : int, default 20
    num_threads : int, default 1
    clock : callable, default time.process_time
        Process CPU time by default: with one thread it is the metric's work, robust on a
        shared machine; pass ``time.perf_counter`` for wall-clock time.

    Returns
    -------
    float
        Median seconds of one evaluation.
    """
    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": [k], "verbose": -1,
              "num_threads": num_threads}
    data = lgb.Dataset(np.zeros((len(y), 1)), label=y, group=group, init_score=scores,
                       params=params)
    booster = lgb.Booster(params, data)
    booster.eval_train()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = clock()
        booster.eval_train()
        times.append(clock() - t0)
    return statistics.median(times)


def feval_eval_time(y: np.ndarray, scores: np.ndarray, group: np.ndarray,
                    feval: Callable[..., Any], *, repeats: int = 20,
                    clock: Callable[[], float] = time.process_time) -> tuple[float, float]:
    """(first call incl. building the plan, median later call) in seconds of ``clock``."""
    data = lgb.Dataset(np.zeros((len(y), 1)), label=y, group=group,
                       params={"verbose": -1}).construct()
    t0 = clock()
    feval(scores, data)
    first = clock() - t0
    times = []
    for _ in range(repeats):
        t0 = clock()
        feval(scores, data)
        times.append(clock() - t0)
    return first, statistics.median(times)


class RoundTimer:
    """LightGBM callback recording CPU and wall time of every round (update + evaluation)."""

    def __init__(self) -> None:
        self.order = 1000  # after every other callback
        self.before_iteration = False
        self.cpu: list[float] = [time.process_time()]
        self.wall: list[float] = [time.perf_counter()]

    def __call__(self, env: Any) -> None:
        self.cpu.append(time.process_time())
        self.wall.append(time.perf_counter())

    def rounds(self) -> tuple[list[float], list[float]]:
        # round 1 also builds caches (our plan, LightGBM's metric Init): left out
        return list(np.diff(self.cpu)[1:]), list(np.diff(self.wall)[1:])


def _noop(preds: np.ndarray, data: Any) -> tuple[str, float, bool]:
    return "noop", 0.0, True


def build_data(n_queries: int, n_train_queries: int, seed: int) -> dict[str, Any]:
    y, scores, qid = make_benchmark_scores(n_queries=n_queries, random_state=seed)
    group = np.bincount(qid).astype(np.int64)
    rng = np.random.default_rng(seed + 1)
    X_valid = rng.integers(0, 5, size=(len(y), N_FEATURES)).astype(np.float64)
    train = make_ranking_data(n_train_queries, n_features=N_FEATURES, n_discrete=N_FEATURES,
                              random_state=seed)
    return {"y": y, "scores": scores, "group": group, "X_valid": X_valid, "train": train}


def bench_in_training(d: dict[str, Any], rounds: int,
                      repeats: int) -> dict[str, tuple[float, float]]:
    base = {"objective": "lambdarank", "num_leaves": 15, "learning_rate": 0.1,
            "min_data_in_leaf": 20, "num_threads": 1, "force_row_wise": True, "verbose": -1,
            "seed": 0}
    dtrain = lgb.Dataset(d["train"].X, d["train"].y, group=d["train"].group_sizes,
                         params={"verbose": -1}, free_raw_data=False)
    dvalid = lgb.Dataset(d["X_valid"], d["y"], group=d["group"], reference=dtrain,
                         free_raw_data=False)
    dtrain.construct()
    dvalid.construct()
    configs: dict[str, tuple[dict[str, Any], Callable[[], Any]]] = {
        "no evaluation (baseline)": ({"metric": "None"}, lambda: None),
        'built-in metric="ndcg", eval_at=[10]': ({"metric": "ndcg", "eval_at": [10]},
                                                 lambda: None),
        "do-nothing feval": ({"metric": "None"}, lambda: _noop),
        'rankmetrics make_feval("ndcg", k=10)': ({"metric": "None"},
                                                 lambda: make_feval("ndcg", k=10)),
        "rankmetrics, bounds=True": ({"metric": "None"},
                                     lambda: make_feval("ndcg", k=10, bounds=True)),
    }
    cpu: dict[str, list[float]] = {name: [] for name in configs}
    wall: dict[str, list[float]] = {name: [] for name in configs}
    for _ in range(repeats):
        for name, (params, make) in configs.items():
            timer = RoundTimer()
            lgb.train({**base, **params}, dtrain, num_boost_round=rounds, valid_sets=[dvalid],
                      feval=make(), callbacks=[timer])
            c, w = timer.rounds()
            cpu[name].extend(c)
            wall[name].extend(w)
    return {name: (statistics.median(cpu[name]), statistics.median(wall[name]))
            for name in configs}


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

    d = build_data(n_queries, 1_000, args.seed)
    n = len(d["y"])
    print(f"validation set: make_benchmark_scores(n_queries={n_queries}): {n} rows, "
          f"{len(d['group'])} queries; lightgbm {lgb.__version__}, numpy {np.__version__}, "
          f"python {platform.python_version()}, 1 thread")

    med = bench_in_training(d, rounds, repeats)
    base_cpu, base_wall = med["no evaluation (baseline)"]
    builtin = med['built-in metric="ndcg", eval_at=[10]'][0] - base_cpu
    print(f"\n1. per boosting round inside lgb.train ({rounds} rounds x {repeats} repeats, "
          "median CPU ms; extra = round - baseline)\n")
    print("| evaluation | ms / round | extra ms / round | extra vs built-in | "
          "(wall: extra ms / round) |")
    print("|---|---:|---:|---:|---:|")
    for name, (t, w) in med.items():
        extra = t - base_cpu
        ratio = "" if name.startswith("no evaluation") else f"{extra / builtin:.2f}x"
        print(f"| {name} | {t * 1e3:.1f} | {extra * 1e3:.1f} | {ratio} | "
              f"{(w - base_wall) * 1e3:.1f} |")

    y, scores, group = d["y"], d["scores"], d["group"]
    t_builtin = builtin_ndcg_eval_time(y, scores, group, 10)
    first, t_ours = feval_eval_time(y, scores, group, make_feval("ndcg", k=10))
    _, t_bounds = feval_eval_time(y, scores, group, make_feval("ndcg", k=10, bounds=True))
    _, t_multi = feval_eval_time(y, scores, group, make_feval("ndcg", k=(1, 3, 5, 10)))
    print("\n2. one evaluation of the benchmark's fixed scores (CPU ms, median of 20)\n")
    print("| evaluation | ms | vs built-in |")
    print("|---|---:|---:|")
    rows = [("LightGBM built-in ndcg@10 (zero-tree Booster, eval_train)", t_builtin),
            ('rankmetrics make_feval("ndcg", k=10)', t_ours),
            ("rankmetrics, bounds=True", t_bounds),
            ("rankmetrics, k=(1, 3, 5, 10)", t_multi)]
    for name, t in rows:
        print(f"| {name} | {t * 1e3:.1f} | {t / t_builtin:.2f}x |")
    print(f"\nfirst call of our feval on a new Dataset (builds the label-side plan): "
          f"{first * 1e3:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
