"""A fused Triton kernel for tie-aware CG/DCG, nCG/nDCG at cutoffs on padded rows (GPU).

The eager torch kernel (:mod:`._kernel`) launches some 70 small kernels per call, so on a GPU
its time is mostly launch overhead (and two ``topk`` passes). This kernel does the same
arithmetic in one launch, one program per query row:

* it sorts the row's scores in registers (``tl.sort``, a bitonic sort of the row padded to a
  power of two) and writes them to a scratch row;
* for every document ``i`` a binary search in that order gives the documents ranked above it,
  ``a_i = #{j: s_j > s_i}``, and those up to and including its tie group,
  ``a_i + c_i = #{j: s_j >= s_i}``;
* the tie group of ``i`` fills positions ``a_i .. a_i + c_i - 1``; under the average over all
  orderings of tied documents (McSherry & Najork 2008, eq. 6) every member of the group takes
  its mean gain at each of them, so document ``i`` adds
  ``g_i (D[min(a_i + c_i, k)] - D[min(a_i, k)]) / c_i`` to DCG@k, where ``D[m]`` is the sum of
  the discounts of ranks 1..m (Järvelin & Kekäläinen 2002, eq. 2; ``D[m] = m`` for CG, eq. 1);
* the ideal DCG (JK 2002, eq. 4: all documents of the query by decreasing gain) is the row's
  gains sorted in decreasing order, times the discounts of positions 1..k;
* nDCG/nCG (JK 2002, eq. 5) divides the two, with the empty rule's value where the ideal is 0;
* with ``checks``, the row's data checks (finite scores, finite labels >= 0, integer labels up
  to 53 for exponential gain) and a check that its sums are finite in the result dtype set
  flags that the caller reads once, after the launches, in place of about ten launches and a
  synchronisation of checks of its own (and sixteen launches of the overflow check).

Sums are float64 whatever the score dtype, cast to the compute dtype at the end. Work per row is
O(L log^2 L) in registers; rows of at most :data:`rankmetrics.torch._kernel.FUSED_MAX_LENGTH`
documents use it (at 2048 it still beat the eager kernel on an H200); longer rows, other tie
modes and other measures stay on the eager kernel. Extra memory: the scratch rows, Q x B
scores (B the row length rounded up to a power of two), and the (3, cutoffs, Q) result. This
module imports triton: it is imported only when the fused path is taken
(:func:`rankmetrics.torch._kernel.fused_wanted`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import torch
import triton
import triton.language as tl
from torch import Tensor

_MAX_CUTOFFS = 4  # cutoffs per launch (scalar arguments: no host-to-device copy)

GAIN_GIVEN, GAIN_LINEAR, GAIN_EXPONENTIAL = 0, 1, 2

#: label dtypes the kernel reads as they are (converted to float64 in registers)
LABEL_DTYPES = (torch.float64, torch.float32, torch.int64, torch.int32, torch.int16, torch.int8,
                torch.uint8)


@triton.jit
def _count_before(srt_ptr, v, LOG2: tl.constexpr, BLOCK: tl.constexpr, STRICT: tl.constexpr):
    """For every value of ``v`` (shape (BLOCK,), the row's scores): how many entries of the
    row ``srt`` (BLOCK scores in decreasing order, padding -inf at the end) are > v (STRICT) or
    >= v; int32 of shape (BLOCK,). A binary search per value, LOG2 + 1 = log2(BLOCK) + 1 steps
    (unrolled), float comparisons (so -0.0 ties 0.0, as in the core)."""
    lo = tl.zeros(v.shape, dtype=tl.int32)
    hi = tl.full(v.shape, BLOCK, dtype=tl.int32)
    for _ in tl.static_range(LOG2 + 1):
        open_ = lo < hi
        mid = (lo + hi) // 2
        at = tl.load(srt_ptr + mid, mask=open_ & (mid < BLOCK), other=0.0)
        if STRICT:
            right = at > v
        else:
            right = at >= v
        lo = tl.where(open_ & right, mid + 1, lo)
        hi = tl.where(open_ & (right == 0), mid, hi)
    return lo


@triton.jit
def _gain_sums_kernel(s_ptr, x_ptr, valid_ptr, d_ptr, scratch_ptr, out_ptr, chk_ptr, n_q, length,
                      k0, k1, k2, k3, fill, max_label,
                      NK: tl.constexpr, GAIN: tl.constexpr, HAS_VALID: tl.constexpr,
                      BLOCK: tl.constexpr, LOG2: tl.constexpr, CHECK: tl.constexpr):
    """Row ``program_id`` of ``s`` (Q, L, float32/float64) and ``x`` (Q, L: labels for GAIN
    1 (gain l) or 2 (gain 2**l - 1), gains for GAIN 0): writes DCG, ideal DCG and the
    normalised value at cutoffs k0..k{NK-1} (1..L) to ``out`` (3, NK, Q, float64, or float32:
    the float64 sums rounded by the store); ``d`` is
    the prefix table of the discount (>= L + 1 entries), ``valid`` (Q, L, uint8) the real
    documents when HAS_VALID, ``scratch`` (Q, BLOCK) the row's scores in decreasing order.
    The tie-averaged DCG of McSherry & Najork (2008, eq. 6), the ideal of Järvelin &
    Kekäläinen (2002, eq. 4) and their ratio (eq. 5); see the module docstring.
    CHECK: ORs into ``chk`` (int32) 1 when a real document's score is not finite, 2 when a
    label is not finite or negative, 4 (exponential gain) when a label is not an integer or
    exceeds ``max_label``, 8 when a DCG or ideal DCG is not finite in the result dtype (the
    sums overflow); no atomic operation when the row is clean."""
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    inside = offs < length
    real = inside
    if HAS_VALID:
        real = inside & (tl.load(valid_ptr + row * length + offs, mask=inside, other=0) != 0)
    s = tl.load(s_ptr + row * length + offs, mask=inside, other=0.0)
    x = tl.load(x_ptr + row * length + offs, mask=inside, other=0.0).to(tl.float64)
    if CHECK:  # the data checks of the call, read here instead of by launches of their own
        bad_s = real & ((s != s) | (tl.abs(s) == float("inf")))
        ok_x = (x >= 0.0) & (x < float("inf"))  # NaN fails both
        bad_x = real & (ok_x == 0)
        flag = tl.max(bad_s.to(tl.int32), axis=0) | (tl.max(bad_x.to(tl.int32), axis=0) * 2)
        if GAIN == 2:
            bad_e = real & ((x != tl.floor(x)) | (x > max_label))
            flag = flag | (tl.max(bad_e.to(tl.int32), axis=0) * 4)
        tl.atomic_or(chk_ptr, flag, mask=flag != 0)
    s = tl.where(real, s, float("-inf"))
    if GAIN == 2:
        g = tl.exp2(x) - 1.0
    else:
        g = x
    g = tl.where(real, g, 0.0)
    # positions of every document's tie group: a = #(scores above), a + c = #(scores >= it)
    srt = scratch_ptr + row * BLOCK
    tl.store(srt + offs, tl.sort(s, descending=True))
    tl.debug_barrier()
    above = _count_before(srt, s, LOG2, BLOCK, True)
    upto = _count_before(srt, s, LOG2, BLOCK, False)
    c = tl.maximum(upto - above, 1).to(tl.float64)
    # the ideal vector: every gain of the query in decreasing order (JK 2002, eq. 4)
    ideal_g = tl.sort(tl.where(real, g, -1.0), descending=True)
    ideal_g = tl.where(offs < length, tl.maximum(ideal_g, 0.0), 0.0)
    d_lo = tl.load(d_ptr + offs, mask=inside, other=0.0)
    d_hi = tl.load(d_ptr + offs + 1, mask=inside, other=0.0)
    for t in tl.static_range(NK):
        k = k0
        if t == 1:
            k = k1
        if t == 2:
            k = k2
        if t == 3:
            k = k3
        lo = tl.minimum(above, k)
        hi = tl.minimum(upto, k)
        w = tl.load(d_ptr + hi, mask=real, other=0.0) - tl.load(d_ptr + lo, mask=real, other=0.0)
        dcg = tl.sum(tl.where(real, g * w / c, 0.0), axis=0)
        ideal = tl.sum(tl.where(offs < k, ideal_g * (d_hi - d_lo), 0.0), axis=0)
        norm = tl.where(ideal > 0.0, dcg / tl.where(ideal > 0.0, ideal, 1.0), fill)
        if CHECK:  # sums that overflow the result dtype: flag 8 (the caller raises)
            dcg_out = dcg.to(out_ptr.dtype.element_ty)
            ideal_out = ideal.to(out_ptr.dtype.element_ty)
            over = (tl.abs(dcg_out) < float("inf")) & (tl.abs(ideal_out) < float("inf"))
            tl.atomic_or(chk_ptr, 8, mask=over == 0)  # NaN fails the test too
        tl.store(out_ptr + t * n_q + row, dcg)
        tl.store(out_ptr + (NK + t) * n_q + row, ideal)
        tl.store(out_ptr + (2 * NK + t) * n_q + row, norm)


@functools.lru_cache(maxsize=64)
def prefix_discounts(dkey: Any, n: int, device: torch.device) -> Tensor:
    """``D[0..n]``, float64 of shape (n + 1,) on ``device``: D[0] = 0 and D[m] the sum of the
    discounts of ranks 1..m (the core's table, :func:`rankmetrics.core.gains.discount_table`;
    ``dkey`` None: no discount, D[m] = m, the CG of JK 2002 eq. 1). Built on the host, copied to
    ``device`` once per (discount, length, device).

    Raises
    ------
    ValueError
        A discount callable that returns the wrong shape or a non-finite or negative value.
    """
    import numpy as np

    from ..core.gains import discount_table

    table = np.ones(n) if dkey is None else discount_table(dkey, n)
    return torch.as_tensor(np.concatenate([[0.0], np.cumsum(table)]), device=device)


def gain_sums(scores: Tensor, x: Tensor, valid: Tensor | None, prefix: Tensor,
              ks: Sequence[int], gain_mode: int, fill: float, dtype: torch.dtype,
              checks: Tensor | None = None, max_label: float = 0.0) -> Tensor:
    """DCG (or CG), ideal DCG and the normalised value of every row at cutoffs ``ks``.

    Parameters
    ----------
    scores : Tensor (Q, L), float32 or float64
        Scores of padded rows (padding -inf or masked out by ``valid``).
    x : Tensor (Q, L), float64 (or any of :data:`LABEL_DTYPES`)
        Labels (``gain_mode`` GAIN_LINEAR or GAIN_EXPONENTIAL: the gain is ``l`` or
        ``2**l - 1``) or the gains themselves (GAIN_GIVEN); 0 at padding.
    valid : Tensor (Q, L) of bool, or None
        Real documents; None: every entry is one.
    prefix : Tensor (>= L + 1,), float64
        :func:`prefix_discounts` of the discount.
    ks : sequence of int in 1..L
        Cutoffs (a whole-list measure passes L).
    gain_mode : int
        GAIN_GIVEN, GAIN_LINEAR or GAIN_EXPONENTIAL.
    fill : float
        Normalised value of a row whose ideal DCG is 0 (the empty rule; NaN for "skip").
    dtype : torch.dtype
        dtype of the result.
    checks : Tensor of shape (1,), int32 (zeros), optional
        When given (GAIN_LINEAR or GAIN_EXPONENTIAL only), the kernel also checks the data of
        the real documents and ORs into it: 1 a non-finite score, 2 a non-finite or negative
        label, 4 (exponential gain) a label that is not an integer or exceeds ``max_label``,
        8 a DCG or ideal DCG that is not finite in ``dtype`` (the sums overflow). Nothing is
        read back here: the caller synchronises once, after every launch.
    max_label : float
        The largest label exponential gain accepts (with ``checks``).

    Returns
    -------
    Tensor (3, len(ks), Q) of ``dtype``
        ``[0]`` DCG, ``[1]`` ideal DCG, ``[2]`` DCG / ideal DCG (``fill`` where the ideal is 0).

    Raises
    ------
    ValueError
        ``checks`` with GAIN_GIVEN (given gains are not labels).
    Exception
        Whatever Triton raises when it cannot compile or launch the kernel.
    """
    q, length = scores.shape
    scores = scores if scores.is_contiguous() else scores.contiguous()
    x = x if x.is_contiguous() else x.contiguous()
    valid_u8 = None if valid is None else valid.contiguous().view(torch.uint8)
    if checks is not None and gain_mode == GAIN_GIVEN:
        raise ValueError("the kernel checks labels, not given gains")
    block = max(16, triton.next_power_of_2(length))
    scratch = torch.empty((q, block), dtype=scores.dtype, device=scores.device)
    parts = []
    for first in range(0, len(ks), _MAX_CUTOFFS):
        cuts = [int(k) for k in ks[first:first + _MAX_CUTOFFS]]
        # the kernel's float64 sums are rounded once, by its store, into the result dtype
        part = torch.empty((3, len(cuts), q), dtype=dtype, device=scores.device)
        if q:
            _gain_sums_kernel[(q,)](
                scores, x, scores if valid_u8 is None else valid_u8, prefix, scratch, part,
                part if checks is None else checks, q, length,
                *(cuts + [cuts[-1]] * (_MAX_CUTOFFS - len(cuts))), float(fill),
                float(max_label), NK=len(cuts), GAIN=gain_mode,
                HAS_VALID=valid_u8 is not None, BLOCK=block, LOG2=block.bit_length() - 1,
                CHECK=checks is not None, num_warps=4 if block <= 256 else 8,
            )
        parts.append(part)
    return parts[0] if len(parts) == 1 else torch.cat(parts, dim=1)
