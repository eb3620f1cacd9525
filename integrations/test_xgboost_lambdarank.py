"""End-to-end: XGBoost on LightGBM's lambdarank example data, early stopping on tie-aware nDCG.

Data: ../shared/data/lightgbm_lambdarank (rank.train 3005 rows / 201 queries, rank.test 768 rows /
50 queries, features with two decimals, so early trees' scores are heavily tied). Checks of
issue 13:

1. the values our custom metric reports every round equal the core on ``booster.predict`` at
   that round (XGBoost prints custom values with ``%f``: equal after that rounding);
2. with ``ties="stable"`` and the defaults our values equal XGBoost's built-in ``ndcg@k``,
   ``map@k`` and ``pre@k`` every round (binary labels for map/pre, as XGBoost requires);
3. early stopping happens on our metric: ``best_iteration`` is the argmax of the recorded curve;
4. ``XGBRanker(eval_metric=make_eval_metric(...))`` reports XGBoost's query-size-weighted mean of
   the core's per-query values, and ``early_stopping_rounds`` stops at its argmax.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm
from rankmetrics.datasets import RankingData, load_letor

xgb = require("xgboost")

from rankmetrics.xgboost import (  # noqa: E402
    builtin_metric,
    early_stopping,
    make_custom_metric,
    make_eval_metric,
)

ROUNDS = 60
STOP = 5
PARAMS: dict[str, Any] = {"objective": "rank:ndcg", "max_depth": 3, "eta": 0.3, "nthread": 1,
                          "tree_method": "hist", "seed": 0}


@pytest.fixture(scope="module")
def data(shared_data: Path) -> tuple[RankingData, RankingData]:
    root = shared_data / "lightgbm_lambdarank"
    train = load_letor(root / "rank.train", root / "rank.train.query", n_features=300)
    test = load_letor(root / "rank.test", root / "rank.test.query", n_features=300)
    assert (train.n_samples, train.n_queries, test.n_samples, test.n_queries) == (
        3005, 201, 768, 50)
    return train, test


def _fmt(v: float) -> float:
    return float(f"{v:f}")  # XGBoost formats custom metric values with "%f"


@pytest.fixture(scope="module")
def trained(data: tuple[RankingData, RankingData]) -> dict[str, Any]:
    """XGBoost's built-in ndcg@10/ndcg@5 on, ours beside them under distinct prefixes."""
    train, test = data
    dtrain = xgb.DMatrix(train.X, label=train.y, qid=train.qid)
    dtest = xgb.DMatrix(test.X, label=test.y, qid=test.qid)
    metric = make_custom_metric("ndcg", k=(10, 5), bounds=True, prefix="tie_")
    stable = make_custom_metric("ndcg", k=(10, 5), ties="stable", prefix="stable_")
    record: dict[str, Any] = {}

    def both(predt: np.ndarray, d: Any) -> list[tuple[str, float]]:
        return metric(predt, d) + stable(predt, d)

    booster = xgb.train(
        {**PARAMS, "eval_metric": ["ndcg@10", "ndcg@5"]}, dtrain, num_boost_round=ROUNDS,
        evals=[(dtest, "test")], custom_metric=both, evals_result=record, verbose_eval=False,
        callbacks=[early_stopping(STOP, metric)],
    )
    return {"booster": booster, "record": record["test"], "metric": metric, "dtest": dtest}


def _predictions(trained: dict[str, Any]) -> list[np.ndarray]:
    booster = trained["booster"]
    n_rounds = len(trained["record"]["tie_ndcg@10"])
    return [booster.predict(trained["dtest"], iteration_range=(0, it + 1))
            for it in range(n_rounds)]


def test_values_equal_core_every_round(trained, data) -> None:
    _, test = data
    record, metric = trained["record"], trained["metric"]
    assert metric._dcache.builds == 1  # the plan is built once for the DMatrix
    tied_rounds = 0
    for it, pred in enumerate(_predictions(trained)):
        tied_rounds += np.unique(pred).size < pred.size / 2
        for k in (10, 5):
            for ties, suffix in (("average", ""), ("optimistic", "_optimistic"),
                                 ("pessimistic", "_pessimistic")):
                core = rm.ndcg_score(test.y, pred, test.qid, k=k, ties=ties, empty=1.0,
                                     gain="exponential")
                assert record[f"tie_ndcg@{k}{suffix}"][it] == _fmt(core)
        per_query = metric.per_query(pred, trained["dtest"])
        np.testing.assert_array_equal(
            per_query["tie_ndcg@10"], rm.ndcg(test.y, pred, test.qid, k=10, empty=1.0))
    assert tied_rounds >= 1  # the early rounds really are tied


def test_stable_equals_builtin_ndcg_every_round(trained) -> None:
    record = trained["record"]
    assert list(record)[:2] == ["ndcg@10", "ndcg@5"]  # XGBoost's built-ins, listed first
    for k in (10, 5):
        builtin = np.asarray(record[f"ndcg@{k}"])
        ours = np.asarray(record[f"stable_ndcg@{k}"])
        np.testing.assert_allclose(ours, builtin, rtol=0, atol=5e-7)  # ours printed with %f
        # and the tie-aware value really differs from row order in some round
    assert np.max(np.abs(np.asarray(record["tie_ndcg@10"]) - record["ndcg@10"])) > 1e-4


def test_stable_equals_builtin_map_pre_ndcg_on_model_scores(trained, data) -> None:
    _, test = data
    binary = (test.y >= 1).astype(np.float64)  # XGBoost's map/pre take binary labels only
    names = ["ndcg@3", "ndcg@10", "map@5", "map@10", "pre@5", "pre@10"]
    ours_names = ["ndcg@3", "ndcg@10", "map@5", "map@10", "precision@5", "precision@10"]
    metric = make_custom_metric(ours_names, k=None, ties="stable")
    preds = _predictions(trained)
    for pred in (preds[0], preds[2], preds[-1]):
        d = xgb.DMatrix(test.X, label=binary, qid=test.qid)
        ours = dict(metric(pred, d))
        theirs = builtin_metric(binary, pred, test.qid, names)
        for a, b in zip(ours_names, names, strict=True):
            assert ours[a] == pytest.approx(theirs[b], abs=1e-12), (a, b)
        graded = dict(make_custom_metric("ndcg", k=(3, 10), ties="stable")(pred, trained["dtest"]))
        builtin = builtin_metric(test.y, pred, test.qid, ["ndcg@3", "ndcg@10"])
        for n in ("ndcg@3", "ndcg@10"):
            assert graded[n] == pytest.approx(builtin[n], abs=1e-12)


def test_early_stopping_on_our_metric(trained) -> None:
    booster, record = trained["booster"], trained["record"]
    curve = np.asarray(record["tie_ndcg@10"])
    assert len(curve) < ROUNDS  # it did stop early ...
    assert booster.best_iteration == int(np.argmax(curve))  # ... at our curve's first maximum
    assert len(curve) == booster.best_iteration + STOP + 1
    assert float(booster.best_score) == curve[booster.best_iteration]


def test_xgbranker_eval_metric_and_early_stopping_rounds(data) -> None:
    train, test = data
    metric = make_eval_metric("ndcg", k=10)
    ranker = xgb.XGBRanker(n_estimators=ROUNDS, max_depth=3, learning_rate=0.3, n_jobs=1,
                           tree_method="hist", random_state=0, eval_metric=metric,
                           early_stopping_rounds=STOP)
    ranker.fit(train.X, train.y, qid=train.qid, eval_set=[(test.X, test.y)],
               eval_qid=[test.qid], verbose=False)
    curve = np.asarray(ranker.evals_result()["validation_0"]["ndcg@10"])
    assert ranker.best_iteration == int(np.argmax(curve))
    sizes = test.group_sizes
    for it in (0, ranker.best_iteration):
        pred = ranker.predict(test.X, iteration_range=(0, it + 1))
        per_query = rm.ndcg(test.y, pred, test.qid, k=10, empty=1.0)
        per_query[sizes == 1] = 1.0  # XGBoost's rule: a single-row query is not evaluated
        # XGBoost's ranker averages the per-query values weighted by query size
        assert curve[it] == _fmt(np.average(per_query, weights=sizes))
