"""End-to-end TREC evaluation (read files + nDCG@10, P@10, AP, RR) against pytrec_eval and ranx.

Run:  python benchmarks/bench_trec.py [--queries 8350] [--repeat 7] [--threads 1] [--ranx]

Writes a run of about 1 M lines (``rankmetrics.datasets.make_benchmark_scores``: 20..220
documents per query, about half of them tied with another document of their query) and its qrels
(every relevant retrieved document, half of the non-relevant ones, and two unretrieved relevant
documents per query, so the recall base is larger than the run) as TREC files, then times, best
in one process, with pyarrow pinned to ``--threads`` CPU threads (default 1: rankmetrics starts no
Python threads of its own, so everything runs on one core):

* rankmetrics: ``rankmetrics.trec.evaluate(qrels_path, run_path, ...)`` with ties="docno" (the
  trec_eval order, same numbers as pytrec_eval) and with ties="average" (exact tie averaging);
* pytrec_eval: ``pytrec_eval.parse_qrel`` / ``parse_run`` (its readers build the nested dicts)
  + ``RelevanceEvaluator(qrels, {ndcg_cut.10, P.10, map, recip_rank}).evaluate(run)`` + means;
* ranx: ``Qrels.from_file`` / ``Run.from_file`` + ``evaluate`` (numba, compiled by a warm-up
  call on a small file first; its first-call compile time is reported separately).

The tools run in ``--repeat`` interleaved rounds (the order rotated each round), so a fluctuating
machine load hits all of them alike; the table shows each tool's median, min and max, and the
speed-up is the median of the per-round ratios. The load average is printed before and after.

The means of rankmetrics (docno) and pytrec_eval are checked to agree to 1e-9.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from rankmetrics.datasets import make_benchmark_scores

MEASURES = ["nDCG@10", "P@10", "AP", "RR"]
PYTREC = {"nDCG@10": "ndcg_cut_10", "P@10": "P_10", "AP": "map", "RR": "recip_rank"}
RANX = {"nDCG@10": "ndcg@10", "P@10": "precision@10", "AP": "map", "RR": "mrr"}


def write_files(folder: Path, n_queries: int, seed: int = 0) -> tuple[Path, Path, int]:
    """TREC run and qrels files from the benchmark generator; returns (qrels, run, run lines)."""
    y, s, q = make_benchmark_scores(n_queries=n_queries, random_state=seed)
    rng = np.random.default_rng(seed)
    n = y.shape[0]
    docs = np.char.add("doc", rng.permutation(n).astype(str))
    # shortest round-trip repr keeps every tie of the generator and splits no other score
    scores = [repr(v) for v in s.tolist()]
    first = np.r_[True, q[1:] != q[:-1]]
    rank = np.arange(n) - np.maximum.accumulate(np.where(first, np.arange(n), 0)) + 1
    run = folder / "run.txt"
    with run.open("w") as f:
        f.writelines(f"{qq} Q0 {d} {r} {sc} bench\n"
                     for qq, d, r, sc in zip(q.tolist(), docs.tolist(), rank.tolist(), scores,
                                             strict=True))
    judged = (y > 0) | (rng.random(n) < 0.5)
    qrels = folder / "qrels.txt"
    uq = np.unique(q)
    with qrels.open("w") as f:
        f.writelines(f"{qq} 0 {d} {lab}\n" for qq, d, lab in
                     zip(q[judged].tolist(), docs[judged].tolist(), y[judged].tolist(),
                         strict=True))
        f.writelines(f"{qq} 0 unretrieved-{qq}-{j} {1 + j}\n" for qq in uq.tolist()
                     for j in range(2))
    return qrels, run, n


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times: list[float] = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def ours(qrels: Path, run: Path, ties: str) -> Callable[[], dict[str, float]]:
    from rankmetrics.trec import evaluate

    def go() -> dict[str, float]:
        return evaluate(qrels, run, MEASURES, ties=ties, gain="linear").mean

    return go


def pytrec(qrels: Path, run: Path) -> Callable[[], dict[str, float]] | None:
    try:
        import pytrec_eval
    except ImportError:
        return None

    def go() -> dict[str, float]:
        with qrels.open() as f:
            qd = pytrec_eval.parse_qrel(f)
        with run.open() as f:
            rd = pytrec_eval.parse_run(f)
        ev = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10", "P.10", "map", "recip_rank"})
        res = ev.evaluate(rd)
        return {m: float(np.mean([v[t] for v in res.values()])) for m, t in PYTREC.items()}

    return go


def ranx_fn(qrels: Path, run: Path) -> Callable[[], dict[str, float]] | None:
    try:
        import ranx
    except ImportError:
        return None

    def go() -> dict[str, float]:
        qr = ranx.Qrels.from_file(str(qrels), kind="trec")
        rn = ranx.Run.from_file(str(run), kind="trec")
        res = ranx.evaluate(qr, rn, list(RANX.values()))
        return {m: float(res[t]) for m, t in RANX.items()}

    return go


def join_candidates(qrels: Path, run: Path) -> list[tuple[str, Callable[[], Any]]]:
    """The run x qrels join (labels of the retrieved documents, duplicate checks) three ways,
    from the same arrow tables: rankmetrics' ``match`` and the library joins it replaced."""
    import pandas as pd
    import pyarrow as pa

    from rankmetrics.trec import io as trec_io
    from rankmetrics.trec import match as trec_match

    q_tb, r_tb = trec_io.read_file(qrels, "qrels"), trec_io.read_file(run, "run")
    qs, rs = trec_match.prepare(q_tb, r_tb, False)

    def ours() -> Any:
        return trec_match.match(qs, rs, complete=False).run_labels

    def pandas_merge() -> Any:
        rf, qf = r_tb.to_pandas(), q_tb.to_pandas()
        if rf.duplicated(["qid", "docid"]).any():
            raise ValueError("duplicate")
        qd = qf.drop_duplicates(["qid", "docid", "label"])
        if qd.duplicated(["qid", "docid"]).any():
            raise ValueError("conflict")
        merged = rf.merge(qd, on=["qid", "docid"], how="left")
        return merged["label"].fillna(0.0).to_numpy()

    def arrow_join() -> Any:
        counts = r_tb.group_by(["qid", "docid"], use_threads=False).aggregate([("score", "count")])
        if counts.num_rows != r_tb.num_rows:
            raise ValueError("duplicate")
        qd = q_tb.group_by(["qid", "docid"], use_threads=False).aggregate(
            [("label", "min"), ("label", "max")])
        if not pa.compute.all(pa.compute.equal(qd["label_min"], qd["label_max"])).as_py():
            raise ValueError("conflict")
        rows = r_tb.append_column("row", pa.array(np.arange(r_tb.num_rows)))
        joined = rows.join(qd, ["qid", "docid"], join_type="left outer", use_threads=False)
        labels = np.zeros(r_tb.num_rows)
        lab = joined["label_min"].to_numpy(zero_copy_only=False)
        labels[joined["row"].to_numpy()] = np.nan_to_num(lab.astype(float))
        return labels

    want = ours()
    for fn in (pandas_merge, arrow_join):
        got = fn()
        assert pd.Series(got).sort_values().to_numpy().tolist() == \
            pd.Series(want).sort_values().to_numpy().tolist()
    return [("rankmetrics match (dictionary codes + numpy)", ours),
            ("pandas merge (+ duplicate checks)", pandas_merge),
            ("pyarrow Table.join (+ group_by checks)", arrow_join)]


def time_joins(qrels: Path, run: Path, repeat: int) -> None:
    cands = join_candidates(qrels, run)
    times: dict[str, list[float]] = {name: [] for name, _ in cands}
    for i in range(repeat):
        k = i % len(cands)
        for name, fn in cands[k:] + cands[:k]:
            times[name].append(best_of(fn, 1)[0])
    base = np.array(times[cands[0][0]])
    print(f"\njoin of run and qrels alone (tables already read), {repeat} interleaved rounds:")
    for name, _ in cands:
        ts = np.array(times[name])
        print(f"  {name:<50}{np.median(ts) * 1000:>8.0f} ms  (min {ts.min() * 1000:.0f}, max "
              f"{ts.max() * 1000:.0f}; x ours {np.median(ts / base):.2f})")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=8350, help="queries (8350: about 1 M lines)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1,
                    help="pyarrow CPU threads (default 1; 0: pyarrow's own, all cores)")
    ap.add_argument("--ranx", action="store_true",
                    help="also time ranx (its numba compile takes minutes on a small VM)")
    ap.add_argument("--dir", default=None, help="folder for the TREC files (default: temp)")
    ap.add_argument("--joins", action="store_true",
                    help="also time the run x qrels join against pandas merge and pyarrow join")
    args = ap.parse_args(argv)
    if args.threads:
        import pyarrow as pa

        pa.set_cpu_count(args.threads)
        pa.set_io_thread_count(args.threads)
        os.environ.setdefault("NUMBA_NUM_THREADS", str(args.threads))  # ranx, when asked
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.dir or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        qrels, run, n = write_files(folder, args.queries)
        n_qrels = sum(1 for _ in qrels.open())
        print(f"{n:,} run lines, {n_qrels:,} qrels lines, {args.queries:,} queries "
              f"(written in {time.perf_counter() - t0:.1f} s)")
        import pyarrow as pa

        print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, pyarrow threads "
              f"{pa.cpu_count()}, {platform.machine()}")
        tools: list[tuple[str, Callable[[], dict[str, float]]]] = [
            (f"rankmetrics ties={ties}", ours(qrels, run, ties)) for ties in ("docno", "average")
        ]
        fn = pytrec(qrels, run)
        if fn is None:
            print("pytrec_eval: not installed (pip install pytrec-eval-terrier)")
        else:
            tools.append(("pytrec_eval (parse_qrel/run + evaluate)", fn))
        fn = ranx_fn(qrels, run) if args.ranx else None
        if fn is not None:
            small = folder / "small"
            small.mkdir(exist_ok=True)
            sq, sr, _ = write_files(small, 20)
            t_compile, _ = best_of(ranx_fn(sq, sr), 1)  # type: ignore[arg-type]
            tools.append((f"ranx (from_file + evaluate; {t_compile:.0f} s compile excluded)", fn))
        elif args.ranx:
            print("ranx: not installed (pip install ranx)")
        print(f"load average before: {os.getloadavg()[0]:.2f} (2-core VMs here are shared "
              "with other jobs)")
        times: dict[str, list[float]] = {name: [] for name, _ in tools}
        means: dict[str, dict[str, float]] = {}
        for i in range(args.repeat):
            k = i % len(tools)
            for name, go in tools[k:] + tools[:k]:  # rotate the order every round
                t, means[name] = best_of(go, 1)
                times[name].append(t)
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        base = tools[0][0]
        print(f"\n{'tool':<58}{'median s':>9}{'min':>7}{'max':>7}{'x docno':>9}   "
              + " ".join(f"{m:>8}" for m in MEASURES))
        for name, _ in tools:
            ts = np.array(times[name])
            ratio = float(np.median(ts / np.array(times[base])))
            vals = " ".join(f"{means[name][m]:>8.4f}" for m in MEASURES)
            print(f"{name:<58}{np.median(ts):>9.2f}{ts.min():>7.2f}{ts.max():>7.2f}"
                  f"{ratio:>9.2f}   {vals}")
        for name, _ in tools:
            if name.startswith("pytrec_eval"):
                worst = max(abs(means[name][m] - means[base][m]) for m in MEASURES)
                status = "agree" if worst < 1e-9 else "DISAGREE"
                print(f"\nrankmetrics (docno) vs pytrec_eval means: max |diff| {worst:.2e} "
                      f"({status})")
        print("\nspeed-up of rankmetrics (docno) over each peer (median of per-round ratios, "
              "min-max): " + ", ".join(
                  f"{name.split(' ')[0]} {np.median(r):.1f}x ({r.min():.1f}-{r.max():.1f})"
                  for name, _ in tools[2:]
                  for r in [np.array(times[name]) / np.array(times[base])]))
        if args.joins:
            time_joins(qrels, run, args.repeat)


if __name__ == "__main__":
    main()
