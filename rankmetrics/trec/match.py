"""Match a run against qrels: query codes, labels of retrieved documents, trec_eval order.

Query ids and document ids become integer codes through pyarrow's hash dictionary encoding
(query ids one per run of equal neighbours, found by pyarrow's run-end encoding). Document ids
of qrels and run are encoded together, a batch of whole queries (about :data:`ENCODE_ROWS`
rows) at a time, so that every hash table stays in the CPU cache: one encoding over the batch's
slices of both sides, cut in place from a side already grouped by query in the other's query
order (a side in another order is sorted by query first); equal ids of one query share a code.
Only rows whose code occurs more than once get an int64 (query, document) key
``query * n_codes + code`` and are sorted, for the duplicate checks.
The qrels row of a retrieved document is found by its code in one numpy gather (a code judged
for a single query of its batch); only codes judged for several queries of one batch are
binary-searched by key. The matched rows keep the run's order where it already is trec_eval's
(query by query, best first): only tied documents are moved into docno order.
"""

from __future__ import annotations

import os
import warnings
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
    query (the queries in the order the run first lists them, so that a run file written query by
    query needs no reordering), in trec_eval order (score descending, docno descending) when
    ``docno_order`` was set, else in input order.
    """

    qids: NDArray[Any]  # (n_eval,) str, sorted
    base_labels: NDArray[np.float64]
    base_qidx: NDArray[np.int64]
    run_labels: NDArray[np.float64]
    run_scores: NDArray[np.float64]
    run_qidx: NDArray[np.int64]
    #: (n_run_rows,) the document has a qrels entry with label >= 0 (trec_eval's judged: a
    #: negative label is "in the pool, unjudged"); None when not computed
    run_judged: NDArray[np.bool_] | None = None
    #: (n_run_rows,) the document has any qrels entry (ir_measures' Judged); None as above
    run_in_qrels: NDArray[np.bool_] | None = None
    #: (n_base_rows,) the recall-base judgement has label >= 0; None as above
    base_judged: NDArray[np.bool_] | None = None
    #: docno order compares the scores as doubles (trec_eval 10), not as C floats (trec_eval
    #: 9, pytrec_eval)
    docno_double: bool = False


def docno_scores(m: Matched) -> NDArray[np.floating[Any]]:
    """The scores as trec_eval's docno order compares them: doubles (trec_eval 10) or C floats
    (trec_eval 9 and pytrec_eval; :func:`c_float_scores`), as the match was made."""
    return m.run_scores if m.docno_double else c_float_scores(m.run_scores)


@dataclass
class QrelsSide:
    """A read qrels table."""

    qids: pa.ChunkedArray
    docs: pa.ChunkedArray
    labels: NDArray[np.float64]
    src: Any
    #: judged (label >= 0) per row when ``labels`` were shifted after reading; else None
    judged: NDArray[np.bool_] | None = None


@dataclass
class RunSide:
    """A read run, and whether trec_eval's docno order is wanted."""

    qids: pa.ChunkedArray
    docs: pa.ChunkedArray
    scores: NDArray[np.float64]
    docno_order: bool
    src: Any
    #: docno order on the scores as doubles (trec_eval 10) rather than C floats
    docno_double: bool = False


def _array(col: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray:
    """The column as string chunks, without copying the chunks of a file read in blocks."""
    arr = col if isinstance(col, pa.ChunkedArray) else pa.chunked_array([col])
    return arr if arr.type == pa.string() else arr.cast(pa.large_string())


def prepare_qrels(src: Any, threads: int | None = None) -> QrelsSide:
    """Read qrels (any accepted source); warns (UserWarning) when a label is not an integer."""
    tb = to_table(src, "qrels", threads=threads)
    labels = tb.column("label").to_numpy()
    frac = labels != np.trunc(labels)
    if frac.any():
        _warn_fractional(src, tb, int(np.argmax(frac)), int(np.count_nonzero(frac)))
    return QrelsSide(_array(tb.column("qid")), _array(tb.column("docid")), labels, src)


def _warn_fractional(src: Any, tb: pa.Table, i: int, n: int) -> None:
    """The difference from trec_eval that fractional labels make, impossible to miss: trec_eval
    reads a label with ``atol`` (an integer, truncated), pytrec_eval takes integers."""
    qid, docid = str(tb.column("qid")[i]), str(tb.column("docid")[i])
    where = _where(src)
    at = ""
    if where:
        lines = find_lines(where, "qrels", qid, docid)
        at = f" at line {lines[0]}" if lines else ""
    value = float(tb.column("label")[i].as_py())
    warnings.warn(
        f"{where or 'qrels'}: {n} label(s) are not integers (the first: {value!r} for query "
        f"{qid!r}, document {docid!r}{at}); rankmetrics uses them as they are, while trec_eval "
        f"and pytrec_eval read labels as integers (a label written {value!r} as {int(value)}), "
        "so graded measures (nDCG, ERR, graded RBP), relevance thresholds between the two and "
        "negative fractions (judged there, unjudged here) differ from theirs",
        UserWarning, stacklevel=5,
    )


def prepare(qrels: Any, run: Any, docno_order: bool, threads: int | None = None,
            docno_double: bool = False) -> tuple[QrelsSide, RunSide]:
    """Read both sides (qrels first, so that their errors are reported first); ``threads=1``
    keeps the readers on the calling thread. ``docno_double``: the docno order compares the
    scores as doubles (trec_eval 10), else as C floats (trec_eval 9, pytrec_eval)."""
    qs = prepare_qrels(qrels, threads)
    tb = to_table(run, "run", threads=threads)
    rs = RunSide(_array(tb.column("qid")), _array(tb.column("docid")),
                 tb.column("score").to_numpy(), docno_order, run, docno_double)
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


def refuse_duplicates(frame: Any, kind: str, src: Any) -> None:
    """Raise :func:`_duplicate_error` for the first (qid, docid) of a DataFrame[qid, docid,
    label] (``kind`` "qrels") or DataFrame[qid, docid, ...] ("run") read from ``src`` that it
    holds twice: the evaluator's rule (a qrels pair twice with one label is allowed), for the
    callers that read the files with pandas."""
    rows = frame.drop_duplicates(["qid", "docid", "label"]) if kind == "qrels" else frame
    twice = rows.duplicated(["qid", "docid"], keep=False).to_numpy()
    if twice.any():
        first = rows.iloc[int(np.flatnonzero(twice)[0])]
        extra = ""
        if kind == "qrels":
            same = rows[(rows["qid"] == first["qid"]) & (rows["docid"] == first["docid"])]
            extra = f" ({sorted(float(x) for x in same['label'])})"
        raise _duplicate_error(kind, src, str(first["qid"]), str(first["docid"]), extra)


def _flat(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    """One contiguous array: pyarrow's dictionary encoding of a chunked array gives every chunk
    a copy of the dictionary seen so far (quadratic in the chunks of a large file)."""
    if isinstance(col, pa.Array):
        return col
    if col.num_chunks == 1:
        return col.chunk(0)
    return col.combine_chunks() if col.num_chunks else pa.array([], col.type)


def _encode(col: pa.ChunkedArray | pa.Array) -> tuple[NDArray[np.int64], pa.Array]:
    """Dictionary codes (int64) of every row and the dictionary (first-seen order).

    Query ids of TREC files come in runs of equal values (a query's lines together): pyarrow's
    run-end encoding finds the runs by comparing neighbours, cheaper than hashing every row, and
    then only one value per run is hashed.
    """
    arr = _flat(col)
    n = len(arr)
    if n > 1:
        ree = pc.run_end_encode(arr, run_end_type=pa.int64())
        if len(ree.values) <= n // 4:
            enc = pc.dictionary_encode(ree.values)
            lengths = np.diff(ree.run_ends.to_numpy(), prepend=0)
            codes = np.repeat(enc.indices.to_numpy(zero_copy_only=False).astype(np.int64),
                              lengths)
            return codes, enc.dictionary
    enc = pc.dictionary_encode(arr)
    codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    return codes, enc.dictionary


#: about this many rows per dictionary encoding call: a hash table this small stays in the CPU
#: cache (one table over every row of a large run is several times slower; --joins measures it)
ENCODE_ROWS = 1 << 13
#: a side's slice of a batch with more chunks than this is made one array before encoding
_MAX_CHUNKS = 8


def _doc_codes(docs: list[pa.ChunkedArray], group: list[NDArray[np.int64]]
               ) -> tuple[list[NDArray[np.int64]], int]:
    """Codes of the document ids of each side (qrels, run) such that two rows of one query, on
    either side, share a code iff their ids are equal; and the number of codes.

    ``group`` numbers each side's rows by query (equal numbers for equal queries on both
    sides). A side whose numbers never decrease (a file written query by query, in the same
    query order as the other side) is sliced in place; any other side is put in order by a
    stable argsort and one copy. A batch of whole queries (about :data:`ENCODE_ROWS` rows of
    both sides) is then encoded by one pyarrow hash dictionary encoding over its slices of both
    sides (one hash table for the chunks of a chunked array); codes of different batches are
    kept apart by offsets, so equal ids of different queries may get different codes, which the
    (query, document) keys do not need.
    """
    n_groups = max((int(g.max()) + 1 for g in group if g.size), default=0)
    sides = []
    counts = np.zeros(n_groups, dtype=np.int64)
    for col, g in zip(docs, group, strict=True):
        if _sorted(g):
            order, key, arr = None, g, col
        else:
            order = np.argsort(g, kind="stable")
            key, arr = g[order], pa.chunked_array([_flat(col).take(pa.array(order))])
        counts += np.bincount(key, minlength=n_groups)
        sides.append((order, key, arr))
    n = int(counts.sum())
    starts = np.cumsum(counts) - counts
    bounds = np.unique(np.r_[np.searchsorted(starts, np.arange(0, n, ENCODE_ROWS)), n_groups])
    cuts = [np.searchsorted(key, bounds).tolist() for _, key, _ in sides]
    codes = [np.empty(key.size, dtype=np.int64) for _, key, _ in sides]
    typ = docs[0].type
    offset = 0
    for i in range(bounds.size - 1):
        parts = []
        for (_, _, arr), cut in zip(sides, cuts, strict=True):
            part = arr.slice(cut[i], cut[i + 1] - cut[i])
            chunks = [c for c in part.chunks if len(c)]
            parts.extend(chunks if len(chunks) <= _MAX_CHUNKS else [pa.concat_arrays(chunks)])
        enc = pc.dictionary_encode(pa.chunked_array(parts, type=typ))
        if not enc.num_chunks:
            continue
        idx = [c.indices.to_numpy(zero_copy_only=False) for c in enc.chunks]
        got = (idx[0] if len(idx) == 1 else np.concatenate(idx)).astype(np.int64)
        got += offset
        at = 0
        for (order, _, _), cut, out in zip(sides, cuts, codes, strict=True):
            a, b = cut[i], cut[i + 1]
            if order is None:
                out[a:b] = got[at:at + b - a]
            else:
                out[order[a:b]] = got[at:at + b - a]
            at += b - a
        offset += len(enc.chunk(enc.num_chunks - 1).dictionary)  # the whole dictionary
    return codes, offset


def _groups(q_codes: NDArray[np.int64], rank: NDArray[np.int64], r_codes: NDArray[np.int64],
            r_idx: NDArray[np.int64], to_uq: NDArray[np.int64]) -> list[NDArray[np.int64]]:
    """Query numbers of the qrels and run rows for :func:`_doc_codes`, chosen so that both
    sides are in order where they can be: the qrels' first-seen order when the run lists its
    queries in that order too (the qrels may hold more queries), else the run's first-seen
    order (the run, the larger side, is then in order when written query by query)."""
    first = np.empty(rank.size, dtype=np.int64)
    first[rank] = np.arange(rank.size)  # qrels first-seen code of each query rank
    r_group = first[r_idx]
    if _sorted(r_group):
        return [q_codes, r_group]
    seen = np.flatnonzero(to_uq >= 0)  # run codes of the qrels' queries
    by_run = np.arange(rank.size) + len(to_uq)  # queries the run lacks: after the others
    by_run[to_uq[seen]] = seen
    return [by_run[rank[q_codes]], r_codes]


def _repeated(query: NDArray[np.int64], doc_codes: NDArray[np.int64], n_docs: int
              ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(rows, first row with the same (query, document)) for every row whose pair occurs more
    than once, the first occurrence excluded; only rows whose document code occurs more than
    once are keyed and sorted."""
    empty = np.zeros(0, dtype=np.int64)
    cand = np.flatnonzero(np.bincount(doc_codes, minlength=n_docs)[doc_codes] > 1)
    if cand.size == 0:
        return empty, empty
    # fits int64: n_queries * n_docs <= (rows of qrels) * (rows of both) < 2**63
    keys = query[cand] * n_docs + doc_codes[cand]
    by_key = np.argsort(keys, kind="stable")
    order, srt = cand[by_key], keys[by_key]
    same = np.flatnonzero(srt[1:] == srt[:-1]) + 1
    if same.size == 0:
        return empty, empty
    start = np.ones(order.size, dtype=bool)
    start[same] = False
    head = np.maximum.accumulate(np.where(start, np.arange(order.size), 0))
    return order[same], order[head[same]]


@dataclass
class _Order:
    """A permutation of rows: ``rows`` (None: already in order), then the rows ``moved`` put at
    the positions ``at`` (the ties of an otherwise ordered run)."""

    rows: NDArray[np.int64] | None
    at: NDArray[np.int64] | None = None
    moved: NDArray[np.int64] | None = None

    def __call__(self, a: NDArray[Any]) -> NDArray[Any]:
        if self.rows is not None:
            return a[self.rows]
        out = a.copy()
        if self.at is not None:
            out[self.at] = a[self.moved]
        return out


def _sorted(key: NDArray[np.int64]) -> bool:
    return bool(np.all(key[1:] >= key[:-1]))


def c_float_scores(scores: NDArray[np.float64]) -> NDArray[np.floating[Any]]:
    """trec_eval's scores (C floats) with the same order and ties, finite: float32 when every
    score is in its range ([mem] 4 bytes per row); else float64 where a score beyond the range,
    inf as a C float (tied with every other such score of its sign, above or below every
    finite one), is +-2 * FLT_MAX (the kernels rank finite scores only). ``scores``: finite
    float64, shape (n,); returns a new array."""
    with np.errstate(over="ignore"):
        out = scores.astype(np.float32)
    big = np.isinf(out)
    if not big.any():
        return out
    wide = out.astype(np.float64)
    wide[big] = np.copysign(2.0 * float(np.finfo(np.float32).max), wide[big])
    return wide


def _docno_order(rank_of_row: NDArray[np.int64], scores: NDArray[np.float64],
                 docs: pa.ChunkedArray, double: bool = False) -> _Order:
    """trec_eval's order within a query: score descending (a C float, as trec_eval 9 and
    pytrec_eval keep it; a double with ``double``, as trec_eval 10), then docno descending
    (strcmp); queries by ``rank_of_row``.

    Query rank and float32 score are packed into one int64 key (the float's bits mapped to an
    order-preserving unsigned integer) and argsorted by numpy, unless already sorted (a run file
    lists each query's documents best first); doubles are sorted by (query, score) with
    ``np.lexsort`` unless already in order. Only rows whose query and score are shared, the
    ties, are then sorted by document id with pyarrow.
    """
    if double:
        order, srt = _double_key_order(rank_of_row, scores)
    else:
        with np.errstate(over="ignore"):  # beyond float32's range: inf, as trec_eval's floats
            s32 = scores.astype(np.float32)
        s32 += np.float32(0.0)  # -0.0 == 0.0 for C floats too
        key = s32.view(np.uint32).astype(np.int64)
        del s32
        np.subtract(0x7FFFFFFF, key, out=key, where=key < 0x80000000)  # scores >= 0: descending
        key |= rank_of_row << 32
        if _sorted(key):
            order, srt = None, key
        else:
            order = np.argsort(key, kind="stable")  # runs are mostly sorted: timsort is linear
            srt = key[order]
    same = srt[1:] == srt[:-1]
    if not same.any():
        return _Order(order)
    tied = np.zeros(srt.size, dtype=bool)
    tied[1:] = same
    tied[:-1] |= same
    at = np.flatnonzero(tied)  # tie groups are contiguous runs of these positions
    rows = at if order is None else order[at]
    sub = pa.table({"k": srt[at], "d": docs.take(pa.array(rows))})
    perm = pc.sort_indices(sub, sort_keys=[("k", "ascending"), ("d", "descending")])
    moved = rows[perm.to_numpy()]
    if order is None:
        return _Order(None, at, moved)
    order[at] = moved
    return _Order(order)


def _double_key_order(rank_of_row: NDArray[np.int64], scores: NDArray[np.float64]
                      ) -> tuple[NDArray[np.int64] | None, NDArray[np.int64]]:
    """(row order or None when the rows are in order already, a key per ordered row equal
    exactly when query and score are): the query ascending, then the score, a double,
    descending (-0.0 equal to 0.0; the scores are finite)."""
    s = scores + 0.0  # -0.0 + 0.0 is 0.0
    if s.size < 2 or bool(np.all((rank_of_row[1:] > rank_of_row[:-1]) | (
            (rank_of_row[1:] == rank_of_row[:-1]) & (s[1:] <= s[:-1])))):
        order = None
        q, v = rank_of_row, s
    else:
        order = np.lexsort((-s, rank_of_row))  # stable: equal keys keep the row order
        q, v = rank_of_row[order], s[order]
    new = np.ones(q.size, dtype=bool)
    new[1:] = (q[1:] != q[:-1]) | (v[1:] != v[:-1])
    return order, np.cumsum(new, dtype=np.int64)


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
    to_uq = to_uq.astype(np.int64)
    r_idx = to_uq[r_codes]
    keep = r_idx >= 0
    r_docs, scores = rs.docs, rs.scores
    if not keep.all():
        r_idx, scores, r_codes = r_idx[keep], scores[keep], r_codes[keep]
        r_docs = r_docs.filter(pa.array(keep))

    # document codes shared by both sides; (query, document) keys
    if r_docs.type != qs.docs.type:
        r_docs = r_docs.cast(pa.large_string())
        qs_docs = qs.docs.cast(pa.large_string())
    else:
        qs_docs = qs.docs
    groups = _groups(q_codes, rank, r_codes, r_idx, to_uq)
    (cq, cr), n_docs = _doc_codes([qs_docs, r_docs], groups)
    del groups
    del q_codes
    n_docs = max(n_docs, 1)
    n_q = len(qs.docs)

    labels = qs.labels
    rows, first = _repeated(q_idx, cq, n_docs)
    keep_q = np.ones(n_q, dtype=bool)
    if rows.size:
        bad = labels[rows] != labels[first]
        if bad.any():
            i = int(rows[np.flatnonzero(bad)[0]])
            same = (q_idx == q_idx[i]) & (cq == cq[i])
            vals = sorted(set(labels[same].tolist()))
            raise _duplicate_error("qrels", qs.src, uq[q_idx[i]].as_py(),
                                   qs.docs[i].as_py(), f" ({vals})")
        keep_q[rows] = False
    rows, _ = _repeated(r_idx, cr, n_docs)
    if rows.size:
        i = int(rows.min())
        raise _duplicate_error("run", rs.src, uq[r_idx[i]].as_py(), r_docs[i].as_py())
    del rows, first

    # the qrels row of every run row: a document code judged once (for one query of its batch)
    # is looked up directly; only codes judged for several queries of one batch are searched
    kept = None if keep_q.all() else np.flatnonzero(keep_q)
    cq_kept = cq if kept is None else cq[kept]
    count = np.bincount(cq_kept, minlength=n_docs)
    owner = np.full(n_docs, -1, dtype=np.int64)
    owner[cq_kept] = np.arange(n_q) if kept is None else kept
    at = owner[cr]
    del owner
    hit = np.flatnonzero(at >= 0)  # run rows whose document the batch's qrels hold
    at = at[hit]
    if count.max() > 1:
        many = np.flatnonzero(count[cr[hit]] > 1)
        if many.size:  # search (query, document) among the codes judged for several queries
            q_rows = np.flatnonzero(count[cq] > 1)
            if kept is not None:
                q_rows = q_rows[keep_q[q_rows]]
            kq = q_idx[q_rows] * n_docs + cq[q_rows]
            by_key = np.argsort(kq)
            order_q, sorted_keys = q_rows[by_key], kq[by_key]
            rr = hit[many]
            kc = r_idx[rr] * n_docs + cr[rr]
            pos = np.minimum(np.searchsorted(sorted_keys, kc), sorted_keys.size - 1)
            at[many] = np.where(sorted_keys[pos] == kc, order_q[pos], -1)
            del q_rows, kq, by_key, order_q, sorted_keys, rr, kc, pos
    del cq, cr, count, cq_kept
    same_query = q_idx[at] == r_idx[hit]
    same_query &= at >= 0
    hit, at = hit[same_query], at[same_query]
    del same_query
    n_r = r_idx.size
    r_labels = np.zeros(n_r)
    r_labels[hit] = labels[at]
    r_in_qrels = np.zeros(n_r, dtype=bool)
    r_in_qrels[hit] = True
    r_judged = np.zeros(n_r, dtype=bool)
    q_judged = labels >= 0 if qs.judged is None else qs.judged
    r_judged[hit] = q_judged[at]
    del hit, at
    labels = labels[keep_q]
    q_judged = q_judged[keep_q]
    q_idx = q_idx[keep_q]

    n_uq = len(uq)
    if complete:
        evaluated = np.arange(n_uq)
    else:
        evaluated = np.flatnonzero(np.bincount(r_idx, minlength=n_uq) > 0)
    base_keep: Any = slice(None)  # every qrels query evaluated: nothing to renumber
    run_qidx = r_idx  # every run query with judgements is evaluated
    if evaluated.size < n_uq:
        remap = np.full(n_uq, -1, dtype=np.int64)
        remap[evaluated] = np.arange(evaluated.size)
        base_keep = remap[q_idx] >= 0
        run_qidx = remap[r_idx]
    # rows grouped by query in the run's first-seen order (r_codes): a run written query by
    # query, best first, is already in order and is not copied
    if rs.docno_order:
        order = _docno_order(r_codes, scores, r_docs, rs.docno_double)
    else:
        order = _Order(None if _sorted(r_codes) else np.argsort(r_codes, kind="stable"))
    del r_codes
    return Matched(
        qids=np.asarray(uq.take(pa.array(evaluated, pa.int64())).to_pylist(), dtype=object),
        base_labels=np.maximum(labels[base_keep], 0.0),
        base_qidx=q_idx if evaluated.size == n_uq else remap[q_idx[base_keep]],
        run_labels=np.maximum(order(r_labels), 0.0),
        run_scores=order(scores),
        run_qidx=order(run_qidx),
        run_judged=order(r_judged),
        run_in_qrels=order(r_in_qrels),
        base_judged=q_judged[base_keep],
        docno_double=rs.docno_double,
    )
