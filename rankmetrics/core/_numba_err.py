"""ERR (Chapelle et al. 2009, eq. 4) on the compiled kernel's ranking, exact under ties.

The same math as :mod:`.err` (see its docstring for the tie average: the stop probability at the
j-th position of a tie group is the difference of adjacent elementary symmetric means of the
group's continue probabilities), with the same floating-point operations in the same order
(under tie averaging a group's members by ascending q), so the numbers are numpy's bit for
bit. It reads a
:class:`~rankmetrics.core.backend.SegRanking`: every segment's candidates in rank order
(``rows[offsets[s]: offsets[s] + counts[s]]``), tie groups found again from the scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._numba_kernel import (
    MODE_AVERAGE,
    MODE_OPTIMISTIC,
    MODE_PESSIMISTIC,
    MODE_STABLE,
    _jit,
    _slot,
    _sort_ascending,
)
from .backend import _sizes

_MODE = {"average": MODE_AVERAGE, "optimistic": MODE_OPTIMISTIC,
         "pessimistic": MODE_PESSIMISTIC, "stable": MODE_STABLE}
_NONE_CUT = 2**62


@_jit(inline="always")
def _put(out, cuts, w, q_out, p, acc):
    """The running sum ``acc`` after rank p + 1 is ERR at every cutoff ending there."""
    for j in range(cuts.shape[0]):
        if min(cuts[j], w) - 1 == p:
            out[j, q_out] = acc


@_jit()
def _err_segments(scores, rows, counts, starts, seg_query, stop, mode, width, cuts, out,
                  ebar, vbuf):
    """``out[j, seg_query[s]]`` = ERR of segment ``s`` over ranks 1..min(cuts[j], width, c)."""
    for s in range(starts.shape[0]):
        o = starts[s]
        c = counts[s]
        w = c if width < 0 else min(width, c)
        q_out = _slot(seg_query, s)
        if w == 0:
            for j in range(cuts.shape[0]):
                out[j, q_out] = 0.0
            continue
        before = 1.0  # product of the continue probabilities of the positions so far
        acc = 0.0
        g0 = 0
        while g0 < w:
            sc = scores[rows[o + g0]]
            g1 = g0 + 1
            if mode != MODE_STABLE:
                while g1 < c and scores[rows[o + g1]] == sc:
                    g1 += 1
            n = g1 - g0
            if n > 1 and mode == MODE_AVERAGE:
                m = min(n, w - g0)
                live = False
                for a in range(n):
                    if 1.0 - stop[rows[o + g0 + a]] < 1.0:
                        live = True
                if live:  # the members by ascending q, as numpy's reference visits them
                    for a in range(n):
                        vbuf[a] = 1.0 - stop[rows[o + g0 + a]]
                    _sort_ascending(vbuf, n)
                    ebar[0] = 1.0
                    for j in range(1, m + 1):
                        ebar[j] = 0.0
                    for i in range(1, n + 1):
                        qi = vbuf[i - 1]
                        top = min(i, m)
                        for j in range(top, 0, -1):  # right side first: ebar[j - 1] still old
                            jj = float(j)
                            ebar[j] = ((i - jj) * ebar[j] + jj * qi * ebar[j - 1]) / i
                    for j in range(1, m + 1):
                        p = g0 + j - 1
                        acc += before * (ebar[j - 1] - ebar[j]) / (p + 1.0)
                        _put(out, cuts, w, q_out, p, acc)
                else:
                    for p in range(g0, g0 + m):
                        acc += 0.0
                        _put(out, cuts, w, q_out, p, acc)
                for a in range(n):  # the whole group passes before the next one
                    before *= vbuf[a] if live else 1.0 - stop[rows[o + g0 + a]]
            else:
                if n > 1:  # optimistic / pessimistic: larger (smaller) stop probability first
                    for a in range(n):
                        vbuf[a] = stop[rows[o + g0 + a]]
                    _sort_ascending(vbuf, n)
                for p in range(g0, g1):
                    if n > 1:
                        r = vbuf[g1 - 1 - p] if mode == MODE_OPTIMISTIC else vbuf[p - g0]
                    else:
                        r = stop[rows[o + p]]
                    qv = 1.0 - r
                    if p < w:
                        acc += before * (1.0 - qv) / (p + 1.0)
                        _put(out, cuts, w, q_out, p, acc)
                    before *= qv
            g0 = g1


def err_at_cutoffs(rk: Any, n_queries: int, stop: NDArray[np.float64], ties: str,
                   ks: Sequence[int | None]) -> NDArray[np.float64]:
    """ERR at every cutoff in ``ks`` for every query of a compiled-kernel ranking:
    shape (len(ks), n_queries). ``stop`` is the per-row stop probability (no padding)."""
    lay = rk.layout
    starts = lay.offsets[:-1]
    counts = rk.counts
    width = None if any(k is None for k in ks) else max(k for k in ks if k is not None)
    longest = int(counts.max(initial=0))
    cuts = np.array([_NONE_CUT if k is None else k for k in ks], dtype=np.int64)
    out = np.zeros((len(ks), n_queries))
    # [mem] no per-rank running sums (each cutoff is written as its rank passes); the tie
    # buffers hold the largest tie group (a bound: _numba_sizes.value_rows), ebar at most
    # the cutoff: about 1 byte per row unless one tie group is most of a long list
    group = 1 if ties == "stable" or longest < 2 else _sizes().value_rows(lay, rk.scores, longest)
    reach = group if width is None else min(group, int(width))
    _err_segments(rk.scores, rk.rows, counts, starts, lay.seg_slots,
                  np.ascontiguousarray(stop, dtype=np.float64), _MODE[ties],
                  -1 if width is None else int(width), cuts, out, np.empty(reach + 1),
                  np.empty(max(group, 1)))
    return out
