"""The TREC pipeline's speed paths give the same numbers: threads, many read chunks, the join.

``match`` joins run and qrels on integer (query, document) keys and searches only the run rows
whose document the qrels hold; the reference here is a plain dict join. ``evaluate(...,
threads=...)`` must not change a number, whether the kernel sums run in a pool or not, and a
file read as many small blocks (many arrow chunks) gives the same join as one block, and so does
encoding the document ids a query or a few at a time (``ENCODE_ROWS``). About 3 s.
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

from rankmetrics.trec import evaluate, write_qrels, write_run
from rankmetrics.trec import io as _trec_io
from rankmetrics.trec import match as _trec_match

_compute = importlib.import_module("rankmetrics.trec.compute")  # the module, not the function
MEASURES = ["nDCG@10", "P@5", "AP", "RR", "R@20", "NumRelRet"]


def collection(seed: int, n_q: int = 30, n_docs: int = 40):
    """Nested dicts: documents shared across queries, many unjudged, judged ones not retrieved,
    run queries without judgements, tied scores."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    pool = [f"clueweb09-en{int(i):04d}-00-{int(j):05d}" for i, j in
            zip(rng.integers(0, 50, 200), rng.integers(0, 99999, 200), strict=True)]
    pool = list(dict.fromkeys(pool))
    for q in range(n_q):
        docs = rng.choice(len(pool), n_docs, replace=False)
        run[str(100 + q)] = {pool[d]: float(rng.integers(0, 8)) for d in docs}
        if q % 7 != 3:  # some run queries have no judgements
            judged = rng.choice(len(pool), 25, replace=False)
            qrels[str(100 + q)] = {pool[d]: int(rng.integers(-1, 4)) for d in judged}
    qrels["999"] = {pool[0]: 1}  # a qrels query the run misses
    return qrels, run


def shuffled(nested: dict[str, dict[str, float]], seed: int, kind: str) -> pd.DataFrame:
    """The rows of a nested dict as a DataFrame in random order (queries interleaved)."""
    rows = [(q, d, v) for q, inner in nested.items() for d, v in inner.items()]
    order = np.random.default_rng(seed).permutation(len(rows))
    value = "label" if kind == "qrels" else "score"
    return pd.DataFrame([rows[i] for i in order], columns=["qid", "docid", value])


@pytest.mark.parametrize("batch", [1, 37, 1 << 13])
@pytest.mark.parametrize("seed", range(4))
def test_match_labels_equal_a_dict_join(seed, batch, monkeypatch):
    # batch: rows per dictionary encoding (1: a query at a time); rows in random order
    monkeypatch.setattr(_trec_match, "ENCODE_ROWS", batch)
    qrels, run = collection(seed)
    qs, rs = _trec_match.prepare(shuffled(qrels, seed, "qrels"), shuffled(run, seed, "run"),
                                 False)
    m = _trec_match.match(qs, rs, complete=False)
    qids = m.qids.tolist()
    got_by_query: dict[str, list[float]] = {}
    for qi, lab in zip(m.run_qidx.tolist(), m.run_labels.tolist(), strict=True):
        got_by_query.setdefault(qids[qi], []).append(lab)
    for q in qids:
        expect = sorted(max(qrels[q].get(d, 0), 0) for d in run[q])
        assert sorted(got_by_query[q]) == expect, q
    assert set(qids) == {q for q in run if q in qrels}


@pytest.mark.parametrize("ties", ["docno", "average"])
def test_threads_and_chunks_do_not_change_numbers(tmp_path, monkeypatch, ties):
    qrels, run = collection(11, n_q=60, n_docs=60)
    qp, rp = tmp_path / "qrels.txt", tmp_path / "run.txt"
    write_qrels(qp, qrels)
    write_run(rp, run)
    want = evaluate(qrels, run, MEASURES, ties=ties).per_query
    for threads in (None, 1, 2, 3):
        got = evaluate(qp, rp, MEASURES, ties=ties, threads=threads).per_query
        np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
        assert got.index.tolist() == want.index.tolist()
    # every kernel sum in a pool, the run read in blocks of ~1 KB (hundreds of chunks), and
    # the document ids encoded a few queries at a time
    monkeypatch.setattr(_compute, "PARALLEL_ROWS", 0)
    monkeypatch.setattr(_trec_match, "ENCODE_ROWS", 100)
    monkeypatch.setattr(_trec_io, "CHUNK_BYTES", 1024)
    assert _trec_io.read_file(rp, "run", threads=1).column("docid").num_chunks > 50
    for threads in (1, 2):
        got = evaluate(qp, rp, MEASURES, ties=ties, threads=threads).per_query
        np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())


def test_duplicates_are_still_found_across_chunks(tmp_path, monkeypatch):
    qrels, run = collection(3)
    rp = tmp_path / "run.txt"
    write_run(rp, run)
    q = next(iter(qrels))
    d = next(iter(run[q]))
    with rp.open("a") as f:  # the same document again, at the end of the file
        f.write(f"{q} Q0 {d} 99 -5.0 x\n")
    monkeypatch.setattr(_trec_io, "CHUNK_BYTES", 1024)
    monkeypatch.setattr(_trec_match, "ENCODE_ROWS", 50)
    with pytest.raises(ValueError, match=rf"run.txt, lines \d+, \d+: the run retrieves document "
                                         rf"'{d}' twice for query '{q}'"):
        evaluate(qrels, rp, ["AP"], threads=1)


@pytest.mark.parametrize(("threads", "err"), [(0, ValueError), (-2, ValueError),
                                              (1.5, TypeError), (True, TypeError),
                                              ("2", TypeError)])
def test_bad_threads(threads, err):
    qrels, run = collection(0, n_q=3)
    with pytest.raises(err, match="threads"):
        evaluate(qrels, run, ["AP"], threads=threads)


def test_qrels_repeats_with_small_batches(monkeypatch):
    monkeypatch.setattr(_trec_match, "ENCODE_ROWS", 2)
    qrels = pd.DataFrame({"qid": ["1", "2", "1", "2", "1"], "docid": ["a", "a", "b", "a", "a"],
                          "label": [1, 2, 0, 2, 1]})
    run = {"1": {"a": 1.0, "b": 0.5}, "2": {"a": 0.3, "c": 0.1}}
    res = evaluate(qrels, run, ["NumRel", "NumRelRet", "P@2"], ties="docno")
    # a judgement repeated with the same label counts once
    assert res.per_query.to_dict("list") == {"NumRel": [1.0, 1.0], "NumRelRet": [1.0, 1.0],
                                             "P@2": [0.5, 0.5]}
    with pytest.raises(ValueError, match=r"judge document 'a' of query '1' twice with different "
                                         r"labels \(\[1.0, 3.0\]\)"):
        evaluate(qrels.assign(label=[1, 2, 0, 2, 3]), run, ["AP"])


def _run_text(rows: list[tuple[str, str, float]]) -> str:
    return "".join(f"{q} Q0 {d} {i + 1} {s!r} t\n" for i, (q, d, s) in enumerate(rows))


@pytest.mark.parametrize("seed", range(3))
def test_run_line_order_does_not_change_numbers(tmp_path, seed):
    """The join keeps a run written query by query, best first, in place (moving only tied
    documents into docno order) and sorts any other line order; every order gives the same
    numbers, rows grouped by query in the run's first-seen order, each query in trec_eval's
    order. Queries "2" < "9" < "10" numerically but not as strings; "5" has no judgements."""
    rng = np.random.default_rng(seed)
    qrels, run = collection(seed, n_q=12, n_docs=30)
    nested = {str(int(q) - 98): v for q, v in run.items()}  # 2, 3, ..., 13
    nested["5"] = {"only-in-run": 1.0}
    qrels = {str(int(q) - 98) if q != "999" else q: v for q, v in qrels.items()}
    qrels.pop("5", None)
    qp = tmp_path / "qrels"
    write_qrels(qp, qrels)
    rows = [(q, d, s) for q in sorted(nested, key=int) for d, s in nested[q].items()]

    def best_first(docno_desc: bool) -> list[tuple[str, str, float]]:
        by_q: dict[str, list[tuple[str, str, float]]] = {}
        for r in rows:
            by_q.setdefault(r[0], []).append(r)
        out = []
        for q in sorted(by_q, key=int):  # numeric query order: not byte order
            group = sorted(by_q[q], key=lambda r: r[1].encode(), reverse=docno_desc)
            out += sorted(group, key=lambda r: -np.float32(r[2]))  # stable: ties keep docnos
        return out

    orders = {"trec_eval order": best_first(True), "ties docno ascending": best_first(False),
              "shuffled": [rows[i] for i in rng.permutation(len(rows))]}
    want = {t: evaluate(qrels, nested, MEASURES, ties=t, complete=True).per_query
            for t in ("docno", "average")}
    for name, ordered in orders.items():
        rp = tmp_path / "run"
        rp.write_text(_run_text(ordered))
        for t, ref in want.items():
            got = evaluate(qp, rp, MEASURES, ties=t, complete=True).per_query
            pd.testing.assert_frame_equal(got, ref, obj=f"{name}, ties={t}")
        m = _trec_match.match(*_trec_match.prepare(qp, rp, True), complete=False)
        qids = m.qids.tolist()
        first_seen = list(dict.fromkeys(q for q, _, _ in ordered if q in qrels))
        blocks = [qids[i] for i in m.run_qidx[np.r_[True, np.diff(m.run_qidx) != 0]]]
        assert blocks == first_seen, name  # grouped, in the run's first-seen query order
        for q in first_seen:  # the labels in trec_eval's order: score, then docno descending
            by_docno = sorted(nested[q], key=lambda d: d.encode(), reverse=True)
            ranked = sorted(by_docno, key=lambda d: -np.float32(nested[q][d]))  # stable
            got_labels = m.run_labels[[qids[i] == q for i in m.run_qidx]].tolist()
            assert got_labels == [max(qrels[q].get(d, 0), 0) for d in ranked], (name, q)


def _chunked(values: list[str], size: int):
    import pyarrow as pa

    return pa.chunked_array([pa.array(values[i:i + size], pa.string())
                             for i in range(0, len(values), size)] or [pa.array([], pa.string())],
                            type=pa.string())


@pytest.mark.parametrize("batch", [1, 3, 50, 1 << 20])
@pytest.mark.parametrize("layout", ["both grouped", "qrels shuffled", "run shuffled",
                                    "both shuffled"])
@pytest.mark.parametrize("chunk", [2, 7, 1000])
def test_doc_codes_equal_iff_same_query_and_id(batch, layout, chunk, monkeypatch):
    # the document codes of both sides: within a query, equal codes iff equal ids, whether a
    # side is sliced in place (grouped) or reordered, a batch splits a chunk or a chunk splits
    # a query, and an id occurs in several queries of one batch
    monkeypatch.setattr(_trec_match, "ENCODE_ROWS", batch)
    rng = np.random.default_rng(batch + chunk)
    ids = [f"d{i}" for i in range(12)]  # few ids: every one in many queries
    sides = []
    for n in (90, 200):
        group = np.sort(rng.integers(0, 15, n))
        docs = [ids[i] for i in rng.integers(0, len(ids), n)]
        sides.append([group, docs])
    for k, shuffle in enumerate((layout in ("qrels shuffled", "both shuffled"),
                                 layout in ("run shuffled", "both shuffled"))):
        if shuffle:
            perm = rng.permutation(len(sides[k][1]))
            sides[k] = [sides[k][0][perm], [sides[k][1][i] for i in perm]]
    codes, n_codes = _trec_match._doc_codes([_chunked(d, chunk) for _, d in sides],
                                            [g for g, _ in sides])
    group = np.concatenate([g for g, _ in sides])
    docs = np.array(sides[0][1] + sides[1][1])
    code = np.concatenate(codes)
    assert code.min() >= 0 and code.max() < n_codes
    same_query = group[:, None] == group[None, :]
    same_id = docs[:, None] == docs[None, :]
    same_code = code[:, None] == code[None, :]
    np.testing.assert_array_equal(same_code[same_query], same_id[same_query])


@pytest.mark.parametrize("run_order", ["same as qrels", "other than qrels", "interleaved"])
def test_match_in_any_query_order_with_shared_ids(tmp_path, run_order, monkeypatch):
    # the qrels hold queries the run lacks (between the others), ids judged in several queries,
    # and the run lists its queries in the qrels' order, in another order, or interleaved;
    # small read blocks and batches put chunk and batch boundaries inside queries
    monkeypatch.setattr(_trec_match, "ENCODE_ROWS", 16)
    monkeypatch.setattr(_trec_io, "CHUNK_BYTES", 512)
    rng = np.random.default_rng(7)
    ids = [f"doc{i:03d}" for i in range(40)]
    qrels = {str(q): {d: int(rng.integers(-1, 3)) for d in rng.choice(ids, 15, replace=False)}
             for q in range(1, 13)}
    run = {str(q): {d: float(rng.integers(0, 5)) for d in rng.choice(ids, 20, replace=False)}
           for q in range(1, 13) if q % 4}
    qp, rp = tmp_path / "qrels.txt", tmp_path / "run.txt"
    write_qrels(qp, qrels)  # queries in numeric order
    rows = [(q, d, s) for q in run for d, s in run[q].items()]
    if run_order == "other than qrels":
        rows = sorted(rows, key=lambda r: (-int(r[0]), -r[2]))
    elif run_order == "interleaved":
        rows = [rows[i] for i in rng.permutation(len(rows))]
    rp.write_text(_run_text(rows))
    for t in ("docno", "average"):
        want = evaluate(qrels, run, MEASURES, ties=t).per_query
        got = evaluate(qp, rp, MEASURES, ties=t, threads=1).per_query
        pd.testing.assert_frame_equal(got, want)
    m = _trec_match.match(*_trec_match.prepare(qp, rp, False), complete=True)
    qids = m.qids.tolist()
    for qi, lab, s in zip(m.run_qidx.tolist(), m.run_labels.tolist(), m.run_scores.tolist(),
                          strict=True):
        q = qids[qi]
        d = [d for d, v in run[q].items() if v == s]
        assert any(max(qrels[q].get(x, 0), 0) == lab for x in d)
    assert sorted(m.base_labels.tolist()) == sorted(
        max(v, 0) for q in qrels for v in qrels[q].values())
    # a document retrieved twice in one query, the copies in different read blocks and batches
    q = rows[0][0]
    dup = [r for r in rows if r[0] == q]
    rp.write_text(_run_text(dup + [(q, dup[0][1], -1.0)] + [r for r in rows if r[0] != q]))
    with pytest.raises(ValueError, match=rf"run.txt, lines 1, {len(dup) + 1}: the run "
                                         rf"retrieves document '{dup[0][1]}' twice"):
        evaluate(qp, rp, ["AP"], threads=1)
