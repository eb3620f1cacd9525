"""Every reader path gives the same rows on the same data, and file errors name the file.

The paths: pyarrow's CSV reader, pandas' C parser, the line-by-line reader, each on one block or
on many small blocks; files plain, gzip, bzip2 and xz; with and without a UTF-8 byte-order mark,
CRLF line ends, comments and blank lines, tabs, spaces or mixed whitespace. Qrels, runs and
session runs.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import subprocess
import sys
import textwrap
import warnings
from typing import Any

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

from rankmetrics.analysis.session import evaluate_sessions, read_session_run
from rankmetrics.trec import evaluate, read_qrels, read_run
from rankmetrics.trec import io as trec_io

QRELS = [("301", "d1", "2"), ("301", "d2", "0"), ("301", "d3", "-1"), ("301", "dé#4", "1"),
         ("302", "d1", "1"), ("302", "d5", "3"), ("10", "d5", "1")]
RUN = [("301", "d1", "2.5"), ("301", "d9", "+2.5"), ("301", "d3", ".5"), ("301", "dé#4", "5."),
       ("302", "d4", "1e-3"), ("302", "d5", "1E-03"), ("302", "d1", "-0.0"),
       ("10", "d5", "1.000000000000000000001"), ("10", "x", "0.1")]
SESSION = [("s1", "1", "301", "d1", "1", "3"), ("s1", "1", "301", "d2", "2", "3"),
           ("s1", "2", "301", "dé#4", "1", "-1.5e0"), ("s2", "1", "302", "d5", "1", ".25")]
MEASURES = ["nDCG@2", "AP", "RR", "P@2", "R@10"]


def lines(kind: str) -> list[list[str]]:
    if kind == "qrels":
        return [[q, "0", d, v] for q, d, v in QRELS]
    if kind == "run":
        return [[q, "Q0", d, str(i + 1), v, "tag"] for i, (q, d, v) in enumerate(RUN)]
    return [list(r) + ["sys"] for r in SESSION]


def _mixed(fields: list[str]) -> str:
    return "  " + " \t ".join(fields) + "\t "


LAYOUTS = {
    "spaces": lambda rows: "".join(" ".join(r) + "\n" for r in rows),
    "tabs": lambda rows: "".join("\t".join(r) + "\n" for r in rows),
    "mixed whitespace": lambda rows: "".join(_mixed(r) + "\n" for r in rows),
    "comments, blank lines": lambda rows: "# header\n\n" + "".join(
        " ".join(r) + "\n  # note\n\t\n" for r in rows) + "#",
    "crlf": lambda rows: "".join(" ".join(r) + "\r\n" for r in rows),
    "bom": lambda rows: "\ufeff" + "".join(" ".join(r) + "\n" for r in rows),
    "bom, crlf, comments, tabs": lambda rows: "\ufeff# c\r\n" + "".join(
        "\t".join(r) + "\r\n# c\r\n" for r in rows),
    "bom, mixed whitespace": lambda rows: "\ufeff" + "".join(_mixed(r) + "\n" for r in rows),
    "no final newline": lambda rows: "\n".join(" ".join(r) for r in rows),
    "extra fields": lambda rows: "".join(" ".join(r) + (" more x" if i % 2 else "") + "\n"
                                         for i, r in enumerate(rows)),
}
COMPRESS = {"plain": (lambda b: b, ""), "gzip": (gzip.compress, ".gz"),
            "bzip2": (bz2.compress, ".bz2"), "xz": (lzma.compress, ".xz")}
#: reader paths: the parsers offered to each block and the block size
PATHS = {
    "auto": (("pyarrow", "pandas"), None),
    "pyarrow": (("pyarrow",), None),
    "pandas": (("pandas",), None),
    "line-by-line": ((), None),
    "auto, 40-byte blocks": (("pyarrow", "pandas"), 40),
    "pandas, 40-byte blocks": (("pandas",), 40),
}


def test_every_reader_path_reads_the_same(tmp_path, monkeypatch):
    """One data set through every path, layout and compression: identical rows and means."""
    want_q = pd.DataFrame({"qid": [r[0] for r in QRELS], "docid": [r[1] for r in QRELS],
                           "label": [float(r[2]) for r in QRELS]})
    want_r = pd.DataFrame({"qid": [r[0] for r in RUN], "docid": [r[1] for r in RUN],
                           "score": [float(r[2]) for r in RUN]})
    want_s = read_session_run(pd.DataFrame({
        "session": [r[0] for r in SESSION], "query": [int(r[1]) for r in SESSION],
        "topic": [r[2] for r in SESSION], "docid": [r[3] for r in SESSION],
        "rank": [int(r[4]) for r in SESSION], "score": [float(r[5]) for r in SESSION]}))
    for ties in ("docno", "average"):
        assert evaluate(want_q, want_r, MEASURES, ties=ties).mean  # the reference runs
    ref_means = {t: evaluate(want_q, want_r, MEASURES, ties=t).mean for t in ("docno", "average")}
    ref_session = evaluate_sessions(want_q, want_s, depth=3).curve

    real = dict(trec_io.PARSERS)
    used: dict[str, int] = {"pyarrow": 0, "pandas": 0, "line-by-line": 0}

    def counting(name):
        def parse(data, kind):
            tb = real[name](data, kind)
            used[name] += tb is not None
            return tb
        return parse

    line_read = trec_io._line_read

    def counting_line(*args):
        tb = line_read(*args)
        used["line-by-line"] += tb is not None
        return tb

    monkeypatch.setattr(trec_io, "_line_read", counting_line)
    n_cases = 0
    for path_name, (parsers, block) in PATHS.items():
        monkeypatch.setattr(trec_io, "PARSERS", {p: counting(p) for p in parsers})
        monkeypatch.setattr(trec_io, "CHUNK_BYTES", block or (16 << 20))
        for layout, make in LAYOUTS.items():
            # decompressed bytes meet the same parsers: compression is tried on "auto" only
            for comp, (compress, suffix) in COMPRESS.items():
                if comp != "plain" and path_name != "auto":
                    continue
                case = f"{path_name} / {layout} / {comp}"
                files = {}
                for kind in ("qrels", "run", "session"):
                    if kind == "qrels" and layout == "extra fields":
                        continue
                    f = tmp_path / f"{kind}-{n_cases}{suffix}"
                    f.write_bytes(compress(make(lines(kind)).encode("utf-8")))
                    files[kind] = f
                got_r = read_run(files["run"])
                pd.testing.assert_frame_equal(got_r, want_r, obj=case)
                assert np.array_equal(np.signbit(got_r["score"]), np.signbit(want_r["score"]))
                got_s = read_session_run(files["session"])
                pd.testing.assert_frame_equal(got_s, want_s, obj=case)
                qrels = files.get("qrels")
                if qrels is not None:
                    pd.testing.assert_frame_equal(read_qrels(qrels), want_q, obj=case)
                    for ties, ref in ref_means.items():
                        assert evaluate(qrels, files["run"], MEASURES, ties=ties).mean == ref, \
                            case
                    got = evaluate_sessions(qrels, files["session"], depth=3).curve
                    np.testing.assert_array_equal(got, ref_session, err_msg=case)
                n_cases += 1
    assert n_cases == (len(PATHS) + len(COMPRESS) - 1) * len(LAYOUTS)
    assert min(used.values()) > 10, used  # every parser really read blocks


def test_first_block_boundary_does_not_split_lines(tmp_path, monkeypatch):
    """Blocks are cut at line ends, so every block size reads the same rows (and line numbers
    in errors count from the start of the file)."""
    text = "".join(f"{q} Q0 doc{i} {i} {i / 7!r} t\n" for i, q in enumerate([1, 2, 3] * 30))
    path = tmp_path / "run"
    path.write_text(text + "3 Q0 bad 1 x t\n")
    for size in (1, 7, 64, 1000):
        monkeypatch.setattr(trec_io, "CHUNK_BYTES", size)
        with pytest.raises(ValueError, match=r"run, line 91: score 'x' is not a number"):
            read_run(path)
    path.write_text(text)
    want = read_run(path)
    path.write_text("\ufeff" + text)
    for size in (1, 2, 33):  # a byte-order mark longer than the block is still dropped
        monkeypatch.setattr(trec_io, "CHUNK_BYTES", size)
        pd.testing.assert_frame_equal(read_run(path), want)


# --------------------------------------------------------------------------- file errors
@pytest.mark.parametrize("reader", [read_qrels, read_run, read_session_run])
def test_file_errors_name_the_file(tmp_path, reader):
    ok = {read_qrels: b"301 0 d1 1\n", read_run: b"301 Q0 d1 1 2.5 t\n",
          read_session_run: b"s 1 301 d1 1 2.5 t\n"}[reader]
    full = gzip.compress(ok * 1000)
    trunc = tmp_path / "cut.gz"
    trunc.write_bytes(full[: len(full) // 2])
    with pytest.raises(ValueError, match=rf"{trunc}: the gzip data is truncated"):
        reader(trunc)
    fake = tmp_path / "plain.gz"
    fake.write_bytes(ok)
    with pytest.raises(ValueError, match=rf"{fake}: not a gzip file \(the name ends in .gz"):
        reader(fake)
    corrupt = tmp_path / "corrupt.gz"
    corrupt.write_bytes(full[:20] + b"\x00" * 50 + full[70:])
    with pytest.raises(ValueError, match=rf"{corrupt}: (corrupt gzip data|the gzip data)"):
        reader(corrupt)
    with pytest.raises(IsADirectoryError, match=rf"directory, not a file: {tmp_path}"):
        reader(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"file not found: .*nothing-here"):
        reader(tmp_path / "nothing-here")
    with pytest.raises(ValueError, match=r"/dev/null: no .*lines"):
        reader("/dev/null")
    bad = tmp_path / "latin1"
    bad.write_bytes(ok + ok.replace(b"d1", b"d\xe9"))
    with pytest.raises(ValueError, match=rf"{bad}, line 2: not valid UTF-8"):
        reader(bad)


def test_cli_reports_file_errors(tmp_path):
    run = tmp_path / "run"
    run.write_text("301 Q0 d1 1 2.5 t\n")
    for qrels, msg in (("/dev/null", "/dev/null: no qrels lines found"),
                       (str(tmp_path), "qrels path is a directory")):
        out = subprocess.run([sys.executable, "-m", "rankmetrics", "eval", qrels, str(run)],
                             capture_output=True, text=True)
        assert out.returncode == 1
        assert msg in out.stderr and "Traceback" not in out.stderr


# ----------------------------------------------------------------------------- memory
MEMORY_SCRIPT = textwrap.dedent("""
    import gc, os, sys
    import pyarrow as pa
    from rankmetrics.trec import io as trec_io

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith(key + ":"))

    trec_io.CHUNK_BYTES = 4 << 20
    # the same path once on a small file first: modules it imports lazily and the code pages
    # it touches (the peak is the whole process's) are in before the peak is reset
    trec_io.read_file(sys.argv[3], "run")
    gc.collect()
    on_proc = sys.argv[2] == "proc"
    if on_proc:
        with open("/proc/self/clear_refs", "w") as f:  # reset the peak (VmHWM) to the RSS
            f.write("5")
        before = status("VmRSS")
    tb = trec_io.read_file(sys.argv[1], "run")
    peak = status("VmHWM") - before if on_proc else pa.default_memory_pool().max_memory()
    print(peak, tb.nbytes, tb.num_rows)
    # measured: leave without the interpreter's teardown, where pyarrow's pool threads can
    # abort the process ("terminate called without an active exception", apache/arrow#34314;
    # seen once here, in a full run with the other pytest worker busy)
    sys.stdout.flush()
    os._exit(0)
""")


@pytest.mark.parametrize("path_taken", ["pyarrow", "line-by-line"])
def test_reading_memory_is_bounded_by_the_parsed_columns(tmp_path, path_taken):
    """Peak memory of reading a ~50 MB run (in a fresh process) stays within 2.5x the parsed
    columns plus a few 4 MB blocks, on the fast path and on the line-by-line path (which a
    comment ... here a ragged line forces for the whole file). The peak is the process's
    (VmHWM) on Linux, elsewhere pyarrow's memory pool's (no /proc there): it runs, never
    skips, on every platform."""
    method = "proc" if sys.platform.startswith("linux") else "pool"
    path = tmp_path / "big.run"
    n = 600_000 if path_taken == "pyarrow" else 200_000
    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(n // 100), 100).astype(str)
    docs = np.char.add("clueweb09-en0000-", rng.permutation(n).astype(str))
    scores = rng.random(n).round(6).astype(str)
    extra = " x" if path_taken == "line-by-line" else ""
    with path.open("w") as f:
        for start in range(0, n, 100_000):
            sl = slice(start, start + 100_000)
            f.write("".join(f"{a} Q0 {b} 1 {c} tag{extra}\n" for a, b, c in
                            zip(q[sl].tolist(), docs[sl].tolist(), scores[sl].tolist(),
                                strict=True)))
    small = tmp_path / "small.run"
    with path.open() as f:
        small.write_text("".join(next(f) for _ in range(1000)))
    out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, str(path), method, str(small)],
                         capture_output=True, text=True, check=True)
    peak, nbytes, rows = map(int, out.stdout.split())
    assert rows == n
    bound = 2.5 * nbytes + 4 * (4 << 20) + (30 << 20)  # + blocks + the line reader's lists
    assert peak <= bound, (peak / nbytes, path.stat().st_size / nbytes)
    print(f"{path_taken}: peak {peak / 2**20:.0f} MiB = {peak / nbytes:.2f}x the parsed "
          f"columns ({nbytes / 2**20:.0f} MiB; file {path.stat().st_size / 2**20:.0f} MiB)")


def test_bytes_in_ignored_fields_are_ignored_on_every_path(tmp_path, monkeypatch):
    """The rank and tag fields are not read (as in trec_eval), so any bytes there are accepted
    by every parser alike; ids must be UTF-8 on every path."""
    data = b"1 Q0 a 1 2.5 t\xff\n1 Q0 b \xfe 1.5 t\n"
    want = pd.DataFrame({"qid": ["1", "1"], "docid": ["a", "b"], "score": [2.5, 1.5]})
    session = b"s 1 T a 1 2.5 t\xff\n"
    for parsers in (("pyarrow",), ("pandas",), ()):
        monkeypatch.setattr(trec_io, "PARSERS", {p: trec_io.PARSERS[p] for p in parsers}
                            if parsers else {})
        for tail in (b"", b"1 Q0 c 3 0.5 t extra\n"):
            path = tmp_path / "run"
            path.write_bytes(data + tail)
            got = read_run(path)
            pd.testing.assert_frame_equal(got.iloc[:2], want, obj=str(parsers))
            path.write_bytes(data.replace(b" a ", b" \xe9 ") + tail)
            with pytest.raises(ValueError, match=r"run, line 1: not valid UTF-8"):
                read_run(path)
        monkeypatch.undo()
    path = tmp_path / "sessions"
    path.write_bytes(session)
    assert read_session_run(path)["docid"].tolist() == ["a"]


# ----------------------------------------------------------------- memory-mapped blocks
def _big_run(n_lines: int = 3000, seed: int = 0) -> tuple[list[tuple[str, str, float]], str]:
    """Rows and TREC text of a run long enough to span many pages of the memory map (queries
    in an order that is not byte order, tied scores)."""
    rng = np.random.default_rng(seed)
    qids = ["9", "10", "100", "2", "11"]
    rows = [(qids[i * len(qids) // n_lines], f"doc-{int(rng.integers(0, 10**9))}-{i}",
             float(rng.integers(0, 40)) / 4) for i in range(n_lines)]
    text = "".join(f"{q} Q0 {d} {i + 1} {s!r} tag\n" for i, (q, d, s) in enumerate(rows))
    return rows, text


def _counting_maps(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = trec_io._mapped_blocks

    def mapped(*args, **kwargs):
        calls.append(1)
        yield from real(*args, **kwargs)

    monkeypatch.setattr(trec_io, "_mapped_blocks", mapped)
    return calls


@pytest.mark.parametrize("layout", ["plain", "bom", "crlf", "comments", "bom, crlf",
                                    "no final newline"])
def test_mapped_blocks_read_like_the_decompressed_stream(tmp_path, monkeypatch, layout):
    """An uncompressed file is read in place from one memory map per block (block starts are
    not page-aligned; a block shorter than a line is mapped further, as the 40-byte blocks of
    the test above show); the gzip file of the same bytes is read as a stream: both give the
    rows written, with every block size. ~0.5 s."""
    rows, text = _big_run()
    if "comments" in layout:
        text = "# a comment\n" + text.replace("\n", "\n# another\n", 7)
    if "crlf" in layout:
        text = text.replace("\n", "\r\n")
    if "bom" in layout:
        text = "\ufeff" + text
    if layout == "no final newline":
        text = text.rstrip("\n")
    data = text.encode("utf-8")
    plain, packed = tmp_path / "run.txt", tmp_path / "run.txt.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    want = pd.DataFrame({"qid": [r[0] for r in rows], "docid": [r[1] for r in rows],
                         "score": [r[2] for r in rows]})
    maps = _counting_maps(monkeypatch)
    assert len(data) > 4 * 4096
    for size in (None, 1000, 3 * 4096 + 17, 70_001):
        monkeypatch.setattr(trec_io, "CHUNK_BYTES", size or (16 << 20))
        for path in (plain, packed):
            pd.testing.assert_frame_equal(read_run(path), want, obj=f"{path.name}, {size}")
    assert len(maps) == 4  # the plain file, once per block size


@pytest.mark.parametrize("crlf", [False, True])
def test_mapped_and_streamed_errors_name_the_line(tmp_path, monkeypatch, crlf):
    """Line numbers are counted only when an error names one: the same line whatever the block
    size and whether the file is mapped (plain) or streamed (gzip)."""
    _, text = _big_run()
    lines_ = text.splitlines(keepends=True)
    end = "\r\n" if crlf else "\n"
    for bad, match in (("11 Q0 bad 1 x tag\n", r"line 2500: score 'x' is not a number"),
                       ("11 Q0 d\udcff 1 2.5 tag\n", r"line 2500: not valid UTF-8")):
        body = "".join(lines_[:2499]) + bad + "".join(lines_[2499:])
        data = body.replace("\n", end).encode("utf-8", errors="surrogateescape")
        plain, packed = tmp_path / "bad.txt", tmp_path / "bad.txt.gz"
        plain.write_bytes(data)
        packed.write_bytes(gzip.compress(data))
        for size in (None, 4096, 777):
            monkeypatch.setattr(trec_io, "CHUNK_BYTES", size or (16 << 20))
            for path in (plain, packed):
                with pytest.raises(ValueError, match=rf"{path.name}, {match}"):
                    read_run(path)


def test_mapped_blocks_with_pyarrows_thread_pool(tmp_path, monkeypatch):
    """With threads, pyarrow may hold a block's buffer a moment after the parse returns; the
    map is then released with its last reference, and every read gives the same table."""
    rows, text = _big_run(6000, seed=1)
    path = tmp_path / "run"
    path.write_text(text)
    monkeypatch.setattr(trec_io, "CHUNK_BYTES", 8192)
    want = trec_io.read_file(path, "run", threads=1)
    for _ in range(10):
        assert trec_io.read_file(path, "run").equals(want)
        assert trec_io.read_file(path, "run", threads=2).equals(want)


def test_complex_qrels_labels_are_refused():
    """Complex labels (a DataFrame column, numpy complex scalars in a dict) were read as their
    real parts with numpy's ComplexWarning only; the core refuses them, and so does this."""
    run = pd.DataFrame({"qid": ["q1"] * 3, "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["q1"] * 3, "docno": ["a", "b", "c"],
                          "label": np.array([5j, 1 + 0j, 2 - 7j])})
    with pytest.raises(TypeError, match="column 'label': label must be real numbers"):
        evaluate(qrels, run, ["nDCG"])
    with pytest.raises(TypeError, match="label must be real numbers"):
        evaluate({"q1": {"a": np.complex128(1j), "b": np.complex128(1)}},
                 {"q1": {"a": 2.0, "b": 1.0}}, ["P@1"])
    # durations were read as nanosecond counts
    qrels["label"] = pd.to_timedelta([0, 1, 2], unit="s")
    with pytest.raises(TypeError, match="label must be real numbers; got dtype timedelta64"):
        evaluate(qrels, run, ["nDCG"])


@pytest.mark.parametrize("parsers", [("pyarrow", "pandas"), ("pandas",), ()])
def test_qrels_labels_written_with_an_exponent_warn_on_every_path(tmp_path, monkeypatch,
                                                                   parsers):
    """trec_eval reads a label with atol: '1e1' is 1 there, 10 here, and '5e-1' is 5 there (the
    fractional-label warning said 0); they were read silently. The value stays the number
    written, the warning names the file, line, text and trec_eval's reading."""
    monkeypatch.setattr(trec_io, "PARSERS", {p: trec_io.PARSERS[p] for p in parsers})
    path = tmp_path / "qrels"
    path.write_bytes(b"1 0 a 1\n# note\n1 0 b 0\n1 0 c 1e1\n1 0 d 5e-1\n")
    with pytest.warns(UserWarning, match=r"qrels, line 4: 2 relevance label\(s\) from here on "
                                         r"\(up to 16 MiB of the file\) are written with an "
                                         r"exponent \(the first: "
                                         r"'1e1'\); rankmetrics reads '1e1' as 10.0, while "
                                         r"trec_eval reads labels with atol \(as 1\)"):
        got = read_qrels(path)
    assert got["label"].tolist() == [1.0, 0.0, 10.0, 0.5]
    for text in ("1_0", "\u0661"):  # Python's float() takes them; pyarrow and the line reader
        path.write_text(f"1 0 a 1\n1 0 b {text}\n", encoding="utf-8")  # do not (pandas did)
        with pytest.raises(ValueError, match=r"qrels, line 2: relevance label .* is not a number"):
            read_qrels(path)
    path.write_bytes(b"1 0 a 1\n1 0 b 0\n1 0 c 10\n")  # no exponent: no warning, same parsers
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_qrels(path)["label"].tolist() == [1.0, 0.0, 10.0]


_LABEL_TEXT = st.one_of(
    st.integers(-3, 40).map(str),
    st.sampled_from(["+1", "-0", "0.5", ".5", "2.", "1e1", "5e-1", "1E+0", "10e-1", "1_0",
                     "\u0661", "0x1", "inf", "nan", "1,5", "01"]),
)


@settings(max_examples=60, deadline=None)
@given(labels=st.lists(_LABEL_TEXT, min_size=1, max_size=6))
def test_qrels_label_spellings_read_alike_on_every_parser_path(tmp_path_factory, labels):
    """Every spelling of a label gets the same number, or the same refusal naming the file,
    whichever parser reads the block (pyarrow, pandas, the line reader); a label with an
    exponent warns on every path (trec_eval's atol reads it otherwise)."""
    path = tmp_path_factory.mktemp("labels") / "qrels"
    path.write_text("".join(f"q 0 d{i} {t}\n" for i, t in enumerate(labels)), encoding="utf-8")
    outcomes = []
    for parsers in (("pyarrow", "pandas"), ("pandas",), ()):
        saved = dict(trec_io.PARSERS)
        trec_io.PARSERS.clear()
        trec_io.PARSERS.update({p: saved[p] for p in parsers})
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    got: Any = read_qrels(path)["label"].tolist()
                except ValueError as exc:
                    assert "qrels, line " in str(exc)
                    got = "refused"
            warned = any("exponent" in str(w.message) for w in caught)
        finally:
            trec_io.PARSERS.clear()
            trec_io.PARSERS.update(saved)
        outcomes.append((got, warned))
    assert outcomes[0] == outcomes[1] == outcomes[2], outcomes
    got, warned = outcomes[0]
    if got != "refused":
        assert warned == any(c in t for t in labels for c in "eE")
