"""Peak extra memory of metric calls (tracemalloc sees numpy buffers).

The compiled kernel allocates every array it keeps or needs per row through numpy (tracked
here); its own stack buffers are O(log n). Bounds, on every workload shape: many small
queries (contiguous, shuffled), one huge query (issue #17 item 12, issue #16):

* at most 2x the inputs (float64 labels and scores with int64 qids, and int8 labels with
  float32 scores and int32 qids);
* at most 24 bytes per row whatever the input dtypes. A one-call function keeps integer and
  float64 labels as given and a ``QueryPlan`` copies them as uint8 when they are integers
  0..255 (1 byte per row); the label side is then the gains, uint8 when they are integers
  0..255 (1), or the 0/1 relevance (uint8, 1). The fused pass holds the candidates of one query
  (scores and row indices, 12 bytes per row of the longest query; only the rows reaching a
  cutoff of at most 64 ranks when no measure reads the whole list), a grouped row order 4 when
  qids are not contiguous, and a whole-list nDCG of one huge query its discount table (8
  bytes per rank): 21 bytes per row at most.

``RANKMETRICS_MEMORY_ROWS`` sets the huge query's length (default 5 000 000; the fixed-size
work buffers weigh more per row in a much shorter one). The module takes about 20 s (2-core VM).
"""

from __future__ import annotations

import os
import tracemalloc

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm
from rankmetrics.datasets import make_benchmark_scores

HUGE = int(float(os.environ.get("RANKMETRICS_MEMORY_ROWS", "5e6")))
MAX_BYTES_PER_ROW = 24


@pytest.fixture(scope="module")
def shapes() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    y, s, q = make_benchmark_scores(2000, random_state=3)  # ~240k rows, heavy ties
    y = y.astype(np.float64)
    shuffled = np.random.default_rng(0).permutation(y.shape[0])  # non-contiguous queries too
    rng = np.random.default_rng(1)
    n = HUGE
    yh = rng.choice(5, n, p=[0.5, 0.3, 0.13, 0.05, 0.02]).astype(np.float64)
    sh = np.round(rng.random(n), 3)  # ~5 000 documents per tie group
    return {
        "many queries": (y, s, q),
        "many queries, shuffled": (y[shuffled], s[shuffled], q[shuffled]),
        "many queries, shuffled, int8/float32/int32": (
            y[shuffled].astype(np.int8), s[shuffled].astype(np.float32),
            q[shuffled].astype(np.int32)),
        "one huge query": (yh, sh, np.zeros(n, dtype=np.int64)),
        "one huge query, int8/float32/int32": (
            yh.astype(np.int8), sh.astype(np.float32), np.zeros(n, dtype=np.int32)),
    }


CALLS = {
    "ndcg@10": lambda y, s, q: rm.ndcg(y, s, q, k=10),
    "ndcg": lambda y, s, q: rm.ndcg(y, s, q),
    "average_precision": lambda y, s, q: rm.average_precision(y, s, q),
    "reciprocal_rank": lambda y, s, q: rm.reciprocal_rank(y, s, q),
    "precision@10 optimistic": lambda y, s, q: rm.precision(y, s, q, k=10, ties="optimistic"),
    "ndcg optimistic": lambda y, s, q: rm.ndcg(y, s, q, ties="optimistic"),
    "ndcg_curve": lambda y, s, q: rm.ndcg_curve(y, s, q, depth=20),
    "evaluate": lambda y, s, q: rm.QueryPlan(y, q).evaluate(s, ["ndcg@10", "map", "mrr", "p@5"]),
}
# the huge query runs the whole-list measures of issue #17 item 12, a bound over the whole
# list, a small cutoff (its candidates only) and several measures at once
HUGE_CALLS = ("ndcg", "average_precision", "reciprocal_rank", "ndcg optimistic", "ndcg@10",
              "evaluate")


def _peak(fn, *args) -> int:
    tracemalloc.start()
    try:
        fn(*args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


CASES = [(shape, name) for shape in ("many queries", "many queries, shuffled",
                                     "many queries, shuffled, int8/float32/int32")
         for name in CALLS if name != "ndcg optimistic"] + [
    ("one huge query", name) for name in HUGE_CALLS] + [
    ("one huge query, int8/float32/int32", name) for name in ("ndcg", "evaluate")]


@pytest.mark.parametrize(("shape", "name"), CASES)
def test_peak_extra_memory(shapes, shape: str, name: str) -> None:
    y, s, q = shapes[shape]
    # first call of a dtype: imports and compiled code, the long-list paths included
    CALLS[name](y[:20_000], s[:20_000], q[:20_000])
    inputs = y.nbytes + s.nbytes + q.nbytes
    peak = _peak(CALLS[name], y, s, q)
    per_row = peak / y.shape[0]
    assert per_row <= MAX_BYTES_PER_ROW, f"{name} on {shape}: {per_row:.1f} bytes per row"
    assert peak <= 2 * inputs, f"{name} on {shape}: peak {peak / inputs:.2f}x inputs"


def _peak_and_result(fn, *args) -> tuple[int, int]:
    """(peak, bytes of the arrays returned: an array or a dict of them)."""
    tracemalloc.start()
    try:
        res = fn(*args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    vals = res.values() if isinstance(res, dict) else [res]
    return peak, sum(v.nbytes for v in vals if isinstance(v, np.ndarray))


def test_peak_extra_memory_on_many_tiny_queries() -> None:
    # 100 000 queries of 1..4 rows with narrow dtypes (9 bytes per row): what a call holds per
    # query (the layout's offsets, the ideal, the result: 8 bytes each, about 3.2 per row
    # here) weighs as much as what it holds per row. In-order queries hold neither their sizes
    # nor a query index per segment (both follow from the offsets), binary measures divide
    # their sums in place (P@k by the scalar k), and no sort classes are made when every list
    # is placed by counting: every single measure within 2x the inputs and 24 bytes per row.
    # A curve (100 float64 per query) and evaluate with four measures (4) return more than
    # that: what they hold besides their result is bounded alike (no (n_queries, depth) mask
    # next to a curve; a QueryPlan's 0/1 relevance is 1 byte per row).
    rng = np.random.default_rng(7)
    q = np.repeat(np.arange(100_000), rng.integers(1, 5, 100_000)).astype(np.int32)
    y = rng.integers(0, 4, q.size).astype(np.int8)
    s = np.round(rng.normal(size=q.size), 1).astype(np.float32)
    inputs = y.nbytes + s.nbytes + q.nbytes
    calls = dict(CALLS, ndcg_curve=lambda y, s, q: rm.ndcg_curve(y, s, q, depth=100))
    for name in ("ndcg@10", "ndcg", "average_precision", "reciprocal_rank",
                 "precision@10 optimistic", "ndcg optimistic", "ndcg_curve", "evaluate"):
        calls[name](y[:1000], s[:1000], q[:1000])
        peak, out = _peak_and_result(calls[name], y, s, q)
        if name in ("ndcg_curve", "evaluate"):
            assert out >= 4 * 8 * 100_000, name  # the result is most of the peak
            peak -= out
        assert peak / q.size <= MAX_BYTES_PER_ROW, f"{name}: {peak / q.size:.1f} bytes per row"
        assert peak <= 2 * inputs, f"{name}: peak {peak / inputs:.2f}x inputs"


# ------------------------------------------------------------------ work-buffer sizing
def _segments(rng: np.random.Generator, shuffled: bool):
    from rankmetrics.core import backend

    sizes = np.array([9000, 30, 6000, 1, 5000], dtype=np.int64)
    n = int(sizes.sum())
    q = np.repeat(np.arange(sizes.size), sizes)
    if shuffled:
        q = q[rng.permutation(n)]
    _, layout = backend.group_rows(q, None)
    return layout, q


@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_candidate_bound_covers_the_candidates(shuffled: bool, dtype) -> None:
    # the rows the fused pass gathers for a cutoff <= 64: every row scoring >= the k-th best;
    # the one-pass bound is never below their number and never above the list
    require("numba")  # fails without numba (never skips)
    from rankmetrics.core import _numba_sizes as sz

    rng = np.random.default_rng(5)
    layout, q = _segments(rng, shuffled)
    ascending = np.empty(q.size)
    for g in range(5):
        ascending[q == g] = np.arange((q == g).sum())  # every row enters the window
    for case, scores in enumerate((rng.random(q.size), rng.integers(0, 40, q.size),
                                   np.zeros(q.size), ascending, -ascending)):
        scores = scores.astype(dtype)
        for k in (1, 7, 64):
            want = 0
            for g in range(5):
                sc = np.sort(scores[q == g])[::-1]
                m = sc.size
                want = max(want, m if m <= 4096 or m <= k else int((sc >= sc[k - 1]).sum()))
            top = np.empty(k, dtype=dtype)
            got = sz.top_candidates(scores, layout.order, layout.offsets, 4096, k, top)
            assert want <= got <= 9000, (k, got, want)
            if case == 0:
                assert got <= want + 30 * k  # tight on rows in random order


@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tie_bound_covers_the_largest_tie_group(shuffled: bool, dtype) -> None:
    # the bounds' value buffer: never smaller than the largest tie group (-0.0 ties 0.0)
    require("numba")  # fails without numba (never skips)
    from rankmetrics.core import _numba_sizes as sz

    rng = np.random.default_rng(6)
    layout, q = _segments(rng, shuffled)
    signed_zeros = np.where(rng.random(q.size) < 0.5, -0.0, 0.0)
    signed_zeros[rng.random(q.size) < 0.3] = 1.5
    for scores in (rng.integers(0, 40, q.size), rng.random(q.size), signed_zeros,
                   np.round(rng.random(q.size), 2)):
        scores = np.ascontiguousarray(scores, dtype=dtype)
        largest = max(np.unique(scores[q == g], return_counts=True)[1].max() for g in range(5)
                      if (q == g).sum() > 4096)
        for cap in (20_000, 100):
            got = sz.value_rows(layout, scores, cap)
            assert got >= min(cap, largest)
            assert got <= cap
        counts = np.empty(1 << 10, dtype=np.int32)
        bits = scores.view(np.uint64 if dtype == np.float64 else np.uint32)
        bound = sz.tie_bound(scores, bits, layout.order, layout.offsets, 4096, counts, 54)
        assert largest <= bound <= 9000


def test_plan_labels_and_gains_are_compact_only_when_exact(monkeypatch) -> None:
    # a QueryPlan keeps integer labels 0..255 in one byte, gains that are integers 0..255 too
    # (compiled kernel); anything else stays float64, and not one number changes
    from rankmetrics.core import plan as plan_module
    from rankmetrics.core import validation
    from rankmetrics.core.gains import compact_gains

    y = np.array([0.0, 3.0, 1.0, 2.0, 8.0])
    assert rm.QueryPlan(y).labels.dtype == np.uint8
    assert rm.QueryPlan(np.array([True, False])).labels.dtype == np.uint8
    for other in ([0.0, 0.5, 2.0], [0, 256, 3], [1.0, 1e300]):
        assert rm.QueryPlan(np.array(other)).labels.dtype == np.float64
    assert compact_gains(np.exp2(y) - 1).dtype == np.uint8  # 2**8 - 1 = 255
    assert compact_gains(np.exp2(np.array([0.0, 9.0])) - 1).dtype == np.float64
    assert compact_gains(np.array([0.5, 1.0])).dtype == np.float64
    rng = np.random.default_rng(3)
    q = np.repeat(np.arange(30), rng.integers(1, 80, 30))
    yy = rng.integers(0, 9, q.size).astype(np.float64)
    s = rng.integers(0, 6, q.size).astype(np.float64)
    seen: list = []
    gains = ("exponential", "linear", [0, 1, 3, 7, 15, 31, 63, 127, 255],
             {float(v): 2.0 * v for v in range(9)},
             lambda lab: seen.append(lab.dtype) or lab * 0.5)
    names = ["ndcg@5", "ndcg", "dcg@3", "map", "ndcg@100"]

    def run():
        out = []
        for gain in gains:
            plan = rm.QueryPlan(yy, q)
            out.append(plan.evaluate(s, names, gain=gain))
            out.append({"curve": plan.ndcg_curve(s, depth=12, gain=gain),
                        "opt": plan.ndcg(s, gain=gain, ties="optimistic"),
                        "one-call": rm.ndcg(yy.astype(np.int8), s, q, k=3, gain=gain)})
        return out

    compact = run()
    monkeypatch.setattr(plan_module, "compact_gains", lambda g: g)
    monkeypatch.setattr(plan_module, "small_int_gains", lambda gain, labels, *passes: None)
    monkeypatch.setattr(validation, "_small_int_labels", lambda arr: None)
    assert rm.QueryPlan(y).labels.dtype == np.float64
    assert rm.QueryPlan(y)._gain_ext("exponential").dtype == np.float64
    wide = run()
    for a, b in zip(compact, wide, strict=True):
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert set(seen) == {np.dtype(np.float64)}  # a gain callable still gets float64 labels


def test_compiled_plans_keep_uint8_gains() -> None:
    # the compiled kernel's plans keep exact small integer gains in one byte, whichever
    # backend this run selected (without numba: a failure)
    require("numba")
    before = rm.get_backend()
    rm.set_backend("numba")
    try:
        plan = rm.QueryPlan(np.array([0.0, 3.0, 1.0, 2.0, 8.0]))
        assert plan._gain_ext("exponential").dtype == np.uint8  # 2**8 - 1 = 255
        assert plan._gain_ext([0.5, 1, 2, 3, 4, 5, 6, 7, 8]).dtype == np.float64
    finally:
        rm.set_backend(before)


def test_gain_table_lookup_matches_apply_gain() -> None:
    # small integer labels: uint8 gains from a table of the levels, the same values and the
    # same errors as apply_gain; None (apply_gain's path) for anything else
    from rankmetrics.core.gains import apply_gain, small_int_gains

    rng = np.random.default_rng(8)
    lab = rng.integers(0, 9, 500)
    for dtype in (np.uint8, np.int8, np.int64, np.float64):
        arr = lab.astype(dtype)
        for gain in ("exponential", "linear", [0, 2, 4, 6, 8, 10, 12, 14, 16]):
            got = small_int_gains(gain, arr)
            assert got is not None and got.dtype == np.uint8
            np.testing.assert_array_equal(got, apply_gain(gain, arr))
    for gain, arr in (("exponential", np.array([0, 9, 1])), ("linear", np.array([0.5, 1.0])),
                      ("linear", np.array([300, 1])), ({1.0: 2.0}, np.array([1, 1])),
                      (np.sqrt, np.array([1, 4]))):
        assert small_int_gains(gain, arr) is None
    for gain, bad in (("exponential", [0, 60, 3]), ([0, 1, 3], [0, 5, 1])):
        for arr in (np.array(bad, dtype=np.uint8), np.array(bad, dtype=np.float64)):
            with pytest.raises(ValueError) as want:
                apply_gain(gain, arr)
            with pytest.raises(ValueError) as got_err:
                small_int_gains(gain, arr)
            assert str(got_err.value) == str(want.value)


@pytest.mark.parametrize("k", [None, 10])
@pytest.mark.parametrize("measure", ["err", "rbp"])
def test_err_and_rbp_peak_extra_memory(measure, k) -> None:
    # ERR held the grades, the stop probabilities, their padded copy and per-rank running
    # sums of the longest list (float64 each) besides the ranking: about 44 bytes per row,
    # 4.9x narrow inputs. Now the stop probabilities alone (8 bytes per row) and tie buffers
    # the size of the largest tie group, within issue #16's bound.
    # RBP made float64 gains (and a float64 copy of their > 0 mask) after the ranking, next to
    # it: 23 (RBP@10) to 31 bytes per row, 2.6x-3.4x narrow inputs. Now the queries without a
    # relevant document are found first, from the labels themselves under the linear default.
    # A whole-list RBP also holds its discounts (8 bytes per rank of the longest list).
    fn = getattr(rm, measure)
    rng = np.random.default_rng(5)
    n = 1_000_000
    y = rng.choice(5, n, p=[0.5, 0.3, 0.13, 0.05, 0.02]).astype(np.int8)
    s = np.round(rng.random(n), 3).astype(np.float32)
    short = np.repeat(np.arange(1, 50_001, dtype=np.int32), 2)
    q = np.concatenate([np.zeros(n - short.size, dtype=np.int32), short])
    fn(y[:1000], s[:1000], q[:1000], k=k)
    inputs = y.nbytes + s.nbytes + q.nbytes
    peak = _peak(lambda: fn(y, s, q, k=k))
    assert peak / n <= MAX_BYTES_PER_ROW, f"{measure}@{k}: {peak / n:.1f} bytes per row"
    if measure == "err" or k is not None:  # whole-list RBP: 8 bytes per rank to 9 of inputs
        assert peak <= 2 * inputs, f"{measure}@{k}: peak {peak / inputs:.2f}x inputs"


def test_pad_slates_refuses_padding_past_memory() -> None:
    # one query of 1e6 rows among 1e5 of one row: (100 001, 1e6) slates of 600 GB. They were
    # asked of torch's allocator (a RuntimeError, or the process killed where memory is
    # overcommitted); now a ValueError naming indexes, before anything that size is allocated
    torch = require("torch")
    from rankmetrics.torch import pad_slates

    idx = torch.cat([torch.zeros(1_000_000, dtype=torch.int32),
                     torch.arange(1, 100_001, dtype=torch.int32)])
    preds = torch.zeros(idx.shape[0], dtype=torch.float32)
    target = torch.zeros(idx.shape[0], dtype=torch.int8)
    with pytest.raises(ValueError, match=r"indexes: padding its 100001 queries .* 1000000 rows"):
        pad_slates(preds, target, idx)
    p, t, m = pad_slates(preds[-4:], target[-4:], idx[-4:])  # small slates still padded
    assert p.shape == t.shape == m.shape == (4, 1)


def test_precision_recall_points_holds_four_padded_arrays() -> None:
    # the recall base was the last column of an (n_queries, longest) ideal CG curve, a fifth
    # padded array (5.3 of them at the peak); now a whole-list CG, one float64 per query
    from rankmetrics.analysis.pr import precision_recall_points

    rng = np.random.default_rng(3)
    q = np.concatenate([np.zeros(2000, np.int32), np.repeat(np.arange(1, 2001, dtype=np.int32), 2)])
    y = rng.integers(0, 3, q.size).astype(np.int8)
    s = rng.random(q.size).astype(np.float32)
    precision_recall_points(y[:50], s[:50], q[:50])
    peak = _peak(lambda: precision_recall_points(y, s, q))
    padded = 8 * 2001 * 2000
    assert peak <= 4.5 * padded, f"peak {peak / padded:.2f} padded arrays"


def test_precision_recall_points_checks_its_padded_arrays(monkeypatch) -> None:
    # the curve's check counted one (n_queries, longest) array of the four the call holds:
    # sizes between a quarter of the machine's memory and all of it passed, then ran out
    # (here the machine reports 64 MiB and the arrays are 32 MB each); now a ValueError
    # naming qid, before the first is made
    import rankmetrics.core.validation as validation
    from rankmetrics.analysis.pr import precision_recall_points

    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 64 * 2**20 // 4096}
    monkeypatch.setattr(validation.os, "sysconf", lambda key: pages[key])
    q = np.concatenate([np.zeros(2000, np.int32), np.repeat(np.arange(1, 2001, dtype=np.int32), 2)])
    y = np.random.default_rng(3).integers(0, 3, q.size).astype(np.int8)
    with pytest.raises(ValueError, match=r"qid \(its longest query's rows\)=2000 .* padded"):
        precision_recall_points(y, -np.arange(q.size, dtype=np.float32), q)


def test_session_dcg_memory_error_names_the_padding_to_the_longest_session(monkeypatch) -> None:
    # 300 one-query sessions and one of 300 queries: the dense arrays pad every session to
    # 300 queries; the error blamed depth=10 alone and told to lower it, which cannot help
    import rankmetrics.core.validation as validation
    from rankmetrics.session import session_dcg

    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 64 * 2**20 // 4096}
    monkeypatch.setattr(validation.os, "sysconf", lambda key: pages[key])
    sess = np.concatenate([np.arange(300), np.full(300, 300)])
    query = np.concatenate([np.ones(300, int), np.arange(1, 301)])
    y = np.ones(sess.size)
    with pytest.raises(ValueError, match=r"301 session\(s\) x 300 queries \(every session "
                                         r"padded to the longest one's\)"):
        session_dcg(y, -np.arange(sess.size, dtype=float), sess, query,
                    doc=np.arange(sess.size), depth=10)
