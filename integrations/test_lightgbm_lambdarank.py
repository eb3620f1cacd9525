"""End-to-end: LightGBM's own lambdarank example data, early stopping on tie-aware nDCG.

Data: ../shared/data/lightgbm_lambdarank (rank.train 3005 rows / 201 queries, rank.test 768 rows /
50 queries, features with two decimals, so the trees' scores are heavily tied). The four checks
of issue 3:

1. the values our feval reports at every recorded round equal the core on ``booster.predict``;
2. with the model's tied predictions, shuffling the validation rows within their queries moves
   LightGBM's built-in ndcg but not ours;
3. with ``ties="stable"`` (row order, LightGBM's rule) and exponential gain our per-query values
   equal LightGBM's built-in per-query values on the same scores;
4. early stopping happens on our metric and ``best_iteration`` agrees with the recorded curve.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm
from rankmetrics.datasets import RankingData, load_letor

lgb = require("lightgbm")
require("sklearn")

from rankmetrics.lightgbm import builtin_ndcg, early_stopping, make_feval  # noqa: E402

ROUNDS = 200
STOP = 10
PARAMS: dict[str, Any] = {
    "objective": "lambdarank",
    "num_leaves": 7,
    "learning_rate": 0.1,
    "min_data_in_leaf": 20,
    "num_threads": 1,
    "seed": 0,
    "deterministic": True,
    "force_row_wise": True,
    "verbose": -1,
}


@pytest.fixture(scope="module")
def data(shared_data: Path) -> tuple[RankingData, RankingData]:
    root = shared_data / "lightgbm_lambdarank"
    train = load_letor(root / "rank.train", root / "rank.train.query", n_features=300)
    test = load_letor(root / "rank.test", root / "rank.test.query", n_features=300)
    assert (train.n_samples, train.n_queries, test.n_samples, test.n_queries) == (
        3005, 201, 768, 50)
    return train, test


def _datasets(data: tuple[RankingData, RankingData]) -> tuple[Any, Any]:
    train, test = data
    dtrain = lgb.Dataset(train.X, train.y, group=train.group_sizes, free_raw_data=False)
    dtest = lgb.Dataset(test.X, test.y, group=test.group_sizes, reference=dtrain,
                        free_raw_data=False)
    return dtrain, dtest


@pytest.fixture(scope="module")
def trained(data: tuple[RankingData, RankingData]) -> dict[str, Any]:
    """metric="None" + feval + lgb.early_stopping(first_metric_only=True): the documented path."""
    dtrain, dtest = _datasets(data)
    feval = make_feval("ndcg", k=(10, 5), bounds=True)
    record: dict[str, Any] = {}
    booster = lgb.train(
        {**PARAMS, "metric": "None"}, dtrain, num_boost_round=ROUNDS, valid_sets=[dtest],
        valid_names=["test"], feval=feval, keep_training_booster=True,
        callbacks=[lgb.early_stopping(STOP, first_metric_only=True, verbose=False),
                   lgb.record_evaluation(record)],
    )
    return {"booster": booster, "record": record["test"], "feval": feval}


def _shuffle_within_queries(sizes: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    return np.concatenate([s + rng.permutation(n) for s, n in zip(starts, sizes, strict=True)])


# (1) -------------------------------------------------------------------------------------------
def test_reported_values_equal_core_on_predict(trained, data) -> None:
    _, test = data
    booster, record = trained["booster"], trained["record"]
    assert trained["feval"].names == ["ndcg@10", "ndcg@5", "ndcg@10_optimistic",
                                      "ndcg@10_pessimistic", "ndcg@5_optimistic",
                                      "ndcg@5_pessimistic"]
    assert set(record) == set(trained["feval"].names)  # no built-in metric: metric="None"
    n_rounds = len(record["ndcg@10"])
    for it in range(1, n_rounds + 1):
        pred = booster.predict(test.X, num_iteration=it)
        for k in (10, 5):
            for ties, suffix in (("average", ""), ("optimistic", "_optimistic"),
                                 ("pessimistic", "_pessimistic")):
                core = rm.ndcg_score(test.y, pred, test.qid, k=k, ties=ties, empty=1.0,
                                     gain="exponential")  # LightGBM's gain
                assert record[f"ndcg@{k}{suffix}"][it - 1] == pytest.approx(core, abs=1e-12)
        assert (record["ndcg@10_pessimistic"][it - 1] <= record["ndcg@10"][it - 1]
                <= record["ndcg@10_optimistic"][it - 1])


# (2) -------------------------------------------------------------------------------------------
def test_row_shuffle_moves_builtin_not_ours(trained, data) -> None:
    _, test = data
    booster = trained["booster"]
    perm = _shuffle_within_queries(test.group_sizes, seed=1)
    feval = make_feval("ndcg", k=10)
    d_orig = lgb.Dataset(test.X, test.y, group=test.group_sizes, params={"verbose": -1})
    d_perm = lgb.Dataset(test.X[perm], test.y[perm], group=test.group_sizes,
                         params={"verbose": -1})
    d_orig.construct()
    d_perm.construct()
    moved = []
    for it in (1, 2, 3):  # early rounds: few distinct leaf values, many ties
        pred = booster.predict(test.X, num_iteration=it)
        assert np.unique(pred).size < pred.size / 4  # the model's scores really are tied
        pred_perm = booster.predict(test.X[perm], num_iteration=it)
        np.testing.assert_array_equal(pred_perm, pred[perm])
        ours = feval(pred, d_orig)[0][1]
        ours_perm = feval(pred_perm, d_perm)[0][1]
        assert ours_perm == pytest.approx(ours, abs=1e-12)
        lgb_orig = builtin_ndcg(test.y, pred, test.group_sizes, k=10)["ndcg@10"]
        lgb_perm = builtin_ndcg(test.y[perm], pred_perm, test.group_sizes, k=10)["ndcg@10"]
        moved.append(abs(lgb_perm - lgb_orig))
    assert max(moved) > 1e-4, moved  # LightGBM's value depends on the row order


# (3) -------------------------------------------------------------------------------------------
def test_stable_ties_equal_builtin_per_query(trained, data) -> None:
    # LightGBM's built-in ndcg on arbitrary scores: a Booster with zero trees predicts its data's
    # init_score, so a Dataset with init_score=scores evaluated by eval_train()/eval_valid()
    # gives LightGBM's metric on exactly these scores. LightGBM reports only the mean over the
    # queries of a data set; builtin_ndcg(per_query=True) therefore adds every query as its
    # own validation set of one such Booster (the mean over one query is that query's value)
    # and reads them all from one eval_valid(). Row order inside each query is kept, so
    # LightGBM's stable_sort tie rule sees the same order as our ties="stable". The check that
    # the per-query values average to LightGBM's whole-set value guards that construction.
    _, test = data
    booster = trained["booster"]
    sizes = test.group_sizes
    perm = _shuffle_within_queries(sizes, seed=2)
    cases = [booster.predict(test.X, num_iteration=it) for it in (1, 3, booster.best_iteration)]
    cases.append(cases[0][perm])  # tied scores in another row order (labels permuted alike)
    labels = [test.y, test.y, test.y, test.y[perm]]
    for y, scores in zip(labels, cases, strict=True):
        ks = (1, 3, 5, 10)
        lgb_q = builtin_ndcg(y, scores, sizes, k=ks, per_query=True)
        lgb_mean = builtin_ndcg(y, scores, sizes, k=ks)
        ours = rm.QueryPlan.from_group_sizes(y, sizes).evaluate(
            scores, [f"ndcg@{k}" for k in ks], ties="stable", gain="exponential", empty=1.0)
        for k in ks:
            name = f"ndcg@{k}"
            assert lgb_q[name].mean() == pytest.approx(lgb_mean[name], abs=1e-12)
            np.testing.assert_allclose(ours[name], lgb_q[name], rtol=0, atol=1e-12)
    # LightGBM's label_gain parameter <-> our gain as per-level weights
    lin = builtin_ndcg(test.y, cases[0], sizes, k=10, label_gain=[0, 1, 2, 3, 4], per_query=True)
    np.testing.assert_allclose(
        rm.ndcg(test.y, cases[0], test.qid, k=10, ties="stable", gain="linear", empty=1.0),
        lin["ndcg@10"], rtol=0, atol=1e-12)


# (4) -------------------------------------------------------------------------------------------
def test_early_stopping_on_our_metric(trained) -> None:
    booster, record = trained["booster"], trained["record"]
    curve = np.asarray(record["ndcg@10"])
    best = booster.best_iteration
    assert len(curve) < ROUNDS  # it did stop early ...
    assert len(curve) == best + STOP  # ... STOP rounds after the best round of our metric
    assert best == int(np.argmax(curve)) + 1  # first round reaching the maximum
    assert np.all(curve[best:] <= curve[best - 1])
    assert booster.best_score["test"]["ndcg@10"] == curve[best - 1]


def test_helper_stops_on_ours_with_builtin_on(trained, data) -> None:
    """Built-in ndcg left on (listed first by LightGBM): rankmetrics.lightgbm.early_stopping
    still stops on ours, at the same round as the metric="None" run; lgb.early_stopping with
    first_metric_only=True would stop on the built-in (its curve's argmax)."""
    dtrain, dtest = _datasets(data)
    params = {**PARAMS, "metric": "ndcg", "eval_at": [10]}
    feval = make_feval("ndcg", k=10, prefix="tie_")
    record: dict[str, Any] = {}
    booster = lgb.train(
        params, dtrain, num_boost_round=ROUNDS, valid_sets=[dtest], valid_names=["test"],
        feval=feval, callbacks=[early_stopping(STOP, feval, verbose=False),
                                lgb.record_evaluation(record)],
    )
    assert list(record["test"]) == ["ndcg@10", "tie_ndcg@10"]  # built-in first
    ours = np.asarray(record["test"]["tie_ndcg@10"])
    np.testing.assert_allclose(ours, trained["record"]["ndcg@10"][: len(ours)], atol=1e-12)
    assert booster.best_iteration == trained["booster"].best_iteration
    assert booster.best_iteration == int(np.argmax(ours)) + 1
    assert len(ours) == booster.best_iteration + STOP

    record2: dict[str, Any] = {}
    b2 = lgb.train(
        params, dtrain, num_boost_round=ROUNDS, valid_sets=[dtest], valid_names=["test"],
        feval=feval, callbacks=[lgb.early_stopping(STOP, first_metric_only=True, verbose=False),
                                lgb.record_evaluation(record2)],
    )
    builtin = np.asarray(record2["test"]["ndcg@10"])
    assert b2.best_iteration == int(np.argmax(builtin)) + 1  # stopped on LightGBM's metric
