"""Compiled helpers that size the compiled kernel's per-call work buffers by what a call reads.

:func:`.backend.evaluate_fused` and :func:`.backend.rank` give the kernel a score/row buffer
and, for the optimistic/pessimistic bounds, a value buffer. Sized by the longest query they
cost 12 and 8 bytes per row of a one-query input; these helpers bound what is really written,
in one or two passes over the long queries and without allocating per row:

* a cutoff of at most 64 ranks gathers only its *candidates*, the rows scoring at least the
  cutoff-th largest score (every tie group reaching the cutoff complete): :func:`top_candidates`
  counts them;
* the bounds sort one tie group at a time: :func:`tie_bound` bounds the largest tie group from
  above by hashing equal scores into one bucket (the fullest bucket holds at least the largest
  group; ``-0.0`` and ``0.0`` share the bucket of ``0.0``).

Both trust their inputs (validated scores: finite).
"""

from __future__ import annotations

import numpy as np

from ._numba_kernel import _jit, _top_window

_GOLDEN = 0x9E3779B97F4A7C15  # Fibonacci hashing: 2**64 / golden ratio, odd


@_jit()
def top_candidates(scores, order, offsets, limit, width, top):
    """The most rows scoring >= the ``width``-th largest score (with multiplicity) in any
    segment longer than ``limit``, counted exactly (the kernel's insertion window, then one
    pass: the rows the kernel gathers); a shorter segment counts all its rows.
    ``top``: >= width."""
    has_order = order.shape[0] > 0
    best = 0
    for s in range(offsets.shape[0] - 1):
        o = offsets[s]
        m = offsets[s + 1] - o
        if m <= limit or m <= width:
            best = max(best, m)
            continue
        t0 = _top_window(scores, order, has_order, o, m, width, top)
        c = 0
        for j in range(m):  # exactly the candidates: every row tying or above the width-th
            c += scores[order[o + j] if has_order else o + j] >= t0
        best = max(best, c)
    return best


@_jit()
def tie_bound(scores, bits, order, offsets, limit, counts, shift):
    """An upper bound of the largest tie group of any segment: a segment of at most ``limit``
    rows counts all of them, a longer one the fullest of the ``counts.shape[0] ==
    2**(64 - shift)`` buckets its equal scores hash to (``bits``: the scores' bit patterns, any
    unsigned width; zero of either sign hashes as 0)."""
    has_order = order.shape[0] > 0
    mul = np.uint64(_GOLDEN)
    sh = np.uint64(shift)
    best = 0
    for s in range(offsets.shape[0] - 1):
        o = offsets[s]
        m = offsets[s + 1] - o
        if m <= limit:
            best = max(best, m)
            continue
        for b in range(counts.shape[0]):
            counts[b] = 0
        for j in range(m):
            r = order[o + j] if has_order else o + j
            h = np.uint64(0) if scores[r] == 0 else np.uint64(bits[r])
            b = (h * mul) >> sh
            counts[b] += 1
            best = max(best, np.int64(counts[b]))
    return best


# ------------------------------------------------------------------------- Python side
_SHORT = 4096  # lists up to max(_SHORT, n_rows / 8) long are sized by their length


def _limit(layout) -> int:
    return max(_SHORT, layout.n_rows >> 3)


def key_rows(layout, scores: np.ndarray, width: int) -> int:
    """Rows of the score/row buffer a pass reading only ranks 1..``width`` (<= 64) writes, at
    most: the longest short list, or a bound of the candidates of a long one (<= its rows)."""
    limit = _limit(layout)
    if layout.max_size <= limit:
        return layout.max_size
    top = np.empty(width, dtype=scores.dtype)
    return int(top_candidates(scores, layout.order, layout.offsets, limit, width, top))


def value_rows(layout, scores: np.ndarray, cap: int) -> int:
    """Rows of the bounds' value buffer: at most ``cap`` (the candidates buffer's size) and at
    most the largest tie group (bounded by :func:`tie_bound` in long lists)."""
    limit = _limit(layout)
    if min(layout.max_size, cap) <= limit:
        return min(layout.max_size, cap)
    log_b = min(16, max(10, (layout.max_size - 1).bit_length()))
    counts = np.empty(1 << log_b, dtype=np.int32)
    bits = scores.view(np.uint64 if scores.dtype.itemsize == 8 else np.uint32)
    bound = tie_bound(scores, bits, layout.order, layout.offsets, limit, counts, 64 - log_b)
    return min(cap, int(bound))
