"""Uninterpolated precision-recall points and fallout (the lecture slides' set-based measures).

:func:`precision_recall_points` gives the precision and recall after every rank of a ranking
(one point per rank: the slides' "precision-recall curve" before interpolation);
:func:`fallout` the fraction of the collection's non-relevant documents retrieved in the top k,
which needs the collection size as an explicit argument. Both are exact under tied scores:
precision, recall and fallout at a rank are linear in the number of relevant documents in the
top k, whose average over tie orders is McSherry & Najork's (2008) R_c + (k - t_c) r_c / n_c.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..core.plan import QueryPlan
from ..core.validation import check_k, check_labels, check_threshold

Values = NDArray[np.float64]

__all__ = ["fallout", "precision_recall_points"]


def _relevant_counts(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None,
                     threshold: float, ties: str, depth: int | None
                     ) -> tuple[QueryPlan, Values, Values]:
    labels = check_labels(y_true)
    rel = (labels >= check_threshold(threshold)).astype(np.float64)
    plan = QueryPlan(rel, qid)
    width = int(plan.sizes.max()) if depth is None else depth
    counts = plan.cg_curve(y_score, depth=width, gain="linear", ties=ties)
    r_rows = plan.ideal_cg_curve(depth=int(plan.sizes.max()), gain="linear")[:, -1]
    return plan, counts, r_rows


def _recall_base(n_relevant: ArrayLike | None, r_rows: Values, n_queries: int) -> Values:
    if n_relevant is None:
        return r_rows
    r = np.asarray(n_relevant, dtype=np.float64)
    if r.ndim == 0:
        r = np.full(n_queries, float(r))
    if r.shape != (n_queries,) or not np.all(np.isfinite(r)):
        raise ValueError(f"n_relevant must be one finite count per query ({n_queries},); got "
                         f"shape {r.shape}")
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
        As :func:`rankmetrics.precision`; a bad ``n_relevant``.

    Notes
    -----
    P(i) = rel(i) / i and R(i) = rel(i) / R, rel(i) the (expected) relevant documents in the top
    i (the lecture slides' precision-recall points, one per rank, before interpolation).

    Examples
    --------
    >>> r, p = precision_recall_points([1, 0, 1, 0], [4, 3, 2, 1])
    >>> r.round(2).tolist(), p.round(2).tolist()
    ([[0.5, 0.5, 1.0, 1.0]], [[1.0, 0.5, 0.67, 0.5]])
    """
    plan, counts, r_rows = _relevant_counts(y_true, y_score, qid, threshold, ties, None)
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
        ``n_documents`` smaller than a query's list or than its relevant documents; a bad k.

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
    big_n = np.asarray(n_documents, dtype=np.float64)
    if big_n.ndim == 0:
        big_n = np.full(plan.n_queries, float(big_n))
    sizes = np.asarray(plan.sizes, dtype=np.float64)
    if big_n.shape != (plan.n_queries,) or not np.all(np.isfinite(big_n)):
        raise ValueError(f"n_documents must be one finite count per query ({plan.n_queries},);"
                         f" got shape {big_n.shape}")
    if np.any(big_n < sizes) or np.any(big_n < r_all):
        raise ValueError("n_documents (the collection size) is smaller than a query's ranked "
                         "list or its relevant documents")
    retrieved = np.minimum(float(kk), sizes)
    nonrel_ret = retrieved - counts[:, -1]
    nonrel = big_n - r_all
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(nonrel > 0, nonrel_ret / np.where(nonrel > 0, nonrel, 1.0), np.nan)
