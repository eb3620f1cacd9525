"""End-to-end TREC evaluation (read the files + evaluate) against pytrec_eval, ir_measures, ranx.

Run:  python benchmarks/bench_trec.py [--topics 1000] [--depth 1000] [--judged 300]
      [--repeat 7] [--threads both|1|default] [--no-ranx] [--joins] [--phases]
      [--only-splits] [--quick] [--dir DIR]

Writes a synthetic TREC run of ``--topics`` x ``--depth`` lines (default 1 000 x 1 000 = 1 M
lines, ClueWeb-style docnos such as ``clueweb09-en0042-17-03512``, BM25-like scores with three
decimals, so some documents of a topic tie) and qrels of about ``--judged`` documents per topic
(the top 100 of the run pooled, a third of them deeper in the run, a third never retrieved;
graded 0..3) into a temporary folder, then times, end to end (both files read from disk and
the measures' means computed), what a user of each tool writes:

* rankmetrics: ``rankmetrics.trec.evaluate(qrels_path, run_path, measures, ties=...)``, with
  ties="docno" (trec_eval's order: the same numbers as pytrec_eval) and ties="average" (exact
  tie averaging);
* pytrec_eval: ``pytrec_eval.parse_qrel`` / ``parse_run`` + ``RelevanceEvaluator.evaluate`` +
  the means;
* ir_measures: ``ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(path),
  ir_measures.read_trec_run(path))``, its default pipeline (the provider it picks for each
  measure is printed: pytrec_eval for the common measures);
* ranx: ``Qrels.from_file`` / ``Run.from_file`` + ``ranx.evaluate`` (numba: its first call,
  which compiles or loads numba's cache, is timed apart on a small file and left out).

Measures: nDCG@10, P@10, AP, RR and R@100, which every tool has; then, in a second table, the
same plus the measures added to rankmetrics lately where a peer has them (ERR@10: ir_measures'
gdeval; RBP(p=0.8): ranx; Bpref: pytrec_eval, ir_measures, ranx; Judged@10: ir_measures). A
measure that ``rankmetrics.measures.registry.BY_NAME`` does not know yet is skipped with a note.

Thread settings (``--threads``): "1" pins pyarrow (``set_cpu_count(1)``,
``set_io_thread_count(1)``), numba (``set_num_threads(1)``) and rankmetrics
(``threads=1``) to one thread -- pytrec_eval runs on one thread anyway; "default" leaves every
library its own default; "both" (default) runs both settings. (None of these tools uses OpenMP
or BLAS threads for this work.)

The tools run in ``--repeat`` interleaved rounds (the order rotated every round), so changes of
the machine's load hit all of them alike; each table shows medians, min and max, and "time /
ours" is the median (min-max) of the per-round ratios of a tool's time to rankmetrics' with
ties="docno" (3.0: rankmetrics is 3x faster). Every tool is called once, untimed, before the
rounds (imports, numba compiles and caches; those times are printed). The load average
(``os.getloadavg``, 1 minute) is printed before and after every table. The means of
rankmetrics (ties="docno") are checked against pytrec_eval and ir_measures (to 1e-9); ranx's,
which break ties in their own order, are only compared. ``--joins`` also times the run x qrels
join alone against a pandas merge and pyarrow's ``Table.join``; ``--phases`` splits the time
of rankmetrics (read qrels, read run, join, measures) and of pytrec_eval (read, evaluate), in
wall-clock and process CPU seconds (steadier than the wall clock when other jobs load the
machine), with the ratio of the sums.
``--only-splits`` leaves out the tools' tables (with ``--phases`` and/or ``--joins``).
``--quick`` is a tiny smoke run (20 x 100 lines, 3 rounds, no ranx).
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
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

COMMON = ["nDCG@10", "P@10", "AP", "RR", "R@100"]
#: name in rankmetrics -> (registry key, pytrec_eval, ir_measures, ranx) names; None: not there
NAMES: dict[str, tuple[str, str | None, str | None, str | None]] = {
    "nDCG@10": ("ndcg", "ndcg_cut.10", "nDCG@10", "ndcg@10"),
    "P@10": ("p", "P.10", "P@10", "precision@10"),
    "AP": ("ap", "map", "AP", "map"),
    "RR": ("rr", "recip_rank", "RR", "mrr"),
    "R@100": ("r", "recall.100", "R@100", "recall@100"),
    "ERR@10": ("err", None, "ERR@10", None),
    "RBP(p=0.8)": ("rbp", None, "RBP(p=0.8)", "rbp.8"),
    "Bpref": ("bpref", "bpref", "Bpref", "bpref"),
    "Judged@10": ("judged", None, "Judged@10", None),
}
NEW = ["ERR@10", "RBP(p=0.8)", "Bpref", "Judged@10"]
Means = dict[str, float]


# ----------------------------------------------------------------------------- the files
def _docnos(ids: np.ndarray) -> pa.Array:
    """ClueWeb09-style document ids (clueweb09-en0000-00-00000) from integers."""
    seg, rest = np.divmod(ids, 100 * 100_000)
    part, doc = np.divmod(rest, 100_000)
    fields = [pc.utf8_lpad(pa.array(x).cast(pa.string()), w, "0")
              for x, w in ((seg % 10_000, 4), (part, 2), (doc, 5))]
    return pc.binary_join_element_wise("clueweb09-en",
                                       pc.binary_join_element_wise(*fields, "-"), "")


def _write(path: Path, cols: dict[str, Any]) -> None:
    pa_csv.write_csv(pa.table(cols), str(path), pa_csv.WriteOptions(
        include_header=False, delimiter=" ", quoting_style="none"))


def write_files(folder: Path, topics: int, depth: int, judged: int, seed: int = 0
                ) -> tuple[Path, Path, int, int]:
    """A TREC run (topics x depth lines) and its qrels; returns (qrels, run, run lines, qrels
    lines)."""
    rng = np.random.default_rng(seed)
    n = topics * depth
    topic = np.repeat(np.arange(topics), depth)
    pos = np.tile(np.arange(depth), topics)
    doc_id = pos + depth * rng.integers(0, 3_000_000, n)  # distinct within a topic
    score = -np.sort(-np.round(rng.normal(12.0, 2.5, (topics, depth)), 3), axis=1).ravel()
    run = folder / "run.txt"
    _write(run, {"q": pa.array((topic + 101).astype(str)), "z": pa.array(np.full(n, "Q0")),
                 "d": _docnos(doc_id), "r": pa.array(pos + 1), "s": pa.array(score),
                 "t": pa.array(np.full(n, "bench"))})
    pool = min(100, depth)
    deeper = (pos >= pool) & (rng.random(n) < (judged / 3) / max(depth - pool, 1))
    sel = np.flatnonzero((pos < pool) | deeper)
    grades = [1, 2, 3]
    p_rel = 0.5 * np.exp(-pos[sel] / 150.0)
    label = np.where(rng.random(sel.size) < p_rel, rng.choice(grades, sel.size, p=[.6, .3, .1]),
                     0)
    n_un = topics * (judged // 3)
    un_topic = np.repeat(np.arange(topics), judged // 3)
    un_id = depth * 3_000_000 + rng.integers(0, 10**8, n_un)
    un_label = np.where(rng.random(n_un) < 0.3, rng.choice(grades, n_un, p=[.6, .3, .1]), 0)
    q_topic = np.r_[topic[sel], un_topic]
    q_doc = np.r_[doc_id[sel], un_id]
    q_label = np.r_[label, un_label]
    order = np.lexsort((rng.random(q_topic.size), q_topic))
    key = q_topic[order].astype(np.int64) * 10**12 + q_doc[order]
    order = order[np.sort(np.unique(key, return_index=True)[1])]  # one judgement per pair
    qrels = folder / "qrels.txt"
    _write(qrels, {"q": pa.array((q_topic[order] + 101).astype(str)),
                   "i": pa.array(np.zeros(order.size, dtype=np.int64)),
                   "d": _docnos(q_doc[order]), "l": pa.array(q_label[order])})
    return qrels, run, n, int(order.size)


# ----------------------------------------------------------------------------- the tools
def known_measures() -> tuple[list[str], list[str]]:
    """(new measures rankmetrics knows, those it does not know yet)."""
    from rankmetrics.measures.registry import BY_NAME

    have = [m for m in NEW if NAMES[m][0] in BY_NAME]
    return have, [m for m in NEW if m not in have]


def ours(qrels: Path, run: Path, ties: str, measures: list[str]
         ) -> Callable[[int | None], Means]:
    from rankmetrics.trec import evaluate

    def go(threads: int | None) -> Means:
        return evaluate(qrels, run, measures, ties=ties, gain="linear", threads=threads).mean

    return go


def pytrec(qrels: Path, run: Path, measures: list[str]) -> Callable[[int | None], Means] | None:
    import pytrec_eval

    names = {m: NAMES[m][1] for m in measures if NAMES[m][1] is not None}

    def go(threads: int | None) -> Means:
        with qrels.open() as f:
            qd = pytrec_eval.parse_qrel(f)
        with run.open() as f:
            rd = pytrec_eval.parse_run(f)
        res = pytrec_eval.RelevanceEvaluator(qd, set(names.values())).evaluate(rd)
        return {m: float(np.mean([v[t.replace(".", "_")] for v in res.values()]))
                for m, t in names.items()}

    return go


def ir_measures_fn(qrels: Path, run: Path, measures: list[str]
                   ) -> tuple[Callable[[int | None], Means], dict[str, str]]:
    import ir_measures

    objs = {m: ir_measures.parse_measure(NAMES[m][2]) for m in measures
            if NAMES[m][2] is not None}
    picked: dict[str, str] = {}
    for m, obj in list(objs.items()):
        prov = next((p for p in ir_measures.DefaultPipeline.providers
                     if p.supports(obj) and p.is_available()), None)
        if prov is None:
            del objs[m]
        else:
            picked[m] = prov.NAME

    def go(threads: int | None) -> Means:
        res = ir_measures.calc_aggregate(list(objs.values()), ir_measures.read_trec_qrels(
            str(qrels)), ir_measures.read_trec_run(str(run)))
        return {m: float(res[obj]) for m, obj in objs.items()}

    return go, picked


def ranx_fn(qrels: Path, run: Path, measures: list[str]) -> Callable[[int | None], Means]:
    import ranx

    names = {m: NAMES[m][3] for m in measures if NAMES[m][3] is not None}

    def go(threads: int | None) -> Means:
        qr = ranx.Qrels.from_file(str(qrels), kind="trec")
        rn = ranx.Run.from_file(str(run), kind="trec")
        res = ranx.evaluate(qr, rn, list(names.values()))
        res = res if isinstance(res, dict) else {next(iter(names.values())): res}
        return {m: float(res[t]) for m, t in names.items()}

    return go


def set_threads(mode: str, defaults: dict[str, int]) -> int | None:
    """Pin the libraries to one thread ("1") or give them their defaults back; the value of
    rankmetrics' ``threads=``."""
    one = mode == "1"
    pa.set_cpu_count(1 if one else defaults["cpu"])
    pa.set_io_thread_count(1 if one else defaults["io"])
    if "numba" in defaults:
        import numba

        numba.set_num_threads(1 if one else defaults["numba"])
    return 1 if one else None


# ----------------------------------------------------------------------------- timing
def rounds(tools: list[tuple[str, Callable[[int | None], Means]]], threads: int | None,
           repeat: int) -> tuple[dict[str, np.ndarray], dict[str, Means]]:
    times: dict[str, list[float]] = {name: [] for name, _ in tools}
    means: dict[str, Means] = {}
    for i in range(repeat):
        k = i % len(tools)
        for name, go in tools[k:] + tools[:k]:  # rotate the order every round
            t0 = time.perf_counter()
            means[name] = go(threads)
            times[name].append(time.perf_counter() - t0)
    return {n: np.array(t) for n, t in times.items()}, means


def report(title: str, tools: list[tuple[str, Any]], times: dict[str, np.ndarray],
           means: dict[str, Means], measures: list[str], load: tuple[float, float]) -> None:
    base = tools[0][0]
    print(f"\n{title}\nload average {load[0]:.2f} before, {load[1]:.2f} after (1 min; this VM "
          f"has {os.cpu_count()} cores shared with other jobs)")
    head = "".join(f"{m:>11}" for m in measures)
    print(f"{'tool':<34}{'median s':>9}{'min':>7}{'max':>7}  {'time / ours (min-max)':<24}"
          + head)
    for name, _ in tools:
        ts = times[name]
        r = ts / times[base]
        speed = "" if name == base else f"{np.median(r):.2f} ({r.min():.2f}-{r.max():.2f})"
        vals = "".join(f"{means[name][m]:>11.4f}" if m in means[name] else f"{'-':>11}"
                       for m in measures)
        print(f"{name:<34}{np.median(ts):>9.3f}{ts.min():>7.3f}{ts.max():>7.3f}  {speed:<24}"
              + vals)
    for name, _ in tools:
        if name.startswith(("pytrec_eval", "ir_measures", "ranx")):
            common = [m for m in measures if m in means[name] and m in means[base]]
            diff = {m: abs(means[name][m] - means[base][m]) for m in common}
            worst = max(diff.values())
            # ir_measures' ERR comes from gdeval.pl, which prints 5 decimals per topic
            tol = {m: 5e-6 if m.startswith("ERR") and name.startswith("ir_measures") else 1e-9
                   for m in common}
            agree = ("agree" + (" to gdeval's 5 printed decimals for ERR"
                                if any(t > 1e-9 for t in tol.values()) else "")
                     if all(diff[m] < tol[m] for m in common) else "DISAGREE: " + ", ".join(
                f"{m} {d:.1e}" for m, d in diff.items() if d >= tol[m])) \
                if not name.startswith("ranx") else "ranx orders tied scores its own way"
            print(f"  {base} vs {name.split(' ')[0]}: max |mean diff| {worst:.1e} over "
                  f"{', '.join(common)} ({agree})")


def join_candidates(qrels: Path, run: Path) -> list[tuple[str, Callable[[], Any]]]:
    """The run x qrels join (labels of the retrieved documents, duplicate checks) four ways, from
    the same arrow tables: rankmetrics' ``match`` (document ids dictionary-encoded a batch of
    queries at a time), the same with one dictionary over every row, and the library joins it
    replaced."""
    from rankmetrics.trec import io as trec_io
    from rankmetrics.trec import match as trec_match

    q_tb, r_tb = trec_io.read_file(qrels, "qrels"), trec_io.read_file(run, "run")
    qs, rs = trec_match.prepare(q_tb, r_tb, False)

    def ours_join() -> Any:
        return trec_match.match(qs, rs, complete=False).run_labels

    def one_table() -> Any:  # the same join, with one hash table over every document id
        batch = trec_match.ENCODE_ROWS
        trec_match.ENCODE_ROWS = 1 << 62
        try:
            return trec_match.match(qs, rs, complete=False).run_labels
        finally:
            trec_match.ENCODE_ROWS = batch

    def pandas_merge() -> Any:
        rf, qf = r_tb.to_pandas(), q_tb.to_pandas()
        if rf.duplicated(["qid", "docid"]).any():
            raise ValueError("duplicate")
        qd = qf.drop_duplicates(["qid", "docid", "label"])
        if qd.duplicated(["qid", "docid"]).any():
            raise ValueError("conflict")
        merged = rf.merge(qd, on=["qid", "docid"], how="left")
        return merged["label"].fillna(0.0).clip(lower=0.0).to_numpy()

    def arrow_join() -> Any:
        counts = r_tb.group_by(["qid", "docid"], use_threads=False).aggregate([("score", "count")])
        if counts.num_rows != r_tb.num_rows:
            raise ValueError("duplicate")
        qd = q_tb.group_by(["qid", "docid"], use_threads=False).aggregate(
            [("label", "min"), ("label", "max")])
        if not pc.all(pc.equal(qd["label_min"], qd["label_max"])).as_py():
            raise ValueError("conflict")
        rows = r_tb.append_column("row", pa.array(np.arange(r_tb.num_rows)))
        joined = rows.join(qd, ["qid", "docid"], join_type="left outer", use_threads=False)
        labels = np.zeros(r_tb.num_rows)
        lab = joined["label_min"].to_numpy(zero_copy_only=False)
        labels[joined["row"].to_numpy()] = np.maximum(np.nan_to_num(lab.astype(float)), 0.0)
        return labels

    want = np.sort(ours_join())
    for fn in (one_table, pandas_merge, arrow_join):
        assert np.array_equal(np.sort(fn()), want)
    return [("rankmetrics match (dictionary codes + numpy)", ours_join),
            ("  the same, one dictionary over all rows", one_table),
            ("pandas merge (+ duplicate checks)", pandas_merge),
            ("pyarrow Table.join (+ group_by checks)", arrow_join)]


def time_joins(qrels: Path, run: Path, repeat: int) -> None:
    cands = join_candidates(qrels, run)
    times: dict[str, list[float]] = {name: [] for name, _ in cands}
    for i in range(repeat):
        k = i % len(cands)
        for name, fn in cands[k:] + cands[:k]:
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    base = np.array(times[cands[0][0]])
    print(f"\njoin of run and qrels alone (tables already read, pyarrow threads "
          f"{pa.cpu_count()}), {repeat} interleaved rounds:")
    for name, _ in cands:
        ts = np.array(times[name])
        print(f"  {name:<50}{np.median(ts) * 1000:>8.0f} ms  (min {ts.min() * 1000:.0f}, max "
              f"{ts.max() * 1000:.0f}; x ours {np.median(ts / base):.2f})")


def time_phases(qrels: Path, run: Path, repeat: int, threads: int | None) -> None:
    """Where the time of ``evaluate`` goes (ties="docno"), next to pytrec_eval's two phases."""
    import importlib

    import pytrec_eval

    from rankmetrics.measures.grammar import parse_measures
    from rankmetrics.trec import match as trec_match

    compute = importlib.import_module("rankmetrics.trec.compute").compute
    measures = parse_measures(COMMON)
    keys = ("read qrels", "read run", "join", "measures")
    peer_keys = ("read (parse_qrel, parse_run)", "evaluate")
    # wall-clock and process CPU seconds (every thread of the process): on a machine loaded by
    # other jobs the CPU time of the one-thread setting is the steadier of the two
    ours_t: dict[str, dict[str, list[float]]] = {c: {k: [] for k in keys}
                                                 for c in ("wall", "cpu")}
    peer_t: dict[str, dict[str, list[float]]] = {c: {k: [] for k in peer_keys}
                                                 for c in ("wall", "cpu")}

    def now() -> tuple[float, float]:
        return time.perf_counter(), time.process_time()

    def note(table: dict[str, dict[str, list[float]]], names: tuple[str, ...],
             marks: list[tuple[float, float]]) -> None:
        for i, k in enumerate(names):
            table["wall"][k].append(marks[i + 1][0] - marks[i][0])
            table["cpu"][k].append(marks[i + 1][1] - marks[i][1])

    for _ in range(repeat):
        marks = [now()]
        qs = trec_match.prepare_qrels(qrels, threads)
        marks.append(now())
        tb = trec_match.to_table(run, "run", threads=threads)  # what prepare() does
        rs = trec_match.RunSide(trec_match._array(tb.column("qid")),
                                trec_match._array(tb.column("docid")),
                                tb.column("score").to_numpy(), True, run)
        del tb
        marks.append(now())
        m = trec_match.match(qs, rs, complete=False)
        del qs, rs
        marks.append(now())
        compute(measures, m, ties="docno", gain="linear", discount="log", log_base=2.0,
                threshold=1.0, max_depth=None, beta=1.0, threads=threads or 1)
        marks.append(now())
        note(ours_t, keys, marks)
        marks = [now()]
        with qrels.open() as f:
            qd = pytrec_eval.parse_qrel(f)
        with run.open() as f:
            rd = pytrec_eval.parse_run(f)
        marks.append(now())
        pytrec_eval.RelevanceEvaluator(qd, {NAMES[m][1] for m in COMMON}).evaluate(rd)
        marks.append(now())
        note(peer_t, peer_keys, marks)
    print(f"\nphases, {repeat} rounds (pyarrow threads {pa.cpu_count()}, load average "
          f"{os.getloadavg()[0]:.2f}); medians in s, wall clock [process CPU]:")
    sums = {}
    for who, table in (("rankmetrics ties=docno", ours_t), ("pytrec_eval", peer_t)):
        total = {c: sum(float(np.median(v)) for v in table[c].values()) for c in table}
        sums[who] = total
        print(f"  {who}: " + ", ".join(
            f"{k} {np.median(table['wall'][k]):.3f} [{np.median(table['cpu'][k]):.3f}]"
            for k in table["wall"]) + f"; sum {total['wall']:.3f} [{total['cpu']:.3f}]")
    ratio = {c: sums["pytrec_eval"][c] / sums["rankmetrics ties=docno"][c] for c in ("wall", "cpu")}
    print(f"  pytrec_eval sum / rankmetrics sum: {ratio['wall']:.2f} [{ratio['cpu']:.2f}]")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--topics", type=int, default=1000)
    ap.add_argument("--depth", type=int, default=1000, help="run lines per topic")
    ap.add_argument("--judged", type=int, default=300, help="qrels lines per topic (about)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--threads", choices=("both", "1", "default"), default="both")
    ap.add_argument("--no-ranx", action="store_true", help="leave ranx out")
    ap.add_argument("--joins", action="store_true",
                    help="also time the run x qrels join against pandas merge and pyarrow join")
    ap.add_argument("--phases", action="store_true",
                    help="also time rankmetrics' phases (read, join, measures) and pytrec_eval's")
    ap.add_argument("--only-splits", action="store_true",
                    help="only the --phases and --joins timings, not the tools' tables")
    ap.add_argument("--quick", action="store_true", help="tiny smoke run (no ranx)")
    ap.add_argument("--dir", default=None, help="folder for the TREC files (default: temp)")
    args = ap.parse_args(argv)
    if args.quick:
        args.topics, args.depth, args.judged, args.repeat, args.no_ranx = 20, 100, 30, 3, True
    defaults = {"cpu": pa.cpu_count(), "io": pa.io_thread_count()}
    new, unknown = known_measures()
    for m in unknown:
        print(f"note: {m} skipped: rankmetrics.measures.registry.BY_NAME has no "
              f"{NAMES[m][0]!r} on this version")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.dir or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        qrels, run, n_run, n_qrels = write_files(folder, args.topics, args.depth, args.judged)
        print(f"{n_run:,} run lines ({run.stat().st_size / 1e6:.0f} MB), {n_qrels:,} qrels lines,"
              f" {args.topics:,} topics (written in {time.perf_counter() - t0:.1f} s)")
        from importlib import metadata

        versions = {"pyarrow": pa.__version__}
        for mod, dist in (("pytrec_eval", "pytrec-eval-terrier"), ("ir_measures", "ir-measures"),
                          ("ranx", "ranx"), ("numba", "numba")):
            try:
                __import__(mod)
                versions[mod] = metadata.version(dist)
            except (ImportError, metadata.PackageNotFoundError):
                versions[mod] = "not installed"
        print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; "
              + ", ".join(f"{k} {v}" for k, v in versions.items()))
        use_ranx = (not args.no_ranx and not args.only_splits
                    and versions["ranx"] != "not installed")
        if use_ranx:
            import numba

            defaults["numba"] = numba.get_num_threads()
            small = folder / "small"
            small.mkdir(exist_ok=True)
            sq, sr, _, _ = write_files(small, 10, 50, 30)
            fn = ranx_fn(sq, sr, COMMON + [m for m in new if NAMES[m][3]])
            t0 = time.perf_counter()
            fn(None)
            first = time.perf_counter() - t0
            t0 = time.perf_counter()
            fn(None)
            print(f"ranx first call (numba compile, or loading numba's cache): {first:.2f} s; "
                  f"the same call again: {time.perf_counter() - t0:.3f} s (left out below)")
        modes = ["1", "default"] if args.threads == "both" else [args.threads]
        sets = [("common measures", COMMON)]
        if new:
            sets.append(("common + new measures (each peer: those it has)", COMMON + new))
        for title, measures in ([] if args.only_splits else sets):
            tools: list[tuple[str, Callable[[int | None], Means]]] = [
                (f"rankmetrics ties={t}", ours(qrels, run, t, measures))
                for t in ("docno", "average")]
            if versions["pytrec_eval"] != "not installed":
                tools.append(("pytrec_eval", pytrec(qrels, run, measures)))  # type: ignore
            if versions["ir_measures"] != "not installed":
                fn, picked = ir_measures_fn(qrels, run, measures)
                tools.append(("ir_measures (default pipeline)", fn))
                print("\nir_measures providers picked: " + ", ".join(
                    f"{m} -> {p}" for m, p in picked.items())
                      + "".join(f"; {m}: none available" for m in measures if m not in picked))
            if use_ranx:
                tools.append(("ranx (compile excluded)", ranx_fn(qrels, run, measures)))
            warm = []
            for name, go in tools:  # imports, numba compiles and caches: not timed below
                t0 = time.perf_counter()
                go(None)
                warm.append(f"{name.split(' (')[0]} {time.perf_counter() - t0:.2f} s")
            print("first (untimed) call: " + ", ".join(warm))
            for mode in modes:
                threads = set_threads(mode, defaults)
                label = ("one thread" if mode == "1" else
                         f"default threads (pyarrow {pa.cpu_count()})")
                load0 = os.getloadavg()[0]
                times, means = rounds(tools, threads, args.repeat)
                report(f"{title}, {label}: {args.repeat} interleaved rounds, end to end "
                       "(read both files + evaluate)", tools, times, means, measures,
                       (load0, os.getloadavg()[0]))
        if args.phases:
            for mode in modes:
                time_phases(qrels, run, args.repeat, set_threads(mode, defaults))
        if args.joins:
            for mode in modes:
                set_threads(mode, defaults)
                time_joins(qrels, run, args.repeat)


if __name__ == "__main__":
    main()
