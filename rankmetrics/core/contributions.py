"""Metric math over a :class:`~rankmetrics.core.kernel.Ranking`.

Every measure is a prefix sum of a per-position contribution, read at each cutoff k:

=========  ==============================================================================
cg / dcg   expected gain at position p (tie-group mean gain) x discount(p)
p / r / f  expected relevance at position p (McSherry & Najork 2008, Sec. 2.1-2.3)
ap         r_i/n_i * (R_i + 1 + (p - t_i) (r_i - 1)/(n_i - 1)) / (p + 1)  (ibid., Sec. 2.4)
rr         P(first relevant document is at p) / (p + 1)  (ibid., Sec. 2.5, the difference of
           adjacent f(x, r, n); see ../shared/seeds/NOTES.md for the printed formula's slip)
=========  ==============================================================================

(p is 0-based here; t_i = first position of p's tie group.) With ``ties`` other than "average"
every tie group is a single position and the same formulas give the plain measure.

:func:`at_cutoffs`, :func:`cumulative` and :func:`curve` take a Ranking of either backend: a
:class:`~rankmetrics.core.backend.SegRanking` goes to the compiled kernel (same formulas, same
floating-point operations in the same order), a bucketed :class:`Ranking` to the numpy code here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from . import backend as _backend
from .kernel import RankedBucket, Ranking, concrete, group_sums

KINDS = ("gain", "rel", "ap", "rr")


def _resolved(rb: RankedBucket, ties: str, key_ext: NDArray[np.float64]) -> RankedBucket:
    if ties == "optimistic":
        return concrete(rb, key_ext, True)
    if ties == "pessimistic":
        return concrete(rb, key_ext, False)
    return rb


def _contributions(
    rb: RankedBucket, kind: str, values_ext: NDArray[np.float64], width: int
) -> NDArray[np.float64]:
    total, size, before = group_sums(rb, values_ext, width)
    if kind in ("gain", "rel"):
        return total / size
    pos = np.arange(total.shape[1], dtype=np.float64)
    offset = pos - rb.start[:, : total.shape[1]]  # p - t_i: slots of the group before p
    if kind == "ap":
        # the table's r/n (R + 1 + (p - t)(r - 1)/(n - 1)) / (p + 1) over one denominator,
        # as the compiled kernel's _ap_term (the same operations: the same bits)
        more = (size > 1.0).astype(np.float64)
        den = size - more
        return (total * ((before + 1.0) * den + offset * (total - 1.0) * more)
                / (size * den * (pos + 1.0)))
    # rr: only the first tie group holding a relevant document contributes.
    first = (before == 0.0) & (total > 0.0)
    q = np.where(first, np.maximum(size - total - offset, 0.0) / (size - offset), 1.0)
    f = np.cumprod(q, axis=1)  # P(first x of the group are all non-relevant)
    f_prev = np.empty_like(f)
    f_prev[:, 0] = 1.0
    f_prev[:, 1:] = f[:, :-1]
    return np.where(first, f_prev - f, 0.0) / (pos + 1.0)


def cumulative(
    ranking: Ranking,
    kind: str,
    values_ext: NDArray[np.float64],
    ties: str,
    width: int | None,
    discount: NDArray[np.float64] | None = None,
):
    """Yield ``(bucket, prefix sums (qb, w))`` of the contributions of the first ``width`` ranks.

    ``values_ext`` is the per-row gain (``kind="gain"``) or 0/1 relevance (other kinds), with the
    padding sentinel's 0 appended; ``discount`` multiplies gain contributions position by position.
    """
    if isinstance(ranking, _backend.SegRanking):
        yield from _backend.cumulative(ranking, kind, values_ext, ties, width, discount)
        return
    for rb in ranking.buckets:
        rbx = _resolved(rb, ties, values_ext)
        w = rbx.rows.shape[1] if width is None else min(width, rbx.rows.shape[1])
        c = _contributions(rbx, kind, values_ext, w)
        if discount is not None:
            c = c * discount[: c.shape[1]]
        yield rbx, np.cumsum(c, axis=1)


def at_cutoffs(
    ranking: Ranking,
    n_queries: int,
    kind: str,
    values_ext: NDArray[np.float64],
    ties: str,
    ks: Sequence[int | None],
    discount: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Sum of contributions over ranks 1..k for every k in ``ks``: shape (len(ks), n_queries)."""
    if isinstance(ranking, _backend.SegRanking):
        return _backend.at_cutoffs(ranking, n_queries, kind, values_ext, ties, ks, discount)
    out = np.zeros((len(ks), n_queries))
    width = None if any(k is None for k in ks) else max(k for k in ks if k is not None)
    for rb, cum in cumulative(ranking, kind, values_ext, ties, width, discount):
        last = cum.shape[1] - 1
        for i, k in enumerate(ks):
            col = last if k is None else min(k, cum.shape[1]) - 1
            out[i, rb.queries] = cum[:, col]
    return out


def curve(
    ranking: Ranking,
    n_queries: int,
    kind: str,
    values_ext: NDArray[np.float64],
    ties: str,
    depth: int,
    discount: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Cumulated value at every rank 1..depth, flat past the end of a list: (n_queries, depth)."""
    if isinstance(ranking, _backend.SegRanking):
        return _backend.curve(ranking, n_queries, kind, values_ext, ties, depth, discount)
    out = np.zeros((n_queries, depth))
    for rb, cum in cumulative(ranking, kind, values_ext, ties, depth, discount):
        w = cum.shape[1]
        out[rb.queries, :w] = cum
        if w < depth:
            out[rb.queries, w:] = cum[:, -1:]
    return out
