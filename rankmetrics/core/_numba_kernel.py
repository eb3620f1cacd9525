"""The compiled kernel (numba): the same metric math as :mod:`.kernel` + :mod:`.contributions`.

Layout
------
Queries are *segments* of a row order: ``offsets`` (CSR, one segment per query) over either the
input rows themselves (``order`` empty: rows of a query already contiguous, the common case,
which needs no copy) or a grouped row order ``order``. ``seg_query[s]`` is the output slot of
segment ``s`` (the query's index in the sorted distinct ids); an empty ``seg_query`` means
slot s (queries in order: no index array held).

Ranking
-------
Per segment the rows are copied with their scores into a work buffer; for a cutoff ``depth`` a
quickselect puts the ``depth`` best first, every row tying the ``depth``-th score joins them
and only these candidates are sorted, so every tie group that reaches into the top ``depth`` is
complete (McSherry & Najork 2008). The order is total (higher score first, then lower row
index), so ``ties="stable"`` needs no separate path. The ranked rows are written in place of the
segment in one ``(n,)`` array; tie groups are found again from the scores when needed.
The one-pass evaluation (:func:`eval_segments`) orders short lists by counting places and
takes lists to be ranked whole already ordered by numpy's sort of packed keys
(:func:`pack_keys`).

Contributions
-------------
One pass per query walks the tie groups in rank order and accumulates the per-position
contributions of :mod:`.contributions` (gain/relevance mean, AP, RR), with the same floating-point
operations in the same order as the numpy reference, reading every cutoff in the same pass.
Sums of integer values (uint8 gains, 0/1 relevance: ``values.itemsize < 8``) may go through an
integer chain instead: every partial sum is an integer below 2**53, so the float64 sums are exact
in any order and the bits are the reference's.

Every function trusts its inputs (validated in :mod:`.validation` and :mod:`.plan`).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


def _no_refcounts() -> dict:
    """``{"_nrt": False}`` where numba's CPU target knows the option (every supported version),
    else nothing: the functions allocate nothing, so they compile either way."""
    try:
        from numba.core.cpu import CPUTargetOptions
    except ImportError:  # pragma: no cover - numba's layout changed
        return {}
    return {"_nrt": False} if hasattr(CPUTargetOptions, "_nrt") else {}


_NO_NRT = _no_refcounts()


def _jit(**options):
    """``njit(cache=True)``, or uncached when numba finds no writable cache directory.

    Compiled without numba's reference counting (``_nrt=False``): these functions allocate
    nothing (work space comes from the caller), and the counts numba would otherwise update
    for every array handed to a helper cost more than the work on short lists (1 M lists of 5
    rows: 2x the time of the whole call). ``error_model="numpy"``: a float division is IEEE's,
    with no test for a zero divisor (none occurs in the walks on finite scores: every divisor
    there is a group size, a count of at least one, or a rank; a NaN score, which the counting
    walk reads before the call is refused, gives a harmless 0/0; ``divide_ideal`` replaces its
    0/0), whose branch would keep the loops of terms from vectorising (whole-list AP: 0.8x the
    time).

    ``inline="always"`` (numba inlines the function's IR at every call site) is kept for the
    helpers of a row or of a short list, where a call would cost more than the work; the
    general walk and the candidate gathering of long lists (:func:`_walk`, :func:`_gather_top`,
    :func:`_gather_top_once`), called at most once per list and family, are compiled once
    each: inlined, their copies at every call site made compiling the one-pass kernel about
    2x longer (``bench_shapes.py --compile``), for a gain only under the bounds' tie rules,
    whose walk is now a call per list and measure (``bench_ab.py``: 1.06x-1.13x their time)."""

    def deco(fn):
        try:
            return njit(cache=True, nogil=True, error_model="numpy", **_NO_NRT, **options)(fn)
        except RuntimeError:  # "cannot cache function ...: no locator available"
            return njit(cache=False, nogil=True, error_model="numpy", **_NO_NRT, **options)(fn)

    return deco


@intrinsic
def _prefetch(typingctx, arr, i):
    """Ask the CPU to bring ``arr[i]``'s cache line closer (LLVM's ``llvm.prefetch``: a hint
    that never faults and changes no value; ``i`` may lie past the end)."""
    if not isinstance(arr, types.Array) or not isinstance(i, types.Integer):
        return None
    sig = types.void(arr, types.intp)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]],
                                       wraparound=False, boundscheck=False)
        i32 = ir.IntType(32)
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read, keep in every cache level, data
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@_jit(inline="always")
def _prefetch_rows(a, start, n):
    """Prefetch the cache lines of ``a[start:start + n]`` (1-D, contiguous): the next list of
    a selection whose lists are not adjacent in memory, which the CPU's own prefetcher does
    not foresee (each list is a new stream of a few lines)."""
    step = max(1, 64 // a.itemsize)
    end = min(start + n, a.shape[0])
    for r in range(start, end, step):
        _prefetch(a, r)
    if end > start:
        _prefetch(a, end - 1)  # the last line when the list does not start on one


@_jit(inline="always")
def _prefetch_segment(a, offsets, s):
    """:func:`_prefetch_rows` of segment ``s``'s rows ``a[offsets[s]:offsets[s + 1]]``
    (contiguous rows; ``offsets`` int64, shape (n_segments + 1,))."""
    start = offsets[s]
    _prefetch_rows(a, start, offsets[s + 1] - start)


KIND_MEAN, KIND_AP, KIND_RR = 0, 1, 2
MODE_AVERAGE, MODE_OPTIMISTIC, MODE_PESSIMISTIC, MODE_STABLE = 0, 1, 2, 3

_SMALL = 16


@_jit(inline="always")
def _slot(seg_query, s):
    """The output slot of segment s: ``seg_query[s]``, or s itself when ``seg_query`` is
    empty (queries in order, see Layout above)."""
    return seg_query[s] if seg_query.shape[0] > 0 else s


@_jit(inline="always")
def _before(k, i, a, b):
    """Rank order: higher score first, then the earlier row."""
    return k[a] > k[b] or (k[a] == k[b] and i[a] < i[b])


@_jit(inline="always")
def _swap(k, i, a, b):
    t = k[a]
    k[a] = k[b]
    k[b] = t
    u = i[a]
    i[a] = i[b]
    i[b] = u


@_jit()
def _insertion(k, i, lo, hi):
    for a in range(lo + 1, hi):
        kv = k[a]
        iv = i[a]
        b = a - 1
        while b >= lo and (kv > k[b] or (kv == k[b] and iv < i[b])):
            k[b + 1] = k[b]
            i[b + 1] = i[b]
            b -= 1
        k[b + 1] = kv
        i[b + 1] = iv


@_jit()
def _sift(k, i, lo, root, n):
    # max-heap in "after" order (the last in rank order on top): sorts into rank order
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and _before(k, i, lo + child, lo + child + 1):
            child += 1
        if _before(k, i, lo + root, lo + child):
            _swap(k, i, lo + root, lo + child)
            root = child
        else:
            return


@_jit()
def _heapsort(k, i, lo, hi):
    n = hi - lo
    for root in range(n // 2 - 1, -1, -1):
        _sift(k, i, lo, root, n)
    for end in range(n - 1, 0, -1):
        _swap(k, i, lo, lo + end)
        _sift(k, i, lo, 0, end)


@_jit()
def _sort_ascending(v, n):
    """Sort ``v[:n]`` ascending in place (heapsort: no work space; numpy's sort allocates)."""
    for root in range(n // 2 - 1, -1, -1):
        _sift_values(v, root, n)
    for end in range(n - 1, 0, -1):
        t = v[0]
        v[0] = v[end]
        v[end] = t
        _sift_values(v, 0, end)


@_jit(inline="always")
def _sift_values(v, root, n):
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and v[child] < v[child + 1]:
            child += 1
        if v[root] < v[child]:
            t = v[root]
            v[root] = v[child]
            v[child] = t
            root = child
        else:
            return


@_jit()
def _partition(k, i, lo, hi):
    """Median-of-three Hoare-style partition of [lo, hi); returns the pivot's final slot."""
    mid = (lo + hi - 1) >> 1
    last = hi - 1
    if _before(k, i, mid, lo):
        _swap(k, i, mid, lo)
    if _before(k, i, last, lo):
        _swap(k, i, last, lo)
    if _before(k, i, last, mid):
        _swap(k, i, last, mid)
    _swap(k, i, mid, last - 1)  # pivot at last - 1; lo and last are sentinels
    p = last - 1
    a = lo
    b = last - 1
    while True:
        a += 1
        while _before(k, i, a, p):
            a += 1
        b -= 1
        while _before(k, i, p, b):
            b -= 1
        if a >= b:
            break
        _swap(k, i, a, b)
    _swap(k, i, a, p)
    return a


@_jit()
def sort_range(k, i, lo, hi, stack):
    """Sort (k, i)[lo:hi] in rank order in place: introsort (quicksort; heapsort for a range
    that has been partitioned 2 log2(n) times, so the worst case stays O(n log n)).
    ``stack``: int64 work space of at least 192 entries (allocated once by the caller)."""
    if hi - lo <= _SMALL:
        _insertion(k, i, lo, hi)
        return
    stack[0] = lo
    stack[1] = hi
    stack[2] = 2 * (int(np.log2(max(hi - lo, 2))) + 1)
    top = 3
    while top > 0:
        top -= 3
        a = stack[top]
        b = stack[top + 1]
        budget = stack[top + 2]
        while b - a > _SMALL:
            if budget <= 0:
                _heapsort(k, i, a, b)
                a = b
                break
            budget -= 1
            p = _partition(k, i, a, b)
            # push the larger side, loop on the smaller: the stack stays O(log n)
            if p - a > b - p - 1:
                stack[top] = a
                stack[top + 1] = p
                a = p + 1
            else:
                stack[top] = p + 1
                stack[top + 1] = b
                b = p
            stack[top + 2] = budget
            top += 3
        if b - a > 1:
            _insertion(k, i, a, b)


@_jit()
def select_top(k, i, lo, hi, d):
    """Rearrange (k, i)[lo:hi] so that its first ``d`` are the ``d`` first in rank order."""
    target = lo + d - 1
    a = lo
    b = hi
    while b - a > _SMALL:
        p = _partition(k, i, a, b)
        if p == target:
            return
        if p < target:
            a = p + 1
        else:
            b = p
    _insertion(k, i, a, b)


_TINY = 24


@_jit(inline="always")
def _sort_tiny(k, i, c, tk, ti):
    """Sort (k, i)[:c] (c <= _TINY, ``i`` ascending) in rank order by counting each entry's
    rank: comparisons are summed, never branched on (random scores mispredict branches)."""
    for a in range(c):
        tk[a] = k[a]
        ti[a] = i[a]
    for a in range(c):
        ka = tk[a]
        r = 0
        for b in range(a):  # earlier rows first among equal scores
            r += tk[b] >= ka
        for b in range(a + 1, c):  # index loops: a slice costs a reference count
            r += tk[b] > ka
        k[r] = ka
        i[r] = ti[a]


@_jit(inline="always")
def _rank_count(v, c, a):
    """Entry ``a`` of ``v[:c]`` against all c entries, summed without a branch in a loop that
    vectorises: (entries above it, entries equal to it itself included, equal entries before
    it). Its place in descending order, earlier entries first among equals, is
    ``above + earlier``; its tie group holds ranks ``above .. above + tie - 1``."""
    va = v[a]
    above = np.int32(0)  # 32-bit counts: twice the lanes of 64-bit ones (c is small)
    tie = np.int32(0)
    earlier = np.int32(0)
    for b in range(c):
        vb = v[b]
        above += np.int32(vb > va)
        e = np.int32(vb == va)
        tie += e
        earlier += e & np.int32(b < a)
    return above, tie, earlier


@_jit(inline="always")
def _place_tiny(k, order, has_order, o, c, i, code):
    """Rank order of the c <= _TINY scores ``k[:c]`` of segment [o, o+c) without moving them:
    the row of rank p into ``i[p]`` (ties by row) and its tie group (first rank, size) into
    ``code[p]`` as first * 32 + size. Every row is compared with all c rows
    (:func:`_rank_count`): c * c comparisons, but with no counter kept in memory and an inner
    loop that vectorises (5-row lists: 0.6x the time of comparing each pair once with counters
    in a buffer; 24 rows: 0.4x)."""
    for a in range(c):
        above, tie, earlier = _rank_count(k, c, a)
        r = above + earlier
        i[r] = order[o + a] if has_order else o + a
        code[r] = above * 32 + tie


@_jit(inline="always")
def _merge(sk, si, dk, di, lo, mid, hi):
    """Stable merge of the runs [lo, mid) and [mid, hi) of (sk, si) into (dk, di), by score
    descending; the choice is a select, not a branch."""
    a = lo
    b = mid
    d = lo
    while a < mid and b < hi:
        ka = sk[a]
        kb = sk[b]
        left = ka >= kb
        dk[d] = ka if left else kb
        di[d] = si[a] if left else si[b]
        a += left
        b += not left
        d += 1
    while a < mid:
        dk[d] = sk[a]
        di[d] = si[a]
        a += 1
        d += 1
    while b < hi:
        dk[d] = sk[b]
        di[d] = si[b]
        b += 1
        d += 1


@_jit()
def _merge_sort(k, i, c, tk, ti):
    """Stable sort of (k, i)[:c] by score descending, (tk, ti) of size >= c as work space:
    runs of 8 ordered by counting ranks, then bottom-up branch-free merges. With ``i``
    ascending on entry this is the rank order (ties by row)."""
    run = 8
    for lo in range(0, c, run):
        n = min(run, c - lo)
        for a in range(n):
            tk[a] = k[lo + a]
            ti[a] = i[lo + a]
        for a in range(n):
            ka = tk[a]
            r = 0
            for b in range(a):
                r += tk[b] >= ka
            for b in range(a + 1, n):
                r += tk[b] > ka
            k[lo + r] = ka
            i[lo + r] = ti[a]
    in_k = True
    width = run
    while width < c:
        for lo in range(0, c, 2 * width):
            mid = min(lo + width, c)
            hi = min(lo + 2 * width, c)
            if in_k:
                _merge(k, i, tk, ti, lo, mid, hi)
            else:
                _merge(tk, ti, k, i, lo, mid, hi)
        in_k = not in_k
        width *= 2
    if not in_k:
        for a in range(c):
            k[a] = tk[a]
            i[a] = ti[a]


@_jit(inline="always")
def _sort_any(k, i, c, stack, tk, ti):
    """Sort (k, i)[:c] in rank order; ``i`` ascending on entry (rows gathered in order), and
    (tk, ti) work space of size >= c."""
    if c <= _TINY and c <= tk.shape[0]:
        _sort_tiny(k, i, c, tk, ti)
    elif not _sorted_already(k, i, c):
        if c <= tk.shape[0]:
            _merge_sort(k, i, c, tk, ti)
        else:
            sort_range(k, i, 0, c, stack)


@_jit()
def _sorted_already(k, i, c):
    for a in range(1, c):
        if _before(k, i, a, a - 1):
            return False
    return True


@_jit(inline="always")
def _sort_values(vbuf, n):
    """Sort ``vbuf[:n]`` ascending; a small tie group by insertion (no slice, no call)."""
    if n <= _SMALL:
        for a in range(1, n):
            v = vbuf[a]
            b = a - 1
            while b >= 0 and vbuf[b] > v:
                vbuf[b + 1] = vbuf[b]
                b -= 1
            vbuf[b + 1] = v
    else:
        _sort_ascending(vbuf, n)


@_jit()
def rank_segments(scores, order, offsets, depth, out_rows, counts, key, top, stack):
    """Rank every segment; ``out_rows[offsets[s]: offsets[s] + counts[s]]`` its candidates in
    rank order (all rows when ``depth < 0``).

    A small cutoff (``depth <= top.shape[0]``) finds the ``depth``-th largest score T in one
    pass (a sorted window of the ``depth`` largest so far), then copies the rows with score
    >= T in a second pass: O(m) per list. A larger cutoff uses quickselect.
    """
    has_order = order.shape[0] > 0
    for s in range(offsets.shape[0] - 1):
        o = offsets[s]
        m = offsets[s + 1] - o
        rows = out_rows[o: o + m]
        c, a, _ = _gather_top(scores, order, has_order, o, m, depth, key, rows, top)
        if not _sorted_already(key, rows, a):
            sort_range(key, rows, 0, a, stack)
        counts[s] = c


@_jit()
def cutoff_sums(scores, out_rows, counts, starts, seg_query, values, kind, mode, width,
                disc, use_disc, cuts, cut_slot, out, vbuf, curve):
    """Prefix sums of the per-position contributions, read at each cutoff.

    ``cuts`` (ascending, positions; -1 = the whole list) and ``cut_slot`` (row of ``out``):
    ``out[cut_slot[j], query] = sum of contributions over ranks 1..min(cuts[j], width, c)``.
    With ``curve`` (2-D, n_queries x depth) every prefix sum up to its width is written there
    instead, flat past the end of the list.
    """
    n_cuts = cuts.shape[0]
    depth = curve.shape[1]
    for s in range(starts.shape[0]):
        o = starts[s]
        c = counts[s]
        w = c if width < 0 else min(width, c)
        q = _slot(seg_query, s)
        cz = 0.0
        cum = 0.0
        f = 1.0
        j = 0
        g0 = 0
        while g0 < w:
            sc = scores[out_rows[o + g0]]
            g1 = g0 + 1
            if mode != MODE_STABLE:
                while g1 < c and scores[out_rows[o + g1]] == sc:
                    g1 += 1
            resolve = (mode == MODE_OPTIMISTIC or mode == MODE_PESSIMISTIC) and g1 - g0 > 1
            if resolve:
                n_g = g1 - g0
                for a in range(n_g):
                    vbuf[a] = values[out_rows[o + g0 + a]]
                _sort_values(vbuf, n_g)
            else:
                before_g = cz
                for a in range(g0, g1):
                    cz += values[out_rows[o + a]]
                total_g = cz - before_g
                size_g = float(g1 - g0)
            for p in range(g0, min(g1, w)):
                if resolve:
                    v = vbuf[g1 - 1 - p] if mode == MODE_OPTIMISTIC else vbuf[p - g0]
                    before = cz
                    cz += v
                    total = cz - before
                    size = 1.0
                    offset = 0.0
                else:
                    before = before_g
                    total = total_g
                    size = size_g
                    offset = float(p - g0)
                pos = float(p)
                if kind == KIND_MEAN:
                    contrib = total / size
                elif kind == KIND_AP:
                    contrib = _ap_term(total, size, before, offset, pos)
                else:
                    if before == 0.0 and total > 0.0:
                        f, contrib = _rr_step(f, size, total, offset, pos)
                    else:
                        contrib = 0.0 / (pos + 1.0)
                if use_disc:
                    contrib = contrib * disc[p]
                cum += contrib
                if depth > 0:
                    if p < depth:
                        curve[q, p] = cum
                else:
                    while j < n_cuts and cuts[j] == p + 1:
                        out[cut_slot[j], q] = cum
                        j += 1
            g0 = g1
        if depth > 0:
            for p in range(w, depth):
                curve[q, p] = cum
        else:
            while j < n_cuts:  # cutoffs past the list (or -1: the whole list)
                out[cut_slot[j], q] = cum
                j += 1


@_jit()
def count_runs(q):
    """(number of runs of equal neighbours in ``q``, whether ``q`` is non-decreasing): one
    pass, no branch on the data (it vectorises). Ids are compared, never subtracted."""
    runs = 1
    up = True
    for i in range(1, q.shape[0]):
        a = q[i - 1]
        b = q[i]
        runs += np.int64(a != b)
        up &= b >= a
    return runs, up


_LONG_RUNS = 64  # mean run length from which run_offsets branches on a run's start


@_jit()
def equal_runs(q, n_runs):
    """Whether the ``n_runs`` runs of equal neighbours of ``q`` (from :func:`count_runs`, q of
    length n = n_runs x L) all hold L rows: the rows at multiples of L all start a run (then
    they are every run's start). One strided pass over n_runs rows, no branch on the data."""
    size = q.shape[0] // n_runs
    ok = True
    for r in range(1, n_runs):
        ok &= q[r * size] != q[r * size - 1]
    return ok


@_jit()
def first_run(q):
    """The length of the first run of equal neighbours of the non-empty ``q``."""
    n = q.shape[0]
    i = 1
    while i < n and q[i] == q[0]:
        i += 1
    return i


@_jit()
def runs_begin(q, size, n_runs):
    """Whether the first ``n_runs`` runs of ``size`` rows of ``q`` are runs of equal ids in
    increasing order (as :func:`runs_of`, writing nothing): a cheap look before the ids'
    buffer is allocated."""
    prev = q[0]
    for r in range(n_runs):
        o = r * size
        v = q[o]
        if r > 0 and not v > prev:
            return False
        for j in range(o + 1, o + size):
            if q[j] != v:
                return False
        prev = v
    return True


@_jit()
def runs_of(q, size, ids):
    """Whether the non-empty ``q`` (length a multiple of ``size``) is ``len(ids)`` runs of
    ``size`` equal ids in increasing order (queries of one size, sorted); each run's id goes
    into ``ids`` (q's dtype, n // size). One pass that stops at the first run that breaks the
    pattern (ids compared, never subtracted): for such input it replaces :func:`count_runs`,
    :func:`equal_runs` and a strided copy of the ids (1 M queries of 5 rows: about 0.75x
    their time)."""
    prev = q[0]
    for r in range(ids.shape[0]):
        o = r * size
        v = q[o]
        if r > 0 and not v > prev:
            return False
        same = True
        for j in range(o + 1, o + size):
            same &= q[j] == v
        if not same:
            return False
        ids[r] = v
        prev = v
    return True


_MEAN_RUN = 32  # long_runs: the mean run length it keeps to (else the two passes)
_RUN_PROBE = 64  # runs read before that mean is enforced


@_jit()
def long_runs(q, offsets, ids):
    """The runs of equal neighbours of the non-empty ids ``q`` (n,) in one pass, when the ids
    increase from run to run and the runs are long: each run's first row into ``offsets``
    (int64, the last entry n) and its id into ``ids`` (q's dtype); returns the number of
    runs r, or -1 as soon as an id decreases, or more than ``_RUN_PROBE`` runs average fewer
    than ``_MEAN_RUN`` rows, or the runs outgrow ``offsets`` (then :func:`count_runs` and
    :func:`run_offsets` decide). r <= n / _MEAN_RUN + _RUN_PROBE, so ``offsets`` of that
    length + 1 always has room. A branch on each run's start (predicted in long runs: one
    miss per run; 1.2 M rows in runs of 20..220: 0.7x the time of the two passes)."""
    n = q.shape[0]
    cap = offsets.shape[0] - 1
    prev = q[0]
    offsets[0] = 0
    ids[0] = prev
    r = 1
    for i in range(1, n):
        b = q[i]
        if b != prev:
            if not b > prev or r == cap or (r >= _RUN_PROBE and r * _MEAN_RUN > i):
                return -1
            offsets[r] = i
            ids[r] = b
            r += 1
            prev = b
    offsets[r] = n
    return r


@_jit()
def run_offsets(q, offsets, ids, sizes):
    """The first row of every run of equal neighbours in the non-empty ids ``q`` (n,) into
    ``offsets`` (int64, runs + 1: the last is n), its id into ``ids`` (q's dtype, runs + 1:
    the last slot is work space) and its length into ``sizes`` (int64, runs), with runs from
    :func:`count_runs`. Branch-free: every row is written at the current run's slot, which
    moves on after a run's first row, so each slot keeps its run's first row. When the runs
    average ``_LONG_RUNS`` rows or more, a branch on each run's start writes only those rows
    (1.2 M rows in runs of 20..220: 0.45x the time of the branch-free pass; runs of random
    lengths 10..40 mispredict it: 1.3x)."""
    n = q.shape[0]
    r = 1
    offsets[0] = 0
    ids[0] = q[0]
    i0 = 1
    if n >= _LONG_RUNS * sizes.shape[0]:
        # long runs: a branch on a run's start is predicted (one miss per run) and rows inside
        # a run write nothing
        for i in range(1, n):
            if q[i] != q[i - 1]:
                offsets[r] = i
                ids[r] = q[i]
                r += 1
        i0 = n
    for i in range(i0, n):
        new = np.int64(q[i] != q[i - 1])
        offsets[r] = i
        ids[r] = q[i]
        r += new
    offsets[r] = n
    for j in range(r):
        sizes[j] = offsets[j + 1] - offsets[j]


@_jit(inline="always")
def _widen(lo, hi, v):
    """(lo, hi) widened to hold v."""
    return min(lo, v), max(hi, v)


@_jit()
def int_range(labels):
    """(smallest, largest) of a non-empty integer array, in one pass."""
    lo = labels[0]
    hi = labels[0]
    for i in range(labels.shape[0]):
        lo, hi = _widen(lo, hi, labels[i])
    return lo, hi


@_jit()
def float_range(labels):
    """(smallest, largest, every value an integer) of a non-empty float array, in one pass;
    a NaN makes the last False."""
    lo = labels[0]
    hi = labels[0]
    whole = True
    for i in range(labels.shape[0]):
        v = labels[i]
        lo, hi = _widen(lo, hi, v)
        whole &= v == np.floor(v)
    return lo, hi, whole


@_jit()
def take_table(table, labels, out):
    """``out[i] = table[labels[i]]``; the labels are integer values inside the table."""
    for i in range(labels.shape[0]):
        out[i] = table[np.int64(labels[i])]


@_jit()
def count_nonzero(values):
    """The number of non-zero entries of a 1-D numeric array, in one pass (it vectorises)."""
    n = 0
    for i in range(values.shape[0]):
        n += np.int64(values[i] != 0)
    return n


TABLE_LOOKUP, TABLE_EXP2, TABLE_LEVEL = 0, 1, 2  # take_ranged: how the table is read


@_jit()
def take_ranged(table, labels, out, rule):
    """``out[i] = table[labels[i]]`` with each label clipped into the table (uint8, >= 1
    entry), and the (smallest, largest) label in the same pass (integer labels, non-empty):
    the lookup is the gains when the range lies inside the table. ``rule``: TABLE_EXP2 when
    ``table[l] == 2**l - 1`` for every entry (the exponential gain), TABLE_LEVEL when
    ``table[l] == l`` (linear): the entry is computed, not gathered, so the loop vectorises
    (1.2 M int64 labels: 0.5x the time of the lookup); TABLE_LOOKUP for any table."""
    last = np.uint64(table.shape[0] - 1)
    lo = labels[0]
    hi = labels[0]
    n = labels.shape[0]
    # one loop per rule: a choice inside would keep them from vectorising
    if rule == TABLE_EXP2:
        for i in range(n):
            v = labels[i]
            lo, hi = _widen(lo, hi, v)
            c = min(np.uint64(v), last)  # a negative label wraps high: clipped too
            out[i] = np.uint8((_ONE << c) - _ONE)
    elif rule == TABLE_LEVEL:
        for i in range(n):
            v = labels[i]
            lo, hi = _widen(lo, hi, v)
            out[i] = np.uint8(min(np.uint64(v), last))
    else:
        for i in range(n):
            v = labels[i]
            lo, hi = _widen(lo, hi, v)
            out[i] = table[min(np.uint64(v), last)]
    return lo, hi


@_jit()
def divide_ideal(vals, ideal, fill):
    """Normalise in place: ``vals[i] / ideal[i]`` (nDCG = DCG / ideal DCG, Järvelin &
    Kekäläinen 2002, eq. 5; nCG likewise), or ``fill`` where ``ideal[i] <= 0`` (an empty
    query); ``vals`` and ``ideal`` float64 of shape (n,), ``ideal`` only read. Returns the
    number of such places (int) and whether a value of ``vals`` was NaN or inf before it was
    divided (bool: a sum that overflowed); raises nothing. The division is made everywhere
    (IEEE, no test) and the fill selected after it, so the loop vectorises."""
    n_zero = 0
    bad = False
    for i in range(vals.shape[0]):
        d = ideal[i]
        v = vals[i]
        bad |= (v - v) != 0.0
        r = v / d
        z = d <= 0.0
        n_zero += z
        vals[i] = fill if z else r
    return n_zero, bad


@_jit()
def segment_sums(values, order, offsets, seg_query, out):
    """out[seg_query[s]] = sum of values over segment s (sequential)."""
    has_order = order.shape[0] > 0
    for s in range(offsets.shape[0] - 1):
        acc = 0.0
        for j in range(offsets[s], offsets[s + 1]):
            acc += values[order[j] if has_order else j]
        out[_slot(seg_query, s)] = acc


_LEVELS = 64


@_jit(inline="always")
def _record(acc, p, q, cuts, cut_slot, out, curve, j):
    """Store the running sum after position p; returns the next cutoff index (or -1: done)."""
    if curve.shape[1] > 0:
        if p < curve.shape[1]:
            curve[q, p] = acc
            return j
        return -1
    while j < cuts.shape[0] and cuts[j] == p + 1:
        out[cut_slot[j], q] = acc
        j += 1
    return -1 if j == cuts.shape[0] else j


@_jit(inline="always")
def _top_window(values, order, has_order, o, m, d, top):
    """The ``d`` largest values of segment [o, o+m) into ``top[:d]``, ascending (an insertion
    window: O(m) for small d, no allocation). Returns ``top[0]``, the d-th largest."""
    if has_order:
        for j in range(d):
            _window_fill(values[order[o + j]], j, top)
        e = _offered(m, d, top)
        for j in range(d, e):
            _window_offer(values[order[o + j]], d, top)
        t0 = top[0]
        for j in range(e, m):
            t0 = _window_step(values[order[o + j]], t0, d, top)
        return t0
    src = values[o: o + m]  # the row-order choice outside the loops
    for j in range(d):
        _window_fill(src[j], j, top)
    e = _offered(m, d, top)
    for j in range(d, e):
        _window_offer(src[j], d, top)
    t0 = top[0]
    for j in range(e, m):
        t0 = _window_step(src[j], t0, d, top)
    return t0


@_jit(inline="always")
def _offered(m, d, top):
    """Rows [d, e) of a list enter the filled window ``top[:d]`` without a branch: early on
    most rows enter (the j-th one with probability about d / j in random order), so a branch
    on it mispredicts and costs more than offering each row; 4 d rows for d <= 16 (1 M rows of
    lists of 20..220 with d = 10: 30 % less time), none for a larger window (O(d) per row) or
    when the first d rows tie (a heavily tied list: rows rarely enter, the branch predicts)."""
    if d > 16 or top[0] == top[d - 1]:
        return d
    return min(m, 4 * d)


@_jit(inline="always")
def _window_offer(v, d, top):
    """``top[:d]`` (ascending) after offering v, without a branch: v enters when above
    ``top[0]`` (the smallest leaves), else nothing changes."""
    for i in range(d - 1):
        nxt = top[i + 1]
        cur = top[i]
        lower = nxt if nxt < v else v
        top[i] = lower if cur < v else cur
    cur = top[d - 1]
    top[d - 1] = v if cur < v else cur


@_jit(inline="always")
def _window_fill(v, j, top):
    """The window's (j+1)-th value: ``top[:j+1]`` ascending."""
    b = j - 1
    while b >= 0 and top[b] > v:
        top[b + 1] = top[b]
        b -= 1
    top[b + 1] = v


@_jit(inline="always")
def _window_step(v, t0, d, top):
    """One value past the window's fill: it enters when above the smallest, ``t0``."""
    if v > t0:
        b = 1
        while b < d and top[b] < v:
            top[b - 1] = top[b]
            b += 1
        top[b - 1] = v
        t0 = top[0]
    return t0


@_jit()
def ideal_sums(gains, order, offsets, seg_query, disc, cuts, cut_slot, out, buf, curve, first,
               levels, counts, top, tally, memo_keys, memo_vals):
    """Ideal (gains sorted descending) discounted sums at each cutoff, or the whole curve.

    A contiguous list of at most 8 uint8 gains, every cutoff at or past its end, is looked up
    in a memo of such lists (:func:`_memo_slot`; ``memo_keys`` uint64 and ``memo_vals``
    float64 of one power-of-two length, zeros) and ordered by a sorting network when it is not
    there; the memo is left off once most lists miss it (their gains rarely repeat).
    A list of at most ``_TINY`` rows is placed by counting; longer contiguous lists of at most
    255 uint8 gains of eight levels at most (2**l - 1 or l for l <= 7: the exponential or
    linear gain of labels 0..7) count their levels in the bytes of one uint64
    (:func:`_ideal_packed`: lists of 20..220 rows 0.78x the time of the tally), other lists of
    uint8 gains are ordered by a tally of each value (``tally``: (4, 256) zeros, left zero:
    on lists of 20..220 rows 0.3x the time of a window of the 10 largest), other gains by a
    window of the largest when only the first few ranks are read; a list with at most 64
    distinct gains (graded labels) is ordered by counting them, with no buffer; others are
    sorted in ``buf``. Returns -1, or the first segment (from ``first``) whose list does not
    fit in ``buf``.
    """
    has_order = order.shape[0] > 0
    depth = curve.shape[1]
    # the deepest rank read: a small one keeps a window of the largest gains (one pass,
    # a branch that is almost never taken once the window is full)
    deep = depth if depth > 0 else (cuts[cuts.shape[0] - 1] if cuts.shape[0] else 0)
    lim = deep  # ranks past it are never read (nor their discount)
    memo = memo_keys.shape[0] > 1
    shift = np.uint64(64)
    while memo and (np.int64(1) << np.int64(64 - shift)) < memo_keys.shape[0]:
        shift -= np.uint64(1)
    misses = 0
    # uint8 gains that are 2**l - 1 for levels l <= 7 (the exponential gain), or levels <= 7
    # themselves (linear): a list of <= 255 rows counts its levels in one uint64; the gains
    # are looked at when the first list longer than _TINY needs it (short lists never do)
    by_level = _PACK_UNSEEN
    for s in range(first, offsets.shape[0] - 1):
        o = offsets[s]
        m = offsets[s + 1] - o
        q = _slot(seg_query, s)
        if m <= 8 and gains.itemsize == 1 and not has_order and o + 8 <= gains.shape[0]:
            g = gains[o: o + 8]
            if memo and depth == 0 and cuts[0] >= m:  # the whole list is summed: memo
                key, h = _memo_slot(g, m, shift)
                if memo_keys[h] == key:
                    acc = memo_vals[h]
                else:
                    _ideal_net8(g, m, top)
                    acc = 0.0
                    for p in range(m):
                        acc += top[p] * disc[p]
                    memo_keys[h] = key
                    memo_vals[h] = acc
                    misses += 1
                    if misses > 4096 and 2 * misses > s - first:
                        memo = False
                for j in range(cuts.shape[0]):
                    out[cut_slot[j], q] = acc
                continue
            _ideal_net8(g, m, top)  # up to 8 uint8 gains: a sorting network
        elif (0 < deep <= _LEVELS and deep < m and m > _TINY
                and gains.itemsize > 1):  # a window of the largest
            _top_window(gains, order, has_order, o, m, deep, top)
            acc = 0.0
            j = 0
            for p in range(deep):
                acc += top[deep - 1 - p] * disc[p]
                j = _record(acc, p, q, cuts, cut_slot, out, curve, j)
                if j < 0:
                    break
            continue
        elif m <= _TINY:  # a short list: each gain's place counted (no branches)
            if has_order:
                for a in range(m):
                    levels[a] = gains[order[o + a]]
                _ideal_place(levels, m, top)
            else:
                _ideal_place(gains[o: o + m], m, top)
        if m <= _TINY:  # a short list, ordered in top: summed
            acc = 0.0
            j = 0
            if depth == 0 and cuts[0] >= m:  # every cutoff past the list: no stores inside
                for p in range(m):
                    acc += top[p] * disc[p]
            else:
                for p in range(min(m, lim)):
                    acc += top[p] * disc[p]
                    j = _record(acc, p, q, cuts, cut_slot, out, curve, j)
                    if j < 0:
                        break
        elif gains.itemsize == 1:
            if by_level == _PACK_UNSEEN:
                by_level = _PACK_NONE if has_order else _levels_rule(gains)
            if by_level != _PACK_NONE and m <= 255:
                acc, j = _ideal_packed(gains[o: o + m], m, lim, disc, q, cuts, cut_slot, out,
                                       curve, by_level)
            else:
                acc, j = _ideal_tallied(gains, order, has_order, o, m, lim, disc, q, cuts,
                                        cut_slot, out, curve, tally)
        else:
            r = _ideal_levels(gains, order, has_order, o, m, lim, disc, q, cuts, cut_slot, out,
                              curve, levels, counts, buf)
            if r[1] == _NO_ROOM:
                return s
            acc, j = r
        if j >= 0:  # lists shorter than a cutoff or the curve: flat past their end
            if depth > 0:
                for pp in range(m, depth):
                    curve[q, pp] = acc
            else:
                while j < cuts.shape[0]:
                    out[cut_slot[j], q] = acc
                    j += 1
    return -1


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Knuth's multiplicative hash (TAOCP vol. 3, 6.4)


@_jit(inline="always")
def _memo_slot(g, m, shift):
    """(key, slot) of the m <= 8 uint8 gains ``g[:m]`` (``g`` holds 8 entries) in a memo of
    ``2 ** (64 - shift)`` slots (shift < 64): the key is the gains as the bytes of a uint64,
    those past m zero. A key determines the ideal sums of every list that has it: zero gains
    past a list add exact zeros, so lists equal up to trailing zeros share a key and a value,
    and an all-zero slot (key 0, value 0.0) is a valid entry."""
    key = _ZERO
    for b in range(8):
        key |= np.uint64(g[b]) << np.uint64(8 * b)
    keep = (_ALL64 >> np.uint64(64 - 8 * m)) if m > 0 else _ZERO
    key &= keep
    return key, np.int64((key * _GOLDEN) >> shift)


@_jit(inline="always")
def _cx(a, b):
    """A comparator of a sorting network: the pair in descending order (max, min: no branch)."""
    return max(a, b), min(a, b)


@_jit(inline="always")
def _ideal_net8(g, m, top):
    """The m <= 8 uint8 gains ``g[:m]`` into ``top[:m]`` (float64, >= 8 entries; ``top[m:8]``
    get 0) descending (``g`` holds 8 entries, those past m another list's: read as 0, which
    sorts last among gains >= 0) by Batcher's
    odd-even merge sort network for 8 inputs (19 comparators; Knuth, TAOCP vol. 3, 5.3.4):
    registers only, no branch (1 M lists of 5 gains: 0.4x the time of counting places)."""
    v0 = np.int32(g[0]) & -np.int32(0 < m)
    v1 = np.int32(g[1]) & -np.int32(1 < m)
    v2 = np.int32(g[2]) & -np.int32(2 < m)
    v3 = np.int32(g[3]) & -np.int32(3 < m)
    v4 = np.int32(g[4]) & -np.int32(4 < m)
    v5 = np.int32(g[5]) & -np.int32(5 < m)
    v6 = np.int32(g[6]) & -np.int32(6 < m)
    v7 = np.int32(g[7]) & -np.int32(7 < m)
    v0, v1 = _cx(v0, v1)
    v2, v3 = _cx(v2, v3)
    v4, v5 = _cx(v4, v5)
    v6, v7 = _cx(v6, v7)
    v0, v2 = _cx(v0, v2)
    v1, v3 = _cx(v1, v3)
    v4, v6 = _cx(v4, v6)
    v5, v7 = _cx(v5, v7)
    v1, v2 = _cx(v1, v2)
    v5, v6 = _cx(v5, v6)
    v0, v4 = _cx(v0, v4)
    v1, v5 = _cx(v1, v5)
    v2, v6 = _cx(v2, v6)
    v3, v7 = _cx(v3, v7)
    v2, v4 = _cx(v2, v4)
    v3, v5 = _cx(v3, v5)
    v1, v2 = _cx(v1, v2)
    v3, v4 = _cx(v3, v4)
    v5, v6 = _cx(v5, v6)
    top[0] = v0
    top[1] = v1
    top[2] = v2
    top[3] = v3
    top[4] = v4
    top[5] = v5
    top[6] = v6
    top[7] = v7


@_jit(inline="always")
def _ideal_place(g, m, top):
    """The m <= _TINY gains ``g[:m]`` into ``top[:m]`` descending, each placed by counting the
    gains above it and the equal ones before it (:func:`_rank_count`)."""
    for a in range(m):
        above, _, earlier = _rank_count(g, m, a)
        top[above + earlier] = g[a]


_NO_ROOM = -2  # _ideal_levels: the list does not fit in the sort buffer


_PACK_UNSEEN, _PACK_NONE, _PACK_EXP2, _PACK_LEVEL = -1, 0, 1, 2


@_jit()
def _levels_rule(gains):
    """_PACK_EXP2 when every uint8 gain is 2**l - 1 with l <= 7, _PACK_LEVEL when every gain
    is at most 7, else _PACK_NONE (one pass that vectorises)."""
    pow2 = True
    small = True
    for i in range(gains.shape[0]):
        g = np.int32(gains[i])
        pow2 &= ((g & (g + 1)) == 0) & (g <= 127)
        small &= g <= 7
    if small:
        return _PACK_LEVEL
    return _PACK_EXP2 if pow2 else _PACK_NONE


@_jit(inline="always")
def _level_of(g, rule):
    """The level (0..7) of a uint8 gain under ``rule`` (for 2**l - 1: its number of set
    bits, by arithmetic)."""
    x = np.uint64(g)
    if rule == _PACK_LEVEL:
        return x
    x = x - ((x >> _ONE) & np.uint64(0x55))
    x = (x & np.uint64(0x33)) + ((x >> np.uint64(2)) & np.uint64(0x33))
    return (x + (x >> np.uint64(4))) & np.uint64(0x0F)


@_jit(inline="always")
def _ideal_packed(src, m, lim, disc, q, cuts, cut_slot, out, curve, rule):
    """:func:`ideal_sums` of a contiguous list of m <= 255 uint8 gains of levels 0..7: each
    level's count in its byte of one uint64 (no memory per row), then the gains read from
    the largest level down (the ideal vector: the gains in decreasing order, Järvelin &
    Kekäläinen 2002, eq. 4), the same terms in the same order as
    :func:`_ideal_tallied`. ``src``: (m,) uint8; returns (the sum, the next cutoff index,
    -1 once every cutoff is written)."""
    counts = _ZERO
    if rule == _PACK_LEVEL:  # one loop per rule: a choice inside keeps it from vectorising
        for a in range(m):
            counts += _ONE << (np.uint64(src[a]) << np.uint64(3))
    else:
        for a in range(m):
            counts += _ONE << (_level_of(src[a], _PACK_EXP2) << np.uint64(3))
    acc = 0.0
    j = 0
    p = 0
    stop = min(m, lim)
    for lv in range(7, -1, -1):
        c = np.int64((counts >> np.uint64(8 * lv)) & np.uint64(255))
        g = float(lv) if rule == _PACK_LEVEL else float((1 << lv) - 1)
        end = min(p + c, stop)
        while p < end:
            acc += g * disc[p]
            j = _record(acc, p, q, cuts, cut_slot, out, curve, j)
            p += 1
            if j < 0:
                return acc, j
        if p >= stop:
            break
    return acc, j


@_jit(inline="always")
def _ideal_tallied(gains, order, has_order, o, m, lim, disc, q, cuts, cut_slot, out, curve,
                   tally):
    """:func:`ideal_sums` of one list of uint8 gains, ordered by a tally of each value
    (``tally``: (4, 256) zeros, left zero; rows go to the four tallies in turn, so that equal
    neighbours do not wait on each other's count); returns (sum, next cutoff index or -1)."""
    hi = 0
    if has_order:
        for a in range(m):
            g = np.int64(gains[order[o + a]])
            tally[a & 3, g] += 1
            hi = max(hi, g)
    else:
        src = gains[o: o + m]
        for a in range(m):  # vectorises
            hi = max(hi, np.int64(src[a]))
        m4 = m & ~3
        for a in range(0, m4, 4):
            tally[0, np.int64(src[a])] += 1
            tally[1, np.int64(src[a + 1])] += 1
            tally[2, np.int64(src[a + 2])] += 1
            tally[3, np.int64(src[a + 3])] += 1
        for a in range(m4, m):
            tally[0, np.int64(src[a])] += 1
    acc = 0.0
    j = 0
    lv = hi
    left = tally[0, hi] + tally[1, hi] + tally[2, hi] + tally[3, hi]
    for p in range(min(m, lim)):
        while left == 0:  # the next smaller value present
            lv -= 1
            left = tally[0, lv] + tally[1, lv] + tally[2, lv] + tally[3, lv]
        left -= 1
        acc += float(lv) * disc[p]  # as the sorted gains' float64 times the discount
        j = _record(acc, p, q, cuts, cut_slot, out, curve, j)
        if j < 0:
            break
    for a in range(hi + 1):
        tally[0, a] = 0
        tally[1, a] = 0
        tally[2, a] = 0
        tally[3, a] = 0
    return acc, j


@_jit(inline="always")
def _ideal_levels(gains, order, has_order, o, m, lim, disc, q, cuts, cut_slot, out, curve,
                  levels, counts, buf):
    """:func:`ideal_sums` of one list: at most 64 distinct gains counted, or the gains sorted
    in ``buf``; returns (sum, next cutoff index or -1), or (0, _NO_ROOM) when they do not
    fit."""
    n_lv = 0
    for a in range(m):
        g = gains[order[o + a] if has_order else o + a]
        hit = False
        for t in range(n_lv):
            if levels[t] == g:
                counts[t] += 1
                hit = True
                break
        if not hit:
            if n_lv == _LEVELS:
                n_lv = -1
                break
            levels[n_lv] = g
            counts[n_lv] = 1
            n_lv += 1
    acc = 0.0
    j = 0
    p = 0
    if n_lv >= 0:
        for a in range(1, n_lv):  # levels descending
            lv = levels[a]
            ct = counts[a]
            b = a - 1
            while b >= 0 and levels[b] < lv:
                levels[b + 1] = levels[b]
                counts[b + 1] = counts[b]
                b -= 1
            levels[b + 1] = lv
            counts[b + 1] = ct
        for t in range(n_lv):
            g = levels[t]
            for _ in range(counts[t]):
                if p >= lim:
                    j = -1
                    break
                acc += g * disc[p]
                j = _record(acc, p, q, cuts, cut_slot, out, curve, j)
                p += 1
                if j < 0:
                    break
            if j < 0:
                break
    else:
        if m > buf.shape[0]:
            return 0.0, _NO_ROOM
        for a in range(m):
            buf[a] = gains[order[o + a] if has_order else o + a]
        _sort_ascending(buf, m)
        for p in range(min(m, lim)):
            acc += buf[m - 1 - p] * disc[p]
            j = _record(acc, p, q, cuts, cut_slot, out, curve, j)
            if j < 0:
                break
    return acc, j


@_jit()
def max_tie_group(scores, out_rows, counts, starts, width):
    """Size of the largest tie group reaching into the first ``width`` ranks of any segment."""
    best = 1
    for s in range(starts.shape[0]):
        o = starts[s]
        c = counts[s]
        w = c if width < 0 else min(width, c)
        g0 = 0
        while g0 < w:
            sc = scores[out_rows[o + g0]]
            g1 = g0 + 1
            while g1 < c and scores[out_rows[o + g1]] == sc:
                g1 += 1
            best = max(best, g1 - g0)
            g0 = g1
    return best


# ------------------------------------------------------------------------ fused evaluation
# One pass per query: select (or sort) the query's candidates into small work buffers, then
# read every measure family from them; no (n,) ranked-row array is written. Whole-list measures
# under tie averaging never sort the whole list: a position only contributes when its tie group
# holds a non-zero value (gain or relevance), so only those rows are sorted and the size and
# rank of their tie groups are counted over the list (O(m log G)); reciprocal rank reads the
# best-scored group holding a relevant row only (O(m)). Skipped positions add exact zeros, so
# the sums are those of :func:`cutoff_sums` over a full ranking, operation for operation.

DISC_NONE, DISC_TABLE, DISC_RANK = 0, 1, 2


@_jit(inline="always")
def _window_above(top, d, t0):
    """How many of the window's d values lie above its smallest, ``t0``: the candidates ranked
    above the tie group of the d-th score."""
    a = 0
    for j in range(d):
        a += top[j] > t0
    return a


@_jit(inline="always")
def _split_step(v, r, t0, key, idx, pa, pe):
    """Row r scored v into the candidates: at ``pa`` when above ``t0``, at ``pe`` when tying."""
    if v > t0:
        idx[pa] = r
        key[pa] = v
        pa += 1
    elif v == t0:
        idx[pe] = r
        key[pe] = v
        pe += 1
    return pa, pe


@_jit()
def _gather_top(scores, order, has_order, o, m, depth, key, idx, top, one_group=False):
    """Copy the candidates of segment [o, o+m) into (key, idx)[:c]: every row when
    ``depth <= 0`` or ``depth >= m``, else the ``depth`` best and every row tying the
    ``depth``-th score. Returns (c, a, moved): ``(key, idx)[a:c]`` are already in rank order
    and after all of ``[0, a)`` (the rows tying the ``depth``-th score, in row order), so only
    ``[0, a)`` needs sorting; ``moved``: quickselect reordered the rows (``idx`` is not
    ascending). With ``one_group``, c = -1 (and nothing copied) when the ``depth`` best scores
    are all equal (``top[0]``): ranks 1..depth are one tie group."""
    if 0 < depth < m and depth <= top.shape[0]:
        t0 = _top_window(scores, order, has_order, o, m, depth, top)
        if one_group and top[depth - 1] == t0:
            return -1, 0, False
        a = _window_above(top, depth, t0)
        pa = 0
        pe = a
        # rows above the depth-th score first, its ties after them
        if has_order:
            for j in range(m):
                r = order[o + j]
                pa, pe = _split_step(scores[r], r, t0, key, idx, pa, pe)
        else:
            src = scores[o: o + m]
            for j in range(m):
                pa, pe = _split_step(src[j], o + j, t0, key, idx, pa, pe)
        return pe, a, False
    for j in range(m):
        r = order[o + j] if has_order else o + j
        idx[j] = r
        key[j] = scores[r]
    if 0 < depth < m:
        select_top(key, idx, 0, m, depth)
        t = key[depth - 1]
        c = depth
        for j in range(depth, m):
            if key[j] == t:
                _swap(key, idx, c, j)
                c += 1
        return c, c, True
    return m, m, False


@_jit(inline="always")
def _none_above(src, m, t):
    """No value of ``src[:m]`` exceeds ``t``: one pass, an AND of comparisons (it vectorises,
    where a running float maximum waits on each step)."""
    ok = np.int64(1)
    for j in range(m):
        ok &= np.int64(src[j] <= t)
    return ok != 0


@_jit(inline="always")
def _tied_head(scores, o, d):
    """The first d rows of a list tie (a heavily tied list: :func:`_gather_top` may find one
    tie group heading it and then copies nothing, where the one-pass gather would copy every
    row tying the window)."""
    for j in range(o + 1, o + d):
        if scores[j] != scores[o]:
            return False
    return True


@_jit()
def _gather_top_once(src, o, m, depth, key, idx, top, tk, ti, one_group):
    """:func:`_gather_top` for ``0 < depth < m``, ``depth <= top.shape[0]`` and a list of
    contiguous rows ``src = scores[o: o + m]`` with ``m <= tk.shape[0]``, in one pass over the
    list instead of two: a row scoring at least the window's smallest so far (which only grows)
    may be a candidate and is kept in (tk, ti) in row order, and only those kept rows are split
    by the final ``depth``-th score. The same window, candidates and order."""
    for j in range(depth):
        _window_fill(src[j], j, top)
    e = _offered(m, depth, top)
    for j in range(depth, e):
        _window_offer(src[j], depth, top)
    for j in range(e):  # every row offered without a branch may be a candidate
        tk[j] = src[j]
        ti[j] = o + j
    c = e
    t0 = top[0]
    for j in range(e, m):
        v = src[j]
        if v >= t0:  # below the smallest so far: below the final one too
            tk[c] = v
            ti[c] = o + j
            c += 1
            t0 = _window_step(v, t0, depth, top)
    if one_group and top[depth - 1] == t0:
        return -1, 0, False
    a = _window_above(top, depth, t0)
    pa = 0
    pe = a
    for i in range(c):
        pa, pe = _split_step(tk[i], ti[i], t0, key, idx, pa, pe)
    return pe, a, False


_COUNTED = 64  # most candidates ranked by counting in _gather_counted


@_jit(inline="always")
def _column_floor(v, n, depth, top):
    """A lower bound of the ``depth``-th largest of ``v[:n]`` (n >= depth) in one vectorised
    pass: the rows laid out in lines of ``depth``, each column's maximum (``top[:depth]``);
    ``depth`` rows score at least the smallest of these maxima, which is returned."""
    for j in range(depth):
        top[j] = v[j]
    for j0 in range(depth, n - n % depth, depth):
        for j in range(depth):
            top[j] = max(top[j], v[j0 + j])
    t = top[0]
    for j in range(1, depth):
        t = min(t, top[j])
    return t


@_jit(inline="always")
def _keep_above(v, r, n, t, key, idx, o):
    """Rows ``j < n`` with ``v[j] >= t`` into (key, idx)[:kept] in row order (row number
    ``r[j]``, or ``o + j`` when ``r`` is empty), without a branch; returns kept. In place
    (``key`` is ``v``) is safe: a row is written at or before its own slot."""
    kept = 0
    for j in range(n):
        x = v[j]
        key[kept] = x
        idx[kept] = r[j] if r.shape[0] else o + j
        kept += np.int64(x >= t)
    return kept


@_jit(inline="always")
def _gather_counted(src, o, m, depth, key, idx, top, tk, ti):
    """:func:`_gather_top_once` without a data-dependent branch per row, for ``depth <= 16``
    and ``4 depth < m <= len(tk)``: every row scoring at least a lower bound of the
    ``depth``-th largest score (:func:`_column_floor`) is kept in row order, the bound taken
    again over the kept rows when there are many, and each kept row's rank is counted over
    the kept rows (rows above it, rows tying it earlier: exact global ranks, as every row
    above a kept row is kept). The candidates -- rows whose tie group starts before rank
    ``depth`` -- go to (key, idx) at their rank: the ranked buffer of :func:`_gather_top`, in
    the same order. Returns their count, or -1 (nothing written) when more than ``_COUNTED``
    rows are kept (heavily tied lists; the caller gathers as before). On lists of 20..220
    random rows, ``depth`` 10: 0.7x the time of the one-pass window."""
    c = _keep_above(src, ti[:0], m, _column_floor(src, m, depth, top), tk, ti, o)
    if c > _COUNTED:
        return -1
    if c >= 3 * depth:
        c = _keep_above(tk, ti, c, _column_floor(tk, c, depth, top), tk, ti, o)
    n = 0
    for a in range(c):
        above, _, earlier = _rank_count(tk, c, a)
        if above < depth:
            r = above + earlier
            key[r] = tk[a]
            idx[r] = ti[a]
            n += 1
    return n


@_jit(inline="always")
def _prefix_sums(values, idx, n, out):
    """``out[:n + 1]`` = 0 and the prefix sums of ``values[idx[:n]]`` in that order, float64;
    integer values (itemsize < 8: uint8 relevance, small gains) through an integer chain,
    exact and shorter than a float add's latency, the same numbers as the float chain."""
    out[0] = 0.0
    # the rows index through an unsigned cast: numba adds no negative-index wrap-around
    if values.itemsize < 8:
        sum_i = 0
        for p in range(n):
            sum_i += np.int64(values[np.uint64(idx[p])])
            out[p + 1] = float(sum_i)
    else:
        for p in range(n):
            out[p + 1] = out[p] + values[np.uint64(idx[p])]


@_jit(inline="always")
def _ap_term(total, size, before, offset, pos):
    """Expected AP term at 0-based rank ``pos``, the ``offset``-th place (0-based) of a tie
    group of ``size`` rows holding ``total`` relevant ones, with ``before`` relevant rows ranked
    above the group (McSherry & Najork 2008, section 3, tie-averaged precision at a relevant
    rank times its probability); the kernel's one copy of the formula. Scalars, float64."""
    # one division: total ((before + 1)(size - 1) + offset (total - 1)) over
    # size (size - 1)(pos + 1) for a group of several rows; a single row has offset 0 and
    # gives total (before + 1) / (pos + 1). ``more`` selects by arithmetic, not a conditional
    # expression, which numba lowers to a branch that keeps a loop of terms from vectorising
    more = np.float64(size > 1.0)
    den = size - more
    return (total * ((before + 1.0) * den + offset * (total - 1.0) * more)
            / (size * den * (pos + 1.0)))


@_jit(inline="always")
def _rr_step(f, size, total, offset, pos):
    """One rank of tie-averaged RR at 0-based rank ``pos``, the ``offset``-th place of the
    first tie group holding a relevant row (``size`` rows, ``total`` relevant; McSherry &
    Najork 2008, section 3): ``f``, the probability that no relevant row of the group is
    placed before this one, becomes that probability past it, and the term is the chance
    that the first relevant row lands here over the rank. Returns (f', (f - f') / (pos + 1));
    the kernel's one copy of the formula. Scalars, float64."""
    f_next = f * (max(size - total - offset, 0.0) / (size - offset))
    return f_next, (f - f_next) / (pos + 1.0)


@_jit(inline="always")
def _discounted(contrib, dmode, disc, p):
    """A term at 0-based rank p times its discount: none, ``disc[p]`` or the rank p + 1."""
    if dmode == DISC_TABLE:
        return contrib * disc[p]
    if dmode == DISC_RANK:
        return contrib * float(p + 1)
    return contrib


@_jit(inline="always")
def _store_cuts(cum, n, j, hi, cuts, slots, out, q):
    """``out[slots[j], q] = cum`` for the cutoffs ``cuts[j:hi]`` equal to n (the number of
    ranks summed so far), or for every remaining one when ``n < 0``; returns the next j."""
    while j < hi and (n < 0 or cuts[j] == n):
        out[slots[j], q] = cum
        j += 1
    return j


@_jit(inline="always")
def _sum_terms(terms, w, cuts, slots, lo, hi, out, q):
    """``terms[:w]`` (float64, one per rank) added in rank order, the sum stored at each
    cutoff ``cuts[lo:hi]`` it reaches and at the rest once all w ranks are in (as
    :func:`_store_cuts`); no store inside the loop when no cutoff ends inside."""
    cum = 0.0
    j = lo
    if cuts[lo] > w:  # no cutoff inside: a plain sum
        for p in range(w):
            cum += terms[p]
    else:
        for p in range(w):
            cum += terms[p]
            j = _store_cuts(cum, p + 1, j, hi, cuts, slots, out, q)
    _store_cuts(cum, -1, j, hi, cuts, slots, out, q)


@_jit()
def _walk(key, idx, c, w, values, kind, mode, dmode, disc, cuts, slots, lo, hi, out, q, vbuf):
    """Prefix sums of the contributions of ranks 1..w of the ranked buffer (key, idx)[:c]
    (as :func:`cutoff_sums`); ``out[slots[j], q]`` = the sum at cutoff ``cuts[j]``,
    j in [lo, hi), cuts ascending (past w: the sum over all w ranks)."""
    cz = 0.0
    cum = 0.0
    f = 1.0
    j = lo
    g0 = 0
    while g0 < w:
        sc = key[g0]
        g1 = g0 + 1
        if mode != MODE_STABLE:
            while g1 < c and key[g1] == sc:
                g1 += 1
        resolve = (mode == MODE_OPTIMISTIC or mode == MODE_PESSIMISTIC) and g1 - g0 > 1
        before_g = cz
        total_g = 0.0
        mean_g = 0.0
        size_g = float(g1 - g0)
        if resolve:
            n_g = g1 - g0
            for a in range(n_g):
                vbuf[a] = values[idx[g0 + a]]
            _sort_values(vbuf, n_g)
        else:
            for a in range(g0, g1):
                cz += values[idx[a]]
            total_g = cz - before_g
            if total_g == 0.0:  # every rank of the group adds an exact zero: read the cutoffs
                end = min(g1, w)
                while j < hi and cuts[j] <= end:
                    out[slots[j], q] = cum
                    j += 1
                g0 = g1
                continue
            mean_g = total_g / size_g  # once per group: the same bits at each of its ranks
        for p in range(g0, min(g1, w)):
            if resolve:
                v = vbuf[g1 - 1 - p] if mode == MODE_OPTIMISTIC else vbuf[p - g0]
                before = cz
                cz += v
                total = cz - before
                size = 1.0
                offset = 0.0
            else:
                before = before_g
                total = total_g
                size = size_g
                offset = float(p - g0)
            if kind == KIND_MEAN:
                contrib = total / size if resolve else mean_g
            elif kind == KIND_AP:
                contrib = _ap_term(total, size, before, offset, float(p))
            else:
                pos = float(p)
                if before == 0.0 and total > 0.0:
                    f, contrib = _rr_step(f, size, total, offset, pos)
                else:
                    contrib = 0.0 / (pos + 1.0)
            cum += _discounted(contrib, dmode, disc, p)
            j = _store_cuts(cum, p + 1, j, hi, cuts, slots, out, q)
        if kind == KIND_RR and cz > 0.0:  # past the first relevant row every term is 0
            break
        g0 = g1
    _store_cuts(cum, -1, j, hi, cuts, slots, out, q)


@_jit()
def _walk_tied(scores, order, has_order, o, m, t, wcap, values, kind, dmode, disc, cuts, slots,
               lo, hi, out, q):
    """As :func:`_walk` (tie averaging) when the list starts with one tie group, the rows
    scored ``t``, reaching past rank ``wcap``: one pass, no copy, no sort."""
    total = 0.0
    n_t = 0
    if has_order:  # in row order: the sum of the ranked group, operation for operation
        for j in range(m):
            r = order[o + j]
            if scores[r] == t:
                total += values[r]
                n_t += 1
    elif values.itemsize < 8:
        # integer values (small gains, 0/1 relevance): their float64 sum in any order is
        # the exact integer sum, so an integer sum without branches (it vectorises) is the
        # row-order sum bit for bit
        src = scores[o: o + m]
        val = values[o: o + m]
        sum_t = 0
        for j in range(m):
            e = np.int64(src[j] == t)
            n_t += e
            sum_t += np.int64(val[j]) * e
        total = float(sum_t)
    else:
        for r in range(o, o + m):
            if scores[r] == t:
                total += values[r]
                n_t += 1
    w = min(wcap, n_t)
    size = float(n_t)
    cum = 0.0
    f = 1.0
    j = lo
    for p in range(w):
        offset = float(p)
        if kind == KIND_MEAN:
            contrib = total / size
        elif kind == KIND_AP:
            contrib = _ap_term(total, size, 0.0, offset, float(p))
        else:
            pos = float(p)
            if total > 0.0:
                f, contrib = _rr_step(f, size, total, offset, pos)
            else:
                contrib = 0.0 / (pos + 1.0)
        cum += _discounted(contrib, dmode, disc, p)
        j = _store_cuts(cum, p + 1, j, hi, cuts, slots, out, q)
    _store_cuts(cum, -1, j, hi, cuts, slots, out, q)


@_jit(inline="always")
def _walk_tiny(idx, code, m, values, mode, dmode, whole, disc, cuts, slots, lo, hi, out, q,
               psum):
    """As :func:`_walk` for mean contributions (tie average or stable) of a list placed by
    :func:`_place_tiny`: the group sums are differences of the prefix sums in rank order, the
    terms added in rank order, so the result is the walk's, bit for bit."""
    _prefix_sums(values, idx, m, psum)
    w = m if whole else min(cuts[hi - 1], m)
    cum = 0.0
    j = lo
    inside = cuts[lo] <= w  # some cutoff ends inside the list: stores during the walk
    for p in range(w):
        if mode == MODE_STABLE:
            first = p
            size = 1
        else:
            first = code[p] >> 5
            size = code[p] & 31
        contrib = (psum[first + size] - psum[first]) / float(size)
        cum += _discounted(contrib, dmode, disc, p)
        if inside:
            j = _store_cuts(cum, p + 1, j, hi, cuts, slots, out, q)
    _store_cuts(cum, -1, j, hi, cuts, slots, out, q)


@_jit(inline="always")
def _walk_counted(src, vals, m, mode, dmode, whole, disc, cuts, slots, lo, hi, out, q, term,
                  acc):
    """As :func:`_walk_tiny` for a contiguous list of m <= _TINY rows with integer values,
    read in place: ``src`` (scores, float32/float64) and ``vals`` (uint8 gains or uint8 0/1
    relevance) of shape (width,), width the next multiple of 8 >= m, rows past m belonging to
    other lists. One pass per row b counts, for every row a at once (a loop over the width,
    which vectorises with no remainder and no horizontal sum), whether b ranks above a (a
    higher score, or an equal one earlier) and whether it ties a, and adds b's value to a's
    tie group sum; the lanes past m are never read back. ``acc`` (int32, shape (2, >= width)):
    place + 256 x group size, and the group sum (<= 24 x 255). The term at a's place is the
    tie average of its group's values, their sum over its size (McSherry & Najork 2008,
    section 3; ``"stable"``: a's own value), times the discount; terms go to ``term``
    (float64, >= m entries) and are added in rank order (:func:`_sum_terms`). The group sums
    are exact integers, so every term, and the sum, is :func:`_walk_tiny`'s bit for bit.
    Returns True when one of the ``width`` scores is NaN or inf (x - x is not 0; tested in the
    pass that clears ``acc``, and safe: the places stay in [0, m) whatever the scores)."""
    width = (m + 7) & ~7
    packs = acc[0]
    sums = acc[1]
    bad = False
    for a in range(width):
        packs[a] = 0
        sums[a] = 0
        bad |= (src[a] - src[a]) != 0.0
    for b in range(m):
        xb = src[b]
        vb = np.int32(vals[b])
        for a in range(width):
            e = np.int32(xb == src[a])
            packs[a] += (np.int32(xb > src[a]) | (e & np.int32(b < a))) + (e << 8)
            sums[a] += (-e) & vb
    w = m if whole else min(cuts[hi - 1], m)
    last = max(w - 1, 0)  # the discount is read up to rank w (terms past it are not added)
    # one loop per tie rule (the places are a permutation of 0..m-1, so every term is written
    # once), then the discounts in rank order
    if mode == MODE_STABLE:
        for a in range(m):
            term[np.uint64(packs[a] & 255)] = float(np.int64(vals[a]))
    else:
        for a in range(m):
            c = packs[a]
            term[np.uint64(c & 255)] = float(sums[a]) / float(c >> 8)
    for r in range(m):
        term[r] = _discounted(term[r], dmode, disc, min(r, last))
    _sum_terms(term, w, cuts, slots, lo, hi, out, q)
    return bad


@_jit(inline="always")
def _count_nonzero(values, order, has_order, o, m):
    n = 0
    for j in range(m):
        n += values[order[o + j] if has_order else o + j] != 0
    return n


_NOT_RELEVANT = np.array([-np.inf, 0.0])  # added to a score: -inf for a row not relevant


@_jit()
def _first_relevant(scores, order, has_order, o, m, values, dmode, disc):
    """Whole-list reciprocal rank (x discount) under tie averaging, in O(m): only the
    best-scored tie group holding a relevant row contributes."""
    if not has_order and values.itemsize < 8:
        # contiguous rows, integer values (0/1 relevance): two branch-free passes (they
        # vectorise); the group's sum of integers is exact in any order
        src = scores[o: o + m]
        val = values[o: o + m]
        best = -np.inf
        n_rel = 0
        for j in range(m):
            rel = np.int64(val[j] != 0)
            n_rel += rel
            x = src[j] + _NOT_RELEVANT[rel]  # -inf unless relevant (a select would branch)
            best = x if x > best else best
        if n_rel == 0:
            return 0.0
        above = 0
        size = 0
        sum_i = 0
        for j in range(m):
            e = np.int64(src[j] == best)
            above += np.int64(src[j] > best)
            size += e
            sum_i += np.int64(val[j]) * e
        total = float(sum_i)
    else:
        best = 0.0
        found = False
        for j in range(m):
            r = order[o + j] if has_order else o + j
            if values[r] != 0 and (not found or scores[r] > best):
                best = scores[r]
                found = True
        if not found:
            return 0.0
        above = 0
        size = 0
        cz = 0.0
        for j in range(m):
            r = order[o + j] if has_order else o + j
            v = scores[r]
            if v > best:
                above += 1
            elif v == best:
                size += 1
                cz += values[r]
        total = cz
    sizef = float(size)
    f = 1.0
    cum = 0.0
    for p in range(above, above + size):
        offset = float(p - above)
        f, contrib = _rr_step(f, sizef, total, offset, float(p))
        cum += _discounted(contrib, dmode, disc, p)
        if f == 0.0:  # every later term is (0 - 0) / rank
            break
    return cum


@_jit()
def _sparse_whole(scores, order, has_order, o, m, values, kind, dmode, disc, key, idx, stack,
                  tk, ti, gb, gt, inc, eq):
    """Whole-list sum of mean (gain/relevance) or AP contributions under tie averaging, sorting
    only the rows with a non-zero value: O(m log G) for G tie groups holding such rows."""
    n_c = 0
    for j in range(m):
        r = order[o + j] if has_order else o + j
        if values[r] != 0:
            key[n_c] = scores[r]
            idx[n_c] = r
            n_c += 1
    if n_c == 0:
        return 0.0
    _sort_any(key, idx, n_c, stack, tk, ti)
    n_g = 0
    cz = 0.0
    a = 0
    while a < n_c:  # tie groups of the candidates; their sums in rank order
        sc = key[a]
        before = cz
        b = a
        while b < n_c and key[b] == sc:
            cz += values[idx[b]]
            b += 1
        gb[n_g] = before
        gt[n_g] = cz - before
        key[n_g] = sc  # compact: key[g] = the group's score (descending)
        inc[n_g] = 0
        eq[n_g] = 0
        n_g += 1
        a = b
    inc[n_g] = 0
    for j in range(m):  # rank and size of every group: rows scored above it, and tying it
        v = scores[order[o + j] if has_order else o + j]
        lo = 0
        hi = n_g
        while lo < hi:
            mid = (lo + hi) >> 1
            if key[mid] > v:
                lo = mid + 1
            else:
                hi = mid
        if lo < n_g and key[lo] == v:
            eq[lo] += 1
            inc[lo + 1] += 1
        else:
            inc[lo] += 1
    cum = 0.0
    above = 0
    for g in range(n_g):
        above += inc[g]
        size = eq[g]
        sizef = float(size)
        before = gb[g]
        total = gt[g]
        mean = total / sizef
        for p in range(above, above + size):
            if kind == KIND_MEAN:
                contrib = mean
            else:
                contrib = _ap_term(total, sizef, before, float(p - above), float(p))
            cum += _discounted(contrib, dmode, disc, p)
    return cum


@_jit(inline="always")
def _family(key, idx, c, values, kind, mode, dmode, disc, cuts, slots, lo, hi, out, q, vbuf,
            whole, scores, order, has_order, o, m, stack, gb, gt, inc, eq, sparse, psum, bounds):
    """One measure family of a segment: its finite cutoffs from the ranked buffer, its
    whole-list cutoff (the last of ``cuts``, when ``whole``) from the buffer when it holds the
    whole list, else sparsely."""
    if sparse and whole:
        if hi - 1 > lo:
            w = min(cuts[hi - 2], c)
            _walk_top(key, idx, c, w, values, kind, mode, dmode, disc, cuts, slots, lo, hi - 1,
                      out, q, vbuf, psum, bounds)
        if kind == KIND_RR:
            out[slots[hi - 1], q] = _first_relevant(scores, order, has_order, o, m, values,
                                                    dmode, disc)
        return True
    w = c if whole else min(cuts[hi - 1], c)
    _walk_top(key, idx, c, w, values, kind, mode, dmode, disc, cuts, slots, lo, hi, out, q, vbuf,
              psum, bounds)
    return False


# ------------------------------------------------------------- rows ranked by numpy's sort
# A list that must be ranked whole is ranked by numpy's (vectorised) sort instead of here:
# :func:`pack_keys` writes one uint32 per row (half a uint64 key's bytes: numpy's vectorised
# sort moves twice as many per instruction): the row's score mapped linearly onto the list's
# range, best score 0, worst ``2**(32 - shift) - 1`` (rounded down: a map that never inverts
# two scores), with the row's place in its list in the low ``shift`` bits; sorting a row of
# these gives rank order (score, then row), except inside a run of rows whose scores differ
# by less than the list's range over 2**(32 - shift), which :func:`_unpack` detects and
# :func:`_unpack_exact` puts in order.

_SIGN64 = np.uint64(1 << 63)
_SIGN32 = np.uint64(1 << 31)
_LOW32 = np.uint64(0xFFFFFFFF)
_ALL32 = np.uint32(0xFFFFFFFF)
_ALL64 = np.uint64(0xFFFFFFFFFFFFFFFF)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@_jit(inline="always")
def _desc_bits(b, nbits):
    """Score bits ``b`` (uint64 holding a float of ``nbits`` 32 or 64) as an integer whose
    ascending order is the scores' descending order (IEEE 754 order: negative scores get all
    bits flipped, others the sign bit set, branch-free, then all flipped)."""
    if nbits == 32:
        return (b ^ (((_ZERO - (b >> np.uint64(31))) & _LOW32) | _SIGN32)) ^ _LOW32
    return ~(b ^ ((_ZERO - (b >> np.uint64(63))) | _SIGN64))


@_jit(inline="always")
def _score_bits(d, nbits):
    """The inverse of :func:`_desc_bits`: the score bits of ``d``."""
    if nbits == 32:
        u = d ^ _LOW32
        return u ^ _SIGN32 if u >> np.uint64(31) else (~u) & _LOW32
    u = ~d
    return u ^ _SIGN64 if u >> np.uint64(63) else ~u


@_jit()
def pack_keys(scores, bits, nbits, order, offsets, segs, packed, shift, fbuf, ubuf):
    """Row i of ``packed`` (len(segs), W), uint32: the keys of segment ``segs[i]``, then
    padding that sorts last (all ones; a real key equal to it decodes the same). A row's key is
    ``floor((hi - x) * top / (hi - lo)) << shift | place`` for its score x, the list's best hi
    and worst lo, ``top = 2**(32 - shift) - 1``, clamped to [0, top]: each step is monotone in
    x under IEEE rounding, so a better score never gets a larger key, and equal scores (-0.0
    and +0.0 too) get equal keys. ``bits``: the scores (float32/float64) viewed as unsigned
    integers of ``nbits``; hi and lo are found on them (integer minima vectorise, float ones
    do not). NaN and inf get keys in range (their lists are rejected before they are read).
    ``shift`` <= 16; ``fbuf``: two floats of the scores' dtype (work space), ``ubuf`` the same
    memory viewed as ``bits``' dtype.

    The next list's scores are prefetched while one is packed: a class's lists lie apart in
    memory, where the CPU's own prefetcher, which follows one stream, finds each anew
    (seven measures in one call: 0.86x the time with the prefetch in :func:`eval_segments`).

    Returns True when every score of these lists is finite: in the IEEE order of the bits
    -NaN < -inf < finite < +inf < +NaN, so a list holds a NaN or an infinity exactly when its
    best or worst score is one (the test costs nothing past the minimum and maximum)."""
    has_order = order.shape[0] > 0
    finite = True
    sh = np.uint32(shift)
    top = float((1 << (32 - shift)) - 1)
    width = packed.shape[1]
    for i in range(segs.shape[0]):
        s = segs[i]
        o = offsets[s]
        m = offsets[s + 1] - o
        row = packed[i]
        if not has_order and i + 1 < segs.shape[0]:
            _prefetch_segment(bits, offsets, segs[i + 1])
        # the row-order choice outside the loops: inside, it kept them from vectorising
        d_lo = _ALL64
        d_hi = _ZERO
        if has_order:
            for j in range(m):
                d = _desc_bits(np.uint64(bits[order[o + j]]), nbits)
                d_lo = min(d_lo, d)
                d_hi = max(d_hi, d)
        else:
            src = bits[o: o + m]
            for j in range(m):
                d = _desc_bits(np.uint64(src[j]), nbits)
                d_lo = min(d_lo, d)
                d_hi = max(d_hi, d)
        # the best and worst score's bits, read back as floats
        ubuf[0] = _score_bits(d_lo, nbits)
        ubuf[1] = _score_bits(d_hi, nbits)
        hi = np.float64(fbuf[0])
        lo = np.float64(fbuf[1])
        finite &= (hi - hi == 0.0) & (lo - lo == 0.0)
        span = hi - lo
        scale = top / span if span > 0.0 and span < np.inf else 0.0
        if has_order:
            for j in range(m):
                v = (hi - np.float64(scores[order[o + j]])) * scale
                v = v if v >= 0.0 else 0.0  # NaN too
                v = v if v <= top else top
                row[j] = (np.uint32(np.int32(v)) << sh) | np.uint32(j)
        else:
            sc = scores[o: o + m]
            for j in range(m):
                v = (hi - np.float64(sc[j])) * scale
                v = v if v >= 0.0 else 0.0
                v = v if v <= top else top
                row[j] = (np.uint32(np.int32(v)) << sh) | np.uint32(j)
        for j in range(m, width):
            row[j] = _ALL32
    return finite


@_jit(inline="always")
def _unpack(packed, i, m, shift, scores, order, has_order, o, ukey, idx):
    """Row i of a sorted ``packed``: the rows into ``idx[:m]`` and the kept score bits into
    ``ukey[:m]``. True when that is the rank order with ties exactly where the kept bits are
    equal (no two different scores share their kept bits); False when some do (then
    :func:`_unpack_exact` puts the list in order)."""
    sh = np.uint64(shift)
    mask = (_ONE << sh) - _ONE
    clash = False
    # the rows and kept bits first (no gather: it vectorises), then the clashes
    if has_order:
        for j in range(m):
            u = np.uint64(packed[i, j])
            idx[j] = order[o + np.int64(u & mask)]
            ukey[j] = u >> sh
    else:
        for j in range(m):
            u = np.uint64(packed[i, j])
            idx[j] = o + np.int64(u & mask)
            ukey[j] = u >> sh
    prev = scores[idx[0]]
    for j in range(1, m):  # no branch on ties (they would mispredict); one gather per row
        cur = scores[np.uint64(idx[j])]
        clash |= (ukey[j] == ukey[j - 1]) & (cur != prev)
        prev = cur
    return not clash


@_jit()
def _unpack_exact(m, scores, ukey, key, idx, stack):
    """After :func:`_unpack` found a clash: the scores into ``key[:m]`` and every run of equal
    kept bits whose scores differ sorted by :func:`sort_range` (score, then row), so that
    (key, idx)[:m] is the exact rank order (the runs are short: the kept bits adapt to the
    list's spread)."""
    for j in range(m):
        key[j] = scores[idx[j]]
    a = 0
    while a < m:
        b = a + 1
        mixed = False
        while b < m and ukey[b] == ukey[a]:
            mixed |= key[b] != key[a]
            b += 1
        if mixed:
            sort_range(key, idx, a, b, stack)
        a = b


@_jit()
def _walk_sorted(key, idx, m, w, values, kind, mode, dmode, disc, cuts, slots, lo, hi, out, q,
                 psum, bounds):
    """As :func:`_walk` for mean or AP contributions under the tie average or ``"stable"``,
    over a list whose m rows are all ranked in (key, idx)[:m]. Passes over the list in rank
    order: the prefix sums of the values; each rank's tie group start (``bounds[0, p]``);
    backward, each group's end (``bounds[1, p]``); the sum before each group
    (``psum[2 m + 1 + p]``) and the group's sum (``psum[m + 1 + p]``); then every term from
    those contiguous rows (no gather: the loop and its divisions vectorise), written over
    the group sums, added in rank order. One chain per pass (whole-list AP on the reference
    shape: 0.9x the time of two passes carrying them all). ``psum`` holds at least 3 m + 1.
    The operations per term are the walk's, so the sums are its sums bit for bit; no branch
    depends on the data."""
    starts = bounds[0]
    ends = bounds[1]
    terms = psum[m + 1: 2 * m + 1]  # the group sums, then the terms
    before = psum[2 * m + 1: 3 * m + 1]
    _prefix_sums(values, idx, m, psum)
    if mode == MODE_STABLE:  # every row its own group
        for p in range(m):
            starts[p] = p
            ends[p] = p + 1
    else:
        first = 0
        prev = key[0]
        for p in range(m):  # selects by arithmetic: a branch on ties would mispredict
            kp = key[p]
            first += np.int64(kp != prev) * (p - first)
            prev = kp
            starts[p] = first
        end = m
        nxt = key[m - 1]
        for t in range(m):  # backward; unsigned places: no negative-index wrap-around
            p = np.uint64(m - 1 - t)
            kp = key[p]
            end += np.int64(kp != nxt) * (np.int64(p) + 1 - end)
            nxt = kp
            ends[p] = end
    for p in range(m):
        b = psum[np.uint64(starts[p])]
        before[p] = b
        terms[p] = psum[np.uint64(ends[p])] - b
    if kind == KIND_MEAN:
        for p in range(w):
            terms[p] = terms[p] / float(ends[p] - starts[p])
    else:
        for p in range(w):
            a = starts[p]
            terms[p] = _ap_term(terms[p], float(ends[p] - a), before[p], float(p - a), float(p))
    if dmode != DISC_NONE:
        for p in range(w):
            terms[p] = _discounted(terms[p], dmode, disc, p)
    _sum_terms(terms, w, cuts, slots, lo, hi, out, q)


@_jit()
def _rr_whole(key, idx, c, values, stable, dmode, disc):
    """Whole-list RR (x discount) of a list whose c rows are all ranked in (key, idx)[:c],
    under the tie average (McSherry & Najork 2008, section 3: the expected reciprocal rank of
    the first relevant row over the orderings of its tie group; ``stable``: every row its own
    group): :func:`_walk`'s operations for ``KIND_RR`` without its cutoff stores (a call with a
    third of the general walk's arguments, which cost more than the one or two groups read
    before the first relevant row). ``key`` (c,) scores or kept key bits, ranked; ``idx`` (c,)
    their rows; ``values`` (n_rows,) relevance (uint8 or float64); ``disc`` the discount table
    (read when ``dmode`` is ``DISC_TABLE``). Returns a float64 scalar; raises nothing."""
    cz = 0.0
    cum = 0.0
    f = 1.0
    g0 = 0
    while g0 < c:
        sc = key[g0]
        g1 = g0 + 1
        if not stable:
            while g1 < c and key[g1] == sc:
                g1 += 1
        before = cz
        for a in range(g0, g1):
            cz += values[idx[a]]
        total = cz - before
        if total != 0.0:
            size = float(g1 - g0)
            for p in range(g0, g1):
                if before == 0.0 and total > 0.0:
                    offset = float(p - g0)
                    f, contrib = _rr_step(f, size, total, offset, float(p))
                else:
                    contrib = 0.0 / (float(p) + 1.0)
                cum += _discounted(contrib, dmode, disc, p)
            if cz > 0.0:  # past the first relevant row every term is 0
                break
        g0 = g1
    return cum


@_jit(inline="always")
def _walk_top(key, idx, c, w, values, kind, mode, dmode, disc, cuts, slots, lo, hi, out, q,
              vbuf, psum, bounds):
    """As :func:`_walk` over ranks 1..w of the ranked buffer (key, idx)[:c]: mean or AP
    contributions under the tie average or ``"stable"`` go through :func:`_walk_sorted` over
    the ranks up to the end of the tie group holding rank w (its passes select by arithmetic,
    where the walk's branches on ties and zero-valued groups mispredict), when ``psum`` and
    ``bounds`` hold them; the same operations, so the same sums bit for bit. Whole-list RR
    under those rules (one cutoff, past the list): :func:`_rr_whole`. Others: the walk."""
    if w > 0 and kind != KIND_RR and (mode == MODE_AVERAGE or mode == MODE_STABLE):
        e = w
        if mode == MODE_AVERAGE:
            last = key[w - 1]
            while e < c and key[e] == last:
                e += 1
        if psum.shape[0] > 3 * e and bounds.shape[1] >= e:
            _walk_sorted(key, idx, e, w, values, kind, mode, dmode, disc, cuts, slots, lo, hi,
                         out, q, psum, bounds)
            return
    if (kind == KIND_RR and w == c and hi - lo == 1
            and (mode == MODE_AVERAGE or mode == MODE_STABLE)):  # one cutoff, past the list
        out[slots[lo], q] = _rr_whole(key, idx, c, values, mode == MODE_STABLE, dmode, disc)
        return
    _walk(key, idx, c, w, values, kind, mode, dmode, disc, cuts, slots, lo, hi, out, q, vbuf)


@_jit()
def _walk_shared(idx, m, w, values, same, dmode, disc, cuts, slots, lo, hi, out, q, psum,
                 bounds):
    """As :func:`_walk_sorted` for mean contributions over ranks 1..w, after a whole-list walk
    of the same list under the same tie rule: its tie groups (``bounds[:, :m]``) are read, not
    found again, and, when ``same`` (the family reads that walk's values), its prefix sums
    ``psum[:m + 1]`` too; otherwise the prefix sums up to the end of rank w's group are taken
    past them, with :func:`_walk_sorted`'s operations. The terms are that walk's, bit for bit.
    Returns False, doing nothing, when ``psum`` cannot hold the work past the shared sums."""
    starts = bounds[0]
    ends = bounds[1]
    e = ends[w - 1]
    base = m + 1
    if base + (0 if same else e + 1) + w > psum.shape[0]:
        return False
    if same:
        pre = psum[:m + 1]
    else:
        pre = psum[base: base + e + 1]
        base += e + 1
        _prefix_sums(values, idx, e, pre)
    terms = psum[base: base + w]
    for p in range(w):
        b = pre[starts[p]]
        terms[p] = pre[ends[p]] - b
    for p in range(w):
        terms[p] = terms[p] / float(ends[p] - starts[p])
    if dmode != DISC_NONE:
        for p in range(w):
            terms[p] = _discounted(terms[p], dmode, disc, p)
    _sum_terms(terms, w, cuts, slots, lo, hi, out, q)
    return True


@_jit(inline="always")
def _walk_ranked(key, idx, m, fam_kind, fam_mode, fam_dmode, fam_src, fam_lo, fam_hi, fam_whole,
                 va, vb, disc, cuts, slots, out, q, vbuf, psum, bounds):
    """Every family of a list whose m rows are all ranked in (key, idx)[:m]
    (:func:`_walk_top`). Whole-list mean / AP families under the tie average or "stable" go
    first: their walk (:func:`_walk_sorted`) leaves the list's tie groups and prefix sums,
    which the cutoff families of mean contributions under the same rule then read
    (:func:`_walk_shared`; seven measures in one call: 0.95x the time, ``bench_ab.py``)."""
    n_fam = fam_kind.shape[0]
    shared_src = -1
    shared_mode = -1
    if m > 0 and psum.shape[0] > 3 * m and bounds.shape[1] >= m:
        for f in range(n_fam):
            if fam_whole[f] and fam_kind[f] != KIND_RR and (fam_mode[f] == MODE_AVERAGE
                                                             or fam_mode[f] == MODE_STABLE):
                if fam_src[f] == 0:
                    _walk_sorted(key, idx, m, m, va, fam_kind[f], fam_mode[f], fam_dmode[f],
                                 disc, cuts, slots, fam_lo[f], fam_hi[f], out, q, psum, bounds)
                else:
                    _walk_sorted(key, idx, m, m, vb, fam_kind[f], fam_mode[f], fam_dmode[f],
                                 disc, cuts, slots, fam_lo[f], fam_hi[f], out, q, psum, bounds)
                shared_src = fam_src[f]
                shared_mode = fam_mode[f]
    # the shared walks before any other (a walk of its own overwrites the groups and sums)
    done = np.uint64(0)  # bit f: family f walked (at most 64 families share)
    if shared_src >= 0:
        for f in range(min(n_fam, 64)):
            bit = np.uint64(1) << np.uint64(f)
            if fam_whole[f] and fam_kind[f] != KIND_RR and (fam_mode[f] == MODE_AVERAGE
                                                             or fam_mode[f] == MODE_STABLE):
                done |= bit  # walked above
                continue
            w = m if fam_whole[f] else min(cuts[fam_hi[f] - 1], m)
            if fam_kind[f] != KIND_MEAN or fam_mode[f] != shared_mode or w <= 0:
                continue
            if fam_src[f] == 0:
                ok = _walk_shared(idx, m, w, va, shared_src == 0, fam_dmode[f], disc, cuts,
                                  slots, fam_lo[f], fam_hi[f], out, q, psum, bounds)
            else:
                ok = _walk_shared(idx, m, w, vb, shared_src == 1, fam_dmode[f], disc, cuts,
                                  slots, fam_lo[f], fam_hi[f], out, q, psum, bounds)
            if ok:
                done |= bit
    for f in range(n_fam):
        if f < 64 and (done >> np.uint64(f)) & np.uint64(1):
            continue
        w = m if fam_whole[f] else min(cuts[fam_hi[f] - 1], m)
        if fam_src[f] == 0:
            _walk_top(key, idx, m, w, va, fam_kind[f], fam_mode[f], fam_dmode[f], disc, cuts,
                      slots, fam_lo[f], fam_hi[f], out, q, vbuf, psum, bounds)
        else:
            _walk_top(key, idx, m, w, vb, fam_kind[f], fam_mode[f], fam_dmode[f], disc, cuts,
                      slots, fam_lo[f], fam_hi[f], out, q, vbuf, psum, bounds)


@_jit(inline="always")
def _rank_here(scores, order, has_order, o, m, width, any_whole, avg, n_fam, fam_kind, fam_src,
               fam_whole, va, vb, key, idx, top, tk, ti, stack, gb):
    """Rank segment [o, o+m) into (key, idx)[:c] here; returns c, or -1 (one tie group heads
    the list, nothing copied: see :func:`_gather_top`). The whole list is sorted when a
    whole-list measure cannot be read sparsely or when the cutoff covers the list; otherwise
    the candidates of the largest cutoff."""
    full = any_whole and (not avg or (m <= 32 and key.shape[0] >= m))
    if any_whole and not full:
        # whole-list mean / AP sums are read sparsely only when few rows carry a value
        for f in range(n_fam):
            if fam_whole[f] and fam_kind[f] != KIND_RR:
                if fam_src[f] == 0:
                    nz = _count_nonzero(va, order, has_order, o, m)
                else:
                    nz = _count_nonzero(vb, order, has_order, o, m)
                if 4 * nz > m or nz + 2 > gb.shape[0]:
                    full = True
                    break
    depth = 0 if full or width >= m else width
    if full or width > 0:
        c = -1
        if (not has_order and 0 < depth <= 16 and 4 * depth < m <= tk.shape[0]
                and not _tied_head(scores, o, depth)):
            c = _gather_counted(scores[o: o + m], o, m, depth, key, idx, top, tk, ti)
        if c < 0 and avg and not has_order and 0 < depth < m and _tied_head(scores, o, depth):
            t = scores[o]
            if _none_above(scores[o: o + m], m, t):  # ranks 1..depth tie at the top score
                top[0] = t
                return -1
        if c >= 0:
            a = 0
            moved = False
        elif (not has_order and 0 < depth < m and depth <= top.shape[0] and m <= tk.shape[0]
                and not _tied_head(scores, o, depth)):
            c, a, moved = _gather_top_once(scores[o: o + m], o, m, depth, key, idx, top, tk, ti,
                                           avg)
        else:
            c, a, moved = _gather_top(scores, order, has_order, o, m, depth, key, idx, top, avg)
        if c < 0:
            pass
        elif moved:  # _sort_any needs idx ascending
            if not _sorted_already(key, idx, a):
                sort_range(key, idx, 0, a, stack)
        else:
            _sort_any(key, idx, a, stack, tk, ti)
    else:
        c = 0
    return c


@_jit(inline="always")
def _finite_rows(src):
    """True when every value of ``src`` (float32/float64, shape (n,)) is finite: x - x is 0
    for a finite x, NaN for NaN and +-inf (a flag or-ed without branches, which vectorises);
    raises nothing."""
    bad = False
    for j in range(src.shape[0]):
        bad |= (src[j] - src[j]) != 0.0
    return not bad


@_jit()
def eval_segments(scores, order, offsets, seg_query, width, any_whole, fam_mode, va, vb,
                  fam_kind, fam_src, fam_dmode, fam_lo, fam_hi, fam_whole, cuts, slots, disc, out,
                  key, idx, top, tk, ti, vbuf, gb, gt, inc, eq, sel, packed, shift, ukey, stack,
                  psum, bounds, check):
    """Every measure family of every segment in one pass per segment.

    Family f reads values ``va`` (``fam_src[f] == 0``) or ``vb``, contribution kind
    ``fam_kind[f]``, discount ``fam_dmode[f]`` (none, ``disc``, the rank), and its cutoffs
    ``cuts[fam_lo[f]:fam_hi[f]]`` (ascending; when ``fam_whole[f]`` the last is the whole list)
    into rows ``slots[...]`` of ``out`` (n_slots, n_queries). ``width``: the largest finite
    cutoff (0: none). ``any_whole``: some family needs the whole list. ``fam_mode[f]``: the
    family's tie rule; all rules read the same ranked buffer (score, then row), so a call may
    mix them (the bounds next to the tie average). A list of at most ``_TINY`` rows is ordered
    by counting places (:func:`_place_tiny`) and walked directly. ``sel``: the segments to
    read (empty: all);
    ``packed`` (len(sel), W), when not empty: their rows already in rank order (see
    :func:`pack_keys`, sorted by numpy), read with :func:`_unpack` (``ukey``: uint64 work space)
    instead of being sorted here. Over a selection (lists apart in memory) each list's values
    are prefetched while the list before it is read.

    ``check``: the scores of each segment (contiguous rows: ``order`` empty) are tested for NaN
    and inf as the segment is read, before anything ranks them; a segment holding one is left
    unranked. Returns False when one was found (then ``out`` is not the measures' and the
    caller raises), else True.
    """
    has_order = order.shape[0] > 0
    n_fam = fam_kind.shape[0]
    avg = True
    for f in range(n_fam):
        if fam_mode[f] != MODE_AVERAGE:
            avg = False
    # short lists are placed by counting when every family sums mean contributions under the
    # tie average or "stable"
    plain = psum.shape[0] > _TINY
    for f in range(n_fam):
        if fam_kind[f] != KIND_MEAN or (fam_mode[f] != MODE_AVERAGE
                                        and fam_mode[f] != MODE_STABLE):
            plain = False
    small = min(_TINY, key.shape[0], tk.shape[0], ti.shape[0])
    n_rows = scores.shape[0]
    # integer values (uint8 gains, 0/1 relevance): short contiguous lists take _walk_counted
    ints = True
    for f in range(n_fam):
        if (va.itemsize if fam_src[f] == 0 else vb.itemsize) >= 8:
            ints = False
    some = sel.shape[0] > 0
    pre = packed.shape[0] > 0
    ok = True
    for si in range(sel.shape[0] if some else offsets.shape[0] - 1):
        s = sel[si] if some else si
        o = offsets[s]
        m = offsets[s + 1] - o
        q = _slot(seg_query, s)
        span = (m + 7) & ~7
        if some and not has_order and si + 1 < sel.shape[0]:  # lists apart in memory
            _prefetch_segment(va, offsets, sel[si + 1])
            _prefetch_segment(vb, offsets, sel[si + 1])
        if m <= small and plain and ints and not has_order and o + span <= n_rows:
            bad = False
            for f in range(n_fam):  # read in place (rows past the list masked)
                if fam_src[f] == 0:
                    bad = _walk_counted(scores[o: o + span], va[o: o + span], m, fam_mode[f],
                                        fam_dmode[f], fam_whole[f], disc, cuts, slots,
                                        fam_lo[f], fam_hi[f], out, q, psum, bounds)
                else:
                    bad = _walk_counted(scores[o: o + span], vb[o: o + span], m, fam_mode[f],
                                        fam_dmode[f], fam_whole[f], disc, cuts, slots,
                                        fam_lo[f], fam_hi[f], out, q, psum, bounds)
            if check and bad:
                ok = False
            continue
        if check and not _finite_rows(scores[o: o + m]):
            ok = False
            continue
        if m <= small:
            if plain:
                if has_order:
                    for j in range(m):
                        key[j] = scores[order[o + j]]
                    _place_tiny(key, order, has_order, o, m, idx, ti)
                else:  # contiguous rows are read in place (a copy costs a third of the time)
                    _place_tiny(scores[o: o + m], order, has_order, o, m, idx, ti)
                for f in range(n_fam):
                    if fam_src[f] == 0:
                        _walk_tiny(idx, ti, m, va, fam_mode[f], fam_dmode[f], fam_whole[f], disc,
                                   cuts, slots, fam_lo[f], fam_hi[f], out, q, psum)
                    else:
                        _walk_tiny(idx, ti, m, vb, fam_mode[f], fam_dmode[f], fam_whole[f], disc,
                                   cuts, slots, fam_lo[f], fam_hi[f], out, q, psum)
                continue
            for j in range(m):
                r = order[o + j] if has_order else o + j
                key[j] = scores[r]
                idx[j] = r
            _sort_tiny(key, idx, m, tk, ti)
            _walk_ranked(key, idx, m, fam_kind, fam_mode, fam_dmode, fam_src, fam_lo, fam_hi,
                         fam_whole, va, vb, disc, cuts, slots, out, q, vbuf, psum, bounds)
            continue
        if pre:
            if _unpack(packed, si, m, shift, scores, order, has_order, o, ukey, idx):
                # ties by the kept bits (equal exactly when the scores are)
                _walk_ranked(ukey, idx, m, fam_kind, fam_mode, fam_dmode, fam_src, fam_lo,
                             fam_hi, fam_whole, va, vb, disc, cuts, slots, out, q, vbuf, psum,
                             bounds)
                continue
            _unpack_exact(m, scores, ukey, key, idx, stack)
            c = m
        else:
            c = _rank_here(scores, order, has_order, o, m, width, any_whole, avg, n_fam, fam_kind,
                           fam_src, fam_whole, va, vb, key, idx, top, tk, ti, stack, gb)
        if c < 0:  # ranks 1..width are one tie group: read it in one pass per family
            t = top[0]
            pending = False
            for f in range(n_fam):
                hi_f = fam_hi[f] - 1 if fam_whole[f] else fam_hi[f]
                if hi_f > fam_lo[f]:
                    if fam_src[f] == 0:
                        _walk_tied(scores, order, has_order, o, m, t, cuts[hi_f - 1], va,
                                   fam_kind[f], fam_dmode[f], disc, cuts, slots, fam_lo[f],
                                   hi_f, out, q)
                    else:
                        _walk_tied(scores, order, has_order, o, m, t, cuts[hi_f - 1], vb,
                                   fam_kind[f], fam_dmode[f], disc, cuts, slots, fam_lo[f],
                                   hi_f, out, q)
                if fam_whole[f]:
                    if fam_kind[f] == KIND_RR:
                        if fam_src[f] == 0:
                            v = _first_relevant(scores, order, has_order, o, m, va,
                                                fam_dmode[f], disc)
                        else:
                            v = _first_relevant(scores, order, has_order, o, m, vb,
                                                fam_dmode[f], disc)
                        out[slots[fam_hi[f] - 1], q] = v
                    else:
                        pending = True
            c = 0
        else:
            sparse = any_whole and c < m
            pending = False
            for f in range(n_fam):
                if fam_src[f] == 0:
                    pend = _family(key, idx, c, va, fam_kind[f], fam_mode[f], fam_dmode[f],
                                   disc, cuts, slots, fam_lo[f], fam_hi[f], out, q, vbuf,
                                   fam_whole[f], scores, order, has_order, o, m, stack, gb, gt,
                                   inc, eq, sparse, psum, bounds)
                else:
                    pend = _family(key, idx, c, vb, fam_kind[f], fam_mode[f], fam_dmode[f],
                                   disc, cuts, slots, fam_lo[f], fam_hi[f], out, q, vbuf,
                                   fam_whole[f], scores, order, has_order, o, m, stack, gb, gt,
                                   inc, eq, sparse, psum, bounds)
                pending = pending or (pend and fam_kind[f] != KIND_RR)
        if pending:  # whole-list mean / AP sums: the buffers are free again
            for f in range(n_fam):
                if fam_whole[f] and fam_kind[f] != KIND_RR:
                    if fam_src[f] == 0:
                        v = _sparse_whole(scores, order, has_order, o, m, va, fam_kind[f],
                                          fam_dmode[f], disc, key, idx, stack, tk, ti, gb, gt,
                                          inc, eq)
                    else:
                        v = _sparse_whole(scores, order, has_order, o, m, vb, fam_kind[f],
                                          fam_dmode[f], disc, key, idx, stack, tk, ti, gb, gt,
                                          inc, eq)
                    out[slots[fam_hi[f] - 1], q] = v
    return ok
