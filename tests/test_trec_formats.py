"""Runs and qrels as users have them: every format written, detected and read back the same."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from rankmetrics.trec import (
    evaluate,
    qrels_from_arrays,
    read_qrels,
    read_run,
    run_from_arrays,
    write_qrels,
    write_run,
)
from rankmetrics.trec import io as trec_io

from ._extras import require, shared_data_dir

RUN = pd.DataFrame({"qid": ["10", "10", "10", "9", "9", "007"],
                    "docid": ["b", "a", "c#1", "x", "é", "a"],
                    "score": [0.1 + 0.2, 0.30000000000000004, -1e-300, 2.0, 2.0, 5e20]})
QRELS = pd.DataFrame({"qid": ["10", "10", "9", "007", "9"], "docid": ["a", "c#1", "é", "a", "z"],
                      "label": [1.0, 2.0, -1.0, 0.0, 3.0]})
EXTENSIONS = [".txt", "", ".run.gz", ".bz2", ".xz", ".json", ".json.gz", ".parquet", ".pq",
              ".csv", ".tsv", ".tsv.gz"]
MEASURES = ["nDCG@2", "AP", "RR", "P@1"]


def canon(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(["qid", "docid"]).reset_index(drop=True)


@pytest.mark.parametrize("ext", EXTENSIONS)
def test_round_trip_every_format(tmp_path, ext):
    run_path = write_run(tmp_path / f"model{ext}", RUN, tag="m1")
    qrels_path = write_qrels(tmp_path / f"judged{ext}", QRELS)
    got_run, got_qrels = read_run(run_path), read_qrels(qrels_path)
    pd.testing.assert_frame_equal(canon(got_run), canon(RUN))
    pd.testing.assert_frame_equal(canon(got_qrels), canon(QRELS))
    if trec_io.writing_format(run_path)[0] != "trec":
        pd.testing.assert_frame_equal(got_run, RUN)  # other formats keep the row order
    for ties in ("docno", "average"):
        assert evaluate(qrels_path, run_path, MEASURES, ties=ties).mean == \
            evaluate(QRELS, RUN, MEASURES, ties=ties).mean
    # the same from arrays
    path2 = write_run(tmp_path / f"arrays{ext}", RUN["qid"], RUN["docid"].to_numpy(),
                      RUN["score"].tolist())
    pd.testing.assert_frame_equal(canon(read_run(path2)), canon(RUN))


def test_trec_text_is_trec_eval_order_with_ranks(tmp_path):
    path = write_run(tmp_path / "r.txt", RUN, tag="m1")
    assert path.read_text().splitlines() == [
        "007 Q0 a 1 5e+20 m1", "10 Q0 b 1 0.30000000000000004 m1",
        "10 Q0 a 2 0.30000000000000004 m1", "10 Q0 c#1 3 -1e-300 m1", "9 Q0 é 1 2 m1",
        "9 Q0 x 2 2 m1"]
    path = write_qrels(tmp_path / "q.txt", QRELS, iteration="Q0")
    assert path.read_text().splitlines()[:2] == ["10 Q0 a 1", "10 Q0 c#1 2"]
    write_qrels(tmp_path / "f.txt", ["1"], ["d"], [0.5])
    assert (tmp_path / "f.txt").read_text() == "1 0 d 0.5\n"
    write_run(tmp_path / "quote.txt", ["1"], ['say"hi"'], [1.0])  # the slow writer
    assert (tmp_path / "quote.txt").read_text() == '1 Q0 say"hi" 1 1.0 rankmetrics\n'
    assert read_run(tmp_path / "quote.txt")["docid"].tolist() == ['say"hi"']


def test_writing_refuses_what_cannot_be_read_back(tmp_path):
    for qid, doc, match in ((["a b"], ["d"], "query id 'a b' contains whitespace"),
                            (["q"], ["d\te"], "document id 'd\\\\te' contains whitespace"),
                            (["#1"], ["d"], "starts with '#'"), ([""], ["d"], "empty id")):
        with pytest.raises(ValueError, match=match):
            write_run(tmp_path / "r.txt", qid, doc, [1.0])
    write_run(tmp_path / "r.parquet", ["a b"], ["d"], [1.0])  # parquet holds any text
    assert read_run(tmp_path / "r.parquet")["qid"].tolist() == ["a b"]
    with pytest.raises(ValueError, match="tag must be a non-empty str without whitespace"):
        write_run(tmp_path / "r.txt", ["1"], ["d"], [1.0], tag="my run")
    with pytest.raises(ValueError, match="parquet files compress their own columns"):
        write_run(tmp_path / "r.parquet.gz", RUN)
    with pytest.raises(ValueError, match="score must be finite"):
        write_run(tmp_path / "r.txt", ["1"], ["d"], [np.inf])
    with pytest.raises(ValueError, match="qid has 1 entries; expected 2"):
        write_run(tmp_path / "r.txt", ["1"], ["d", "e"], [1.0, 2.0])
    with pytest.raises(TypeError, match="write_run needs score"):
        write_run(tmp_path / "r.txt", ["1"], ["d"])


def test_format_detected_by_content_and_errors_name_it(tmp_path):
    write_run(tmp_path / "a.parquet", RUN)
    (tmp_path / "a.parquet").rename(tmp_path / "looks-like.run")  # parquet under a TREC name
    pd.testing.assert_frame_equal(read_run(tmp_path / "looks-like.run"), RUN)
    (tmp_path / "nested").write_text('\ufeff {"q": {"d": 1}}')
    assert read_qrels(tmp_path / "nested")["label"].tolist() == [1.0]
    (tmp_path / "qrels.gzip").write_bytes(gzip.compress(b"q 0 d 1\n"))  # magic, not name
    assert read_qrels(tmp_path / "qrels.gzip")["docid"].tolist() == ["d"]

    (tmp_path / "text.parquet").write_text("1 Q0 d 1 2.5 t\n")
    with pytest.raises(ValueError, match=r"text.parquet \(read as parquet, detected from the "
                                         r"extension .parquet\): "):
        read_run(tmp_path / "text.parquet")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match=r"list.json \(read as json, detected from the "
                                         r"extension .json\): expected an object"):
        read_run(tmp_path / "list.json")
    (tmp_path / "broken").write_text('{"q": ')
    with pytest.raises(ValueError, match=r"broken \(read as json, detected from its first "
                                         r"character"):
        read_run(tmp_path / "broken")
    (tmp_path / "cols.csv").write_text("question,document,value\n1,d,2\n")
    with pytest.raises(ValueError, match=r"cols.csv \(read as csv, detected from the extension "
                                         r".csv\) needs a query id column named one of qid"):
        read_run(tmp_path / "cols.csv")
    # a headerless MS MARCO run (qid, pid, rank: no score) read its first line as a header
    # without saying so
    (tmp_path / "msmarco.tsv").write_text("1\t100\t1\n1\t101\t2\n")
    with pytest.raises(ValueError, match=r"got columns \['1', '100', '1'\]; its first line "
                                         r"looks like data, not a header: .*MS MARCO's qid, "
                                         r"pid, rank runs also need a score column"):
        read_run(tmp_path / "msmarco.tsv")
    with pytest.raises(ValueError, match=r"got columns \[0, 1, 2\]$"):  # no line to speak of
        read_run(pd.DataFrame({0: ["1"], 1: ["d"], 2: [1.0]}))
    (tmp_path / "ids.csv").write_text("qid,docno,score\n007,0042,x\n")
    with pytest.raises(ValueError, match=r"ids.csv \(read as csv.*score"):
        read_run(tmp_path / "ids.csv")
    (tmp_path / "ids.csv").write_text("\ufeffQID,DocNo,Score\n007,0042,1.5\n")
    assert read_run(tmp_path / "ids.csv").iloc[0].tolist() == ["007", "0042", 1.5]


def test_polars_arrow_ranx_and_ir_measures_inputs():
    pl = require("polars")
    ir_measures = require("ir_measures")
    import pyarrow as pa

    want_run, want_qrels = read_run(RUN), read_qrels(QRELS)
    pd.testing.assert_frame_equal(read_run(pl.from_pandas(RUN)), want_run)
    pd.testing.assert_frame_equal(read_qrels(pa.Table.from_pandas(QRELS)), want_qrels)
    if hasattr(pa, "string_view"):  # polars hands over string views in some versions
        views = pa.table({"qid": pa.array(RUN["qid"].tolist(), pa.string_view()),
                          "docid": RUN["docid"].tolist(), "score": RUN["score"].tolist()})
        pd.testing.assert_frame_equal(read_run(views), want_run)
    scored = [ir_measures.ScoredDoc(q, d, s) for q, d, s in RUN.itertuples(index=False)]
    judged = (ir_measures.Qrel(q, d, int(v), "0") for q, d, v in QRELS.itertuples(index=False))
    pd.testing.assert_frame_equal(read_run(iter(scored)), want_run)
    pd.testing.assert_frame_equal(read_qrels(judged), want_qrels)
    # integer ids in a polars frame are written as decimal text
    ints = pl.DataFrame({"query_id": [1, 1], "doc_id": [5, 6], "relevance": [1, 0]})
    assert read_qrels(ints)[["qid", "docid"]].to_numpy().tolist() == [["1", "5"], ["1", "6"]]

    class Run:  # ranx's Run/Qrels expose to_dict(); ranx itself compiles for minutes
        def __init__(self, d):
            self.d = d

        def to_dict(self):
            return self.d

    Run.__module__ = "ranx.data_structures.run"
    nested = {q: dict(zip(g["docid"], g["score"], strict=True)) for q, g in RUN.groupby("qid")}
    pd.testing.assert_frame_equal(canon(read_run(Run(nested))), canon(want_run))


def test_run_from_arrays_letor_to_compare(tmp_path):
    """A model's scores on LETOR data become run files that ``rankmetrics compare`` reads."""
    require("sklearn")
    require("scipy")
    import rankmetrics as rm
    from rankmetrics import datasets

    folder = shared_data_dir() / "lightgbm_lambdarank"
    data = datasets.load_letor(folder / "rank.test", folder / "rank.test.query", n_features=300)
    rows = data.qid < 40  # the first 40 queries keep the CLI call short
    qid, y, x = data.qid[rows], data.y[rows], data.X[rows]
    qrels = write_qrels(tmp_path / "test.qrels", qid, label=y)
    runs = []
    for j in (0, 1):
        run = run_from_arrays(qid, x[:, j])
        assert run["docid"].iloc[:3].tolist() == ["d0", "d1", "d2"]
        runs.append(write_run(tmp_path / f"feature{j}.run", run))
        got = evaluate(qrels, runs[-1], ["nDCG@10"], gain="exponential").mean["nDCG@10"]
        want = rm.ndcg(y, x[:, j], qid, k=10).mean()
        assert got == pytest.approx(want, abs=1e-12)
    assert qrels_from_arrays(qid, y)["docid"].tolist() == run["docid"].tolist()
    out = subprocess.run([sys.executable, "-m", "rankmetrics", "compare", str(qrels),
                          *map(str, runs), "-m", "ndcg@10", "--format", "json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    # run names are the file names without their extension
    assert report["table"]["header"][1:3] == ["feature0", "feature1"]


def test_array_ids_are_checked():
    with pytest.raises(ValueError, match="qid entry 1 is missing"):
        run_from_arrays(np.array(["a", None], dtype=object), [1.0, 2.0])
    with pytest.raises(ValueError, match="non-integral or non-finite floats"):
        run_from_arrays([1.5, 2.0], [1.0, 2.0])
    with pytest.raises(TypeError, match="got booleans"):
        run_from_arrays([True, False], [1.0, 2.0])
    assert run_from_arrays([1.0, 2.0], [1, 2])["qid"].tolist() == ["1", "2"]
    assert run_from_arrays(np.array([3, 4], dtype=np.uint8), [1, 2], docno=[10, 11]) \
        ["docid"].tolist() == ["10", "11"]


def test_qrels_from_arrays_refuses_what_float64_would_misread():
    """Complex, date and record labels were cast to float64 by numpy (the imaginary part
    dropped with only a warning, days since 1970 read as labels, a record's field taken), and
    masked labels, qids and docnos lost their mask (the hidden values read as data): each is
    now a clear error naming the argument, as the core and run_from_arrays give."""
    q = [1, 1, 2]
    y = np.array([2, 0, 1])
    rec = np.zeros(3, dtype=[("a", "f8")])
    rec["a"] = y
    for bad in (y + 1j, y.astype(complex), y.astype("datetime64[D]"),
                y.astype("timedelta64[s]"), rec):
        with pytest.raises(TypeError, match=r"^qrels: label must be real numbers"):
            qrels_from_arrays(q, bad)
    hidden = np.ma.array(y, mask=[0, 1, 0])
    with pytest.raises(ValueError, match=r"^qrels: label is a masked array"):
        qrels_from_arrays(q, hidden)
    for name, args in (("qid", (np.ma.array(q, mask=[0, 1, 0]), y)),
                       ("docno", (q, y, np.ma.array([7, 8, 9], mask=[1, 0, 0])))):
        with pytest.raises(ValueError, match=rf"^{name} is a masked array"):
            qrels_from_arrays(*args)
        with pytest.raises(ValueError, match=rf"^{name} is a masked array"):
            run_from_arrays(args[0], [0.5, 0.2, 0.1], *args[2:])
    with pytest.raises(ValueError, match=r"^qrels: label 'x' is not a number"):
        qrels_from_arrays(q, ["1", "x", "2"])
    # a mask with nothing masked, text labels and other real dtypes read as before
    got = qrels_from_arrays(np.ma.array(q), np.ma.array(y.astype(">i4")), np.ma.array([7, 8, 9]))
    assert got["label"].tolist() == [2.0, 0.0, 1.0]
    assert got["docid"].tolist() == ["7", "8", "9"]
    assert qrels_from_arrays(q, ["2", "0", "1"])["label"].tolist() == [2.0, 0.0, 1.0]


def test_in_memory_run_scores_follow_the_core_rule():
    """A run given as a dict, DataFrame or arrow table takes the core's score rule: integers
    past 2**53 (float64 would tie them with their neighbours), strings, complex numbers and
    dates are refused with the source named; in-range integers and floats are scores."""
    import pandas as pd
    import pyarrow as pa

    from rankmetrics.trec import evaluate, read_run

    qrels = {"1": {"a": 1, "b": 0}}
    big = np.array([2**60 + 1, 2**60], dtype=np.int64)

    def frame(col):
        return pd.DataFrame({"qid": ["1", "1"], "docid": ["a", "b"], "score": col})

    def table(col):
        return pa.table({"qid": ["1", "1"], "docid": ["a", "b"], "score": col})

    for run in ({"1": {"a": 2**60 + 1, "b": 2**60}}, frame(big), table(pa.array(big))):
        with pytest.raises(ValueError, match=r"run .*score has integers of magnitude 2\*\*53"):
            evaluate(qrels, run, ["RR"])
    bad = [{"1": {"a": "1_0", "b": " 9 "}}, frame(["0.5", "0.7"]), frame([1 + 0j, 2 + 9j]),
           frame(pd.to_datetime(["2024-01-01", "2024-01-02"])), table(pa.array(["0.5", "0.7"]))]
    for run in bad:
        with pytest.raises(TypeError, match=r"run .*score must be"):
            read_run(run)
    from rankmetrics.trec import run_from_arrays

    with pytest.raises(TypeError, match=r"run: score must be numeric"):
        run_from_arrays(["1", "1"], ["0.5", "0.7"])
    with pytest.raises(ValueError, match=r"run: score has integers of magnitude 2\*\*53 or more"):
        run_from_arrays(["1", "1"], [2**60 + 1, 2**60])
    for run in ({"1": {"a": 3, "b": 2.5}}, frame(np.array([3, 2], np.int32)),
                table(pa.array([3, 2], pa.int8())), frame(np.array([3.0, 2.0], np.float32))):
        assert evaluate(qrels, run, ["RR"]).per_query["RR"].tolist() == [1.0]


def test_dict_missing_document_ids_refused():
    """A None / NaN / pd.NA document id in a dict is an error (it became the document "None"
    and matched a run document of that name), as in a DataFrame."""
    import pandas as pd

    from rankmetrics.trec import evaluate

    for missing in (None, float("nan"), pd.NA):
        with pytest.raises(ValueError, match="missing document id"):
            evaluate({"1": {"a": 1, missing: 1}}, {"1": {"a": 0.5, "None": 0.7}}, ["AP"])
        with pytest.raises(ValueError, match="missing document id"):
            evaluate({"1": {"a": 1}}, {"1": {"a": 0.5, missing: 0.7}}, ["AP"])


def test_float_id_columns_of_dataframes_read_as_arrow_tables_do():
    """A pandas float qid column (an int column once a NaN passed through it) gave the queries
    "7.0" and "8.0", which match no qrels "7": with complete=True every topic scored 0 where
    the same frame as an arrow table scored 1. Integral floats are now integers, as in arrow
    tables and files; a fractional id is refused."""
    import pyarrow as pa

    qrels = {"7": {"a": 1}, "8": {"b": 1}}
    df = pd.DataFrame({"qid": [7.0, 8.0], "docid": ["a", "b"], "score": [1.0, 1.0]})
    for frame in (df, df.astype({"qid": "Float64"})):
        assert evaluate(qrels, frame, ["AP"], complete=True).mean == {"AP": 1.0}
    assert evaluate(qrels, pa.Table.from_pandas(df), ["AP"], complete=True).mean == {"AP": 1.0}
    with pytest.raises(ValueError, match="query id column must hold text or integers"):
        evaluate(qrels, df.assign(qid=[7.5, 8.0]), ["AP"])


def test_pipes_are_read_once_whole(tmp_path):
    """A run read from a pipe (``<(...)``, /dev/stdin, a FIFO) lost its start: the format was
    sniffed with a buffered read, then the pipe opened again (236 of 300 rows, no error)."""
    import os

    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"q{i % 5} 0 d{i} {i % 2}\n" for i in range(300)))
    run = "".join(f"q{i % 5} Q0 d{i} {i} {1 - i / 1000:.6f} r\n" for i in range(300))
    (tmp_path / "r.txt").write_text(run)
    assert len(run) < 60_000  # all of it fits in the pipe before anything reads
    r, w = os.pipe()  # /dev/fd/r is what a shell's <(...) hands over: reopening shares it
    try:
        os.write(w, run.encode())
        os.close(w)
        piped = evaluate(str(qrels), f"/dev/fd/{r}", ["NumRet", "NumRelRet", "AP"]).mean
    finally:
        os.close(r)
    assert piped == evaluate(str(qrels), str(tmp_path / "r.txt"),
                             ["NumRet", "NumRelRet", "AP"]).mean
    assert piped["NumRet"] == 300


def test_lone_cr_json_duplicates_and_unreadable_writes_are_errors(tmp_path):
    """Old-Mac CR line ends made one line of a run (its extra fields ignored: NumRet 1, no
    error); duplicate JSON keys kept the last value; write_run accepted ids with a vertical
    tab or a first id starting 'PAR1' / '{', which read back shifted or as another format;
    float ids and labels past 2**63 wrapped to -9223372036854775808. The readers took a TREC
    file whose first query id starts 'PAR1', '{' or 'BZh' for parquet, JSON or bzip2 (and
    failed); now they look for the whole magic, and the writer refuses only ids that have it."""
    qrels = {"q": {"a": 1, "b": 0}}
    cr = tmp_path / "cr.run"
    cr.write_bytes(b"q Q0 a 1 0.5 t\rq Q0 b 2 0.4 t\rq Q0 c 3 0.3 t\r")
    with pytest.raises(ValueError, match=r"cr.run, line 1: a carriage return \(CR\) inside"):
        evaluate(qrels, str(cr), ["NumRet"])
    crlf = tmp_path / "crlf.run"
    crlf.write_bytes(b"q Q0 a 1 0.5 t\r\nq Q0 b 2 0.4 t\r\n")
    assert evaluate(qrels, str(crlf), ["NumRet"]).mean["NumRet"] == 2
    dup = tmp_path / "d.json"
    dup.write_text('{"q": {"a": 1, "a": 0}}')
    with pytest.raises(ValueError, match="key 'a' appears twice"):
        evaluate(str(dup), {"q": {"a": 1.0}}, ["P@1"])
    with pytest.raises(ValueError, match="given twice"):
        write_run(tmp_path / "w.json", ["q", "q"], ["a", "a"], [1.0, 2.0])
    assert not (tmp_path / "w.json").exists()
    with pytest.raises(ValueError, match="contains whitespace"):
        write_run(tmp_path / "v.txt", {"q": {"a\x0bb": 0.9, "c": 0.1}})
    for first in ('{"q', "{}", "BZh91AY&SYq"):
        with pytest.raises(ValueError, match="would start the file as"):
            write_qrels(tmp_path / "m.txt", [first], ["d"], [1])
    for first in ("PAR1x", "BZh91", "{7", "PAR1"):  # TREC text still: read back as written
        write_qrels(tmp_path / "m.qrels", [first], ["d"], [1])
        assert read_qrels(tmp_path / "m.qrels")["qid"].tolist() == [first]
    write_run(tmp_path / "ok.txt", ["zPAR1", "{z"], ["a", "b"], [1.0, 2.0])  # not first: fine
    # a first id starting with a byte-order mark was written, then read back without it ("q")
    # or, before '{"', taken for JSON (and failed)
    for first in ("\ufeffq", '\ufeff{"a'):
        with pytest.raises(ValueError, match="byte-order mark"):
            write_run(tmp_path / "bom.run", [first], ["d"], [1.0])
        with pytest.raises(ValueError, match="byte-order mark"):
            write_qrels(tmp_path / "bom.qrels", [first], ["d"], [1])
    write_run(tmp_path / "bom.csv", ["\ufeffq"], ["d"], [1.0])  # a header comes first
    assert read_run(tmp_path / "bom.csv")["qid"].tolist() == ["\ufeffq"]
    assert read_run(tmp_path / "ok.txt").shape == (2, 3)
    assert run_from_arrays([1e19, 3.0], [0.5, 0.4])["qid"].tolist() == [
        "10000000000000000000", "3"]
    write_qrels(tmp_path / "big.txt", ["q"], ["d"], [1e20])
    assert read_qrels(tmp_path / "big.txt")["label"].tolist() == [1e20]


def test_refused_trec_writes_leave_an_existing_file_alone(tmp_path):
    """write_run to TREC text opened (truncated) the file, then refused an id with a space,
    a '#' id or a tag with a space: the old run was left empty (an empty gzip stream)."""
    for name in ("old.run", "old.run.gz"):
        path = tmp_path / name
        write_run(path, ["q"], ["a"], [1.0])
        before = path.read_bytes()
        for qid, tag in ((["q 1"], "t"), (["#q"], "t"), (["q"], "a tag")):
            with pytest.raises(ValueError):
                write_run(path, qid, ["a"], [1.0], tag=tag)
            assert path.read_bytes() == before
        with pytest.raises(ValueError):
            write_qrels(path, ["q"], ["a b"], [1])
        assert path.read_bytes() == before
    with pytest.raises(ValueError):
        write_run(tmp_path / "new.run", ["q 1"], ["a"], [1.0])
    assert not (tmp_path / "new.run").exists()


def test_pyterrier_frames_are_matched_on_docno():
    """A PyTerrier results frame holds its internal integer ``docid`` and the ``docno`` the
    qrels use; ``docid`` was taken (AP 0, NumRelRet 0 on a perfect run)."""
    qrels = pd.DataFrame({"qid": ["1", "1"], "docno": ["d10", "d20"], "label": [1, 0]})
    run = pd.DataFrame({"qid": ["1", "1"], "docid": [5, 7], "docno": ["d10", "d20"],
                        "rank": [0, 1], "score": [2.0, 1.0], "query": "x"})
    assert evaluate(qrels, run, ["AP", "NumRelRet"]).mean == {"AP": 1.0, "NumRelRet": 1}
