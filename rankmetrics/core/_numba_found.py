"""Compiled helper of :mod:`.found`: the tie group straddling a rank cutoff, per query.

Reads a ranking of the compiled backend (:class:`~rankmetrics.core.backend.SegRanking`: each
segment's candidates in rank order, every tie group that reaches the cutoff complete) and
writes, for every query whose tie group at rank ``k`` continues past ``k``, the group's start,
size and relevant count and the relevant documents above it. Trusts its inputs.
"""

from __future__ import annotations

from ._numba_kernel import _jit, _slot


@_jit()
def group_at(scores, rows, counts, starts, seg_query, rel, k, straddle, a_out, n_out, r_out,
             ra_out):
    for s in range(counts.shape[0]):
        c = counts[s]
        if c <= k:  # the list (or its candidates, all complete groups) ends by rank k
            continue
        base = starts[s]
        t = scores[rows[base + k - 1]]
        if scores[rows[base + k]] != t:
            continue
        a = k - 1
        while a > 0 and scores[rows[base + a - 1]] == t:
            a -= 1
        b = k + 1
        while b < c and scores[rows[base + b]] == t:
            b += 1
        ra = 0.0
        for i in range(a):
            ra += rel[rows[base + i]]
        r = 0.0
        for i in range(a, b):
            r += rel[rows[base + i]]
        q = _slot(seg_query, s)
        straddle[q] = True
        a_out[q] = a
        n_out[q] = b - a
        r_out[q] = r
        ra_out[q] = ra
