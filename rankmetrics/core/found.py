"""Average precision at k over the relevant documents *found* in the top k, exact under ties.

``denominator="found"`` divides the sum of the precisions at the relevant ranks ``i <= k`` by
``Y``, the number of relevant documents in the top ``k`` (torchmetrics'
``retrieval_average_precision(..., top_k=k)`` on positive scores -- since 1.8 it counts no
document scored <= 0 relevant; 0 when ``Y = 0``). ``Y`` is random only through
the tie group straddling rank ``k`` -- positions ``a+1 .. a+n`` (1-based), ``s = k - a`` of them
inside, ``r`` relevant, ``R_a`` relevant documents above it. Given ``j``, the number of the
group's relevant documents inside the top ``k`` (hypergeometric: ``s`` draws from ``n`` with
``r`` successes), their slots are a uniform ``j``-subset of the ``s``; slot ``p`` holds one
with probability ``j / s`` and then ``(p - 1)(j - 1)/(s - 1)`` others before it on average. So

    E[AP] = sum_j P(j) (N_a + (j / s) ((R_a + 1) H_1 + (j - 1)/(s - 1) H_2)) / (R_a + j),

``H_1 = sum_{p=1..s} 1/(a + p)``, ``H_2 = sum_{p=1..s} (p - 1)/(a + p) = s - (a + 1) H_1``,
``N_a`` the expected precision sum of the groups above (independent of ``j``), and a term with
``R_a + j = 0`` is 0. ``N_a`` is the kernel's AP sum at ``k`` less the group's own expected
terms. The extremes over orderings ("optimistic"/"pessimistic") put the relevant documents of
every group above first/last and take the best/worst ``j``, with the ``j`` relevant documents
in the first/last ``j`` of the ``s`` slots.

The group statistics come from either kernel (:func:`group_at`: numpy buckets here, the compiled
backend through :mod:`._numba_found`); the combination below is shared, so both backends give
the same floating-point result.

References
----------
McSherry & Najork (2008), Computing information retrieval performance measures efficiently in
the presence of tied scores, ECIR, Sec. 2.4 (the AP terms of a tie group). torchmetrics
``functional/retrieval/average_precision.py`` (the "found" denominator, 0 when none is found).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import backend as _backend
from . import contributions as _metrics
from .kernel import Ranking, group_sums

Values = NDArray[np.float64]


def group_at(ranking: Ranking, rel_ext: NDArray[Any], k: int, n_queries: int
             ) -> tuple[NDArray[np.bool_], Values, Values, Values, Values]:
    """Per query: (a tie group straddles rank k, its start a (0-based), size n, relevant r,
    relevant documents above it R_a)."""
    straddle = np.zeros(n_queries, dtype=bool)
    a = np.zeros(n_queries)
    n = np.zeros(n_queries)
    r = np.zeros(n_queries)
    ra = np.zeros(n_queries)
    if isinstance(ranking, _backend.SegRanking):
        from . import _numba_found

        rk = ranking
        _numba_found.group_at(rk.scores, rk.rows, rk.counts, rk.layout.offsets[:-1],
                              rk.layout.seg_slots, rel_ext, int(k), straddle, a, n, r, ra)
        return straddle, a, n, r, ra
    for rb in ranking.buckets:
        w = rb.rows.shape[1]
        if k >= w:
            continue
        p = k - 1
        st = rb.start[:, p].astype(np.float64)
        en = rb.end[:, p].astype(np.float64)
        hit = (rb.n_valid > k) & (en > k)
        if not hit.any():
            continue
        total, _, before = group_sums(rb, rel_ext, k)
        q = rb.queries[hit]
        straddle[q] = True
        a[q] = st[hit]
        n[q] = (en - st)[hit]
        r[q] = total[hit, p]
        ra[q] = before[hit, p]
    return straddle, a, n, r, ra


def _hypergeometric(s: Values, n: Values, r: Values, lo: Values, hi: Values,
                    width: int) -> Values:
    """P(j) for j = 0..width-1 (rows: queries), zero outside [lo, hi]: weights grown from the
    mode by the ratio of neighbouring terms (no overflow, no transcendental functions), then
    normalised."""
    nq = s.shape[0]
    mode = np.clip(np.floor((s + 1.0) * (r + 1.0) / (n + 2.0)), lo, hi)
    w = np.zeros((nq, width))
    w[np.arange(nq), mode.astype(np.int64)] = 1.0
    for j in range(width - 1):  # upwards from the mode
        up = np.flatnonzero((j >= mode) & (j < hi))
        if up.size:
            ru, su, nu = r[up], s[up], n[up]
            ratio = (ru - j) * (su - j) / ((j + 1.0) * (nu - ru - su + j + 1.0))
            w[up, j + 1] = w[up, j] * ratio
    for j in range(width - 1, 0, -1):  # downwards
        down = np.flatnonzero((j <= mode) & (j > lo))
        if down.size:
            rd, sd, nd = r[down], s[down], n[down]
            ratio = j * (nd - rd - sd + j) / ((rd - j + 1.0) * (sd - j + 1.0))
            w[down, j - 1] = w[down, j] * ratio
    return w / w.sum(axis=1, keepdims=True)


def straddling(mode: str, S: Values, a: Values, s: Values, n: Values, r: Values,
               ra: Values) -> Values:
    """AP over the found relevant documents of queries whose tie group straddles k (arrays
    over those queries; ``S`` = the kernel's AP sum at k under ``mode``)."""
    nq = S.shape[0]
    out = np.zeros(nq)
    if nq == 0:
        return out
    lo = np.maximum(0.0, s - (n - r))
    hi = np.minimum(r, s)
    width = int(hi.max()) + 1
    if mode == "average":
        h1 = np.zeros(nq)
        for p in range(1, int(s.max()) + 1):
            h1 += np.where(p <= s, 1.0 / (a + p), 0.0)
        h2 = s - (a + 1.0) * h1
        own = r / n * ((ra + 1.0) * h1 + (r - 1.0) / (n - 1.0) * h2)
        above = S - own
        prob = _hypergeometric(s, n, r, lo, hi, width)
        c = (ra + 1.0) * h1
        for j in range(width):
            y = ra + j
            ok = (j >= lo) & (j <= hi) & (y > 0)
            other = (j - 1.0) / np.maximum(s - 1.0, 1.0) if j > 0 else np.zeros(nq)
            num = above + j / s * (c + other * h2)
            out += np.where(ok, prob[:, j] * num / np.where(ok, y, 1.0), 0.0)
        return out
    # optimistic / pessimistic: X_j = precision sum of j relevant documents in the first
    # (last) j of the s slots = j + (R_a - a [- s + j]) * (sum of 1/rank over those slots)
    first = mode == "optimistic"
    harm = np.zeros(nq)
    xs = np.zeros((nq, width))
    for j in range(1, width):
        rank = a + j if first else np.maximum(a + s - j + 1.0, 1.0)
        harm += np.where(j <= hi, 1.0 / rank, 0.0)
        xs[:, j] = j + ((ra - a) if first else (ra - a - s + j)) * harm
    # the kernel ordered every group relevant-first (last): its own group put min(r, s)
    # (max(0, s - (n - r))) relevant documents inside, in the first (last) slots
    inside = hi if first else lo
    above = S - xs[np.arange(nq), inside.astype(np.int64)]
    best = np.full(nq, -np.inf if first else np.inf)
    for j in range(width):
        y = ra + j
        ok = (j >= lo) & (j <= hi)
        val = np.where(y > 0, (above + xs[:, j]) / np.where(y > 0, y, 1.0), 0.0)
        cand = np.where(ok, val, best)
        best = np.maximum(best, cand) if first else np.minimum(best, cand)
    return best


def ap_found(ranking: Ranking, n_queries: int, rel_ext: NDArray[Any], ties: str,
             ks: Sequence[int | None], sums: Values) -> Values:
    """AP@k over the relevant documents found in the top k, per cutoff and query:
    ``sums`` (len(ks), n_queries) are the kernel's AP sums at each k under ``ties``."""
    found = _metrics.at_cutoffs(ranking, n_queries, "rel", rel_ext, ties, ks)
    out = np.divide(sums, found, out=np.zeros_like(sums), where=found > 0)
    if ties == "stable":
        return out
    for i, k in enumerate(ks):
        if k is None:
            continue
        hit, a, n, r, ra = group_at(ranking, rel_ext, k, n_queries)
        if not hit.any():
            continue
        out[i, hit] = straddling(ties, sums[i, hit], a[hit], k - a[hit], n[hit], r[hit],
                                 ra[hit])
    return out
