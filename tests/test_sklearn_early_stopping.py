"""QueryGroupRanker: early stopping on a query-grouped hold-out, routed fit parameters, and
layout warnings that fire once and only when true."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm

sklearn = require("sklearn")
lgb = require("lightgbm")
xgb = require("xgboost")

from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV, GroupKFold  # noqa: E402

import rankmetrics.sklearn as rsk  # noqa: E402
from rankmetrics.datasets import make_ranking_data  # noqa: E402
from rankmetrics.sklearn import (  # noqa: E402
    QueryGroupRanker,
    RankingCVWarning,
    make_ranking_scorer,
    ndcg_scorer,
)


@pytest.fixture(scope="module")
def data() -> Any:
    return make_ranking_data(n_queries=60, n_features=6, n_discrete=3, random_state=3)


@pytest.fixture(autouse=True)
def _fresh_warnings() -> None:
    rsk._WARNED.clear()


def _holdout(model: QueryGroupRanker, X: Any, y: Any, q: Any) -> tuple[Any, Any, Any]:
    held = np.isin(q, model.validation_qids_)
    return X[held], y[held], q[held]


def test_xgboost_early_stopping_on_the_core_curve(data) -> None:
    X, y, q = data.X, data.y, data.qid
    ranker = QueryGroupRanker(
        xgb.XGBRanker(n_estimators=80, max_depth=4, learning_rate=0.5, n_jobs=1,
                      tree_method="hist", random_state=0),
        group_param="qid", group_format="qid", early_stopping=True, scoring="map@5",
        validation_fraction=0.3, n_iter_no_change=4, random_state=1)
    ranker.fit(X, y, qid=q)
    Xh, yh, qh = _holdout(ranker, X, y, q)
    assert ranker.validation_qids_.size == 18  # ceil(0.3 * 60) whole queries
    assert np.intersect1d(ranker.validation_qids_, ranker.train_qids_).size == 0
    booster = ranker.estimator_.get_booster()
    assert booster.num_boosted_rounds() == ranker.n_iter_ < 80
    curve = [rm.mean_average_precision_score(yh, booster.predict(xgb.DMatrix(Xh),
                                                            iteration_range=(0, i)), qh, k=5)
             for i in range(1, ranker.n_iter_ + 1)]
    np.testing.assert_allclose(ranker.validation_score_, curve, rtol=0, atol=1e-12)
    assert ranker.best_iteration_ == int(np.argmax(curve)) + 1
    assert ranker.n_iter_ == ranker.best_iteration_ + 4
    # predict uses the best round (XGBRanker reads the booster's best_iteration)
    np.testing.assert_array_equal(
        ranker.predict(X),
        booster.predict(xgb.DMatrix(X), iteration_range=(0, ranker.best_iteration_)))
    # seeded: the same hold-out again; another seed, another hold-out
    again = clone(ranker).fit(X, y, qid=q)
    np.testing.assert_array_equal(again.validation_qids_, ranker.validation_qids_)
    other = clone(ranker).set_params(random_state=2).fit(X, y, qid=q)
    assert not np.array_equal(other.validation_qids_, ranker.validation_qids_)


def test_xgboost_hold_out_curve_leaves_skipped_queries_out() -> None:
    """A watched measure with empty="skip" gives held-out queries without a relevant document
    NaN, which the core's mean leaves out (the LightGBM route's and the scorers' rule); the
    XGBoost route took a plain mean, so every round scored NaN (the core's mean: 0.99, then
    1.0) and best_iteration_ was 1 (now 2) whatever the curve."""
    rng = np.random.default_rng(0)
    sizes = rng.integers(5, 15, 40)
    q = np.repeat(np.arange(40), sizes)
    X = rng.normal(size=(q.size, 3))
    y = (X[:, 0] > 0.5).astype(int) + (X[:, 1] > 1)
    y[q % 4 == 0] = 0  # every fourth query has no relevant document
    name = "nDCG(empty=skip)@10"
    ranker = QueryGroupRanker(
        xgb.XGBRanker(n_estimators=6, n_jobs=1, tree_method="hist", random_state=0),
        group_param="qid", group_format="qid", early_stopping=True, scoring=name,
        validation_fraction=0.3, n_iter_no_change=20, random_state=0)
    ranker.fit(X, y, qid=q)
    Xh, yh, qh = _holdout(ranker, X, y, q)
    assert np.any(np.bincount(qh, weights=yh)[np.unique(qh)] == 0)  # some are skipped
    booster = ranker.estimator_.get_booster()
    plan = rm.QueryPlan(yh, qh)
    curve = [np.nanmean(plan.evaluate(booster.predict(xgb.DMatrix(Xh), output_margin=True,
                                                      iteration_range=(0, i)), name)[name])
             for i in range(1, ranker.n_iter_ + 1)]
    assert np.isfinite(curve).all()
    np.testing.assert_allclose(ranker.validation_score_, curve, rtol=0, atol=1e-12)
    assert ranker.best_iteration_ == int(np.argmax(curve)) + 1


def test_lightgbm_early_stopping_on_the_core_curve(data) -> None:
    """The LightGBM route's curve is the core's (as the XGBoost route's): AP@5 over R, labels
    >= 1 relevant; it was AP over min(k, R) with LightGBM's relevance cut (0.63 where the
    core and the XGBoost route gave 0.33), so a search stopped on one AP and selected on
    another."""
    d = make_ranking_data(n_queries=60, random_state=0)  # queries with R > 5
    X, y, q = d.X, d.y, d.qid
    ranker = QueryGroupRanker(
        lgb.LGBMRanker(n_estimators=12, learning_rate=0.5, min_child_samples=5, n_jobs=1,
                       verbose=-1),
        early_stopping=True, scoring="map@5", validation_fraction=0.3, n_iter_no_change=50,
        random_state=1)
    ranker.fit(X, y, qid=q)
    Xh, yh, qh = _holdout(ranker, X, y, q)
    booster = ranker.estimator_.booster_  # LightGBM keeps the rounds up to the best one
    kept = booster.current_iteration()
    assert kept == ranker.best_iteration_ > 1
    curve = [rm.mean_average_precision_score(yh, booster.predict(Xh, num_iteration=i), qh, k=5)
             for i in range(1, kept + 1)]
    np.testing.assert_allclose(ranker.validation_score_[:kept], curve, rtol=0, atol=1e-12)
    best = ranker.validation_score_[ranker.best_iteration_ - 1]  # predict: the best round
    assert best == pytest.approx(
        rm.mean_average_precision_score(yh, ranker.predict(Xh), qh, k=5), abs=1e-12)


def test_lightgbm_early_stopping_with_unsorted_rows(data) -> None:
    X, y, q = data.X, data.y, data.qid
    perm = np.random.default_rng(0).permutation(q.size)  # rows of a query not contiguous
    ranker = QueryGroupRanker(
        lgb.LGBMRanker(n_estimators=60, learning_rate=0.5, min_child_samples=5, n_jobs=1,
                       verbose=-1),
        early_stopping=True, scoring="ndcg", n_iter_no_change=3, random_state=0)
    ranker.fit(X[perm], y[perm], qid=q[perm])
    assert ranker.validation_qids_.size == 6
    assert ranker.best_iteration_ == ranker.estimator_.best_iteration_
    assert ranker.best_iteration_ == int(np.argmax(ranker.validation_score_)) + 1
    assert ranker.n_iter_ == len(ranker.validation_score_) <= 60


def test_fit_params_are_passed_through_and_routed(data) -> None:
    X, y, q = data.X, data.y, data.qid
    ev = q < 10  # an evaluation set of whole queries
    Xe, ye, se = X[ev], y[ev], np.unique(q[ev], return_counts=True)[1]
    record: dict[str, Any] = {}
    inner = lgb.LGBMRanker(n_estimators=5, min_child_samples=5, n_jobs=1, verbose=-1)
    # without routing: plain keyword arguments
    QueryGroupRanker(inner).fit(X, y, qid=q, eval_X=(Xe,), eval_y=(ye,), eval_group=[se],
                                callbacks=[lgb.record_evaluation(record)])
    assert len(record["valid_0"]["ndcg@1"]) == 5
    # with routing: the inner estimator requests them, a search passes them on
    record.clear()
    with sklearn.config_context(enable_metadata_routing=True):
        routed = QueryGroupRanker(inner.set_fit_request(
            eval_X=True, eval_y=True, eval_group=True, callbacks=True))
        search = GridSearchCV(routed, {"estimator__num_leaves": [3]}, cv=GroupKFold(2),
                              scoring=ndcg_scorer, error_score="raise")
        search.fit(X, y, groups=q, eval_X=(Xe,), eval_y=(ye,), eval_group=[se],
                   callbacks=[lgb.record_evaluation(record)])
    assert len(record["valid_0"]["ndcg@1"]) == 5  # the refit's record, 5 rounds
    with pytest.raises(ValueError, match="do not pass eval_set"):
        QueryGroupRanker(lgb.LGBMRanker(n_estimators=5, verbose=-1), early_stopping=True) \
            .fit(X, y, qid=q, eval_set=[(X, y)])


@pytest.mark.parametrize(("kwargs", "exc", "match"), [
    ({"validation_fraction": 1.0}, ValueError, "validation_fraction"),
    ({"validation_fraction": 0}, ValueError, "validation_fraction"),
    ({"n_iter_no_change": 0}, ValueError, "n_iter_no_change"),
    ({"tol": -1.0}, ValueError, "tol"),
    ({"tol": 2**2000}, ValueError, "tol must be within float64"),
    ({"scoring": "nope@3"}, ValueError, "unknown measure"),
    ({"scoring": 3}, TypeError, "scoring"),
])
def test_early_stopping_parameter_errors(data, kwargs, exc, match) -> None:
    ranker = QueryGroupRanker(lgb.LGBMRanker(n_estimators=3, verbose=-1), early_stopping=True,
                              **kwargs)
    with pytest.raises(exc, match=match):
        ranker.fit(data.X, data.y, qid=data.qid)


def test_early_stopping_needs_a_boosting_ranker_and_two_queries(data) -> None:
    from sklearn.linear_model import Ridge

    with pytest.raises(TypeError, match="LightGBM and XGBoost"):
        QueryGroupRanker(Ridge(), early_stopping=True).fit(data.X, data.y, qid=data.qid)
    one = data.qid == data.qid[0]
    with pytest.raises(ValueError, match="one training and one validation query"):
        QueryGroupRanker(lgb.LGBMRanker(verbose=-1), early_stopping=True).fit(
            data.X[one], data.y[one], qid=data.qid[one])


def test_layout_warnings_once_and_only_when_true(data) -> None:
    X, y, q = data.X, data.y, data.qid
    # queries 0..3 keep a single row
    keep = np.ones(q.size, dtype=bool)
    for qq in range(4):
        keep[np.flatnonzero(q == qq)[1:]] = False
    X, y, q = X[keep], y[keep], q[keep]
    model = QueryGroupRanker(lgb.LGBMRanker(n_estimators=3, min_child_samples=5, n_jobs=1,
                                            verbose=-1))
    scoring = {"ndcg": make_ranking_scorer("ndcg@10"), "map": make_ranking_scorer("map")}
    search = GridSearchCV(model, {"estimator__num_leaves": [3, 5, 7]}, cv=GroupKFold(3),
                          scoring=scoring, refit="ndcg", error_score="raise")
    with sklearn.config_context(enable_metadata_routing=True), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y, groups=q)
    msgs = [str(w.message) for w in caught if issubclass(w.category, RankingCVWarning)]
    # the 4 single-row queries fall in at most 3 folds: one warning per fold layout, not one
    # per candidate x fold x metric (18)
    assert 1 <= len(msgs) <= 3 and all("single row" in m for m in msgs)
    # an independent test set that reuses the training ids: no split warning (no splitter)
    test = make_ranking_data(n_queries=20, n_features=6, n_discrete=3, random_state=9)
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("error", RankingCVWarning)
        value = scoring["ndcg"](search, test.X, test.y, qid=test.qid)
    assert value == rm.ndcg_score(test.y, search.predict(test.X), test.qid, k=10)


def _shuffled(data: Any) -> tuple[Any, Any, Any, Any]:
    perm = np.random.default_rng(0).permutation(data.y.shape[0])  # queries interleaved
    return data.X[perm], data.y[perm], data.qid[perm], perm


def test_per_row_offsets_move_with_their_rows(data) -> None:
    """init_score / base_margin went to the inner fit in the caller's row order while X and y
    were grouped by query: offsets on the wrong rows, silently."""
    X, y, q, _ = _shuffled(data)
    offset = np.round(np.random.default_rng(1).normal(size=y.shape[0]), 2)
    order = np.argsort(q, kind="stable")
    sizes = np.unique(q[order], return_counts=True)[1]
    lgb_kw = {"n_estimators": 3, "min_child_samples": 2, "n_jobs": 1, "verbose": -1}
    ours = QueryGroupRanker(lgb.LGBMRanker(**lgb_kw)).fit(X, y, qid=q, init_score=offset)
    direct = lgb.LGBMRanker(**lgb_kw).fit(X[order], y[order], group=sizes,
                                           init_score=offset[order])
    np.testing.assert_allclose(ours.predict(X), direct.predict(X))
    xgb_kw = {"n_estimators": 3, "n_jobs": 1}
    ours_x = QueryGroupRanker(xgb.XGBRanker(**xgb_kw), group_param="qid", group_format="qid") \
        .fit(X, y, qid=q, base_margin=offset)
    direct_x = xgb.XGBRanker(**xgb_kw).fit(X[order], y[order], qid=q[order],
                                           base_margin=offset[order])
    np.testing.assert_allclose(ours_x.predict(X), direct_x.predict(X), rtol=1e-6)
    with pytest.raises(ValueError, match="init_score with early_stopping=True"):
        QueryGroupRanker(lgb.LGBMRanker(**lgb_kw), early_stopping=True).fit(
            X, y, qid=q, init_score=offset)
    with pytest.raises(ValueError, match="base_margin must have one value per row"):
        QueryGroupRanker(xgb.XGBRanker(**xgb_kw), group_param="qid", group_format="qid").fit(
            X, y, qid=q, base_margin=offset[:-1])


def test_xgboost_gets_one_weight_per_query_and_keeps_no_holdout_callback(data) -> None:
    """Per-row sample_weight died in XGBoost's C++ check (it weighs queries); the hold-out
    callback stayed in the fitted XGBRanker: no pickle, and a refit of a clone stopped on the
    old hold-out."""
    import pickle

    X, y, q, _ = _shuffled(data)
    qw = np.random.default_rng(2).uniform(0.5, 2.0, q.max() + 1)
    kw = {"group_param": "qid", "group_format": "qid"}
    est = QueryGroupRanker(xgb.XGBRanker(n_estimators=3, n_jobs=1), **kw)
    order = np.argsort(q, kind="stable")
    direct = xgb.XGBRanker(n_estimators=3, n_jobs=1).fit(
        X[order], y[order], qid=q[order], sample_weight=qw[np.unique(q)])
    np.testing.assert_allclose(est.fit(X, y, qid=q, sample_weight=qw[q]).predict(X),
                               direct.predict(X), rtol=1e-6)
    rowwise = qw[q] * np.random.default_rng(3).uniform(0.9, 1.1, q.shape[0])
    with pytest.raises(ValueError, match="sample_weight varies within a query"):
        est.fit(X, y, qid=q, sample_weight=rowwise)
    stop = QueryGroupRanker(xgb.XGBRanker(n_estimators=40, n_jobs=1), early_stopping=True,
                            n_iter_no_change=2, validation_fraction=0.3, random_state=0,
                            **kw).fit(X, y, qid=q)
    assert stop.estimator_.get_params()["callbacks"] is None
    again = pickle.loads(pickle.dumps(stop))
    np.testing.assert_array_equal(again.predict(X), stop.predict(X))
    refit = clone(stop.estimator_).fit(X[order], y[order], qid=q[order])
    assert refit.get_booster().num_boosted_rounds() == 40



def test_xgboost_early_stopping_with_sample_weight(data) -> None:
    """The hold-out sliced XGBoost's per-query weights with row indices (IndexError): it takes
    the per-row weights with its rows, and the training queries keep their own weights."""
    X, y, q = data.X, data.y, data.qid
    qw = np.random.default_rng(4).uniform(0.5, 2.0, q.max() + 1)
    est = QueryGroupRanker(xgb.XGBRanker(n_estimators=3, n_jobs=1), group_param="qid",
                           group_format="qid", early_stopping=True, validation_fraction=0.3,
                           random_state=0).fit(X, y, qid=q, sample_weight=qw[q])
    keep = ~np.isin(q, est.validation_qids_)
    direct = xgb.XGBRanker(n_estimators=3, n_jobs=1).fit(
        X[keep], y[keep], qid=q[keep], sample_weight=qw[np.unique(q[keep])])
    every_round = est.estimator_.predict(X, iteration_range=(0, 3))  # not the best round
    np.testing.assert_allclose(every_round, direct.predict(X), rtol=1e-6)


def test_builtin_map_reads_fractional_labels() -> None:
    """builtin_map built its Booster under lambdarank, which refuses fractional labels that
    LightGBM's map metric reads."""
    from rankmetrics.lightgbm import builtin_map, make_feval

    y = np.array([0.0, 0.6, 0.3, 1.0, 0.0, 0.7])
    s = np.array([0.5, 0.2, 0.9, 0.1, 0.3, 0.3])
    got = builtin_map(y, s, [3, 3], k=2)["map@2"]
    ds = lgb.Dataset(np.zeros((6, 1)), y, group=[3, 3], init_score=s,
                     params={"objective": "regression", "verbose": -1},
                     free_raw_data=False).construct()
    assert got == pytest.approx(make_feval("map@2", ties="stable")(s, ds)[0][1])
    assert got == pytest.approx(0.125)
