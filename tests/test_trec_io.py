"""Reading qrels and runs: files (three parsers), DataFrames, nested dicts, errors with lines."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from rankmetrics.trec import evaluate, read_qrels, read_run
from rankmetrics.trec import io as _trec_io
from rankmetrics.trec import match as _trec_match

QRELS = "301 0 d1 2\n301 0 d2 0\n301 0 d3 -1\n302 0 d1 1\n"
RUN = "301 Q0 d1 1 2.5 tag\n301 Q0 d9 2 1.5 tag\n302 Q0 d4 1 0.25 tag\n"
WANT_QRELS = pd.DataFrame({"qid": ["301", "301", "301", "302"], "docid": ["d1", "d2", "d3", "d1"],
                           "label": [2.0, 0.0, -1.0, 1.0]})
WANT_RUN = pd.DataFrame({"qid": ["301", "301", "302"], "docid": ["d1", "d9", "d4"],
                         "score": [2.5, 1.5, 0.25]})


def same(df: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(df.columns) == list(want.columns)
    assert df["qid"].tolist() == want["qid"].tolist()
    assert df["docid"].tolist() == want["docid"].tolist()
    col = want.columns[2]
    assert df[col].dtype == np.float64
    np.testing.assert_array_equal(df[col].to_numpy(), want[col].to_numpy())


VARIANTS = {
    "spaces": lambda t: t,
    "tabs": lambda t: t.replace(" ", "\t"),
    "mixed whitespace": lambda t: "\n".join("  " + ln.replace(" ", " \t ") + "  "
                                            for ln in t.splitlines()) + "\n",
    "comments and blank lines": lambda t: "# judged by NIST\n\n" + t.replace("\n", "\n\n")
                                          + "   # trailing comment\n",
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "no final newline": lambda t: t.rstrip("\n"),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_files_in_every_layout_read_the_same(tmp_path, variant):
    q = tmp_path / "qrels"
    r = tmp_path / "run"
    q.write_text(VARIANTS[variant](QRELS))
    r.write_text(VARIANTS[variant](RUN))
    same(read_qrels(q), WANT_QRELS)
    same(read_run(str(r)), WANT_RUN)


def test_run_lines_with_extra_fields_are_accepted(tmp_path):
    """trec_eval ignores what follows the sixth field (results.trunc has such lines)."""
    r = tmp_path / "run"
    r.write_text(RUN.replace("tag\n", "tag more junk\n", 1))
    same(read_run(r), WANT_RUN)


def test_gzip_and_ids_kept_as_strings(tmp_path):
    r = tmp_path / "run.gz"
    r.write_bytes(gzip.compress(b"007 Q0 0042 1 3 x\n"))
    df = read_run(r)
    assert df["qid"].tolist() == ["007"] and df["docid"].tolist() == ["0042"]


def test_clean_files_take_the_fast_reader(tmp_path, monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("slow reader used")

    monkeypatch.setattr(_trec_io, "_line_read", boom)
    for text, kind in ((QRELS, "qrels"), (RUN, "run"), (RUN.replace(" ", "\t"), "run")):
        p = tmp_path / kind
        p.write_text(text)
        assert _trec_io.read_file(p, kind).num_rows == text.count("\n")


@pytest.mark.parametrize(
    ("kind", "text", "match"),
    [
        ("qrels", "301 0 d1 1\n301 0 d2\n", r"qrels, line 2: a qrels line needs 4 fields .*got 3"),
        ("qrels", "301 0 d1 1\n301 0 d2 high\n", r"qrels, line 2: relevance label 'high' is not"),
        ("qrels", "301 0 d1 nan\n", r"qrels, line 1: relevance label must be finite"),
        ("qrels", RUN, r"qrels, line 1: .*needs 4 fields.*got 6.*is this a run file\?"),
        ("run", QRELS, r"run, line 1: .*at least 5 fields.*got 4.*is this a qrels file\?"),
        ("run", "# header\n301 Q0 d1 1 2.5 t\n301 Q0 d2 2 abc t\n", r"run, line 3: score 'abc'"),
        ("run", "301 Q0 d1 1 inf t\n", r"run, line 1: score must be finite; got 'inf'"),
        ("run", "301 Q0 d1 1 2.5 t\n301  d2 2 1.5 t\n", r"run, line 2: score 't' is not a"),
        ("run", "# nothing here\n\n", r"run: no run lines found"),
        ("run", "", r"run: no run lines found"),
    ],
)
def test_malformed_files_name_file_and_line(tmp_path, kind, text, match):
    p = tmp_path / kind
    p.write_text(text)
    reader = read_qrels if kind == "qrels" else read_run
    with pytest.raises(ValueError, match=match) as err:
        reader(p)
    assert str(p) in str(err.value)


def test_not_utf8_names_the_line(tmp_path):
    p = tmp_path / "run"
    p.write_bytes(b"301 Q0 d1 1 2.5 t\n301 Q0 d\xff 1 2.5 t\n")
    with pytest.raises(ValueError, match=r"run, line 2: not valid UTF-8"):
        read_run(p)


@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize("suffix", ["", ".tsv", ".gz"])
@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_utf16_and_utf32_files_are_named_as_such(tmp_path, kind, suffix, encoding):
    """Wide text reached the UTF-8 readers: "score '\\x000\\x00.\\x005\\x00' is not a
    number"; now the encoding of a file with a byte-order mark is named."""
    data = (RUN if kind == "run" else QRELS).encode(encoding)  # with a byte-order mark
    p = tmp_path / f"{kind}{suffix}"
    p.write_bytes(gzip.compress(data) if suffix == ".gz" else data)
    reader = read_qrels if kind == "qrels" else read_run
    with pytest.raises(ValueError, match=rf"{kind}{suffix}: the file is {encoding.upper()} "
                                         r"text .*convert it"):
        reader(p)


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_wide_text_without_byte_order_mark_is_hinted_at(tmp_path, kind):
    p = tmp_path / kind
    p.write_bytes((RUN if kind == "run" else QRELS).encode("utf-16-be"))
    reader = read_qrels if kind == "qrels" else read_run
    with pytest.raises(ValueError, match=rf"{kind}, line 1: .*NUL bytes: is the file UTF-16"):
        reader(p)


def test_zstd_and_zip_files_are_named_as_such(tmp_path):
    p = tmp_path / "run.zst"
    p.write_bytes(b"\x28\xb5\x2f\xfd\x24\x0fq\x00\x00garbage")
    with pytest.raises(ValueError, match=r"run.zst: the data is zstd-compressed"):
        read_run(p)
    p = tmp_path / "qrels.zip"
    p.write_bytes(b"PK\x03\x04\x14\x00\x00\x00\x08\x00more")
    with pytest.raises(ValueError, match=r"qrels.zip: the data is zip-compressed"):
        read_qrels(p)


def test_error_messages_show_a_bounded_part_of_a_long_line(tmp_path):
    """A file with CR line ends is one line: the error showed all of it (a 1 MB message)."""
    p = tmp_path / "run"
    p.write_bytes(b"".join(b"301 Q0 d%d %d 2.5 t\r" % (i, i) for i in range(50_000)))
    with pytest.raises(ValueError, match=r"run, line 1: a carriage return") as err:
        read_run(p)
    assert len(str(err.value)) < 1000
    assert "bytes)" in str(err.value)


def test_missing_file():
    with pytest.raises(FileNotFoundError, match="run file not found: /no/such/run"):
        read_run("/no/such/run")


def test_duplicate_run_document_names_its_lines(tmp_path):
    q = tmp_path / "qrels"
    r = tmp_path / "run"
    q.write_text(QRELS)
    r.write_text(RUN + "301 Q0 d1 9 0.5 tag\n")
    with pytest.raises(ValueError, match=r"run, lines 1, 4: the run retrieves document 'd1' "
                                         r"twice for query '301'"):
        evaluate(q, r, ["AP"])


def test_conflicting_duplicate_judgements_raise_identical_ones_do_not(tmp_path):
    q = tmp_path / "qrels"
    q.write_text(QRELS + "301 0 d1 2\n")
    assert evaluate(q, {"301": {"d1": 1.0}}, ["NumRel"]).mean["NumRel"] == 1
    q.write_text(QRELS + "301 0 d1 0\n")
    with pytest.raises(ValueError, match=r"qrels, lines 1, 5: the qrels judge document 'd1' "
                                         r"of query '301' twice with different labels \(\[0.0, "
                                         r"2.0\]\)"):
        evaluate(q, {"301": {"d1": 1.0}}, ["AP"])


def test_duplicates_in_headerless_tsv_files_name_their_lines(tmp_path):
    """MS MARCO's qrels.dev.tsv layout is read as TREC text, but a duplicate in it was named by
    the file alone (find_lines looked at TREC-detected files only)."""
    q = tmp_path / "qrels.dev.tsv"
    q.write_text(QRELS.replace(" ", "\t") + "301\t0\td1\t0\n")
    with pytest.raises(ValueError, match=r"qrels.dev.tsv, lines 1, 5: the qrels judge document "
                                         r"'d1' of query '301' twice"):
        evaluate(q, {"301": {"d1": 1.0}}, ["AP"])
    q.write_text(QRELS)
    r = tmp_path / "run.tsv"
    r.write_text(RUN + "301 Q0 d1 9 0.5 tag\n")
    with pytest.raises(ValueError, match=r"run.tsv, lines 1, 4: the run retrieves document 'd1'"):
        evaluate(q, r, ["AP"])
    r.write_text("qid\tdocid\tscore\n301\td1\t1\n301\td1\t2\n")  # a table: no line numbers
    with pytest.raises(ValueError, match=r"run.tsv: the run retrieves document 'd1'"):
        evaluate(q, r, ["AP"])


def test_dataframes_with_common_column_names():
    qrels = pd.DataFrame({"query_id": [301, 301], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"q_id": ["301", "301"], "docno": ["b", "a"], "score": [2.0, 1.0]})
    same(read_qrels(qrels), pd.DataFrame({"qid": ["301", "301"], "docid": ["a", "b"],
                                          "label": [1.0, 0.0]}))
    assert evaluate(qrels, run, ["RR"]).mean["RR"] == 0.5
    with pytest.raises(ValueError, match=r"run DataFrame needs a score column named one of "
                                         r"score, sim, similarity; got columns"):
        read_run(run.rename(columns={"score": "value"}))
    # the core's score rule: a string among the scores is a TypeError, as in rm.ndcg
    with pytest.raises(TypeError, match=r"run DataFrame column 'score': score must be numeric; "
                                        r"found a str value"):
        read_run(run.assign(score=["x", 1.0]))
    with pytest.raises(ValueError, match="score must be finite"):
        read_run(run.assign(score=[np.nan, 1.0]))


def test_big_endian_id_columns_read_as_native_ones():
    """A DataFrame whose qid or docid column is big-endian (dtype '>i8', '>u4', '>f8')
    crashed in pyarrow (ArrowNotImplementedError "Byte-swapped arrays not supported"); its
    ids now read as the native column's."""
    q = np.array([1, 1, 2, 2, 3, 3])
    d = np.arange(6)
    qrels = pd.DataFrame({"qid": q, "docid": d, "label": [1, 0, 1, 0, 2, 1]})
    run = pd.DataFrame({"qid": q, "docid": d, "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.5]})
    want = evaluate(qrels, run, ["ndcg", "P@1"]).mean
    swapped_qrels = qrels.astype({"qid": ">i8", "docid": ">u4", "label": ">i2"})
    swapped_run = run.astype({"qid": ">f8", "docid": ">i8", "score": ">f8"})
    assert evaluate(swapped_qrels, swapped_run, ["ndcg", "P@1"]).mean == want
    same(read_qrels(swapped_qrels), read_qrels(qrels))
    same(read_run(swapped_run), read_run(run))


def test_nested_dicts():
    same(read_run({"301": {"d1": 2.5, "d9": 1.5}, 302: {"d4": 0.25}}), WANT_RUN)
    with pytest.raises(TypeError, match=r"run dict must map query id -> \{docid: score\}"):
        read_run({"301": [1, 2]})
    with pytest.raises(ValueError, match="qrels dict holds no"):
        read_qrels({"301": {}})
    with pytest.raises(TypeError, match="qrels must be a file path, a pandas or polars "
                                        "DataFrame, a dict"):
        read_qrels(42)
    with pytest.raises(TypeError, match=r"qrels item 0 \(tuple\) lacks the fields query_id, "
                                        r"doc_id, relevance of ir_measures' Qrel"):
        read_qrels([("301", "d1", 1)])


def test_same_document_id_in_several_queries_is_matched_per_query():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"a": 0, "b": 2}, "q3": {"a": 1, "a2": 1}}
    run = {"q1": {"b": 0.5, "a": 0.9}, "q2": {"a": 0.9, "b": 0.1, "z": 0.5}, "q3": {"z": 1.0}}
    m = _trec_match.match(*_trec_match.prepare(qrels, run, True), complete=True)
    assert m.qids.tolist() == ["q1", "q2", "q3"]
    # trec_eval order (score descending), labels looked up per (query, document)
    assert m.run_labels.tolist() == [1.0, 0.0, 0.0, 0.0, 2.0, 0.0]
    assert m.run_qidx.tolist() == [0, 0, 1, 1, 1, 2]
    assert m.base_labels.tolist() == [1.0, 0.0, 0.0, 2.0, 1.0, 1.0]


def test_dict_item_and_categorical_ids_follow_the_file_rule() -> None:
    """A float id 7.0 was "7.0" in a dict, in ir_measures items and in a categorical column
    (a float column and a file give "7"), and a bytes id "b'd1'": they matched nothing and
    scored 0 silently."""
    from collections import namedtuple

    qrels = {"7": {"d1": 1, "d2": 0}}
    want = evaluate(qrels, {"7": {"d1": 2.0, "d2": 1.0}}, ["AP"]).per_query
    assert want["AP"].tolist() == [1.0]
    for run in ({7.0: {b"d1": 2.0, "d2": 1.0}}, {np.float32(7): {"d1": 2.0, b"d2": 1.0}}):
        assert evaluate(qrels, run, ["AP"]).per_query.equals(want)
    scored = namedtuple("ScoredDoc", "query_id doc_id score")
    items = [scored(7.0, b"d1", 2.0), scored(7.0, "d2", 1.0)]
    assert evaluate(qrels, iter(items), ["AP"]).per_query.equals(want)
    frame = pd.DataFrame({"qid": pd.Categorical([7.0, 7.0]), "docno": ["d1", "d2"],
                          "score": [2.0, 1.0]})
    assert evaluate(qrels, frame, ["AP"]).per_query.equals(want)
    assert read_run({1.0: {2.0: 1.0}})[["qid", "docid"]].values.tolist() == [["1", "2"]]
    with pytest.raises(ValueError, match=r"run dict query ids: '7' and 7\.0 would both become "
                                         r"the id '7'"):
        read_run({"7": {"d1": 1.0}, 7.0: {"d2": 1.0}})
    with pytest.raises(ValueError, match=r"run dict document ids: id 1\.5 must be text or an "
                                         r"integer"):
        read_run({"7": {1.5: 1.0}})
    with pytest.raises(ValueError, match=r"qrels Qrel items, query_id: id b'\\xff' is not "
                                         r"UTF-8"):
        read_qrels([namedtuple("Qrel", "query_id doc_id relevance")(b"\xff", "d", 1)])


@pytest.mark.parametrize("missing", [None, pd.NA])
@pytest.mark.parametrize("field", ["query_id", "doc_id"])
def test_missing_ids_of_items_are_refused(missing, field) -> None:
    """A None id of an ir_measures item became the text "None" (a query of its own, or a
    document matching nothing), silently."""
    from collections import namedtuple

    qrel = namedtuple("Qrel", "query_id doc_id relevance")
    items = [qrel("1", "a", 1), qrel(**{"query_id": "1", "doc_id": "b", "relevance": 1,
                                        field: missing})]
    with pytest.raises(ValueError, match=rf"qrels Qrel items, {field}: a missing id"):
        read_qrels(items)


@pytest.mark.parametrize("side", ["qid", "docno"])
def test_object_columns_of_float_ids_follow_the_float_column_rule(side) -> None:
    """An object column (or array) of Python floats 7.0 gave the id "7.0" where a float64
    column, a dict and a file give "7": those documents matched nothing and scored 0."""
    from rankmetrics.trec import qrels_from_arrays, run_from_arrays

    ids = {"qid": [7, 7, 8, 8], "docno": [1, 2, 1, 2]}
    qrels = pd.DataFrame({**{k: list(map(str, v)) for k, v in ids.items()}, "label": [1, 0, 0, 1]})
    run = pd.DataFrame({**{k: list(map(str, v)) for k, v in ids.items()},
                        "score": [2.0, 1.0, 2.0, 1.0]})
    want = evaluate(qrels, run, ["P_1", "map"]).per_query
    as_objects = pd.Series([float(x) for x in ids[side]], dtype=object)
    for col in (as_objects, pd.Categorical(as_objects)):
        got = evaluate(qrels, run.assign(**{side: col}), ["P_1", "map"]).per_query
        pd.testing.assert_frame_equal(got, want)
    arrays = {k: np.array(v, dtype=object) for k, v in ids.items()}
    arrays[side] = as_objects.to_numpy()
    got = evaluate(qrels_from_arrays(arrays["qid"], qrels["label"], arrays["docno"]),
                   run_from_arrays(arrays["qid"], run["score"], arrays["docno"]),
                   ["P_1", "map"]).per_query
    pd.testing.assert_frame_equal(got, want)


def test_ids_that_text_would_merge_are_refused_in_categoricals_and_arrays() -> None:
    """A categorical qid column with categories 1 and "1", and run_from_arrays's qid
    [1, "1"] (a list, or an object array), became one query "1" silently; an object column
    already raised."""
    from rankmetrics.trec import run_from_arrays

    run = pd.DataFrame({"qid": pd.Categorical([1, "1"]), "docno": ["a", "b"],
                        "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match=r"run DataFrame column 'qid': 1 and '1' would both"):
        read_run(run)
    for qid in ([1, "1"], np.array([1, "1"], dtype=object)):
        with pytest.raises(ValueError, match=r"qid: 1 and '1' would both become the id '1'"):
            run_from_arrays(qid, [1.0, 2.0], ["a", "b"])
