"""Early stopping inside scikit-learn model selection, on LightGBM's lambdarank example data.

``GridSearchCV(QueryGroupRanker(LGBMRanker(...), early_stopping=True), ...,
scoring=ranking_scorers(...), cv=GroupKFold(3))`` on rank.train (3005 rows, 201 queries, one of
them a single document). Checked for every candidate and fold:

* the hold-out is whole queries of the fold's *training* part (no query split, no test row);
* ``best_iteration_`` is the argmax of the tie-aware nDCG@10 curve that the core computes on
  that hold-out from the model's predictions after each round, and training stopped early;
* the search's fold scores are those of exactly these early-stopped models;
* the single-row-query warning is shown once for the whole search.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm
from rankmetrics.datasets import RankingData, load_letor

sklearn = require("sklearn")
lgb = require("lightgbm")

from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV, GroupKFold  # noqa: E402

import rankmetrics.sklearn as rsk  # noqa: E402
from rankmetrics.sklearn import QueryGroupRanker, RankingCVWarning, ranking_scorers  # noqa: E402

ROUNDS = 150
BASE: dict[str, Any] = {"n_estimators": ROUNDS, "learning_rate": 0.3, "min_child_samples": 20,
                        "verbose": -1, "n_jobs": 1, "deterministic": True,
                        "force_row_wise": True}
GRID = {"estimator__num_leaves": [3, 15]}


@pytest.fixture(scope="module", autouse=True)
def _one_thread() -> Any:
    threadpoolctl = require("threadpoolctl")
    with threadpoolctl.threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="module")
def train(shared_data: Path) -> RankingData:
    folder = shared_data / "lightgbm_lambdarank"
    return load_letor(folder / "rank.train", folder / "rank.train.query", n_features=300)


def test_grid_search_early_stops_every_candidate_on_its_fold(train: RankingData) -> None:
    est = QueryGroupRanker(lgb.LGBMRanker(**BASE), early_stopping=True, scoring="ndcg@10",
                           validation_fraction=0.2, n_iter_no_change=5, random_state=0)
    search = GridSearchCV(est, GRID, scoring=ranking_scorers("ndcg@10", "map"),
                          refit="ndcg@10", cv=GroupKFold(n_splits=3), n_jobs=1,
                          error_score="raise")
    rsk._WARNED.clear()
    with sklearn.config_context(enable_metadata_routing=True), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(train.X, train.y, groups=train.qid)
    layout = [w for w in caught if issubclass(w.category, RankingCVWarning)]
    assert len(layout) == 1 and "single row" in str(layout[0].message)  # once per search

    folds = list(GroupKFold(n_splits=3).split(train.X, train.y, groups=train.qid))
    res = search.cv_results_
    stopped = []
    for c, params in enumerate(res["params"]):
        for f, (tr, te) in enumerate(folds):
            model = clone(est).set_params(**params)
            model.fit(train.X[tr], train.y[tr], qid=train.qid[tr])
            q_tr = train.qid[tr]
            held = np.isin(q_tr, model.validation_qids_)
            # whole queries of the training part: none from the test fold, none cut
            assert not np.isin(model.validation_qids_, train.qid[te]).any()
            assert np.intersect1d(model.train_qids_, model.validation_qids_).size == 0
            assert held.sum() == np.isin(train.qid, model.validation_qids_).sum()
            # the curve by the core on the hold-out, round by round, from a model trained
            # without early stopping on the same rows (LightGBM is deterministic here)
            X_h, y_h, q_h = train.X[tr][held], train.y[tr][held], q_tr[held]
            _, part_sizes = np.unique(q_tr[~held], return_counts=True)
            plain = lgb.LGBMRanker(**{**BASE, "n_estimators": model.n_iter_,
                                      "num_leaves": params["estimator__num_leaves"]})
            plain.fit(train.X[tr][~held], train.y[tr][~held], group=part_sizes)
            # QueryGroupRanker watches the core's nDCG@10 (exponential gain, as documented)
            curve = [rm.ndcg_score(y_h, plain.predict(X_h, num_iteration=i), q_h, k=10,
                                   gain="exponential")
                     for i in range(1, model.n_iter_ + 1)]
            np.testing.assert_allclose(model.validation_score_, curve, rtol=0, atol=1e-12)
            assert model.best_iteration_ == int(np.argmax(curve)) + 1
            assert model.n_iter_ == model.best_iteration_ + 5
            stopped.append(model.n_iter_ < ROUNDS)
            # the search scored exactly this early-stopped model (best iteration)
            pred = model.predict(train.X[te])
            np.testing.assert_array_equal(
                pred, plain.predict(train.X[te], num_iteration=model.best_iteration_))
            assert res[f"split{f}_test_ndcg@10"][c] == pytest.approx(
                rm.ndcg_score(train.y[te], pred, train.qid[te], k=10), abs=1e-12)
    assert all(stopped)
    assert search.best_estimator_.best_iteration_ < ROUNDS
