"""Per-round cost of rankmetrics' LightGBM feval against LightGBM's built-in ndcg@10.

Two measurements, one thread, on the reference validation set of the core benchmark
(``rankmetrics.datasets.make_benchmark_scores()``: 10 000 queries, ~1.2 M rows, labels 0..4):

1. *Inside lgb.train.* Five trainings that differ only in evaluation, repeated with the
   configurations in rotated order: ``metric="None"`` with no feval (baseline), the built-in
   ``metric="ndcg", eval_at=[10]``, a do-nothing feval (the floor: LightGBM handing the
   predictions to Python, which any feval pays), our ``make_feval("ndcg", k=10)`` and our feval
   with ``bounds=True``. A callback time-stamps every round; the extra cost of an evaluation is
   its median round minus the baseline's, per phase (round 1, rounds 2-5, 6-20: the validation
   predictions are heavily tied early, e.g. ~98 % of rows tied at round 1, printed per round),
   with p25/p75 as spread. Our feval is also wrapped to time its own calls: *our evaluation's
   own time*, next to the hand-over floor. Times are process CPU time (``time.process_time``):
   with one thread this is the work done, less disturbed by other jobs on the cores; the load
   average is printed with every table.
   The benchmark set has labels and query groups but no features, so the validation rows get
   random features: 8 uninformative 5-level ordinal columns, which keep the model's scores
   heavily tied. The model is trained on a small ``make_ranking_data`` set with the same 8
   discrete columns, so a round costs little beyond updating and evaluating the 1.2 M
   validation scores.
2. *One evaluation of fixed scores.* The benchmark's own scores (half the documents tied):
   ``builtin_ndcg_eval_time`` (LightGBM's ndcg@10 through a zero-tree Booster whose data carry
   ``init_score=scores``) against one call of our feval on a constructed Dataset.

Run (about 2-3 minutes; ``--quick`` < 30 s)::

    python benchmarks/bench_lightgbm_feval.py            # full size
    python benchmarks/bench_lightgbm_feval.py --quick    # 1 000 queries, smoke test

``builtin_ndcg_eval_time(y, scores, group)`` is importable for the core benchmark.
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
        """CPU and wall seconds of every round, round 1 included (index 0)."""
        return list(np.diff(self.cpu)), list(np.diff(self.wall))


class OwnTime:
    """Wraps a feval and records the CPU time of its own calls (our evaluation's cost, without
    LightGBM's hand-over of the predictions); with ``group``, the share of tied validation rows
    instead (used in an untimed training only)."""

    def __init__(self, feval: Callable[..., Any], group: np.ndarray | None = None) -> None:
        self.feval = feval
        self.group = group
        self.cpu: list[float] = []
        self.tied: list[float] = []

    def __call__(self, preds: np.ndarray, data: Any) -> Any:
        t0 = time.process_time()
        out = self.feval(preds, data)
        self.cpu.append(time.process_time() - t0)
        if self.group is not None:
            self.tied.append(tied_share(preds, self.group))
        return out


def tied_share(preds: np.ndarray, group: np.ndarray) -> float:
    """Share of rows whose score equals another row's of the same query."""
    q = np.repeat(np.arange(group.shape[0]), group)
    order = np.lexsort((preds, q))
    sp, sq = preds[order], q[order]
    same = (sp[1:] == sp[:-1]) & (sq[1:] == sq[:-1])
    tied = np.zeros(preds.shape[0], dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    return float(tied.mean())


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


PHASES = (("round 1", 0, 1), ("rounds 2-5", 1, 5), ("rounds 6-20", 5, 20))


def bench_in_training(d: dict[str, Any], rounds: int, repeats: int) -> dict[str, Any]:
    """Per-round CPU seconds of every configuration, configurations in rotated order."""
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
        "do-nothing feval (hand-over floor)": ({"metric": "None"}, lambda: _noop),
        'rankmetrics make_feval("ndcg", k=10)': (
            {"metric": "None"}, lambda: OwnTime(make_feval("ndcg", k=10))),
        "rankmetrics, bounds=True": ({"metric": "None"},
                                     lambda: OwnTime(make_feval("ndcg", k=10, bounds=True))),
    }
    # untimed: the tie share of the validation predictions per round, and a warm-up that loads
    # the compiled kernel for every code path the timed fevals take
    probe = OwnTime(_noop, d["group"])
    lgb.train({**base, "metric": "None"}, dtrain, num_boost_round=rounds, valid_sets=[dvalid],
              feval=probe)
    small = lgb.Dataset(np.zeros((6, 1)), np.array([1, 0, 2, 0, 1, 0]), group=[3, 3],
                        params={"verbose": -1}).construct()
    for warm in (make_feval("ndcg", k=10), make_feval("ndcg", k=10, bounds=True)):
        warm(np.array([0.5, 0.5, 0.1, 0.2, 0.2, 0.3]), small)
    names = list(configs)
    cpu: dict[str, list[list[float]]] = {name: [] for name in names}
    own: dict[str, list[list[float]]] = {name: [] for name in names}
    tied: list[list[float]] = [probe.tied]
    for r in range(repeats):
        for name in names[r % len(names):] + names[: r % len(names)]:
            params, make = configs[name]
            timer = RoundTimer()
            feval = make()
            lgb.train({**base, **params}, dtrain, num_boost_round=rounds, valid_sets=[dvalid],
                      feval=feval, callbacks=[timer])
            cpu[name].append(timer.rounds()[0])
            if isinstance(feval, OwnTime):
                own[name].append(feval.cpu)
    return {"cpu": cpu, "own": own, "tied": tied}


def _phase(runs: list[list[float]], lo: int, hi: int) -> list[float]:
    return [t for run in runs for t in run[lo:hi]]


def _q(values: list[float]) -> tuple[float, float, float]:
    a = np.asarray(values)
    return (float(np.percentile(a, 25)), float(np.median(a)), float(np.percentile(a, 75)))


def report_in_training(res: dict[str, Any], rounds: int, repeats: int) -> None:
    cpu, own = res["cpu"], res["own"]
    base = "no evaluation (baseline)"
    builtin = 'built-in metric="ndcg", eval_at=[10]'
    print(f"\n1. per boosting round inside lgb.train ({rounds} rounds x {repeats} repeats, "
          "configurations in rotated order; CPU ms; extra = median round - baseline's median "
          f"round of the same phase; {load()})\n")
    if res["tied"]:
        tied = np.median(np.asarray(res["tied"]), axis=0)
        marks = [r for r in (1, 5, 10, 20) if r <= tied.shape[0]]
        print("validation rows tied within their query: " +
              ", ".join(f"{100 * tied[r - 1]:.0f} % at round {r}" for r in marks) + "\n")
    print("| phase | evaluation | extra ms / round (p25 / median / p75) | vs built-in | "
          "our evaluation's own ms (p25 / median / p75) | own vs built-in extra |")
    print("|---|---|---:|---:|---:|---:|")
    for label, lo, hi in PHASES:
        if lo >= rounds:
            continue
        b = statistics.median(_phase(cpu[base], lo, hi))
        bi = statistics.median(_phase(cpu[builtin], lo, hi)) - b
        for name in cpu:
            if name == base:
                continue
            q25, med, q75 = _q(_phase(cpu[name], lo, hi))
            extra = med - b
            ours = ""
            ratio_own = ""
            if own[name]:
                o25, omed, o75 = _q(_phase(own[name], lo, hi))
                ours = f"{1e3 * o25:.1f} / {1e3 * omed:.1f} / {1e3 * o75:.1f}"
                ratio_own = f"{omed / bi:.2f}x"
            print(f"| {label} | {name} | {1e3 * (q25 - b):.1f} / {1e3 * extra:.1f} / "
                  f"{1e3 * (q75 - b):.1f} | {extra / bi:.2f}x | {ours} | {ratio_own} |")


def load() -> str:
    try:
        a, b, c = os.getloadavg()
    except OSError:  # pragma: no cover
        return "load average n/a"
    return f"load average {a:.2f} {b:.2f} {c:.2f} on {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1 000 queries, fewer rounds")
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    n_queries = 1_000 if args.quick else 10_000
    rounds = 6 if args.quick else args.rounds
    repeats = 2 if args.quick else args.repeats

    d = build_data(n_queries, 1_000, args.seed)
    n = len(d["y"])
    print(f"validation set: make_benchmark_scores(n_queries={n_queries}): {n} rows, "
          f"{len(d['group'])} queries; lightgbm {lgb.__version__}, numpy {np.__version__}, "
          f"python {platform.python_version()}, 1 thread; {load()}")

    res = bench_in_training(d, rounds, repeats)
    report_in_training(res, rounds, repeats)

    y, scores, group = d["y"], d["scores"], d["group"]
    t_builtin = builtin_ndcg_eval_time(y, scores, group, 10)
    first, t_ours = feval_eval_time(y, scores, group, make_feval("ndcg", k=10))
    _, t_bounds = feval_eval_time(y, scores, group, make_feval("ndcg", k=10, bounds=True))
    _, t_multi = feval_eval_time(y, scores, group, make_feval("ndcg", k=(1, 3, 5, 10)))
    print(f"\n2. one evaluation of the benchmark's fixed scores (CPU ms, median of 20; {load()})\n")
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
