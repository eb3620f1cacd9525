"""Model selection of ``xgboost.spark.SparkXGBRanker`` with Spark ML's ``CrossValidator`` and
rankmetrics' tie-aware ``RankingEvaluator`` (nDCG@10 per query, averaged over queries).

Starts a ``local[2]`` SparkSession itself, generates a learning-to-rank data set with discrete
features (so tree scores tie), cross-validates a small grid with folds made of whole queries,
prints the mean tie-aware nDCG@10 of every parameter set, then recomputes the best model's
held-out value with the core on collected predictions::

    python examples/spark_model_selection.py
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np
import pandas as pd

from rankmetrics import QueryPlan
from rankmetrics.datasets import make_ranking_data


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--queries", type=int, default=150)
    p.add_argument("--quick", action="store_true",
                   help="2 parameter sets x 2 folds instead of 4 x 3 (smoke test)")
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.ml.tuning import CrossValidator, ParamGridBuilder
    from pyspark.sql import SparkSession
    from xgboost.spark import SparkXGBRanker

    from rankmetrics.spark import RankingEvaluator, evaluate

    spark = (SparkSession.builder.master("local[2]").appName("rankmetrics-example")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        data = make_ranking_data(n_queries=args.queries, n_features=8, n_discrete=8,
                                 random_state=0)
        feats = [f"f{i}" for i in range(data.n_features)]
        pdf = pd.DataFrame(data.X, columns=feats)
        pdf["label"], pdf["qid"] = data.y.astype(float), data.qid
        n_folds = 2 if args.quick else 3
        pdf["fold"] = (data.qid % n_folds).astype(int)  # folds of whole queries
        test_q = data.qid % 5 == 4
        df = spark.createDataFrame(pdf[~test_q])
        test = spark.createDataFrame(pdf[test_q])

        ranker = SparkXGBRanker(features_col=feats, label_col="label", qid_col="qid",
                                num_workers=1, n_estimators=30, learning_rate=0.3,
                                objective="rank:ndcg")
        grid = (ParamGridBuilder().addGrid(ranker.max_depth, [2, 6])
                .addGrid(ranker.min_child_weight, [1.0] if args.quick else [1.0, 20.0]).build())
        evaluator = RankingEvaluator(metricName="ndcg@10", qidCol="qid", labelCol="label",
                                     predictionCol="prediction")
        cv = CrossValidator(estimator=ranker, estimatorParamMaps=grid, evaluator=evaluator,
                            foldCol="fold", numFolds=n_folds, parallelism=1)
        model = cv.fit(df)
        n_cv = data.n_queries - int(np.unique(data.qid[test_q]).size)
        print(f"local[2]: {int((~test_q).sum())} rows of {n_cv} queries in {n_folds} folds; "
              f"{int(test_q.sum())} held-out rows")
        print(f"{'max_depth':>9}  {'min_child_weight':>16}  {'mean tie-aware nDCG@10 (CV)':>27}")
        for pm, m in zip(grid, model.avgMetrics, strict=True):
            print(f"{pm[ranker.max_depth]:>9}  {pm[ranker.min_child_weight]:>16g}  {m:>27.4f}")
        best = grid[int(np.argmax(model.avgMetrics))]
        print(f"best parameters: max_depth={best[ranker.max_depth]}, "
              f"min_child_weight={best[ranker.min_child_weight]:g}")
        pred = model.bestModel.transform(test)
        res = evaluate(pred, ["ndcg@10", "map"], qid="qid", label="label",
                       score="prediction")
        local = pred.select("qid", "label", "prediction").toPandas()
        core = QueryPlan(local["label"].to_numpy(), local["qid"].to_numpy()).ndcg(
            local["prediction"].to_numpy(), k=10).mean()
        ok = abs(core - res.mean["ndcg@10"]) < 1e-12
        print(f"held-out queries: tie-aware nDCG@10 {res.mean['ndcg@10']:.4f}, "
              f"MAP {res.mean['map']:.4f}; core on collected predictions {core:.4f} "
              f"(matches: {ok})")
        assert ok
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
