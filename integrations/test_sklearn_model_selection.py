"""End-to-end model selection on LightGBM's lambdarank example data with the tie-aware scorer.

Data: ../shared/data/lightgbm_lambdarank/rank.train (3005 rows, 201 queries, 300 features with
two decimals, so tree scores are heavily tied; one query has a single document). Two searches,
both with ``GroupKFold`` on the query ids and the tie-aware nDCG@10 scorer, metadata routing on:

1. ``GridSearchCV`` over a small ``lightgbm.LGBMRanker`` grid wrapped in ``QueryGroupRanker``;
2. ``GridSearchCV`` over ``HistGradientBoostingRegressor`` used as a pointwise ranker.

For each, every per-fold score in ``cv_results_`` must equal the core ``rankmetrics.ndcg_score``
computed by hand on that fold's predictions (a fresh model fitted on the fold's training rows),
and the chosen parameters must be the candidate with the best mean of those hand-made scores.
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
from sklearn.ensemble import HistGradientBoostingRegressor  # noqa: E402
from sklearn.model_selection import GridSearchCV, GroupKFold  # noqa: E402

from rankmetrics.sklearn import QueryGroupRanker, RankingCVWarning, make_ranking_scorer  # noqa: E402

N_SPLITS = 3
LGBM_BASE: dict[str, Any] = {
    "n_estimators": 12,
    "learning_rate": 0.2,
    "min_child_samples": 20,
    "verbose": -1,
    "n_jobs": 1,
    "deterministic": True,
    "force_row_wise": True,
}
LGBM_GRID = {"estimator__num_leaves": [3, 15], "estimator__n_estimators": [4, 12]}
HGB_BASE: dict[str, Any] = {"max_iter": 10, "max_bins": 63, "early_stopping": False,
                            "random_state": 0}
HGB_GRID = {"max_leaf_nodes": [3, 15], "learning_rate": [0.05, 0.3]}


@pytest.fixture(scope="module", autouse=True)
def _one_thread() -> Any:
    """One OpenMP thread per fit: faster than oversubscribing two shared cores."""
    threadpoolctl = require("threadpoolctl")
    with threadpoolctl.threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="module")
def train(shared_data: Path) -> RankingData:
    folder = shared_data / "lightgbm_lambdarank"
    data = load_letor(folder / "rank.train", folder / "rank.train.query", n_features=300)
    assert (data.n_samples, data.n_queries) == (3005, 201)
    return data


def _search(estimator: Any, grid: dict[str, list[Any]], data: RankingData) -> GridSearchCV:
    scorer = make_ranking_scorer("ndcg@10", ties="average")
    search = GridSearchCV(estimator, grid, scoring=scorer, cv=GroupKFold(n_splits=N_SPLITS),
                          n_jobs=1, error_score="raise")
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        # rank.train holds one single-document query; the scorer warns about it (by design)
        warnings.filterwarnings("ignore", "(?s).*single row", RankingCVWarning)
        search.fit(data.X, data.y, groups=data.qid)
    return search


def _check_against_core(search: GridSearchCV, estimator: Any, data: RankingData) -> None:
    res = search.cv_results_
    folds = list(GroupKFold(n_splits=N_SPLITS).split(data.X, data.y, groups=data.qid))
    for train, test in folds:  # grouped folds: no query on both sides
        assert np.intersect1d(data.qid[train], data.qid[test]).size == 0
    means = []
    for c, params in enumerate(res["params"]):
        by_hand = []
        for train, test in folds:
            model = clone(estimator).set_params(**params)
            if isinstance(model, QueryGroupRanker):
                model.fit(data.X[train], data.y[train], qid=data.qid[train])
            else:
                model.fit(data.X[train], data.y[train])
            pred = model.predict(data.X[test])
            by_hand.append(rm.ndcg_score(data.y[test], pred, data.qid[test], k=10,
                                         ties="average"))
        got = [res[f"split{i}_test_score"][c] for i in range(N_SPLITS)]
        np.testing.assert_allclose(got, by_hand, rtol=0, atol=1e-12)
        means.append(np.mean(by_hand))
    best = int(np.argmax(means))
    assert search.best_params_ == res["params"][best]
    assert search.best_score_ == pytest.approx(means[best], abs=1e-12)
    # the search's own ranking agrees: the chosen candidate is ranked first
    assert res["rank_test_score"][search.best_index_] == 1


def test_grid_search_lgbm_ranker_with_tie_aware_ndcg(train: RankingData) -> None:
    estimator = QueryGroupRanker(lgb.LGBMRanker(**LGBM_BASE))
    search = _search(estimator, LGBM_GRID, train)
    _check_against_core(search, estimator, train)
    # LightGBM's tied leaf values: the tie rule matters on this data
    pred = search.predict(train.X)
    lo = rm.ndcg_score(train.y, pred, train.qid, k=10, ties="pessimistic")
    hi = rm.ndcg_score(train.y, pred, train.qid, k=10, ties="optimistic")
    assert lo < hi


def test_grid_search_pointwise_regressor_with_tie_aware_ndcg(train: RankingData) -> None:
    estimator = HistGradientBoostingRegressor(**HGB_BASE)
    search = _search(estimator, HGB_GRID, train)
    _check_against_core(search, estimator, train)
