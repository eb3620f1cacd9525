"""The ranking kernel: group rows by query, order by score, find tie groups.

Layout
------
Queries are put in *buckets* of similar list length (lengths in (2**((j-1)/2), 2**(j/2)]). A
bucket holds a ``(n_queries_in_bucket, width)`` matrix of row indices, padded with a sentinel row
``n`` whose score is -inf and whose gain is 0. Every operation is then a row-wise numpy operation
on a small dense matrix (sort, cumulative sum, ...) and a loop runs over buckets (at most ~60,
large ones split into chunks), never over queries. Padding stays below about 1.4x the rows.

Ranking
-------
For a score vector the kernel produces, per bucket, the rows in rank order (descending score) and
for every position the bounds ``[start, end)`` of its tie group. When only the top ``depth``
positions matter, a row-wise ``np.partition`` finds each query's ``depth``-th largest score ``T``
and only the candidates with score >= T are sorted: every tie group that reaches into the top
``depth`` is then complete (McSherry & Najork 2008 only need the groups up to ``t_{c+1}``).

Everything here trusts its inputs; validation is in ``_validation``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

_IDX = np.intp  # numpy gathers fastest with native-width indices


@dataclass(frozen=True)
class Bucket:
    """Queries of similar length laid out as a padded matrix of row indices."""

    queries: NDArray[np.int64]  # (qb,) query indices (into the sorted unique qids)
    rows: NDArray[np.intp]  # (qb, width) row indices in input order; padding = n_rows
    sizes: NDArray[np.int64]  # (qb,) list lengths


@dataclass(frozen=True)
class Layout:
    """Label-independent, score-independent structure of the queries."""

    n_rows: int
    n_queries: int
    sizes: NDArray[np.int64]  # (n_queries,)
    buckets: tuple[Bucket, ...]


def build_layout(qidx: NDArray[np.int64], n_queries: int) -> Layout:
    """Bucket the queries given each row's query index (0..n_queries-1, any row order).

    All buckets are views of one flat array of row indices: every row is scattered once to its
    slot (query base offset + position within the query, in input order). Buckets larger than
    1/8 of the padded total are split into chunks of whole queries, which bounds the temporaries of
    every later row-wise operation to a fraction of the input.
    """
    n = int(qidx.shape[0])
    sizes = np.bincount(qidx, minlength=n_queries).astype(np.int64)
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    # level j holds lengths in (2**((j-1)/2), 2**(j/2)]; queries keep index order within a level
    level = np.ceil(2.0 * np.log2(np.maximum(sizes, 1))).astype(np.int64)
    by_level = np.argsort(level, kind="stable")
    levels, first = np.unique(level[by_level], return_index=True)
    bounds = np.append(first, n_queries)
    width = np.zeros(n_queries, dtype=np.int64)
    for j in range(levels.size):
        qs = by_level[bounds[j]: bounds[j + 1]]
        width[qs] = sizes[qs].max()
    padded_width = width[by_level]
    base_sorted = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(padded_width, out=base_sorted[1:])
    total = int(base_sorted[-1])
    shift = np.empty(n_queries, dtype=np.int64)
    shift[by_level] = base_sorted[:-1]
    shift -= offsets[:-1]  # slot of a row = shift[its query] + its rank in grouped order
    flat = np.full(total, n, dtype=_IDX)
    if n and np.all(qidx[1:] >= qidx[:-1]):
        dest = shift[qidx]
        dest += np.arange(n, dtype=np.int64)
        flat[dest] = np.arange(n, dtype=_IDX)
    else:
        grouped = np.argsort(qidx, kind="stable")
        dest = shift[qidx[grouped]]
        dest += np.arange(n, dtype=np.int64)
        flat[dest] = grouped
    del dest
    chunk = max(1 << 14, total // 8)
    buckets = []
    for j in range(levels.size):
        qs = by_level[bounds[j]: bounds[j + 1]]
        w = int(width[qs[0]])
        step = max(1, chunk // max(w, 1))
        for c in range(0, qs.size, step):
            part = qs[c: c + step]
            lo = int(base_sorted[bounds[j] + c])
            rows = flat[lo: lo + part.size * w].reshape(part.size, w)
            buckets.append(Bucket(queries=part, rows=rows, sizes=sizes[part]))
    return Layout(n, n_queries, sizes, tuple(buckets))


def padded(values: NDArray, fill: float) -> NDArray:
    """``values`` with one extra trailing element ``fill`` (the padding sentinel's value)."""
    out = np.empty(values.shape[0] + 1, dtype=values.dtype)
    out[:-1] = values
    out[-1] = fill
    return out


@dataclass
class RankedBucket:
    """Rows of one bucket in rank order, with tie-group bounds per position."""

    queries: NDArray[np.int64]  # (qb,)
    rows: NDArray[np.intp]  # (qb, w) rows in rank order; padding = n_rows
    start: NDArray[np.int32]  # (qb, w) first position of the tie group of each position
    end: NDArray[np.int32]  # (qb, w) one past its last position
    n_valid: NDArray[np.int64]  # (qb,) positions holding real rows (all candidates)
    sizes: NDArray[np.int64]  # (qb,) full list lengths
    _concrete: dict = field(default_factory=dict, repr=False)


def _tie_bounds(sorted_scores: NDArray) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """[start, end) of the tie group of every position of row-wise sorted scores."""
    qb, w = sorted_scores.shape
    new = np.ones((qb, w), dtype=bool)
    np.not_equal(sorted_scores[:, 1:], sorted_scores[:, :-1], out=new[:, 1:])
    flat_new = new.ravel()
    first = np.flatnonzero(flat_new)  # groups never span rows: every row starts one
    size = np.diff(first, append=qb * w).astype(np.int32)
    gid = np.cumsum(flat_new, dtype=np.intp)
    gid -= 1
    start = (first % w).astype(np.int32)[gid]
    end = start + size[gid]
    return start.reshape(qb, w), end.reshape(qb, w)


def _rank_bucket(
    b: Bucket, scores_ext: NDArray, depth: int | None, stable: bool
) -> RankedBucket:
    s = np.take(scores_ext, b.rows)
    rows = b.rows
    qb, width = s.shape
    n_valid = b.sizes
    if depth is not None and 4 * depth <= width:
        kth = np.partition(s, width - depth, axis=1)[:, width - depth]
        cand = s >= kth[:, None]
        if b.sizes.min() < depth:  # kth may be the padding's -inf: keep real rows only
            cand &= rows != scores_ext.shape[0] - 1
        n_valid = cand.sum(axis=1)
        m = int(n_valid.max())
        flat = np.flatnonzero(cand)
        ri = flat // width
        first = np.zeros(qb + 1, dtype=np.int64)
        np.cumsum(n_valid, out=first[1:])
        dst = ri * m + (np.arange(flat.size, dtype=np.int64) - first[ri])  # slot in (qb, m)
        s2 = np.full(qb * m, -np.inf, dtype=s.dtype)
        rows2 = np.full(qb * m, scores_ext.shape[0] - 1, dtype=_IDX)
        s2[dst] = s.ravel()[flat]
        rows2[dst] = rows.ravel()[flat]
        s, rows = s2.reshape(qb, m), rows2.reshape(qb, m)
    order = np.argsort(-s, axis=1, kind="stable" if stable else None)
    rrows = np.take_along_axis(rows, order, axis=1)
    if stable:
        w = rrows.shape[1]
        start = np.broadcast_to(np.arange(w, dtype=np.int32), rrows.shape)
        end = start + 1
    else:
        srt = np.take_along_axis(s, order, axis=1)
        del s, order
        start, end = _tie_bounds(srt)
    return RankedBucket(b.queries, rrows, start, end, np.asarray(n_valid), b.sizes)


@dataclass
class Ranking:
    """A score vector ranked against a :class:`Layout`; reusable by every metric.

    Positions deeper than ``depth`` (when set) are unknown and no metric may read them.
    """

    depth: int | None
    ties: str
    buckets: list[RankedBucket]

    def __repr__(self) -> str:
        n = sum(int(rb.queries.shape[0]) for rb in self.buckets)
        tied = 0
        for rb in self.buckets:
            valid = np.arange(rb.rows.shape[1]) < rb.n_valid.reshape(-1, 1)
            tied += int((((rb.end - rb.start) > 1) & valid).any(axis=1).sum())
        return (f"Ranking(n_queries={n}, depth={self.depth}, ties={self.ties!r}, "
                f"queries_with_ties={tied})")


def rank(layout: Layout, scores: NDArray, depth: int | None, ties: str) -> Ranking:
    """Rank ``scores`` (validated, length n_rows) per query, keeping the top ``depth`` positions.

    ``ties="stable"`` keeps input order within ties (each position its own group); every other
    mode returns tie groups and is resolved per metric (``average``) or per key
    (``optimistic``/``pessimistic``, see :func:`concrete`).
    """
    scores_ext = padded(scores, -np.inf)
    stable = ties == "stable"
    ranked = [_rank_bucket(b, scores_ext, depth, stable) for b in layout.buckets]
    return Ranking(depth, ties, ranked)


def concrete(rb: RankedBucket, key_ext: NDArray[np.float64], best_first: bool) -> RankedBucket:
    """Resolve ties by ``key`` (gain or relevance): best-first gives the max, worst-first the min.

    For a metric that is a sum of key x non-increasing weight, putting larger keys first inside
    every tie group is the best ordering (rearrangement inequality); for AP and RR, relevant first.
    """
    ck = (id(key_ext), best_first)
    hit = rb._concrete.get(ck)
    if hit is not None and hit[0] is key_ext:
        return hit[1]
    key = np.take(key_ext, rb.rows)
    order = np.lexsort((-key if best_first else key, rb.start), axis=1)
    rows = np.take_along_axis(rb.rows, order, axis=1)
    w = rows.shape[1]
    start = np.broadcast_to(np.arange(w, dtype=np.int32), rows.shape)
    out = RankedBucket(rb.queries, rows, start, start + 1, rb.n_valid, rb.sizes)
    rb._concrete[ck] = (key_ext, out)
    return out


def group_sums(rb: RankedBucket, values_ext: NDArray[np.float64], width: int) -> tuple:
    """Per position p < width: (sum of values over p's tie group, size of the group, sum of values
    over the positions before the group)."""
    cz = np.zeros((rb.rows.shape[0], rb.rows.shape[1] + 1))
    np.cumsum(np.take(values_ext, rb.rows), axis=1, out=cz[:, 1:])
    st = rb.start[:, :width]
    en = rb.end[:, :width]
    before = np.take_along_axis(cz, st, axis=1)
    total = np.take_along_axis(cz, en, axis=1)
    del cz
    total -= before
    return total, (en - st).astype(np.float64), before


def expected_at_positions(rb: RankedBucket, values_ext: NDArray[np.float64], width: int) -> NDArray:
    """Expected value at each of the first ``width`` positions over all tie-consistent orderings.

    Each position of a tie group carries the group's mean (McSherry & Najork 2008, Sec. 2.1, 2.6).
    """
    total, size, _ = group_sums(rb, values_ext, width)
    return total / size
