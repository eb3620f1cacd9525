"""Kernel backends: the compiled (numba) kernel and the numpy reference, and how one is chosen.

numba is an extra (``pip install "rankmetrics[numba]"``, included in ``all``) used automatically
when it can be imported: the project keeps numpy as its only core dependency, and numba's wheels
lag new Python releases. The numpy kernel (:mod:`.kernel`, :mod:`.contributions`) stays as the
reference the compiled one is tested against and as the fallback.
``RANKMETRICS_KERNEL=numpy|numba|auto`` (read when the first plan is built) or
:func:`set_backend` force either. A :class:`~rankmetrics.QueryPlan` keeps the
backend it was built with.

This module holds the compiled backend's Python side: the segment layout (CSR offsets over the
rows, no copy when every query's rows are contiguous), qid grouping in O(n) for grouped ids, and
the dispatch of ranking, cutoff sums, curves and the label-side sums to
:mod:`._numba_kernel`.
"""

from __future__ import annotations

import functools
import os
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import gains as _gains
from .kernel import Ranking
from .validation import check_finite

BACKENDS = ("numba", "numpy")
_state: dict[str, Any] = {"name": None, "error": None}


def _numba_module() -> Any:
    from . import _numba_kernel

    return _numba_kernel


def _sizes() -> Any:  # [mem] work-buffer sizing (compiled helpers)
    from . import _numba_sizes

    return _numba_sizes


def available() -> bool:
    """Whether the compiled kernel can be imported."""
    try:
        _numba_module()
    except ImportError as exc:
        _state["error"] = exc
        return False
    return True


def set_backend(name: str) -> None:
    """Choose the kernel for QueryPlans built from now on: ``"numba"``, ``"numpy"`` or ``"auto"``.

    Parameters
    ----------
    name : {"numba", "numpy", "auto"}
        ``"auto"`` takes numba when it can be imported, numpy otherwise.

    Raises
    ------
    ValueError
        Unknown name.
    ImportError
        ``"numba"`` requested but numba cannot be imported.

    Examples
    --------
    >>> import rankmetrics as rm
    >>> before = rm.get_backend()
    >>> rm.set_backend("numpy")
    >>> rm.get_backend()
    'numpy'
    >>> rm.set_backend(before)
    """
    if name not in (*BACKENDS, "auto"):
        raise ValueError(f"backend must be 'numba', 'numpy' or 'auto'; got {name!r}")
    if name == "auto":
        name = "numba" if available() else "numpy"
    elif name == "numba" and not available():
        raise ImportError(
            f"the numba kernel needs numba ({_state['error']}); "
            'pip install "rankmetrics[numba]"'
        )
    _state["name"] = name


def get_backend() -> str:
    """The kernel new QueryPlans use: ``"numba"`` or ``"numpy"``.

    Examples
    --------
    >>> import rankmetrics as rm
    >>> rm.get_backend() in ("numba", "numpy")
    True
    """
    if _state["name"] is None:
        env = os.environ.get("RANKMETRICS_KERNEL", "auto").strip().lower() or "auto"
        if env not in (*BACKENDS, "auto"):  # name the variable: no caller passed a backend
            raise ValueError("environment variable RANKMETRICS_KERNEL must be 'numba', 'numpy' "
                             f"or 'auto' (or unset); got {os.environ['RANKMETRICS_KERNEL']!r}")
        set_backend(env)
    return str(_state["name"])


# ------------------------------------------------------------------------------ layout
@dataclass(frozen=True)
class SegLayout:
    """Queries as segments of a row order (see :mod:`._numba_kernel`)."""

    n_rows: int
    n_queries: int
    #: (n_queries,) rows per query; None when segment s is query s (``sizes`` is then
    #: ``np.diff(offsets)``, made on first use: [mem] 8 bytes per query not held meanwhile)
    stored_sizes: NDArray[np.int64] | None
    offsets: NDArray[np.int64]  # (n_segments + 1,) segment bounds in ``order``
    order: NDArray[Any]  # (n_rows,) grouped row order, or empty: the rows themselves
    #: (n_segments,) query index of each segment, passed to the kernels; empty when segment
    #: s is query s ([mem] 8 bytes per query not held; :attr:`seg_query` makes them)
    seg_slots: NDArray[np.int64]
    # per-layout work that depends on the layout only (the segments ranked by numpy's sort)
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def sizes(self) -> NDArray[np.int64]:
        """(n_queries,) int64 rows per query (kept once made)."""
        if self.stored_sizes is not None:
            return self.stored_sizes
        hit = self.cache.get("sizes")
        if hit is None:
            hit = self.cache["sizes"] = np.diff(self.offsets)
        return hit

    @property
    def max_size(self) -> int:
        """The longest query's number of rows (0 for none), computed once."""
        hit = self.cache.get("max_size")
        if hit is None:
            if self.stored_sizes is None and "sizes" not in self.cache:
                # a temporary, not kept: the sizes are not made for this
                hit = int(np.diff(self.offsets).max(initial=0))
            else:
                hit = int(self.sizes.max(initial=0))
            self.cache["max_size"] = hit
        return int(hit)

    @property
    def seg_query(self) -> NDArray[np.int64]:
        """(n_segments,) int64 query index of each segment (a new array when in order)."""
        if self.seg_slots.shape[0] or self.offsets.shape[0] <= 1:
            return self.seg_slots
        return np.arange(self.offsets.shape[0] - 1, dtype=np.int64)

    def queries_of(self, segs: NDArray[np.int64]) -> NDArray[np.int64]:
        """The query indices of segments ``segs`` (int64 indices)."""
        return self.seg_slots[segs] if self.seg_slots.shape[0] else np.array(segs, np.int64)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickled before the sizes and the query index of in-order queries were made lazily
        if "sizes" in state:
            state["stored_sizes"] = state.pop("sizes")
        if "seg_query" in state:
            state["seg_slots"] = state.pop("seg_query")
        self.__dict__.update(state)


#: a layout's ``seg_slots`` when segment s is query s
_IN_ORDER = np.empty(0, dtype=np.int64)


def row_dtype(n: int) -> Any:
    return np.int32 if n < 2**31 - 1 else np.int64


def _layout(n: int, n_queries: int, offsets: NDArray[np.int64], order: NDArray[Any] | None,
            seg_query: NDArray[np.int64] | None,
            seg_sizes: NDArray[np.int64] | None = None) -> SegLayout:
    sizes: NDArray[np.int64] | None = None
    if seg_query is None:  # segment s is query s: the sizes follow from the offsets
        seg_query = _IN_ORDER
    else:
        if seg_sizes is None:
            seg_sizes = np.diff(offsets)
        sizes = np.zeros(n_queries, dtype=np.int64)
        sizes[seg_query] = seg_sizes
    if order is None:
        order = np.empty(0, dtype=row_dtype(n))
    return SegLayout(n, n_queries, sizes, offsets, order, seg_query)


def from_sizes(sizes: NDArray[np.int64]) -> SegLayout:
    """Contiguous queries of the given sizes, in order."""
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return _layout(int(offsets[-1]), int(sizes.shape[0]), offsets, None, None)


def from_index(qidx: NDArray[np.int64], n_queries: int) -> SegLayout:
    """Layout from each row's query index 0..n_queries-1 (any row order; empty queries kept)."""
    n = int(qidx.shape[0])
    sizes = np.bincount(qidx, minlength=n_queries).astype(np.int64)
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    order = None
    if n > 1 and not bool(np.all(qidx[1:] >= qidx[:-1])):
        order = np.argsort(qidx, kind="stable").astype(row_dtype(n), copy=False)
    return _layout(n, n_queries, offsets, order, None)


_CHUNK = 1 << 16
# dtypes the compiled input passes take (native byte order; one compile each when first met)
_COMPILED = frozenset(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8,
                                            np.uint16, np.uint32, np.uint64, np.float32,
                                            np.float64))


def readonly(a: np.ndarray) -> np.ndarray:
    """``a`` itself when it is read-only, else a read-only view of it (no copy; ``a`` keeps
    its flags). Inputs go to the kernels read-only whatever their origin: numba compiles a
    function once per type and counts a writeable array and a read-only one (pandas'
    copy-on-write arrays, ``np.frombuffer``) as two, so a mix would compile every kernel
    twice (1-2 minutes each on a small machine)."""
    if not a.flags.writeable:
        return a
    view = a.view()
    view.flags.writeable = False
    return view


def compiled_input(a: np.ndarray) -> bool:
    """``a`` can go to a compiled pass as it is: 1-D, C-contiguous, a native-endian integer
    dtype of any width or float32/float64 (float16, big-endian or strided arrays cannot)."""
    return a.ndim == 1 and a.dtype in _COMPILED and a.flags.c_contiguous


def label_range(labels: np.ndarray) -> tuple[Any, Any, bool]:
    """:func:`rankmetrics.core.gains.label_range` (smallest, largest, every value an integer
    of non-empty labels of shape (n,)) in one compiled pass where the kernel takes the array
    (:func:`compiled_input`), else numpy's."""
    if not compiled_input(labels):
        return _gains.label_range(labels)
    nk = _numba_module()
    labels = readonly(labels)
    if labels.dtype.kind == "f":
        return nk.float_range(labels)
    lo, hi = nk.int_range(labels)
    return lo, hi, True


def take_ranged(table: NDArray[np.uint8], labels: np.ndarray
                ) -> tuple[NDArray[np.uint8], Any, Any] | None:
    """``(table[clip(labels, 0, len(table) - 1)], smallest label, largest label)`` for integer
    labels of shape (n,) in one compiled pass (see :func:`~.gains.small_int_gains`), or None
    where the kernel cannot take the array (:func:`compiled_input`)."""
    if not compiled_input(labels) or labels.dtype.kind not in "iu":
        return None
    nk = _numba_module()
    levels = np.arange(table.shape[0], dtype=np.int64)
    if np.array_equal(table, (1 << levels) - 1):
        rule = nk.TABLE_EXP2
    elif np.array_equal(table, levels):
        rule = nk.TABLE_LEVEL
    else:
        rule = nk.TABLE_LOOKUP
    out = np.empty(labels.shape[0], dtype=np.uint8)
    lo, hi = nk.take_ranged(readonly(table), readonly(labels), out, rule)
    return out, lo, hi


def take_table(table: NDArray[Any], labels: np.ndarray) -> NDArray[Any]:
    """:func:`rankmetrics.core.gains.take_table` (``table[labels]``, shape (n,), for integer
    labels 0..255 inside the table) in one compiled pass without an index copy where the
    kernel takes the array, else numpy's."""
    if not compiled_input(labels):
        return _gains.take_table(table, labels)
    out = np.empty(labels.shape[0], dtype=table.dtype)
    _numba_module().take_table(readonly(table), readonly(labels), out)
    return out


_PROBE_RUNS = 64
_LONG_INPUT = 4096  # rows from which group_rows tries long_runs first


def _equal_layout(n: int, size: int) -> SegLayout:
    """The layout of n rows in sorted queries of ``size`` rows each."""
    n_runs = n // size
    return _layout(n, n_runs, np.arange(0, n + 1, size, dtype=np.int64), None, None)


def group_rows(q: np.ndarray, index_queries: Any) -> tuple[np.ndarray, SegLayout]:
    """Sorted distinct ids and the segment layout of validated qids ``q``.

    Numeric ids are compared with their neighbours only (never subtracted, so unsigned and
    far-apart ids are safe): ids in sorted runs need O(n) and no copy, runs of distinct ids in
    any order sort only the runs, and interleaved ids one stable argsort. Other dtypes go
    through ``index_queries`` (``np.unique`` semantics).
    """
    n = int(q.shape[0])
    if q.dtype.kind not in "biuf" or n == 0:
        qids, qidx = index_queries(q)
        return qids, from_index(qidx, int(qids.shape[0]))
    if compiled_input(q):  # sorted ids (the common case): compiled passes, no temporaries
        nk = _numba_module()
        q = readonly(q)
        size = int(nk.first_run(q))
        # maybe queries of one size (>= 2 rows): checked, and their ids collected, in one pass;
        # [mem] the ids' buffer (the result's) only once the first runs fit the pattern
        if (2 <= size <= n // 2 and n % size == 0
                and nk.runs_begin(q, size, min(_PROBE_RUNS, n // size))):
            ids = np.empty(n // size, dtype=q.dtype)
            if nk.runs_of(q, size, ids):
                return ids, _equal_layout(n, size)
            del ids
        if size >= 2 and n >= _LONG_INPUT:
            # long sorted runs: found in one pass; [mem] two buffers of n / 32 + 65 entries
            # (0.5 byte per row), cut to the runs found
            cap = n // nk._MEAN_RUN + nk._RUN_PROBE + 1
            offsets = np.empty(cap + 1, dtype=np.int64)
            ids = np.empty(cap + 1, dtype=q.dtype)
            n_runs = int(nk.long_runs(q, offsets, ids))
            if n_runs > 0:
                offsets = offsets[: n_runs + 1].copy()
                ids = ids[:n_runs].copy()
                sizes = np.diff(offsets)
                if bool(np.all(sizes == sizes[0])):  # queries of one size
                    return ids, _equal_layout(n, int(sizes[0]))
                return ids, _layout(n, n_runs, offsets, None, None, sizes)
            del offsets, ids
        n_runs, up = nk.count_runs(q)
        if up and n % n_runs == 0 and nk.equal_runs(q, n_runs):  # queries of one size
            size = n // n_runs
            return q[::size].copy(), _equal_layout(n, size)
        if up:
            # one more slot than runs: the pass writes every row's id at its run's next slot
            offsets = np.empty(n_runs + 1, dtype=np.int64)
            ids = np.empty(n_runs + 1, dtype=q.dtype)
            sizes = np.empty(n_runs, dtype=np.int64)
            nk.run_offsets(q, offsets, ids, sizes)
            return ids[:n_runs], _layout(n, n_runs, offsets, None, None, sizes)
    change = q[1:] != q[:-1]
    n_runs = int(np.count_nonzero(change)) + 1
    if n_runs <= max(n // 4, 1):  # rows come in runs: group the runs, not the rows
        first = np.empty(n_runs, dtype=np.int64)
        first[0] = 0
        first[1:] = np.flatnonzero(change)
        first[1:] += 1
        del change
        run_ids = q[first]
        if n_runs == 1 or bool(np.all(run_ids[1:] > run_ids[:-1])):
            return run_ids, _layout(n, n_runs, np.append(first, n), None, None)
        by_id = np.argsort(run_ids, kind="stable")
        srt = run_ids[by_id]
        if bool(np.all(srt[1:] != srt[:-1])):  # every query one run: only the runs are sorted
            seg_query = np.empty(n_runs, dtype=np.int64)
            seg_query[by_id] = np.arange(n_runs, dtype=np.int64)
            return srt, _layout(n, n_runs, np.append(first, n), None, seg_query)
        del by_id, srt, run_ids, first
    else:
        del change
    perm = np.argsort(q, kind="stable")
    parts = [np.zeros(1, dtype=np.int64)]
    for a in range(1, n, _CHUNK):  # run starts of q[perm] without a sorted copy of q
        b = min(n, a + _CHUNK)
        sq = q[perm[a - 1: b]]
        parts.append(np.flatnonzero(sq[1:] != sq[:-1]) + a)
    first = np.concatenate(parts)
    qids = q[perm[first]]
    order = perm.astype(row_dtype(n), copy=False)
    del perm
    return qids, _layout(n, int(qids.shape[0]), np.append(first, n), order, None)


# ------------------------------------------------------------------------------ ranking
class SegRanking(Ranking):
    """A score vector ranked against a :class:`SegLayout` (the compiled backend's Ranking)."""

    def __init__(self, depth: int | None, ties: str, layout: SegLayout, scores: np.ndarray,
                 rows: NDArray[Any], counts: NDArray[Any]) -> None:
        super().__init__(depth, ties, [])
        self.layout = layout
        self.scores = scores
        self.rows = rows  # (n_rows,) each segment's candidates in rank order, in its slots
        self.counts = counts  # (n_segments,) candidates ranked per segment

    def __repr__(self) -> str:
        lay = self.layout
        tied = 0
        if self.ties != "stable" and self.rows.size:
            starts = lay.offsets[:-1]
            seg = np.repeat(np.arange(starts.shape[0]), self.counts)
            pos = np.arange(seg.shape[0]) - np.repeat(np.cumsum(self.counts) - self.counts,
                                                      self.counts) + starts[seg]
            ranked = self.scores[self.rows[pos]]
            same = (ranked[1:] == ranked[:-1]) & (seg[1:] == seg[:-1])
            has_tie = np.zeros(lay.n_queries, dtype=bool)
            has_tie[lay.queries_of(seg[1:][same])] = True
            tied = int(has_tie.sum())
        return (f"Ranking(n_queries={lay.n_queries}, depth={self.depth}, ties={self.ties!r}, "
                f"queries_with_ties={tied})")


def rank(layout: SegLayout, scores: np.ndarray, depth: int | None, ties: str) -> SegRanking:
    nk = _numba_module()
    scores = readonly(np.ascontiguousarray(scores))
    rows = np.empty(layout.n_rows, dtype=row_dtype(layout.n_rows))
    counts = np.empty(layout.offsets.shape[0] - 1, dtype=np.int64)
    n_key = layout.max_size
    if depth is not None and 0 < depth <= _TOP_WINDOW:  # [mem] a small cutoff: its candidates
        n_key = _sizes().key_rows(layout, scores, int(depth))
    key = np.empty(n_key, dtype=scores.dtype)
    top = np.empty(_TOP_WINDOW, dtype=scores.dtype)
    nk.rank_segments(scores, layout.order, layout.offsets, -1 if depth is None else int(depth),
                     rows, counts, key, top, _stack())
    return SegRanking(depth, ties, layout, scores, rows, counts)


def _stack() -> NDArray[np.int64]:
    """Work space of the kernel's quicksort: (lo, hi, depth) for up to 64 nested ranges."""
    return np.empty(3 * 64, dtype=np.int64)


_TOP_WINDOW = 64  # cutoffs up to this use the one-pass window, deeper ones quickselect
_KIND = {"gain": 0, "rel": 0, "ap": 1, "rr": 2}
_MODE = {"average": 0, "optimistic": 1, "pessimistic": 2, "stable": 3}
_NONE_CUT = 2**62
_EMPTY2 = np.empty((0, 0))


def _call(rk: SegRanking, kind: str, values: NDArray[np.float64], ties: str, width: int | None,
          discount: NDArray[np.float64] | None, cuts: NDArray[np.int64],
          slots: NDArray[np.int64], out: NDArray[np.float64], curve: NDArray[np.float64],
          select: NDArray[np.int64] | None = None) -> None:
    nk = _numba_module()
    lay = rk.layout
    starts = lay.offsets[:-1]
    counts = rk.counts
    seg_query = lay.seg_slots
    if select is not None:  # out's row i is selected segment i
        starts, counts = starts[select], counts[select]
        seg_query = _IN_ORDER
    mode = _MODE[ties]
    vbuf = np.empty(0)
    if mode in (1, 2):  # bounds sort each tie group's values: a buffer for the largest
        longest = int(counts.max(initial=0))
        if longest > 4096:  # a long list: size the buffer by its largest tie group instead
            longest = nk.max_tie_group(rk.scores, rk.rows, counts, starts,
                                       -1 if width is None else int(width))
        vbuf = np.empty(longest)
    disc = np.empty(0) if discount is None else discount
    nk.cutoff_sums(rk.scores, rk.rows, counts, starts, seg_query, values, _KIND[kind], mode,
                   -1 if width is None else int(width), disc, discount is not None, cuts, slots,
                   out, vbuf, curve)


def _cuts(ks: Sequence[int | None]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    raw = np.array([_NONE_CUT if k is None else k for k in ks], dtype=np.int64)
    slots = np.argsort(raw, kind="stable")
    return raw[slots], slots.astype(np.int64)


def at_cutoffs(rk: SegRanking, n_queries: int, kind: str, values: NDArray[np.float64],
               ties: str, ks: Sequence[int | None],
               discount: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    out = np.zeros((len(ks), n_queries))
    width = None if any(k is None for k in ks) else max(k for k in ks if k is not None)
    cuts, slots = _cuts(ks)
    _call(rk, kind, values, ties, width, discount, cuts, slots, out, _EMPTY2)
    return out


def curve(rk: SegRanking, n_queries: int, kind: str, values: NDArray[np.float64], ties: str,
          depth: int, discount: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    out = np.zeros((n_queries, depth))
    none = np.empty(0, dtype=np.int64)
    _call(rk, kind, values, ties, depth, discount, none, none, _EMPTY2, out)
    return out


@dataclass(frozen=True)
class Block:
    """Queries whose prefix sums :func:`cumulative` yields together."""

    queries: NDArray[np.int64]


def cumulative(rk: SegRanking, kind: str, values: NDArray[np.float64], ties: str,
               width: int | None, discount: NDArray[np.float64] | None = None
               ) -> Iterator[tuple[Block, NDArray[np.float64]]]:
    """As :func:`.contributions.cumulative`: blocks of queries of similar length with their
    prefix sums (qb, w), flat past the end of each list."""
    w_q = rk.counts if width is None else np.minimum(rk.counts, width)
    level = np.ceil(2.0 * np.log2(np.maximum(w_q, 1))).astype(np.int64)
    none = np.empty(0, dtype=np.int64)
    for lv in np.unique(level):
        sel = np.flatnonzero(level == lv)
        w = int(w_q[sel].max())
        cur = np.zeros((sel.shape[0], w))
        _call(rk, kind, values, ties, w, discount, none, none, _EMPTY2, cur, select=sel)
        yield Block(rk.layout.queries_of(sel)), cur


# ------------------------------------------------------------------------ label-side sums
def segment_sums(layout: SegLayout, values: NDArray[Any]) -> NDArray[np.float64]:
    out = np.zeros(layout.n_queries)
    _numba_module().segment_sums(values, layout.order, layout.offsets, layout.seg_slots, out)
    return out


def divide_ideal(vals: NDArray[np.float64], ideal: NDArray[np.float64],
                 fill: float) -> tuple[int, bool]:
    """nDCG/nCG normalisation in place (JK 2002, eq. 5): ``vals / ideal``, ``fill`` (float,
    NaN allowed) where ``ideal <= 0``; ``vals`` and ``ideal`` float64, C-contiguous, shape
    (n,). Returns how many ideals are <= 0 (empty queries), and whether some value of
    ``vals`` was NaN or inf (then the caller raises). Raises ImportError without numba."""
    n_zero, bad = _numba_module().divide_ideal(vals, readonly(ideal), float(fill))
    return int(n_zero), bool(bad)


_MEMO_BITS = 14


def _ideal(layout: SegLayout, gains: NDArray[np.float64], disc: NDArray[np.float64],
           cuts: NDArray[np.int64], slots: NDArray[np.int64], out: NDArray[np.float64],
           curve: NDArray[np.float64]) -> None:
    nk = _numba_module()
    buf = np.empty(min(layout.max_size, 4096))
    first = 0
    levels = np.empty(nk._LEVELS)
    counts = np.empty(nk._LEVELS, dtype=np.int64)
    top = np.empty(nk._LEVELS)
    tally = np.zeros((4, 256), dtype=np.int64)  # uint8 gains: counts per value
    # [mem] lists of <= 8 uint8 gains: a memo of their ideal sums, 16 bytes a slot, at most
    # 2**14 slots (256 KiB), one per query and one per two rows (<= 8 bytes per row)
    cap = min(1 << _MEMO_BITS, layout.n_queries, layout.n_rows // 2)
    size = 0
    if gains.dtype == np.uint8 and not layout.order.shape[0] and cap >= 64:
        size = 1 << (cap.bit_length() - 1)
    memo_keys = np.zeros(size, dtype=np.uint64)
    memo_vals = np.zeros(size)
    while True:
        first = nk.ideal_sums(gains, layout.order, layout.offsets, layout.seg_slots, disc, cuts,
                              slots, out, buf, curve, first, levels, counts, top, tally,
                              memo_keys, memo_vals)
        if first < 0:
            return
        buf = np.empty(layout.max_size)  # a long list with many distinct gains: sort it


def ideal_at(layout: SegLayout, gains: NDArray[np.float64], disc: NDArray[np.float64],
             ks: Sequence[int | None]) -> NDArray[np.float64]:
    """Ideal discounted gain sums at each cutoff: (len(ks), n_queries)."""
    out = np.zeros((len(ks), layout.n_queries))
    cuts, slots = _cuts(ks)
    _ideal(layout, gains, disc, cuts, slots, out, _EMPTY2)
    return out


def ideal_curve(layout: SegLayout, gains: NDArray[np.float64], disc: NDArray[np.float64],
                depth: int) -> NDArray[np.float64]:
    out = np.zeros((layout.n_queries, depth))
    none = np.empty(0, dtype=np.int64)
    _ideal(layout, gains, disc, none, none, _EMPTY2, out)
    return out


# ------------------------------------------------------------------------ fused evaluation
@dataclass(frozen=True)
class Family:
    """Cutoffs of one contribution kind over one value vector (see :func:`evaluate_fused`)."""

    kind: str  # "gain" / "rel" (mean), "ap", "rr"
    values: NDArray[Any]  # per-row gain (float64 or uint8) or 0/1 relevance (uint8)
    dmode: int  # 0: no discount, 1: the discount table, 2: times the rank (success)
    ks: tuple[int | None, ...]
    ties: str | None = None  # None: the call's tie rule


def evaluate_fused(layout: SegLayout, scores: np.ndarray, ties: str, families: Sequence[Family],
                   disc: NDArray[np.float64] | None, check: bool = False
                   ) -> list[NDArray[np.float64]] | None:
    """Sums of contributions at every cutoff of every family, ranking each query once.

    Returns one (len(ks), n_queries) array per family, or None when the families cannot share
    one pass (more than one gain vector or one relevance vector; nothing read then).
    ``check``: the scores (float32/float64, shape (n_rows,)) may hold NaN or inf; the kernel
    tests each list as it reads it (no pass of its own over the scores; lists ranked by
    numpy's sort are tested by the packing of their keys), or they are tested first where
    something reads them before the kernel (rows out of order, the buffer sizing of long
    lists). Raises ValueError naming ``y_score`` and a bad value when one is found.
    """
    va = vb = None
    for fam in families:
        if fam.kind == "gain" and fam.values.dtype in (np.float64, np.uint8):  # [mem] uint8:
            if va is not None and fam.values is not va:  # small integer gains
                return None
            va = fam.values
        elif fam.kind != "gain" and fam.values.dtype == np.uint8:  # 0/1 relevance
            if vb is not None and fam.values is not vb:
                return None
            vb = fam.values
        else:
            return None
    nk = _numba_module()
    scores = readonly(np.ascontiguousarray(scores))
    if check and (layout.order.shape[0] or layout.max_size > _sizes()._limit(layout)
                  or layout.offsets[0] != 0 or layout.offsets[-1] != scores.shape[0]):
        check_finite(scores)
        check = False
    n_fam = len(families)
    kinds = np.empty(n_fam, dtype=np.int64)
    src = np.empty(n_fam, dtype=np.int64)
    dmode = np.empty(n_fam, dtype=np.int64)
    lo = np.empty(n_fam, dtype=np.int64)
    hi = np.empty(n_fam, dtype=np.int64)
    whole = np.zeros(n_fam, dtype=np.bool_)
    modes = np.array([_MODE[fam.ties or ties] for fam in families], dtype=np.int64)
    cut_parts, slot_parts, uniq = [], [], []
    n_slots = 0
    width = 0
    for f, fam in enumerate(families):
        kinds[f] = _KIND[fam.kind]
        src[f] = 0 if fam.kind == "gain" else 1
        dmode[f] = fam.dmode
        ks = list(dict.fromkeys(fam.ks))
        uniq.append(ks)
        cuts, slots = _cuts(ks)
        lo[f] = n_slots
        hi[f] = n_slots + len(ks)
        whole[f] = bool(cuts[-1] == _NONE_CUT)
        finite = cuts[cuts != _NONE_CUT]
        if finite.size:
            width = max(width, int(finite[-1]))
        cut_parts.append(cuts)
        slot_parts.append(slots + n_slots)
        n_slots += len(ks)
    cuts_all = np.concatenate(cut_parts)
    slots_all = np.concatenate(slot_parts)
    out = np.zeros((n_slots, layout.n_queries))
    longest = layout.max_size
    any_whole = bool(whole.any())
    avg = bool((modes == 0).all())
    bounds = bool(((modes == 1) | (modes == 2)).any())
    # work buffers: the ranked candidates (none when only whole-list MRR is read under tie
    # averaging), merge space up to _MERGE_CAP rows (longer lists sort in place), sparse
    # whole-list sums for lists with up to _SPARSE_CAP rows carrying a value
    ranked = width > 0 or not avg or bool((whole & (kinds != _KIND["rr"])).any())
    n_key = longest if ranked else 0
    if ranked and not any_whole and 0 < width <= _TOP_WINDOW:  # [mem] only the candidates
        n_key = _sizes().key_rows(layout, scores, width)
    n_key = max(n_key, min(longest, nk._TINY), 1)  # short lists are ordered in it
    key = np.empty(n_key, dtype=scores.dtype)
    idx = np.empty(n_key, dtype=row_dtype(layout.n_rows))
    top = np.empty(_TOP_WINDOW, dtype=scores.dtype)
    small = max(1024, layout.n_rows >> 5)  # [mem] fixed-size buffers: about 1 byte per row
    n_merge = min(n_key, _MERGE_CAP, small)
    tk = np.empty(n_merge, dtype=scores.dtype)
    ti = np.empty(n_merge, dtype=idx.dtype)
    vbuf = np.empty(_sizes().value_rows(layout, scores, n_key) if bounds else 0)  # [mem]
    sparse = any_whole and avg and longest > 32
    n_g = min(longest // 4, _SPARSE_CAP, small) + 2 if sparse else 0
    gb = np.empty(n_g)
    gt = np.empty(n_g)
    inc = np.empty(n_g, dtype=row_dtype(layout.n_rows))
    eq = np.empty(n_g, dtype=row_dtype(layout.n_rows))
    args = (scores, layout.order, layout.offsets, layout.seg_slots, width, any_whole, modes,
            _EMPTY1 if va is None else va, _EMPTY1B if vb is None else vb, kinds, src, dmode, lo,
            hi, whole, cuts_all, slots_all, _EMPTY1 if disc is None else disc, out, key, idx, top,
            tk, ti, vbuf, gb, gt, inc, eq)
    stack = _stack()
    # prefix sums of a list's values in rank order, and its ranks' tie groups: short lists,
    # and lists ranked by numpy's sort (at most 32 bytes per row of the longest, <= 2 MiB)
    presorted = _presorted(layout, scores, families, width, any_whole, avg, bounds)
    n_walk = min(longest, _PRESORT_CAP) if presorted is not None else 0
    psum = np.empty(3 * max(nk._TINY, n_walk) + 1)  # prefix sums, group sums, sums before
    group_bounds = np.empty((2, max(nk._TINY, n_walk)), dtype=np.int32)
    ok = True
    if presorted is None:
        ok = nk.eval_segments(*args, _EMPTY_SEL, _EMPTY_PACKED, 0, _EMPTY_U, stack, psum,
                              group_bounds, check)
    else:
        rest, classes = presorted
        if rest.shape[0]:
            ok = nk.eval_segments(*args, rest, _EMPTY_PACKED, 0, _EMPTY_U, stack, psum,
                                  group_bounds, check)
        ukey = np.empty(min(longest, _PRESORT_CAP), dtype=np.uint64)
        for segs, span in classes:  # lists of similar length, ranked by numpy's sort
            packed, shift, finite = _pack(layout, scores, segs, span)
            if not finite:  # a NaN or inf score: nothing more is read (the caller raises)
                ok = False
                break
            packed.sort(axis=1)
            # the packing tested every score of these lists: the kernel need not again
            ok &= nk.eval_segments(*args, segs, packed, shift, ukey, stack, psum, group_bounds,
                                   False)
    if not ok:
        check_finite(scores)  # raises: a list held NaN or inf
        raise RuntimeError("the compiled kernel found a NaN or inf score that numpy did not")
    res = []
    for f, fam in enumerate(families):
        block = out[lo[f]: hi[f]]
        if len(uniq[f]) != len(fam.ks):
            block = block[[uniq[f].index(k) for k in fam.ks]]
        res.append(block)
    return res


_MERGE_CAP = 1 << 16
_EMPTY_SEL = np.empty(0, dtype=np.int64)
_EMPTY_PACKED = np.empty((0, 0), dtype=np.uint32)
_EMPTY_U = np.empty(0, dtype=np.uint64)
_PRESORT_CAP = 1 << 16  # longest list ranked by numpy's sort (its place fits 16 bits)
_PACK_CHUNK = 1 << 16  # keys sorted per call: the packed buffer stays at 256 KiB


def _presorted(layout: SegLayout, scores: np.ndarray, families: Sequence[Family], width: int,
               any_whole: bool, avg: bool, bounds: bool
               ) -> tuple[NDArray[np.int64], list[tuple[NDArray[np.int64], int]]] | None:
    """The segments to rank whole by numpy's sort, in classes of similar length, and the rest;
    None when there are none.

    A list is ranked whole when a measure reads all of it (a cutoff of at least its length, or
    a whole-list measure that the kernel cannot read sparsely: under a tie rule other than the
    average, or with a quarter or more of the rows carrying a value) and it is longer than the
    lists the kernel reads by counting; the sort is vectorised in numpy (several times faster
    than a comparison sort per list here)."""
    nk = _numba_module()
    if scores.dtype not in (np.float32, np.float64):
        return None
    small = nk._TINY
    if layout.max_size <= small:  # [mem] every list is placed by counting: no temporaries
        return None
    whole_sorted = False
    if any_whole:
        dense = [f for f in families if None in f.ks and f.kind != "rr"]
        whole_sorted = not avg or any(
            4 * _nonzero_of(f.values) > f.values.shape[0] for f in dense)
    if not whole_sorted and min(width, _PRESORT_CAP) <= small:
        return None
    key = ("presorted", whole_sorted, None if whole_sorted else min(width, _PRESORT_CAP))
    hit = layout.cache.get(key)
    if hit is None:
        hit = layout.cache[key] = _presort_classes(layout, whole_sorted, width)
    return hit


#: id of a live value vector -> (a weak reference to it, its count); one entry per id, so a
#: reader in another thread sees a whole entry or none (two dicts let it see half of one)
_NONZERO_OF: dict[int, tuple[weakref.ref[NDArray[Any]], int]] = {}


def _nonzero_of(values: NDArray[Any]) -> int:
    """:func:`_count_nonzero` of a plan's label-side value vector (gains, relevance: the same
    cached array every call), remembered by the array's id while the array lives (a weak
    reference: nothing is kept alive or pickled; an id reused by a new array is not taken for
    the old one's). Safe to call from several threads at once. Reference shape: 0.5 ms a call
    of whole-list AP."""
    key = id(values)
    hit = _NONZERO_OF.get(key)
    if hit is not None and hit[0]() is values:
        return hit[1]
    n = _count_nonzero(values)
    if len(_NONZERO_OF) >= 64:  # [mem] entries of arrays gone: dropped now and then
        _NONZERO_OF.clear()
    _NONZERO_OF[key] = (weakref.ref(values, functools.partial(_forget_nonzero, key)), n)
    return n


def _forget_nonzero(key: int, ref: weakref.ref[NDArray[Any]]) -> None:
    """Drop the entry of an array that died (only its own: the id may be another's now)."""
    hit = _NONZERO_OF.get(key)
    if hit is not None and hit[0] is ref:
        _NONZERO_OF.pop(key, None)


def _count_nonzero(values: NDArray[Any]) -> int:
    """``np.count_nonzero`` of a 1-D value vector, in one compiled pass where the kernel takes
    it (numpy's is several times slower on float32)."""
    if compiled_input(values):
        return int(_numba_module().count_nonzero(values))
    return int(np.count_nonzero(values))


def _presort_classes(layout: SegLayout, whole_sorted: bool, width: int
                     ) -> tuple[NDArray[np.int64], list[tuple[NDArray[np.int64], int]]] | None:
    """:func:`_presorted`'s segments for a layout (cached on it: they depend on the layout,
    the cutoff and whether whole lists are read, not on the scores)."""
    small = _numba_module()._TINY
    sizes = np.diff(layout.offsets)
    if whole_sorted:
        pick = (sizes > small) & (sizes <= _PRESORT_CAP)
    else:
        pick = (sizes > small) & (sizes <= min(width, _PRESORT_CAP))
    segs = np.flatnonzero(pick)
    if segs.shape[0] == 0:
        return None
    m = sizes[segs]
    step = np.maximum(16, 1 << np.maximum(0, np.floor(np.log2(np.maximum(m, 1))).astype(
        np.int64) - 3))
    span = -(-m // step) * step  # padded length: at most 1/8 (or 15 rows) of padding
    classes: list[tuple[NDArray[np.int64], int]] = []
    for w in np.unique(span).tolist():
        cls = segs[span == w]
        per = max(1, _PACK_CHUNK // int(w))
        for a in range(0, cls.shape[0], per):
            classes.append((cls[a: a + per], int(w)))
    return np.flatnonzero(~pick), classes


def _pack(layout: SegLayout, scores: np.ndarray, segs: NDArray[np.int64],
          span: int) -> tuple[NDArray[np.uint32], int, bool]:
    """The sort keys of segments ``segs`` (:func:`._numba_kernel.pack_keys`): a (len(segs),
    span) uint32 array, one row per list padded with all-ones keys; ``shift``, the bits of
    a row's place in its list (<= 16: span <= 2**16); and whether every score of these lists
    is finite (when not, the keys are not to be read). ``scores``: float32 or float64, shape
    (n_rows,). [mem] 4 bytes per key, at most :data:`_PACK_CHUNK` keys per call."""
    nk = _numba_module()
    packed = np.empty((segs.shape[0], span), dtype=np.uint32)
    nbits = 8 * scores.dtype.itemsize
    bits = scores.view(np.uint32 if nbits == 32 else np.uint64)
    shift = max(1, (span - 1).bit_length())  # <= 16: the scores keep >= 16 bits of each key
    fbuf = np.empty(2, dtype=scores.dtype)
    finite = nk.pack_keys(scores, bits, nbits, layout.order, layout.offsets, segs, packed,
                          shift, fbuf, fbuf.view(bits.dtype))
    return packed, shift, bool(finite)


_SPARSE_CAP = 1 << 16
_EMPTY1 = np.empty(0)
_EMPTY1B = np.empty(0, dtype=np.uint8)
