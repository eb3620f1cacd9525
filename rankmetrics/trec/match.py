"""Match a run against qrels: query codes, labels of retrieved documents, trec_eval order.

Everything is vectorised. Query ids are looked up in the sorted qrels queries (a small hash
table). Document ids are reduced to 64-bit fingerprints by a polynomial hash computed with numpy
over pyarrow's string buffers -- several times faster than a hash table of a million strings --
and one ``np.unique`` over the (query, fingerprint) keys of qrels and run finds duplicates and
matches. Every match and every duplicate found that way is verified on the strings themselves;
if two different ids ever share a fingerprint, the whole match is redone with exact dictionary
codes. trec_eval's docno order sorts (query, float32 score) as one int64 key with numpy and
only the tied rows by document id. Qrels and run are read and prepared in two threads.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numpy.typing import NDArray

from .io import find_lines, to_table

_U64 = np.uint64
_P = _U64(0x100000001B3)  # FNV-1 64-bit prime (odd): a single-byte change always changes the sum
_MIX1, _MIX2 = _U64(0xBF58476D1CE4E5B9), _U64(0x94D049BB133111EB)  # splitmix64 finaliser
_GOLD = _U64(0x9E3779B97F4A7C15)


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


class _Collision(Exception):
    """Two different document ids share a fingerprint: redo the match exactly."""


def _strings(col: pa.ChunkedArray | pa.Array) -> pa.LargeStringArray:
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    return arr if arr.type == pa.large_string() else arr.cast(pa.large_string())


def _mix(h: NDArray[np.uint64]) -> NDArray[np.uint64]:
    h ^= h >> _U64(30)
    h *= _MIX1
    h ^= h >> _U64(27)
    h *= _MIX2
    h ^= h >> _U64(31)
    return h


def fingerprints(arr: pa.LargeStringArray) -> NDArray[np.uint64]:
    """64-bit fingerprint of every string.

    The bytes are read eight at a time (little-endian words, the tail word masked to the
    string's length) and folded as ``h = h * P + word`` modulo 2**64 with an odd ``P``, so two
    strings that differ in a single word never collide; the length is mixed in and the result
    scrambled by the splitmix64 finaliser.
    """
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=_U64)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset: arr.offset + n + 1]
    lo, hi = int(offsets[0]), int(offsets[-1])
    lengths = np.diff(offsets)
    raw = arr.buffers()[2]
    data = np.zeros(hi - lo + 8, dtype=np.uint8)  # 8 bytes of padding for the last word
    if hi > lo and raw is not None:
        data[: hi - lo] = np.frombuffer(raw, dtype=np.uint8)[lo:hi]
    # element i of ``words`` is the (unaligned) little-endian word starting at byte i
    words = np.ndarray(shape=(hi - lo + 1,), dtype="<u8", buffer=data, strides=(1,))
    starts = offsets[:-1] - lo
    h = lengths.astype(_U64) * _GOLD
    todo = np.flatnonzero(lengths > 0)
    step = 0
    with np.errstate(over="ignore"):
        while todo.size:
            left = lengths[todo] - step
            w = words[starts[todo] + step]
            short = left < 8
            if short.any():
                w[short] &= (_U64(1) << (left[short].astype(_U64) * _U64(8))) - _U64(1)
            h[todo] = h[todo] * _P + w
            step += 8
            todo = todo[left > 8]
        return _mix(h)


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


def _keys(qidx: NDArray[np.int64], doc_keys: NDArray[np.uint64]) -> NDArray[np.int64]:
    with np.errstate(over="ignore"):
        k = doc_keys ^ _mix(qidx.astype(_U64) * _GOLD + _U64(1))
    return k.view(np.int64)


def _same(a: pa.LargeStringArray, ia: NDArray[np.int64], b: pa.LargeStringArray,
          ib: NDArray[np.int64]) -> bool:
    if ia.size == 0:
        return True
    eq = pc.equal(a.take(pa.array(ia)), b.take(pa.array(ib)))
    return bool(pc.all(eq).as_py())


def _duplicates(codes: NDArray[np.int64], n_codes: int
                ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(rows, first row with the same code) for every row whose code occurs more than once."""
    counts = np.bincount(codes, minlength=n_codes)
    if counts.max(initial=0) <= 1:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    rows = np.flatnonzero(counts[codes] > 1)
    first_of = np.full(n_codes, codes.size, dtype=np.int64)
    np.minimum.at(first_of, codes[rows], rows)
    return rows, first_of[codes[rows]]


def _join(qs: QrelsSide, q_idx: NDArray[np.int64], r_docs: pa.LargeStringArray,
          hr: NDArray[np.uint64], r_idx: NDArray[np.int64], exact: bool, run_src: Any):
    """Labels of the run rows (0 when unjudged) and the mask of qrels rows kept (duplicates of
    a judgement dropped).

    Keys are (query, document) fingerprints; one ``np.unique`` over qrels and run keys together
    gives every key a code, from which duplicates and matches follow without a hash table.
    """
    q_docs, labels, uq = qs.docs, qs.labels, qs.uq
    if exact:
        enc = pc.dictionary_encode(pa.chunked_array([q_docs, r_docs]))
        codes = np.concatenate([c.indices.to_numpy() for c in enc.chunks]).astype(_U64)
        hq, hr = codes[: len(q_docs)], codes[len(q_docs):]
    else:
        hq = qs.fingerprints
    n_q = hq.shape[0]
    _, inv = np.unique(np.concatenate([_keys(q_idx, hq), _keys(r_idx, hr)]),
                       return_inverse=True)
    inv = inv.ravel().astype(np.int64)
    n_codes = int(inv.max(initial=-1)) + 1
    cq, cr = inv[:n_q], inv[n_q:]

    keep_q = np.ones(n_q, dtype=bool)
    rows, first = _duplicates(cq, n_codes)
    if rows.size:
        if not exact and not (np.array_equal(q_idx[rows], q_idx[first])
                              and _same(q_docs, rows, q_docs, first)):
            raise _Collision
        bad = labels[rows] != labels[first]
        if bad.any():
            i = int(rows[np.flatnonzero(bad)[0]])
            vals = sorted(set(labels[cq == cq[i]].tolist()))
            raise _duplicate_error("qrels", qs.src, uq[q_idx[i]].as_py(),
                                   q_docs[i].as_py(), f" ({vals})")
        keep_q[rows[rows != first]] = False
    rows, first = _duplicates(cr, n_codes)
    if rows.size:
        if not exact and not (np.array_equal(r_idx[rows], r_idx[first])
                              and _same(r_docs, rows, r_docs, first)):
            raise _Collision
        i = int(rows[rows != first][0])
        raise _duplicate_error("run", run_src, uq[r_idx[i]].as_py(), r_docs[i].as_py())
    q_row = np.full(n_codes, -1, dtype=np.int64)
    kept = np.flatnonzero(keep_q)
    q_row[cq[kept]] = kept
    src_all = q_row[cr]
    hit = np.flatnonzero(src_all >= 0)
    src = src_all[hit]
    if not exact and not (np.array_equal(q_idx[src], r_idx[hit])
                          and _same(q_docs, src, r_docs, hit)):
        raise _Collision
    r_labels = np.zeros(cr.size)
    r_labels[hit] = labels[src]
    return r_labels, keep_q


@dataclass
class QrelsSide:
    """A read qrels table with its sorted query ids and document fingerprints."""

    qids: pa.LargeStringArray
    uq: pa.Array  # distinct query ids, byte order (trec_eval's strcmp order)
    docs: pa.LargeStringArray
    labels: NDArray[np.float64]
    fingerprints: NDArray[np.uint64]
    src: Any


@dataclass
class RunSide:
    """A read run with document fingerprints and, for ties="docno", trec_eval's row order."""

    qids: pa.LargeStringArray
    docs: pa.LargeStringArray
    scores: NDArray[np.float64]
    fingerprints: NDArray[np.uint64]
    order: NDArray[np.int64] | None
    src: Any


def prepare_qrels(src: Any) -> QrelsSide:
    """Read qrels (any accepted source) and compute what the join needs from them."""
    tb = to_table(src, "qrels")
    qq = _strings(tb.column("qid"))
    uq = pc.unique(qq)
    uq = uq.take(pc.sort_indices(uq))
    docs = _strings(tb.column("docid"))
    return QrelsSide(qq, uq, docs, tb.column("label").to_numpy(), fingerprints(docs), src)


def _docno_order(qids: pa.LargeStringArray, scores: NDArray[np.float64],
                 docs: pa.LargeStringArray) -> NDArray[np.int64]:
    """trec_eval's order: query id, score (a C float) descending, then docno descending (strcmp).

    Query rank and float32 score are packed into one int64 key (the float's bits mapped to an
    order-preserving unsigned integer) and argsorted by numpy; only rows whose key is shared, the
    ties, are then sorted by document id with pyarrow.
    """
    enc = pc.dictionary_encode(qids)
    dictionary = enc.dictionary
    rank = np.empty(len(dictionary), dtype=np.int64)
    rank[pc.sort_indices(dictionary).to_numpy()] = np.arange(len(dictionary))
    s32 = scores.astype(np.float32) + np.float32(0.0)  # -0.0 == 0.0 for C floats too
    bits = s32.view(np.uint32).astype(np.int64)
    ascending = np.where(bits >= 0x80000000, 0xFFFFFFFF - bits, bits | 0x80000000)
    key = (rank[enc.indices.to_numpy()] << 32) | (0xFFFFFFFF - ascending)
    order = np.argsort(key)
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


def prepare(qrels: Any, run: Any, docno_order: bool) -> tuple[QrelsSide, RunSide]:
    """Read and prepare both sides; the qrels, the run's fingerprints and its docno order are
    computed in parallel threads (pyarrow and numpy release the GIL)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        q_future = pool.submit(prepare_qrels, qrels)
        try:
            tb = to_table(run, "run")
            rq = _strings(tb.column("qid"))
            docs = _strings(tb.column("docid"))
            scores = tb.column("score").to_numpy()
            fp_future = pool.submit(fingerprints, docs)
            order = _docno_order(rq, scores, docs) if docno_order else None
            rs = RunSide(rq, docs, scores, fp_future.result(), order, run)
        except Exception:
            q_error = q_future.exception()
            if q_error is not None:  # report the qrels' problem first, whatever ran faster
                raise q_error from None
            raise
        return q_future.result(), rs


def match(qs: QrelsSide, rs: RunSide, *, complete: bool) -> Matched:
    """Join a run with qrels.

    Queries evaluated: the qrels queries that the run retrieves for (trec_eval's default), or
    every qrels query when ``complete`` (``-c``). Run queries absent from the qrels are ignored.

    Raises
    ------
    ValueError
        A document retrieved twice for one query, or judged twice with different labels.
    """
    uq = qs.uq
    q_idx = pc.index_in(qs.qids, value_set=uq).to_numpy().astype(np.int64)
    r_idx = pc.index_in(rs.qids, value_set=uq).fill_null(-1).to_numpy().astype(np.int64)
    keep = r_idx >= 0
    r_docs, scores, hr = rs.docs, rs.scores, rs.fingerprints
    if not keep.all():
        r_idx, scores, hr = r_idx[keep], scores[keep], hr[keep]
        r_docs = r_docs.filter(pa.array(keep))
    try:
        r_labels, keep_q = _join(qs, q_idx, r_docs, hr, r_idx, False, rs.src)
    except _Collision:  # pragma: no cover - needs two ids with one 64-bit fingerprint
        r_labels, keep_q = _join(qs, q_idx, r_docs, hr, r_idx, True, rs.src)
    labels = qs.labels[keep_q]
    q_idx = q_idx[keep_q]

    n_q = len(uq)
    if complete:
        evaluated = np.arange(n_q)
    else:
        evaluated = np.flatnonzero(np.bincount(r_idx, minlength=n_q) > 0)
    remap = np.full(n_q, -1, dtype=np.int64)
    remap[evaluated] = np.arange(evaluated.size)
    base_keep = remap[q_idx] >= 0
    run_qidx = remap[r_idx]  # every run query with judgements is evaluated

    if rs.order is not None:  # trec_eval order, computed over every run row
        if keep.all():
            order = rs.order
        else:
            position = np.cumsum(keep) - 1
            order = position[rs.order[keep[rs.order]]]
    else:
        order = np.argsort(run_qidx, kind="stable")
    return Matched(
        qids=np.asarray(uq.take(pa.array(evaluated, pa.int64())).to_pylist(), dtype=object),
        base_labels=np.maximum(labels[base_keep], 0.0),
        base_qidx=remap[q_idx[base_keep]],
        run_labels=np.maximum(r_labels[order], 0.0),
        run_scores=scores[order],
        run_qidx=run_qidx[order],
    )
