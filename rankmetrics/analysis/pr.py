"""Uninterpolated precision-recall points and fallout (the lecture slides' set-based measures).

:func:`precision_recall_points` gives the precision and recall after every rank of a ranking
(one point per rank: the slides' "precision-recall curve" before interpolation);
:func:`fallout` the fraction of the collection's non-relevant documents retrieved in the top k,
which needs the collection size as an explicit argument. Both are exact under tied scores:
precision, recall and fallout at a rank are linear in the number of relevant documents in the
top k, whose average over tie orders is McSherry & Najork's (2008) R_c + (k - t_c) r_c / n_c.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..core.plan import QueryPlan
from ..core.validation import (
    check_choice,
    check_k,
    check_labels,
    check_result_size,
    check_threshold,
    flatten_inputs,
)

Values = NDArray[np.float64]

__all__ = ["expected_interpolated_precision", "fallout", "precision_recall_points"]


def _relevant_counts(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None,
                     threshold: float, ties: str, depth: int | None, copies: int = 1
                     ) -> tuple[QueryPlan, Values, Values]:
    labels = check_labels(y_true)
    rel = (labels >= check_threshold(threshold)).astype(np.float64)
    plan = QueryPlan(rel, qid)
    width = int(plan.sizes.max()) if depth is None else depth
    if depth is None:  # [mem] the peak's padded arrays, checked before the first is made
        check_result_size(plan.n_queries, width, "qid (its longest query's rows)", copies,
                          hint="every query is padded to the longest one")
    # [mem] every relevant row is counted over a whole list (an (n_queries, longest) ideal
    # curve was made for its last column): one float64 per query
    r_rows = plan.cg(y_score, gain="linear", ties=ties)
    counts = plan.cg_curve(y_score, depth=width, gain="linear", ties=ties)
    return plan, counts, r_rows


#: the largest count of documents taken (counts are held exactly in float64)
_MAX_COUNT = 2.0**53


def _counts(value: ArrayLike, name: str, n_queries: int) -> Values:
    """One whole, non-negative count per query (a scalar for every query) as float64; raises
    TypeError for what is not numbers, ValueError for fractions, negatives, counts above 2**53
    or a bad shape."""
    raw = np.asarray(value)
    if raw.dtype.kind == "O" and raw.size and all(  # Python ints, Fractions, Decimals
            isinstance(x, numbers.Real) and not isinstance(x, bool) for x in raw.flat):
        big = [x for x in raw.flat if abs(x) > _MAX_COUNT]
        if big:  # past int64 too: whole numbers, but beyond any collection
            raise ValueError(f"{name} must be whole numbers of documents of at most 2**53 "
                             f"(exact in float64); got {big[0]!r}")
        raw = np.array([float(x) for x in raw.flat]).reshape(raw.shape)
    if raw.dtype.kind not in "iuf" or raw.dtype == np.float16:
        raise TypeError(f"{name} must be whole numbers of documents (int, or one per query); "
                        f"got {value!r}")
    r = raw.astype(np.float64)
    if r.ndim == 0:
        r = np.full(n_queries, float(r))
    if r.shape != (n_queries,):
        raise ValueError(f"{name} must have one count per query ({n_queries},); got shape "
                         f"{r.shape}")
    if not np.all(np.isfinite(r)) or np.any(r != np.round(r)) or np.any(r < 0):
        bad = r[~(np.isfinite(r) & (r == np.round(r)) & (r >= 0))][0]
        raise ValueError(f"{name} must be whole non-negative numbers of documents; got {bad:g}")
    if np.any(r > _MAX_COUNT):
        raise ValueError(f"{name} must be whole numbers of documents of at most 2**53 (exact "
                         f"in float64); got {r.max():g}")
    return r


def _recall_base(n_relevant: ArrayLike | None, r_rows: Values, n_queries: int) -> Values:
    if n_relevant is None:
        return r_rows
    r = _counts(n_relevant, "n_relevant", n_queries)
    if np.any(r < r_rows - 1e-9):
        raise ValueError("n_relevant is smaller than the relevant rows of some query")
    return r


def precision_recall_points(
    y_true: ArrayLike,
    y_score: ArrayLike,
    qid: ArrayLike | None = None,
    *,
    threshold: float = 1,
    ties: str = "average",
    n_relevant: ArrayLike | None = None,
) -> tuple[Values, Values]:
    """Recall and precision after every rank: the uninterpolated precision-recall curve.

    Parameters
    ----------
    y_true, y_score, qid
        As in :func:`rankmetrics.precision`.
    threshold : float, default 1
        A document is relevant when its label is >= threshold.
    ties : {"average", "optimistic", "pessimistic", "stable"}, default "average"
        "average": the expected precision and recall at each rank over all orders of tied
        scores (exact: both are linear in the relevant count of the top k).
    n_relevant : int or array-like of shape (n_queries,), optional
        Relevant documents in each query's recall base (default: its relevant rows).

    Returns
    -------
    recall, precision : ndarrays of float64, shape (n_queries, width)
        Column i is rank i + 1; ``width`` is the longest query; NaN after a query's last
        document. Recall is NaN for a query without relevant documents. Rows in
        ``np.unique(qid)`` order.

    Raises
    ------
    ValueError, TypeError
        As :func:`rankmetrics.precision`; a bad ``n_relevant``; ValueError naming ``qid`` when
        the peak's four padded arrays exceed this machine's memory.

    Notes
    -----
    P(i) = rel(i) / i and R(i) = rel(i) / R, rel(i) the (expected) relevant documents in the top
    i (the lecture slides' precision-recall points, one per rank, before interpolation).

    Memory: every query is padded to the longest one; the peak is about four
    (n_queries, width) float64 arrays (the two results, the counts and one temporary).

    Examples
    --------
    >>> r, p = precision_recall_points([1, 0, 1, 0], [4, 3, 2, 1])
    >>> r.round(2).tolist(), p.round(2).tolist()
    ([[0.5, 0.5, 1.0, 1.0]], [[1.0, 0.5, 0.67, 0.5]])
    """
    plan, counts, r_rows = _relevant_counts(y_true, y_score, qid, threshold, ties, None,
                                            copies=4)
    r_all = _recall_base(n_relevant, r_rows, plan.n_queries)
    width = counts.shape[1]
    ranks = np.arange(1, width + 1, dtype=np.float64)
    inside = ranks[None, :] <= np.asarray(plan.sizes)[:, None]
    precision = np.where(inside, counts / ranks[None, :], np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = np.where(inside & (r_all[:, None] > 0),
                          counts / np.where(r_all > 0, r_all, 1.0)[:, None], np.nan)
    return recall, precision


def fallout(
    y_true: ArrayLike,
    y_score: ArrayLike,
    qid: ArrayLike | None = None,
    *,
    k: int,
    n_documents: ArrayLike,
    n_relevant: ArrayLike | None = None,
    threshold: float = 1,
    ties: str = "average",
) -> Values:
    """Fallout@k: non-relevant documents in the top k over the collection's non-relevant ones.

    Parameters
    ----------
    y_true, y_score, qid
        As in :func:`rankmetrics.precision`.
    k : int >= 1
        Cutoff.
    n_documents : int or array-like of shape (n_queries,)
        Size of the collection searched (N), per query or one for all. Required: the
        retrieved list alone does not tell how many non-relevant documents exist.
    n_relevant : int or array-like of shape (n_queries,), optional
        Relevant documents in the collection for each query (default: its relevant rows).
    threshold : float, default 1
    ties : {"average", "optimistic", "pessimistic", "stable"}, default "average"
        "average" gives the exact expectation over tie orders (fallout is linear in the
        relevant count of the top k).

    Returns
    -------
    ndarray of float64, shape (n_queries,), in [0, 1]
        NaN for a query whose collection has no non-relevant document.

    Raises
    ------
    ValueError
        ``n_documents`` smaller than a query's list or than its relevant documents;
        ``n_documents - n_relevant`` smaller than the non-relevant documents ranked for a query
        (the message names it); counts that are negative, fractional, non-finite, of the wrong
        shape or above 2**53; a bad k.
    TypeError
        ``n_documents`` or ``n_relevant`` not numbers.

    Notes
    -----
    fallout@k = (min(k, n) - rel(k)) / (N - R), n the query's retrieved documents, rel(k) the
    (expected) relevant documents in its top k, N the collection size, R its relevant documents
    (the lecture slides' "fallout = non-relevant retrieved / all non-relevant").

    Examples
    --------
    >>> fallout([1, 0, 1, 0], [4, 3, 2, 1], k=2, n_documents=10).round(4).tolist()
    [0.125]
    """
    kk = check_k(k)
    if kk is None:
        raise ValueError("k must be a positive int; fallout needs a cutoff")
    plan, counts, r_rows = _relevant_counts(y_true, y_score, qid, threshold, ties, kk)
    r_all = _recall_base(n_relevant, r_rows, plan.n_queries)
    big_n = _counts(n_documents, "n_documents", plan.n_queries)
    sizes = np.asarray(plan.sizes, dtype=np.float64)
    if np.any(big_n < sizes) or np.any(big_n < r_all):
        raise ValueError("n_documents (the collection size) is smaller than a query's ranked "
                         "list or its relevant documents")
    # the non-relevant rows ranked are part of the collection's N - R non-relevant documents
    short = np.flatnonzero(sizes - r_rows > big_n - r_all)
    if short.size:
        i = int(short[0])
        q = plan.qids[i]
        raise ValueError(
            f"n_documents - n_relevant ({big_n[i]:g} - {r_all[i]:g}) is smaller than the "
            f"{sizes[i] - r_rows[i]:g} non-relevant documents ranked for query "
            f"{q.item() if isinstance(q, np.generic) else q!r}; fallout would exceed 1"
        )
    retrieved = np.minimum(float(kk), sizes)
    nonrel_ret = retrieved - counts[:, -1]
    nonrel = big_n - r_all
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(nonrel > 0, nonrel_ret / np.where(nonrel > 0, nonrel, 1.0), np.nan)


def _subset_probability(n: int, r: int, lower: NDArray[np.int64]) -> float:
    """P(k-th smallest of a uniform r-subset of 1..n is >= lower[k-1] for every k)."""
    k = np.arange(1, r + 1)
    if np.all(lower <= k):  # every subset qualifies
        return 1.0
    if np.any(lower > n - r + k):  # the k-th smallest is at most n - r + k
        return 0.0
    f = np.zeros(r + 1)
    f[0] = 1.0
    for i in range(1, n + 1):
        f[1:] = f[1:] + f[:-1] * (i >= lower)
    return float(f[r] / math.comb(n, r))


def _expected_max(groups: list[tuple[int, int, int, int]], j: int, n_rel: int) -> float:
    """E[max_{m >= j} m / pos_m] over uniform orders within tie groups (0 when j > n_rel).

    ``groups``: (t, n, R, r) per tie group: documents and relevant documents before it, its
    size and relevant count. The CDF factorises over groups: P(V <= v) is the product over
    groups of P(every relevant m >= j of the group lies at rank >= m / v)."""
    if j > n_rel:
        return 0.0
    fixed: list[Fraction] = []
    mixed = []
    for t, n, before, r in groups:
        ks = [k for k in range(1, r + 1) if before + k >= j]
        if not ks:
            continue
        if r == n:  # all relevant: positions fixed
            fixed += [Fraction(before + k, t + k) for k in ks]
        else:
            mixed.append((t, n, before, r))
    low = max(fixed) if fixed else Fraction(0)
    cands = {low} if fixed else set()
    for t, n, before, r in mixed:
        for k in range(1, r + 1):
            if before + k >= j:
                for o in range(k, n - r + k + 1):
                    v = Fraction(before + k, t + o)
                    if v >= low:
                        cands.add(v)
    total, prev = 0.0, 0.0
    memo: dict[tuple[int, tuple[int, ...]], float] = {}
    for v in sorted(cands):
        cdf = 1.0
        for gi, (t, n, before, r) in enumerate(mixed):
            # the k-th relevant of the group (overall before + k) must sit at rank >= m / v
            lower = tuple(max(1, math.ceil(Fraction(before + k) / v) - t)
                          if before + k >= j else 1 for k in range(1, r + 1))
            key = (gi, lower)
            if key not in memo:
                memo[key] = _subset_probability(n, r, np.array(lower))
            cdf *= memo[key]
            if cdf == 0.0:
                break
        total += float(v) * (cdf - prev)
        prev = cdf
    return total


def _levels(levels: ArrayLike) -> Values:
    """Recall levels: a non-empty 1-D array of numbers in [0, 1]."""
    raw = np.asarray(levels)
    if raw.dtype.kind == "O" and all(  # Fractions, Decimals
            isinstance(x, numbers.Real) and not isinstance(x, bool) for x in raw.flat):
        raw = np.array([float(x) for x in raw.flat]).reshape(raw.shape)
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"levels must be numbers in [0, 1]; got {levels!r}")
    lv = raw.astype(np.float64)
    if lv.ndim > 1:
        raise ValueError(f"levels must be a 1-D sequence of recall levels; got shape {lv.shape}")
    lv = lv.ravel()
    if lv.size == 0 or np.any(~np.isfinite(lv)) or np.any((lv < 0) | (lv > 1)):
        raise ValueError(f"levels must be numbers in [0, 1]; got {levels!r}")
    return lv


def expected_interpolated_precision(
    y_true: ArrayLike,
    y_score: ArrayLike,
    qid: ArrayLike | None = None,
    *,
    threshold: float = 1,
    n_relevant: ArrayLike | None = None,
    rule: str = "trec",
    levels: ArrayLike = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
) -> Values:
    """Exact expectation over all orders of tied scores of the interpolated precision.

    Interpolated precision is a maximum over ranks, so the McSherry-Najork substitution
    (replace the relevant count of the top k by its expectation) does not give its tie
    average, and :func:`rankmetrics.trec.evaluate` (IPrec, 11pt_avg) and the PR plot raise
    under ``ties="average"``. This function computes the tie average exactly.

    Parameters
    ----------
    y_true, y_score, qid
        As in :func:`rankmetrics.precision`.
    threshold : float, default 1
    n_relevant : array-like of shape (n_queries,), optional
        Relevant documents of each query's recall base (default: its relevant rows).
    rule : {"trec", "recall"}, default "trec"
        As in :func:`rankmetrics.plot.interpolated_precision`.
    levels : array-like of float in [0, 1]
        Recall levels (default the 11 points 0.0, 0.1, ..., 1.0).

    Returns
    -------
    ndarray of float64, shape (n_queries, n_levels)
        Rows in ``np.unique(qid)`` order; 0 for a query without relevant documents.

    Raises
    ------
    ValueError
        As :func:`rankmetrics.precision` (empty input, mismatched shapes, ...); ``levels``
        empty, not 1-D or outside [0, 1].
    TypeError
        As :func:`rankmetrics.precision`; ``levels`` not numbers.

    Notes
    -----
    With j the relevant documents needed for a level, the interpolated precision is
    V = max_{m >= j} m / pos_m (pos_m the rank of the m-th relevant document; 0 if fewer than
    j are retrieved). The m-th relevant document always falls in the same tie group, and the
    groups are ordered independently, so P(V <= v) = prod_g P_g(v), where P_g(v) is the
    probability that a uniform r_g-subset of the group's n_g positions puts its k-th member at
    or after rank (R_g + k) / v for every k (a lattice-path count, O(n_g r_g)). V takes
    finitely many values (m / p for the mixed groups' possible ranks, and the largest fixed
    one), so E[V] = sum_v v (F(v) - F(v-)). Cost per query and level: O(C sum_g n_g r_g) with
    C the number of candidate values, Python loops over queries and candidates: meant for
    analysis (a few thousand documents per query with moderate ties), not training loops.
    Without ties it equals :func:`rankmetrics.plot.interpolated_precision`.

    References
    ----------
    McSherry, F., Najork, M. (2008). Computing information retrieval performance measures
    efficiently in the presence of tied scores. ECIR. (This computation is ours: the paper
    covers measures linear in the top-k counts.)

    Examples
    --------
    Three tied documents, one relevant (R = 1): the three orders give precision 1, 1/2, 1/3
    at full recall, mean 11/18:

    >>> expected_interpolated_precision([1, 0, 0], [1, 1, 1], levels=[1.0]).round(4).tolist()
    [[0.6111]]
    """
    labels, scores, q2 = flatten_inputs(y_true, y_score, qid)  # 2-D: one query per row
    t = check_threshold(threshold)
    check_choice("rule", rule, ("trec", "recall"))
    lv = _levels(levels)
    q = np.zeros(labels.shape[0], dtype=np.int64) if q2 is None else q2
    uq, inv = np.unique(q, return_inverse=True)
    rel = labels >= t
    r_rows = np.bincount(inv, weights=rel, minlength=uq.shape[0]).astype(np.float64)
    r_all = _recall_base(n_relevant, r_rows, uq.shape[0])
    out = np.zeros((uq.shape[0], lv.size))
    for qi in range(uq.shape[0]):
        rows = np.flatnonzero(inv == qi)
        s = scores[rows]
        order = np.argsort(-s, kind="stable")
        s_sorted, r_sorted = s[order], rel[rows][order]
        starts = np.flatnonzero(np.r_[True, s_sorted[1:] != s_sorted[:-1]])
        ends = np.r_[starts[1:], s_sorted.size]
        cum = np.r_[0, np.cumsum(r_sorted)]
        groups = [(int(a), int(b - a), int(cum[a]), int(cum[b] - cum[a]))
                  for a, b in zip(starts, ends, strict=True)]
        n_rel = int(cum[-1])
        big_r = float(r_all[qi])
        if big_r <= 0:
            continue
        for li, x in enumerate(lv):
            need = x * big_r
            j = math.floor(need + 0.5) if rule == "trec" else math.ceil(need * (1 - 1e-12) - 1e-9)
            out[qi, li] = _expected_max(groups, max(int(j), 1), n_rel)
    return out
