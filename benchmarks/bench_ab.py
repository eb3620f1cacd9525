"""This checkout's kernel against another commit's, in one process, on the shapes' workloads.

Run:  python benchmarks/bench_ab.py <commit> [--repeat 15]

The other commit's ``rankmetrics`` package is extracted with ``git archive`` into
``~/.cache/rankmetrics-bench-ab/<commit>/`` (kept: its numba cache is filled once) and imported
as a second package next to this checkout's, so both run in the same process on the same arrays
(a VM's slow and fast spells hit both alike). Twelve workloads (nDCG@10 on the reference shape
cached and from raw arrays, 1 M x 5 and every document tied both ways, the seven measures of
``bench_shapes.py`` in one evaluate, k=None, k=1000, the optimistic + pessimistic bounds,
10 x 200 000, whole-list MAP); their outputs must be equal (bit for bit) before anything is
timed. One thread, process CPU time, the two versions alternating in each round (the order
swapped every round), median of ``--repeat`` rounds; prints both medians and new / old.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import importlib  # noqa: E402
import io  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tarfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

import rankmetrics as rm  # noqa: E402
from rankmetrics.datasets import make_benchmark_scores  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MANY = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "map", "mrr", "p@10"]


def other_package(commit: str) -> ModuleType:
    """``rankmetrics`` of ``commit``, imported as the package ``rankmetrics_ab``."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", commit], check=True,
                         capture_output=True, text=True).stdout.strip()
    home = Path.home() / ".cache" / "rankmetrics-bench-ab" / sha
    if not (home / "rankmetrics_ab").is_dir():
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", sha, "rankmetrics"],
                             check=True, capture_output=True).stdout
        home.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(tar)) as t:
            t.extractall(home, filter="data")
        (home / "rankmetrics").rename(home / "rankmetrics_ab")
    sys.path.insert(0, str(home))
    return importlib.import_module("rankmetrics_ab")


def workloads(m: Any) -> dict[str, Callable[[], object]]:
    """The twelve calls, made with package ``m`` on the same arrays for either version."""
    y, s, q = DATA["ref"]
    y5, s5, q5 = DATA["5"]
    yl, sl, ql = DATA["long"]
    z = np.zeros_like(s)
    p, p5, pl = m.QueryPlan(y, q), m.QueryPlan(y5, q5), m.QueryPlan(yl, ql)
    bounds = ["nDCG(ties=optimistic)@10", "nDCG(ties=pessimistic)@10"]
    return {
        "reference nDCG@10 cached": lambda: p.ndcg(s, k=10),
        "reference nDCG@10 raw": lambda: m.ndcg(y, s, q, k=10),
        "1 M x 5 cached": lambda: p5.ndcg(s5, k=10),
        "1 M x 5 raw": lambda: m.ndcg(y5, s5, q5, k=10),
        "all tied cached": lambda: p.ndcg(z, k=10),
        "all tied raw": lambda: m.ndcg(y, z, q, k=10),
        "seven measures cached": lambda: p.evaluate(s, MANY),
        "k=None cached": lambda: p.ndcg(s),
        "k=1000 cached": lambda: p.ndcg(s, k=1000),
        "bounds cached": lambda: p.evaluate(s, bounds),
        "10 x 200 000 cached": lambda: pl.ndcg(sl, k=10),
        "MAP cached": lambda: p.evaluate(s, ["map"]),
    }


def _flat(out: object) -> np.ndarray:
    if isinstance(out, dict):
        return np.stack([np.asarray(v) for v in out.values()])
    return np.asarray(out)


DATA: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("commit", help="the other version (any git revision of this repository)")
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args(argv)
    old = other_package(args.commit)
    rng = np.random.default_rng(0)
    DATA["ref"] = make_benchmark_scores(10_000)
    n5, nl = 1_000_000, 200_000
    p = [0.52, 0.31, 0.13, 0.025, 0.015]
    y5 = rng.choice(5, 5 * n5, p=p)
    DATA["5"] = (y5, np.round(y5 + rng.normal(size=5 * n5), 1), np.repeat(np.arange(n5), 5))
    yl = rng.choice(5, 10 * nl, p=p)
    DATA["long"] = (yl, np.round(yl + rng.normal(size=10 * nl), 2), np.repeat(np.arange(10), nl))
    new_w, old_w = workloads(rm), workloads(old)
    t0 = time.perf_counter()
    for name in new_w:  # equal outputs first (this also compiles or loads both kernels)
        if not np.array_equal(_flat(new_w[name]()), _flat(old_w[name]()), equal_nan=True):
            print(f"{name}: the two versions' outputs differ", file=sys.stderr)
            return 1
    print(f"this checkout against {args.commit} ({old.__file__}); outputs equal (first calls "
          f"{time.perf_counter() - t0:.1f} s); load average {os.getloadavg()[0]:.2f}; one thread, "
          f"process CPU time, median of {args.repeat} alternating rounds\n")
    print("| workload | new ms | old ms | new / old |")
    print("|---|---:|---:|---:|")
    for name in new_w:
        times: dict[str, list[float]] = {"new": [], "old": []}
        for r in range(args.repeat):
            order = [("new", new_w), ("old", old_w)]
            for label, w in order if r % 2 == 0 else order[::-1]:
                c = time.process_time()
                w[name]()
                times[label].append(time.process_time() - c)
        a, b = statistics.median(times["new"]), statistics.median(times["old"])
        print(f"| {name} | {1e3 * a:.2f} | {1e3 * b:.2f} | {a / b:.3f}x |", flush=True)
    print(f"\n(load average {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
