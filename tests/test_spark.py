"""rankmetrics.spark: evaluate == core; RankingEvaluator inside CrossValidator.

One local[2] SparkSession serves the module (small shuffles: 2 partitions). About 30-60 s on a
free 2-core machine, most of it JVM start-up and Python worker launch.
"""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from _extras import require

from rankmetrics import QueryPlan
from rankmetrics.core.plan import weighted_mean
from rankmetrics.datasets import make_benchmark_scores, make_ranking_data

pyspark_sql = require("pyspark.sql")
rspark = require("rankmetrics.spark")


@pytest.fixture(scope="module")
def spark():
    session = (pyspark_sql.SparkSession.builder.master("local[2]")
               .appName("rankmetrics-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _pdf(n_queries=40, seed=0):
    y, s, q = make_benchmark_scores(n_queries=n_queries, min_docs=1, max_docs=25,
                                    tie_fraction=0.5, random_state=seed)
    rng = np.random.default_rng(seed)
    qw = rng.uniform(0.5, 2.0, size=q.max() + 1)
    return pd.DataFrame({"qid": q, "label": y.astype(float), "prediction": s, "w": qw[q]})


def test_evaluate_equals_core(spark):
    pdf = _pdf()
    df = spark.createDataFrame(pdf.sample(frac=1.0, random_state=3))
    measures = ["ndcg@10", "ndcg", "map", "p@5", "rr"]
    res = rspark.evaluate(df, measures)
    got = res.per_query.toPandas().set_index("qid").sort_index()
    assert list(got.columns) == measures
    plan = QueryPlan(pdf["label"].to_numpy(), pdf["qid"].to_numpy())
    vals = plan.evaluate(pdf["prediction"].to_numpy(), measures)
    np.testing.assert_array_equal(got.index.to_numpy(), plan.qids)
    for m in measures:
        np.testing.assert_allclose(got[m].to_numpy(), vals[m], rtol=0, atol=1e-12)
        assert res.mean[m] == pytest.approx(vals[m].mean(), abs=1e-12)
    # weighted, skip-empty, pessimistic ties, string qids
    pdf2 = pdf.assign(qid="q" + pdf["qid"].astype(str))
    opts = dict(ties="pessimistic", empty="skip", gain="linear")
    res2 = rspark.evaluate(spark.createDataFrame(pdf2), ["ndcg@5"], weight="w", **opts)
    plan2 = QueryPlan(pdf2["label"].to_numpy(), pdf2["qid"].to_numpy())
    v2 = plan2.evaluate(pdf2["prediction"].to_numpy(), ["ndcg@5"], **opts)["ndcg@5"]
    qw = pdf2.groupby("qid")["w"].mean().reindex(plan2.qids).to_numpy()
    assert res2.mean["ndcg@5"] == pytest.approx(weighted_mean(v2, qw, plan2.n_queries),
                                                abs=1e-12)
    got2 = res2.per_query.toPandas().set_index("qid").sort_index()["ndcg@5"].to_numpy()
    np.testing.assert_allclose(got2, v2, rtol=0, atol=1e-12)  # NaN where skipped, too


def test_bad_input(spark):
    pdf = _pdf(n_queries=5)
    df = spark.createDataFrame(pdf)
    with pytest.raises(ValueError, match=r"score='score': no such column"):
        rspark.evaluate(df, "ndcg", score="score")
    with pytest.raises(ValueError, match=r"qid='query': no such column"):
        rspark.evaluate(df, "ndcg", qid="query")
    with pytest.raises(ValueError, match="unknown (metric|measure)"):
        rspark.evaluate(df, "ndgc")
    with pytest.raises(TypeError, match="pyspark.sql.DataFrame"):
        rspark.evaluate(pdf, "ndcg")
    for col, what in (("qid", r"column 'qid' \(qid\) has 1 null"),
                      ("label", r"column 'label' \(label\) has 1 null"),
                      ("prediction", r"column 'prediction' \(score\) has 1 NaN/null")):
        bad = pdf.astype({col: "float64"})
        bad.loc[4, col] = np.nan
        with pytest.raises(Exception, match=what + r".* in partition \d"):
            rspark.evaluate(spark.createDataFrame(bad), "ndcg")


def test_evaluator_params():
    Ev = rspark.RankingEvaluator
    for m in ("ndcg", "dcg", "cg", "ncg", "precision", "recall", "f1", "ap", "rr", "ndcg@10",
              "p@5", "map", "mrr"):
        assert Ev(metricName=m).isLargerBetter() is True
    ev = Ev(metricName="map@10", qidCol="query", labelCol="rel", predictionCol="score",
            weightCol="w", ties="pessimistic")
    cp = ev.copy({ev.metricName: "ndcg@5"})
    assert cp.getMetricName() == "ndcg@5" and ev.getMetricName() == "map@10"
    assert cp.getQidCol() == "query" and cp.getTies() == "pessimistic"
    back = pickle.loads(pickle.dumps(ev))
    assert back.getMetricName() == "map@10" and back.getOrDefault("weightCol") == "w"
    with pytest.raises(ValueError, match="unknown (metric|measure)"):
        Ev(metricName="ndgc@10")
    with pytest.raises(ValueError, match="ties"):
        Ev(ties="random")



def test_stable_ties_are_refused_before_the_job(spark):
    # "stable" follows row order, which the repartition by qid does not keep: the value
    # changed with the shuffle, silently
    df = spark.createDataFrame(_pdf(n_queries=4))
    for kw in ({"ties": "stable"}, {}):
        names = ["ndcg@5"] if kw else ["map", "nDCG(ties=stable)@5"]
        with pytest.raises(ValueError, match="repartition by qid does not keep"):
            rspark.evaluate(df, names, **kw)
    Ev = rspark.RankingEvaluator
    with pytest.raises(ValueError, match="repartition by qid does not keep"):
        Ev(metricName="ndcg@10", ties="stable")
    with pytest.raises(ValueError, match="repartition by qid does not keep"):
        Ev(metricName="nDCG(ties=stable)@10")
    with pytest.raises(ValueError, match="repartition by qid does not keep"):
        Ev(metricName="map").setTies("stable")
    ev = Ev(metricName="map")
    ev = ev.copy({ev.ties: "stable"})  # copy sets params unchecked
    assert ev.getTies() == "stable"
    with pytest.raises(ValueError, match="repartition by qid does not keep"):
        ev.evaluate(df)

def test_cross_validator_picks_best_by_core(spark, tmp_path):
    from pyspark.ml.feature import VectorAssembler
    from pyspark.ml.regression import LinearRegression
    from pyspark.ml.tuning import CrossValidator, ParamGridBuilder

    data = make_ranking_data(n_queries=40, min_docs=5, max_docs=15, n_features=4, n_discrete=4,
                             random_state=0)
    pdf = pd.DataFrame(data.X, columns=[f"f{i}" for i in range(data.X.shape[1])])
    pdf["label"] = data.y.astype(float)
    pdf["qid"] = data.qid
    pdf["fold"] = (data.qid % 2).astype(int)  # whole queries per fold
    feats = [c for c in pdf.columns if c.startswith("f") and c != "fold"]
    df = VectorAssembler(inputCols=feats, outputCol="features").transform(
        spark.createDataFrame(pdf))
    lr = LinearRegression(maxIter=5)
    grid = ParamGridBuilder().addGrid(lr.regParam, [0.0, 1e3]).build()
    ev = rspark.RankingEvaluator(metricName="ndcg@5")
    cv = CrossValidator(estimator=lr, estimatorParamMaps=grid, evaluator=ev, foldCol="fold",
                        numFolds=2, parallelism=1, collectSubModels=True)
    model = cv.fit(df)
    # recompute every fold with the core on the collected predictions of its sub-model
    ours = []
    for j in range(len(grid)):
        fold_vals = []
        for f in (0, 1):
            fitted = model.subModels[f][j]
            pred = fitted.transform(df.filter(df.fold == f)).select("qid", "label",
                                                                   "prediction").toPandas()
            plan = QueryPlan(pred["label"].to_numpy(), pred["qid"].to_numpy())
            fold_vals.append(plan.ndcg(pred["prediction"].to_numpy(), k=5).mean())
        ours.append(np.mean(fold_vals))
    np.testing.assert_allclose(model.avgMetrics, ours, rtol=0, atol=1e-9)
    best = int(np.argmax(ours))
    assert model.bestModel.getRegParam() == grid[best][lr.regParam]
    # the evaluator persists with the CrossValidator (DefaultParamsWritable)
    cv.write().overwrite().save(str(tmp_path / "cv"))
    loaded = CrossValidator.load(str(tmp_path / "cv"))
    assert loaded.getEvaluator().getMetricName() == "ndcg@5"


def test_timestamp_qids_and_dotted_column_names(spark):
    """A TimestampType (time-zone aware) qid column crashed: its ids came back as strings,
    which Arrow cannot put in the declared timestamp column; a column name with a dot
    (``q.id``) was read by Spark as a struct field. Both now give the core's values, and each
    query's id comes back as given."""
    pdf = _pdf(n_queries=12)
    stamps = pd.Timestamp("2024-01-01", tz="UTC") + pd.to_timedelta(pdf["qid"], unit="h")
    plan = QueryPlan(pdf["label"].to_numpy(), pdf["qid"].to_numpy())
    want = plan.evaluate(pdf["prediction"].to_numpy(), ["ndcg@5", "map"])
    frame = pdf.drop(columns="w").assign(qid=stamps).rename(
        columns={"qid": "q.id", "label": "rel.grade", "prediction": "s`core"})
    df = spark.createDataFrame(frame)
    res = rspark.evaluate(df, ["ndcg@5", "map"], qid="q.id", label="rel.grade", score="s`core")
    got = res.per_query.toPandas().sort_values("q.id")
    # Spark hands timestamps to pandas as naive local times: compare the instants in UTC
    back = pd.to_datetime(got["q.id"]).dt.tz_localize(
        spark.conf.get("spark.sql.session.timeZone")).dt.tz_convert("UTC")
    assert back.tolist() == sorted(set(stamps))
    for m in ("ndcg@5", "map"):
        np.testing.assert_allclose(got[m].to_numpy(), want[m], rtol=0, atol=1e-12)
        assert res.mean[m] == pytest.approx(want[m].mean(), abs=1e-12)


def test_column_collisions_are_named(spark):
    # a qid named like a measure's output, a role sharing another's column: Spark raised
    # AMBIGUOUS_REFERENCE or an AttributeError on 'dtype'
    pdf = _pdf(n_queries=5)
    from frame_collisions import collision_cases

    for frame, kw, match in collision_cases(pdf):
        with pytest.raises(ValueError, match=match):
            rspark.evaluate(spark.createDataFrame(frame), ["map"], **kw)
    evaluator = rspark.RankingEvaluator(metricName="map", qidCol="map")
    with pytest.raises(ValueError, match="is also the measure 'map'"):
        evaluator.evaluate(spark.createDataFrame(pdf.rename(columns={"qid": "map"})))


def test_names_differing_only_in_case_are_refused_before_the_job(spark):
    """Spark's column names ignore case (spark.sql.caseSensitive=false): ["ndcg@2", "nDCG@2"]
    and a qid column "RR" beside the measure "rr" ran the whole job, then stopped with
    AnalysisException [AMBIGUOUS_REFERENCE]. Each is a ValueError naming the argument now;
    with spark.sql.caseSensitive=true they are evaluated."""
    pdf = _pdf(n_queries=5)
    df = spark.createDataFrame(pdf)
    with pytest.raises(ValueError, match=r"measures 'ndcg@2' and 'nDCG@2' give output columns "
                                         r"that Spark .* cannot tell apart"):
        rspark.evaluate(df, ["ndcg@2", "nDCG@2"])
    renamed = spark.createDataFrame(pdf.rename(columns={"qid": "RR"}))
    with pytest.raises(ValueError, match=r"qid='RR' is also the output column 'rr' to Spark"):
        rspark.evaluate(renamed, ["rr"], qid="RR")
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        res = rspark.evaluate(renamed, ["rr"], qid="RR")
        assert np.isfinite(res.mean["rr"])
    finally:
        spark.conf.set("spark.sql.caseSensitive", "false")


def test_columns_named_alike_but_for_case_are_refused_before_the_job(spark):
    """A frame with columns "qid" and "QID" (or "prediction" and "Prediction") is one name to
    Spark (spark.sql.caseSensitive=false): evaluate stopped in its own select with Spark's
    AnalysisException [AMBIGUOUS_REFERENCE] instead of the documented ValueError naming the
    argument. Now that ValueError; with spark.sql.caseSensitive=true the frame is evaluated."""
    pdf = _pdf(n_queries=5)
    twin = spark.createDataFrame(pdf.assign(QID=pdf["qid"] + 100))
    with pytest.raises(ValueError, match=r"qid='qid': the Spark DataFrame has columns "
                                         r"\['qid', 'QID'\]"):
        rspark.evaluate(twin, ["rr"])
    with pytest.raises(ValueError, match=r"score='prediction'.*'Prediction'"):
        rspark.evaluate(spark.createDataFrame(pdf.assign(Prediction=0.0)), ["rr"])
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        res = rspark.evaluate(twin, ["rr"])
        plan = QueryPlan(pdf["label"].to_numpy(), pdf["qid"].to_numpy())
        want = plan.evaluate(pdf["prediction"].to_numpy(), ["rr"])["rr"]
        assert res.mean["rr"] == pytest.approx(float(np.mean(want)), abs=1e-12)
    finally:
        spark.conf.set("spark.sql.caseSensitive", "false")


def test_trailing_nul_ids_stay_apart_and_numpy_partition_counts(spark):
    """"a" and "a\\0" were one query when Spark put them in one partition (numpy's fixed-width
    strings drop trailing NULs) and two otherwise; num_partitions=np.int64(2) was refused."""
    pdf = pd.DataFrame({"qid": ["a", "a\x00", "a", "a\x00"], "label": [1.0, 0, 0, 1],
                        "prediction": [0.9, 0.8, 0.7, 0.6]})
    df = spark.createDataFrame(pdf)
    for n in (1, np.int64(2)):
        got = rspark.evaluate(df, ["ndcg"], num_partitions=n).per_query.toPandas()
        got = got.set_index("qid").sort_index()
        assert got.index.tolist() == ["a", "a\x00"], n
        np.testing.assert_allclose(got["ndcg"], [1.0, 1 / np.log2(3)])
    with pytest.raises(TypeError, match="num_partitions must be a positive int"):
        rspark.evaluate(df, ["ndcg"], num_partitions=2.0)
    with pytest.raises(ValueError, match="num_partitions must be a positive int; got 0"):
        rspark.evaluate(df, ["ndcg"], num_partitions=np.int64(0))


def test_worker_errors_are_raised_as_themselves(spark):
    """A ValueError / TypeError raised in a Python worker (null ids, text labels) reached the
    caller as Spark's PythonException, a traceback holding the message; now the error itself,
    naming the column and the partition, from evaluate and from RankingEvaluator."""
    pdf = _pdf(n_queries=5).astype({"qid": "float64"})
    pdf.loc[4, "qid"] = np.nan
    with pytest.raises(ValueError, match=r"^column 'qid' \(qid\) has 1 null value\(s\) in "
                                         r"partition \d; drop or fill them") as err:
        rspark.evaluate(spark.createDataFrame(pdf), "ndcg")
    assert type(err.value) is ValueError and "Traceback" not in str(err.value)
    text = _pdf(n_queries=5).astype({"label": str})
    with pytest.raises(TypeError, match=r"^columns label='label', score='prediction' in "
                                        r"partition \d: y_true must be numeric"):
        rspark.RankingEvaluator(metricName="map").evaluate(spark.createDataFrame(text))


def test_evaluator_metric_name_is_one_measure(spark):
    """metricName="ndcg_cut" (a trec_eval family: nine measures) was accepted and evaluate
    returned the first one's mean (ndcg_cut_5) without a word; now a ValueError naming
    metricName, when set and when a param map sets it."""
    Ev = rspark.RankingEvaluator
    with pytest.raises(ValueError, match=r"metricName='ndcg_cut' names 9 measures"):
        Ev(metricName="ndcg_cut")
    with pytest.raises(ValueError, match=r"metricName='success' names 3 measures"):
        Ev().setMetricName("success")
    ev = Ev(metricName="ndcg_cut_5")
    df = spark.createDataFrame(_pdf(n_queries=3))
    with pytest.raises(ValueError, match=r"metricName='ndcg_cut' names 9 measures"):
        ev.evaluate(df, {ev.metricName: "ndcg_cut"})
    with pytest.raises(ValueError, match=r"metricName='ndcg_cut' names 9 measures"):
        ev.copy({ev.metricName: "ndcg_cut"}).isLargerBetter()


def test_as_frame_and_none_columns_are_refused_before_the_job(spark):
    """as_frame=True reached QueryPlan.evaluate on the executors, whose qid-indexed frame was
    put beside the partition's rows by position (NaN or another query's values); qid=None
    (label=, score=) skipped the column checks and failed inside pyspark ("[NOT_EXPECTED_TYPE]
    Argument `key` should be int, slice or str"). Now TypeErrors naming the argument."""
    df = spark.createDataFrame(_pdf(n_queries=3))
    with pytest.raises(TypeError, match="as_frame is not an option here"):
        rspark.evaluate(df, ["ndcg"], as_frame=True)
    # an unknown keyword is a TypeError (the docstring called it a ValueError), before the job
    with pytest.raises(TypeError, match="unexpected keyword argument 'gian'"):
        rspark.evaluate(df, ["ndcg"], gian="linear")
    with pytest.raises(ValueError, match="empty must be one of"):
        rspark.evaluate(df, ["ndcg"], empty="zero")
    for arg in ("qid", "label", "score"):
        with pytest.raises(TypeError, match=f"^{arg} must be a column name \\(str\\); got None"):
            rspark.evaluate(df, ["ndcg"], **{arg: None})
