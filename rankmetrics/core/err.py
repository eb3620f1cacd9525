"""Expected reciprocal rank (ERR), exact under tied scores.

ERR (Chapelle, Metzler, Zhang & Grinspan 2009, eq. 4) models a user who scans the ranking and
stops at rank r with probability R_r, the *stop probability* of the document there:

    ERR@k = sum_{r <= k} (1 / r) R_r prod_{i < r} (1 - R_i),   R = (2**g - 1) / 2**g_max.

Tie average (derived here; no evaluator computes it)
------------------------------------------------------
Let a tie group V of n documents occupy positions t + 1 .. t + n, with q_x = 1 - R_x. Every
ordering of V is equally likely. The product over the groups before V is order-free, call it
B = prod_{i <= t} q_i. For the j-th position of V,

    E[R_{s(j)} prod_{i < j} q_{s(i)}] = sum_x R_x e_{j-1}(q without x) (j-1)! (n-j)! / n!

(x is the document at position j and the j - 1 documents before it are any (j-1)-subset of the
others, each subset with its (j-1)! (n-j)! orderings). With the elementary symmetric polynomials
e_m of the q's, sum_x e_{j-1}(q without x) = (n - j + 1) e_{j-1} and
sum_x q_x e_{j-1}(q without x) = j e_j, so the expectation is

    E_j = ebar_{j-1} - ebar_j,     ebar_m = e_m / C(n, m),

the difference of adjacent *elementary symmetric means*: ebar_m is the probability of not
stopping in the first m positions of the group, so E_j is the probability of stopping exactly at
its j-th position (the ERR analogue of McSherry & Najork's RR difference f(x - 1) - f(x)). The
tie-averaged ERR is therefore

    ERR@k = sum_V B_V sum_{j : t_V + j <= k} (ebar_{j-1}(V) - ebar_j(V)) / (t_V + j).

The means are built by adding one document at a time, by ascending q (so that every kernel
rounds alike),
ebar_m(S + {x}) = ((|S| + 1 - m) ebar_m(S) + m x ebar_{m-1}(S)) / (|S| + 1): a convex
combination, so no cancellation. Cost: O(sum_V n_V min(n_V, k - t_V)) per query -- linear for a
cutoff k, quadratic in the size of a tie group for the whole list (k=None).

Optimistic / pessimistic: an adjacent exchange of documents a, b at ranks i, i + 1 changes ERR by
B (R_a - R_b)(1/i - 1/(i + 1)), so putting larger stop probabilities first inside every tie
group is the best ordering and smaller first the worst.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from .kernel import RankedBucket, Ranking, concrete

Values = NDArray[np.float64]


def stop_probabilities(labels: Values, max_grade: float) -> Values:
    """R = (2**g - 1) / 2**g_max of every label (Chapelle et al. 2009, Sec. 4).

    Labels above ``max_grade`` are rejected by the caller; labels <= 0 stop with probability 0.
    """
    r = np.maximum(labels, 0.0, dtype=np.float64)  # [mem] one float64 per row, then in place
    # 2**(g - g_max) - 2**-g_max: (2**g - 1) / 2**g_max (exact for integer grades <= 53)
    # without overflowing 2**g for grades above 1023
    r -= max_grade
    np.exp2(r, out=r)
    r -= np.exp2(-max_grade)
    return r


def _symmetric_means(q: Values, m: int) -> Values:
    """ebar_0 .. ebar_m of each row of ``q`` (G, n): shape (G, m + 1)."""
    g, n = q.shape
    e = np.zeros((g, m + 1))
    e[:, 0] = 1.0
    j = np.arange(1, m + 1, dtype=np.float64)
    for i in range(1, n + 1):
        top = min(i, m)
        jj = j[:top]
        # e[:, j] for j <= top, from the previous set of i - 1 members (right side first)
        new = ((i - jj) * e[:, 1: top + 1] + jj * q[:, i - 1: i] * e[:, :top]) / i
        e[:, 1: top + 1] = new
    return e


def _bucket_contributions(rb: RankedBucket, stop_ext: Values, width: int,
                          average: bool) -> Values:
    """ERR contribution of each of the first ``width`` positions of every query: (qb, width)."""
    q = 1.0 - np.take(stop_ext, rb.rows)  # padding rows have R = 0, q = 1
    qb, w = q.shape
    if average:
        # every kernel visits a tie group's members by ascending q: the tie average is
        # order-free, its rounding is not, and one order makes the kernels agree bit for bit
        q = np.take_along_axis(q, np.lexsort((q, rb.start), axis=-1), axis=-1)
    before = np.ones((qb, w))
    np.cumprod(q[:, :-1], axis=1, out=before[:, 1:])  # prod of q over positions < p
    pos = np.arange(w)
    if not average:
        c = before[:, :width] * (1.0 - q[:, :width]) / (pos[:width] + 1.0)
        return c
    c = np.zeros((qb, width))
    start = rb.start[:, :width].astype(np.int64)
    size = (rb.end[:, :width] - rb.start[:, :width]).astype(np.int64)
    first = start == pos[None, :width]
    rows, starts = np.nonzero(first)
    sizes = size[rows, starts]
    for n in np.unique(sizes).tolist():
        pick = sizes == n
        r, s = rows[pick], starts[pick]
        members = s[:, None] + np.arange(n)[None, :]
        qg = q[r[:, None], members]
        live = (qg < 1.0).any(axis=1)  # a group nobody stops in adds nothing
        if not live.any():
            continue
        r, s, members, qg = r[live], s[live], members[live], qg[live]
        m = min(n, width)
        ebar = _symmetric_means(qg, m)
        stop_at = ebar[:, :-1] - ebar[:, 1:]  # (G, m): P(stop at offset o | reached group)
        p = s[:, None] + np.arange(m)[None, :]
        ok = p < width
        val = before[r, s][:, None] * stop_at / (p + 1.0)
        rr = np.broadcast_to(r[:, None], p.shape)
        c[rr[ok], p[ok]] = val[ok]
    return c


def err_at_cutoffs(ranking: Ranking, n_queries: int, stop_ext: Values, ties: str,
                   ks: Sequence[int | None]) -> Values:
    """ERR at every cutoff in ``ks`` for every query: shape (len(ks), n_queries).

    ``stop_ext`` is the per-row stop probability with the padding sentinel's 0 appended.
    A ranking of the compiled kernel (:class:`~rankmetrics.core.backend.SegRanking`) goes to
    :mod:`._numba_err` (the same operations in the same order: identical numbers).
    """
    from .backend import SegRanking

    if isinstance(ranking, SegRanking):
        from ._numba_err import err_at_cutoffs as compiled

        return compiled(ranking, n_queries, stop_ext, ties, ks)
    out = np.zeros((len(ks), n_queries))
    width_all = None if any(k is None for k in ks) else max(k for k in ks if k is not None)
    for rb in ranking.buckets:
        if ties == "optimistic":
            rb = concrete(rb, stop_ext, True)
        elif ties == "pessimistic":
            rb = concrete(rb, stop_ext, False)
        w = rb.rows.shape[1] if width_all is None else min(width_all, rb.rows.shape[1])
        c = _bucket_contributions(rb, stop_ext, w, ties == "average")
        cum = np.cumsum(c, axis=1)
        for i, k in enumerate(ks):
            col = cum.shape[1] - 1 if k is None else min(k, cum.shape[1]) - 1
            out[i, rb.queries] = cum[:, col]
    return out
