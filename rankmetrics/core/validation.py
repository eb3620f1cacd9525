"""Input checks shared by every public entry point.

Validation happens once, at the boundary; the kernels trust what they get.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

TIES = ("average", "optimistic", "pessimistic", "stable")
_INT_EXACT = 2**53


def _asarray(x: ArrayLike, name: str) -> np.ndarray:
    if x is None:
        raise TypeError(f"{name} must be array-like, got None")
    try:
        arr = np.asarray(x)
    except Exception as exc:  # pragma: no cover - numpy's own message is kept
        raise TypeError(f"{name} could not be converted to an array: {exc}") from exc
    return arr


def check_labels(y_true: ArrayLike, name: str = "y_true") -> NDArray[np.float64]:
    """Return labels as a new float64 array; reject NaN/inf, negative and non-numeric labels."""
    arr = _asarray(y_true, name)
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}") from exc
    out = np.array(arr, dtype=np.float64, copy=True)
    if out.size and not np.all(np.isfinite(out)):
        bad = out[~np.isfinite(out)][0]
        raise ValueError(f"{name} must be finite; found {bad}")
    if out.size and out.min() < 0:
        raise ValueError(
            f"{name} must be non-negative graded labels; found {out.min():g}. "
            "Map negative judgements (e.g. trec -1) to 0 first."
        )
    return out


def check_scores(y_score: ArrayLike, name: str = "y_score") -> np.ndarray:
    """Return scores in a dtype whose equality is the caller's: float32 or float64.

    float16 widens to float32 and integers to float64 (exact below 2**53), so no two
    distinct input scores collapse into a tie and no tie is split.
    """
    arr = _asarray(y_score, name)
    kind = arr.dtype.kind
    if kind == "b":
        return arr.astype(np.float64)
    if kind in "iu":
        if arr.size and (arr.max() >= _INT_EXACT or arr.min() <= -_INT_EXACT):
            raise ValueError(
                f"{name} has integers beyond 2**53 that float64 cannot rank exactly; "
                "rescale them first"
            )
        return arr.astype(np.float64)
    if kind == "f":
        out = np.asarray(arr, dtype=np.float32 if arr.dtype.itemsize <= 4 else np.float64)
    else:
        try:
            out = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}") from exc
    if out.size and not np.all(np.isfinite(out)):
        bad = out[~np.isfinite(out)][0]
        raise ValueError(f"{name} must be finite (no NaN or inf); found {bad}")
    return out


def flatten_inputs(
    y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None
) -> tuple[NDArray[np.float64], np.ndarray, np.ndarray | None]:
    """Bring (y_true, y_score, qid) to flat 1-D arrays.

    A 2-D ``(n_queries, n_docs)`` pair (scikit-learn's ``ndcg_score`` layout) becomes one query
    per row.
    """
    labels = check_labels(y_true)
    scores = check_scores(y_score)
    if labels.ndim == 2 or scores.ndim == 2:
        if labels.shape != scores.shape:
            raise ValueError(
                "y_true and y_score must have the same shape; "
                f"got {labels.shape} and {scores.shape}"
            )
        if qid is not None:
            raise ValueError("qid must be None when y_true and y_score are 2-D (one query per row)")
        n_q, n_d = labels.shape
        if labels.size == 0:
            raise ValueError("y_true is empty: at least one document is needed")
        q = np.repeat(np.arange(n_q, dtype=np.int64), n_d)
        return labels.ravel(), scores.ravel(), q
    if labels.ndim != 1 or scores.ndim != 1:
        raise ValueError(
            f"y_true and y_score must be 1-D (or 2-D); got {labels.ndim}-D and {scores.ndim}-D"
        )
    if labels.shape[0] != scores.shape[0]:
        raise ValueError(
            "y_true and y_score must have the same length; "
            f"got {labels.shape[0]} and {scores.shape[0]}"
        )
    if labels.shape[0] == 0:
        raise ValueError("y_true is empty: at least one document is needed")
    return labels, scores, None if qid is None else check_qid(qid, labels.shape[0])


def check_qid(qid: ArrayLike, n: int) -> np.ndarray:
    q = _asarray(qid, "qid")
    if q.ndim != 1:
        raise ValueError(f"qid must be 1-D, got shape {q.shape}")
    if q.shape[0] != n:
        raise ValueError(f"qid must have one entry per row: got {q.shape[0]} for {n} rows")
    if q.dtype.kind == "f" and not np.all(np.isfinite(q)):
        raise ValueError("qid must not contain NaN or inf")
    if q.dtype.kind == "O":
        try:
            q = q.astype(str)
        except Exception as exc:  # pragma: no cover
            raise TypeError(f"qid values must be sortable: {exc}") from exc
    return q


def check_k(k: Any, name: str = "k") -> int | None:
    """``None`` (whole list) or a positive int."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{name} must be a positive int or None; got {k!r}")
    if k <= 0:
        raise ValueError(f"{name} must be a positive int or None; got {k}")
    return int(k)


def check_ks(k: Any) -> tuple[int | None, ...]:
    """One cutoff or a sequence of cutoffs."""
    if isinstance(k, Sequence) and not isinstance(k, str):
        if len(k) == 0:
            raise ValueError("k must not be an empty sequence")
        return tuple(check_k(x) for x in k)
    return (check_k(k),)


def check_choice(name: str, value: Any, options: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {value!r}")
    return value


def check_ties(ties: Any) -> str:
    return check_choice("ties", ties, TIES)


def check_empty(empty: Any) -> float | str:
    """The empty-query rule: a finite float, ``"skip"`` or ``"error"``."""
    if isinstance(empty, str):
        return check_choice("empty", empty, ("skip", "error"))
    if isinstance(empty, bool) or not isinstance(empty, numbers.Real) or not math.isfinite(empty):
        raise TypeError(f"empty must be a finite number, 'skip' or 'error'; got {empty!r}")
    return float(empty)


def check_threshold(threshold: Any) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number; got {threshold!r}")
    if not math.isfinite(threshold):
        raise ValueError(f"threshold must be finite; got {threshold}")
    return float(threshold)


def check_positive_real(name: str, value: Any, *, above: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise TypeError(f"{name} must be a finite number; got {value!r}")
    if value <= above:
        raise ValueError(f"{name} must be > {above:g}; got {value}")
    return float(value)
