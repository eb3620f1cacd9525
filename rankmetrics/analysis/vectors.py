"""Järvelin & Kekäläinen (2002) vector operations on gain vectors (CG, DCG, nCG, nDCG curves)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..core.validation import (
    _asarray,
    _object_to_float,
    _real_kind_check,
    as_float64,
    check_depth,
    check_flag,
    is_missing,
)


def _reals(x: ArrayLike, name: str) -> NDArray[np.float64]:
    """``x`` as float64, a missing value (None, pandas.NA) as NaN; text, complex, date and
    duration values are a TypeError naming ``name`` (numpy's own cast parsed "1", dropped
    imaginary parts, read durations as counts and failed on pandas.NA naming nothing)."""
    arr = _asarray(x, name)
    _real_kind_check(arr, name)
    if arr.dtype.kind != "O":
        return arr.astype(np.float64)
    flat = np.empty(arr.size, dtype=object)
    flat[:] = [math.nan if is_missing(v) else v for v in arr.ravel().tolist()]
    return _object_to_float(flat, name).reshape(arr.shape)


def _matrix(vectors: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = _reals(vectors, name)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] == 0 or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty (n_vectors, depth) array; got {arr.shape}")
    return arr


def avg_vect(vectors: ArrayLike, weights: ArrayLike | None = None) -> NDArray[np.float64]:
    """Average vector of a set of gain vectors: ``|V|^-1 * sum of V`` (JK 2002, eq. 3).

    Parameters
    ----------
    vectors : array-like of shape (n_vectors, depth)
        E.g. the per-query output of :func:`rankmetrics.dcg_curve`. Rows with NaN (queries
        skipped with ``empty="skip"``) are left out.
    weights : array-like of shape (n_vectors,), optional
        Non-negative weight per vector (a weighted average).

    Returns
    -------
    ndarray of float64, shape (depth,)

    Raises
    ------
    ValueError
        Empty input, wrong weight shape, negative weights, or no vector left.
    TypeError
        ``vectors`` or ``weights`` not numbers.

    Examples
    --------
    >>> avg_vect([[1, 2, 3], [3, 4, 5]])
    array([2., 3., 4.])
    """
    v = _matrix(vectors, "vectors")
    keep = ~np.isnan(v).any(axis=1)
    w = np.ones(v.shape[0]) if weights is None else _reals(weights, "weights")
    if w.shape != (v.shape[0],) or not np.all(np.isfinite(w)) or w.min() < 0:
        raise ValueError(f"weights must be {v.shape[0]} finite non-negative numbers")
    if not keep.any() or w[keep].max() == 0:
        raise ValueError("no vector to average (all NaN or zero weight)")
    wk, vk = w[keep], v[keep]
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.asarray(wk @ vk / wk.sum(), dtype=np.float64)  # exact for whole numbers
    return _refit(out, vk, wk)


def _refit(out: NDArray[np.float64], vk: NDArray[np.float64], wk: NDArray[np.float64]
           ) -> NDArray[np.float64]:
    """``out`` (the weighted mean over axis 0 of ``vk``) again with weights scaled to sum 1
    where the plain sums overflowed float64 (the mean of finite values is finite: [1e308,
    1e308] averaged to inf) or the weights' sum did (weights of 1e308 gave 0 or NaN)."""
    bad = ~np.isfinite(out) & np.isfinite(vk).all(axis=0)
    with np.errstate(over="ignore"):
        total = wk.sum()
    if np.isfinite(total) and not bad.any():
        return out
    if not np.isfinite(total):
        bad = np.ones(out.shape, dtype=bool)
    p = wk / wk.max()
    p = p / p.sum()
    out[bad] = p @ vk[:, bad]
    return out


def norm_vect(vector: ArrayLike, ideal: ArrayLike, *, empty: float = 0.0) -> NDArray[np.float64]:
    """Normalised vector: component-wise v_i / i_i (JK 2002, eq. 5).

    Parameters
    ----------
    vector : array-like of shape (depth,) or (n_vectors, depth)
    ideal : array-like of the same shape
        The ideal vector(s), e.g. :func:`rankmetrics.ideal_dcg_curve`.
    empty : float, default 0.0
        Value where the ideal component is 0 (a NaN component of ``vector``, e.g. a query
        skipped with ``empty="skip"``, stays NaN, so that :func:`avg_vect` leaves it out).

    Returns
    -------
    ndarray of float64, the shape of ``vector``

    Raises
    ------
    ValueError
        Shapes differ; ``empty`` past float64's range.
    TypeError
        ``empty`` not a number.

    Examples
    --------
    >>> norm_vect([3, 5, 8], [3, 6, 9]).round(4)
    array([1.    , 0.8333, 0.8889])
    """
    v = _reals(vector, "vector")
    i = _reals(ideal, "ideal")
    if v.shape != i.shape:
        raise ValueError(f"vector and ideal must have the same shape; got {v.shape} and {i.shape}")
    if isinstance(empty, bool) or not isinstance(empty, numbers.Real):
        raise TypeError(f"empty must be a number (NaN included); got {empty!r}")
    out = np.full(v.shape, as_float64(empty, "empty"))
    np.divide(v, i, out=out, where=i != 0)
    out[np.isnan(v)] = np.nan  # a missing value is not an empty query
    return out


def avg_pos(vector: ArrayLike, k: int, *, start: int = 1) -> NDArray[np.float64] | float:
    """Average of components start..k: (k - start + 1)^-1 * sum_(start<=i<=k) V[i] (JK 2002, eq. 6).

    Eq. 6 averages ranks 1..k (``start=1``); the TOIS version compares ranges such as 1-10 and
    1-100, and ``start`` allows any range, e.g. 11-100.

    Parameters
    ----------
    vector : array-like of shape (depth,) or (n_vectors, depth)
    k : int, 1 <= k <= depth
        Last rank of the range.
    start : int, 1 <= start <= k, default 1
        First rank of the range.

    Returns
    -------
    float, or ndarray of shape (n_vectors,) for 2-D input

    Raises
    ------
    ValueError
        k outside 1..depth or start outside 1..k; a vector that is not 1-D or 2-D.
    TypeError
        ``k`` or ``start`` not an int (None included); a vector that is not numbers.

    References
    ----------
    Järvelin, K., Kekäläinen, J. (2002). Cumulated gain-based indicators of IR performance,
    eq. 6; ACM TOIS 20(4), Sec. 3.

    Examples
    --------
    >>> avg_pos([1.0, 0.5, 0.0, 0.5], 2)
    0.75
    >>> avg_pos([1.0, 0.5, 0.0, 0.5], 4, start=3)
    0.25
    """
    v = _reals(vector, "vector")
    if v.ndim not in (1, 2):
        raise ValueError(f"vector must be 1-D (depth,) or 2-D (n_vectors, depth); got shape "
                         f"{v.shape}")
    # check_k's "a positive int or None" named None, which is no rank here
    kk = check_depth(k, "k")
    if kk > v.shape[-1]:
        raise ValueError(f"k must be between 1 and the vector length {v.shape[-1]}; got {k}")
    s0 = check_depth(start, "start")
    if s0 > kk:
        raise ValueError(f"start must be between 1 and k={kk}; got {start}")
    seg = v[..., s0 - 1:kk].reshape(-1, kk - s0 + 1)
    with np.errstate(over="ignore", invalid="ignore"):
        out = seg.mean(axis=-1)
    out = _refit(out, seg.T, np.ones(seg.shape[1]))
    return float(out[0]) if v.ndim == 1 else out


def _rtol(rtol: Any) -> float:
    """A relative tolerance in [0, 1): at 1 or above every rank would reach (and NaN none)."""
    if isinstance(rtol, bool) or not isinstance(rtol, numbers.Real):
        raise TypeError(f"rtol must be a number in [0, 1); got {rtol!r}")
    value = as_float64(rtol, "rtol")
    if not (math.isfinite(value) and 0 <= value < 1):
        raise ValueError(f"rtol must be a finite number in [0, 1); got {rtol!r}")
    return value


def horizontal_reading(vector: ArrayLike, reference: ArrayLike, n: int, *,
                       rtol: float = 1e-9) -> NDArray[np.float64] | float:
    """Rank at which a (D)CG vector first reaches the reference vector's value at rank n.

    JK 2002 read their CG curves "horizontally" (Sec. 3.4 of the research note, Sec. 3 of the
    TOIS paper): "one has to retrieve 30 documents by the best query type, and 60 by the
    second best, and up to 170 documents by the worst query type in order to gain the benefit
    that could theoretically be gained by retrieving only 10 documents". With the ideal vector
    as ``reference`` this is the rank a run needs to match the ideal at rank n; with another
    run's vector, the rank needed to match that run.

    Parameters
    ----------
    vector : array-like of shape (depth,) or (n_vectors, depth)
        Cumulated (non-decreasing) vectors: CG or DCG, per query or averaged.
    reference : array-like of the same shape, or of shape (depth_ref,) / (n_vectors, depth_ref)
        The vector(s) to match (e.g. the ideal CG vector); only its rank ``n`` is read.
    n : int, 1 <= n <= reference depth
    rtol : float in [0, 1), default 1e-9
        Relative tolerance of "reaches" (printed, rounded vectors): a rank reaches when its
        value is at least ``reference[n] * (1 - rtol)``; 0 asks for the value itself.

    Returns
    -------
    float, or ndarray of float64 of shape (n_vectors,)
        The smallest rank i (1-based) with ``vector[i] >= reference[n]``; NaN when the vector
        never reaches it within its depth, or when ``reference[n]`` is 0 or NaN (nothing to
        reach: a query without relevant documents).

    Raises
    ------
    ValueError
        n outside 1..reference depth, row counts that differ (or a 2-D reference for a 1-D
        vector), or ``rtol`` outside [0, 1) or not finite.
    TypeError
        ``rtol`` not a number; ``n`` not an int (None included); vectors that are not
        numbers.

    References
    ----------
    Järvelin, K., Kekäläinen, J. (2002). Cumulated gain-based indicators of IR performance,
    Sec. 3.4 (Fig. 1's 30 / 60 / 170 documents).

    Examples
    --------
    The research note's sample vectors CG' and CG_I' (Sec. 2.2): the sample query needs 3
    documents for the ideal gain of 2, 6 for that of 3, and never reaches the ideal's rank 8
    within 10 documents:

    >>> cg = [3, 5, 8, 8, 8, 9, 11, 13, 16, 16]
    >>> ideal = [3, 6, 9, 11, 13, 15, 16, 17, 18, 19]
    >>> [horizontal_reading(cg, ideal, n) for n in (1, 2, 3, 8)]
    [1.0, 3.0, 6.0, nan]
    """
    v = _reals(vector, "vector")
    r = _reals(reference, "reference")
    if v.ndim not in (1, 2) or r.ndim not in (1, 2) or v.shape[-1] == 0:
        raise ValueError(f"vector and reference must be 1-D or 2-D; got {v.shape}, {r.shape}")
    nn = check_depth(n, "n")
    if nn > r.shape[-1]:
        raise ValueError(f"n must be between 1 and the reference length {r.shape[-1]}; got {n}")
    tol = _rtol(rtol)
    vm = v[None, :] if v.ndim == 1 else v
    if r.ndim == 2 and (v.ndim == 1 or r.shape[0] != vm.shape[0]):  # before broadcasting
        raise ValueError(f"vector and reference must have the same rows; got {v.shape} and "
                         f"{r.shape}")
    target = np.broadcast_to(r[..., nn - 1], (vm.shape[0],))
    reach = vm >= (target * (1 - tol))[:, None]
    first = np.argmax(reach, axis=1).astype(np.float64) + 1
    ok = reach.any(axis=1) & (target > 0)
    out = np.where(ok, first, np.nan)
    return float(out[0]) if v.ndim == 1 else out


def average_normalised(curves: ArrayLike, ideal: ArrayLike, *, per_query: bool = True,
                       empty: float = 0.0) -> NDArray[np.float64]:
    """Average normalised curve of a set of queries, in either of the paper's two ways.

    ``per_query=True``: avg-vect of the per-query norm-vect(V, I) (each query weighs the same).
    ``per_query=False``: norm-vect(avg-vect(V), avg-vect(I)) (JK 2002 normalise the average
    vectors by the average ideal vector in their figures).

    Parameters
    ----------
    curves, ideal : array-like of shape (n_queries, depth)
    per_query : bool, default True
    empty : float, default 0.0
        Value where an ideal component is 0.

    Returns
    -------
    ndarray of float64, shape (depth,)

    Raises
    ------
    ValueError
        Shapes differ or are empty, or every query has NaN.
    TypeError
        ``curves`` or ``ideal`` not numbers; ``per_query`` not True or False; ``empty`` not a
        number.

    Notes
    -----
    A query with NaN in its curve or its ideal (e.g. skipped) is left out of both averages.

    Examples
    --------
    >>> average_normalised([[1, 2], [0, 0]], [[2, 4], [1, 2]], per_query=False).round(4)
    array([0.3333, 0.3333])
    """
    check_flag("per_query", per_query)
    v = _matrix(curves, "curves")
    i = _matrix(ideal, "ideal")
    if v.shape != i.shape:  # the averages alone would hide a different number of queries
        raise ValueError(f"curves and ideal must have the same shape; got {v.shape} and "
                         f"{i.shape}")
    if per_query:
        return avg_vect(norm_vect(v, i, empty=empty))
    # the same queries on both sides: a query with NaN in either is left out of both
    keep = ~(np.isnan(v).any(axis=1) | np.isnan(i).any(axis=1))
    if not keep.any():
        raise ValueError("no vector to average (all NaN)")
    return norm_vect(avg_vect(v[keep]), avg_vect(i[keep]), empty=empty)
