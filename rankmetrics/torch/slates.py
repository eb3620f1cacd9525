"""Layout conversion: flat rows with query ``indexes`` into padded ``(B, L)`` slates."""

from __future__ import annotations

import math
import numbers
import os
from typing import Any

import torch
from torch import Tensor

from ..core.validation import as_float64
from .functional import _tensor, readable

__all__ = ["pad_slates"]


def _as_tensor(x: Any, name: str, device: torch.device | None) -> Tensor:
    if x is None:
        raise TypeError(f"{name} is required (a tensor of shape (N,)); got None")
    if isinstance(x, Tensor):
        return _one_dim(readable(x, name), name)
    try:
        # host data through numpy, as the metric functions take it: torch.as_tensor reads a
        # list of Python floats as float32, tying scores that float64 tells apart
        t = _tensor(x, name, device)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise TypeError(f"{name} must be a tensor or array of numbers of shape (N,); got "
                        f"{type(x).__name__} ({exc})") from None
    return _one_dim(t, name)


def _one_dim(t: Tensor, name: str) -> Tensor:
    if t.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per row); got shape {tuple(t.shape)}")
    return t


def _pad_value(value: Any) -> Any:
    """``pad_value``: a real number (a 0-d tensor's item too), within float64's range."""
    if isinstance(value, Tensor) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"pad_value must be a real number; got {value!r}")
    as_float64(value, "pad_value")
    return value  # an int stays exact for integer labels


def _fill(value: float, dtype: torch.dtype) -> float:
    """``value`` where ``dtype`` holds it exactly (any value, as a float, for a float dtype:
    torch reads a Python int as int64 first), else 0."""
    if dtype.is_floating_point or dtype.is_complex:
        v = float(value)
        if dtype.is_floating_point and math.isfinite(v) and abs(v) > torch.finfo(dtype).max:
            raise ValueError(f"pad_value {value!r} is past the range of {dtype} (at most "
                             f"{torch.finfo(dtype).max:g}); torch.full would overflow")
        return v
    if dtype == torch.bool:
        return value if value in (0, 1) else 0
    info = torch.iinfo(dtype)
    exact = math.isfinite(value) and value == int(value) and info.min <= value <= info.max
    return value if exact else 0


#: dtypes few torch kernels take (index_put, full): padded through a same-width view
_VIEWED = {torch.uint16: torch.int16, torch.uint32: torch.int32, torch.uint64: torch.int64}


def _padded(x: Tensor, b: int, width: int, qi: Tensor, pos: Tensor, order: Tensor,
            pad_value: float) -> Tensor:
    """``x[order]`` placed at ``(qi, pos)`` of a (b, width) tensor of x's dtype, the rest
    ``pad_value`` where the dtype holds it exactly, else 0 (float8 e8m0, which has no 0: its
    smallest value). uint16/32/64 and float8 are scattered through a signed or uint8 view."""
    dt = x.dtype
    work = _VIEWED.get(dt)
    if work is None and dt.is_floating_point and dt.itemsize == 1:
        work = torch.uint8
    if work is None:
        out = torch.full((b, width), _fill(pad_value, dt), dtype=dt, device=x.device)
        out[qi, pos] = x[order]
        return out
    if dt.is_floating_point:  # float8: the value if it survives the round trip, else 0
        v = torch.tensor(pad_value).to(dt)
        same = v.float().item() == pad_value or (math.isnan(pad_value) and v.float().isnan())
        fill = (v if same else torch.tensor(0.0).to(dt)).view(work).item()
    else:
        fill = torch.tensor(int(_fill(pad_value, dt)), dtype=dt).view(work).item()
    out = torch.full((b, width), fill, dtype=work, device=x.device)
    out[qi, pos] = x.view(work)[order]
    return out.view(dt)


def _check_padded_size(b: int, width: int, p: Tensor, t: Tensor) -> None:
    """[mem] the (b, width) outputs pad every query to the longest: a ValueError before they
    are allocated when they exceed the device's memory (one long query among many short ones
    asked torch for them, which failed with its allocator's RuntimeError or worse)."""
    need = b * width * (p.element_size() + t.element_size() + 1)
    if p.device.type == "cuda":
        total = torch.cuda.get_device_properties(p.device).total_memory
    else:
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (AttributeError, OSError, ValueError):  # pragma: no cover - not POSIX
            total = 1 << 50
    if need > total:
        raise ValueError(
            f"indexes: padding its {b} queries to the longest one's {width} rows asks for "
            f"({b}, {width}) preds, target and mask of {need / 2**30:.3g} GiB, more than this "
            f"machine's {total / 2**30:.3g} GiB of {p.device.type} memory; pass the flat rows "
            "with indexes= to the metrics instead (they do not pad)"
        )


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
        fraction with integer or bool labels, ``-inf`` in float8 e4m3), that tensor's
        padding is 0 (float8 e8m0, which has no 0: its smallest value, 2**-127).

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
        Inputs not 1-D, of different lengths, empty, or on the meta device; ``pad_value``
        past float64's range, or finite and past the range of a float tensor's dtype (1e39
        for float32); outputs larger than the device's memory (see Notes).
    TypeError
        ``indexes`` not of an integer dtype; an input missing (None), not numbers, or a
        sparse or nested tensor;
        ``pad_value`` not a real number (a bool, text, None).

    Notes
    -----
    Memory: the outputs hold ``B * L`` entries each (``B * L * (preds' + target's itemsize
    + 1)`` bytes), however short most queries are: one long query among many short ones makes
    them much larger than the inputs. Outputs past the device's memory raise ``ValueError``
    before anything is allocated.

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
    pad_value = _pad_value(pad_value)
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
    _check_padded_size(b, width, p, t)
    out_p = _padded(p, b, width, qi, pos, order, pad_value)
    out_t = _padded(t, b, width, qi, pos, order, pad_value)
    mask = torch.zeros((b, width), dtype=torch.bool, device=p.device)
    mask[qi, pos] = True
    return out_p, out_t, mask
