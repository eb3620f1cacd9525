"""Layout conversion: flat rows with query ``indexes`` into padded ``(B, L)`` slates."""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor

__all__ = ["pad_slates"]


def _as_tensor(x: Any, name: str, device: torch.device | None) -> Tensor:
    t = x if isinstance(x, Tensor) else torch.as_tensor(x, device=device)
    if t.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per row); got shape {tuple(t.shape)}")
    return t


def _fill(value: float, dtype: torch.dtype) -> float:
    """``value`` where ``dtype`` holds it exactly (any value for a float dtype), else 0."""
    if dtype.is_floating_point or dtype.is_complex:
        return value
    if dtype == torch.bool:
        return value if value in (0, 1) else 0
    info = torch.iinfo(dtype)
    exact = math.isfinite(value) and value == int(value) and info.min <= value <= info.max
    return value if exact else 0


def pad_slates(
    preds: Any, target: Any, indexes: Any, *, pad_value: float = 0.0
) -> tuple[Tensor, Tensor, Tensor]:
    """Pad flat rows (torchmetrics' ``indexes`` layout) into ``(B, L)`` slates with a mask.

    Query ``b`` of the output is the ``b``-th id of ``torch.unique(indexes)`` (the order of the
    flat metric outputs), and its rows keep their input order. Metrics of the padded result with
    ``mask=mask`` equal those of the flat input with ``indexes``.

    Parameters
    ----------
    preds : Tensor or array-like of shape (N,)
        Scores, any real dtype.
    target : Tensor or array-like of shape (N,)
        Labels, any dtype.
    indexes : Tensor or array-like of shape (N,), integer
        Query id of every row; rows of one query need not be contiguous.
    pad_value : float, default 0.0
        Value written into the padding of both ``preds`` and ``target`` (ignored by every
        metric under ``mask``); where a dtype cannot hold it exactly (``-inf``, NaN or a
        fraction with integer or bool labels), that tensor's padding is 0.

    Returns
    -------
    preds : Tensor of shape (B, L)
        ``B`` distinct queries, ``L`` rows of the longest one; dtype and device of ``preds``.
    target : Tensor of shape (B, L)
        Dtype of ``target``.
    mask : Tensor of shape (B, L), bool
        True where a real row sits.

    Raises
    ------
    ValueError
        Inputs not 1-D, of different lengths, or empty.
    TypeError
        ``indexes`` not of an integer dtype.

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import ndcg, pad_slates
    >>> preds = torch.tensor([0.9, 0.2, 0.5, 0.4, 0.1])
    >>> target = torch.tensor([0, 1, 2, 1, 0])
    >>> indexes = torch.tensor([7, 3, 7, 3, 7])
    >>> p, t, m = pad_slates(preds, target, indexes)
    >>> p
    tensor([[0.2000, 0.4000, 0.0000],
            [0.9000, 0.5000, 0.1000]])
    >>> m
    tensor([[ True,  True, False],
            [ True,  True,  True]])
    >>> torch.equal(ndcg(p, t, mask=m), ndcg(preds, target, indexes))
    True
    """
    p = _as_tensor(preds, "preds", None)
    t = _as_tensor(target, "target", p.device)
    q = _as_tensor(indexes, "indexes", p.device)
    if not (p.shape[0] == t.shape[0] == q.shape[0]):
        raise ValueError(
            f"preds, target and indexes must have the same length; got {p.shape[0]}, "
            f"{t.shape[0]}, {q.shape[0]}"
        )
    if p.shape[0] == 0:
        raise ValueError("preds is empty: at least one row is needed")
    if q.dtype.is_floating_point or q.dtype.is_complex or q.dtype == torch.bool:
        raise TypeError(f"indexes must be an integer tensor; got dtype {q.dtype}")
    _, inv, counts = torch.unique(q, return_inverse=True, return_counts=True)
    order = torch.argsort(inv, stable=True)
    qi = inv[order]
    starts = torch.cumsum(counts, 0) - counts
    pos = torch.arange(q.shape[0], device=q.device) - starts[qi]
    b, width = int(counts.shape[0]), int(counts.max())
    out_p = torch.full((b, width), _fill(pad_value, p.dtype), dtype=p.dtype, device=p.device)
    out_t = torch.full((b, width), _fill(pad_value, t.dtype), dtype=t.dtype, device=t.device)
    mask = torch.zeros((b, width), dtype=torch.bool, device=p.device)
    out_p[qi, pos] = p[order]
    out_t[qi, pos] = t[order]
    mask[qi, pos] = True
    return out_p, out_t, mask
