"""Evaluation throughput of rankmetrics.dask.evaluate and rankmetrics.spark.evaluate against the
single-process core, on the same parquet data (generated here).

    python benchmarks/bench_distributed.py            # 10 M rows
    python benchmarks/bench_distributed.py --quick    # 1 M rows, smoke run

Data: ``rankmetrics.datasets.make_benchmark_scores`` (labels 0..4, 20-220 documents per
query, half of the scores tied), written as ``--files`` parquet files of whole queries.
Measures: nDCG@10 and AP with ties="average". Timings include reading the parquet files.

* core: one process, ``pandas.read_parquet`` + one ``QueryPlan.evaluate`` call;
* dask (aligned): ``LocalCluster`` of 2 worker processes x 1 thread with a memory limit per
  worker *below* the data's in-memory size, files evaluated where they are (the alignment check
  reads the qid column once);
* dask (shuffle): the same with ``aligned=False`` (Dask's shuffle by qid first);
* spark: ``local[2]``, ``spark.driver.memory`` below the data size; always repartitions by qid.

Per-worker peak RSS and peak bytes spilled to disk are sampled every 0.25 s (Dask); for Spark
the peak RSS of the whole process tree (JVM + Python workers). The machine is shared: the load
average is printed before and after; compare numbers only within one run.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

MEASURES = ["ndcg@10", "ap"]


def load() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def generate(path: Path, rows: int, files: int) -> tuple[int, int, float]:
    import pandas as pd

    from rankmetrics.datasets import make_benchmark_scores

    n_queries = max(rows // 120, 10)
    y, s, q = make_benchmark_scores(n_queries=n_queries, random_state=0)
    path.mkdir(parents=True, exist_ok=True)
    starts = np.searchsorted(q, np.linspace(q[0], q[-1] + 1, files + 1).astype(q.dtype))
    for i in range(files):
        a, b = int(starts[i]), int(starts[i + 1])
        pd.DataFrame({"qid": q[a:b], "label": y[a:b], "score": s[a:b]}) \
            .to_parquet(path / f"part-{i:03d}.parquet", index=False)
    mem = q.nbytes + y.nbytes + s.nbytes
    return int(q.shape[0]), int(np.unique(q).size), mem / 2**20


class Sampler:
    """Background sampling of a function returning {key: (rss_bytes, spilled_bytes)}."""

    def __init__(self, fn: Any, every: float = 0.25) -> None:
        self.fn, self.every = fn, every
        self.peak: dict[Any, list[float]] = {}
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                for k, vals in self.fn().items():
                    cur = self.peak.setdefault(k, [0.0] * len(vals))
                    for i, v in enumerate(vals):
                        cur[i] = max(cur[i], float(v))
            except Exception:  # noqa: BLE001 - sampling is best effort
                pass
            self._stop.wait(self.every)

    def __enter__(self) -> Sampler:
        self._t.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._t.join()


def bench_core(path: Path) -> tuple[float, dict[str, float]]:
    import pandas as pd

    from rankmetrics import QueryPlan

    t = time.perf_counter()
    df = pd.read_parquet(path)
    plan = QueryPlan(df["label"].to_numpy(), df["qid"].to_numpy())
    vals = plan.evaluate(df["score"].to_numpy(), MEASURES)
    mean = {m: float(v.mean()) for m, v in vals.items()}
    return time.perf_counter() - t, mean


def _worker_stats(dask_worker: Any) -> tuple[float, float]:
    import psutil

    spilled = getattr(getattr(dask_worker, "data", None), "spilled_total", None)
    return psutil.Process().memory_info().rss, float(getattr(spilled, "disk", 0) or 0)


def bench_dask(path: Path, limit_mib: int, aligned: bool | None) -> tuple[float, dict, dict]:
    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from rankmetrics.dask import evaluate

    cfg = {"distributed.worker.memory.target": 0.5, "distributed.worker.memory.spill": 0.6,
           "distributed.worker.memory.pause": False,
           "distributed.worker.memory.terminate": False}
    with dask.config.set(cfg), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                         memory_limit=f"{limit_mib}MiB", dashboard_address=":0",
                         silence_logs=50) as cluster, Client(cluster) as client:
        client.run(lambda: __import__("rankmetrics.dask"))  # warm imports outside the timing
        with Sampler(lambda: client.run(_worker_stats)) as sampler:
            t = time.perf_counter()
            ddf = dd.read_parquet(str(path))
            res = evaluate(ddf, MEASURES, aligned=aligned)
            elapsed = time.perf_counter() - t
        res.per_query  # noqa: B018 - persisted result stays on the cluster until closed
        return elapsed, res.mean, sampler.peak


def _tree_rss() -> dict[str, tuple[float, float]]:
    import psutil

    me = psutil.Process()
    total = 0.0
    for p in [me, *me.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return {"driver+JVM+python workers": (total, 0.0)}


def bench_spark(path: Path, driver_mib: int) -> tuple[float, dict, dict]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from rankmetrics.spark import evaluate

    spark = (SparkSession.builder.master("local[2]").appName("bench-distributed")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", f"{driver_mib}m")
             .config("spark.sql.shuffle.partitions", "16")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        spark.range(10).count()  # start executors outside the timing
        with Sampler(_tree_rss) as sampler:
            t = time.perf_counter()
            res = evaluate(spark.read.parquet(str(path)), MEASURES, qid="qid", label="label",
                           score="score")
            elapsed = time.perf_counter() - t
        res.per_query.unpersist()
        return elapsed, res.mean, sampler.peak
    finally:
        spark.stop()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--files", type=int, default=40)
    p.add_argument("--quick", action="store_true", help="1 M rows, 8 files")
    p.add_argument("--skip", nargs="*", default=[], choices=["core", "dask", "shuffle", "spark"])
    args = p.parse_args(argv)
    if args.quick:
        args.rows, args.files = 1_000_000, 8
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    tmp = Path(tempfile.mkdtemp(prefix="rankmetrics-bench-"))
    try:
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
              f"{platform.python_version()}; shared with other jobs: {load()}")
        t = time.perf_counter()
        rows, n_q, mem_mib = generate(tmp / "data", args.rows, args.files)
        disk_mib = sum(f.stat().st_size for f in (tmp / "data").iterdir()) / 2**20
        limit = max(int(mem_mib * 0.75), 64)
        print(f"data: {rows:,} rows, {n_q:,} queries, {args.files} parquet files of whole "
              f"queries; {mem_mib:.0f} MiB in memory, {disk_mib:.0f} MiB on disk "
              f"(generated in {time.perf_counter() - t:.1f} s)")
        print(f"measures: {MEASURES}, ties='average'")
        print(f"{'engine':<38} {'seconds':>8} {'rows/s':>12}  notes")
        ref: dict[str, float] | None = None

        def row(name: str, sec: float, mean: dict, note: str) -> None:
            nonlocal ref
            agree = "" if ref is None else (
                " [= core]" if all(abs(mean[m] - ref[m]) < 1e-12 for m in MEASURES)
                else " [DIFFERS FROM CORE]")
            print(f"{name:<38} {sec:>8.2f} {rows / sec:>12,.0f}  {note}{agree}", flush=True)

        if "core" not in args.skip:
            sec, mean = bench_core(tmp / "data")
            row("core (1 process)", sec, mean, "reference")
            ref = mean
        for aligned, key, label in ((None, "dask", "dask aligned (2 workers x 1 thread)"),
                                    (False, "shuffle", "dask shuffle (2 workers x 1 thread)")):
            if key in args.skip:
                continue
            sec, mean, peak = bench_dask(tmp / "data", limit, aligned)
            rss = ", ".join(f"{v[0] / 2**20:.0f}" for v in peak.values())
            spill = ", ".join(f"{v[1] / 2**20:.0f}" for v in peak.values())
            row(label, sec, mean, f"limit {limit} MiB/worker; peak RSS MiB [{rss}]; "
                                  f"peak spilled MiB [{spill}]")
        if "spark" not in args.skip:
            sec, mean, peak = bench_spark(tmp / "data", max(limit * 2, 512))
            rss = next(iter(peak.values()), [0.0])[0] / 2**20
            row("spark local[2] (repartition by qid)", sec, mean,
                f"driver memory {max(limit * 2, 512)} MiB; peak RSS of all processes "
                f"{rss:.0f} MiB")
        print(f"after: {load()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
