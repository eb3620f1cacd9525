"""Tie-aware metrics on every workload shape, against LightGBM's (or XGBoost's) built-in metric.

Run:  python benchmarks/bench_shapes.py [--quick] [--repeat 7] [--kernel numba|numpy] [--compile]
      [--only TEXT ...]

One process, one thread, CPU time of the process, every contender of a shape timed in rotated
order round after round (interleaved), median of ``--repeat`` rounds (>= 7), spread =
(max - min) / median; the load average of the machine is printed with every table. Per shape:

* ``cached``: ``QueryPlan`` built once (what an eval function pays per boosting round);
* ``raw``: one call from raw arrays (``rm.ndcg(y, s, qid, k=...)``: plan built inside);
* LightGBM's built-in ndcg@k (zero-tree Booster whose data carry ``init_score=scores``,
  ``eval_train()``; not tie-aware, eval_at = the longest list for k=None); on the 10 x 200 000
  shape (LightGBM refuses queries over 10 000 rows) XGBoost's built-in ``ndcg@10`` (zero-round
  Booster, ``base_margin=scores``, ``eval``).

Shapes: the reference (``make_benchmark_scores()``: 10 000 queries of 20..220 documents, half
tied), 1 M queries x 5 documents, 10 queries x 200 000 documents, no ties, every document of a
query tied, k=None, k=1000, nDCG@{1,3,5,10}+MAP+MRR+P@10 in one ``QueryPlan.evaluate`` call,
optimistic + pessimistic bounds of nDCG@10 (one ``evaluate`` call with per-measure ``ties=``:
one ranking pass); the many-measure call is also timed against one cached nDCG@10 in the same
rounds, and their ratio printed as the median (min-max) of the per-round ratios. Then ns/row of
nDCG@10 from 1e5 to 3e7 rows (cached and raw; the sizes interleaved too, a timed unit of 1e5
rows being 10 calls; ``--skip-shapes``: only this table). Both tables also give per-round
figures: a contender's time over the peer's in the same round, and a size's ns/row over the
median of that round's sizes, each as the median (and for the shapes the min-max) over the
rounds; on a shared VM whose speed drifts by a third from one second to the next, these are
steadier than ratios of medians. ``--quick`` (< 30 s) shrinks every shape; ``--only TEXT``
(repeatable) times only the shapes whose name contains TEXT.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

import rankmetrics as rm  # noqa: E402
from rankmetrics.datasets import make_benchmark_scores  # noqa: E402

MANY = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "map", "mrr", "p@10"]


def load() -> str:
    try:
        a, b, c = os.getloadavg()
    except OSError:  # pragma: no cover
        return "load average n/a"
    return f"load average {a:.2f} {b:.2f} {c:.2f} on {os.cpu_count()} cores"


def interleaved(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, list[float]]:
    """CPU seconds of every call, contenders in rotated order each round (after one warm-up).

    Process CPU time (``time.process_time``): every contender runs one thread, so this is the
    work done, less disturbed than wall time by other jobs sharing the cores."""
    names = list(fns)
    for name in names:
        fns[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeat):
        for name in names[r % len(names):] + names[: r % len(names)]:
            t0 = time.process_time()
            fns[name]()
            times[name].append(time.process_time() - t0)
    return times


def per_round(ours: list[float], other: list[float]) -> str:
    """Median (min-max) over the rounds of our time / the other call's in the same round: a
    slow spell of a shared machine that lasts a round hits both calls alike, so this is
    steadier than the ratio of the two medians when the machine's speed drifts."""
    r = [a / b for a, b in zip(ours, other, strict=True)]
    return f"{statistics.median(r):.2f}x ({min(r):.2f}-{max(r):.2f}x)"


def lightgbm_builtin(y: np.ndarray, s: np.ndarray, sizes: np.ndarray,
                     k: int) -> Callable[[], object]:
    import lightgbm as lgb

    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": [k], "num_threads": 1,
              "verbose": -1}
    data = lgb.Dataset(np.zeros((y.shape[0], 1)), label=y, group=sizes, init_score=s,
                       params=params)
    booster = lgb.Booster(params, data)
    return booster.eval_train


def xgboost_builtin(y: np.ndarray, s: np.ndarray, q: np.ndarray, k: int) -> Callable[[], object]:
    import xgboost as xgb

    d = xgb.DMatrix(np.zeros((y.shape[0], 1)), label=y, qid=q, base_margin=s, nthread=1)
    booster = xgb.train({"objective": "rank:ndcg", "eval_metric": f"ndcg@{k}", "nthread": 1},
                        d, num_boost_round=0)
    return lambda: booster.eval(d)


def shapes(quick: bool) -> dict[str, dict[str, Any]]:
    nq = 1_000 if quick else 10_000
    y, s, q = make_benchmark_scores(nq)
    out: dict[str, dict[str, Any]] = {}
    ref = {"y": y, "s": s, "q": q}
    out["reference, nDCG@10"] = {**ref, "k": 10}
    rng = np.random.default_rng(0)
    n5 = 100_000 if quick else 1_000_000
    y5 = rng.choice(5, 5 * n5, p=[0.52, 0.31, 0.13, 0.025, 0.015])
    s5 = np.round(y5 + rng.normal(size=5 * n5), 1)
    out[f"{n5:,} queries x 5 docs, nDCG@10"] = {"y": y5, "s": s5,
                                                "q": np.repeat(np.arange(n5), 5), "k": 10}
    nl = 20_000 if quick else 200_000
    yl = rng.choice(5, 10 * nl, p=[0.52, 0.31, 0.13, 0.025, 0.015])
    sl = np.round(yl + rng.normal(size=10 * nl), 2)
    out[f"10 queries x {nl:,} docs, nDCG@10"] = {"y": yl, "s": sl,
                                                 "q": np.repeat(np.arange(10), nl), "k": 10,
                                                 "peer": "xgboost"}
    out["reference, no ties, nDCG@10"] = {**ref, "s": s + 1e-9 * rng.permutation(s.shape[0]),
                                          "k": 10}
    out["reference, all tied, nDCG@10"] = {**ref, "s": np.zeros_like(s), "k": 10}
    out["reference, k=None (whole list)"] = {**ref, "k": None}
    out["reference, k=1000"] = {**ref, "k": 1000}
    out["reference, " + "+".join(MANY) + " (one evaluate)"] = {**ref, "k": 10, "many": True}
    out["reference, nDCG@10 optimistic+pessimistic"] = {**ref, "k": 10, "bounds": True}
    return out


def contenders(d: dict[str, Any]) -> dict[str, Callable[[], object]]:
    y, s, q, k = d["y"], d["s"], d["q"], d["k"]
    plan = rm.QueryPlan(y, q)
    if d.get("many"):
        fns = {"cached": lambda: plan.evaluate(s, MANY),
               "raw": lambda: rm.QueryPlan(y, q).evaluate(s, MANY),
               "cached nDCG@10 alone": lambda: plan.ndcg(s, k=10)}
    elif d.get("bounds"):
        def bounds(p: rm.QueryPlan) -> object:  # both bounds in one call: one ranking pass
            return p.evaluate(s, ["nDCG(ties=optimistic)@10", "nDCG(ties=pessimistic)@10"])
        fns = {"cached": lambda: bounds(plan), "raw": lambda: bounds(rm.QueryPlan(y, q))}
    else:
        fns = {"cached": lambda: plan.ndcg(s, k=k), "raw": lambda: rm.ndcg(y, s, q, k=k)}
    sizes = np.bincount(q)
    if d.get("peer") == "xgboost":
        fns["XGBoost built-in"] = xgboost_builtin(y, s, q, k)
    else:
        fns["LightGBM built-in"] = lightgbm_builtin(y, s, sizes,
                                                    int(sizes.max()) if k is None else k)
    return fns


def run_shapes(quick: bool, repeat: int, only: list[str] | None = None) -> None:
    print(f"\n## shapes ({load()})\n")
    print("| workload | rows | peer ms | cached ms | cached / peer | raw ms | raw / peer | "
          "spread (cached, raw, peer) | cached / peer, per round | raw / peer, per round |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, d in shapes(quick).items():
        if only and not any(t in name for t in only):
            continue
        try:
            fns = contenders(d)
        except ImportError as exc:
            print(f"| {name} | skipped: {exc} |||||||||")
            continue
        times = interleaved(fns, repeat)
        med = {n: statistics.median(t) for n, t in times.items()}
        spread = {n: (max(t) - min(t)) / med[n] for n, t in times.items()}
        peer = "XGBoost built-in" if "XGBoost built-in" in med else "LightGBM built-in"
        p = med[peer]
        print(f"| {name} | {d['y'].shape[0]:,} | {1e3 * p:.1f} ({peer.split()[0]}) | "
              f"{1e3 * med['cached']:.1f} | {med['cached'] / p:.2f}x | {1e3 * med['raw']:.1f} | "
              f"{med['raw'] / p:.2f}x | {spread['cached']:.0%}, {spread['raw']:.0%}, "
              f"{spread[peer]:.0%} | {per_round(times['cached'], times[peer])} | "
              f"{per_round(times['raw'], times[peer])} |", flush=True)
        if "cached nDCG@10 alone" in med:
            print(f"|   (many measures / one cached nDCG@10: median of per-round ratios "
                  f"{per_round(times['cached'], times['cached nDCG@10 alone'])}; "
                  f"ratio of medians {med['cached'] / med['cached nDCG@10 alone']:.2f}x) "
                  "|||||||||")
    print(f"\n({load()})")


def run_scaling(quick: bool, repeat: int) -> None:
    """ns/row at every size, the sizes interleaved like the contenders (a slow spell of the
    machine hits every size alike); a timed unit of a small size repeats its call until it has
    read about 1e6 rows (10 calls at 1e5 rows), so no size is timed on calls of 1-2 ms alone."""
    print(f"\n## ns/row, nDCG@10, reference shape ({load()})\n")
    print("| rows | cached ms | cached ns/row | raw ms | raw ns/row |")
    print("|---:|---:|---:|---:|---:|")
    sizes = (830, 8_300) if quick else (830, 8_300, 83_000, 250_000)
    fns: dict[str, Callable[[], object]] = {}
    rows: dict[int, int] = {}
    calls: dict[int, int] = {}
    for nq in sizes:
        y, s, q = make_benchmark_scores(nq, random_state=1)
        plan = rm.QueryPlan(y, q)
        rows[nq] = n = y.shape[0]
        calls[nq] = c = max(1, round(1_000_000 / n))

        def cached(p: rm.QueryPlan = plan, s: np.ndarray = s, c: int = c) -> None:
            for _ in range(c):
                p.ndcg(s, k=10)

        def raw(y: np.ndarray = y, s: np.ndarray = s, q: np.ndarray = q, c: int = c) -> None:
            for _ in range(c):
                rm.ndcg(y, s, q, k=10)
        fns[f"cached {nq}"], fns[f"raw {nq}"] = cached, raw
    times = interleaved(fns, repeat)
    per_row: dict[str, list[float]] = {"cached": [], "raw": []}
    for nq in sizes:
        ms = {key: 1e3 * statistics.median(times[f"{key} {nq}"]) / calls[nq] for key in per_row}
        for key in per_row:
            per_row[key].append(1e6 * ms[key] / rows[nq])
        print(f"| {rows[nq]:,} | {ms['cached']:.1f} | {1e6 * ms['cached'] / rows[nq]:.1f} | "
              f"{ms['raw']:.1f} | {1e6 * ms['raw'] / rows[nq]:.1f} |")
    for key, v in per_row.items():
        mid = statistics.median(v)
        print(f"{key}: ns/row within {100 * (min(v) / mid - 1):+.0f} % .. "
              f"{100 * (max(v) / mid - 1):+.0f} % of the median")
    # the same, each round on its own: every size's ns/row over the median of that round's
    # sizes, then the median of these over the rounds (a slow spell hits a whole round)
    for key in per_row:
        rel: dict[int, list[float]] = {nq: [] for nq in sizes}
        for r in range(repeat):
            ns = {nq: times[f"{key} {nq}"][r] / calls[nq] / rows[nq] for nq in sizes}
            mid = statistics.median(ns.values())
            for nq in sizes:
                rel[nq].append(ns[nq] / mid - 1)
        parts = [f"{rows[nq]:,} rows {100 * statistics.median(rel[nq]):+.0f} %" for nq in sizes]
        print(f"{key}, per round (median over the rounds of a size's ns/row against the "
              f"round's median): {', '.join(parts)}")
    print(f"({load()})")


def compile_time() -> None:
    """First call in a fresh process with an empty numba cache (compiling), then with it."""
    import subprocess
    import tempfile

    code = ("import time; t = time.perf_counter(); c = time.process_time(); "
            "import numpy as np, rankmetrics as rm; "
            "y, s, q = np.array([2, 0, 1, 0]), np.array([.5, .5, .1, .3]), [1, 1, 1, 2]; "
            "rm.ndcg(y, s, q, k=2); p = rm.QueryPlan(y, q); "
            "p.evaluate(s, ['ndcg@2', 'ndcg', 'map', 'mrr', 'p@2']); "
            "p.evaluate(p.rank(s, depth=2), ['ndcg@2'], ties='optimistic'); "
            "print(f'{time.perf_counter() - t:.1f} s wall, {time.process_time() - c:.1f} s CPU')")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("empty cache (compiles)", "cache filled (loads)"):
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, check=True)
            print(f"first calls in a new process, {label}: {out.stdout.strip()} ({load()})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small shapes, < 30 s")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--kernel", choices=["numba", "numpy"], default=None)
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--skip-shapes", action="store_true", help="only the ns/row table")
    ap.add_argument("--only", action="append", default=[], metavar="TEXT",
                    help="only the shapes whose name contains TEXT (repeatable)")
    ap.add_argument("--compile", action="store_true",
                    help="only measure the kernel's compile time (fresh numba cache)")
    args = ap.parse_args(argv)
    if args.compile:
        compile_time()
        return 0
    if args.kernel:
        rm.set_backend(args.kernel)
    repeat = max(7, args.repeat)
    import lightgbm

    try:
        import xgboost
        xgb_version = xgboost.__version__
    except ImportError:
        xgb_version = "not installed (the 10-query shape is skipped)"
    t0 = time.perf_counter()
    rm.ndcg([1, 0], [0.5, 0.2], k=1)  # compile / load the kernel before timing
    print(f"kernel {rm.get_backend()} (first call incl. loading it: "
          f"{time.perf_counter() - t0:.2f} s); numpy {np.__version__}, lightgbm "
          f"{lightgbm.__version__}, xgboost {xgb_version}, python "
          f"{platform.python_version()}, {platform.machine()}; 1 thread; median of {repeat} "
          "interleaved rounds, process CPU time")
    if not args.skip_shapes:
        run_shapes(args.quick, repeat, args.only)
    if not args.skip_scaling:
        run_scaling(args.quick, repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
