"""Järvelin & Kekäläinen (2002) vector operations on gain vectors (CG, DCG, nCG, nDCG curves)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..core.validation import check_k


def _matrix(vectors: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(vectors, dtype=np.float64)
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

    Examples
    --------
    >>> avg_vect([[1, 2, 3], [3, 4, 5]])
    array([2., 3., 4.])
    """
    v = _matrix(vectors, "vectors")
    keep = ~np.isnan(v).any(axis=1)
    w = np.ones(v.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (v.shape[0],) or not np.all(np.isfinite(w)) or w.min() < 0:
        raise ValueError(f"weights must be {v.shape[0]} finite non-negative numbers")
    if not keep.any() or w[keep].sum() == 0:
        raise ValueError("no vector to average (all NaN or zero weight)")
    return np.asarray(w[keep] @ v[keep] / w[keep].sum(), dtype=np.float64)


def norm_vect(vector: ArrayLike, ideal: ArrayLike, *, empty: float = 0.0) -> NDArray[np.float64]:
    """Normalised vector: component-wise v_i / i_i (JK 2002, eq. 5).

    Parameters
    ----------
    vector : array-like of shape (depth,) or (n_vectors, depth)
    ideal : array-like of the same shape
        The ideal vector(s), e.g. :func:`rankmetrics.ideal_dcg_curve`.
    empty : float, default 0.0
        Value where the ideal component is 0.

    Returns
    -------
    ndarray of float64, the shape of ``vector``

    Raises
    ------
    ValueError
        Shapes differ.

    Examples
    --------
    >>> norm_vect([3, 5, 8], [3, 6, 9]).round(4)
    array([1.    , 0.8333, 0.8889])
    """
    v = np.asarray(vector, dtype=np.float64)
    i = np.asarray(ideal, dtype=np.float64)
    if v.shape != i.shape:
        raise ValueError(f"vector and ideal must have the same shape; got {v.shape} and {i.shape}")
    out = np.full(v.shape, float(empty))
    np.divide(v, i, out=out, where=i != 0)
    return out


def avg_pos(vector: ArrayLike, k: int) -> NDArray[np.float64] | float:
    """Average of the first k components: k^-1 * sum_(i<=k) V[i] (JK 2002, eq. 6).

    Parameters
    ----------
    vector : array-like of shape (depth,) or (n_vectors, depth)
    k : int, 1 <= k <= depth

    Returns
    -------
    float, or ndarray of shape (n_vectors,) for 2-D input

    Raises
    ------
    ValueError
        k outside 1..depth.

    Examples
    --------
    >>> avg_pos([1.0, 0.5, 0.0, 0.5], 2)
    0.75
    """
    v = np.asarray(vector, dtype=np.float64)
    kk = check_k(k)
    if kk is None or kk > v.shape[-1]:
        raise ValueError(f"k must be between 1 and the vector length {v.shape[-1]}; got {k}")
    out = v[..., :kk].mean(axis=-1)
    return float(out) if v.ndim == 1 else out


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
        Shapes differ or are empty.

    Examples
    --------
    >>> average_normalised([[1, 2], [0, 0]], [[2, 4], [1, 2]], per_query=False).round(4)
    array([0.3333, 0.3333])
    """
    v = _matrix(curves, "curves")
    i = _matrix(ideal, "ideal")
    if per_query:
        return avg_vect(norm_vect(v, i, empty=empty))
    return norm_vect(avg_vect(v), avg_vect(i), empty=empty)
