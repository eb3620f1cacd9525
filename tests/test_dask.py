"""rankmetrics.dask: evaluate == core; DaskLGBMRanker's global metric and early stopping.

One LocalCluster (2 worker processes, 1 thread each) serves the whole module; every wait has a
timeout. About 30-40 s on a loaded 2-core machine.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _extras import require

from rankmetrics import QueryPlan
from rankmetrics.core.plan import weighted_mean
from rankmetrics.datasets import make_benchmark_scores, make_ranking_data

dd = require("dask.dataframe")
distributed = require("distributed")
rdask = require("rankmetrics.dask")

MEASURES = ["ndcg@10", "ndcg", "map", "p@5", "rr@3", "dcg@5"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", memory_limit="2GiB",
                                       silence_logs=40)
    c = distributed.Client(cluster, timeout=60)
    try:
        yield c
    finally:
        c.close(timeout=30)
        cluster.close(timeout=30)


def _frame(n_queries=60, seed=0, weights=False):
    y, s, q = make_benchmark_scores(n_queries=n_queries, min_docs=1, max_docs=30,
                                    tie_fraction=0.5, random_state=seed)
    pdf = pd.DataFrame({"qid": q, "label": y, "score": s})
    if weights:
        rng = np.random.default_rng(seed)
        qw = rng.uniform(0.5, 2.0, size=q.max() + 1)
        pdf["w"] = qw[q]
    return pdf


def _core(pdf, measures, weight=None, **kw):
    plan = QueryPlan(pdf["label"].to_numpy(), pdf["qid"].to_numpy())
    vals = plan.evaluate(pdf["score"].to_numpy(), measures, **kw)
    qw = None
    if weight is not None:
        qw = pdf.groupby("qid")[weight].mean().reindex(plan.qids).to_numpy()
    return plan, vals, {m: weighted_mean(v, qw, plan.n_queries) for m, v in vals.items()}


def _check(res, pdf, measures, weight=None, **kw):
    plan, vals, means = _core(pdf, measures, weight, **kw)
    got = res.per_query.compute().sort_index()
    assert list(got.columns) == measures
    np.testing.assert_array_equal(got.index.to_numpy(), plan.qids)
    for m in measures:
        np.testing.assert_allclose(got[m].to_numpy(), vals[m], rtol=0, atol=1e-12)
        assert res.mean[m] == pytest.approx(means[m], abs=1e-12)


# ----------------------------------------------------------------------------------- evaluate
def test_evaluate_split_queries_shuffled(client):
    pdf = _frame().sample(frac=1.0, random_state=1)  # queries scattered over partitions
    res = rdask.evaluate(dd.from_pandas(pdf, npartitions=4), MEASURES)
    assert res.params["aligned"] is False
    _check(res, pdf, MEASURES)


def test_evaluate_aligned_detected_and_declared(client):
    pdf = _frame(seed=2)
    ddf = dd.from_pandas(pdf.set_index("qid"), npartitions=3, sort=True).reset_index()
    res = rdask.evaluate(ddf, MEASURES)
    assert res.params["aligned"] is True
    _check(res, pdf, MEASURES)
    res2 = rdask.evaluate(ddf, MEASURES, aligned=True)
    _check(res2, pdf, MEASURES)
    res3 = rdask.evaluate(ddf, MEASURES, aligned=False)
    _check(res3, pdf, MEASURES)


def test_evaluate_qid_index_weights_and_options(client):
    pdf = _frame(seed=3, weights=True)
    ddf = dd.from_pandas(pdf.set_index("qid"), npartitions=3, sort=True)
    opts = dict(ties="pessimistic", gain="linear", empty="skip")
    res = rdask.evaluate(ddf, ["ndcg@5", "ap"], weight="w", **opts)
    assert res.params["aligned"] is True
    _check(res, pdf, ["ndcg@5", "ap"], weight="w", **opts)
    # string qids, shuffled
    pdf2 = pdf.assign(qid="q" + pdf["qid"].astype(str)).sample(frac=1.0, random_state=0)
    res2 = rdask.evaluate(dd.from_pandas(pdf2, npartitions=3), ["ndcg@5"], weight="w", **opts)
    _check(res2, pdf2, ["ndcg@5"], weight="w", **opts)


# ---------------------------------------------------------------------------------- bad input
def test_evaluate_bad_input(client):
    pdf = _frame(n_queries=10)
    ddf = dd.from_pandas(pdf, npartitions=2)
    with pytest.raises(ValueError, match=r"score='pred': no such column"):
        rdask.evaluate(ddf, "ndcg", score="pred")
    with pytest.raises(ValueError, match=r"weight='w': no such column"):
        rdask.evaluate(ddf, "ndcg", weight="w")
    with pytest.raises(ValueError, match="unknown (metric|measure)"):
        rdask.evaluate(ddf, "ndgc@10")
    with pytest.raises(TypeError, match="dask.dataframe.DataFrame"):
        rdask.evaluate(pdf, "ndcg")
    with pytest.raises(TypeError, match="aligned"):
        rdask.evaluate(ddf, "ndcg", aligned="yes")
    for col, what in (("qid", r"column 'qid' \(qid\) has 1 null"),
                      ("label", r"column 'label' \(label\) has 1 null"),
                      ("score", r"column 'score' \(score\) has 1 NaN/null")):
        bad = pdf.astype({col: "float64"})
        bad.loc[7, col] = np.nan
        with pytest.raises(ValueError, match=what + r".* in partition \d") as err:
            rdask.evaluate(dd.from_pandas(bad, npartitions=2), "ndcg", aligned=True)
        if col != "qid":  # the query id as written, not numpy's repr "np.int64(..)"
            assert f"(qid {pdf.loc[7, 'qid'].item()!r})" in str(err.value)
    inf = pdf.copy()
    inf.loc[3, "score"] = np.inf
    with pytest.raises(ValueError, match=r"score='score' in partition 0: .*(inf|finite)"):
        rdask.evaluate(dd.from_pandas(inf, npartitions=2), "ndcg", aligned=True)
    neg = pdf.copy()
    neg.loc[3, "label"] = -1
    with pytest.raises(ValueError, match=r"label='label'.*partition 0"):
        rdask.evaluate(dd.from_pandas(neg, npartitions=2), "ndcg", aligned=True)
    split = pdf.sample(frac=1.0, random_state=0)
    with pytest.raises(ValueError, match=r"aligned=True but query \d+ \(column 'qid'\) is split "
                                         r"across partitions \[\d, \d\]"):
        rdask.evaluate(dd.from_pandas(split, npartitions=2), "ndcg", aligned=True)


# ----------------------------------------------------------------------- DaskLGBMRanker metric
def _scatter_ranker_data(client, data, n_parts=2):
    """Rows split query-aligned into one part per worker, each part pinned to its worker."""
    import dask.array as da

    workers = sorted(client.scheduler_info()["workers"])
    assert len(workers) == 2
    bounds = np.r_[0, np.cumsum(data.group_sizes)]
    cut_q = len(data.group_sizes) // n_parts
    qcuts = [0, cut_q, len(data.group_sizes)]
    X_parts, y_parts, g_parts = [], [], []
    for i in range(n_parts):
        a, b = bounds[qcuts[i]], bounds[qcuts[i + 1]]
        w = [workers[i % 2]]
        fx, fy, fg = client.scatter([data.X[a:b], data.y[a:b].astype(float),
                                     data.group_sizes[qcuts[i]:qcuts[i + 1]]], workers=w)
        X_parts.append(da.from_delayed(fx, shape=(b - a, data.X.shape[1]), dtype=data.X.dtype))
        y_parts.append(da.from_delayed(fy, shape=(b - a,), dtype=float))
        g_parts.append(da.from_delayed(fg, shape=(qcuts[i + 1] - qcuts[i],), dtype=np.int64))
    return da.concatenate(X_parts), da.concatenate(y_parts), da.concatenate(g_parts)


class _Recorder:
    """Per worker and round: the global value after the sync (order 25, after recording)."""

    def __init__(self, name, queue):
        self.name, self.queue = name, queue
        self.order, self.before_iteration = 25, False  # instance attributes: see lgb.train

    def __call__(self, env):
        from distributed import Queue, get_client, get_worker

        vals = [r[2] for r in env.evaluation_result_list if r[1] == self.name]
        Queue(self.queue, client=get_client()).put([get_worker().address, env.iteration, vals])


def _drain(client, name):
    q = distributed.Queue(name, client=client)
    items = q.get(batch=True, timeout=10)
    out: dict[str, dict[int, list[float]]] = {}
    for addr, it, vals in items:
        out.setdefault(addr, {})[it] = list(vals)
    return out


def _fit(client, stopping_rounds=None, n_estimators=12, seed=0, queue="rec"):
    lgb_dask = require("lightgbm.dask")
    train = make_ranking_data(n_queries=40, min_docs=5, max_docs=20, random_state=seed)
    valid = make_ranking_data(n_queries=30, min_docs=5, max_docs=20, random_state=seed + 1)
    Xt, yt, gt = _scatter_ranker_data(client, train)
    Xv, yv, gv = _scatter_ranker_data(client, valid)
    metric = rdask.make_eval_metric("ndcg", k=10, prefix="tie_", timeout=60)
    callbacks = [metric.sync, _Recorder("tie_ndcg@10", queue)]
    if stopping_rounds:
        callbacks.append(rdask.early_stopping(stopping_rounds, metric, verbose=False))
    model = lgb_dask.DaskLGBMRanker(n_estimators=n_estimators, num_leaves=7, learning_rate=0.3,
                                    min_child_samples=5, eval_at=(10,), verbose=-1,
                                    random_state=seed, time_out=2)
    model.fit(Xt, yt, group=gt, eval_set=[(Xv, yv)], eval_group=[gv], eval_metric=metric,
              callbacks=callbacks)
    return model, valid, _drain(client, queue)


def test_dask_lgbm_metric_is_global_every_round(client):
    model, valid, per_worker = _fit(client, queue="rec-global")
    curve = model.evals_result_["valid_0"]["tie_ndcg@10"]
    assert len(curve) == 12
    assert len(per_worker) == 2  # both workers trained and reported
    booster = model.booster_
    plan = QueryPlan(valid.y, valid.qid)
    for it in range(12):
        preds = booster.predict(valid.X, num_iteration=it + 1, raw_score=True)
        core = float(np.mean(plan.ndcg(preds, k=10, empty=1.0)))
        assert curve[it] == pytest.approx(core, abs=1e-12)
        vals = [per_worker[w][it] for w in sorted(per_worker)]
        assert vals[0] == vals[1] == [curve[it]]  # identical on every worker, bit for bit
    # LightGBM's own per-worker metric is local: the two workers disagree
    assert "ndcg@10" in model.evals_result_["valid_0"]


def test_dask_lgbm_early_stopping_same_round_on_every_worker(client):
    model, _, per_worker = _fit(client, stopping_rounds=3, n_estimators=60, seed=5,
                                queue="rec-stop")
    curve = np.array(model.evals_result_["valid_0"]["tie_ndcg@10"])
    assert len(curve) < 60, "expected an early stop"
    last = {w: max(rounds) for w, rounds in per_worker.items()}
    assert len(set(last.values())) == 1 and len(last) == 2  # every worker stopped at once
    assert next(iter(last.values())) == len(curve) - 1
    best = int(np.argmax(curve))  # first maximum: a later equal value is no improvement
    assert model.best_iteration_ == best + 1
    assert model.best_score_["valid_0"]["tie_ndcg@10"] == curve[best]
    assert len(curve) - 1 - best == 3


def _parts_on(client, data, owners):
    """Query-aligned chunks of ``data``, chunk i pinned to worker owners[i]."""
    import dask.array as da

    workers = sorted(client.scheduler_info()["workers"])
    bounds = np.r_[0, np.cumsum(data.group_sizes)]
    qc = np.linspace(0, len(data.group_sizes), len(owners) + 1).astype(int)
    X, y, g = [], [], []
    for i, w in enumerate(owners):
        a, b = bounds[qc[i]], bounds[qc[i + 1]]
        fx, fy, fg = client.scatter([data.X[a:b], data.y[a:b].astype(float),
                                     data.group_sizes[qc[i]:qc[i + 1]]], workers=[workers[w]])
        X.append(da.from_delayed(fx, shape=(b - a, data.X.shape[1]), dtype=data.X.dtype))
        y.append(da.from_delayed(fy, shape=(b - a,), dtype=float))
        g.append(da.from_delayed(fg, shape=(qc[i + 1] - qc[i],), dtype=np.int64))
    return da.concatenate(X), da.concatenate(y), da.concatenate(g)


def test_eval_set_missing_on_a_worker_is_not_merged_with_another_set(client):
    # Without eval_names, LightGBM names a worker's local sets valid_0, valid_1, ... by local
    # position: the worker without rows of set 0 called its part of set 1 "valid_0", and the
    # sums were merged by name (valid_0 0.5443 instead of 0.5452, valid_1 0.4482 instead of
    # 0.4957). Now a ValueError naming eval_names; with eval_names every set equals the core.
    lgb_dask = require("lightgbm.dask")
    train = make_ranking_data(n_queries=40, min_docs=5, max_docs=20, random_state=0)
    sets = [make_ranking_data(n_queries=20 + 10 * j, min_docs=5, max_docs=20,
                              random_state=1 + j) for j in range(2)]
    Xt, yt, gt = _parts_on(client, train, [0, 1])
    X0, y0, g0 = _parts_on(client, sets[0], [0])  # set 0 only on the first worker
    X1, y1, g1 = _parts_on(client, sets[1], [0, 1])

    def fit(names):
        metric = rdask.make_eval_metric("ndcg", k=10, prefix="tie_", timeout=30)
        model = lgb_dask.DaskLGBMRanker(n_estimators=3, num_leaves=7, learning_rate=0.3,
                                        min_child_samples=5, verbose=-1, time_out=2)
        model.fit(Xt, yt, group=gt, eval_set=[(X0, y0), (X1, y1)], eval_group=[g0, g1],
                  eval_names=names, eval_metric=metric, callbacks=[metric.sync])
        return model

    with pytest.raises(ValueError, match=r"different evaluation sets.*pass eval_names"):
        fit(None)
    model = fit(["a", "b"])
    for name, data in zip(["a", "b"], sets, strict=True):
        plan = QueryPlan(data.y, data.qid)
        curve = model.evals_result_[name]["tie_ndcg@10"]
        for it in range(3):
            preds = model.booster_.predict(data.X, num_iteration=it + 1, raw_score=True)
            core = float(np.mean(plan.ndcg(preds, k=10, empty=1.0)))
            assert curve[it] == pytest.approx(core, abs=1e-12)


def test_sync_times_out_instead_of_hanging(client):
    metric = rdask.make_eval_metric("ndcg", k=5, timeout=1.0)
    sync = metric.sync

    def lonely():
        from distributed import get_worker

        from rankmetrics import dask as rd

        host = get_worker().address.rsplit(":", 1)[0].split("//")[-1]

        class Env:
            params = {"num_machines": 2, "machines": f"{host}:1,{host}:2",
                      "local_listen_port": 1}
            iteration = 0
            evaluation_result_list: list = []

        rd._PENDING.pop(rd._key(sync.token), None)
        try:
            sync(Env())
        except TimeoutError as exc:
            return str(exc)
        return "no timeout"

    msg = client.submit(lonely, pure=False).result(timeout=60)
    assert "round 0: no per-query sums from workers [1] within 1 s" in msg


def test_missing_sync_is_an_error():
    metric = rdask.make_eval_metric("ndcg", k=3)
    y, s, g = np.array([2, 0, 1, 0]), np.array([0.5, 0.5, 0.1, 0.2]), np.array([2, 2])
    metric(y, s, None, g)
    with pytest.raises(RuntimeError, match=r"callbacks=\[metric.sync"):
        metric(y, s, None, g)
    with pytest.raises(TypeError, match="make_eval_metric"):
        rdask.early_stopping(3, object())
    with pytest.raises(ValueError, match="not reported"):
        rdask.early_stopping(3, metric, name="map")
    with pytest.raises(ValueError, match="timeout"):
        rdask.make_eval_metric("ndcg", timeout=0)
    with pytest.raises(ValueError, match="timeout must be within float64"):
        rdask.make_eval_metric("ndcg", timeout=2**2000)  # OverflowError before


def test_xgboost_dask_train_metric_is_global(client):
    xgb_dask = require("xgboost.dask")
    import dask.array as da

    train = make_ranking_data(n_queries=40, min_docs=5, max_docs=20, random_state=0)
    valid = make_ranking_data(n_queries=30, min_docs=5, max_docs=20, random_state=1)
    Xt, yt, _ = _scatter_ranker_data(client, train)
    Xv, yv, _ = _scatter_ranker_data(client, valid)
    qt = da.from_array(train.qid, chunks=Xt.chunks[0])
    qv = da.from_array(valid.qid, chunks=Xv.chunks[0])
    dtrain = xgb_dask.DaskDMatrix(client, Xt, yt, qid=qt)
    dvalid = xgb_dask.DaskDMatrix(client, Xv, yv, qid=qv)
    metric = rdask.make_xgboost_metric("ndcg", k=10, prefix="tie_")
    out = xgb_dask.train(client, {"objective": "rank:ndcg", "max_depth": 3, "eta": 0.3,
                                  "disable_default_eval_metric": 1, "nthread": 1},
                         dtrain, num_boost_round=8, evals=[(dvalid, "valid")],
                         custom_metric=metric, verbose_eval=False)
    curve = out["history"]["valid"]["tie_ndcg@10"]
    assert len(curve) == 8
    booster = out["booster"]
    import xgboost

    plan = QueryPlan(valid.y, valid.qid)
    for it in range(8):
        preds = booster.predict(xgboost.DMatrix(valid.X), iteration_range=(0, it + 1))
        core = float(np.mean(plan.ndcg(preds, k=10, empty=1.0)))
        assert curve[it] == pytest.approx(core, abs=1e-6)  # XGBoost logs "%f"


def test_dask_metric_factories_take_their_lenders_defaults():
    """The Dask factories borrow LightGBM's and XGBoost's metric names: with their defaults
    they gave AP / R and k=10 (and, for XGBoost, precision over k with empty queries at 1),
    not LightGBM's / XGBoost's map@k (over min(k, R)) and pre@k (over min(k, n), empty 0).
    Their defaults are now those of rankmetrics.lightgbm / rankmetrics.xgboost, and the XGBoost
    metric equals XGBoost's built-in metrics on a DMatrix without ties."""
    import inspect

    import rankmetrics.lightgbm as rlgb
    import rankmetrics.xgboost as rxgb

    def defaults(f, skip=()):
        return {n: p.default for n, p in inspect.signature(f).parameters.items()
                if n not in skip}

    lgb_own = defaults(rlgb.make_eval_metric, ("bounds", "cache_size"))
    assert defaults(rdask.make_eval_metric, ("timeout",)) == lgb_own
    xgb_own = defaults(rxgb.make_custom_metric, ("bounds", "cache_size"))
    assert defaults(rdask.make_xgboost_metric) == xgb_own

    xgboost = require("xgboost")
    rng = np.random.default_rng(3)
    sizes = np.array([12, 12, 12, 12, 3])
    qid = np.repeat(np.arange(sizes.size), sizes)
    y = rng.integers(0, 2, sizes.sum()).astype(float)
    y[36:48] = 0.0  # a query without relevant rows
    s = rng.permutation(sizes.sum()).astype(float)  # no ties
    dm = xgboost.DMatrix(np.zeros((sizes.sum(), 1)), label=y, qid=qid)
    ours = dict(rdask.make_xgboost_metric(["map@3", "precision@3", "ndcg@3"])(s, dm))
    assert ours == dict(rxgb.make_custom_metric(["map@3", "precision@3", "ndcg@3"])(s, dm))
    theirs = rxgb.builtin_metric(y, s, qid, ["map@3", "pre@3", "ndcg@3"])
    for mine, lender in [("map@3", "map@3"), ("precision@3", "pre@3"), ("ndcg@3", "ndcg@3")]:
        assert ours[mine] == pytest.approx(theirs[lender], abs=1e-12), mine


@pytest.mark.parametrize("ids", [[1, 1, 1.0, 1.0], [1, 1, "1", "1"]])
def test_object_qids_of_mixed_types_raise_instead_of_merging_or_splitting(ids):
    """An object qid column (Dask keeps one with ``dataframe.convert-string`` off) was turned
    into strings: 1 and 1.0 became two queries, 1 and "1" one. Now a ValueError / TypeError
    naming the column and partition; one-type object ids still work."""
    import dask

    pdf = pd.DataFrame({"qid": pd.Series(ids, dtype=object), "label": [1, 0, 0, 1],
                        "score": [0.9, 0.1, 0.5, 0.3]})
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(pdf, npartitions=1)
        assert ddf["qid"].dtype == object
        # aligned: evaluated in place (Dask's own shuffle cannot move mixed object ids)
        with pytest.raises((ValueError, TypeError), match=r"qid='qid' in partition 0: qid"):
            rdask.evaluate(ddf, "ndcg", aligned=True)
        same = pdf.assign(qid=pd.Series([7, 7, 8, 8], dtype=object))
        got = rdask.evaluate(dd.from_pandas(same, npartitions=1), "ndcg",
                             aligned=True).mean["ndcg"]
    assert got == pytest.approx(float(np.mean(QueryPlan(same["label"], [7, 7, 8, 8]).ndcg(
        same["score"].to_numpy()))), abs=1e-12)


def test_text_labels_and_weights_take_the_cores_rule():
    """String labels ("2") and weights were parsed as numbers (the column cast to float64),
    where the core refuses text; now the core's TypeError, naming the column and partition."""
    pdf = pd.DataFrame({"qid": [1, 1, 2, 2], "label": ["1", "0", "0", "2"],
                        "score": [0.9, 0.1, 0.5, 0.3], "w": [1.0, 1.0, 2.0, 2.0]})
    ddf = dd.from_pandas(pdf, npartitions=1)
    with pytest.raises(TypeError, match=r"label='label'.*y_true must be numeric"):
        rdask.evaluate(ddf, "ndcg", aligned=True)
    texted = pdf.assign(label=[1, 0, 0, 2], w=["1", "1", "2", "2"])
    with pytest.raises(TypeError, match=r"column 'w' \(weight\).* in partition 0"):
        rdask.evaluate(dd.from_pandas(texted, npartitions=1), "ndcg", weight="w", aligned=True)


def test_big_endian_columns_read_as_native_ones(client):
    """Big-endian qid, label, score or weight columns (np.dtype('>f8') in pandas) crashed in
    pandas' unique / shuffle ("Big-endian buffer not supported on little-endian compiler",
    naming no column); they are now widened to native order and give the core's values."""
    q = np.array([1, 1, 2, 2, 3, 3])
    y = np.array([1, 0, 1, 0, 2, 1])
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.5])
    want = QueryPlan(y, q).evaluate(s, ["ndcg", "rr"])
    pdf = pd.DataFrame({"qid": q.astype(">i8"), "label": y.astype(">i4"),
                        "score": s.astype(">f8"), "w": np.ones(6, ">f4")})
    for aligned in (None, False):
        res = rdask.evaluate(dd.from_pandas(pdf, npartitions=2), ["ndcg", "rr"], weight="w",
                             aligned=aligned)
        got = res.per_query.compute().sort_index()
        np.testing.assert_allclose(got["ndcg"].to_numpy(), want["ndcg"], rtol=1e-15)
        assert res.mean["rr"] == pytest.approx(want["rr"].mean(), rel=1e-15)


def test_one_measure_object_and_stable_ties_of_split_queries():
    """A single measure object was refused ("must be a name ... or a list"); ties="stable"
    on a query split across partitions followed the shuffled row order, silently another
    value than the core's (0.8262 against 0.5213). Now accepted / a ValueError; stable ties
    on whole queries keep the core's value."""
    import dask

    from rankmetrics.measures import nDCG

    df = pd.DataFrame({"qid": [0, 0, 1, 1, 1, 1], "label": [0, 0, 0, 2, 0, 1],
                       "score": [1.0, 0.0, 1.0, 1.0, 1.0, 0.0]})
    plan = QueryPlan(df["label"], df["qid"])
    with dask.config.set(scheduler="synchronous"):
        one = rdask.evaluate(dd.from_pandas(df, npartitions=1), nDCG@2)
        assert one.mean["nDCG@2"] == pytest.approx(float(np.mean(plan.ndcg(df["score"], k=2))))
        split = dd.from_pandas(df, npartitions=2)
        for kw in ({"ties": "stable"}, {}):
            name = "ndcg@2" if kw else "nDCG(ties=stable)@2"
            with pytest.raises(ValueError, match="ties='stable' follows row order"):
                rdask.evaluate(split, name, **kw)
        whole = rdask.evaluate(dd.from_pandas(df, npartitions=1), "ndcg@2", ties="stable")
    assert whole.mean["ndcg@2"] == pytest.approx(
        float(np.mean(plan.ndcg(df["score"], k=2, ties="stable"))), abs=1e-12)


def test_column_collisions_are_named():
    # these crashed with "Index data must be 1-dimensional", "qid must be None when y_true is
    # 2-D" or "got shape (5, 2)"; the message now names the argument and the column
    import dask
    import pandas as pd
    from frame_collisions import collision_cases

    pdf = pd.DataFrame({"qid": [1, 1, 1, 2, 2], "label": [2, 0, 1, 0, 1],
                        "score": [0.9, 0.3, 0.5, 0.2, 0.8]})
    cases = [*collision_cases(pdf),
             (pd.concat([pdf, pdf[["score"]]], axis=1), {}, "has 2 columns named 'score'")]
    with dask.config.set(scheduler="synchronous"):
        for frame, kw, match in cases:
            with pytest.raises(ValueError, match=match):
                rdask.evaluate(dd.from_pandas(frame, npartitions=1), ["map"], **kw)
        ok = rdask.evaluate(dd.from_pandas(pdf, npartitions=1), ["map"]).mean["map"]
    assert ok == pytest.approx(np.mean(QueryPlan(pdf["label"], pdf["qid"]).evaluate(
        pdf["score"], ["map"])["map"]))


def test_a_name_is_not_matched_to_a_column_named_by_a_number():
    """Columns named 0, 1, 2 (pandas' default names) passed the check for qid="0",
    label="1", score="2" (names were compared as str(column)), then the selection crashed
    with KeyError "None of [Index(['0', '1', '2'])] are in the [columns]". Now the
    documented ValueError naming the argument, the columns and the fix."""
    import pandas as pd

    pdf = pd.DataFrame({0: [1, 1, 2, 2], 1: [1, 0, 0, 1], 2: [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(ValueError, match=r"qid='0': no such column .* columns are \[0, 1, 2\]; "
                                         r"a column whose name is not a string"):
        rdask.evaluate(dd.from_pandas(pdf, npartitions=1), ["map"], qid="0", label="1",
                       score="2")
    named = pdf.rename(columns=str)
    got = rdask.evaluate(dd.from_pandas(named, npartitions=1), ["map"], qid="0", label="1",
                         score="2").mean["map"]
    want = QueryPlan(named["1"].to_numpy(), named["0"].to_numpy()).evaluate(
        named["2"].to_numpy(), ["map"])["map"]
    assert got == pytest.approx(float(np.mean(want)), abs=1e-12)


def test_a_gains_table_need_only_cover_the_datas_labels():
    """gain={0: 0, 2: 3} on labels 0 and 2 (the core: nDCG 0.9599) was refused before any
    task ran, "gain mapping has no weight for label(s) [1.0]": the driver's check of the
    options evaluated a made-up query of labels 1 and 0. It now probes with a label of the
    table, so the value equals the core's; a table covering none of the data still fails."""
    import dask
    import pandas as pd

    pdf = pd.DataFrame({"qid": [1, 1, 1, 2, 2], "label": [2, 0, 2, 0, 2],
                        "score": [0.1, 0.2, 0.3, 0.4, 0.5]})
    table = {0: 0.0, 2: 3.0}
    want = QueryPlan(pdf["label"].to_numpy(), pdf["qid"].to_numpy()).evaluate(
        pdf["score"].to_numpy(), ["ndcg", "dcg@2"], gain=table)
    with dask.config.set(scheduler="synchronous"):
        got = rdask.evaluate(dd.from_pandas(pdf, npartitions=2), ["ndcg", "dcg@2"],
                             gain=table).mean
        for m in ("ndcg", "dcg@2"):
            assert got[m] == pytest.approx(float(np.mean(want[m])), abs=1e-12)
        with pytest.raises(ValueError, match="gain mapping has no weight for label"):
            rdask.evaluate(dd.from_pandas(pdf, npartitions=2), ["ndcg"], gain={0: 0.0, 1: 1.0})


@pytest.mark.parametrize("aligned", [1, 1.0, "yes"])
def test_aligned_must_be_a_bool(aligned):
    """aligned=1 passed the check (1 == True) but not ``aligned is True``: no shuffle and no
    split check, each part of a split query scored as a query (mean 0.5 for 0.6309)."""
    pdf = pd.DataFrame({"qid": [1, 1, 2, 2], "label": [0, 1, 1, 0], "score": [0.9, 0.1, 0.5, 0.3]})
    with pytest.raises(TypeError, match="aligned must be None, True or False"):
        rdask.evaluate(dd.from_pandas(pdf, npartitions=2), "ndcg", aligned=aligned)


def test_numpy_true_is_aligned_true():
    import dask

    pdf = pd.DataFrame({"qid": [1, 1, 2, 2], "label": [0, 1, 1, 0], "score": [0.9, 0.1, 0.5, 0.3]})
    split = dd.from_pandas(pdf, npartitions=1).repartition(divisions=[0, 1, 3])
    with dask.config.set(scheduler="synchronous"), \
            pytest.raises(ValueError, match="aligned=True but query 1"):
        rdask.evaluate(split, "ndcg", aligned=np.True_)


@pytest.mark.parametrize("npartitions", [1, 2, 3, 4])
def test_string_ids_differing_by_trailing_nuls_do_not_depend_on_partitioning(client,
                                                                              npartitions):
    """numpy's fixed-width strings dropped the trailing NUL: "a" and "a\\0" were one query
    in one partition and two in several."""
    pdf = pd.DataFrame({"qid": ["a", "a\x00", "a", "a\x00"], "label": [1, 0, 0, 1],
                        "score": [0.9, 0.8, 0.7, 0.6]})
    res = rdask.evaluate(dd.from_pandas(pdf, npartitions=npartitions), "ndcg")
    got = res.per_query.compute().sort_index()
    assert got.index.tolist() == ["a", "a\x00"]
    np.testing.assert_allclose(got["ndcg"], [1.0, 1 / np.log2(3)])


def test_object_ids_are_checked_across_partitions_and_float16_ids_widen(client):
    """1 in one partition and 1.0 in another (object column) were two queries where one
    partition raised; equal tz-aware timestamps of two zones were split as their strings
    differ. Both now raise as in one partition; a float16 qid crashed in pandas' set_index."""
    import dask

    ids = [[1, 1, 1.0, 1.0],
           [pd.Timestamp("2020-01-01 12:00", tz="UTC")] * 2
           + [pd.Timestamp("2020-01-01 13:00", tz="Europe/Paris")] * 2]
    for qid in ids:
        pdf = pd.DataFrame({"qid": pd.Series(qid, dtype=object), "label": [1, 0, 0, 1],
                            "score": [0.9, 0.1, 0.5, 0.3]})
        with dask.config.set({"dataframe.convert-string": False}):
            ddf = dd.from_pandas(pdf, npartitions=2)
            assert ddf["qid"].dtype == object
            for aligned in (None, True, False):
                with pytest.raises(ValueError, match="would become the different ids"):
                    rdask.evaluate(ddf, "ndcg", aligned=aligned)
    pdf = pd.DataFrame({"qid": np.array([1, 2, 1, 2], np.float16), "label": [1, 0, 0, 1],
                        "score": [0.2, 0.1, 0.3, 0.4]})
    res = rdask.evaluate(dd.from_pandas(pdf, npartitions=2), "ndcg@3")  # split: shuffled
    plan = QueryPlan(pdf["label"].to_numpy(), pdf["qid"].to_numpy())
    assert res.mean["ndcg@3"] == pytest.approx(float(plan.ndcg(pdf["score"].to_numpy(),
                                                               k=3).mean()))


def test_per_query_index_keeps_the_qid_dtype():
    """int8 ids came back as an int64 index in the declared meta and in every partition whose
    ids were evenly spaced (pandas 3's set_index makes a RangeIndex of them) and int8 in the
    others: the dtype depended on the partitioning. Now the qid column's dtype everywhere."""
    import dask

    for dtype in ("int8", "int16", "int32", "uint8", "Int64"):
        pdf = pd.DataFrame({"qid": pd.array([1, 1, 2, 2, 4, 4], dtype=dtype),
                            "label": [1, 0, 0, 1, 1, 1], "score": [0.9, 0.1, 0.5, 0.3, 0.2, 0.4]})
        with dask.config.set(scheduler="synchronous"):
            for n in (1, 3):
                res = rdask.evaluate(dd.from_pandas(pdf, npartitions=n), ["ndcg"])
                assert res.per_query.index.dtype == dtype, (dtype, n)
                parts = dask.compute(*res.per_query.to_delayed())
                assert [p.index.dtype for p in parts] == [pd.Series(pdf["qid"]).dtype] * n
                got = res.per_query.compute().sort_index()
                assert got.index.dtype == dtype
                assert got.index.tolist() == [1, 2, 4]


def test_split_query_under_known_divisions_names_the_divisions(client):
    """A qid index whose known divisions were set by hand (from_delayed) is trusted as
    aligned; a query found split then said "aligned=True but ...; pass aligned=None", though
    the caller had passed aligned=None. Now it names the divisions and aligned=False, which
    does give the core's value."""
    import dask

    a = pd.DataFrame({"label": [1.0, 0, 1], "score": [0.3, 0.2, 0.1]},
                     index=pd.Index([1, 1, 2], name="qid"))
    b = pd.DataFrame({"label": [0.0, 1], "score": [0.5, 0.4]}, index=pd.Index([2, 3], name="qid"))
    ddf = dd.from_delayed([dask.delayed(a), dask.delayed(b)], meta=a.iloc[:0],
                          divisions=[1, 2, 3])
    with pytest.raises(ValueError, match=r"^the known divisions of the qid index 'qid' say "
                                         r"each query lies in one partition, but query 2 .*"
                                         r"\[0, 1\] .*pass aligned=False to shuffle"):
        rdask.evaluate(ddf, "ndcg")
    got = rdask.evaluate(ddf, "ndcg", aligned=False).mean["ndcg"]
    rows = pd.concat([a, b]).reset_index()
    assert got == pytest.approx(float(np.mean(QueryPlan(rows["label"], rows["qid"]).ndcg(
        rows["score"].to_numpy()))), abs=1e-12)


def test_as_frame_is_refused():
    """options={"as_frame": True} reached QueryPlan.evaluate, whose frame (indexed by qid) was
    put beside each partition's rows by position: every value NaN for ids 5, 7, 9, and values
    shifted to other queries for ids 1, 2, 3 -- silently. Now a TypeError naming as_frame."""
    pdf = pd.DataFrame({"qid": [1, 1, 2, 2, 3, 3], "label": [1, 0, 0, 1, 1, 1],
                        "score": [0.9, 0.1, 0.5, 0.3, 0.2, 0.4]})
    for flag in (True, False):
        with pytest.raises(TypeError, match="as_frame is not an option here"):
            rdask.evaluate(dd.from_pandas(pdf, npartitions=1), ["ndcg"], as_frame=flag)
    # the docstring's split: an unknown keyword is a TypeError, a bad option value a ValueError
    with pytest.raises(TypeError, match="unexpected keyword argument 'gian'"):
        rdask.evaluate(dd.from_pandas(pdf, npartitions=1), ["ndcg"], gian="linear")
    with pytest.raises(ValueError, match="^empty must be one of"):
        rdask.evaluate(dd.from_pandas(pdf, npartitions=1), ["ndcg"], empty="zero")


def test_none_column_names_are_refused():
    """qid=None (label=, score=) skipped the column checks meant for an absent weight and
    crashed with KeyError (None, or nan); now a TypeError naming the argument."""
    pdf = pd.DataFrame({"qid": [1, 1, 2], "label": [1, 0, 1], "score": [0.9, 0.1, 0.5]})
    for arg in ("qid", "label", "score"):
        with pytest.raises(TypeError, match=f"^{arg} must be a column name \\(str\\); got None"):
            rdask.evaluate(dd.from_pandas(pdf, npartitions=1), ["ndcg"], **{arg: None})
