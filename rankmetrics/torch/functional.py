"""Tie-aware ranking metrics on torch tensors: one value per query, on the input's device.

The same metrics, names and options as the numpy core (:mod:`rankmetrics`), for the two layouts
neural learning-to-rank code uses:

* **flat** ``preds, target, indexes`` of shape ``(N,)`` (torchmetrics' retrieval convention): rows
  of a query need not be contiguous; the output follows the sorted distinct indexes
  (``torch.unique(indexes)``), like ``np.unique(qid)`` in the core. Without ``indexes`` all rows
  are one query.
* **padded** ``preds, target`` of shape ``(B, L)``, one query per row, with an optional boolean
  ``mask`` (True = a real document): the output has shape ``(B,)``.

There is no Python loop over queries. Scores are compared (sorted, tested for ties) in their own
precision (float8/float16/bfloat16 widen exactly to float32); sums run in float32, or float64
when the scores are float64 (or integers). Outputs never carry gradients.

Host synchronisations: the data checks (one sync for all of them, skipped with
``validate=False``); with flat input, one to see whether ``indexes`` are sorted and two for the
distinct indexes and the longest query (output shapes depend on them), plus one per length block
when query lengths are so skewed that one padded block would more than double the rows;
``empty="error"`` (one, to look for empty queries); a callable ``gain`` (runs on the host, as in
the core); one per gain measure whose largest gain x discount x list length could overflow
the sums' dtype (labels or weights near 1e300, or 1e36 for float32 sums; callables), to raise
the core's error. Padded input with ``validate=False`` and built-in gains runs without any
(discount tables and gain weights are copied to the device once and cached).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import Tensor

from ..core.gains import DiscountLike, GainLike, LevelGains, gain_key
from ..core.options import MetricOptions
from ..core.plan import core_metric
from ..core.validation import (
    F_AS_RECALL,
    _inexact_label_error,
    _int_range_error,
    check_k,
    check_labels,
    check_positive_real,
    check_scores,
    check_threshold,
    check_ties,
    refuse_masked,
)
from ..measures.grammar import parse_measures
from . import _kernel
from ._kernel import _INT_EXACT, _MAX_EXP_LABEL, Cutoff, Evaluator, Layout

__all__ = [
    "cg",
    "dcg",
    "ncg",
    "ndcg",
    "precision",
    "recall",
    "f1",
    "fbeta",
    "average_precision",
    "reciprocal_rank",
    "r_precision",
    "success",
    "err",
    "rbp",
    "evaluate",
]

_GAIN_METRICS = ("cg", "dcg", "ncg", "ndcg")


# ------------------------------------------------------------------------------- inputs
def readable(t: Tensor, name: str) -> Tensor:
    """``t`` itself when the kernels can read it: a dense (strided) tensor holding data.

    Raises
    ------
    TypeError
        A sparse (COO, CSR, ...) or nested tensor, which few of the kernels' operators take.
    ValueError
        A tensor on the meta device (a shape without data).
    """
    if t.is_nested:
        raise TypeError(
            f"{name} is a nested tensor; pad it (torch.nested.to_padded_tensor) and pass a "
            "mask, or pass flat rows with indexes"
        )
    if t.layout != torch.strided:
        raise TypeError(
            f"{name} is a sparse tensor ({t.layout}); pass a dense one ({name}.to_dense())"
        )
    if t.device.type == "meta":
        raise ValueError(
            f"{name} is on the meta device (a shape without data); move the tensors to a "
            "real device (cpu, cuda, ...) before computing metrics"
        )
    return t


def _tensor(x: Any, name: str, device: torch.device | None) -> Tensor:
    if isinstance(x, Tensor):
        return readable(x, name)
    if x is None:
        raise TypeError(f"{name} must be a tensor, got None")
    refuse_masked(x, name)  # np.asarray would read the masked entries' hidden values
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise TypeError(f"{name} could not be converted to a tensor: {exc}") from exc
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        # pandas' nullable Int64 with NA reads as float64 NaN: say so, not "got float64"
        raise ValueError(f"{name} has missing values (NaN or pandas NA); drop or fill their "
                         "rows first")
    try:
        if not arr.dtype.isnative:  # torch reads native byte order only
            arr = arr.astype(arr.dtype.newbyteorder("="))
        elif not arr.flags.writeable or any(st < 0 for st in arr.strides):
            # torch would share (and could write) read-only memory; it takes no negative
            # strides (a reversed array, arr[::-1])
            arr = arr.copy()
        return torch.as_tensor(arr, device=device)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise TypeError(f"{name} could not be converted to a tensor: {exc}") from exc


def scored_rows(preds: Any, target: Any) -> tuple[Tensor, Tensor]:
    """``preds`` and ``target`` as tensors, ``target`` on the device of ``preds``.

    Host data (lists, arrays) goes through the core's checks first: Python ints past int64,
    uint64, long double or Decimal scores that float64 would tie are refused, not rounded;
    complex, strings and missing values are rejected. Every entry point that takes host rows
    (the functions, and the held-back rows of ``spanning=True``) converts them here.

    Raises
    ------
    ValueError, TypeError
        What :func:`rankmetrics.core.validation.check_scores` and ``check_labels`` raise for
        host data; TypeError for None or data torch cannot take.
    """
    dev = preds.device if isinstance(preds, Tensor) else None
    if not isinstance(preds, Tensor) and preds is not None:
        preds = check_scores(preds, "preds")
    preds = _tensor(preds, "preds", dev)
    if not isinstance(target, Tensor) and target is not None:
        target = check_labels(target, "target")
    return preds, _tensor(target, "target", preds.device)


def _ranking_dtype(preds: Tensor) -> torch.dtype:
    """float64 scores (and integers, bools) rank in float64; every other float in float32
    (float16/bfloat16 widen exactly, so ties stay those of the input dtype)."""
    if preds.dtype == torch.float64 or not preds.dtype.is_floating_point:
        return torch.float64
    return torch.float32


def _check_gain_spec(gain: GainLike | None) -> None:
    """Host-side checks of level weights or a mapping (the core's messages)."""
    if gain is None:
        return
    key = gain_key(gain)
    if isinstance(key, tuple) and key[0] == "levels":
        w = np.asarray(key[1], dtype=np.float64)
        if w.size == 0 or not np.all(np.isfinite(w)) or w.min() < 0:
            raise ValueError("gain weights must be a non-empty sequence of finite numbers >= 0")
    if isinstance(key, tuple) and key[0] == "map":
        w = np.asarray([b for _, b in key[1]], dtype=np.float64)
        if not np.all(np.isfinite(w)):
            raise ValueError("gain mapping returned a non-finite gain")
        if w.size and w.min() < 0:
            raise ValueError(
                f"gain mapping returned a negative gain ({w.min():g}); gains must be >= 0"
            )


_UNSIGNED_WIDE = tuple(getattr(torch, n) for n in ("uint16", "uint32", "uint64")
                       if hasattr(torch, n))


def _is_numeric(dtype: torch.dtype) -> bool:
    return dtype.is_floating_point or dtype in (
        torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


def _widen_float8(t: Tensor) -> Tensor:
    """float8 tensors (e4m3, e5m2, e8m0, ...; few torch kernels take them) as float32, which
    holds each of their values exactly: ties stay those of the input."""
    if t.dtype.is_floating_point and t.dtype.itemsize == 1:
        return t.to(torch.float32)
    return t


def _widen_unsigned(t: Tensor, name: str, *, ids: bool = False) -> Tensor:
    """uint16/32/64 tensors (few torch kernels support them) as int64.

    Values (``ids=False``) must stay below 2**63; ids (``indexes``) are mapped in order by
    flipping the top bit, so the unsigned order (``np.unique`` of the ids) is kept.
    """
    if t.dtype not in _UNSIGNED_WIDE:
        return t
    if t.dtype == torch.uint64:
        signed = t.view(torch.int64)  # values >= 2**63 read as negative
        if ids:
            return signed ^ torch.iinfo(torch.int64).min
        if bool((signed < 0).any()):  # host sync, only for uint64 input
            raise ValueError(f"{name} has uint64 values >= 2**63; rescale them first")
        return signed
    return t.to(torch.int64)


def _check_data(preds: Tensor, labels: Tensor, real: Tensor | None, integer_target: bool,
                gains: Sequence[GainLike], wide: Tensor | None = None) -> tuple[int | None, float]:
    """Data checks with one host synchronisation; returns the largest label when the labels are
    small integers (<= 63), which lets the ideal DCG come from label counts, and the largest
    label (which bounds the gain sums: :func:`_may_overflow`).

    ``labels`` is float64 with padding already set to 0 (a valid label); the label checks of
    every gain in ``gains`` apply. ``wide``: the int64 target the labels were converted from
    (None for other dtypes), whose labels float64 would round are refused, as the core's
    :func:`~rankmetrics.core.validation.check_exact_int_labels` does.
    """
    keys = [gain_key(g) for g in gains]
    maps = [key for key in keys if isinstance(key, tuple) and key[0] == "map"]
    stats: list[Tensor] = []
    checked = preds if real is None else torch.where(real, preds, 0)
    if preds.dtype.is_floating_point or preds.dtype == torch.int64:
        stats.extend(t.to(torch.float64) for t in torch.aminmax(checked))
    stats.extend(torch.aminmax(labels))
    if not integer_target:
        stats.append((labels != torch.round(labels)).any().to(torch.float64))
    for key in maps:
        levels = torch.tensor([a for a, _ in key[1]], dtype=labels.dtype, device=labels.device)
        miss = ~torch.isin(labels, levels)
        stats.append((miss if real is None else miss & real).any().to(torch.float64))
    values = torch.stack(stats).tolist()  # the one host sync of the checks
    if preds.dtype.is_floating_point:
        p_lo, p_hi = values[:2]
        values = values[2:]
        if not (np.isfinite(p_lo) and np.isfinite(p_hi)):
            bad = checked[~torch.isfinite(checked)].reshape(-1)[0].item()
            raise ValueError(f"preds must be finite (no NaN or inf); found {bad}")
    elif preds.dtype == torch.int64:
        p_lo, p_hi = values[:2]
        values = values[2:]
        if max(abs(p_lo), abs(p_hi)) >= _INT_EXACT:
            raise _int_range_error("preds")
    l_lo, l_hi = values[0], values[1]
    if not (np.isfinite(l_lo) and np.isfinite(l_hi)):
        bad = labels[~torch.isfinite(labels)][0].item()
        raise ValueError(f"target must be finite; found {bad}")
    if l_lo < 0:
        raise ValueError(
            f"target must be non-negative graded labels; found {l_lo:g}. "
            "Map negative judgements (e.g. trec -1) to 0 first."
        )
    if wide is not None and l_hi >= _INT_EXACT:  # the cast is monotone: a label >= 2**53
        _check_exact_labels(wide, real)
    integer = integer_target or not values[2]
    for key in keys:
        _check_labels_for_gain(key, labels, integer, l_hi)
    for key, missed in zip(maps, values[len(values) - len(maps):], strict=True):
        if missed:
            lab = labels if real is None else labels[real.reshape(-1)]
            levels = torch.tensor([a for a, _ in key[1]], dtype=lab.dtype, device=lab.device)
            missing = torch.unique(lab[~torch.isin(lab, levels)])[:5].tolist()
            raise ValueError(f"gain mapping has no weight for label(s) {missing}")
    return (int(l_hi) if integer and l_hi <= 63 else None), float(l_hi)


def _check_exact_labels(wide: Tensor, real: Tensor | None) -> None:
    """Refuse int64 labels that float64 rounds (2**53 + 1 would be 2**53 and count as relevant
    at threshold 2**53 + 1), as the core's ``check_exact_int_labels``; one host sync, run only
    when a label is 2**53 or more."""
    lab = wide if real is None else torch.where(real, wide, 0)
    as_f = lab.to(torch.float64)
    below = as_f < 2.0**63
    inexact = ~below | (torch.where(below, as_f, 0.0).to(torch.int64) != lab)
    if bool(inexact.any()):
        raise _inexact_label_error("target", int(lab[inexact][0]))


def _check_labels_for_gain(key: Any, labels: Tensor, integer: bool, l_hi: float) -> None:
    """The label checks of one gain (its :func:`gain_key`): integer labels for exponential gain
    and level weights, labels in their range."""
    if key == "exponential" or (isinstance(key, tuple) and key[0] == "levels"):
        if not integer:
            bad = labels[labels != torch.round(labels)][0].item()
            why = ('with gain="exponential" (2**l - 1); use gain="linear" or weights'
                   if key == "exponential" else "to index per-level gain weights")
            raise ValueError(f"labels must be integers {why}; found {bad:g}")
        if key == "exponential" and l_hi > _MAX_EXP_LABEL:
            raise ValueError(
                f"label {l_hi:g} is too large for gain 2**l - 1 "
                f"(max {_MAX_EXP_LABEL}, where float64 gains stay exact); use gain='linear' "
                "or per-level weights"
            )
        if isinstance(key, tuple) and l_hi >= len(key[1]):
            n_w = len(key[1])
            raise ValueError(
                f"label {l_hi:g} has no gain weight: {n_w} weights given (levels 0..{n_w - 1})"
            )


def prepare(
    preds: Any,
    target: Any,
    indexes: Any = None,
    mask: Any = None,
    *,
    gains: Sequence[GainLike] = (),
    validate: bool = True,
    defer_checks: bool = False,
) -> Layout:
    """Validate the inputs and lay them out as padded rows (one per query).

    ``gains`` (:func:`gains_used`) adds their label checks (integer labels, range, known
    levels) to the single data-check synchronisation. ``defer_checks`` (the caller reads every
    value from the fused kernel: tie-averaged gain measures, linear or exponential gain): a
    padded batch of float scores that the fused kernel takes is checked by the kernel itself,
    and the caller reads the result once, after the launches (:meth:`Batch.check_now` gives
    the errors).
    """
    for gain in gains:
        _check_gain_spec(gain)
    preds, target = scored_rows(preds, target)
    dev = preds.device
    for name, t in (("indexes", indexes), ("mask", mask)):  # preds, target: scored_rows
        if isinstance(t, Tensor):
            readable(t, name)
    if target.device != dev:
        raise ValueError(
            f"target is on {target.device} but preds on {dev}; move both to one device"
        )
    preds = _widen_float8(_widen_unsigned(preds, "preds"))
    target = _widen_float8(_widen_unsigned(target, "target"))
    if not _is_numeric(preds.dtype):
        raise TypeError(f"preds must be numeric, got dtype {preds.dtype}")
    if not _is_numeric(target.dtype):
        raise TypeError(f"target must be numeric, got dtype {target.dtype}")
    if tuple(preds.shape) != tuple(target.shape):
        raise ValueError(
            "preds and target must have the same shape; "
            f"got {tuple(preds.shape)} and {tuple(target.shape)}"
        )
    if preds.ndim not in (1, 2):
        raise ValueError(
            f"preds must be 1-D (flat, with indexes) or 2-D (padded (B, L)); got {preds.ndim}-D"
        )
    if preds.numel() == 0:
        raise ValueError("preds is empty: at least one document is needed")
    rdt = _ranking_dtype(preds)
    # no graph to cut for tensors that need no gradient (each op costs host time on a GPU)
    preds = preds.detach() if preds.requires_grad else preds
    labels = target.detach() if target.requires_grad else target
    wide = labels if validate and labels.dtype == torch.int64 else None
    defer = (validate and defer_checks and preds.ndim == 2 and preds.dtype.is_floating_point
             and _kernel.fused_takes(dev, preds.shape[1]))
    if (validate and not defer) or preds.ndim != 2 or mask is not None or \
            labels.dtype == torch.bool:
        labels = labels.to(torch.float64)
    # else: a padded GPU batch keeps its labels' dtype (Batch.labels converts on first use;
    # the fused kernel reads them as they are): one launch less per call
    real: Tensor | None = None
    if preds.ndim == 2:
        if indexes is not None:
            raise ValueError(
                "indexes is for flat (N,) input; a padded (B, L) batch has one query per row "
                "(mark padding with mask)"
            )
        if mask is not None:
            mask = _tensor(mask, "mask", dev)
            if mask.dtype != torch.bool:
                raise TypeError(
                    f"mask must be a bool tensor (True = real document); got {mask.dtype}"
                )
            if tuple(mask.shape) != tuple(preds.shape):
                raise ValueError(
                    f"mask must have the shape of preds {tuple(preds.shape)}; "
                    f"got {tuple(mask.shape)}"
                )
            if mask.device != dev:
                raise ValueError(f"mask is on {mask.device} but preds on {dev}")
            real = mask
            labels = torch.where(mask, labels, 0.0)
    else:
        if mask is not None:
            raise ValueError("mask is for padded (B, L) input; flat (N,) input uses indexes")
        if indexes is not None:
            indexes = _widen_unsigned(_tensor(indexes, "indexes", dev), "indexes", ids=True)
            if indexes.dtype.is_floating_point or indexes.dtype.is_complex or \
                    indexes.dtype == torch.bool:
                raise TypeError(
                    f"indexes must be an integer tensor (e.g. torch.long); got {indexes.dtype}"
                )
            if tuple(indexes.shape) != tuple(preds.shape):
                raise ValueError(
                    f"indexes must have one entry per row ({preds.shape[0]},); "
                    f"got shape {tuple(indexes.shape)}"
                )
            if indexes.device != dev:
                raise ValueError(f"indexes is on {indexes.device} but preds on {dev}")
    label_max = None
    if defer:
        def checks(p: Tensor = preds, lab: Tensor = labels, r: Tensor | None = real,
                   integer: bool = not target.dtype.is_floating_point,
                   w: Tensor | None = wide) -> int | None:
            label_max, deferred.label_hi = _check_data(p, lab.to(torch.float64), r, integer,
                                                       gains, w)
            return label_max
        layout = _kernel.padded_layout(preds if preds.dtype == rdt else preds.to(rdt), labels,
                                       real, rdt, None)
        deferred = layout.blocks[0][1]
        deferred.defer_checks(checks)
        return layout
    label_hi = None
    if validate:
        label_max, label_hi = _check_data(preds, labels, real,
                                          not target.dtype.is_floating_point, gains, wide)
    elif dev.type == "cpu" and not target.dtype.is_floating_point:
        # no synchronisation cost on the host: small integer labels allow the ideal DCG from
        # label counts instead of a row top-k
        lo, hi = torch.aminmax(labels)
        if 0 <= lo.item() and hi.item() <= 63:
            label_max = int(hi.item())
    scores = preds if preds.dtype == rdt else preds.to(rdt)
    if preds.ndim == 2:
        layout = _kernel.padded_layout(scores, labels, real, rdt, label_max)
    elif indexes is None:
        layout = _kernel.padded_layout(scores[None, :], labels[None, :], None, rdt, label_max)
    else:
        layout = _kernel.flat_layout(scores, labels, indexes, rdt, label_max)
    for _, batch in layout.blocks:
        batch.label_hi = label_hi
    return layout


# ------------------------------------------------------------------------- metric values
Options = MetricOptions  # validated options shared with the numpy adapters


def _finish(ev: Evaluator, values: Tensor, empty_mask: Tensor, empty: float | str,
            what: str) -> Tensor:
    if empty == "error":
        if bool(empty_mask.any()):  # host sync, only for empty="error"
            rows = torch.nonzero(empty_mask.any(dim=0) if empty_mask.ndim == 2
                                 else empty_mask).reshape(-1)[:5]
            ids = rows if ev.batch.index is None else ev.batch.index[rows]
            raise ValueError(
                f"{what} is undefined for queries without relevant documents "
                f"(queries {ids.tolist()}); pass empty=0.0, 1.0 or 'skip'"
            )
        return values
    fill = torch.nan if empty == "skip" else float(empty)
    return torch.where(empty_mask, fill, values)


def _may_overflow(gain: GainLike, dkey: Any, batch: Any) -> bool:
    """Whether the gain x discount sums of ``batch`` could overflow float64 (the core's
    ValueError; float32 sums: their own), from a bound: the largest gain x the largest discount
    x the row length, against 1% of the dtype's largest value. False
    when the data was not checked (``validate=False`` trusts it), True for callables."""
    hi = batch.label_hi
    if hi is None:
        return False
    key = gain_key(gain)
    if key == "linear":
        g = hi
    elif key == "exponential":
        g = 2.0 ** min(hi, _MAX_EXP_LABEL)
    elif isinstance(key, tuple) and key[0] in ("levels", "map"):
        g = max([float(w[1]) if key[0] == "map" else float(w) for w in key[1]], default=0.0)
    else:
        return True
    if dkey is None or dkey[0] in ("none", "jarvelin2002", "jarvelin2008"):
        d = 1.0  # jarvelin: 1, then log_b(b) / log_b(i) <= 1
    elif dkey[0] == "log":
        d = max(1.0, math.log2(float(dkey[1])))  # 1 / log_b(2) at rank 1
    else:
        return True
    return g * d * max(batch.length, 1) > torch.finfo(batch.dtype).max / 100


_check_finite_sums = _kernel.check_finite_sums


def _gain_values(ev: Evaluator, mode: str, base: str, ks: Sequence[Cutoff],
                 opt: Options) -> Tensor:
    dkey = opt.dkey() if base in ("dcg", "ndcg") else None
    if mode == "average" and _kernel.fused_wanted(ev.batch):
        fill = torch.nan if opt.empty == "skip" else \
            0.0 if opt.empty == "error" else float(opt.empty)
        try:
            sums = ev.fused(opt.gain, dkey, ks, fill)
        except Exception as exc:  # noqa: BLE001 - Triton's errors have no common base class
            _kernel.fused_failed(exc)  # raises when the fused kernel was asked for
            ev.batch.check_now()  # checks left to the kernel: before the eager kernel reads
        else:
            read = (sums[0],) if base in ("cg", "dcg") else (sums[0], sums[1])
            if ev.batch._deferred is not None and ev.batch.checks is not None:
                ev.batch.check_sums_later(*read)  # the labels are not checked yet
            elif _may_overflow(opt.gain, dkey, ev.batch):
                _check_finite_sums(*read)
            if base in ("cg", "dcg"):
                return sums[0]
            if opt.empty == "error":
                return _finish(ev, sums[2], sums[1] <= 0, "error", "nDCG/nCG")
            return sums[2]
    ev.batch.check_now()
    g = ev.batch.gains(opt.gain)
    vals = ev.at(ev.cumulative(mode, "gain", gain_key(opt.gain), g, dkey), ks)
    check = _may_overflow(opt.gain, dkey, ev.batch)
    if base in ("cg", "dcg"):
        if check:
            _check_finite_sums(vals)
        return vals
    ideal = ev.ideal(opt.gain, dkey, ks)
    if check:
        _check_finite_sums(vals, ideal)
    pos = ideal > 0
    out = torch.where(pos, vals / torch.where(pos, ideal, 1.0), 0.0)
    return _finish(ev, out, ~pos, opt.empty, "nDCG/nCG")


def _ranks(r: Any) -> Any:
    """Rank i -> i: Success@k multiplies the RR terms P(first relevant at i) / i by it."""
    return r.astype("float64")


_RANKS_KEY = ("callable", _ranks)


def _binary_values(ev: Evaluator, mode: str, base: str, ks: Sequence[Cutoff],
                   opt: Options) -> Tensor:
    ev.batch.check_now()
    rel, n_rel = ev.batch.relevance(opt.threshold)
    vkey = ("rel", opt.threshold)
    dt = rel.dtype
    if base == "rprec":
        cum = ev.cumulative(mode, "rel", vkey, rel, None)
        col = (n_rel.to(torch.int64).clamp(min=1, max=cum.shape[1]) - 1)[:, None]
        sums = cum.gather(1, col).T.expand(len(ks), -1)
    elif base == "success":
        # the rr terms are P(first relevant at rank i) / i: times i they sum to
        # P(a relevant document within k), exact under tie averaging
        sums = ev.at(ev.cumulative(mode, "rr", vkey, rel, _RANKS_KEY), ks)
    else:
        kind = base if base in ("ap", "rr") else "rel"
        sums = ev.at(ev.cumulative(mode, kind, vkey, rel, None), ks)
    dt = sums.dtype
    n_docs = ev.batch.n.to(dt)
    k_eff = torch.stack([n_docs if k is None else torch.full_like(n_docs, float(k)) for k in ks])
    safe_r = torch.where(n_rel > 0, n_rel, 1.0)[None, :]
    if base == "precision":
        out = sums / k_eff
    elif base in ("recall", "rprec"):
        out = sums / safe_r
    elif base in ("fbeta", "f1"):
        b2 = 1.0 if base == "f1" else opt.beta * opt.beta
        out = (sums / safe_r if b2 > F_AS_RECALL
               else (1.0 + b2) * sums / (b2 * n_rel[None, :] + k_eff))
    elif base == "ap" and opt.denominator == "found":  # torchmetrics' AP@k, exact E[sum/d]
        from ._found import ap_found

        out = ap_found(ev, mode, list(ks), sums, rel, vkey)
    elif base == "ap":
        denom = safe_r if opt.denominator == "relevant" else torch.minimum(k_eff, safe_r)
        out = sums / denom
    else:
        out = sums
    names = {"precision": "precision", "recall": "recall", "fbeta": "F-measure",
             "f1": "F-measure", "ap": "average precision", "rr": "reciprocal rank",
             "rprec": "R-precision", "success": "success"}
    empty_mask = (n_rel == 0)[None, :].expand_as(out)
    return _finish(ev, out, empty_mask, opt.empty, names[base])


def _err_rbp_values(ev: Evaluator, mode: str, base: str, ks: Sequence[Cutoff], opt: Options,
                    m: Any) -> Tensor:
    """ERR (stop probability (2**g - 1) / 2**max_grade) or RBP (geometric discount on the
    label, the ``gains=`` table, or 0/1 relevance with ``rel=``), as the numpy core."""
    ev.batch.check_now()
    b = ev.batch
    table: GainLike = "linear" if m.gains is None else LevelGains(m.gains)
    if base == "rbp" and m.rel is not None:
        values, n_rel = b.relevance(m.rel)
        vkey: Any = ("rel", m.rel)
        none = n_rel == 0
    else:
        values = b.gains(table)
        vkey = gain_key(table)
        none = ~(values > 0).any(dim=1)
    if base == "rbp":
        pers = 0.8 if m.p is None else float(m.p)
        cum = ev.cumulative(mode, "gain", vkey, values, ("callable", _kernel.Geometric(pers)))
        if not (base == "rbp" and m.rel is not None) and _may_overflow(table, None, b):
            _check_finite_sums(cum)  # graded: the labels (or gains= weights) may overflow
        return _finish(ev, ev.at(cum, ks), none[None, :].expand(len(ks), -1), opt.empty, "RBP")
    top = 4.0 if m.max_grade is None else float(m.max_grade)
    worst = float(values.max()) if values.numel() else 0.0  # host sync
    if worst > top:
        raise ValueError(
            f"ERR: a grade {worst:g} exceeds max_grade={top:g} (the stop probability "
            "(2**g - 1) / 2**max_grade would exceed 1); pass max_grade >= the largest label"
        )
    stop = torch.exp2(values - top) - 2.0 ** -top  # as rankmetrics.core.err
    cum = torch.cumsum(_kernel.err_contributions(ev, mode, stop), dim=1)
    return _finish(ev, ev.at(cum, ks), none[None, :].expand(len(ks), -1), opt.empty, "ERR")


class Parsed(NamedTuple):
    """One measure of a call: output name, core metric, cutoff and its own option overrides."""

    name: str
    base: str
    k: Cutoff
    over: dict[str, Any]
    ties: str | None


def parse_names(metrics: Any) -> list[Parsed]:
    """``["ndcg@10", "P(rel=2)@5", rankmetrics.measures.AP]`` -> one :class:`Parsed` each,
    through the one measure grammar (:mod:`rankmetrics.measures.grammar`).

    Names given as a string or a list/tuple of strings are parsed once per process (a GPU call
    is host-bound: parsing cost as much as the kernel); the :class:`Parsed` entries are shared
    and read-only.
    """
    if isinstance(metrics, str):
        return list(_parse_cached(metrics))
    if type(metrics) in (list, tuple) and all(type(m) is str for m in metrics):
        return list(_parse_cached(tuple(metrics)))
    return _parse_names(metrics)


@functools.lru_cache(maxsize=256)
def _parse_cached(metrics: str | tuple[str, ...]) -> tuple[Parsed, ...]:
    return tuple(_parse_names(metrics))


def _parse_names(metrics: Any) -> list[Parsed]:
    out = []
    for m in parse_measures(metrics):
        base = core_metric(m)
        if m.ties is not None:
            check_ties(m.ties)
        over: dict[str, Any] = {}
        if m.gains is not None:
            over["gain"] = LevelGains(m.gains)
        elif m.gain is not None:
            over["gain"] = m.gain
        if m.discount is not None:
            over["discount"] = m.discount
        if m.log_base is not None:
            over["log_base"] = m.log_base
        if m.rel is not None:
            over["threshold"] = m.rel
        if m.kind == "setf":  # trec_eval's set_F.x: beta^2 = x
            over["beta"] = math.sqrt(1.0 if m.beta is None else m.beta)
        elif m.beta is not None:
            over["beta"] = m.beta
        if m.empty is not None:
            over["empty"] = m.empty
        if m.denominator is not None:
            over["denominator"] = m.denominator
        if base in ("err", "rbp"):  # their own parameters, read by _err_rbp_values
            over = {"empty": m.empty} if m.empty is not None else {}
            over["_measure"] = m
        k = None if base == "rprec" else m.k
        out.append(Parsed(m.name, base, k, over, m.ties))
    return out


def gains_used(parsed: Sequence[Parsed], gain: GainLike) -> tuple[GainLike, ...]:
    """The distinct gains of the gain measures in ``parsed``: ``gain`` (the call's) or a
    measure's own ``gain=`` / ``gains=``, each of whose label checks apply (as in the core)."""
    out: list[GainLike] = []
    for p in parsed:
        if p.base in _GAIN_METRICS:
            g = p.over.get("gain", gain)
            if all(gain_key(g) != gain_key(h) for h in out):
                out.append(g)
    return tuple(out)


def width_for(parsed: Sequence[Parsed], extra: Sequence[Cutoff], length: int) -> int:
    ks = [p.k for p in parsed] + list(extra)
    if any(k is None for k in ks):
        return length
    return min(length, max(k for k in ks if k is not None))


_OPTIONS: dict[tuple[Any, ...], Options] = {}  # validated options by (name, type, value)


def cached_options(**kwargs: Any) -> Options:
    """``Options(**kwargs)``, validated once per process for hashable values (the validation
    is a sizeable part of a GPU call's host time); the instances are shared and read-only.
    Values are keyed with their type, so ``1``, ``1.0`` and ``True`` are validated apart; at
    most 256 entries are kept.

    Raises
    ------
    ValueError, TypeError
        What :class:`~rankmetrics.core.options.MetricOptions` raises for the values (never
        cached: an invalid value is rejected on every call).
    """
    try:
        key = tuple(sorted((name, type(v), v) for name, v in kwargs.items()))
        hit = _OPTIONS.get(key)
    except TypeError:  # an unhashable value (a list of weights, an array): no cache
        return Options(**kwargs)
    if hit is None:
        hit = Options(**kwargs)
        if len(_OPTIONS) >= 256:
            _OPTIONS.clear()
        _OPTIONS[key] = hit
    return hit


def _effective(opt: Options, over: dict[str, Any]) -> Options:
    over = {key: v for key, v in over.items() if not key.startswith("_")}
    if not over:
        return opt
    return cached_options(**{"gain": opt.gain, "discount": opt.discount,
                             "log_base": opt.log_base, "threshold": opt.threshold,
                             "beta": opt.beta, "empty": opt.empty,
                             "denominator": opt.denominator, **over})


def compute_values(ev: Evaluator, parsed: Sequence[Parsed], modes: Sequence[str],
                   opt: Options) -> dict[tuple[int, str], Tensor]:
    """Per-query values of every (position in ``modes``, metric name): shape (Q,), compute
    dtype.

    A measure with its own ``ties=`` uses it in place of the first (main) mode; the other
    positions (the bounds) take their mode as given, even when it is the main one.
    """
    groups: dict[Any, list[int]] = {}
    opts: dict[Any, Options] = {}
    measure_of: dict[Any, Any] = {}
    for i, p in enumerate(parsed):
        o = _effective(opt, p.over)
        key: tuple[Any, ...]
        if p.base in ("err", "rbp"):
            m = p.over["_measure"]
            key = (p.base, p.ties, m.max_grade, m.p, m.rel, m.gains, repr(o.empty))
            groups.setdefault(key, []).append(i)
            opts[key] = o
            measure_of[key] = m
            continue
        key = (p.base, p.ties, gain_key(o.gain), o.dkey(), o.threshold, o.beta, repr(o.empty),
               o.denominator)
        groups.setdefault(key, []).append(i)
        opts[key] = o
    out: dict[tuple[int, str], Tensor] = {}
    for pos, mode in enumerate(modes):
        for key, idx in groups.items():
            base, own = key[0], key[1]
            use = own if own is not None and pos == 0 else mode
            if pos > 0 and use == modes[0] and own is None:  # the main values again
                for i in idx:
                    out[(pos, parsed[i].name)] = out[(0, parsed[i].name)]
                continue
            ks = [parsed[i].k for i in idx]
            if base in ("err", "rbp"):
                vals = _err_rbp_values(ev, use, base, ks, opts[key], measure_of[key])
            elif base in _GAIN_METRICS:
                vals = _gain_values(ev, use, base, ks, opts[key])
            else:
                vals = _binary_values(ev, use, base, ks, opts[key])
            for j, i in enumerate(idx):
                out[(pos, parsed[i].name)] = vals[j]
    return out


def evaluate_layout(
    layout: Layout,
    parsed: Sequence[Parsed],
    modes: Sequence[str],
    opt: Options,
    tied: Sequence[Cutoff] = (),
) -> tuple[dict[tuple[int, str], Tensor], dict[Cutoff, Tensor]]:
    """Values of every (position in ``modes``, metric) and tie flags per cutoff in ``tied``,
    all of shape (Q,)."""
    if len(layout.blocks) == 1 and layout.blocks[0][0] is None:
        batch = layout.blocks[0][1]
        ev = Evaluator(batch, width_for(parsed, tied, batch.length))
        return (compute_values(ev, parsed, modes, opt), {k: ev.tied(k) for k in tied})
    values: dict[tuple[int, str], Tensor] = {}
    flags: dict[Cutoff, Tensor] = {}
    for where, batch in layout.blocks:
        ev = Evaluator(batch, width_for(parsed, tied, batch.length))
        part = compute_values(ev, parsed, modes, opt)
        for key, v in part.items():
            if key not in values:
                values[key] = v.new_empty(layout.n_queries)
            values[key][where] = v
        for k in tied:
            if k not in flags:
                flags[k] = torch.zeros(layout.n_queries, dtype=torch.bool, device=v.device)
            flags[k][where] = ev.tied(k)
    return values, flags


def _run(preds: Any, target: Any, indexes: Any, mask: Any, metrics: Any,
         ties: str, validate: bool, **options: Any) -> dict[str, Tensor]:
    check_ties(ties)
    parsed = parse_names(metrics)
    opt = cached_options(**options)
    if any(p.base in ("dcg", "ndcg") for p in parsed):
        opt.dkey()  # validate discount / log_base before touching data
    # every value from the fused kernel: it can check the data too (one sync, no launches)
    fused_only = (ties == "average" and opt.empty != "error"
                  and gain_key(opt.gain) in ("linear", "exponential")
                  and all(p.base in _GAIN_METRICS and p.ties is None and not p.over
                          for p in parsed))
    with torch.no_grad():
        layout = prepare(preds, target, indexes, mask, gains=gains_used(parsed, opt.gain),
                         validate=validate, defer_checks=fused_only)
        vals, _ = evaluate_layout(layout, parsed, (ties,), opt)
        for _, batch in layout.blocks:
            batch.check_now(read_kernel=True)
    return {p.name: vals[(0, p.name)] for p in parsed}


def _one(name: str, preds: Any, target: Any, indexes: Any, mask: Any, k: Any, ties: str,
         validate: bool, **options: Any) -> Tensor:
    k = check_k(k)
    metric = name if k is None else f"{name}@{k}"
    return _run(preds, target, indexes, mask, metric, ties, validate, **options)[metric]


# ------------------------------------------------------------------------------ docs
_PARAMS = {
    "inputs": """preds : Tensor of shape (N,) or (B, L)
        Model scores (float8/float16/bfloat16/float32/float64, int or bool); a higher score
        ranks first.
        Ties are detected in the scores' own precision. Gradients are not tracked.
    target : Tensor of the shape of ``preds``
        Graded relevance labels >= 0 (int, float or bool), on the device of ``preds``.
    indexes : Tensor of int of shape (N,), optional
        Flat input only: the query of each row (torchmetrics' convention; rows of a query need
        not be contiguous). None: all rows are one query.""",
    "mask": """mask : Tensor of bool of shape (B, L), optional
        Padded input only: True for real documents, False for padding (whose preds and target
        are ignored). None: every entry is a document. A row with no True entry is still a
        query: one without relevant documents (its ``empty`` value; counted by
        ``RankingMetric`` / ``RankingMonitor``); drop such rows to leave them out.""",
    "k": """k : int >= 1, optional
        Cutoff: only ranks 1..k count. None (default) is the whole list.""",
    "gain": """gain : {"exponential", "linear"}, sequence, mapping or callable
        Default "exponential" (2**l - 1, integer labels 0..53); "linear" is l; a sequence w
        gives w[l] for integer levels; a mapping {label: weight}; a callable gets the labels as
        a float64 numpy array, as in :func:`rankmetrics.dcg` (it runs on the host).""",
    "discount": """discount : {"log", "jarvelin2002", "jarvelin2008", "none"} or callable
        Default "log" (1/log_b(i+1)); see :func:`rankmetrics.dcg`. A callable gets 1-based int
        ranks as numpy (the table is built on the host once per call and moved to the device).
    log_base : float > 1, default 2
        The base b of the logarithm.""",
    "ties": """ties : {"average", "optimistic", "pessimistic", "stable"}, default "average"
        "average": the exact mean over every ordering of tied scores (McSherry & Najork 2008);
        "optimistic"/"pessimistic": the best/worst such ordering; "stable": input order within
        ties (LightGBM/XGBoost).""",
    "threshold": """threshold : float, default 1
        A document is relevant when its label is >= threshold.""",
    "empty": """empty : float, "skip" or "error", default 0.0
        Value of a query without relevant documents (nDCG/nCG: zero ideal gain up to k);
        "skip" gives NaN for it (``torch.nanmean`` leaves it out); "error" raises ValueError.""",
    "validate": """validate : bool, default True
        Check the data (finite scores, labels >= 0, integer labels for exponential gain, ...),
        which costs one host synchronisation (CG/DCG/nCG/nDCG of a padded batch on the fused
        GPU kernel: the kernel checks the data as it reads it, and the error, if any, is
        raised after it ran). False trusts the data.""",
    "returns": """Returns
    -------
    Tensor of shape (n_queries,)
        float64 for float64 (or integer) preds, float32 otherwise, on the device of ``preds``.
        Flat input: one value per distinct index, in ``torch.unique(indexes)`` order; padded
        input: one per row.""",
    "raises": """Raises
    ------
    ValueError
        Mismatched shapes or devices, tensors on the meta device, empty input, NaN/inf
        scores, negative labels, non-integer labels with exponential gain or level weights,
        gain x discount sums that overflow float64 (as the core), k <= 0, unknown names of
        gain/discount/ties, an empty query when ``empty="error"``.
    TypeError
        Non-numeric input, sparse or nested tensors, non-integer ``indexes``, a non-bool
        ``mask``, a non-int cutoff.""",
}


def _doc(text: str) -> Any:
    def deco(fn: Any) -> Any:
        fn.__doc__ = text.format(**_PARAMS)
        return fn

    return deco


# ------------------------------------------------------------------------ public functions
@_doc("""Cumulated gain at k per query (Järvelin & Kekäläinen 2002, eq. 1), tie-averaged.

    Torch mirror of :func:`rankmetrics.cg`.

    Parameters
    ----------
    {inputs}
    {mask}
    {k}
    {gain}
    {ties}
    {validate}

    {returns}
        Units of gain.

    {raises}

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import cg
    >>> cg(torch.tensor([0.9, 0.5, 0.5]), torch.tensor([3, 2, 0]), k=2, gain="linear")
    tensor([4.])
    """)
def cg(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None, k: int | None = None,
       gain: GainLike = "exponential", ties: str = "average", validate: bool = True) -> Tensor:
    return _one("cg", preds, target, indexes, mask, k, ties, validate, gain=gain)


@_doc("""Discounted cumulated gain at k per query, exact under tied scores.

    Torch mirror of :func:`rankmetrics.dcg`: DCG@k = sum_(i<=k) G(l_i) D(i); with
    ties="average" every position of a tie group gets the group's mean gain (McSherry & Najork
    2008, Sec. 2.6).

    Parameters
    ----------
    {inputs}
    {mask}
    {k}
    {gain}
    {discount}
    {ties}
    {validate}

    {returns}
        Units of gain.

    {raises}

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import dcg
    >>> dcg(torch.tensor([1.0, 1.0, 1.0]), torch.tensor([2, 0, 0]), k=1)   # mean of 3, 0, 0
    tensor([1.])
    """)
def dcg(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None, k: int | None = None,
        gain: GainLike = "exponential", discount: DiscountLike = "log", log_base: float = 2,
        ties: str = "average", validate: bool = True) -> Tensor:
    return _one("dcg", preds, target, indexes, mask, k, ties, validate, gain=gain,
                discount=discount, log_base=log_base)


@_doc("""Normalised cumulated gain at k per query: CG@k / ideal CG@k (JK 2002, eq. 5).

    Torch mirror of :func:`rankmetrics.ncg`; the ideal uses every document of the query.

    Parameters
    ----------
    {inputs}
    {mask}
    {k}
    {gain}
    {ties}
    {empty}
    {validate}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import ncg
    >>> ncg(torch.tensor([0.9, 0.1, 0.5]), torch.tensor([0, 3, 1]), k=2, gain="linear")
    tensor([0.2500])
    """)
def ncg(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None, k: int | None = None,
        gain: GainLike = "exponential", ties: str = "average", empty: float | str = 0.0,
        validate: bool = True) -> Tensor:
    return _one("ncg", preds, target, indexes, mask, k, ties, validate, gain=gain, empty=empty)


@_doc("""Normalised discounted cumulated gain at k per query, exact under tied scores.

    Torch mirror of :func:`rankmetrics.ndcg`: DCG@k over the DCG@k of the ideal ordering of
    every document of the query (JK 2002, eq. 4-5; ties do not change the ideal).

    Parameters
    ----------
    {inputs}
    {mask}
    {k}
    {gain}
    {discount}
    {ties}
    {empty}
    {validate}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    Flat input with ``indexes`` (two queries; the first has three tied documents):

    >>> import torch
    >>> from rankmetrics.torch import ndcg
    >>> preds = torch.tensor([1.0, 1.0, 1.0, 0.2, 0.7], dtype=torch.float64)
    >>> target = torch.tensor([2, 0, 0, 1, 0])
    >>> indexes = torch.tensor([7, 7, 7, 9, 9])
    >>> ndcg(preds, target, indexes, k=1)
    tensor([0.3333, 0.0000], dtype=torch.float64)

    Padded ``(B, L)`` input, the second row holding two documents:

    >>> preds = torch.tensor([[0.1, 0.2, 0.3], [0.5, 0.5, 0.0]])
    >>> target = torch.tensor([[3, 2, 0], [0, 1, 0]])
    >>> mask = torch.tensor([[True, True, True], [True, True, False]])
    >>> ndcg(preds, target, mask=mask)
    tensor([0.6064, 0.8155])
    """)
def ndcg(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None,
         k: int | None = None, gain: GainLike = "exponential", discount: DiscountLike = "log",
         log_base: float = 2, ties: str = "average", empty: float | str = 0.0,
         validate: bool = True) -> Tensor:
    return _one("ndcg", preds, target, indexes, mask, k, ties, validate, gain=gain,
                discount=discount, log_base=log_base, empty=empty)


@_doc("""Precision at k per query: expected relevant documents in the top k, divided by k.

    Torch mirror of :func:`rankmetrics.precision` (McSherry & Najork 2008, Sec. 2.1); the
    divisor is k even for shorter lists (trec_eval); k=None uses the list length.

    Parameters
    ----------
    {inputs}
    {mask}
    {k}
    {threshold}
    {ties}
    {empty}
    {validate}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import precision
    >>> precision(torch.tensor([0.9, 0.5, 0.5, 0.5]), torch.tensor([1, 0, 1, 0]), k=2)
    tensor([0.6667])
    """)
def precision(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None,
              k: int | None = None, threshold: float = 1, ties: str = "average",
              empty: float | str = 0.0, validate: bool = True) -> Tensor:
    return _one("precision", preds, target, indexes, mask, k, ties, validate,
                threshold=threshold, empty=empty)


@_doc("""Recall at k per query: expected relevant documents in the top k over all relevant ones.

    Torch mirror of :func:`rankmetrics.recall` (McSherry & Najork 2008, Sec. 2.2).

    Parameters
    ----------
    {inputs}
    {mask}
    {k}
    {threshold}
    {ties}
    {empty}
    {validate}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import recall
    >>> recall(torch.tensor([0.9, 0.5, 0.5, 0.5]), torch.tensor([1, 0, 1, 0]), k=2)
    tensor([0.6667])
    """)
def recall(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None,
           k: int | None = None, threshold: float = 1, ties: str = "average",
           empty: float | str = 0.0, validate: bool = True) -> Tensor:
    return _one("recall", preds, target, indexes, mask, k, ties, validate,
                threshold=threshold, empty=empty)


@_doc("""F-beta at k per query: (1 + beta^2) c / (beta^2 R + k).

    Torch mirror of :func:`rankmetrics.fbeta`; c is the expected number of relevant documents
    in the top k, R the relevant documents of the query.

    Parameters
    ----------
    {inputs}
    {mask}
    beta : float > 0, default 1.0
        Weight of recall relative to precision.
    {k}
    {threshold}
    {ties}
    {empty}
    {validate}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import fbeta
    >>> fbeta(torch.tensor([3.0, 2.0, 1.0]), torch.tensor([1, 0, 1]), k=1, beta=2.0)
    tensor([0.5556])
    """)
def fbeta(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None, beta: float = 1.0,
          k: int | None = None, threshold: float = 1, ties: str = "average",
          empty: float | str = 0.0, validate: bool = True) -> Tensor:
    return _one("fbeta", preds, target, indexes, mask, k, ties, validate, beta=beta,
                threshold=threshold, empty=empty)


@_doc("""F1 at k per query: 2 c / (R + k) (McSherry & Najork 2008, Sec. 2.3).

    Torch mirror of :func:`rankmetrics.f1`.

    Parameters
    ----------
    {inputs}
    {mask}
    {k}
    {threshold}
    {ties}
    {empty}
    {validate}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import f1
    >>> f1(torch.tensor([3.0, 2.0, 1.0]), torch.tensor([1, 0, 1]), k=2)
    tensor([0.5000])
    """)
def f1(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None, k: int | None = None,
       threshold: float = 1, ties: str = "average", empty: float | str = 0.0,
       validate: bool = True) -> Tensor:
    return _one("f1", preds, target, indexes, mask, k, ties, validate, threshold=threshold,
                empty=empty)


@_doc("""Average precision (at k) per query, exact under tied scores.

    Torch mirror of :func:`rankmetrics.average_precision`: position j of tie group i adds
    (r_i/n_i) (R_i + 1 + (j - t_i - 1)(r_i - 1)/(n_i - 1)) / j (McSherry & Najork 2008,
    Sec. 2.4), divided by d.

    Parameters
    ----------
    {inputs}
    {mask}
    {k}
    {threshold}
    {ties}
    {empty}
    denominator : {{"relevant", "min_k_relevant", "found"}}, default "relevant"
        d = R (trec_eval), min(k, R) (AP@k of the lecture slides), or "found": the relevant
        documents in the top k (torchmetrics' ``retrieval_average_precision(preds, target,
        top_k=k)`` on positive scores: torchmetrics >= 1.8 counts no document scored <= 0
        relevant; 0 when none is found; exact E[sum / d] under ties, see
        :mod:`rankmetrics.core.found`).
    {validate}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import average_precision
    >>> average_precision(torch.tensor([1.0, 1.0, 1.0]), torch.tensor([1, 1, 0]))
    tensor([0.8056])
    """)
def average_precision(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None,
                      k: int | None = None, threshold: float = 1, ties: str = "average",
                      empty: float | str = 0.0, denominator: str = "relevant",
                      validate: bool = True) -> Tensor:
    return _one("ap", preds, target, indexes, mask, k, ties, validate, threshold=threshold,
                empty=empty, denominator=denominator)


@_doc("""Reciprocal rank (at k) per query: 1 / rank of the first relevant document, 0 if none.

    Torch mirror of :func:`rankmetrics.reciprocal_rank`: with ties, the expectation over the
    orderings of the first tie group holding a relevant document (McSherry & Najork 2008,
    Sec. 2.5, with the difference of adjacent f(x, r, n)).

    Parameters
    ----------
    {inputs}
    {mask}
    {k}
    {threshold}
    {ties}
    {empty}
    {validate}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import reciprocal_rank
    >>> reciprocal_rank(torch.tensor([2.0, 2.0, 2.0]), torch.tensor([1, 1, 0]))
    tensor([0.8333])
    """)
def reciprocal_rank(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None,
                    k: int | None = None, threshold: float = 1, ties: str = "average",
                    empty: float | str = 0.0, validate: bool = True) -> Tensor:
    return _one("rr", preds, target, indexes, mask, k, ties, validate, threshold=threshold,
                empty=empty)


@_doc("""R-precision per query: expected relevant documents in ranks 1..R, divided by R.

    Torch mirror of :func:`rankmetrics.r_precision` (R = relevant documents of the query; the
    expected count at rank R is exact under tie averaging).

    Parameters
    ----------
    {inputs}
    {mask}
    {threshold}
    {ties}
    {empty}
    {validate}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import r_precision
    >>> r_precision(torch.tensor([0.9, 0.5, 0.5, 0.1]), torch.tensor([1, 0, 1, 0]))
    tensor([0.7500])
    """)
def r_precision(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None,
                threshold: float = 1, ties: str = "average", empty: float | str = 0.0,
                validate: bool = True) -> Tensor:
    return _one("rprec", preds, target, indexes, mask, None, ties, validate,
                threshold=threshold, empty=empty)


@_doc("""Success at k per query: 1 if a relevant document is within the top k (its probability
    over tied orderings).

    Torch mirror of :func:`rankmetrics.success`: the reciprocal-rank terms times their rank,
    summed to k.

    Parameters
    ----------
    {inputs}
    {mask}
    {k}
    {threshold}
    {ties}
    {empty}
    {validate}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import success
    >>> success(torch.tensor([0.9, 0.5, 0.5]), torch.tensor([0, 1, 0]), k=2)
    tensor([0.5000])
    """)
def success(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None,
            k: int | None = None, threshold: float = 1, ties: str = "average",
            empty: float | str = 0.0, validate: bool = True) -> Tensor:
    return _one("Success", preds, target, indexes, mask, k, ties, validate,
                threshold=threshold, empty=empty)


@_doc("""Expected reciprocal rank (at k) per query (Chapelle et al. 2009, eq. 4), exact under
    tied scores.

    Torch mirror of :func:`rankmetrics.err`: stop probability R = (2**g - 1) / 2**max_grade;
    with ties="average" the probability of stopping at the j-th position of a tie group is the
    difference of adjacent elementary symmetric means of the group's 1 - R (see
    :mod:`rankmetrics.core.err`).

    Parameters
    ----------
    {inputs}
    {mask}
    {k}
    max_grade : float > 0, default 4
        g_max (gdeval's, as ir_measures' ``ERR@k``); a label above it raises ValueError.
    {ties}
    {empty}
    {validate}

    {returns}
        In [0, 1].

    {raises}

    References
    ----------
    O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected reciprocal rank for graded
    relevance", CIKM 2009, eq. 4.

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import err
    >>> err(torch.tensor([0.5, 0.5]), torch.tensor([1, 0]), max_grade=1)
    tensor([0.3750])
    """)
def err(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None,
        k: int | None = None, max_grade: float = 4, ties: str = "average",
        empty: float | str = 0.0, validate: bool = True) -> Tensor:
    # the core's checks first: float() would take True, "3" or a tensor
    name = f"ERR(max_grade={check_positive_real('max_grade', max_grade)!r})"
    return _one(name, preds, target, indexes, mask, k, ties, validate, empty=empty)


@_doc("""Rank-biased precision (at k) per query (Moffat & Zobel 2008), exact under tied scores.

    Torch mirror of :func:`rankmetrics.rbp`: (1 - p) sum_i r_i p**(i - 1), r the label itself
    (graded, as ir_measures / trectools and ranx) or 0/1 relevance when ``threshold`` is given.

    Parameters
    ----------
    {inputs}
    {mask}
    p : float in (0, 1), default 0.8
        The persistence.
    {k}
    threshold : float, optional
        Binary RBP with this relevance threshold; None: graded.
    {ties}
    {empty}
    {validate}

    {returns}
        In [0, 1] for labels in [0, 1].

    {raises}

    References
    ----------
    A. Moffat and J. Zobel, "Rank-biased precision for measurement of retrieval
    effectiveness", ACM TOIS 27(1), 2008.

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import rbp
    >>> rbp(torch.tensor([1.0, 1.0]), torch.tensor([1, 0]), p=0.5)
    tensor([0.3750])
    """)
def rbp(preds: Any, target: Any, indexes: Any = None, *, mask: Any = None, p: float = 0.8,
        k: int | None = None, threshold: float | None = None, ties: str = "average",
        empty: float | str = 0.0, validate: bool = True) -> Tensor:
    p = check_positive_real("p", p)  # the core's checks (np.float32 too, not True or "1")
    if not p < 1.0:
        raise ValueError(f"p (RBP persistence) must be in (0, 1); got {p!r}")
    if threshold is not None and check_threshold(threshold) <= 0:
        raise ValueError(f"threshold must be > 0 for the torch rbp (it reads the measure "
                         f"language's rel=, where labels <= 0 are never relevant); got "
                         f"{threshold!r}")
    inner = f"p={p!r}" + ("" if threshold is None else f", rel={float(threshold)!r}")
    return _one(f"RBP({inner})", preds, target, indexes, mask, k, ties, validate, empty=empty)


def evaluate(
    preds: Any,
    target: Any,
    indexes: Any = None,
    *,
    mask: Any = None,
    metrics: Any,
    ties: str = "average",
    gain: GainLike = "exponential",
    discount: DiscountLike = "log",
    log_base: float = 2,
    threshold: float = 1,
    beta: float = 1.0,
    empty: float | str = 0.0,
    denominator: str = "relevant",
    validate: bool = True,
) -> dict[str, Tensor]:
    """Several metrics from one ranking of ``preds`` (scores are ordered once).

    Torch mirror of :meth:`rankmetrics.QueryPlan.evaluate`.

    Parameters
    ----------
    preds, target, indexes, mask
        As in :func:`ndcg`: flat ``(N,)`` with ``indexes``, or padded ``(B, L)`` with ``mask``.
    metrics : str, measure object or iterable of them
        Names of the measure language, as in :meth:`rankmetrics.QueryPlan.evaluate`:
        ``"ndcg@10"``, ``"nDCG@10"``, ``"P(rel=2)@5"``, ``"R@100"``, ``"map"``, ``"AP@100"``,
        ``"mrr"``, ``"RR"``, ``"Rprec"``, ``"Success@10"``, ``"SetF(beta=0.5)"``,
        ``"ndcg_cut.10"``, ... (case-insensitive; parameters in a name override the keyword
        options for that measure).
    ties, gain, discount, log_base, threshold, beta, empty, denominator, validate
        As in the per-metric functions; shared by all metrics of the call. ERR and RBP read
        none of ``gain``, ``discount``, ``log_base``, ``threshold``: their grades come from
        their own parameters (binary RBP is ``RBP(rel=2)``, not ``threshold=2``); SetF reads
        its own ``beta=`` only.

    Returns
    -------
    dict of str to Tensor
        Metric name as given -> per-query values, shape (n_queries,), as in :func:`ndcg`.

    Raises
    ------
    ValueError
        Unknown metric names, bad cutoffs, or any input error of the metrics.

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import evaluate
    >>> out = evaluate(torch.tensor([[2.0, 2.0, 1.0]]), torch.tensor([[1, 0, 1]]),
    ...                metrics=["ndcg@1", "p@2", "mrr"])
    >>> {name: round(v.item(), 4) for name, v in out.items()}
    {'ndcg@1': 0.5, 'p@2': 0.5, 'mrr': 0.75}
    """
    return _run(preds, target, indexes, mask, metrics, ties, validate, gain=gain,
                discount=discount, log_base=log_base, threshold=threshold, beta=beta,
                empty=empty, denominator=denominator)
