"""The compiled (numba) kernel against the numpy reference kernel, and backend selection.

* Every brute-force property test of ``tests/test_bruteforce.py`` runs under the numpy backend
  too (that module itself runs under the default, numba).
* Property tests over every metric, tie mode, gain, discount, cutoff and workload shape (many
  small queries, one long query, grouped / interleaved / unsorted qids, all tied, no ties, tie
  groups straddling the cutoff, recall base, ranking reuse): the two backends agree to 1e-12,
  and bit for bit when the sums involved are exact (integer gains, 0/1 relevance, no discount).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
import test_bruteforce as bf
from hypothesis import HealthCheck, given, settings

import rankmetrics as rm
from rankmetrics.core import backend as _backend

SETTINGS = settings(
    max_examples=int(os.environ.get("RANKMETRICS_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture],
)


def _with(name: str):
    class _Ctx:
        def __enter__(self):
            self.prev = rm.get_backend()
            rm.set_backend(name)

        def __exit__(self, *exc):
            rm.set_backend(self.prev)

    return _Ctx()


BRUTEFORCE = [
    bf.test_gain_measures_match_bruteforce,
    bf.test_binary_measures_match_bruteforce,
    bf.test_curves_match_bruteforce,
    bf.test_ideal_curves_match_bruteforce,
    bf.test_plan_evaluate_matches_bruteforce,
    bf.test_plan_from_group_sizes_matches_bruteforce,
    bf.test_single_query_and_defaults_match_bruteforce,
]


@pytest.mark.parametrize("test", BRUTEFORCE, ids=lambda f: f.__name__)
def test_bruteforce_under_the_numpy_backend(test: Any) -> None:
    # test_bruteforce.py itself runs under the default (numba) backend
    with _with("numpy"):
        test()


def test_plans_use_the_selected_backend() -> None:
    with _with("numpy"):
        assert not isinstance(rm.QueryPlan([1, 0], [1, 1]).rank([0.1, 0.2]),
                              _backend.SegRanking)
    with _with("numba"):
        assert isinstance(rm.QueryPlan([1, 0], [1, 1]).rank([0.1, 0.2]), _backend.SegRanking)
    with pytest.raises(ValueError, match="backend"):
        rm.set_backend("fortran")


def test_environment_variable_forces_the_backend() -> None:
    root = Path(__file__).resolve().parents[1]
    code = "import rankmetrics as rm; print(rm.get_backend())"
    for name in ("numpy", "numba"):
        env = {**os.environ, "RANKMETRICS_KERNEL": name, "PYTHONPATH": str(root)}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        assert out.stdout.strip() == name


def test_bad_environment_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """RANKMETRICS_KERNEL=cuda raised "backend must be ...; got 'cuda'", naming an argument
    no caller passed; the error now names the environment variable."""
    monkeypatch.setenv("RANKMETRICS_KERNEL", " CUDA ")
    monkeypatch.setitem(_backend._state, "name", None)
    with pytest.raises(ValueError, match=r"environment variable RANKMETRICS_KERNEL .*' CUDA '"):
        rm.get_backend()
    monkeypatch.setenv("RANKMETRICS_KERNEL", " NumPy ")
    assert rm.get_backend() == "numpy"


# ------------------------------------------------------------------ numpy vs numba, any shape
@st.composite
def workloads(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    shape = draw(st.sampled_from(["small", "one_long", "mixed", "all_tied", "no_ties"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if shape == "small":
        sizes = rng.integers(1, 12, size=rng.integers(1, 40))
    elif shape == "one_long":
        sizes = np.array([rng.integers(50, 600)])
    else:
        sizes = rng.integers(1, 300, size=rng.integers(1, 8))
    n = int(sizes.sum())
    qid = np.repeat(rng.permutation(10 * sizes.size)[: sizes.size] - 3 * sizes.size, sizes)
    labels = rng.choice(5, size=n, p=[0.5, 0.25, 0.15, 0.07, 0.03]).astype(np.float64)
    levels = {"all_tied": 1, "no_ties": None}.get(shape, int(rng.integers(1, 40)))
    if levels is None:
        scores = rng.permutation(n).astype(np.float64) / 7.0
    else:
        scores = rng.integers(0, levels, size=n).astype(np.float64)
    if draw(st.booleans()):
        scores = scores.astype(np.float32)
    arrangement = draw(st.sampled_from(["sorted", "grouped", "interleaved"]))
    if arrangement == "grouped":  # contiguous queries in a random query order
        perm = np.argsort(rng.permutation(sizes.size)[np.searchsorted(np.unique(qid), qid)],
                          kind="stable")
    elif arrangement == "interleaved":
        perm = rng.permutation(n)
    else:
        perm = np.arange(n)
    return labels[perm], scores[perm], qid[perm]


def _both(fn: Any) -> tuple[Any, Any]:
    with _with("numpy"):
        ref = fn()
    with _with("numba"):
        got = fn()
    return ref, got


def _agree(ref: Any, got: Any, exact: bool, msg: str = "") -> None:
    if isinstance(ref, dict):
        assert ref.keys() == got.keys()
        for key in ref:
            _agree(ref[key], got[key], exact, f"{msg} {key}")
        return
    if exact:
        np.testing.assert_array_equal(got, ref, err_msg=msg)
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12, err_msg=msg)


GAINS: list[Any] = ["exponential", "linear", [0.0, 0.5, 3.0, 7.25, 10.0], np.sqrt]
DISCOUNTS: list[Any] = ["log", "jarvelin2002", "jarvelin2008", "none", lambda r: 1.0 / r]
CUTS = [None, 1, 3, 5, 10, 20, 1000]


@SETTINGS
@given(data=workloads(), ties=st.sampled_from(bf.TIE_MODES), gain=st.sampled_from(GAINS),
       discount=st.sampled_from(DISCOUNTS), k=st.sampled_from(CUTS),
       threshold=st.sampled_from([1, 2, 3]))
def test_backends_agree_on_every_measure(data, ties, gain, discount, k, threshold) -> None:
    y, s, q = data
    exact_gain = isinstance(gain, str) and discount == "none"
    for fn in ("cg", "ncg", "dcg", "ndcg"):
        kw: dict[str, Any] = {"k": k, "gain": gain, "ties": ties}
        if fn in ("dcg", "ndcg"):
            kw.update(discount=discount)
        ref, got = _both(lambda fn=fn, kw=kw: getattr(rm, fn)(y, s, q, **kw))
        _agree(ref, got, exact_gain and fn == "cg", f"{fn} {kw}")
    for fn in ("precision", "recall", "f1", "average_precision", "reciprocal_rank"):
        kw = {"k": k, "ties": ties, "threshold": threshold}
        ref, got = _both(lambda fn=fn, kw=kw: getattr(rm, fn)(y, s, q, **kw))
        _agree(ref, got, fn == "precision" and k is not None, f"{fn} {kw}")
    depth = 1 + (k or 30) % 40
    ref, got = _both(lambda: rm.ndcg_curve(y, s, q, depth=depth, gain=gain, ties=ties))
    _agree(ref, got, False, "ndcg_curve")
    ref, got = _both(lambda: rm.ideal_dcg_curve(y, q, depth=depth, gain=gain))
    _agree(ref, got, False, "ideal_dcg_curve")


@SETTINGS
@given(data=workloads(), ties=st.sampled_from(bf.TIE_MODES),
       depth=st.sampled_from([None, 10, 50]))
def test_backends_agree_on_evaluate_and_ranking_reuse(data, ties, depth) -> None:
    y, s, q = data
    names = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "p@10", "recall@5", "f1@3", "ap@10",
             "rr@10", "dcg@10", "cg@5"]
    if depth is None:
        names += ["map", "mrr", "ndcg", "ap", "rr"]

    def run() -> dict[str, Any]:
        plan = rm.QueryPlan(y, q)
        rk = plan.rank(s, depth=depth, ties="stable" if ties == "stable" else "average")
        out = {f"{name} {t}": v for t in (["stable"] if ties == "stable" else
                                          ["average", "optimistic", "pessimistic"])
               for name, v in plan.evaluate(rk, names, ties=t).items()}
        out["qids"] = plan.qids
        out["sizes"] = plan.sizes
        return out

    ref, got = _both(run)
    _agree(ref, got, False, f"ties={ties} depth={depth}")


@SETTINGS
@given(data=workloads(), keep=st.floats(0.2, 1.0), extra=st.integers(0, 30))
def test_backends_agree_with_a_recall_base(data, keep, extra) -> None:
    y, s, q = data
    rng = np.random.default_rng(extra)
    judged = rng.random(y.size) < keep
    uq = np.unique(q)
    base_q = np.concatenate([q[judged], rng.choice(uq, extra)])
    base_y = np.concatenate([y[judged], rng.integers(0, 4, extra).astype(float)])
    order = rng.permutation(base_q.size)
    y = np.where(judged, y, 0.0)  # rows left out of the judgements gain nothing

    def run() -> dict[str, Any]:
        plan = rm.QueryPlan(y, q, recall_base=(base_y[order], base_q[order]))
        out = plan.evaluate(s, ["ndcg@10", "ndcg", "map", "recall@10", "rr"], empty=0.0)
        out["curve"] = plan.ndcg_curve(s, depth=15, empty="skip")
        return out

    ref, got = _both(run)
    _agree(ref, got, False)


def test_trec_cumulative_blocks_agree() -> None:
    # contributions.cumulative (the TREC core's prefix sums) yields the same per-query values
    from rankmetrics.core import contributions

    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 400, size=60)
    q = np.repeat(np.arange(60), sizes)
    y = (rng.random(q.size) < 0.3).astype(np.float64)
    s = rng.integers(0, 6, q.size).astype(np.float64)
    for width in (None, 7, 100):
        dense = {}
        for backend in ("numpy", "numba"):
            with _with(backend):
                plan = rm.QueryPlan(y, q)
                rk = plan.rank(s)
                rel = plan._relevance(1)[0]
                cur = np.full((60, int(sizes.max())), np.nan)
                for block, cum in contributions.cumulative(rk, "rel", rel, "average", width):
                    cur[block.queries, : cum.shape[1]] = cum
                dense[backend] = cur
        np.testing.assert_array_equal(dense["numba"], dense["numpy"])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64, np.float16, np.float32, np.float64,
                                   ">i8", ">f8"])
@pytest.mark.parametrize("arrangement", ["sorted", "grouped", "interleaved", "strided"])
@pytest.mark.parametrize("run_length", [(1, 6), (5, 6), (80, 200)])
def test_qid_grouping_matches_np_unique(dtype, arrangement, run_length) -> None:
    # sorted ids of the compiled dtypes go through two compiled passes (count_runs, then
    # equal_runs when every run may hold the same number of rows, else run_offsets:
    # branch-free for short runs, a branch per run's start for runs averaging 64 rows or
    # more); the others (float16, big-endian, a strided view) and unsorted ids through numpy:
    # the same groups in np.unique's order either way
    rng = np.random.default_rng(1)
    dt = np.dtype(dtype)
    ids = np.array([0, 3, 7, 100, 127, 5, 9], dtype=dtype)
    if dt.kind == "u":  # the largest id: a subtraction of neighbours would wrap
        ids = np.concatenate([ids, np.array([np.iinfo(dt).max], dtype=dtype)])
    elif dt.kind == "i":  # the smallest and largest ids
        ids = np.concatenate([ids, np.array([np.iinfo(dt).min, np.iinfo(dt).max, -1],
                                            dtype=dtype)])
    else:  # -0.0 and 0.0 are one query, as np.unique has them
        ids = np.concatenate([ids, np.array([-0.5, 1e30 if dt.itemsize > 2 else 6e4],
                                            dtype=dtype)])
    sizes = rng.integers(*run_length, size=ids.size)
    q = np.repeat(np.sort(ids), sizes)
    if dt.kind == "f":
        q[q == 0] = np.where(rng.random(int((q == 0).sum())) < 0.5, -0.0, 0.0)
    if arrangement == "grouped":
        q = np.repeat(ids, sizes)
    elif arrangement == "interleaved":
        q = q[rng.permutation(q.size)]
    elif arrangement == "strided":
        wide = np.repeat(q, 2)
        q = wide[::2]
        assert not q.flags.c_contiguous
    y = rng.integers(0, 3, q.size)
    s = rng.random(q.size)
    with _with("numba"):
        plan = rm.QueryPlan(y, q)
        got = plan.ndcg(s, k=3)
    with _with("numpy"):  # reference on int64 query indices (np.unique's order)
        ref = rm.QueryPlan(y, np.unique(q, return_inverse=True)[1].astype(np.int64)).ndcg(s, k=3)
    np.testing.assert_array_equal(plan.qids, np.unique(q))
    np.testing.assert_array_equal(plan.sizes, np.unique(q, return_counts=True)[1])
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("sizes", [[2, 4], [3, 3], [6], [1, 1, 1, 3], [2, 2, 2], [4, 1, 1],
                                   [1, 5, 3, 3], [2, 2, 1, 1], [3, 3, 2, 1], [5] * 7 + [4, 1],
                                   [1] * 9])
@pytest.mark.parametrize("ids", ["increasing", "one id repeated later", "decreasing"])
def test_sorted_ids_whose_length_divides_into_runs(sizes, ids) -> None:
    # n rows in n_runs runs with n_runs dividing n, or a first run whose length divides n:
    # equal runs of increasing ids take the one-size layout, unequal ones (a row at a
    # multiple of the first run's length inside a run), runs out of order and a query split
    # in two runs the general passes; the queries are np.unique's either way
    run_ids = np.arange(len(sizes)) * 7
    if ids == "one id repeated later":
        run_ids[-1] = run_ids[0]
    elif ids == "decreasing":
        run_ids = run_ids[::-1]
    q = np.repeat(run_ids, sizes)
    with _with("numba"):
        plan = rm.QueryPlan(np.ones(q.size, dtype=int), q)
    uniq, counts = np.unique(q, return_counts=True)
    np.testing.assert_array_equal(plan.qids, uniq)
    np.testing.assert_array_equal(plan.sizes, counts)


@pytest.mark.parametrize("arrangement", [
    "long runs", "one query", "long runs, uint64 ids past int64", "long runs, float ids",
    "long runs, negative int8 ids", "a decrease after long runs", "a query split after long runs",
    "short runs after long ones", "short runs", "long runs, then a run of one row"])
def test_long_sorted_runs_found_in_one_pass(arrangement, monkeypatch) -> None:
    # sorted ids in long runs are grouped by one pass (long_runs); a decrease, a query split
    # in two runs or runs averaging under 32 rows hand over to the two passes: the queries
    # are np.unique's either way, and the one pass answers only when it found them all
    rng = np.random.default_rng(11)
    nk = _backend._numba_module()
    dtype: Any = np.int64
    sizes = rng.integers(32, 200, 60)
    run_ids: Any = np.arange(sizes.size) * 3 - 50
    if arrangement == "one query":
        sizes = np.array([5000])
        run_ids = np.array([4])
    elif arrangement.endswith("past int64"):
        dtype = np.uint64
        run_ids = np.uint64(2**63) + np.arange(sizes.size, dtype=np.uint64) * np.uint64(2**40)
    elif arrangement.endswith("float ids"):
        dtype = np.float64
        run_ids = np.arange(sizes.size) * 0.5 - 3.25
    elif arrangement.endswith("int8 ids"):
        dtype = np.int8
        run_ids = np.arange(sizes.size) - 100
    elif arrangement.startswith("a decrease"):
        run_ids[40] = run_ids[39] - 1
    elif arrangement.startswith("a query split"):
        run_ids[50] = run_ids[10]
    elif arrangement.startswith("short runs after"):
        sizes = np.concatenate([sizes, rng.integers(1, 4, 3000)])
        run_ids = np.arange(sizes.size) * 3
    elif arrangement == "short runs":
        sizes = rng.integers(1, 20, 2000)
        run_ids = np.arange(sizes.size)
    elif arrangement.endswith("one row"):
        sizes[-1] = 1
    q = np.repeat(np.asarray(run_ids).astype(dtype), sizes)
    cap = q.size // nk._MEAN_RUN + nk._RUN_PROBE + 1
    found = nk.long_runs(q, np.empty(cap + 1, dtype=np.int64), np.empty(cap + 1, dtype=q.dtype))
    whole = arrangement.startswith(("long runs", "one query"))
    assert (found == np.unique(q).size) if whole else found == -1, (arrangement, found)
    monkeypatch.setattr(_backend, "_LONG_INPUT", 1)
    y = rng.integers(0, 4, q.size)
    s = np.round(rng.normal(size=q.size), 1)
    with _with("numba"):
        plan = rm.QueryPlan(y, q)
        got = rm.ndcg(y, s, q, k=10)
    uniq, counts = np.unique(q, return_counts=True)
    np.testing.assert_array_equal(plan.qids, uniq)
    np.testing.assert_array_equal(plan.sizes, counts)
    with _with("numpy"):
        np.testing.assert_array_equal(got, rm.ndcg(y, s, q, k=10))


def test_large_tie_group_straddling_the_cutoff() -> None:
    # 10 queries of 20 000 rows, every score tied but for a few: the cutoff's group is huge
    rng = np.random.default_rng(2)
    q = np.repeat(np.arange(10), 20_000)
    y = rng.integers(0, 5, q.size)
    s = np.zeros(q.size)
    s[rng.choice(q.size, 30, replace=False)] = 1.0
    for name in ("ndcg", "average_precision", "reciprocal_rank", "precision"):
        for ties in bf.TIE_MODES:
            ref, got = _both(lambda name=name, ties=ties: getattr(rm, name)(y, s, q, k=10,
                                                                           ties=ties))
            _agree(ref, got, False, f"{name} {ties}")


ONE_PASS = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "map", "mrr", "p@10", "ndcg", "dcg",
            "ap@10", "rr@10", "success@3", "recall@5", "cg@5", "P(rel=2)@5", "AP(rel=3)", "Rprec",
            "nDCG(ties=optimistic)@10", "nDCG(ties=pessimistic)@10", "AP(ties=stable)",
            "RR(ties=optimistic)"]


@SETTINGS
@given(data=workloads(), ties=st.sampled_from(bf.TIE_MODES), sparse=st.booleans(),
       names=st.lists(st.sampled_from(ONE_PASS), min_size=1, max_size=7, unique=True))
def test_backends_agree_on_one_pass_evaluate(data, ties, sparse, names) -> None:
    # raw scores: the compiled kernel ranks each query once for every measure (fused pass),
    # whole lists read sparsely when few rows are relevant, one-tie-group heads in one pass
    y, s, q = data
    if sparse:  # few non-zero gains: whole-list sums sort only those rows
        y = np.where(np.arange(y.size) % 9 == 0, y, 0.0)

    def run() -> dict[str, Any]:
        plan = rm.QueryPlan(y, q)
        out = plan.evaluate(s, names, ties=ties)
        out.update({f"{n} again": v for n, v in plan.evaluate(s, names, ties=ties).items()})
        return out

    ref, got = _both(run)
    _agree(ref, got, False, f"ties={ties} {names}")


@pytest.mark.parametrize("ties", bf.TIE_MODES)
def test_one_pass_shortcuts_agree(ties) -> None:
    # long lists: the sparse whole-list path, the first-relevant group of MRR and the
    # one-tie-group head all taken, against the numpy reference
    rng = np.random.default_rng(7)
    sizes = rng.integers(33, 400, size=40)
    q = np.repeat(np.arange(40), sizes)
    y = np.where(rng.random(q.size) < 0.08, rng.integers(1, 5, q.size), 0).astype(float)
    for s in (rng.integers(0, 3, q.size).astype(float), np.zeros(q.size),
              rng.random(q.size).astype(np.float32),
              np.where(rng.random(q.size) < 0.9, 1.0, rng.random(q.size))):
        ref, got = _both(lambda s=s: rm.QueryPlan(y, q).evaluate(s, ONE_PASS, ties=ties))
        _agree(ref, got, False, ties)
        ref, got = _both(lambda s=s: rm.QueryPlan(y, q).evaluate(
            s, ["cg@5", "cg", "p@3", "P(rel=2)"], ties=ties, gain="linear"))
        _agree(ref, got, True, ties)  # integer sums: bit for bit


@pytest.mark.parametrize("ldtype", [np.int8, np.uint8, np.int16, np.int64, np.float32])
def test_narrow_label_dtypes_are_read_as_given(ldtype) -> None:
    # one-call functions keep integer / float64 labels as given (no widening copy): same
    # numbers as float64 labels, under both kernels, and the input is left unchanged
    rng = np.random.default_rng(11)
    q = np.repeat(np.arange(50), rng.integers(1, 60, 50))
    y = rng.integers(0, 5, q.size)
    s = rng.integers(0, 8, q.size).astype(np.float32)
    yl = y.astype(ldtype)
    before = yl.copy()
    for fn, kw in (("ndcg", {"k": 10}), ("ndcg", {"gain": [0, 1, 3, 7, 15]}),
                   ("dcg", {"gain": "linear"}), ("average_precision", {"threshold": 2}),
                   ("reciprocal_rank", {}), ("precision", {"k": 5})):
        want = getattr(rm, fn)(y.astype(np.float64), s, q, **kw)
        ref, got = _both(lambda fn=fn, kw=kw: getattr(rm, fn)(yl, s, q, **kw))
        np.testing.assert_array_equal(got, want, err_msg=f"{fn} {kw}")
        np.testing.assert_allclose(ref, want, rtol=1e-12, atol=1e-12, err_msg=f"{fn} {kw}")
    np.testing.assert_array_equal(yl, before)
    with pytest.raises(ValueError, match="non-negative"):
        rm.ndcg(np.array([1, -1], dtype=ldtype) if np.dtype(ldtype).kind != "u"
                else np.array([1.0, -1.0]), [0.2, 0.1])


def test_whole_lists_ranked_by_numpy_sort() -> None:
    # lists longer than the counted ones and read whole (k=None, a cutoff >= the list, stable
    # ties, the bounds) are ranked by numpy's sort of packed 32-bit keys (each score mapped
    # onto its list's range); scores closer than the key's step (a list's range over 2**23
    # here) share a key, are caught and put in order by the kernel itself: pairs a few ulps
    # apart in a wide list, float32 neighbours, a range too wide for a float (every key 0)
    rng = np.random.default_rng(5)
    sizes = rng.integers(25, 300, size=30)
    q = np.repeat(np.arange(30), sizes)
    y = rng.integers(0, 4, q.size).astype(float)
    near = 1.0 + rng.integers(0, 6, q.size) * np.finfo(float).eps  # the lowest 3 bits differ
    wide = rng.normal(size=q.size).round(2) * 1e3
    close = wide + rng.integers(0, 3, q.size) * 1e-9 * np.abs(wide)  # a key step is 1e-4 of it
    f32 = (np.float32(1.0) + rng.integers(0, 4, q.size).astype(np.float32)
           * np.finfo(np.float32).eps) * np.where(rng.random(q.size) < 0.02, 1e6, 1).astype(
        np.float32)
    huge = np.where(rng.random(q.size) < 0.1, rng.choice([-1.0, 1.0], q.size) * 1.5e308,
                    rng.normal(size=q.size).round(3))
    cases = ((["ndcg", "map", "mrr", "p@1000", "ndcg@5", "R@300"], "average"),
             (["ndcg", "map", "mrr", "ndcg@3"], "stable"),
             (["ndcg", "map", "mrr"], "optimistic"), (["ndcg", "P@1000"], "pessimistic"))
    for s in (near, -near, np.where(rng.random(q.size) < 0.5, 0.0, -0.0),
              rng.normal(size=q.size).round(1), rng.normal(size=q.size).astype(np.float32),
              rng.integers(-2, 3, q.size) * 1e300, close, f32, huge):
        for perm in (np.arange(q.size), rng.permutation(q.size)):
            for names, ties in cases:
                ref, got = _both(lambda names=names, ties=ties, perm=perm, s=s: rm.QueryPlan(
                    y[perm], q[perm]).evaluate(s[perm], names, ties=ties))
                _agree(ref, got, False, f"{s[:3]} {names} {ties}")


def test_cutoff_families_reading_a_whole_list_walk_agree_bit_for_bit() -> None:
    """On lists ranked whole, the cutoff families of mean contributions (nDCG@k, P@k) read the
    tie groups and prefix sums a whole-list walk (AP, nDCG, P@k past the lists) left under the
    same tie rule; a family under another rule walks for itself, which rewrites them. Every
    order of such families, mixed tie rules included (a stable P@10 walked before the average
    P@10 made that one read stable groups: 0.08 off), agrees with numpy bit for bit."""
    import itertools

    rng = np.random.default_rng(11)
    sizes = rng.integers(25, 120, size=40)
    q = np.repeat(np.arange(40), sizes)
    y = rng.integers(0, 4, q.size)
    s = rng.normal(size=q.size).round(1)
    pool = ["map", "ndcg", "P(ties=stable)@10", "p@10", "ndcg@5", "mrr", "map(ties=stable)",
            "ndcg(gain=linear)@3", "P@1000"]
    for r in (2, 3):
        for names in itertools.permutations(pool, r):
            ref, got = _both(lambda names=names: rm.QueryPlan(y, q).evaluate(s, list(names)))
            _agree(ref, got, True, str(names))


def test_lists_at_the_sort_limit_and_subnormal_scores_agree_bit_for_bit() -> None:
    # a list of 2**16 rows is the longest ranked by numpy's sort (its row's place fills the
    # key's low 16 bits); one row more and it is sorted in the kernel. Subnormal scores make
    # a list's range so small that the key's scale overflows to inf (best score key 0, every
    # other the largest key), and -0.0 / +0.0 must share a key: the reference's sums exactly
    from rankmetrics.core.backend import _PRESORT_CAP

    rng = np.random.default_rng(41)
    sizes = np.array([_PRESORT_CAP, _PRESORT_CAP + 1, 30, 200])
    q = np.repeat(np.arange(sizes.size), sizes)
    y = rng.integers(0, 5, q.size)
    names = ["ndcg", "map", "mrr", "ndcg@10", "P@100", "nDCG(ties=stable)", "AP(ties=optimistic)",
             "nDCG(ties=pessimistic)@1000"]
    tiny = rng.choice([5e-324, -5e-324, 1e-310, 2.5e-308, 0.0, -0.0], q.size)
    for s in (rng.normal(size=q.size).round(2), tiny, tiny.astype(np.float32)):
        for perm in (np.arange(q.size), rng.permutation(q.size)):
            ref, got = _both(lambda s=s, perm=perm: rm.QueryPlan(y[perm], q[perm]).evaluate(
                s[perm], names))
            _agree(ref, got, True, f"{s.dtype} {s[:3]}")


@pytest.mark.parametrize("ties", ["average", "stable", "optimistic"])
def test_counted_and_branch_free_paths_agree_bit_for_bit(ties) -> None:
    # lists of 1..24 rows placed by pairwise counts, lists ranked whole and walked in
    # branch-free passes (mean and AP terms over rank-order prefix sums), and top-k candidates
    # whose cutoff ties are left in row order: the reference's sums, bit for bit with integer
    # gains (the reference's prefix sums run over all rows, so real-valued gains may differ
    # in the last bit, as before these paths)
    rng = np.random.default_rng(23)
    sizes = np.concatenate([np.arange(1, 25), rng.integers(25, 260, size=12)])
    q = np.repeat(np.arange(sizes.size), sizes)
    names = ["ndcg@3", "ndcg@10", "dcg@1000", "ndcg", "p@5", "r@7", "map", "map@20", "mrr"]
    for labels, gain in ((rng.integers(0, 5, q.size), "exponential"),
                         (rng.random(q.size) * 3, "linear")):
        for s in (rng.integers(0, 4, q.size).astype(float), rng.normal(size=q.size).round(1),
                  rng.integers(0, 3, q.size).astype(np.float32), np.zeros(q.size)):
            for perm in (np.arange(q.size), rng.permutation(q.size)):
                ref, got = _both(lambda s=s, perm=perm, labels=labels, gain=gain: rm.QueryPlan(
                    labels[perm], q[perm]).evaluate(s[perm], names, ties=ties, gain=gain))
                _agree(ref, got, gain == "exponential", f"{ties} {s[:4]}")


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_short_lists_read_in_place_agree_bit_for_bit(ties) -> None:
    # contiguous lists of 1..24 rows whose measures all sum mean terms (gains, 0/1 relevance)
    # are counted row by row in place, read up to the next multiple of 8 rows with the rows
    # past the list masked (_walk_counted); the last lists, whose reading would run past the
    # arrays, and interleaved rows take the placing path: the reference's sums bit for bit
    # with integer gains, and the same numbers in both layouts
    rng = np.random.default_rng(31)
    sizes = np.concatenate([rng.permutation(np.repeat(np.arange(1, 25), 6)), [7, 3, 1]])
    q = np.repeat(np.arange(sizes.size), sizes)
    names = ["ndcg@3", "ndcg@10", "dcg@1000", "ndcg", "cg@2", "p@5", "r@7", "nDCG(ties=stable)@5"]
    slots = q[rng.permutation(q.size)]  # queries interleaved, each one's rows kept in order
    perm = np.empty(q.size, dtype=np.int64)
    perm[np.argsort(slots, kind="stable")] = np.arange(q.size)
    for labels in (rng.integers(0, 5, q.size), rng.integers(0, 256, q.size).astype(np.uint8)):
        for s in (rng.integers(0, 4, q.size).astype(float), rng.normal(size=q.size).round(1),
                  rng.integers(0, 3, q.size).astype(np.float32), np.zeros(q.size),
                  -np.arange(q.size, dtype=float)):
            ref, got = _both(lambda s=s, labels=labels: rm.QueryPlan(labels, q).evaluate(
                s, names, ties=ties, gain="linear"))
            _agree(ref, got, True, f"{ties} {s[:4]}")
            with _with("numba"):
                mixed = rm.QueryPlan(labels[perm], q[perm]).evaluate(s[perm], names, ties=ties,
                                                                     gain="linear")
            _agree(got, mixed, True, f"interleaved {ties} {s[:4]}")


def test_tied_head_with_a_higher_row_later_is_not_one_group() -> None:
    # a list whose first k rows tie is one tie group at ranks 1..k only when no later row
    # scores higher (the kernel checks the list's largest score before reading it as one
    # group): heads tied with and without a higher row further down, every row tied, and
    # -0.0 tying 0.0, against the reference bit for bit (integer gains)
    rng = np.random.default_rng(41)
    sizes = rng.integers(30, 200, size=60)
    q = np.repeat(np.arange(sizes.size), sizes)
    y = rng.integers(0, 5, q.size)
    s = np.zeros(q.size)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    for i, (a, m) in enumerate(zip(starts.tolist(), sizes.tolist(), strict=True)):
        if i % 3 == 1:  # one higher row after the tied head
            s[a + int(rng.integers(12, m))] = 1.0
        elif i % 3 == 2:  # a lower row after it (the head still leads)
            s[a + int(rng.integers(12, m))] = -1.0
    signed = np.where(rng.random(q.size) < 0.5, -0.0, 0.0) + s
    names = ["ndcg@10", "p@5", "ap@10", "rr@10", "cg@3", "ndcg@1"]
    for scores in (s, signed, s.astype(np.float32)):
        ref, got = _both(lambda scores=scores: rm.QueryPlan(y, q).evaluate(scores, names))
        _agree(ref, got, True, f"{scores.dtype}")


def test_ideal_network_sorts_every_short_list() -> None:
    # the 19-comparator network that orders up to 8 uint8 gains: every 0/1 input of every
    # length (the zero-one principle: a network that sorts them sorts every input), then
    # random gains, with the entries past the list (another list's) ignored
    # this module compares the compiled kernel with numpy throughout: numba is required
    from rankmetrics.core import _numba_kernel as nk

    rng = np.random.default_rng(37)
    top = np.empty(8)
    bits = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.uint8)
    for g in np.concatenate([bits, rng.integers(0, 256, (2000, 8)).astype(np.uint8)]):
        for m in range(9):
            nk._ideal_net8(g, m, top)
            np.testing.assert_array_equal(top[:m], np.sort(g[:m])[::-1].astype(float))


@pytest.mark.parametrize("labels", ["few patterns", "trailing zeros", "rarely repeated"])
def test_ideal_memo_of_short_lists_agrees_bit_for_bit(labels) -> None:
    # contiguous lists of 1..8 uint8 gains summed whole (every cutoff at or past the list)
    # take their ideal sums from a memo keyed by the gains (lists equal up to trailing zeros
    # share an entry); "rarely repeated" misses the memo until the kernel stops using it.
    # One-call nDCG computes the ideal each time: the reference's values bit for bit (linear
    # integer gains), and with cutoffs inside the lists (no memo) too
    rng = np.random.default_rng(43)
    n_lists = 12_000
    sizes = rng.integers(1, 9, n_lists)
    q = np.repeat(np.arange(n_lists), sizes)
    if labels == "few patterns":
        y = rng.choice(4, q.size, p=[0.6, 0.25, 0.1, 0.05])
    elif labels == "trailing zeros":  # each list's last rows unjudged
        y = rng.integers(1, 4, q.size)
        ends = np.cumsum(sizes)
        y[ends - 1] = 0
        y[np.maximum(ends - 2, 0)[sizes > 3]] = 0
    else:
        y = rng.integers(0, 256, q.size)
    s = rng.normal(size=q.size).round(1)
    for k in (None, 8, 10, 3, 1):
        ref, got = _both(lambda k=k: {"ndcg": rm.ndcg(y, s, q, k=k, gain="linear"),
                                      "dcg": rm.dcg(y, s, q, k=k, gain="linear")})
        _agree(ref, got, True, f"{labels} k={k}")


@pytest.mark.parametrize(("gain", "top"), [
    ("exponential", 7), ("linear", 7), ("exponential", 8), ("linear", 9), ("exponential", 2)])
def test_ideal_by_level_counts_agrees_bit_for_bit(gain, top) -> None:
    # lists of 25..300 rows: those of <= 255 uint8 gains of levels 0..7 (2**l - 1 or l) count
    # their levels in the bytes of one uint64; a gain past level 7 (exponential label 8:
    # 255; linear 8, 9) or a longer list takes the tally. Ideal sums at cutoffs inside,
    # at and past the lists, the whole list and the ideal curve: the reference's bit for bit
    rng = np.random.default_rng(47)
    sizes = rng.integers(25, 301, 300)
    q = np.repeat(np.arange(sizes.size), sizes)
    y = rng.integers(0, top + 1, q.size)
    y[: sizes[0]] = top  # a list of one level (every count in one byte)
    s = rng.normal(size=q.size).round(1)
    for k in (None, 1, 10, 255, 256, 1000):
        ref, got = _both(lambda k=k: {"ndcg": rm.ndcg(y, s, q, k=k, gain=gain),
                                      "dcg": rm.dcg(y, s, q, k=k, gain=gain)})
        _agree(ref, got, True, f"{gain} {top} k={k}")
    ref, got = _both(lambda: rm.ideal_dcg_curve(y, q, depth=300, gain=gain))
    _agree(ref, got, True, f"{gain} {top} curve")


@pytest.mark.parametrize("arrangement", ["one query", "long queries, interleaved"])
def test_long_lists_with_sized_work_buffers_agree(arrangement) -> None:
    # lists longer than max(4096, rows / 8): the compiled kernel's candidate and bounds
    # buffers are sized by what the call reads (core/_numba_sizes.py), not by the list
    rng = np.random.default_rng(17)
    if arrangement == "one query":
        q = np.zeros(30_000, dtype=np.int64)
    else:
        q = np.repeat(np.arange(6), [9000, 7000, 6000, 40, 5000, 3000])
        q = q[rng.permutation(q.size)]
    y = rng.choice(5, q.size, p=[0.5, 0.25, 0.15, 0.07, 0.03])
    heavy = rng.integers(0, 30, q.size).astype(np.float64)  # ~1000-row tie groups
    heavy[rng.random(q.size) < 0.001] = 99.0  # a few rows above them
    for s in (heavy, np.round(rng.random(q.size), 3).astype(np.float32), np.zeros(q.size)):
        for ties in bf.TIE_MODES:
            def run(s=s, ties=ties) -> dict[str, Any]:
                plan = rm.QueryPlan(y, q)
                out = plan.evaluate(s, ["ndcg@1", "ndcg@10", "ndcg@64", "p@10", "rr@5"],
                                    ties=ties)
                out["ndcg"] = plan.ndcg(s, ties=ties)
                out["ap@64"] = plan.average_precision(s, k=64, ties=ties)
                out["curve"] = plan.ndcg_curve(s, depth=20, ties=ties)
                out["err@10"] = plan.err(s, k=10, ties=ties)
                out["one-call p@10"] = rm.precision(y, s, q, k=10, ties=ties)
                return out

            ref, got = _both(run)
            _agree(ref, got, False, f"{arrangement} {ties} {s.dtype}")


@pytest.mark.parametrize("arrangement", ["sorted", "runs in any order", "interleaved"])
def test_curves_normalised_block_by_block_agree(arrangement) -> None:
    # the compiled backend divides by the ideal curve block by block of queries (up to 64 per
    # block here), queries in the layout's segment order
    rng = np.random.default_rng(23)
    sizes = rng.integers(4, 8, 3000)  # runs of >= 4 rows: grouped without a row order
    ids = rng.permutation(10_000)[:3000] if arrangement == "runs in any order" else \
        np.arange(3000)
    q = np.repeat(ids, sizes)
    if arrangement == "interleaved":
        q = q[rng.permutation(q.size)]
    y = rng.choice(4, q.size, p=[0.6, 0.2, 0.1, 0.1])
    s = rng.integers(0, 3, q.size).astype(np.float64)
    with _with("numba"):
        lay = rm.QueryPlan(y, q).layout
    in_order = np.array_equal(lay.seg_query, np.arange(3000))
    assert in_order == (arrangement != "runs in any order")
    for empty in (0.0, "skip", 0.25):
        ref, got = _both(lambda empty=empty: rm.ndcg_curve(y, s, q, depth=40, empty=empty))
        _agree(ref, got, False, f"{arrangement} {empty}")
        ref, got = _both(lambda empty=empty: rm.ncg_curve(y, s, q, depth=40, empty=empty))
        _agree(ref, got, False, f"{arrangement} {empty}")
    # the error names the first five queries without a relevant document, in qid order (a
    # curve is (n_queries, depth): not the queries at the first five ranks)
    uq = np.unique(q)
    no_rel = uq[np.bincount(np.searchsorted(uq, q), weights=y > 0, minlength=uq.size) == 0]
    assert 5 <= no_rel.size < uq.size
    want = str(no_rel[:5].tolist()).replace("[", r"\[").replace("]", r"\]")
    for backend in ("numpy", "numba"):
        with _with(backend), pytest.raises(ValueError, match=f"without relevant.*{want}"):
            rm.ndcg_curve(y, s, q, depth=40, empty="error")


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64, np.float16, np.float32, np.float64,
                                   ">i4", ">f8", "strided"])
def test_compiled_label_passes_match_numpy(dtype) -> None:
    # the gains of small integer labels come from one compiled pass for their range and one
    # for the table lookup (rankmetrics.core.backend.label_range / take_table), or for
    # integer labels from one pass doing both over the table of every level whose gain fits
    # in uint8 (take_ranged, each label clipped into it; kept only when the range lies
    # inside): the same uint8 gains as numpy's min / max / astype / take, or the same
    # refusal (a fractional, negative or too large label, a NaN), and the input left unchanged
    from rankmetrics.core.gains import small_int_gains

    rng = np.random.default_rng(3)
    base = rng.integers(0, 6, 500)
    dt = np.dtype(np.int64 if dtype == "strided" else dtype)
    cases = [base, base[:1], np.full(7, 5)]
    if dt.kind in "if":
        cases.append(np.concatenate([base, [-1]]))
    if np.dtype(dt).itemsize > 1 or dt.kind == "u":
        cases.append(np.concatenate([base, [255]]))
        cases.append(np.concatenate([base, [256]]))
    if dt.kind in "iu":  # the extremes of the dtype: clipped into the table, then refused
        info = np.iinfo(dt)
        wide = base.astype(dt)
        cases += [np.concatenate([wide, np.array([info.max], dtype=dt)]),
                  np.concatenate([np.array([info.min], dtype=dt), wide, wide[:1] + 9])]
    for labels in cases:
        arr = np.asarray(labels).astype(dt)
        if dtype == "strided":
            arr = np.repeat(arr, 2)[::2]
        variants = [arr]
        if dt.kind == "f":
            frac = arr.copy()
            frac[0] = 1.5
            nan = arr.copy()
            nan[-1] = np.nan
            variants += [frac, nan]
        for a in variants:
            before = a.copy()
            # the exponential and linear tables (and per-level weights equal to them) are
            # computed in take_ranged, the others looked up
            for gain in ("exponential", "linear", [0, 1, 2, 4, 8, 16], [0, 1, 300, 2],
                         [0.5, 1], [0, 1, 3, 7, 15, 31], [0, 1, 2, 3, 4, 5, 6]):
                passes = [(_backend.label_range, _backend.take_table),
                          (_backend.label_range, _backend.take_table, _backend.take_ranged)]
                try:
                    want = small_int_gains(gain, a)
                except ValueError as exc:  # the gain refuses a label: the same message
                    for fns in passes:
                        with pytest.raises(ValueError, match=str(exc)[:30]):
                            small_int_gains(gain, a, *fns)
                    continue
                for fns in passes:
                    got = small_int_gains(gain, a, *fns)
                    if want is None:
                        assert got is None, (dtype, gain, a[:3], len(fns))
                    else:
                        assert got is not None and got.dtype == np.uint8
                        np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("k", [1, 2, 5, 10, 16])
def test_counted_top_candidates_agree_bit_for_bit(k) -> None:
    # a cutoff k <= 16 of a list longer than 4 k keeps the rows scoring at least a lower
    # bound of the k-th largest score (column maxima) and ranks them by counting
    # (_gather_counted); many kept rows (heavy ties, ascending scores), a tied head, tie
    # groups straddling the cutoff and float32 scores take it or fall back: the reference's
    # numbers bit for bit with integer gains, under every tie rule
    rng = np.random.default_rng(29 + k)
    sizes = rng.integers(4 * k + 1, 4 * k + 300, size=40)
    q = np.repeat(np.arange(sizes.size), sizes)
    y = rng.integers(0, 5, q.size)
    names = [f"ndcg@{k}", f"dcg@{max(1, k // 2)}", f"p@{k}", f"r@{k}", f"map@{k}", f"mrr@{k}"]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    within = np.arange(q.size) - np.repeat(starts, sizes)
    head = np.where(within < k + 2, 9.0, rng.normal(size=q.size).round(1))
    for s in (rng.normal(size=q.size), rng.normal(size=q.size).round(1),
              rng.integers(0, 3, q.size).astype(float), within.astype(float),
              -within.astype(float), head, rng.normal(size=q.size).astype(np.float32)):
        for ties in ("average", "stable", "optimistic", "pessimistic"):
            ref, got = _both(lambda s=s, ties=ties: rm.QueryPlan(y, q).evaluate(
                s, names, ties=ties))
            _agree(ref, got, True, f"{ties} {s[:4]}")


@pytest.mark.parametrize("empty", [0.0, 1.0, 0.25, "skip", "error"])
def test_empty_rule_in_the_compiled_division(empty: Any) -> None:
    # the compiled nDCG / nCG divide by the cached ideal and put the empty rule's value where
    # it is 0 in one pass: per query as numpy's, the cached ideal left as it was
    rng = np.random.default_rng(7)
    q = np.repeat(np.arange(400), rng.integers(1, 30, 400))
    y = rng.choice(3, q.size, p=[0.7, 0.2, 0.1])
    y[np.isin(q, rng.choice(400, 60, replace=False))] = 0  # queries with no relevant row
    s = np.round(rng.normal(size=q.size), 1)
    empty_q = np.bincount(q, weights=y) == 0
    calls = {"ndcg@5": lambda p: p.ndcg(s, k=5, empty=empty),
             "ndcg": lambda p: p.ndcg(s, empty=empty),
             "ncg@3": lambda p: p.ncg(s, k=3, empty=empty),
             "evaluate": lambda p: p.evaluate(s, ["ndcg@1", "ndcg@10"], empty=empty)}
    for name, call in calls.items():
        if empty == "error":
            for backend in ("numpy", "numba"):
                with _with(backend), pytest.raises(ValueError, match="without relevant"):
                    call(rm.QueryPlan(y, q))
            continue
        ref, got = _both(lambda call=call: call(rm.QueryPlan(y, q)))
        _agree(ref, got, False, f"{name} {empty}")
        with _with("numba"):
            plan = rm.QueryPlan(y, q)
            first = call(plan)
            again = call(plan)  # the cached ideal was not divided in place
        _agree(first, again, True, f"{name} {empty} again")
        if name != "evaluate":
            want = np.nan if empty == "skip" else empty
            np.testing.assert_array_equal(first[empty_q], np.full(empty_q.sum(), want))
            assert np.all(np.isfinite(first[~empty_q]))


def test_remembered_nonzero_count_is_each_arrays_own() -> None:
    # the dense-relevance check of whole-list AP remembers a value vector's non-zero count by
    # the array's id while the array lives: a new array that reuses a freed array's id (the
    # loop frees each one) gets its own count, and nothing is kept alive
    import gc

    for i in range(200):
        v = np.zeros(300, dtype=np.float32 if i % 2 else np.uint8)
        v[: i % 150] = 1
        assert _backend._nonzero_of(v) == i % 150
        assert _backend._nonzero_of(v) == i % 150
        del v
    gc.collect()
    assert len(_backend._NONZERO_OF) == 0


def test_read_only_inputs_reuse_the_writeable_inputs_compiled_code() -> None:
    # numba types a read-only array (pandas' copy-on-write arrays, np.frombuffer) apart from a
    # writeable one: every input reaches the kernels read-only, so a mix compiles once
    from rankmetrics.core import _numba_kernel as nk

    rng = np.random.default_rng(3)
    q = np.repeat(np.arange(40), 30)
    y = rng.integers(0, 4, q.shape[0]).astype(np.int64)
    s = np.round(rng.normal(size=q.shape[0]), 1)
    ys, ss, qs = y.copy(), s.copy(), q.copy()
    frozen = []
    for a in (y, s, q):
        b = a.copy()
        b.flags.writeable = False
        frozen.append(b)
    got = {}
    with _with("numba"):
        for name, (yy, sc, qq) in {"writeable": (y, s, q), "read-only": tuple(frozen)}.items():
            plan = rm.QueryPlan(yy, qq)
            got[name] = (plan.evaluate(sc, ["ndcg@5", "map", "mrr", "p@5"]),
                         plan.ndcg(plan.rank(sc), k=5), rm.ndcg(yy, sc, qq, k=5))
    assert got["writeable"][0].keys() == got["read-only"][0].keys()
    for name, values in got["writeable"][0].items():
        np.testing.assert_array_equal(values, got["read-only"][0][name])
    np.testing.assert_array_equal(got["writeable"][1], got["read-only"][1])
    np.testing.assert_array_equal(got["writeable"][2], got["read-only"][2])
    for a, b in ((y, ys), (s, ss), (q, qs)):  # the callers' arrays keep their flags and data
        assert a.flags.writeable
        np.testing.assert_array_equal(a, b)
    inputs = {nk.eval_segments: 0, nk.rank_segments: 0, nk.cutoff_sums: 0, nk.pack_keys: 0,
              nk.first_run: 0, nk.runs_of: 0, nk.take_ranged: 1, nk.divide_ideal: 1}
    for fn, i in inputs.items():  # every compiled version in this process (tests before too)
        assert fn.signatures, fn.__name__
        for sig in fn.signatures:
            assert not sig[i].mutable, (fn.__name__, sig)
