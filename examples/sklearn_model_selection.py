"""Model selection for learning to rank with scikit-learn and tie-aware metrics.

Generated data (``rankmetrics.datasets.make_ranking_data``, 200 queries), split by whole
queries into a development and a held-out part. On the development part, ``GridSearchCV`` with
``GroupKFold`` tunes

- a ``lightgbm.LGBMRanker`` wrapped in ``QueryGroupRanker`` (which turns the routed per-row
  query ids into the group sizes LightGBM needs), and
- a ``HistGradientBoostingRegressor`` used as a pointwise ranker,

scored with tie-aware nDCG@10 and MAP (refit on nDCG@10). It prints each search's
``cv_results_`` table (mean ± std over folds per candidate), then the held-out score of the
refitted winners, next to the optimistic/pessimistic tie bounds.

Run: ``python examples/sklearn_model_selection.py`` (needs scikit-learn >= 1.6; LightGBM
optional).
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV, GroupKFold
from threadpoolctl import threadpool_limits

import rankmetrics as rm
from rankmetrics.datasets import make_ranking_data
from rankmetrics.sklearn import QueryGroupRanker, RankingCVWarning, ranking_scorers

N_SPLITS = 4


def print_table(title: str, search: GridSearchCV, metrics: list[str]) -> None:
    """Print cv_results_: one row per candidate, mean ± std over folds for every metric."""
    res = search.cv_results_
    names = [", ".join(f"{k.split('__')[-1]}={v}" for k, v in p.items()) for p in res["params"]]
    width = max(len(n) for n in names + ["candidate"])
    head = "".join(f"{m:>20}" for m in metrics)
    print(f"\n{title}\n{'rank':>4}  {'candidate':<{width}}{head}")
    order = np.argsort(res[f"rank_test_{metrics[0]}"], kind="stable")
    for c in order:
        cells = "".join(
            f"{res[f'mean_test_{m}'][c]:>11.4f} ± {res[f'std_test_{m}'][c]:.4f}" for m in metrics
        )
        mark = " *" if c == search.best_index_ else ""
        print(f"{res[f'rank_test_{metrics[0]}'][c]:>4}  {names[c]:<{width}}{cells}{mark}")


def main() -> None:
    start = time.perf_counter()
    data = make_ranking_data(n_queries=200, random_state=0)
    dev, held_out = data.split(test_size=0.25, random_state=0)
    print(f"development: {dev}\nheld out:    {held_out}")

    metrics = ["ndcg@10", "map"]
    scoring = ranking_scorers(*metrics, ties="average")
    candidates: list[tuple[str, Any, dict[str, list[Any]]]] = []
    try:
        import lightgbm as lgb
    except ImportError:
        print("lightgbm is not installed: skipping the LGBMRanker search")
    else:
        ranker = QueryGroupRanker(
            lgb.LGBMRanker(n_estimators=40, learning_rate=0.1, verbose=-1, n_jobs=1)
        )
        candidates.append((
            "LGBMRanker (lambdarank) via QueryGroupRanker",
            ranker,
            {"estimator__num_leaves": [4, 16], "estimator__min_child_samples": [10, 40]},
        ))
    candidates.append((
        "HistGradientBoostingRegressor (pointwise)",
        HistGradientBoostingRegressor(max_iter=40, early_stopping=False, random_state=0),
        {"max_leaf_nodes": [4, 16], "learning_rate": [0.05, 0.2]},
    ))

    winners = []
    # Metadata routing delivers the per-row query ids to GroupKFold, QueryGroupRanker and the
    # scorers; one key, `groups`, feeds all three. (One OpenMP thread per fit: these models are
    # small, and HistGradientBoosting's threads only contend on a busy two-core machine.)
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings(), \
            threadpool_limits(limits=1):
        warnings.simplefilter("error", RankingCVWarning)  # grouped folds: nothing to warn about
        for title, estimator, grid in candidates:
            search = GridSearchCV(estimator, grid, scoring=scoring, refit="ndcg@10",
                                  cv=GroupKFold(n_splits=N_SPLITS), n_jobs=1)
            search.fit(dev.X, dev.y, groups=dev.qid)
            print_table(f"{title}: {N_SPLITS}-fold GroupKFold, * = refit choice", search,
                        metrics)
            winners.append((title, search))

    print("\nheld-out nDCG@10 of the refitted winners (ties: pessimistic / average / optimistic)")
    for title, search in winners:
        pred = search.predict(held_out.X)
        values = [
            rm.ndcg_score(held_out.y, pred, held_out.qid, k=10, ties=t)
            for t in ("pessimistic", "average", "optimistic")
        ]
        print(f"  {title:<46} {values[0]:.4f} / {values[1]:.4f} / {values[2]:.4f}")
    print(f"\ndone in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
