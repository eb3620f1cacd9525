"""rankmetrics.xgboost: adapter output == core output; ties="stable" == XGBoost's built-ins."""

from __future__ import annotations

import copy
import functools
import pickle

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm

xgb = require("xgboost")

from rankmetrics.xgboost import (  # noqa: E402
    builtin_metric,
    early_stopping,
    make_custom_metric,
    make_eval_metric,
)


def _tied_data(seed: int, n_queries: int = 40, binary: bool = False):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, size=n_queries)
    n = int(sizes.sum())
    y = rng.integers(0, 2 if binary else 4, size=n).astype(np.float64)
    s = rng.integers(0, 4, size=n).astype(np.float64)  # few distinct scores: many ties
    qid = np.repeat(np.arange(n_queries), sizes)
    return y, s, qid, sizes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stable_equals_builtin_on_random_tied_data(seed: int) -> None:
    y, s, qid, _ = _tied_data(seed)
    names = ["ndcg@1", "ndcg@3", "ndcg@10", "ndcg"]
    d = xgb.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid)
    ours = dict(make_custom_metric(names, k=None, ties="stable")(s, d))
    theirs = builtin_metric(y, s, qid, names)
    for n in names:
        assert ours[n] == pytest.approx(theirs[n], abs=1e-12)
    # linear gain <-> ndcg_exp_gain=False; empty=0 <-> XGBoost's "ndcg@k-"
    lin = dict(make_custom_metric("ndcg", k=5, ties="stable", gain="linear")(s, d))
    assert lin["ndcg@5"] == pytest.approx(
        builtin_metric(y, s, qid, "ndcg@5", ndcg_exp_gain=False)["ndcg@5"], abs=1e-12)
    minus = dict(make_custom_metric("ndcg", k=5, ties="stable", empty=0.0)(s, d))
    assert minus["ndcg@5"] == pytest.approx(builtin_metric(y, s, qid, "ndcg@5-")["ndcg@5-"],
                                            abs=1e-12)
    # binary labels: map@k (min(k, R) denominator) and pre@k (min(k, n) denominator)
    yb, sb, qb, _ = _tied_data(seed + 10, binary=True)
    db = xgb.DMatrix(np.zeros((yb.size, 1)), label=yb, qid=qb)
    ours_b = dict(make_custom_metric(["map@3", "map@10", "map", "precision@3", "precision@10"],
                                     k=None, ties="stable")(sb, db))
    theirs_b = builtin_metric(yb, sb, qb, ["map@3", "map@10", "map", "pre@3", "pre@10"])
    for a, b in [("map@3", "map@3"), ("map@10", "map@10"), ("map", "map"),
                 ("precision@3", "pre@3"), ("precision@10", "pre@10")]:
        assert ours_b[a] == pytest.approx(theirs_b[b], abs=1e-12), a
    # query weights (one per query, exact in float32): XGBoost's weighted mean. XGBoost's
    # weighted ndcg adds 1.0 *unweighted* for a query without relevant rows (as LightGBM's
    # does); ours weights every query alike, so the ndcg check gives every query a relevant row
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 9, size=qid.max() + 1) / 4
    y_rel = y.copy()
    y_rel[np.r_[0, np.cumsum(np.bincount(qid))[:-1]]] += 1
    dw = xgb.DMatrix(np.zeros((y.size, 1)), label=y_rel, qid=qid, weight=w)
    assert dict(make_custom_metric("ndcg", k=5, ties="stable")(s, dw))["ndcg@5"] == \
        pytest.approx(builtin_metric(y_rel, s, qid, "ndcg@5", weight=w)["ndcg@5"], abs=1e-12)
    wb = rng.integers(1, 9, size=qb.max() + 1) / 4
    dbw = xgb.DMatrix(np.zeros((yb.size, 1)), label=yb, qid=qb, weight=wb)
    ours_w = dict(make_custom_metric(["map@5", "precision@5"], k=None, ties="stable")(sb, dbw))
    theirs_w = builtin_metric(yb, sb, qb, ["map@5", "pre@5"], weight=wb)
    assert ours_w["map@5"] == pytest.approx(theirs_w["map@5"], abs=1e-12)
    assert ours_w["precision@5"] == pytest.approx(theirs_w["pre@5"], abs=1e-12)


def test_builtin_metric_reads_big_endian_and_refuses_masked_arrays() -> None:
    """A DMatrix reads a big-endian array's bytes as native ones: big-endian qids regrouped
    the rows (ndcg@3 0.7039 for 0.8978), '>f4' labels gave 1.0 and '>f8' weights map 0.0;
    masked or complex scores were read with their hidden values or without their imaginary
    part. builtin_metric now passes native arrays and refuses the others, naming them."""
    y = np.array([1, 0, 1, 1, 0, 1, 0, 0])
    s = np.array([0.5, 0.2, 0.9, 0.1, 0.3, 0.3, 0.8, 0.1])
    qid = np.array([1, 1, 1, 2, 2, 2, 3, 3])
    w = np.array([1.0, 2.0, 3.0])
    names = ["ndcg@3", "map"]
    core = rm.ndcg_score(y, s, qid, k=3, ties="stable", empty=1.0)
    assert builtin_metric(y, s, qid, names)["ndcg@3"] == pytest.approx(core, abs=1e-12)
    assert builtin_metric(y.astype(">f4"), s.astype(">f8"), qid.astype(">i8"), names)[
        "ndcg@3"] == pytest.approx(core, abs=1e-12)
    assert builtin_metric(y, s, qid, names, weight=w.astype(">f8")) == builtin_metric(
        y, s, qid, names, weight=w)
    for bad, arg in ((np.ma.array(s, mask=[0, 1] + [0] * 6), "y_score"),
                     (s + 1j, "y_score")):
        with pytest.raises((TypeError, ValueError), match=rf"^{arg} "):
            builtin_metric(y, bad, qid, names)
    with pytest.raises(ValueError, match=r"^qid is a masked array"):
        builtin_metric(y, s, np.ma.array(qid, mask=[1] + [0] * 7), names)


def test_eval_metric_refuses_masked_labels() -> None:
    """XGBRanker's eval_metric(y_true, y_pred) read y_true with np.asarray, so a masked
    label's hidden value counted (ndcg@3 0.7098 silently); now a ValueError naming y_true."""
    metric = make_eval_metric("ndcg@3")
    y = np.array([3, 0, 1])
    s = np.array([0.5, 0.2, 0.9])
    with pytest.raises(ValueError, match=r"^y_true is a masked array with masked entries"):
        metric(np.ma.array(y, mask=[0, 1, 0]), s)
    assert metric(np.ma.array(y), s) == pytest.approx(rm.ndcg(y, s, k=3)[0], abs=1e-15)


def test_values_equal_core_and_bounds_order() -> None:
    y, s, qid, _ = _tied_data(3)
    d = xgb.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid)
    metric = make_custom_metric(["ndcg", "mrr", "recall"], k=(5, None), bounds=True,
                                threshold=2)
    out = dict(metric(s, d))
    assert list(out) == metric.names
    assert out["ndcg@5"] == rm.ndcg_score(y, s, qid, k=5, empty=1.0, gain="exponential")
    assert out["mrr"] == rm.reciprocal_rank_score(y, s, qid, threshold=2, empty=1.0)
    assert out["recall@5"] == rm.mean_recall_score(y, s, qid, k=5, threshold=2, empty=1.0)
    for m in metric.metrics:
        assert out[f"{m}_pessimistic"] <= out[m] <= out[f"{m}_optimistic"]
    # XGBoost's defaults differ from the core's: AP over min(k, R), P@k over min(k, n)
    ap = dict(make_custom_metric("ap", k=5)(s, d))["ap@5"]
    assert ap == rm.mean_average_precision_score(y, s, qid, k=5, empty=1.0,
                                            denominator="min_k_relevant")
    p = make_custom_metric("precision", k=12).per_query(s, d)["precision@12"]
    plan = rm.QueryPlan(y, qid)
    np.testing.assert_array_equal(p, plan.precision(s, k=12, empty=0.0, denominator="min_k_size"))


def test_precision_min_k_size_denominator() -> None:
    plan = rm.QueryPlan([1, 0, 1, 1, 0], [0, 0, 0, 1, 1])
    scores = np.array([0.5, 0.5, 0.1, 0.9, 0.1])
    np.testing.assert_allclose(plan.precision(scores, k=5, denominator="min_k_size"),
                               [2 / 3, 1 / 2])
    np.testing.assert_allclose(plan.precision(scores, k=5), [2 / 5, 1 / 5])
    # k=1 on a tie of a relevant and an irrelevant row: expected 1/2 whatever the denominator
    np.testing.assert_allclose(plan.precision(scores, k=1, denominator="min_k_size"), [0.5, 1])
    # any tie rule: the denominator does not depend on the ordering, so the two forms differ
    # exactly by the factor k / min(k, n_q)
    y, s, qid, sizes = _tied_data(11)
    big = rm.QueryPlan(y, qid)
    for ties in ("average", "optimistic", "pessimistic", "stable"):
        for k in (1, 3, 8, 20):
            np.testing.assert_allclose(
                big.precision(s, k=k, ties=ties, denominator="min_k_size") * np.minimum(k, sizes),
                big.precision(s, k=k, ties=ties) * k, rtol=1e-12)
    with pytest.raises(ValueError, match="denominator"):
        plan.precision(scores, k=1, denominator="size")
    with pytest.raises(ValueError, match="precision_denominator"):
        plan.evaluate(scores, "p@2", precision_denominator="n")


def test_reused_dmatrix_with_new_groups_weights_or_labels_is_read_again() -> None:
    """A DMatrix's set_group / set_weight / set_label change it in place: the cached plan kept
    the old query layout (ndcg@5 0.6533 where XGBoost gives 0.8502 after set_group), weights
    and labels. Every value equals XGBoost's own metric on the DMatrix as it is now."""
    y, _, qid, _ = _tied_data(6, binary=True)
    sizes = np.bincount(qid)
    y[np.cumsum(sizes) - sizes] = 1.0  # no query without a relevant row (weighted nDCG
    # of such queries differs on purpose, see make_custom_metric)
    s = np.random.default_rng(6).permutation(y.size).astype(np.float32)  # no ties
    d = xgb.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid)
    metric = make_custom_metric(["ndcg@5", "map@5"], ties="stable")
    n_q = sizes.size
    states = [lambda: None,
              lambda: d.set_group(np.r_[sizes[0] + sizes[1], sizes[2:]]),
              lambda: d.set_weight(np.linspace(1.0, 3.0, n_q - 1)),
              lambda: d.set_label(np.maximum(y, np.arange(y.size) % 3 == 0))]
    for change in states:
        change()
        group = np.repeat(np.arange(d.get_uint_info("group_ptr").size - 1),
                          np.diff(d.get_uint_info("group_ptr").astype(np.int64)))
        w = d.get_weight()
        want = builtin_metric(d.get_label(), s, group, ["ndcg@5", "map@5"],
                              weight=w if w.size else None)
        got = dict(metric(s, d))
        assert got == pytest.approx(want, abs=1e-12), (got, want)
    assert metric._dcache.builds == len(states)
    for _ in range(3):
        metric(s, d)  # unchanged: the plan is reused
    assert metric._dcache.builds == len(states)


def test_plan_cached_per_dmatrix_and_not_copied() -> None:
    y, s, qid, _ = _tied_data(4)
    d1 = xgb.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid)
    d2 = xgb.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid)
    metric = make_custom_metric("ndcg", k=3)
    for _ in range(3):
        metric(s, d1)
        metric(s + 1, d2)
    assert metric._dcache.builds == 2
    for other in (copy.deepcopy(metric), pickle.loads(pickle.dumps(metric))):
        assert other._dcache.builds == 0 and len(other._dcache.entries) == 0
        assert other(s, d1) == metric(s, d1)
    del d1
    import gc

    gc.collect()
    assert len(metric._dcache.entries) == 1  # the collected DMatrix released its plan
    metric.clear_cache()
    assert len(metric._dcache.entries) == 0


def test_non_finite_predt_named_on_every_evaluation_path() -> None:
    # NaN/inf are left to the core (found as each list is ranked); the adapter raises the
    # core's error again naming XGBoost's argument (custom_metric(predt, dmatrix), per_query)
    # or its own (EvalMetric(y_true, y_score)); the caller's array is not changed
    y, s, qid, sizes = _tied_data(6)
    d = xgb.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid)
    builds = [dict(k=5), dict(k=5, bounds=True), dict(metrics=["nDCG(ties=stable)@5", "map"]),
              dict(metrics=["ndcg", "map"], k=(3, 5), ties="stable")]
    for kw in builds:
        metric = make_custom_metric(**kw)
        assert metric(s, d)  # finite scores: no error
    # a measure with its own tie rule ranks the scores itself: the core's values
    metric = make_custom_metric(["nDCG(ties=stable)@5", "map"], empty=0.0)
    got = metric.per_query(s, d)
    want = rm.QueryPlan(y, qid).evaluate(s, ["nDCG(ties=stable)@5", "map"], empty=0.0)
    assert list(got) == list(want)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])
    for kw in builds:
        metric = make_custom_metric(**kw)
        for where in (0, y.size // 2, y.size - 1):
            for value in (np.nan, np.inf, -np.inf):
                bad = s.copy()
                bad[where] = value
                before = bad.copy()
                with pytest.raises(ValueError, match=r"^predt must be finite"):
                    metric(bad, d)
                with pytest.raises(ValueError, match=r"^predt must be finite"):
                    metric.per_query(bad, d)
                np.testing.assert_array_equal(bad, before)
    one = make_eval_metric("ndcg", k=5)
    with pytest.raises(ValueError, match=r"^y_score must be finite"):
        one(y[:sizes[0]], np.r_[np.nan, s[1:sizes[0]]])
    # another error of the core, with finite scores, is raised as it is
    y0 = y.copy()
    y0[: sizes[0]] = 0  # a query without relevant documents
    d0 = xgb.DMatrix(np.zeros((y.size, 1)), label=y0, qid=qid)
    with pytest.raises(ValueError, match=r"undefined for queries without relevant"):
        make_custom_metric("ndcg", k=5, empty="error")(s, d0)


def test_errors() -> None:
    y, s, qid, sizes = _tied_data(5)
    no_groups = xgb.DMatrix(np.zeros((y.size, 1)), label=y)
    with pytest.raises(ValueError, match="no query groups"):
        make_custom_metric("ndcg")(s, no_groups)
    row_w = xgb.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid)
    row_w.set_weight(np.ones(y.size))
    with pytest.raises(ValueError, match="one weight per query"):
        make_custom_metric("ndcg")(s, row_w)
    d = xgb.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid)
    with pytest.raises(ValueError, match=r"^predt must have one score per row"):
        make_custom_metric("ndcg")(s[:-1], d)
    with pytest.raises(ValueError, match=r"^predt must have one score per row"):
        make_custom_metric("ndcg")(np.c_[s, s], d)
    with pytest.raises(TypeError, match=r"^predt must be numeric"):
        make_custom_metric("ndcg")(s.astype(str), d)
    with pytest.raises(ValueError, match="one custom metric"):
        make_eval_metric("ndcg", k=(5, 10))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="precision_denominator"):
        make_custom_metric("p", precision_denominator="n")
    with pytest.raises(ValueError, match="skip"):
        make_eval_metric("ndcg", empty="skip")
    with pytest.raises(ValueError, match="rounds"):
        early_stopping(0, "ndcg@10")
    with pytest.raises(TypeError, match="metric"):
        early_stopping(5, 3)  # type: ignore[arg-type]


def _fit_xgb(metric, evals, params=None, stop=None, rounds=3):
    y, s, qid, _ = _tied_data(6)
    rng = np.random.default_rng(0)
    X = np.c_[s, rng.normal(size=y.size)]
    d = xgb.DMatrix(X, label=y, qid=qid)
    return xgb.train({"objective": "rank:ndcg", "nthread": 1, **(params or {})}, d, rounds,
                     evals=[(d, "train")] if evals else [], custom_metric=metric,
                     verbose_eval=False, callbacks=[early_stopping(2, stop)] if stop else None)


def test_early_stopping_checks_names() -> None:
    metric = make_custom_metric("ndcg", k=10)
    with pytest.raises(ValueError, match="reported twice"), \
            pytest.warns(UserWarning, match=r"\['ndcg@10'\] have the names"):
        _fit_xgb(metric, True, {"eval_metric": "ndcg@10"}, stop=metric)
    with pytest.raises(ValueError, match="not reported"):
        _fit_xgb(metric, True, stop="ndcg@5")
    ok = make_custom_metric("ndcg", k=10, prefix="tie_")
    bst = _fit_xgb(ok, True, {"eval_metric": "ndcg@10"}, stop=ok, rounds=4)
    assert bst.best_iteration >= 0


def test_eval_metric_refuses_whole_set_from_regressor() -> None:
    y, s, qid, _ = _tied_data(7)
    X = np.c_[s]
    metric = make_eval_metric("ndcg", k=5)
    with pytest.raises(ValueError, match="without query boundaries"):
        xgb.XGBRegressor(n_estimators=2, eval_metric=metric, n_jobs=1).fit(
            X, y, eval_set=[(X, y)], verbose=False)
    # called by hand it scores one query, as documented
    assert metric(y[:4], s[:4]) == rm.ndcg_score(y[:4], s[:4], k=5, empty=1.0,
                                                 gain="exponential")
    assert make_eval_metric("map", k=5).xgboost_maximizes
    assert not make_eval_metric("ap", k=5).xgboost_maximizes


def test_xgb_cv_folds_and_ranker_without_eval_qid() -> None:
    y, s, qid, _ = _tied_data(8, n_queries=30)
    X = np.c_[s, np.random.default_rng(1).normal(size=y.size)]
    d = xgb.DMatrix(X, label=y, qid=qid)
    metric = make_custom_metric("ndcg", k=5, prefix="tie_", ties="stable")
    res = xgb.cv({"objective": "rank:ndcg", "nthread": 1, "eval_metric": "ndcg@5"}, d,
                 num_boost_round=4, nfold=3, custom_metric=metric, seed=0)
    assert metric._dcache.builds == 6  # one plan per fold's train and test DMatrix
    # ties="stable" equals the built-in ndcg@5 fold by fold, hence in mean (printed with %f)
    np.testing.assert_allclose(res["test-tie_ndcg@5-mean"], res["test-ndcg@5-mean"], atol=1e-6)
    # XGBRanker evaluation set without query ids: refused, not scored as one query
    ranker = xgb.XGBRanker(n_estimators=2, n_jobs=1, eval_metric=make_eval_metric("ndcg"))
    with pytest.raises(ValueError, match="group|qid"):
        ranker.fit(X, y, qid=qid, eval_set=[(X, y)], verbose=False)


@pytest.mark.parametrize("name", ["pre@3", "ndcg@3-", "map@3-", "pre@3-", "ndcg-"])
def test_xgboost_own_metric_names_are_refused_with_their_spelling(name) -> None:
    """XGBoost's ``pre@k`` and ``-`` suffix are not measure names here: the error says how to
    spell them, and that spelling gives XGBoost's number (checked on queries without relevant
    rows, where ``-`` matters, and lists shorter than k)."""
    with pytest.raises(ValueError, match="unknown measure") as err:
        make_custom_metric(name)
    base = name.rstrip("-").replace("pre", "p")
    assert f"is {base!r} here" in str(err.value)
    y, _, qid, _ = _tied_data(8, binary=True)
    s = np.random.default_rng(8).permutation(y.size).astype(np.float32)
    y[qid == 0] = 0.0  # an empty query
    d = xgb.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid)
    metric = make_custom_metric(base, ties="stable", empty=0.0 if name.endswith("-") else None)
    assert dict(metric(s, d))[base] == pytest.approx(
        builtin_metric(y, s, qid, name)[name], abs=1e-12)


def test_a_metric_given_to_the_wrong_xgboost_entry_point_says_which_to_use() -> None:
    """make_custom_metric's object in XGBRanker(eval_metric=...) died in the DMatrix cache
    ("unhashable type: 'numpy.ndarray'"); make_eval_metric's in XGBRegressor with evaluation
    weights on "unexpected keyword argument 'sample_weight'"."""
    y, s, qid, _ = _tied_data(9)
    X = np.c_[s, np.arange(s.size) % 7]
    ranker = xgb.XGBRanker(n_estimators=2, n_jobs=1, eval_metric=make_custom_metric("ndcg@3"))
    with pytest.raises(TypeError, match="For XGBRanker.eval_metric=.... use rankmetrics"):
        ranker.fit(X, y, qid=qid, eval_set=[(X, y)], eval_qid=[qid])
    reg = xgb.XGBRegressor(n_estimators=2, n_jobs=1, eval_metric=make_eval_metric("ndcg@3"))
    with pytest.raises(ValueError, match="without query boundaries"):
        reg.fit(X, y, eval_set=[(X, y)], sample_weight_eval_set=[np.ones(y.size)])


def test_weighted_ndcg_with_an_empty_query_warns_that_xgboost_differs():
    """XGBoost's weighted ndcg adds 1.0 for a query without relevant rows without its weight;
    we weight it like the others and only the docstrings said so. Now a UserWarning, once per
    DMatrix; none without weights."""
    import warnings

    y = np.array([0, 0, 0, 2, 0, 1.0])
    s = np.array([0.3, 0.2, 0.1, 0.1, 0.9, 0.5])
    q = np.array([0, 0, 0, 1, 1, 1])

    def dmatrix(weight):
        dm = xgb.DMatrix(np.zeros((6, 1)), label=y, qid=q, base_margin=s)
        if weight is not None:
            dm.set_weight(weight)
        return dm

    dm = dmatrix(np.array([3.0, 1.0]))
    metric = make_custom_metric("ndcg@3")
    with pytest.warns(UserWarning, match=r"XGBoost's own weighted ndcg adds 1.0"):
        metric(s, dm)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric(s, dm)
        make_custom_metric("ndcg@3")(s, dmatrix(None))
        make_custom_metric("map@3")(s, dm)


def test_empty_groups_and_bad_y_true_name_the_argument() -> None:
    """A DMatrix group of size 0 (XGBoost scores it 1.0) was refused naming "group_sizes",
    which the user never passed; a 2-column y_true was blamed on y_score; an empty y_true
    named "group_sizes"."""
    y = np.array([2, 0, 1, 0, 0, 3, 1])
    s = np.array([0.1, 0.5, 0.3, 0.2, 0.9, 0.4, 0.8])
    d = xgb.DMatrix(np.zeros((7, 1)), label=y, group=[3, 0, 2, 2])
    with pytest.raises(ValueError, match=r"the DMatrix's query groups \(group=\): 1 query of "
                                         r"size 0 .* XGBoost's built-in metrics count each"):
        make_custom_metric("ndcg", k=3)(s, d)
    m = make_eval_metric("ndcg@3")
    with pytest.raises(ValueError, match=r"ndcg@3: y_true must be one label per row .* got "
                                         r"shape \(3, 2\)"):
        m(np.array([[2, 2], [0, 0], [1, 1]]), np.array([0.3, 0.2, 0.1]))
    with pytest.raises(ValueError, match=r"y_true must be one label per row .* got shape \(0,\)"):
        m([], [])
    assert m(np.array([[2], [0], [1]]), np.array([0.3, 0.2, 0.1])) == \
        m(np.array([2, 0, 1]), np.array([0.3, 0.2, 0.1]))


def _train_v(d, params: dict, metric) -> dict:
    """Two rounds of rank:ndcg on ``d`` evaluated by ``metric`` as set "v": its history."""
    record: dict = {}
    xgb.train({"objective": "rank:ndcg", "nthread": 1, **params}, d, 2, evals=[(d, "v")],
              custom_metric=metric, evals_result=record, verbose_eval=False)
    return record["v"]


def test_custom_metric_warns_when_a_builtin_eval_metric_has_its_name() -> None:
    """A custom metric named like a built-in eval_metric of the Booster had both values
    appended to one history, silently (xgb.cv failed in pandas with no word why)."""
    import warnings

    y, s, qid, _ = _tied_data(3, n_queries=8, binary=True)  # binary: XGBoost's map
    X = np.random.default_rng(3).normal(size=(y.shape[0], 2))
    d = xgb.DMatrix(X, label=y, qid=qid)
    train = functools.partial(_train_v, d)

    metric = make_custom_metric("ndcg@3")
    train({"eval_metric": "map@5"}, metric)  # no clash in this training
    with pytest.warns(UserWarning, match=r"\['ndcg@3'\] have the names of XGBoost's built-in"
                      ) as caught:
        record = train({"eval_metric": ["ndcg@3", "map@5-"]}, metric)  # a new training
    assert len(record["ndcg@3"]) == 4  # what the warning is about: 2 rounds, 2 values each
    assert sum("have the names" in str(w.message) for w in caught) == 1  # at its first round
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        train({"eval_metric": "ndcg@3"}, make_custom_metric("ndcg@3", prefix="tie_"))
        train({}, make_custom_metric("ndcg@3"))  # the objective's default is ndcg@32
        make_custom_metric("ndcg@3")(s, d)  # a direct call merges nothing


def test_bounds_of_a_measure_with_its_own_ties_are_over_every_tied_ordering() -> None:
    """bounds=True gave nDCG(ties=stable)@3_optimistic and _pessimistic the stable value (the
    measure's own ties= overrode each bound's rule); they are the best and worst orderings."""
    y = np.array([2, 0, 1, 0, 0, 1, 3, 0, 1, 0])
    s = np.array([0.5, 0.5, 0.5, 0.9, 0.3, 0.3, 0.8, 0.3, 0.7, 0.7])
    q = np.repeat([0, 1, 2], [4, 4, 2])
    names = ["nDCG(ties=stable)@3", "P(ties=stable)@3", "AP"]
    got = make_custom_metric(names, bounds=True).per_query(
        s, xgb.DMatrix(np.zeros((10, 1)), label=y, qid=q))
    plan = rm.QueryPlan(y, q)
    for rule in ("optimistic", "pessimistic"):
        want = {"nDCG(ties=stable)@3": plan.ndcg(s, k=3, ties=rule, empty=1.0),
                # XGBoost's pre@k: / min(k, n), 0 for a query without relevant documents
                "P(ties=stable)@3": plan.precision(s, k=3, ties=rule, empty=0.0,
                                                   denominator="min_k_size"),
                "AP": plan.average_precision(s, ties=rule, empty=1.0,
                                             denominator="min_k_relevant")}
        for name in names:
            np.testing.assert_allclose(got[f"{name}_{rule}"], want[name], rtol=0, atol=1e-15,
                                       err_msg=f"{name}_{rule}")
    assert not np.allclose(got["P(ties=stable)@3_optimistic"],
                           got["P(ties=stable)@3_pessimistic"])


def test_custom_metric_warns_when_the_boosters_ndcg_exp_gain_is_not_its_gain() -> None:
    """A model trained with ``ndcg_exp_gain=False`` and a custom metric left at the default
    gain: our ``ndcg@5`` (ties="stable") was 0.8528 where XGBoost's own ``ndcg@5`` of that
    Booster was 0.8812, without a word. Now the first evaluation warns, and gain="linear"
    gives XGBoost's number."""
    import warnings

    y, _, qid, _ = _tied_data(7, n_queries=20)
    X = np.random.default_rng(7).normal(size=(y.shape[0], 2))
    X[:, 0] += 0.3 * y
    train = functools.partial(_train_v, xgb.DMatrix(X, label=y, qid=qid))

    with pytest.warns(UserWarning, match=r"\['t_ndcg@5'\] use a gain other than the Booster's "
                                         r"\(the label"):
        record = train({"ndcg_exp_gain": False, "eval_metric": "ndcg@5"},
                       make_custom_metric("ndcg@5", ties="stable", prefix="t_"))
    assert abs(record["t_ndcg@5"][0] - record["ndcg@5"][0]) > 1e-3  # what the warning is about
    with pytest.warns(UserWarning, match=r"\['ndcg@5'\] use a gain"):
        train({"ndcg_exp_gain": False}, make_custom_metric("ndcg@5"))  # the objective's gain
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        matched = train({"ndcg_exp_gain": False, "eval_metric": "ndcg@5"},
                        make_custom_metric("ndcg@5", ties="stable", prefix="t_", gain="linear"))
        np.testing.assert_allclose(matched["t_ndcg@5"], matched["ndcg@5"], atol=1e-6)
        train({"ndcg_exp_gain": False}, make_custom_metric("map@5"))  # no gain measure
        train({}, make_custom_metric("ndcg@5"))  # XGBoost's default 2**label - 1


def test_custom_metric_warns_when_xgboosts_early_stopping_would_minimise_it() -> None:
    """``xgb.train(..., early_stopping_rounds=n)`` without ``maximize`` guesses the direction
    from the name and minimises ``mrr`` or a prefixed ``tie_ndcg@5``: it kept the worst round
    (best_iteration 0 where the curve peaks at 3) without a word. Now the first evaluation
    warns; a maximising stopper (``maximize=True``, ``early_stopping``) is left alone."""
    import warnings

    rng = np.random.default_rng(5)
    qid = np.repeat(np.arange(60), rng.integers(2, 9, 60))
    y = rng.integers(0, 3, qid.size).astype(np.float64)
    X = rng.normal(size=(qid.size, 3))
    X[:, 0] += 0.5 * y
    d = xgb.DMatrix(X[:200], label=y[:200], qid=qid[:200])
    dv = xgb.DMatrix(X[200:], label=y[200:], qid=qid[200:])
    params = {"objective": "rank:ndcg", "nthread": 1, "eta": 0.3,
              "disable_default_eval_metric": True}

    def train(metric, **kw) -> tuple[int, list]:
        record: dict = {}
        booster = xgb.train(params, d, 60, evals=[(dv, "v")], custom_metric=metric,
                            evals_result=record, verbose_eval=False, **kw)
        return int(booster.attr("best_iteration") or -1), record["v"][metric.names[-1]]

    for metric in (make_custom_metric("ndcg@5", prefix="tie_"), make_custom_metric("mrr")):
        with pytest.warns(UserWarning, match=f"will minimise '{metric.names[-1]}'"):
            best, curve = train(metric, early_stopping_rounds=5)
        assert curve[best] == min(curve) < max(curve)  # what the warning is about
    with pytest.warns(UserWarning, match="will minimise 'tie_mrr'"):
        xgb.cv(params, d, 3, nfold=2, custom_metric=make_custom_metric("mrr", prefix="tie_"),
               early_stopping_rounds=2, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        metric = make_custom_metric("mrr", prefix="tie_")
        best, curve = train(metric, early_stopping_rounds=5, maximize=True)
        assert curve[best] == max(curve)
        train(metric, callbacks=[early_stopping(5, metric)])
        train(make_custom_metric("ndcg@5"), early_stopping_rounds=5)  # XGBoost maximises it
        train(make_custom_metric(["mrr", "ndcg@5"]), early_stopping_rounds=5)  # the last
        train(metric)  # no early stopping
