"""Bad input gets a clear error naming the problem; good input of every accepted type works."""

from __future__ import annotations

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm
from rankmetrics import QueryPlan
from rankmetrics.session import query_discount, session_dcg

Y = [2, 0, 1, 0]
S = [0.3, 0.2, 0.2, 0.1]
Q = [1, 1, 2, 2]

PER_QUERY = [
    rm.cg, rm.dcg, rm.ncg, rm.ndcg, rm.precision, rm.recall, rm.f1, rm.fbeta,
    rm.average_precision, rm.reciprocal_rank,
]


@pytest.mark.parametrize("fn", PER_QUERY, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"y_score": [0.1, 0.2]}, ValueError, "same length; got 4 and 2"),
        ({"y_score": [0.1, np.nan, 0.2, 0.3]}, ValueError, r"y_score must be finite.*nan"),
        ({"y_score": [0.1, np.inf, 0.2, 0.3]}, ValueError, r"y_score must be finite.*inf"),
        ({"y_true": [1, -1, 0, 0]}, ValueError, "y_true must be non-negative.*-1"),
        ({"y_true": [1, np.nan, 0, 0]}, ValueError, "y_true must be finite"),
        ({"y_true": [], "y_score": [], "qid": []}, ValueError, "y_true is empty"),
        ({"k": 0}, ValueError, "k must be a positive int or None; got 0"),
        ({"k": -3}, ValueError, "k must be a positive int or None; got -3"),
        ({"k": 2.5}, TypeError, "k must be a positive int or None; got 2.5"),
        ({"ties": "random"}, ValueError, "ties must be one of .*'average'.*got 'random'"),
        ({"qid": [1, 1, 2]}, ValueError, "qid must have one entry per row: got 3 for 4 rows"),
        ({"y_score": ["a", "b", "c", "d"]}, TypeError, "y_score must be numeric"),
    ],
)
def test_bad_input_raises(fn, kwargs, exc, match):
    args = {"y_true": Y, "y_score": S, "qid": Q, **kwargs}
    with pytest.raises(exc, match=match):
        fn(args.pop("y_true"), args.pop("y_score"), args.pop("qid"), **args)


@pytest.mark.parametrize("fn", [rm.cg, rm.dcg, rm.ndcg], ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"y_true": [1.5, 0, 1, 0]}, ValueError, 'labels must be integers with gain="exponential"'),
        ({"y_true": [1024, 0, 1, 0]}, ValueError, "label 1024 is too large for gain 2\\*\\*l - 1"),
        ({"gain": "square"}, ValueError, "gain must be one of 'exponential', 'linear'.*'square'"),
        ({"gain": [0, 1]}, ValueError, "label 2 has no gain weight: 2 weights given"),
        ({"gain": [0, 1, -2]}, ValueError, "gain weights must be .* >= 0"),
        ({"gain": [0, 1, 3], "y_true": [0.5, 0, 1, 0]}, ValueError, "integers to index per-level"),
        ({"gain": {0: 0, 1: 1}}, ValueError, r"gain mapping has no weight for label\(s\) \[2.0\]"),
        ({"gain": lambda x: -x}, ValueError, "gain callable returned a negative gain"),
        ({"gain": lambda x: x[:1]}, ValueError, r"gain callable must return one gain per label"),
        ({"gain": 3}, TypeError, "gain must be a string, sequence, mapping or callable"),
    ],
)
def test_bad_gain_raises(fn, kwargs, exc, match):
    args = {"y_true": Y, "y_score": S, "qid": Q, **kwargs}
    with pytest.raises(exc, match=match):
        fn(args.pop("y_true"), args.pop("y_score"), args.pop("qid"), **args)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"discount": "harmonic"}, ValueError, "discount must be one of 'log'.*'harmonic'"),
        ({"log_base": 1}, ValueError, "log_base must be > 1; got 1"),
        ({"log_base": 0.5, "discount": "jarvelin2008"}, ValueError, "log_base must be > 1"),
        ({"log_base": "two"}, TypeError, "log_base must be a finite number; got 'two'"),
        ({"discount": lambda r: -1.0 / r}, ValueError, "discount callable must return finite"),
        ({"discount": 7}, TypeError, "discount must be a string or a callable"),
        ({"empty": "nan"}, ValueError, "empty must be one of 'skip', 'error'; got 'nan'"),
        ({"empty": None}, TypeError, "empty must be a finite number, 'skip' or 'error'"),
    ],
)
def test_bad_discount_or_empty_raises(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        rm.ndcg(Y, S, Q, **kwargs)


def test_binary_parameter_errors():
    with pytest.raises(TypeError, match="threshold must be a number; got 'high'"):
        rm.precision(Y, S, Q, threshold="high")
    with pytest.raises(ValueError, match="beta must be > 0; got 0"):
        rm.fbeta(Y, S, Q, beta=0)
    with pytest.raises(ValueError, match="denominator must be one of 'relevant'"):
        rm.average_precision(Y, S, Q, denominator="k")


def test_empty_error_names_the_query():
    with pytest.raises(ValueError, match=r"without relevant documents \(qid \['b'\]\)"):
        rm.ndcg([1, 0, 0, 0], S, ["a", "a", "b", "b"], empty="error")
    with pytest.raises(ValueError, match=r"average precision is undefined .*qid \[2\]"):
        rm.average_precision([1, 0, 0, 0], S, Q, empty="error")


def test_empty_rules():
    y, s, q = [1, 0, 0, 0], S, Q
    np.testing.assert_array_equal(rm.ndcg(y, s, q)[1], 0.0)
    np.testing.assert_array_equal(rm.ndcg(y, s, q, empty=1.0)[1], 1.0)
    assert np.isnan(rm.ndcg(y, s, q, empty="skip")[1])
    assert rm.ndcg_score(y, s, q, empty="skip") == pytest.approx(rm.ndcg(y, s, q)[0])
    with pytest.warns(UserWarning, match="no query could be scored"):
        assert np.isnan(rm.ndcg_score([0, 0], [1, 2], empty="skip"))


def test_two_d_layout_errors():
    with pytest.raises(ValueError, match="same shape; got"):
        rm.ndcg([[1, 0], [0, 1]], [[1, 2, 3], [1, 2, 3]])
    with pytest.raises(ValueError, match="qid must be None when y_true and y_score are 2-D"):
        rm.ndcg([[1, 0], [0, 1]], [[1, 2], [1, 2]], qid=[0, 1])


def test_plan_errors():
    plan = QueryPlan(Y, Q)
    with pytest.raises(ValueError, match=r"one score per row \(4\); got shape \(3,\)"):
        plan.ndcg([1, 2, 3])
    ranking = plan.rank(S, depth=2)
    with pytest.raises(ValueError, match="keeps only the top 2 ranks; cutoff 5"):
        plan.ndcg(ranking, k=5)
    with pytest.raises(ValueError, match="made with ties='average'; rank again for ties='stable'"):
        plan.ndcg(ranking, k=2, ties="stable")
    with pytest.raises(ValueError, match="made by another QueryPlan"):
        QueryPlan(Y, Q).ndcg(ranking, k=1)
    with pytest.raises(ValueError, match="unknown measure 'ndgc@10'"):
        plan.evaluate(S, ["ndgc@10"])
    with pytest.raises(ValueError, match=r"cutoff of 'ndcg@0' must be a positive int"):
        plan.evaluate(S, ["ndcg@0"])
    with pytest.raises(ValueError, match="group_sizes add up to 3 but y_true has 4 rows"):
        QueryPlan.from_group_sizes(Y, [1, 2])
    with pytest.raises(ValueError, match="group_sizes must be positive integers"):
        QueryPlan.from_group_sizes(Y, [4, 0])
    with pytest.raises(ValueError, match=r"query_weight must have one weight per query \(2,\)"):
        rm.ndcg_score(Y, S, Q, query_weight=[1.0])
    with pytest.raises(TypeError, match="depth must be a positive int"):
        rm.dcg_curve(Y, S, Q, depth=None)
    with pytest.raises(ValueError, match="integers of magnitude 2\\*\\*53 or more"):
        rm.ndcg(Y, np.array([2**60, 1, 2, 3]), Q)
    for edge in (2**53, -(2**53)):  # the bound itself is refused, and said so
        with pytest.raises(ValueError, match="magnitude 2\\*\\*53 or more"):
            rm.ndcg(Y, np.array([edge, 1, 2, 3]), Q)
    assert np.all(np.isfinite(rm.ndcg(Y, np.array([2**53 - 1, 1, 2, 3]), Q)))


@pytest.mark.parametrize("call", [
    lambda d: rm.ndcg_curve(Y, S, Q, depth=d),
    lambda d: rm.cg_curve(Y, S, Q, depth=d),
    lambda d: QueryPlan(Y, Q).ideal_cg_curve(depth=d),
    lambda d: QueryPlan(Y, Q).ideal_dcg_curve(depth=d),
    lambda d: query_discount(d),
], ids=["ndcg_curve", "cg_curve", "ideal_cg_curve", "ideal_dcg_curve", "query_discount"])
@pytest.mark.parametrize(("depth", "exc"), [(0, ValueError), (1.0, TypeError),
                                            (None, TypeError), (True, TypeError)])
def test_depths_and_counts_are_not_offered_none(call, depth, exc):
    """A curve's depth (or a count) has no whole-list reading: its message must not offer
    None, which it then refuses."""
    with pytest.raises(exc, match=r"must be a positive int; got") as info:
        call(depth)
    assert "None reads" not in str(info.value) and "or None" not in str(info.value)


def test_inputs_not_mutated_and_types_accepted():
    y = np.array([3, 0, 1, 2], dtype=np.int64)
    s = np.array([0.5, 0.5, 0.2, 0.1], dtype=np.float32)
    q = np.array([2, 1, 2, 1])
    copies = (y.copy(), s.copy(), q.copy())
    ref = rm.ndcg(y, s, q, k=2)
    for yy, ss in [
        (list(y), list(s)),
        (tuple(y), tuple(s.astype(np.float64))),
        (y.astype(np.float32), s.astype(np.float64)),
        (y.astype(bool).astype(np.int64) * y, s.astype(np.float16)),
    ]:
        np.testing.assert_allclose(rm.ndcg(yy, ss, q, k=2), ref, rtol=1e-12)
    for arr, orig in zip((y, s, q), copies, strict=True):
        np.testing.assert_array_equal(arr, orig)
    np.testing.assert_array_equal(rm.precision([True, False], [True, False]), [0.5])


def test_pandas_series_and_string_qids():
    from _extras import require

    pd = require("pandas")
    df = pd.DataFrame({"y": [2, 0, 1, 0], "s": S, "q": ["b", "b", "a", "a"]})
    out = rm.ndcg(df["y"], df["s"], df["q"])
    np.testing.assert_allclose(out, rm.ndcg([1, 0, 2, 0], [0.2, 0.1, 0.3, 0.2], [0, 0, 1, 1]))


def test_recall_base_sets_ideal_and_relevant_count():
    # q1 retrieved a(2), b(0), c (unjudged); judged a=2, b=0, d=3 (d not retrieved)
    plan = QueryPlan(
        [2, 0, 0, 1], qid=["q1", "q1", "q1", "q2"],
        recall_base=([2, 0, 3, 1, 1, 4], ["q1", "q1", "q1", "q2", "q2", "q3"]),
    )
    s = [3, 2, 1, 5]
    np.testing.assert_allclose(plan.ndcg(s, gain="linear")[0], 2 / (3 + 2 / np.log2(3)))
    np.testing.assert_allclose(plan.recall(s), [0.5, 0.5])
    np.testing.assert_allclose(plan.average_precision(s), [0.5, 0.5])
    with pytest.raises(TypeError, match="recall_base qid dtype"):
        QueryPlan([1], qid=["a"], recall_base=([1], [1]))
    with pytest.raises(TypeError, match=r"recall_base must be a tuple \(labels, qid\)"):
        QueryPlan([1], qid=["a"], recall_base=[[1], ["a"]])


def test_a_recall_base_missing_judged_rows_is_refused(backend):
    # q1 ranks labels 2 and 1 but its base holds only a 1: nDCG 3.63, recall 2 and AP 2 before
    with pytest.raises(ValueError, match=r"recall_base: query 'q1' ranks 2 documents with a "
                                         r"label of at least 1 but its recall base holds 1"):
        QueryPlan([2, 1, 0, 1], ["q1", "q1", "q1", "q2"],
                  recall_base=([1, 1], ["q1", "q2"]))
    # a higher grade than the base's: counted at each positive label of the rows
    with pytest.raises(ValueError, match="label of at least 3 but its recall base holds 0"):
        QueryPlan([3, 1], [7, 7], recall_base=([2, 2], [7, 7]))
    # a query absent from the base has an empty one: its relevant rows are refused too
    with pytest.raises(ValueError, match="query 8 ranks 1 documents"):
        QueryPlan([0, 1], [7, 8], recall_base=([1], [7]))
    # more than 64 distinct labels: checked at 64 of them, the largest included
    y = np.linspace(0.5, 40.0, 200)
    with pytest.raises(ValueError, match="label of at least 40 but its recall base holds 0"):
        QueryPlan(y, np.zeros(200, int), recall_base=(np.append(y[:-1], y[-2]),
                                                      np.zeros(200, int)))
    # every judged row with its label, unjudged rows at 0 and judged rows not retrieved
    plan = QueryPlan(y, np.zeros(200, int), recall_base=(y, np.zeros(200, int)))
    assert plan.ndcg(np.arange(200.0), gain="linear")[0] == pytest.approx(1.0)
    plan = QueryPlan([2, 0, 1, 0], ["a", "a", "a", "b"],
                     recall_base=([1, 2, 3, 0], ["a", "a", "a", "c"]))
    s = [3.0, 2.0, 1.0, 0.0]
    assert (plan.ndcg(s, empty=0.0) <= 1).all() and (plan.recall(s, empty=0.0) <= 1).all()


def test_an_empty_recall_base_given_as_lists():
    # np.asarray([]) is float64: the empty base was refused with TypeError 'recall_base qid
    # dtype float64 does not match the ranked rows' qid dtype int64'; its queries have an empty
    # recall base, as the docstring says
    plan = QueryPlan([0, 0], [1, 1], recall_base=([], []))
    np.testing.assert_array_equal(plan.ndcg([1.0, 2.0]), [0.0])
    assert np.isnan(QueryPlan([0], ["a"], recall_base=([], [])).recall([1.0], empty="skip"))[0]
    with pytest.raises(ValueError, match="query 1 ranks 1 documents"):
        QueryPlan([1, 0], [1, 1], recall_base=([], []))
    # a base qid of the wrong length names the argument
    with pytest.raises(ValueError, match="recall_base qid must have one entry per row"):
        QueryPlan([1, 0], [1, 1], recall_base=([1, 0], [1]))


ONE_CALL = PER_QUERY + [rm.r_precision, rm.success, rm.err, rm.rbp]
CURVES = [rm.cg_curve, rm.dcg_curve, rm.ncg_curve, rm.ndcg_curve]


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_negative_integer_labels_refused_by_every_one_call_function(backend, dtype) -> None:
    # one-call functions check the sign of signed integer labels in the pass that makes their
    # gains (or on first use of the labels, for measures without gains): every function, gain
    # and position of the negative label gets the same error; non-negative labels the same
    # values as float64 labels
    q = np.repeat(np.arange(40), 6)
    rng = np.random.default_rng(4)
    good = rng.integers(0, 4, q.size)
    s = np.round(rng.random(q.size), 1)
    calls = [lambda y, f=f: f(y, s, q) for f in ONE_CALL]
    calls += [lambda y, f=f: f(y, s, q, depth=8) for f in CURVES]
    calls += [lambda y, g=g: rm.ndcg(y, s, q, k=3, gain=g)
              for g in ("linear", [0, 1, 3, 7], {0: 0, 1: 1, 2: 2, 3: 5}, lambda x: x)]
    calls += [lambda y: rm.ndcg(y.reshape(40, 6), s.reshape(40, 6), None)]
    old = rm.get_backend()
    rm.set_backend(backend)
    try:
        for call in calls:
            for at in (0, 77, q.size - 1):
                bad = good.astype(dtype)
                bad[at] = -1
                before = bad.copy()
                with pytest.raises(ValueError, match="y_true must be non-negative graded "
                                                     "labels; found -1"):
                    call(bad)
                np.testing.assert_array_equal(bad, before)
            np.testing.assert_array_equal(call(good.astype(dtype)),
                                          call(good.astype(np.float64)))
    finally:
        rm.set_backend(old)


def test_plan_pickled_before_labels_became_a_property_loads() -> None:
    import pickle

    plan = QueryPlan(Y, Q)
    state = plan.__getstate__()
    state["labels"] = state.pop("_labels")
    state.pop("_sign_pending")
    old = QueryPlan.__new__(QueryPlan)
    old.__setstate__(state)
    np.testing.assert_array_equal(old.labels, plan.labels)
    np.testing.assert_array_equal(old.ndcg(S), plan.ndcg(S))
    again = pickle.loads(pickle.dumps(old))
    np.testing.assert_array_equal(again.ndcg(S), plan.ndcg(S))


def test_plan_pickled_with_its_layouts_sizes_loads() -> None:
    # plans pickled before the sizes of in-order queries were made from the offsets on first
    # use: the plan's own ``sizes`` entry and the layout's ``sizes`` field both load
    import pickle

    from rankmetrics.core import backend

    previous = rm.get_backend()
    for backend_name in ("numba", "numpy"):
        rm.set_backend(backend_name)
        try:
            plan = QueryPlan(Y, Q)
            state = plan.__getstate__()
            state["sizes"] = plan.sizes.copy()
            lay = plan.layout
            if isinstance(lay, backend.SegLayout):
                assert lay.stored_sizes is None  # in-order queries: nothing held
                old_lay = dict(lay.__dict__, cache={})
                old_lay["sizes"] = old_lay.pop("stored_sizes")
                old_lay["sizes"] = plan.sizes.copy()
                layout = backend.SegLayout.__new__(backend.SegLayout)
                layout.__setstate__(old_lay)
                state["layout"] = state["_base_layout"] = layout
            old = QueryPlan.__new__(QueryPlan)
            old.__setstate__(state)
            np.testing.assert_array_equal(old.sizes, plan.sizes)
            np.testing.assert_array_equal(old.ndcg(S), plan.ndcg(S))
            np.testing.assert_array_equal(old.precision(S, k=None), plan.precision(S, k=None))
            again = pickle.loads(pickle.dumps(old))
            np.testing.assert_array_equal(again.average_precision(S), plan.average_precision(S))
        finally:
            rm.set_backend(previous)


def _layouts() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(7)
    sizes = {"five": [5] * 300, "varied": rng.integers(20, 221, 40).tolist(),
             "one_long": [3, 6000]}  # longer than the work-buffer sizing reads whole
    out = {n: (rng.integers(0, 5, sum(s)), np.repeat(np.arange(len(s)), s))
           for n, s in sizes.items()}
    y, q = out["varied"]
    out["shuffled"] = (y, rng.permutation(q))  # rows out of query order
    return out


_LAYOUTS = _layouts()


@pytest.mark.parametrize("layout", list(_LAYOUTS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_non_finite_scores_refused_on_every_kernel_path(layout: str, dtype: type) -> None:
    # a plan's one-pass evaluation (and the one-call functions) look for NaN and inf as the
    # compiled kernel reads each list, in each of its paths (short lists placed by counting,
    # lists sorted by numpy, ranked in place, rows out of order, a list the buffer sizing
    # reads first); the scores are never changed
    y, q = _LAYOUTS[layout]
    plan = QueryPlan(y, q)
    rng = np.random.default_rng(3)
    base = np.round(rng.normal(size=y.shape[0]), 1).astype(dtype)
    many = ["ndcg@1", "ndcg@10", "map", "mrr", "p@10"]
    bounds = ["nDCG(ties=optimistic)@10", "nDCG(ties=pessimistic)@10"]
    calls = {
        "plan ndcg@10": lambda s: plan.ndcg(s, k=10),
        "plan ndcg": lambda s: plan.ndcg(s, gain="linear"),
        "plan ap": lambda s: plan.average_precision(s),
        "plan many": lambda s: plan.evaluate(s, many),
        "plan bounds": lambda s: plan.evaluate(s, bounds),
        "ndcg@10": lambda s: rm.ndcg(y, s, q, k=10),
        "ap": lambda s: rm.average_precision(y, s, q),
        "ndcg curve": lambda s: rm.ndcg_curve(y, s, q, depth=3),
    }
    # a NaN with its sign bit set too: the packing of lists for numpy's sort finds NaN and
    # inf as its best or worst key in IEEE bit order (-NaN < -inf < finite < inf < NaN)
    for bad in (np.nan, np.copysign(np.nan, -1.0), np.inf, -np.inf):
        for pos in (0, y.shape[0] // 2, y.shape[0] - 1):
            s = base.copy()
            s[pos] = bad
            before = s.copy()
            for name, call in calls.items():
                with pytest.raises(ValueError, match=r"y_score must be finite.*(nan|inf)"):
                    call(s)
                np.testing.assert_array_equal(s, before, err_msg=name)
    # a refused call leaves the plan as it was: the same numbers as a new plan's
    fresh = QueryPlan(y, q)
    for ms in (many, bounds):
        got, want = plan.evaluate(base, ms), fresh.evaluate(base, ms)
        for m in ms:
            np.testing.assert_array_equal(got[m], want[m], err_msg=m)


@pytest.mark.parametrize("backend_name", ["numba", "numpy"])
def test_overflowed_sums_refused_when_normalised(backend_name: str) -> None:
    # the compiled normalisation looks for NaN/inf sums in its own pass (no pass of their own)
    from rankmetrics.core import backend

    previous = rm.get_backend()
    rm.set_backend(backend_name)
    try:
        plan = QueryPlan([1, 0, 2, 1], [1, 1, 2, 2])
        for bad in (np.inf, np.nan):
            vals = np.array([[0.5, bad]])
            with pytest.raises(ValueError, match="gain x discount sums overflow float64"):
                plan._normalise(vals, np.array([[1.0, 2.0]]), 0.0)
        vals = np.array([[0.5, 3.0]])
        np.testing.assert_array_equal(plan._normalise(vals, np.array([[2.0, 0.0]]), 7.0),
                                      [[0.25, 7.0]])
    finally:
        rm.set_backend(previous)
    if backend_name == "numba":
        vals = np.array([1.0, np.inf, 2.0, 4.0])
        assert backend.divide_ideal(vals, np.array([2.0, 1.0, 0.0, 4.0]), 0.0) == (1, True)
        assert vals[0] == 0.5 and vals[2] == 0.0 and vals[3] == 1.0
        assert backend.divide_ideal(np.ones(3), np.ones(3), 0.0) == (0, False)


def test_cutoffs_past_int64_refused_everywhere() -> None:
    """A cutoff or depth above 2**62 (past every list; the kernels hold ranks in int64) is a
    ValueError naming it, from every entry point that takes one; 2**62 itself still reads the
    whole list (P@k still divides by k)."""
    from rankmetrics.lightgbm import make_feval
    from rankmetrics.sklearn import make_ranking_scorer

    huge = 2**63
    plan = QueryPlan(Y, Q)
    calls = [
        lambda: rm.ndcg(Y, S, Q, k=huge),
        lambda: plan.precision(S, k=huge),
        lambda: rm.ndcg_curve(Y, S, Q, depth=huge),
        lambda: plan.rank(S, depth=huge),
        lambda: make_feval("ndcg", k=huge),
        lambda: make_ranking_scorer("ndcg", k=huge),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r"(k|depth) must be at most 2\*\*62"):
            call()
    for name in (f"ndcg@{huge}", f"P_{huge}", f"ndcg_cut.{huge}"):
        with pytest.raises(ValueError, match=r"must be at most 2\*\*62"):
            plan.evaluate(S, [name])
    np.testing.assert_array_equal(rm.ndcg(Y, S, Q, k=2**62), rm.ndcg(Y, S, Q))
    np.testing.assert_array_equal(plan.precision(S, k=2**62), plan.precision(S) * 2 / 2**62)


def test_plan_methods_refuse_none_scores_and_metrics() -> None:
    plan = QueryPlan(Y, Q)
    for call in (lambda: plan.ndcg(None), lambda: plan.evaluate(None, "ndcg"),
                 lambda: plan.rank(None), lambda: plan.reciprocal_rank(None)):
        with pytest.raises(TypeError, match="y_score must be array-like, got None"):
            call()
    from rankmetrics.lightgbm import make_feval

    for call in (lambda: plan.evaluate(S, None), lambda: make_feval(None),
                 lambda: plan.evaluate(S, 5)):
        with pytest.raises(TypeError, match="metrics must be a measure name"):
            call()


@pytest.mark.parametrize("backend_name", ["numba", "numpy"])
def test_rbp_graded_sums_that_overflow_refused(backend_name: str) -> None:
    """RBP's graded gains are the labels themselves: sums past float64 are the ValueError that
    DCG gives (they were NaN or inf), with no numpy overflow warning first."""
    import warnings

    previous = rm.get_backend()
    rm.set_backend(backend_name)
    try:
        y, s = [1e308, 1e308, 0], [0.3, 0.2, 0.1]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for call in (lambda: rm.rbp(y, s), lambda: rm.rbp(y, s, k=2),
                         lambda: QueryPlan(y).evaluate(s, ["RBP", "RBP@2"])):
                with pytest.raises(ValueError, match="sums overflow float64"):
                    call()
            np.testing.assert_allclose(rm.rbp([3, 1, 0], s), [0.2 * 3 + 0.16 * 1])
    finally:
        rm.set_backend(previous)


def test_masked_arrays_with_masked_entries_refused() -> None:
    # np.asarray drops a mask: the hidden values would be read as labels, scores or ids
    def masked(a: list) -> np.ma.MaskedArray:
        return np.ma.masked_array(a, mask=[False, True, False, False])

    calls = {
        "y_true": [lambda: rm.ndcg(masked(Y), S, Q, k=2), lambda: QueryPlan(masked(Y), Q),
                   lambda: rm.ndcg_score(masked(Y)[None, :], [S])],
        "y_score": [lambda: rm.average_precision(Y, masked(S), Q),
                    lambda: QueryPlan(Y, Q).evaluate(masked(S), ["ndcg@2", "map"])],
        "qid": [lambda: rm.precision(Y, S, masked(Q), k=1), lambda: QueryPlan(Y, masked(Q))],
    }
    for name, fns in calls.items():
        for call in fns:
            with pytest.raises(ValueError, match=f"{name} is a masked array with masked entries"):
                call()
    # a mask hiding nothing changes nothing
    plain = rm.ndcg(Y, S, Q, k=2)
    np.testing.assert_array_equal(
        rm.ndcg(np.ma.masked_array(Y), np.ma.masked_array(S, mask=False), np.ma.masked_array(Q),
                k=2), plain)



def test_scipy_sparse_inputs_refused_by_name() -> None:
    """A scipy sparse y_true (scikit-learn's multilabel-indicator layout), y_score or qid was
    wrapped by np.asarray in a 0-d object array and reported as "y_true has missing values
    (<Compressed Sparse Row sparse matrix ...>)"; now a TypeError saying what it is."""
    sp = require("scipy.sparse")
    calls = {
        "y_true": lambda: rm.ndcg_score(sp.csr_matrix(np.array([[3, 0, 1]])), [[0.1, 0.2, 0.3]]),
        "y_score": lambda: rm.dcg_score([[3, 0, 1]], sp.coo_array(np.array([[0.1, 0.2, 0.3]]))),
        "qid": lambda: rm.ndcg(Y, S, sp.csr_matrix(np.asarray(Q)[None, :])),
    }
    for name, call in calls.items():
        with pytest.raises(TypeError, match=f"{name} is a scipy sparse .*toarray"):
            call()

def test_object_qids_of_numpy_bools_are_ids_like_python_bools() -> None:
    # np.bool_ is not registered as a numbers.Integral (Python's bool is): an object array of
    # them (what pandas gives for a boolean column with .to_numpy(object)) was refused
    want = rm.ndcg(Y, S, np.array([True, True, False, False]))
    for q in (np.array([np.True_, np.True_, np.False_, np.False_], dtype=object),
              np.array([True, np.True_, False, np.False_], dtype=object)):
        np.testing.assert_array_equal(rm.ndcg(Y, S, q), want)
        np.testing.assert_array_equal(QueryPlan(Y, q).ndcg(S), want)


_BIG = 2**2000  # an int past float64's range: float() and math.isfinite raise OverflowError


def _big_calls():
    from rankmetrics import datasets
    from rankmetrics.session import query_discount
    from rankmetrics.trec import evaluate

    y, s = [1, 0], [1.0, 2.0]
    return {
        "log_base": lambda: rm.dcg(y, s, log_base=_BIG),
        "empty": lambda: rm.ndcg(y, s, empty=_BIG),
        "threshold": lambda: rm.precision(y, s, threshold=_BIG),
        "beta": lambda: rm.fbeta(y, s, beta=_BIG),
        "max_grade": lambda: rm.err(y, s, max_grade=_BIG),
        "p": lambda: rm.rbp(y, s, p=_BIG),
        "query_log_base": lambda: query_discount(3, _BIG),
        "gain mapping weight": lambda: rm.ndcg(y, s, gain={0: 0, 1: _BIG}),
        "gain mapping label": lambda: rm.ndcg(y, s, gain={_BIG: 0, 1: 1}),
        "gain weights": lambda: rm.ndcg(y, s, gain=[0, _BIG]),
        "gain callable": lambda: rm.ndcg(y, s, gain=lambda lab: [_BIG for _ in lab]),
        "query_weight": lambda: rm.ndcg_score(y, s, query_weight=[_BIG]),
        "sample_weight": lambda: rm.ndcg_score(y, s, sample_weight=[_BIG, 1]),
        "noise": lambda: datasets.make_ranking_data(3, noise=_BIG),
        "threshold ": lambda: evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, ["P@1"],
                                       threshold=_BIG),
    }


@pytest.mark.parametrize("name", list(_big_calls()))
def test_ints_past_float64_are_value_errors_naming_the_argument(name):
    """2**2000 for a real-valued argument raised OverflowError (float() of it) on every path
    that read it with float() or math.isfinite."""
    with pytest.raises(ValueError, match=rf"{name.strip()}.* within float64's range"):
        _big_calls()[name]()


@pytest.mark.parametrize("host", ["lightgbm", "xgboost"])
def test_min_delta_past_float64_is_a_value_error(host):
    from _extras import require

    require(host)
    if host == "lightgbm":
        from rankmetrics.lightgbm import EarlyStopping

        def call():
            return EarlyStopping(5, "ndcg@10", min_delta=_BIG)
    else:
        from rankmetrics.xgboost import early_stopping

        def call():
            return early_stopping(5, "ndcg@10", min_delta=_BIG)
    with pytest.raises(ValueError, match="min_delta must be within float64"):
        call()


def test_values_just_past_float64_in_arrays_name_the_argument():
    """2**1024 - 1 and a Fraction past float64's range raise OverflowError in float() though
    they are below 2**1024 or not ints: the search for the culprit raised StopIteration."""
    from fractions import Fraction

    with pytest.raises(ValueError, match=r"y_true must be within float64's range .* an integer "
                                         r"of 1024 bits"):
        rm.ndcg([2**1024 - 1, 0], [2, 1], gain="linear")
    with pytest.raises(ValueError, match=r"y_score must be within float64's range .* Fraction "
                                         r"of magnitude about 2\*\*1099"):
        rm.ndcg([1, 0], [Fraction(2**1100, 3), 1])


def test_norm_vect_checks_empty():
    """float(empty) raised OverflowError for 2**1024 and numpy's message for text."""
    with pytest.raises(ValueError, match="empty must be within float64's range"):
        rm.norm_vect([1, 2], [0, 2], empty=2**1024)
    with pytest.raises(ValueError, match="empty must be within float64's range"):
        rm.average_normalised([[1, 2]], [[0, 2]], empty=2**1024)
    for bad in ("x", None, True):
        with pytest.raises(TypeError, match="empty must be a number"):
            rm.norm_vect([1, 2], [0, 2], empty=bad)
    assert np.isnan(rm.norm_vect([1, 2], [0, 2], empty=float("nan"))[0])


def test_nested_values_are_not_called_missing() -> None:
    """An arrow list array of scores (rows of numbers), or arrays as query ids, were reported
    as "missing values (array([...]))"; they are values of the wrong type: TypeError."""
    pa = require("pyarrow")
    labels, qid = [1, 0, 1, 0], [0, 0, 1, 1]
    with pytest.raises(TypeError, match="y_score must be numeric"):
        rm.ndcg(labels, pa.array([[0.5, 0.4], [0.3], [0.2], [0.1]]), qid)
    ids = np.empty(4, dtype=object)
    ids[:] = [np.array([1, 2])] * 4
    with pytest.raises(TypeError, match="qid values must be all numbers.*ndarray"):
        rm.ndcg(labels, [0.4, 0.3, 0.2, 0.1], ids)


def test_vector_operations_refuse_values_that_are_not_real_numbers() -> None:
    """avg_vect, norm_vect, avg_pos and horizontal_reading cast with numpy: text "1" was
    parsed, a complex vector lost its imaginary part, durations became counts (1 s read as
    1e6), and pandas.NA failed with "float() argument must be ... not 'NAType'" naming
    nothing; now TypeError naming the argument, and pandas.NA is NaN as NaN is."""
    pd = require("pandas")
    from rankmetrics.vectors import avg_pos, avg_vect, horizontal_reading, norm_vect

    v = np.array([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]])
    for bad in (v.astype(str), v + 1j, pd.to_timedelta(v.ravel(), unit="s").to_numpy()
                .reshape(2, 3)):
        with pytest.raises(TypeError, match="vectors must be"):
            avg_vect(bad)
        with pytest.raises(TypeError, match="vector must be"):
            norm_vect(bad[0], v[1])
        with pytest.raises(TypeError, match="ideal must be"):
            norm_vect(v[0], bad[1])
        with pytest.raises(TypeError, match="vector must be"):
            avg_pos(bad[0], 2)
        with pytest.raises(TypeError, match="reference must be"):
            horizontal_reading(v[0], bad[1], 2)
    with pytest.raises(TypeError, match="weights must be"):
        avg_vect(v, ["1", "2"])
    skipped = np.array([[np.nan, 2.0, 3.0], [3.0, 4.0, 5.0]])
    with_na = pd.DataFrame(skipped).astype("Float64")
    np.testing.assert_array_equal(avg_vect(with_na), avg_vect(skipped))


def test_vector_ranks_do_not_offer_none() -> None:
    """avg_pos's ``k``/``start`` and horizontal_reading's ``n`` are ranks: 0 was refused as
    "k must be a positive int or None" (offering None), and None then as "k must be between 1
    and the vector length 3; got None". Now "must be a positive int", None a TypeError."""
    from rankmetrics.vectors import avg_pos, horizontal_reading

    v = [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match=r"^k must be a positive int; got 0$"):
        avg_pos(v, 0)
    with pytest.raises(TypeError, match=r"^k must be a positive int; got None$"):
        avg_pos(v, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^start must be a positive int; got None$"):
        avg_pos(v, 2, start=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^n must be a positive int; got 0$"):
        horizontal_reading(v, v, 0)
    with pytest.raises(TypeError, match=r"^n must be a positive int; got None$"):
        horizontal_reading(v, v, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["no", None, 1, 0.0])
def test_true_false_options_refuse_other_values(bad: object) -> None:
    """A True/False option given anything else was read as its truth value: ``"no"`` asked
    for per-query rows (EvalResult.to_frame/to_trec/to_json), a DataFrame (QueryPlan.evaluate
    as_frame), per-query normalisation (average_normalised) or the normalised session gains;
    ``None`` and ``0.0`` turned them off. Now a TypeError naming the option, as ``complete``,
    ``pad`` and ``judged_only`` already did; numpy's bools are accepted."""
    require("pandas")
    from rankmetrics.trec import evaluate, qrels_from_arrays, run_from_arrays

    docs = [f"d{i}" for i in range(4)]
    res = evaluate(qrels_from_arrays(Q, Y, docs), run_from_arrays(Q, S, docs), ["ndcg"])
    sessions = session_dcg([2, 1, 0, 1], [0.9, 0.5, 0.4, 0.3], [1, 1, 1, 1], [1, 1, 2, 2], doc=docs,
                           depth=2)
    calls = {
        "per_query": [lambda v: res.to_frame(per_query=v), lambda v: res.to_trec(per_query=v),
                      lambda v: res.to_json(per_query=v),
                      lambda v: rm.average_normalised([[1, 2]], [[2, 2]], per_query=v)],
        "summary": [lambda v: res.to_frame(summary=v), lambda v: res.to_json(summary=v)],
        "as_frame": [lambda v: QueryPlan(Y, Q).evaluate(S, ["ndcg"], as_frame=v)],
        "normalised": [lambda v: sessions.average_gain(normalised=v),
                       lambda v: sessions.last_query_gain(normalised=v),
                       lambda v: sessions.best_query_gain(normalised=v),
                       lambda v: sessions.extended(4, normalised=v)],
    }
    for name, fns in calls.items():
        for fn in fns:
            with pytest.raises(TypeError, match=f"{name} must be True or False; got {bad!r}"):
                fn(bad)
            fn(np.True_)
            fn(np.False_) if name != "summary" else fn(True)


def test_one_run_where_a_list_of_runs_is_expected_is_a_type_error(tmp_path):
    """compare_runs(qrels, "bm25.run") iterated the path's characters as runs ("IsADirectoryError
    ... /"), and a single run DataFrame its column names; now a TypeError saying to wrap it."""
    pd = require("pandas")
    require("scipy")
    from rankmetrics.analysis.stats import compare_runs, run_labels
    from rankmetrics.plot import trec_gain_vectors

    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    run = tmp_path / "bm25.run"
    run.write_text("1 Q0 d1 1 0.5 r\n1 Q0 d2 2 0.4 r\n2 Q0 d3 1 0.1 r\n")
    frame = pd.DataFrame({"qid": ["1"], "docid": ["d1"], "score": [0.5]})
    for one in (str(run), run, frame):
        with pytest.raises(TypeError, match="runs must be a list of runs"):
            compare_runs(qrels, one, "ndcg@10")
        with pytest.raises(TypeError, match="runs must be a list of runs"):
            trec_gain_vectors(qrels, one)
    with pytest.raises(TypeError, match="runs must be a list of runs"):
        run_labels("abc")
    assert run_labels([str(run)]) == ["bm25"]
