"""Match a run against qrels: query codes, labels of retrieved documents, trec_eval order.

Query ids and document ids become integer codes through pyarrow's hash dictionary encoding
(document ids of qrels and run encoded together, so equal ids share a code); a (query, document)
pair is then the int64 ``query * n_docs + doc``, and numpy sorts and binary searches those keys
to find duplicates and the qrels row of every retrieved document. Only documents whose code
occurs more than once are sorted for the duplicate checks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numpy.typing import NDArray

from .io import find_lines, to_table


@dataclass
class Matched:
    """Per-query arrays ready for the ranking kernel (labels already clipped at 0).

    ``base_*`` is the recall base (every judged document of an evaluated query); ``run_*`` the
    retrieved documents of evaluated queries with their qrels label (0 when unjudged), grouped by
    query, in trec_eval order (score descending, docno descending) when ``docno_order`` was set.
    """

    qids: NDArray[Any]  # (n_eval,) str, sorted
    base_labels: NDArray[np.float64]
    base_qidx: NDArray[np.int64]
    run_labels: NDArray[np.float64]
    run_scores: NDArray[np.float64]
    run_qidx: NDArray[np.int64]
    #: (n_run_rows,) the document has any qrels entry (negative labels included); None when
    #: not computed
    run_in_qrels: NDArray[np.bool_] | None = None


@dataclass
class QrelsSide:
    """A read qrels table."""

    qids: pa.ChunkedArray
    docs: pa.ChunkedArray
    labels: NDArray[np.float64]
    src: Any


@dataclass
class RunSide:
    """A read run, and whether trec_eval's docno order is wanted."""

    qids: pa.ChunkedArray
    docs: pa.ChunkedArray
    scores: NDArray[np.float64]
    docno_order: bool
    src: Any


def _array(col: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray:
    """The column as string chunks, without copying the chunks of a file read in blocks."""
    arr = col if isinstance(col, pa.ChunkedArray) else pa.chunked_array([col])
    return arr if arr.type == pa.string() else arr.cast(pa.large_string())


def prepare_qrels(src: Any) -> QrelsSide:
    """Read qrels (any accepted source)."""
    tb = to_table(src, "qrels")
    return QrelsSide(_array(tb.column("qid")), _array(tb.column("docid")),
                     tb.column("label").to_numpy(), src)


def prepare(qrels: Any, run: Any, docno_order: bool) -> tuple[QrelsSide, RunSide]:
    """Read both sides (qrels first, so that their errors are reported first)."""
    qs = prepare_qrels(qrels)
    tb = to_table(run, "run")
    rs = RunSide(_array(tb.column("qid")), _array(tb.column("docid")),
                 tb.column("score").to_numpy(), docno_order, run)
    return qs, rs


def _where(src: Any) -> str:
    return str(src) if isinstance(src, (str, os.PathLike)) else ""


def _duplicate_error(kind: str, src: Any, qid: str, docid: str, extra: str = "") -> ValueError:
    where = _where(src)
    if where:
        lines = find_lines(where, kind, qid, docid)
        at = f"{where}, lines {', '.join(map(str, lines[:5]))}" if lines else where
    else:
        at = f"{kind} input"
    msg = {
        "run": "the run retrieves document {d!r} twice for query {q!r}{x} (trec_eval rejects "
               "duplicate documents; keep one score per document)",
        "qrels": "the qrels judge document {d!r} of query {q!r} twice with different labels{x}",
    }[kind].format(d=docid, q=qid, x=extra)
    return ValueError(f"{at}: {msg}")


def _codes(enc: pa.DictionaryArray | pa.ChunkedArray) -> NDArray[np.int64]:
    chunks = enc.chunks if isinstance(enc, pa.ChunkedArray) else [enc]
    if not chunks:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunks]
                          ).astype(np.int64, copy=False)


def _encode(col: pa.ChunkedArray) -> tuple[NDArray[np.int64], pa.Array]:
    """Dictionary codes (int64) of every row and the dictionary (first-seen order)."""
    enc = pc.dictionary_encode(col)
    return _codes(enc), enc.chunks[-1].dictionary


def _repeated(keys: NDArray[np.int64], doc_codes: NDArray[np.int64], n_docs: int
              ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(rows, first row with the same key) for every row whose key occurs more than once, the
    first occurrence excluded; only rows whose document occurs more than once are sorted."""
    cand = np.flatnonzero(np.bincount(doc_codes, minlength=n_docs)[doc_codes] > 1)
    if cand.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    order = cand[np.argsort(keys[cand], kind="stable")]
    srt = keys[order]
    same = np.flatnonzero(srt[1:] == srt[:-1]) + 1
    if same.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    start = np.ones(order.size, dtype=bool)
    start[same] = False
    head = np.maximum.accumulate(np.where(start, np.arange(order.size), 0))
    return order[same], order[head[same]]


def _docno_order(rank_of_row: NDArray[np.int64], scores: NDArray[np.float64],
                 docs: pa.ChunkedArray) -> NDArray[np.int64]:
    """trec_eval's order: query id, score (a C float) descending, then docno descending (strcmp).

    Query rank and float32 score are packed into one int64 key (the float's bits mapped to an
    order-preserving unsigned integer) and argsorted by numpy; only rows whose key is shared, the
    ties, are then sorted by document id with pyarrow.
    """
    s32 = scores.astype(np.float32) + np.float32(0.0)  # -0.0 == 0.0 for C floats too
    bits = s32.view(np.uint32).astype(np.int64)
    del s32
    descending = np.where(bits >= 0x80000000, bits, 0x7FFFFFFF - bits)
    del bits
    key = rank_of_row << 32
    key |= descending
    del descending
    order = np.argsort(key, kind="stable")  # runs are mostly sorted already: timsort is linear
    srt = key[order]
    same = srt[1:] == srt[:-1]
    if same.any():
        tied = np.zeros(order.size, dtype=bool)
        tied[1:] = same
        tied[:-1] |= same
        at = np.flatnonzero(tied)  # tie groups are contiguous runs of these positions
        rows = order[at]
        sub = pa.table({"k": srt[at], "d": docs.take(pa.array(rows))})
        perm = pc.sort_indices(sub, sort_keys=[("k", "ascending"), ("d", "descending")])
        order[at] = rows[perm.to_numpy()]
    return order


def match(qs: QrelsSide, rs: RunSide, *, complete: bool) -> Matched:
    """Join a run with qrels.

    Queries evaluated: the qrels queries that the run retrieves for (trec_eval's default), or
    every qrels query when ``complete`` (``-c``). Run queries absent from the qrels are ignored.

    Raises
    ------
    ValueError
        A document retrieved twice for one query, or judged twice with different labels.
    """
    # query codes: qrels queries in byte order (trec_eval's strcmp order)
    q_codes, q_dict = _encode(qs.qids)
    by_bytes = pc.sort_indices(q_dict)
    uq = q_dict.take(by_bytes)
    rank = np.empty(len(uq), dtype=np.int64)
    rank[by_bytes.to_numpy()] = np.arange(len(uq))
    q_idx = rank[q_codes]
    r_codes, r_dict = _encode(rs.qids)
    to_uq = pc.index_in(r_dict, value_set=uq.cast(r_dict.type)).fill_null(-1).to_numpy()
    r_idx = to_uq.astype(np.int64)[r_codes]
    del q_codes, r_codes
    keep = r_idx >= 0
    r_docs, scores = rs.docs, rs.scores
    if not keep.all():
        r_idx, scores = r_idx[keep], scores[keep]
        r_docs = r_docs.filter(pa.array(keep))

    # document codes shared by both sides; (query, document) keys
    if r_docs.type != qs.docs.type:
        r_docs = r_docs.cast(pa.large_string())
        qs_docs = qs.docs.cast(pa.large_string())
    else:
        qs_docs = qs.docs
    doc_enc = pc.dictionary_encode(pa.chunked_array(qs_docs.chunks + r_docs.chunks,
                                                    type=qs_docs.type))
    codes = _codes(doc_enc)
    n_docs = max(len(doc_enc.chunks[-1].dictionary) if doc_enc.num_chunks else 0, 1)
    del doc_enc
    n_q = len(qs.docs)
    cq, cr = codes[:n_q], codes[n_q:]
    # fits int64: n_queries * n_docs <= (rows of qrels) * (rows of both) < 2**63
    kq = q_idx * n_docs + cq
    kr = r_idx * n_docs
    kr += cr

    labels = qs.labels
    rows, first = _repeated(kq, cq, n_docs)
    keep_q = np.ones(n_q, dtype=bool)
    if rows.size:
        bad = labels[rows] != labels[first]
        if bad.any():
            i = int(rows[np.flatnonzero(bad)[0]])
            vals = sorted(set(labels[kq == kq[i]].tolist()))
            raise _duplicate_error("qrels", qs.src, uq[q_idx[i]].as_py(),
                                   qs.docs[i].as_py(), f" ({vals})")
        keep_q[rows] = False
    rows, _ = _repeated(kr, cr, n_docs)
    if rows.size:
        i = int(rows.min())
        raise _duplicate_error("run", rs.src, uq[r_idx[i]].as_py(), r_docs[i].as_py())
    del codes, cq, cr, rows, first  # peak memory: drop per-row temporaries as soon as done

    kept = np.flatnonzero(keep_q)
    order_q = kept[np.argsort(kq[kept])]
    sorted_keys = kq[order_q]
    pos = np.minimum(np.searchsorted(sorted_keys, kr), max(sorted_keys.size - 1, 0))
    hit = np.flatnonzero(sorted_keys[pos] == kr) if sorted_keys.size else pos[:0]
    r_labels = np.zeros(kr.size)
    r_labels[hit] = labels[order_q[pos[hit]]]
    r_in_qrels = np.zeros(kr.size, dtype=bool)
    r_in_qrels[hit] = True
    del kq, kr, pos, hit, sorted_keys, order_q, kept
    labels = labels[keep_q]
    q_idx = q_idx[keep_q]

    n_uq = len(uq)
    if complete:
        evaluated = np.arange(n_uq)
    else:
        evaluated = np.flatnonzero(np.bincount(r_idx, minlength=n_uq) > 0)
    remap = np.full(n_uq, -1, dtype=np.int64)
    remap[evaluated] = np.arange(evaluated.size)
    base_keep = remap[q_idx] >= 0
    run_qidx = remap[r_idx]  # every run query with judgements is evaluated
    if rs.docno_order:
        order = _docno_order(run_qidx, scores, r_docs)
    else:
        order = np.argsort(run_qidx, kind="stable")
    return Matched(
        qids=np.asarray(uq.take(pa.array(evaluated, pa.int64())).to_pylist(), dtype=object),
        base_labels=np.maximum(labels[base_keep], 0.0),
        base_qidx=remap[q_idx[base_keep]],
        run_labels=np.maximum(r_labels[order], 0.0),
        run_scores=scores[order],
        run_qidx=run_qidx[order],
        run_in_qrels=r_in_qrels[order],
    )
