"""The torch ranking kernel: a padded ``(n_queries, L)`` layout, top-``W`` selection, tie groups.

This mirrors :mod:`rankmetrics.core.kernel` and :mod:`rankmetrics.core.contributions` on tensors.

Layout
------
Every query is a row of a padded matrix: padded input is used as it is (``mask`` marks real
documents); flat ``preds, target, indexes`` input is grouped by index (one sort of the indexes,
skipped when they are already non-decreasing) and scattered into rows of length ``L`` = the
longest query. Padding gets the score ``-inf`` (never equal to a finite score) and gain 0.

Ranking
-------
Only the first ``W`` positions are ever read (``W = max k``, or ``L`` for a whole-list metric).
``torch.topk`` gives the top ``W`` scores of every row in order; every tie group that lies inside
the top ``W`` is then complete, and only the group of the ``W``-th score (the *tail* group) may
continue past ``W``: its size and value sums are read from the full row with one comparison
``scores == T`` (McSherry & Najork 2008 need nothing past the group that holds the cutoff).
``ties="stable"`` sorts the whole row stably (input order within ties, as LightGBM).

Metrics
-------
Per position ``p < W`` the contribution is the one of
:mod:`rankmetrics.core.contributions` (tie-group mean gain or relevance; the AP and RR terms
of McSherry & Najork 2008, Sec. 2.4-2.5); a metric at cutoff ``k`` is the prefix sum up to ``k``.
"optimistic"/"pessimistic" put larger/smaller keys first
inside every tie group (two stable row sorts; the tail group's keys come from a row ``topk``).

Everything here trusts its inputs; :mod:`rankmetrics.torch.functional` validates them.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from ..core.gains import GainLike, apply_gain, discount_table, gain_key

Cutoff = int | None

_MAX_EXP_LABEL = 53  # as rankmetrics.core.gains (exact gains, sums cannot overflow)
_INT_EXACT = 2**53

FUSED_MAX_LENGTH = 2048  # longest row for the fused Triton kernel (measured: bench_torch.py)
_FUSED_ENV = "RANKMETRICS_TORCH_KERNEL"


# ------------------------------------------------------------------------------ batch layout
@dataclass
class Batch:
    """Queries laid out as padded rows (one block of a :class:`Layout`).

    ``labels`` is the flat float64 label vector of the block's input rows (grouped by query for
    flat input; the flattened ``(B, L)`` matrix, padding set to 0, for padded input) and ``lin``
    maps it into the flattened padded layout (None: identity).

    ``valid``, ``n`` and ``labels`` may be built on first use (padded input without a mask: a
    GPU call is host-bound, and the fused kernel needs none of the three tensors): ``_valid``
    and ``_n`` None, ``_labels`` the (Q, L) labels in their input dtype.
    """

    scores: Tensor  # (Q, L) float32/float64, padding -inf
    _valid: Tensor | None  # (Q, L) bool; None: every entry is a document
    _n: Tensor | None  # (Q,) int64 documents per query; None: L each
    _labels: Tensor  # (M,) float64, or (Q, L) input labels (any numeric dtype) until first use
    label_valid: Tensor | None  # (M,) bool real rows (padded input), None = all real
    lin: Tensor | None  # (M,) int64 index into the flattened (Q * L) layout; None = identity
    row_query: Tensor | None  # (M,) int64 query (row of the block) of each label; None = lin // L
    index: Tensor | None  # (Q,) the queries' index values (flat input), None for padded input
    dtype: torch.dtype  # compute dtype: float32 or float64
    label_max: int | None = None  # largest label when known to be a small integer (<= 63)
    label_hi: float | None = None  # largest label once checked (None: not checked)
    _cache: dict[Any, Tensor] = field(default_factory=dict, repr=False)
    #: the data checks left to the fused kernel (:meth:`defer_checks`), and their flags
    _deferred: Callable[[], int | None] | None = field(default=None, repr=False)
    checks: Tensor | None = field(default=None, repr=False)
    #: fused-kernel sums read before the deferred checks ran: checked for overflow with them
    _unchecked_sums: list[Tensor] = field(default_factory=list, repr=False)

    def defer_checks(self, run: Callable[[], int | None]) -> None:
        """Leave the data checks to the fused kernel: ``run`` (the host checks, which raise
        the errors and return the largest small-integer label) runs only when the kernel
        flags a problem, or before any other kernel reads the data (:meth:`check_now`)."""
        self._deferred = run
        self.checks = torch.zeros(1, dtype=torch.int32, device=self.scores.device)

    def check_now(self, read_kernel: bool = False) -> None:
        """Run the deferred checks, if any: at once, or, with ``read_kernel`` (every value came
        from the fused kernel, which checked the data as it read it), only when the kernel's
        flags (one host synchronisation) show a problem. Raises the checks' ValueError."""
        run = self._deferred
        if run is None:
            return
        if read_kernel and self.checks is not None and not int(self.checks.item()):
            self._deferred = None
            return
        self._deferred = None
        self.label_max = run()
        sums, self._unchecked_sums = self._unchecked_sums, []
        check_finite_sums(*sums)

    def check_sums_later(self, *sums: Tensor) -> None:
        """Fused sums read while the data checks wait for the kernel's flags: the kernel flags
        a sum that is not finite (flag 8; no launch, no sync here), and :meth:`check_now` then
        checks these sums after the data checks, raising the overflow error.

        ``sums``: (n_cutoffs, Q) tensors of the compute dtype (float32 or float64), DCG or CG
        and ideal DCG (JK 2002, eqs. 2 and 4), kept by reference (no copy).
        """
        self._unchecked_sums.extend(sums)

    @property
    def valid(self) -> Tensor:
        """(Q, L) bool: the real documents."""
        if self._valid is None:
            self._valid = torch.ones(self.scores.shape, dtype=torch.bool,
                                     device=self.scores.device)
        return self._valid

    @property
    def n(self) -> Tensor:
        """(Q,) int64: documents per query."""
        if self._n is None:
            q, length = self.scores.shape
            self._n = torch.full((q,), length, dtype=torch.int64, device=self.scores.device)
        return self._n

    @property
    def labels(self) -> Tensor:
        """(M,) float64 labels."""
        if self._labels.dtype != torch.float64 or self._labels.ndim != 1:
            self._labels = self._labels.reshape(-1).to(torch.float64)
        return self._labels

    @property
    def input_labels(self) -> Tensor:
        """The labels as they came in: (M,), or (Q, L) for padded input without a mask, in
        their input dtype (flat float64 once :attr:`labels` was used)."""
        return self._labels

    @property
    def n_queries(self) -> int:
        return int(self.scores.shape[0])

    @property
    def length(self) -> int:
        return int(self.scores.shape[1])

    def pad(self, values: Tensor) -> Tensor:
        """Flat per-row values (M,) -> padded (Q, L) in the compute dtype, 0 at padding."""
        q, length = self.scores.shape
        values = values.to(self.dtype)
        if self.lin is None:
            return torch.where(self.valid, values.view(q, length), values.new_zeros(()))
        out = values.new_zeros(q * length)
        out.index_copy_(0, self.lin, values)
        return out.view(q, length)

    def gains(self, gain: GainLike) -> Tensor:
        """Padded gains (Q, L) of the labels, with the semantics of :func:`apply_gain`."""
        key = ("gain", gain_key(gain))
        hit = self._cache.get(key)
        if hit is None:
            hit = self.pad(flat_gains(gain, self.labels, self.label_valid))
            self._cache[key] = hit
        return hit

    def relevance(self, threshold: float) -> tuple[Tensor, Tensor]:
        """Padded 0/1 relevance (Q, L) and relevant documents per query R (Q,)."""
        key = ("rel", threshold)
        hit = self._cache.get(key)
        if hit is None:
            hit = self.pad((self.labels >= threshold).to(self.dtype))
            self._cache[key] = hit
            self._cache[("R", threshold)] = hit.sum(dim=1)
        return hit, self._cache[("R", threshold)]

    def level_counts(self) -> Tensor:
        """Documents per (query, integer label level): (Q, label_max + 1) int64."""
        assert self.label_max is not None
        width = self.label_max + 1
        q, length = self.scores.shape
        if self.row_query is not None:
            rows = self.row_query
        else:
            rows = torch.arange(self.labels.shape[0], device=self.labels.device) // length
        weight = (torch.ones_like(rows) if self.label_valid is None
                  else self.label_valid.to(torch.int64))
        counts = torch.zeros(q * width, dtype=torch.int64, device=self.labels.device)
        counts.index_add_(0, rows * width + self.labels.to(torch.int64), weight)
        return counts.view(q, width)


def check_finite_sums(*sums: Tensor) -> None:
    """The core's ValueError when gain x discount sums overflowed (one host sync); float32
    sums (of float32 scores) say so."""
    if not sums or all(bool(torch.isfinite(v).all()) for v in sums):
        return
    if sums[0].dtype == torch.float64:
        from ..core.plan import _overflow_error

        raise _overflow_error()
    raise ValueError(
        f"the gain x discount sums overflow {sums[0].dtype} (inf), the dtype of the sums of "
        f"{sums[0].dtype} scores; pass float64 preds, or scale the gain weights down"
    )


@dataclass
class Layout:
    """All queries of a call: one or more blocks of padded rows.

    ``blocks`` pairs each :class:`Batch` with the positions of its queries in the output (None:
    the only block, queries in output order).
    """

    blocks: list[tuple[Tensor | None, Batch]]
    n_queries: int
    index: Tensor | None  # (n_queries,) sorted distinct indexes (flat input)


def flat_gains(gain: GainLike, labels: Tensor, label_valid: Tensor | None) -> Tensor:
    """Gains (float64) of validated labels; a callable gain runs on the host (core semantics)."""
    key = gain_key(gain)
    if key == "linear":
        return labels
    if key == "exponential":
        return torch.exp2(labels) - 1.0
    if key[0] == "levels":
        weights = device_constant(tuple(key[1]), labels.device)
        return weights[labels.long().clamp(0, weights.shape[0] - 1)]
    if key[0] == "map":
        levels = device_constant(tuple(a for a, _ in key[1]), labels.device)
        weights = device_constant(tuple(b for _, b in key[1]), labels.device)
        at = torch.searchsorted(levels, labels).clamp(max=levels.shape[0] - 1)
        return weights[at]
    # A callable gets exactly what the numpy core gives it: the real labels as float64 numpy.
    real = labels if label_valid is None else labels[label_valid]
    host = apply_gain(gain, real.detach().cpu().numpy())
    g = torch.as_tensor(host, dtype=torch.float64, device=labels.device)
    if label_valid is None:
        return g
    out = torch.zeros_like(labels)
    out[label_valid] = g
    return out


def padded_layout(preds: Tensor, labels: Tensor, mask: Tensor | None, dtype: torch.dtype,
                  label_max: int | None) -> Layout:
    """Layout of padded ``(B, L)`` input; ``preds`` already in the ranking dtype."""
    q, length = preds.shape
    valid: Tensor | None
    n: Tensor | None
    if mask is None:
        valid = n = None  # built on first use (Batch.valid, Batch.n, Batch.labels flattens)
        scores = preds
        flat = labels
        label_valid = None
    else:
        valid = mask
        n = mask.sum(dim=1)
        scores = torch.where(mask, preds, -torch.inf)
        flat = torch.where(mask, labels, 0.0).reshape(-1)
        label_valid = mask.reshape(-1)
    batch = Batch(scores, valid, n, flat, label_valid, None, None, None, dtype, label_max)
    return Layout([(None, batch)], q, None)


def _block(preds: Tensor, labels: Tensor, sizes: Tensor, index: Tensor, length: int,
           dtype: torch.dtype, label_max: int | None) -> Batch:
    """Rows grouped query after query (``sizes`` rows each) scattered into (Q, length)."""
    q = sizes.shape[0]
    m = preds.shape[0]
    dev = preds.device
    qs = torch.arange(q, device=dev)
    row_query = torch.repeat_interleave(qs, sizes, output_size=m)
    shift = qs * length - (torch.cumsum(sizes, dim=0) - sizes)  # row start - first input row
    lin = torch.arange(m, device=dev) + torch.repeat_interleave(shift, sizes, output_size=m)
    scores = torch.full((q * length,), -torch.inf, dtype=preds.dtype, device=dev)
    scores.index_copy_(0, lin, preds)
    valid = torch.arange(length, device=dev) < sizes[:, None]
    return Batch(scores.view(q, length), valid, sizes, labels, None, lin, row_query, index,
                 dtype, label_max)


def flat_layout(preds: Tensor, labels: Tensor, indexes: Tensor, dtype: torch.dtype,
                label_max: int | None) -> Layout:
    """Layout of flat ``(N,)`` input grouped by ``indexes`` (output in sorted index order).

    Host synchronisations: whether the indexes are already sorted (to skip a sort); the distinct
    indexes with their counts, and the longest query (output shapes depend on them). Queries go
    into one padded block
    when that at most doubles the rows, else into blocks of lengths in (2**(j-1), 2**j] (a loop
    over at most ~30 blocks, never over queries; one more sync per block).
    """
    n_rows = preds.shape[0]
    idx = indexes.to(torch.int64)
    if n_rows > 1 and not bool((idx[1:] >= idx[:-1]).all()):  # host sync
        order = torch.argsort(idx, stable=True)  # stable: input order kept inside a query
        idx, preds, labels = idx[order], preds[order], labels[order]
    index, sizes = torch.unique_consecutive(idx, return_counts=True)  # host sync (shape)
    q = int(index.shape[0])
    length = int(sizes.max())
    if q * length <= 2 * n_rows + 4096:
        return Layout([(None, _block(preds, labels, sizes, index, length, dtype, label_max))],
                      q, index)
    level = torch.ceil(torch.log2(sizes.to(torch.float64))).to(torch.int64)
    row_level = torch.repeat_interleave(level, sizes, output_size=n_rows)
    blocks: list[tuple[Tensor | None, Batch]] = []
    for lev in torch.unique(level).tolist():  # host sync; one block per length class
        qsel = torch.nonzero(level == lev).reshape(-1)
        rsel = torch.nonzero(row_level == lev).reshape(-1)
        bsizes = sizes[qsel]
        blen = int(bsizes.max())
        blocks.append((qsel, _block(preds[rsel], labels[rsel], bsizes, index[qsel], blen,
                                    dtype, label_max)))
    return Layout(blocks, q, index)


# ------------------------------------------------------------------------- fused kernel
@functools.lru_cache(maxsize=1)
def _triton_found() -> bool:
    return importlib.util.find_spec("triton") is not None


@functools.lru_cache(maxsize=16)
def _fused_device(device: torch.device) -> bool:
    """CUDA devices Triton compiles for (compute capability 8.0 or later)."""
    return device.type == "cuda" and torch.cuda.get_device_capability(device) >= (8, 0)


def fused_mode() -> str:
    """The kernel choice for tie-averaged CG/DCG/nCG/nDCG, from ``RANKMETRICS_TORCH_KERNEL``.

    ``"auto"`` (default): the fused Triton kernel (:mod:`._triton`) on CUDA devices of compute
    capability >= 8.0 when triton is installed, else the eager torch kernel; ``"torch"``: always
    the eager kernel; ``"triton"``: the fused kernel on any device (CPU tensors need
    ``TRITON_INTERPRET=1``, Triton's interpreter: the tests use it).

    Raises
    ------
    ValueError
        Another value of the variable.
    ImportError
        ``"triton"`` without triton installed.
    """
    mode = os.environ.get(_FUSED_ENV, "auto").strip().lower() or "auto"
    if mode not in ("auto", "torch", "triton"):
        raise ValueError(f"{_FUSED_ENV} must be 'auto', 'torch' or 'triton'; got {mode!r}")
    if mode == "triton" and not _triton_found():
        raise ImportError(f"{_FUSED_ENV}=triton needs triton installed (pip install triton)")
    return mode


_FUSED_FAILED: list[str] = []  # why the fused kernel failed in this process ("auto" stops)


def fused_takes(device: torch.device, length: int) -> bool:
    """:func:`fused_wanted` for a padded batch of rows of ``length`` on ``device``, with False
    in place of its errors (they are raised where the kernel is chosen)."""
    try:
        return _fused_for(device, length)
    except (ValueError, ImportError):
        return False


def fused_wanted(batch: Batch) -> bool:
    """Whether tie-averaged gain measures of ``batch`` (padded scores of shape (Q, L)) go
    through the fused Triton kernel (see :func:`fused_mode`): rows of at most
    :data:`FUSED_MAX_LENGTH` documents, and not after a failure under "auto".

    Raises
    ------
    ValueError
        A bad ``RANKMETRICS_TORCH_KERNEL``, or ``triton`` forced on tensors of a device other
        than CUDA without ``TRITON_INTERPRET=1``.
    ImportError
        ``triton`` forced without triton installed.
    """
    return _fused_for(batch.scores.device, batch.length)


def _fused_for(dev: torch.device, length: int) -> bool:
    mode = fused_mode()
    if mode == "torch" or length > FUSED_MAX_LENGTH:
        return False
    if mode == "triton":
        if dev.type != "cuda" and os.environ.get("TRITON_INTERPRET", "") != "1":
            raise ValueError(
                f"{_FUSED_ENV}=triton on {dev.type} tensors needs TRITON_INTERPRET=1 (Triton's "
                "interpreter) set before triton is imported; use a CUDA device or "
                f"{_FUSED_ENV}=auto"
            )
        return True
    return not _FUSED_FAILED and _triton_found() and _fused_device(dev)


def fused_failed(exc: Exception) -> None:
    """Record that the fused kernel failed under ``"auto"`` (Triton could not compile or launch
    it here) and warn once; the process then uses the eager kernel, which gives the same
    numbers.

    Raises
    ------
    Exception
        ``exc`` itself under ``RANKMETRICS_TORCH_KERNEL=triton``.

    Warns
    -----
    RuntimeWarning
        Once per process, naming ``exc``.
    """
    import warnings

    if fused_mode() == "triton":
        raise exc
    if not _FUSED_FAILED:
        warnings.warn(
            f"rankmetrics: the fused Triton kernel failed ({exc!r}); using the eager torch "
            f"kernel from now on (same numbers, slower). Set {_FUSED_ENV}=torch to choose it "
            "without this warning.", RuntimeWarning, stacklevel=4)
    _FUSED_FAILED.append(repr(exc))


# ---------------------------------------------------------------------------------- ranking
@dataclass
class Ranking:
    """The first ``width`` positions of every query in rank order, with tie groups."""

    width: int
    stable: bool
    idx: Tensor  # (Q, W) column of the document at each position
    start: Tensor  # (Q, W) int64 first position of the position's tie group
    end: Tensor  # (Q, W) int64 one past its last position (may exceed W for the tail group)
    size: Tensor  # (Q, W) compute dtype: group size; 1 at padding positions
    pos_valid: Tensor  # (Q, W) bool: position < documents of the query
    tail: Tensor | None  # (Q, W) bool: in the group of the W-th score (None when W == L)
    tmask: Tensor | None  # (Q, L) bool: documents of that group


def rank(batch: Batch, width: int, stable: bool) -> Ranking:
    """Rank every row, keeping positions ``0 .. width-1`` (``width <= L``)."""
    s = batch.scores
    q, length = s.shape
    dev = s.device
    pos = torch.arange(width, device=dev)
    pos_valid = pos < batch.n[:, None]
    if stable:
        _, idx = torch.sort(s, dim=1, descending=True, stable=True)
        idx = idx[:, :width].contiguous()
        start = pos.expand(q, width)
        ones = torch.ones((q, width), dtype=batch.dtype, device=dev)
        return Ranking(width, True, idx, start, start + 1, ones, pos_valid, None, None)
    if width < length:
        top, idx = torch.topk(s, width, dim=1, largest=True, sorted=True)
    else:
        top, idx = torch.sort(s, dim=1, descending=True)
    new = torch.ones((q, width), dtype=torch.bool, device=dev)
    torch.ne(top[:, 1:], top[:, :-1], out=new[:, 1:])
    start = torch.cummax(torch.where(new, pos, 0), dim=1).values
    last = torch.ones((q, width), dtype=torch.bool, device=dev)
    last[:, :-1] = new[:, 1:]
    end_rev = torch.where(last, pos + 1, width).flip(1)
    end = torch.cummin(end_rev, dim=1).values.flip(1)
    tail = tmask = None
    if width < length:
        t = top[:, width - 1 : width]
        tmask = (s == t) & (t > -torch.inf)  # a -inf group is padding: no documents
        tail = (top == t) & pos_valid
        end = torch.where(tail, start + tmask.sum(dim=1, keepdim=True), end)
    size = torch.where(pos_valid, (end - start).to(batch.dtype), 1.0)
    return Ranking(width, False, idx, start, end, size, pos_valid, tail, tmask)


def group_sums(rk: Ranking, values: Tensor) -> tuple[Tensor, Tensor]:
    """Per position: (sum of ``values`` over its tie group, sum over positions before the group)."""
    vt = values.gather(1, rk.idx)
    cz = torch.cat([vt.new_zeros((vt.shape[0], 1)), torch.cumsum(vt, dim=1)], dim=1)
    before = cz.gather(1, rk.start)
    total = cz.gather(1, rk.end.clamp(max=rk.width)) - before
    if rk.tail is not None and rk.tmask is not None:
        tail_total = torch.where(rk.tmask, values, 0.0).sum(dim=1, keepdim=True)
        total = torch.where(rk.tail, tail_total, total)
    return total, before


def resolve(rk: Ranking, values: Tensor, best_first: bool) -> Tensor:
    """Key at each position when every tie group is ordered best-first (larger keys first) or
    worst-first: the optimistic/pessimistic ordering (rearrangement inequality; for AP and RR,
    relevant documents first)."""
    vt = values.gather(1, rk.idx)
    o1 = torch.argsort(vt, dim=1, descending=best_first, stable=True)
    o2 = torch.argsort(rk.start.gather(1, o1), dim=1, stable=True)
    out = vt.gather(1, o1).gather(1, o2)
    if rk.tail is not None and rk.tmask is not None:
        fill = -torch.inf if best_first else torch.inf
        keys = torch.where(rk.tmask, values, fill)
        ordered = torch.topk(keys, rk.width, dim=1, largest=best_first, sorted=True).values
        pos = torch.arange(rk.width, device=values.device)
        off = (pos - rk.start).clamp(0, rk.width - 1)
        out = torch.where(rk.tail, ordered.gather(1, off), out)
    return torch.where(rk.pos_valid, out, 0.0)


def contributions(
    kind: str, total: Tensor, size: Tensor, before: Tensor, start: Tensor
) -> Tensor:
    """Contribution of every position (as ``rankmetrics.core.contributions._contributions``)."""
    if kind in ("gain", "rel"):
        return total / size
    width = total.shape[1]
    pos = torch.arange(width, dtype=total.dtype, device=total.device)
    offset = pos - start.to(total.dtype)  # p - t_i: slots of the group before p
    if kind == "ap":
        more = (size > 1.0).to(total.dtype)  # one denominator, as the numpy kernel
        den = size - more
        return (total * ((before + 1.0) * den + offset * (total - 1.0) * more)
                / (size * den * (pos + 1.0)))
    # rr: only the first tie group holding a relevant document contributes.
    first = (before == 0.0) & (total > 0.0)
    q = torch.where(first, (size - total - offset).clamp(min=0.0) / (size - offset), 1.0)
    f = torch.cumprod(q, dim=1)  # P(first x of the group are all non-relevant)
    f_prev = torch.cat([torch.ones_like(f[:, :1]), f[:, :-1]], dim=1)
    return torch.where(first, f_prev - f, 0.0) / (pos + 1.0)


# ------------------------------------------------------------------------------- constants
@functools.lru_cache(maxsize=64)
def _discount_table(dkey: Any, n: int, device: torch.device, dtype: torch.dtype) -> Tensor:
    return torch.as_tensor(discount_table(dkey, n), dtype=dtype, device=device)


def table_length(dkey: Any, n: int) -> int:
    """Length of the cached discount table that serves ranks 1..n: the power of two >= n (at
    least 64), so one table serves a whole length class; a callable discount (``dkey`` starting
    with "callable") is asked for exactly the ranks in use, as the core does."""
    if dkey is not None and dkey[0] == "callable":
        return n
    return 1 << max(6, (n - 1).bit_length())


def device_discounts(dkey: Any, n: int, device: torch.device, dtype: torch.dtype) -> Tensor:
    """Discounts of ranks 1..n: the core's table (:func:`rankmetrics.core.gains.discount_table`),
    built on the host and copied to the device once per (discount, device, dtype) and length
    class (:func:`table_length`), so repeated calls copy nothing."""
    return _discount_table(dkey, table_length(dkey, n), device, dtype)[:n]


@functools.lru_cache(maxsize=64)
def device_constant(values: tuple[float, ...], device: torch.device) -> Tensor:
    """A float64 vector of constants (level weights, mapping levels) on ``device``, copied once."""
    return torch.tensor(values, dtype=torch.float64, device=device)


# ------------------------------------------------------------------------------- evaluator
class Evaluator:
    """Rankings and prefix sums of one batch, shared by every metric and tie mode of a call."""

    def __init__(self, batch: Batch, width: int) -> None:
        self.batch = batch
        self.width = width
        self._rankings: dict[bool, Ranking] = {}
        self._cum: dict[Any, Tensor] = {}

    def ranking(self, stable: bool) -> Ranking:
        hit = self._rankings.get(stable)
        if hit is None:
            hit = rank(self.batch, self.width, stable)
            self._rankings[stable] = hit
        return hit

    def discount(self, dkey: Any) -> Tensor:
        """Discounts of ranks 1..W (see :func:`device_discounts`)."""
        ck = ("disc", dkey)
        hit = self._cum.get(ck)
        if hit is None:
            hit = device_discounts(dkey, self.width, self.batch.scores.device, self.batch.dtype)
            self._cum[ck] = hit
        return hit

    def cumulative(
        self, mode: str, kind: str, vkey: Any, values: Tensor, dkey: Any | None
    ) -> Tensor:
        """Prefix sums (Q, W) of the contributions of positions 0..W-1 under tie mode ``mode``."""
        ck = (mode, kind, vkey, dkey)
        hit = self._cum.get(ck)
        if hit is not None:
            return hit
        rk = self.ranking(mode == "stable")
        if mode in ("optimistic", "pessimistic"):
            key = resolve(rk, values, mode == "optimistic")
            before = torch.cumsum(key, dim=1) - key
            pos = torch.arange(self.width, device=key.device).expand_as(rk.start)
            c = contributions(kind, key, torch.ones_like(key), before, pos)
        else:
            total, before = group_sums(rk, values)
            c = contributions(kind, total, rk.size, before, rk.start)
        if dkey is not None:
            c = c * self.discount(dkey)
        hit = torch.cumsum(c, dim=1)
        self._cum[ck] = hit
        return hit

    def at(self, cum: Tensor, ks: Sequence[Cutoff]) -> Tensor:
        """Columns of a (Q, W) prefix-sum matrix at cutoffs ``ks``: shape (len(ks), Q)."""
        cols = [self.width - 1 if k is None else min(k, self.width) - 1 for k in ks]
        return torch.stack([cum[:, c] for c in cols])  # basic indexing: no host-to-device copy

    def ideal(self, gain: GainLike, dkey: Any | None, ks: Sequence[Cutoff]) -> Tensor:
        """Ideal DCG (CG) at each cutoff from all documents of the query: (len(ks), Q)."""
        ck = ("ideal", gain_key(gain), dkey)
        hit = self._cum.get(ck)
        if hit is None:
            top = self._ideal_top(gain)
            if dkey is not None:
                top = top * self.discount(dkey)
            hit = torch.cumsum(top, dim=1)
            self._cum[ck] = hit
        return self.at(hit, ks)

    def _ideal_top(self, gain: GainLike) -> Tensor:
        """The ``W`` largest gains of every query, in decreasing order (JK 2002, eq. 4)."""
        b = self.batch
        key = gain_key(gain)
        by_level = key in ("exponential", "linear") or (isinstance(key, tuple)
                                                         and key[0] == "levels")
        if b.label_max is None or not by_level:
            g = b.gains(gain)
            if self.width < b.length:
                return torch.topk(g, self.width, dim=1, largest=True, sorted=True).values
            return torch.sort(g, dim=1, descending=True).values
        # Small integer labels: gains come in at most 64 levels; count documents per level and
        # read position p's level off the cumulative counts, levels taken in decreasing gain.
        dev = b.labels.device
        levels = torch.arange(b.label_max + 1, dtype=torch.float64, device=dev)
        level_gain = flat_gains(gain, levels, None)
        order = torch.argsort(level_gain, descending=True, stable=True)
        cum = torch.cumsum(b.level_counts()[:, order], dim=1)  # (Q, levels)
        pos = torch.arange(self.width, device=dev)
        at = (cum[:, None, :] <= pos[None, :, None]).sum(dim=2)  # (Q, W) in 0..levels
        table = torch.cat([level_gain[order], level_gain.new_zeros(1)]).to(b.dtype)
        return table[at]

    def fused(self, gain: GainLike, dkey: Any | None, ks: Sequence[Cutoff],
              fill: float) -> Tensor:
        """Tie-averaged DCG (CG when ``dkey`` is None), ideal DCG and their ratio (``fill`` where
        the ideal is 0) at cutoffs ``ks`` from the fused kernel: a (3, len(ks), Q) tensor of the
        compute dtype, cached per (gain, discount, cutoffs, fill) for this batch
        (McSherry & Najork 2008, eq. 6; Järvelin & Kekäläinen 2002, eqs. 2, 4, 5).

        Raises
        ------
        ValueError
            A callable gain or discount that returns invalid values (the core's checks).
        Exception
            Whatever Triton raises when it cannot compile or launch the kernel (the caller,
            :func:`fused_failed`, decides between a fallback and the error).
        """
        ck = ("fused", gain_key(gain), dkey, tuple(ks), repr(fill))
        hit = self._cum.get(ck)
        if hit is not None:
            return hit
        from . import _triton

        b = self.batch
        key = gain_key(gain)
        q, length = b.scores.shape
        if b.lin is None and key in ("linear", "exponential"):  # gains computed in the kernel
            x = b.input_labels
            if x.dtype not in _triton.LABEL_DTYPES:
                x = b.labels
            if x.ndim != 2:
                x = x.view(q, length)
            mode = _triton.GAIN_LINEAR if key == "linear" else _triton.GAIN_EXPONENTIAL
        else:
            x, mode = b.gains(gain), _triton.GAIN_GIVEN
        valid = None if b.lin is None and b.label_valid is None else b.valid
        prefix = _triton.prefix_discounts(dkey, table_length(dkey, length), b.scores.device)
        cuts = [length if k is None else min(k, length) for k in ks]
        checks = b.checks if b._deferred is not None and mode != _triton.GAIN_GIVEN else None
        if checks is None:
            b.check_now()  # given gains (computed from the labels): checked before
        hit = _triton.gain_sums(b.scores, x, valid, prefix, cuts, mode, fill, b.dtype,
                                checks, float(_MAX_EXP_LABEL))
        self._cum[ck] = hit
        return hit

    def tied(self, k: Cutoff) -> Tensor:
        """Bool (Q,): a tie group of two or more documents reaches into the top ``k``."""
        rk = self.ranking(False)
        w = self.width if k is None else min(k, self.width)
        return ((rk.size[:, :w] > 1) & rk.pos_valid[:, :w]).any(dim=1)


# ------------------------------------------------------------------------------ ERR, RBP
@dataclass(frozen=True)
class Geometric:
    """RBP's discount of rank i, (1 - p) p**(i - 1) (Moffat & Zobel 2008), as a hashable
    discount callable (the core builds the same table)."""

    p: float

    def __call__(self, ranks: Any) -> Any:
        import numpy as np

        return (1.0 - self.p) * np.power(self.p, np.asarray(ranks, dtype=np.float64) - 1.0)


def err_contributions(ev: Evaluator, mode: str, stop: Tensor) -> Tensor:
    """ERR contribution of every position 0..W-1 (Chapelle et al. 2009, eq. 4), tie-averaged
    exactly as :mod:`rankmetrics.core.err`: within a tie group the probability of stopping at
    its j-th position is ebar_(j-1) - ebar_j, adjacent elementary symmetric means of the
    group's continue probabilities (built one member at a time, every group at once).

    ``stop`` is the padded (Q, L) stop probability (0 at padding).
    """
    rk = ev.ranking(mode == "stable")
    w = rk.width
    pos = torch.arange(w, device=stop.device)
    posf = pos.to(stop.dtype)
    if mode in ("optimistic", "pessimistic"):
        r = resolve(rk, stop, mode == "optimistic")
    else:
        r = torch.where(rk.pos_valid, stop.gather(1, rk.idx), 0.0)
    q = 1.0 - r
    if mode == "average":
        # a tie group's members by ascending q, as the core visits them (the rounding of
        # the products depends on the order): by q, then stably by group
        by_q = torch.sort(q, dim=1, stable=True).indices
        q = q.gather(1, by_q.gather(1, torch.sort(rk.start.gather(1, by_q), dim=1,
                                                  stable=True).indices))
    cp = torch.cumprod(q, dim=1)
    excl = torch.cat([torch.ones_like(cp[:, :1]), cp[:, :-1]], dim=1)
    if mode != "average":
        return excl * (1.0 - q) / (posf + 1.0)
    before = excl.gather(1, rk.start)  # the groups before are complete: order-free product
    size = torch.where(rk.pos_valid, rk.end - rk.start, 1)
    longest = int(size.max()) if size.numel() else 1  # host sync: the loop length
    if longest == 1:
        return excl * (1.0 - q) / (posf + 1.0)
    j = (pos - rk.start + 1).to(stop.dtype)  # 1-based offset inside the group
    first = j == 1.0
    tail_q = None
    if rk.tail is not None and rk.tmask is not None:
        # members of the tail group (it may continue past W): the documents of its score
        # by ascending q, members first (others sort as 2.0, after every q <= 1)
        tail_q = torch.sort(torch.where(rk.tmask, 1.0 - stop, 2.0), dim=1).values
    ebar = torch.zeros_like(q)  # ebar_j of each position's group, held at offset j
    sizef = size.to(stop.dtype)
    for i in range(1, longest + 1):
        member = (rk.start + i - 1).clamp(max=w - 1)
        qi = q.gather(1, member)
        if tail_q is not None and rk.tail is not None:
            col = min(i - 1, tail_q.shape[1] - 1)
            qi = torch.where(rk.tail, tail_q[:, col: col + 1], qi)
        prev = torch.cat([torch.ones_like(ebar[:, :1]), ebar[:, :-1]], dim=1)
        prev = torch.where(first, 1.0, prev)
        new = ((i - j) * ebar + j * qi * prev) / i
        ebar = torch.where((j <= i) & (i <= sizef) & rk.pos_valid, new, ebar)
    prev = torch.cat([torch.ones_like(ebar[:, :1]), ebar[:, :-1]], dim=1)
    prev = torch.where(first, 1.0, prev)
    c = before * (prev - ebar) / (posf + 1.0)
    return torch.where(rk.pos_valid, c, 0.0)
