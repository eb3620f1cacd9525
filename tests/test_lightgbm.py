"""Unit tests of rankmetrics.lightgbm: adapter output equals the core, names, cache, weights,
the LGBMRanker signature, early stopping and error messages."""

from __future__ import annotations

import copy
import functools
import inspect
import pickle
from typing import Any

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm
from rankmetrics.datasets import RankingData, make_ranking_data

# ndcg_score/dcg_score follow scikit-learn (linear gain) by default; LightGBM's gain is 2**l - 1
_ndcg_score = functools.partial(rm.ndcg_score, gain="exponential")
_dcg_score = functools.partial(rm.dcg_score, gain="exponential")

lgb = require("lightgbm")

from rankmetrics.lightgbm import (  # noqa: E402
    EvalMetric,
    Feval,
    builtin_ndcg,
    early_stopping,
    make_eval_metric,
    make_feval,
)

QUIET = {"verbose": -1}
PARAMS: dict[str, Any] = {"objective": "lambdarank", "num_leaves": 7, "learning_rate": 0.2,
                          "min_data_in_leaf": 5, "num_threads": 1, "seed": 0,
                          "deterministic": True, "force_row_wise": True, "verbose": -1}


def _data(n_queries: int = 30, seed: int = 0) -> RankingData:
    return make_ranking_data(n_queries, min_docs=3, max_docs=15, n_features=6, n_discrete=6,
                             random_state=seed)


def _dataset(d: RankingData, **kw: Any) -> Any:
    ds = lgb.Dataset(d.X, d.y, group=d.group_sizes, params=QUIET, free_raw_data=False, **kw)
    return ds.construct()


def _tied_scores(d: RankingData, seed: int = 0) -> np.ndarray:
    return np.round(np.random.default_rng(seed).normal(size=d.n_samples), 1)


@pytest.fixture(scope="module")
def small() -> RankingData:
    return _data()


# --------------------------------------------------------------------------- adapter == core
@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic", "stable"])
def test_feval_equals_core_every_metric(small, ties) -> None:
    scores = _tied_scores(small)
    metrics = ["ndcg", "dcg", "cg", "ncg", "precision", "recall", "f1", "map", "rr"]
    feval = make_feval(metrics, k=(1, 5), ties=ties, empty=0.0)
    out = dict((n, v) for n, v, hib in feval(scores, _dataset(small)) if hib)
    assert len(out) == 2 * len(metrics)
    y, q = small.y, small.qid
    kw: dict[str, Any] = {"ties": ties, "empty": 0.0}
    for k in (1, 5):
        assert out[f"ndcg@{k}"] == pytest.approx(_ndcg_score(y, scores, q, k=k, **kw))
        assert out[f"dcg@{k}"] == pytest.approx(_dcg_score(y, scores, q, k=k, ties=ties))
        assert out[f"cg@{k}"] == pytest.approx(rm.cg_score(y, scores, q, k=k, ties=ties))
        assert out[f"ncg@{k}"] == pytest.approx(rm.ncg_score(y, scores, q, k=k, **kw))
        assert out[f"precision@{k}"] == pytest.approx(
            rm.mean_precision_score(y, scores, q, k=k, **kw))
        assert out[f"recall@{k}"] == pytest.approx(rm.mean_recall_score(y, scores, q, k=k, **kw))
        assert out[f"f1@{k}"] == pytest.approx(rm.mean_f1_score(y, scores, q, k=k, **kw))
        # the adapter's AP denominator is LightGBM's min(k, R)
        assert out[f"map@{k}"] == pytest.approx(rm.mean_average_precision_score(
            y, scores, q, k=k, denominator="min_k_relevant", **kw))
        assert out[f"rr@{k}"] == pytest.approx(rm.reciprocal_rank_score(y, scores, q, k=k, **kw))


def test_core_options_are_passed_through(small) -> None:
    scores = _tied_scores(small, 3)
    y, q = small.y, small.qid
    opts: dict[str, Any] = {"gain": "linear", "discount": "jarvelin2002", "log_base": 3}
    feval = make_feval(["ndcg", "ap@10", "fbeta"], k=7, threshold=2, beta=2.0,
                       denominator="min_k_relevant", empty="skip", **opts)
    got = {n: v for n, v, _ in feval(scores, _dataset(small))}
    assert got["ndcg@7"] == pytest.approx(_ndcg_score(y, scores, q, k=7, empty="skip", **opts))
    assert got["ap@10"] == pytest.approx(rm.mean_average_precision_score(
        y, scores, q, k=10, threshold=2, denominator="min_k_relevant", empty="skip"))
    assert got["fbeta@7"] == pytest.approx(
        rm.mean_fbeta_score(y, scores, q, k=7, beta=2.0, threshold=2, empty="skip"))
    per_q = feval.per_query(scores, _dataset(small))
    np.testing.assert_allclose(per_q["ndcg@7"],
                               rm.ndcg(y, scores, q, k=7, empty="skip", **opts), equal_nan=True)


def test_label_gain_is_level_weights(small) -> None:
    scores = _tied_scores(small, 4)
    label_gain = [0.0, 1.0, 3.0, 10.0, 40.0]
    got = make_feval(k=5, label_gain=label_gain)(scores, _dataset(small))[0][1]
    assert got == pytest.approx(
        _ndcg_score(small.y, scores, small.qid, k=5, gain=label_gain, empty=1.0))


def test_defaults_match_lightgbm_conventions() -> None:
    # an all-zero-label query scores 1.0 (LightGBM); exponential gain, log2 discount; the
    # cutoff comes from the name or k only (default: whole list)
    y = np.array([0, 0, 0, 3, 1, 0, 0])
    group = [3, 4]
    scores = np.array([0.1, 0.2, 0.3, 0.0, 0.5, 0.5, 0.2])
    assert make_eval_metric().names == ["ndcg"]
    metric = make_eval_metric(k=10)
    (name, value, higher_better), = metric(y, scores, None, group)
    assert (name, higher_better) == ("ndcg@10", True)
    q = np.repeat([0, 1], group)
    assert value == pytest.approx(_ndcg_score(y, scores, q, k=10, empty=1.0))
    assert value == pytest.approx((1.0 + rm.ndcg(y[3:], scores[3:], k=10)[0]) / 2)
    stable = make_eval_metric(ties="stable")(y, scores, None, group)[0][1]
    assert stable == pytest.approx(builtin_ndcg(y, scores, group, k=10)["ndcg@10"], abs=1e-12)


def test_bounds_bracket_the_average(small) -> None:
    scores = _tied_scores(small, 5)
    for ties in ("average", "stable"):
        res = dict((n, v) for n, v, _ in make_feval(k=(3, 10), ties=ties, bounds=True)(
            scores, _dataset(small)))
        for k in (3, 10):
            name = f"ndcg@{k}"
            lo, mid, hi = res[name + "_pessimistic"], res[name], res[name + "_optimistic"]
            assert lo <= mid <= hi and lo < hi
            assert hi == pytest.approx(_ndcg_score(small.y, scores, small.qid, k=k,
                                                     ties="optimistic", empty=1.0))
            assert lo == pytest.approx(_ndcg_score(small.y, scores, small.qid, k=k,
                                                     ties="pessimistic", empty=1.0))


# ------------------------------------------------------------------------------------ names
def test_names() -> None:
    assert make_feval().names == ["ndcg"]  # k defaults to None (before: 10)
    assert make_feval("map").names == ["map"]
    # names are kept as given (before: lower-cased)
    assert make_feval("NDCG", k=(1, 3, 5, 10)).names == ["NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10"]
    assert make_feval(["ndcg @ 5", "map", "p"], k=(None, 2)).names == [
        "ndcg@5", "map", "map@2", "p", "p@2"]
    assert make_feval("mrr", k=None, prefix="tie_", bounds=True).names == [
        "tie_mrr", "tie_mrr_optimistic", "tie_mrr_pessimistic"]
    for name in make_feval(["ndcg", "recall", "f1"], k=(1, 20), bounds=True).names:
        assert not any(c.isspace() for c in name)


# ------------------------------------------------------------------------------------ cache
def test_plan_built_once_per_dataset(small) -> None:
    feval = make_feval(k=(1, 5))
    ds = _dataset(small)
    for seed in range(4):
        scores = _tied_scores(small, seed)
        assert feval(scores, ds)[1][1] == pytest.approx(
            _ndcg_score(small.y, scores, small.qid, k=5, empty=1.0))
    assert feval._cache.builds == 1


def test_cache_keeps_datasets_apart() -> None:
    a, b = _data(20, seed=1), _data(25, seed=2)
    da, db = _dataset(a), _dataset(b)
    feval = make_feval(k=5)
    for seed in range(3):  # alternate: every call must use its own Dataset's plan
        for d, ds in ((a, da), (b, db)):
            s = _tied_scores(d, seed)
            expected = _ndcg_score(d.y, s, d.qid, k=5, empty=1.0)
            assert feval(s, ds)[0][1] == pytest.approx(expected)
    assert feval._cache.builds == 2


def test_cache_survives_id_reuse() -> None:
    # Datasets created and dropped in turn often get the same id(); the plan must follow the
    # data, not the address.
    feval = make_feval(k=3, cache_size=2)
    for seed in range(6):
        d = _data(10 + seed, seed=seed)
        s = _tied_scores(d, seed)
        assert feval(s, _dataset(d))[0][1] == pytest.approx(  # the Dataset dies right here
            _ndcg_score(d.y, s, d.qid, k=3, empty=1.0))
    assert len(feval._cache.entries) == 2


def test_cache_follows_set_label(small) -> None:
    ds = _dataset(small)
    feval = make_feval(k=5)
    s = _tied_scores(small)
    feval(s, ds)
    new_y = small.y[::-1].copy()  # same groups, different labels
    ds.set_label(new_y)
    assert feval(s, ds)[0][1] == pytest.approx(_ndcg_score(new_y, s, small.qid, k=5, empty=1.0))


def test_cache_matches_equal_content(small) -> None:
    metric = make_eval_metric(k=5)
    s = _tied_scores(small)
    first = metric(small.y, s, None, small.group_sizes)
    second = metric(small.y.copy(), s, None, small.group_sizes.copy())  # new objects, same data
    assert first == second and metric._cache.builds == 1
    metric(small.y, s, np.ones(small.n_samples), small.group_sizes)  # weights: another plan
    assert metric._cache.builds == 2


def test_copies_start_with_an_empty_cache(small) -> None:
    feval = make_feval(k=(3, 5), bounds=True, prefix="x_")
    feval(_tied_scores(small), _dataset(small))
    for clone in (copy.deepcopy(feval), pickle.loads(pickle.dumps(feval))):
        assert isinstance(clone, Feval) and clone.names == feval.names
        assert clone._cache.entries == []
        assert clone(_tied_scores(small), _dataset(small)) == feval(_tied_scores(small),
                                                                    _dataset(small))
    feval.clear_cache()
    assert feval._cache.entries == []


# ---------------------------------------------------------------------------------- weights
def test_query_weights(small) -> None:
    s = _tied_scores(small, 6)
    rng = np.random.default_rng(0)
    qw = rng.uniform(0.5, 2.0, small.n_queries)
    row_w = np.repeat(qw, small.group_sizes)
    with pytest.warns(UserWarning, match="LightGBM's own weighted ndcg"):  # an empty query
        got = make_feval(k=5)(s, _dataset(small, weight=row_w))[0][1]
    assert got == pytest.approx(
        _ndcg_score(small.y, s, small.qid, k=5, empty=1.0, query_weight=qw))

    # weights varying inside a query: LightGBM averages them ("mean"); "first" is offered too
    row_w = rng.uniform(0.5, 2.0, small.n_samples)
    starts = np.r_[0, np.cumsum(small.group_sizes)[:-1]]
    mean_w = np.add.reduceat(row_w, starts) / small.group_sizes
    ds = _dataset(small, weight=row_w)
    with pytest.warns(UserWarning, match="LightGBM's own weighted ndcg"):
        got_mean = make_feval(k=5)(s, ds)[0][1]
    with pytest.warns(UserWarning, match="LightGBM's own weighted ndcg"):
        got_first = make_feval(k=5, query_weight="first")(s, ds)[0][1]
    assert got_mean == pytest.approx(
        _ndcg_score(small.y, s, small.qid, k=5, empty=1.0, query_weight=mean_w))
    assert got_first == pytest.approx(
        _ndcg_score(small.y, s, small.qid, k=5, empty=1.0, query_weight=row_w[starts]))

    # LightGBM agrees (ties="stable") on queries with a relevant document. It adds an all-zero
    # query's 1.0 *unweighted* while dividing by the sum of query weights (rank_metric.hpp), so
    # with such queries its weighted mean is not a weighted mean; we do not copy that quirk.
    has_rel = np.add.reduceat(small.y, starts) > 0
    assert not has_rel.all()
    rows = np.repeat(has_rel, small.group_sizes)
    y, sz, w, sc = small.y[rows], small.group_sizes[has_rel], row_w[rows], s[rows]
    ours = make_eval_metric(k=5, ties="stable")(y, sc, w, sz)[0][1]
    lgb_value = builtin_ndcg(y, sc, sz, k=5, weight=w)["ndcg@5"]
    assert ours == pytest.approx(lgb_value, abs=1e-7)  # LightGBM keeps float32 weights


# ------------------------------------------------------------------------ LGBMRanker / sklearn
def test_eval_metric_signature_has_four_parameters() -> None:
    metric = make_eval_metric(k=(1, 5))
    assert isinstance(metric, EvalMetric)
    params = inspect.signature(metric).parameters
    # LightGBM counts the parameters (defaults included: weight and group default to None
    # only so that a call with two arguments, lgb.train's feval, reaches a clear error)
    assert list(params) == ["y_true", "y_pred", "weight", "group"]
    assert len(inspect.signature(make_feval()).parameters) == 2


def test_lgbmranker_fit_reports_core_values() -> None:
    train, valid = _data(60, seed=3).split(test_size=0.3, random_state=0)
    metric = make_eval_metric("ndcg", k=(3, 10), prefix="tie_", bounds=True)
    model = lgb.LGBMRanker(n_estimators=8, **{k: v for k, v in PARAMS.items()
                                               if k != "objective"})
    if "eval_X" in inspect.signature(model.fit).parameters:  # lightgbm >= 4.7
        evals: dict[str, Any] = {"eval_X": (valid.X,), "eval_y": (valid.y,)}
    else:
        evals = {"eval_set": [(valid.X, valid.y)]}
    model.fit(train.X, train.y, group=train.group_sizes, eval_group=[valid.group_sizes],
              eval_at=[10], eval_metric=metric, **evals)
    rec = model.evals_result_["valid_0"]
    assert list(rec) == ["ndcg@10", *metric.names]  # LightGBM's built-in comes first
    for it in (1, 4, 8):
        pred = model.predict(valid.X, num_iteration=it)
        for k in (3, 10):
            assert rec[f"tie_ndcg@{k}"][it - 1] == pytest.approx(
                _ndcg_score(valid.y, pred, valid.qid, k=k, empty=1.0), abs=1e-12)
        assert rec["ndcg@10"][it - 1] == pytest.approx(
            _ndcg_score(valid.y, pred, valid.qid, k=10, ties="stable", empty=1.0), abs=1e-9)


# --------------------------------------------------------------------------- early stopping
def _train(d_train: Any, d_valid: Any, feval: Any, callbacks: list, metric: str = "ndcg",
           rounds: int = 60) -> tuple[Any, dict]:
    record: dict = {}
    booster = lgb.train({**PARAMS, "metric": metric, "eval_at": [5]}, d_train,
                        num_boost_round=rounds, valid_sets=[d_train, d_valid],
                        valid_names=["train", "valid"], feval=feval,
                        callbacks=[*callbacks, lgb.record_evaluation(record)])
    return booster, record


def test_early_stopping_callback_stops_on_named_metric(capsys) -> None:
    train, valid = _data(80, seed=4).split(test_size=0.3, random_state=1)
    dt = lgb.Dataset(train.X, train.y, group=train.group_sizes, params=QUIET)
    dv = lgb.Dataset(valid.X, valid.y, group=valid.group_sizes, reference=dt)
    feval = make_feval("ndcg", k=(5, 1), prefix="tie_", bounds=True)
    booster, record = _train(dt, dv, feval, [early_stopping(4, feval)])
    curve = np.asarray(record["valid"]["tie_ndcg@5"])
    best = booster.best_iteration
    assert best == int(np.argmax(curve)) + 1
    assert len(curve) == min(best + 4, 60)
    assert booster.best_score["valid"]["tie_ndcg@5"] == curve[best - 1]
    assert "tie_ndcg@5" in capsys.readouterr().out

    stop_on_1 = early_stopping(3, metric="tie_ndcg@1", verbose=False)
    booster, record = _train(dt, dv, feval, [stop_on_1])
    curve = np.asarray(record["valid"]["tie_ndcg@1"])
    assert booster.best_iteration == int(np.argmax(curve)) + 1
    assert len(curve) == min(booster.best_iteration + 3, 60)


def test_early_stopping_in_cv() -> None:
    d = _data(60, seed=5)
    ds = lgb.Dataset(d.X, d.y, group=d.group_sizes, params=QUIET)
    feval = make_feval(k=5, prefix="tie_")
    res = lgb.cv({**PARAMS, "metric": "None"}, ds, num_boost_round=40, nfold=3, feval=feval,
                 stratified=False, callbacks=[early_stopping(3, feval, verbose=False)])
    curve = np.asarray(res["valid tie_ndcg@5-mean"])
    assert len(curve) == int(np.argmax(curve)) + 1  # cv truncates at the best round


def test_early_stopping_detects_name_collision() -> None:
    train, valid = _data(40, seed=6).split(test_size=0.3, random_state=0)
    dt = lgb.Dataset(train.X, train.y, group=train.group_sizes, params=QUIET)
    dv = lgb.Dataset(valid.X, valid.y, group=valid.group_sizes, reference=dt)
    feval = make_feval(k=5)  # "ndcg@5", like the built-in metric at eval_at=[5]
    with pytest.raises(ValueError, match=r"reported twice .* prefix"), \
            pytest.warns(UserWarning, match=r"outputs \['ndcg@5'\] have the names"):
        _train(dt, dv, feval, [early_stopping(3, feval)])
    with pytest.raises(ValueError, match=r"'nope@3' not reported on a validation set"):
        _train(dt, dv, make_feval(k=5, prefix="t_"), [early_stopping(3, metric="nope@3")])
    with pytest.raises(ValueError, match=r"not reported on data set 'other'"):
        _train(dt, dv, make_feval(k=5, prefix="t_"),
               [early_stopping(3, metric="t_ndcg@5", data_name="other")])



def test_lightgbm_metrics_warn_when_a_builtin_metric_has_their_name() -> None:
    """A feval named like a built-in metric of params (``ndcg@3`` beside the lambdarank
    objective's default ndcg@1..5) had its values and LightGBM's recorded under one name,
    silently: record_evaluation held both, interleaved, and best_score the last."""
    import warnings

    d = _data(12, seed=2)
    dt = lgb.Dataset(d.X, d.y, group=d.group_sizes, params=QUIET)
    dv = lgb.Dataset(d.X, d.y, group=d.group_sizes, reference=dt)

    def train(params: dict, feval: Any) -> dict:
        record: dict = {}
        lgb.train({**PARAMS, **params}, dt, num_boost_round=2, valid_sets=[dv],
                  valid_names=["valid"], feval=feval, callbacks=[lgb.record_evaluation(record)])
        return record["valid"]

    feval = make_feval("ndcg@3")
    train({"objective": "lambdarank", "metric": "None"}, feval)  # no clash in this training
    with pytest.warns(UserWarning, match=r"\['ndcg@3'\] have the names of LightGBM's built-in"
                      ) as caught:
        record = train({"objective": "lambdarank"}, feval)  # the same feval, a new training
    assert len(record["ndcg@3"]) == 4  # what the warning is about: 2 rounds, 2 values each
    assert sum("have the names" in str(w.message) for w in caught) == 1  # at its first round
    with pytest.warns(UserWarning, match=r"\['map@5'\]"):
        train({"objective": "regression", "metrics": "l2,map", "map_at": "5"}, make_feval("map@5"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        train({"objective": "lambdarank"}, make_feval("ndcg@3", prefix="tie_"))
        train({"objective": "lambdarank", "metric": "None"}, make_feval("ndcg@3"))
        train({"objective": "lambdarank", "eval_at": [10]}, make_feval("ndcg@3"))
        make_feval("ndcg@3")(np.zeros(len(d.y)), dt.construct())  # a direct call merges nothing
    # LGBMRanker turns on ndcg@1..5 by default; its eval_metric wrapper calls ours
    ranker = lgb.LGBMRanker(n_estimators=2, min_child_samples=5, n_jobs=1, verbose=-1)
    fit: dict[str, Any] = {"group": d.group_sizes, "eval_group": [d.group_sizes]}
    if "eval_X" in inspect.signature(ranker.fit).parameters:  # lightgbm >= 4.7
        fit.update(eval_X=(d.X,), eval_y=(d.y,))
    else:
        fit.update(eval_set=[(d.X, d.y)])
    with pytest.warns(UserWarning, match=r"\['ndcg@3'\] have the names of LightGBM's built-in"):
        ranker.fit(d.X, d.y, eval_metric=make_eval_metric("ndcg@3"), **fit)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        ranker.fit(d.X, d.y, eval_metric=make_eval_metric("ndcg@3", prefix="tie_"), **fit)
        make_eval_metric("ndcg@3")(d.y, np.zeros(len(d.y)), None, d.group_sizes)


# ------------------------------------------------------------------------------- builtin_ndcg
def test_builtin_ndcg_per_query_is_stable_ties(small) -> None:
    s = _tied_scores(small, 7)
    lgb_q = builtin_ndcg(small.y, s, small.group_sizes, k=(1, 5), per_query=True)
    lgb_mean = builtin_ndcg(small.y, s, small.group_sizes, k=(1, 5))
    for k in (1, 5):
        ours = rm.ndcg(small.y, s, small.qid, k=k, ties="stable", empty=1.0)
        np.testing.assert_allclose(lgb_q[f"ndcg@{k}"], ours, atol=1e-12)
        assert lgb_mean[f"ndcg@{k}"] == pytest.approx(ours.mean(), abs=1e-12)


def test_masked_labels_group_or_weight_do_not_hit_the_plan_cache() -> None:
    """The plan cache compared a new call's labels, group and weights with np.asarray, which
    drops a mask: masked labels (or group sizes, or weights) equal in their hidden values to
    a cached set reused that plan and gave its value (ndcg@3 0.6738) silently, where a first
    call refuses them. Masked entries now never match, so the checks refuse them each time."""
    y = np.array([3, 0, 1, 2, 0, 1])
    s = np.array([0.5, 0.2, 0.9, 0.1, 0.3, 0.3])
    g = np.array([3, 3])
    w = np.ones(6)
    metric = make_eval_metric("ndcg@3")
    metric(y, s, w, g)
    for args, name in (((np.ma.array(y, mask=[0, 1, 0, 0, 0, 0]), s, w, g), "y_true"),
                       ((y, s, w, np.ma.array(g, mask=[0, 1])), "group"),
                       ((y, s, np.ma.array(w, mask=[1, 0, 0, 0, 0, 0]), g), "weight")):
        with pytest.raises(ValueError, match=rf"^{name} is a masked array with masked entries"):
            metric(*args)
    assert metric(np.ma.array(y), s, w, g) == metric(y, s, w, g)


def test_builtin_ndcg_refuses_masked_and_complex_arrays() -> None:
    """builtin_ndcg cast y_true and y_score with numpy's float64 cast: a masked entry's hidden
    value was read as data and a complex score lost its imaginary part (numpy only warns);
    both are now refused naming the argument, and big-endian arrays read as native ones."""
    y = np.array([3, 0, 1, 2, 0, 1])
    s = np.array([0.5, 0.2, 0.9, 0.1, 0.3, 0.3])
    hidden = np.ma.array(s, mask=[0, 1, 0, 0, 0, 0])
    for args, match in (((y, hidden), r"^y_score is a masked array"),
                        ((np.ma.array(y, mask=[1, 0, 0, 0, 0, 0]), s), r"^y_true is a masked"),
                        ((y, s + 1j), r"^y_score must be real numbers")):
        with pytest.raises((TypeError, ValueError), match=match):
            builtin_ndcg(*args, [3, 3], k=3)
    want = builtin_ndcg(y, s, [3, 3], k=3)
    assert builtin_ndcg(y.astype(">i4"), s.astype(">f8"), [3, 3], k=3,
                        weight=np.ones(6, ">f8")) == want


# ------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"metrics": "nope"}, ValueError, r"unknown measure 'nope'"),
        ({"metrics": []}, ValueError, r"at least one metric"),
        ({"metrics": ["ndcg@5", "ndcg"], "k": 5}, ValueError, r"unique.*'ndcg@5'"),
        ({"k": 0}, ValueError, r"k must be a positive int or None; got 0"),
        ({"k": 2.5}, TypeError, r"k must be a positive int or None; got 2.5"),
        ({"k": ()}, ValueError, r"k must not be an empty sequence"),
        ({"ties": "random"}, ValueError, r"ties must be one of .*'random'"),
        ({"gain": "cubic"}, ValueError, r"gain must be one of .*'cubic'"),
        ({"discount": "exp"}, ValueError, r"discount must be one of .*'exp'"),
        ({"empty": "zero"}, ValueError, r"empty must be one of .*'zero'"),
        ({"gain": "linear", "label_gain": [0, 1]}, ValueError, r"either gain or label_gain"),
        ({"bounds": "yes"}, TypeError, r"bounds must be True or False; got 'yes'"),
        ({"query_weight": "max"}, ValueError, r"query_weight must be one of .*'max'"),
        ({"prefix": "my metric "}, ValueError, r"prefix must be a string without whitespace"),
        ({"cache_size": 0}, ValueError, r"cache_size must be an int >= 1; got 0"),
        ({"beta": -1.0}, ValueError, r"beta must be > 0; got -1.0"),
    ],
)
def test_construction_errors(kwargs, exc, match) -> None:
    with pytest.raises(exc, match=match):
        make_feval(**kwargs)
    with pytest.raises(exc, match=match):
        make_eval_metric(**kwargs)


def test_non_finite_preds_named_on_every_evaluation_path(small) -> None:
    # the adapter leaves NaN/inf to the core (found as each list is ranked) and raises the
    # core's error again naming its own argument, on the one-pass path, the bounds' passes and
    # a measure with its own tie rule; the caller's array is not changed
    data = _dataset(small)
    builds = [dict(k=5), dict(k=5, bounds=True), dict(metrics=["nDCG(ties=stable)@5", "map"]),
              dict(metrics=["ndcg", "map"], k=(3, 5), ties="stable")]
    for kw in builds:
        for where in (0, small.n_samples // 2, small.n_samples - 1):
            for value in (np.nan, np.inf, -np.inf):
                bad = _tied_scores(small)
                bad[where] = value
                before = bad.copy()
                with pytest.raises(ValueError, match=r"^preds must be finite"):
                    make_feval(**kw)(bad, data)
                with pytest.raises(ValueError, match=r"^y_pred must be finite"):
                    make_eval_metric(**kw)(small.y, bad, None, small.group_sizes)
                np.testing.assert_array_equal(bad, before)
    # another error of the core, with finite scores, is raised as it is
    y = small.y.copy()
    y[: small.group_sizes[0]] = 0  # a query without relevant documents
    with pytest.raises(ValueError, match=r"undefined for queries without relevant"):
        make_eval_metric(k=5, empty="error")(y, _tied_scores(small), None, small.group_sizes)


def test_call_errors(small) -> None:
    feval = make_feval(k=5)
    no_group = lgb.Dataset(small.X, small.y, params=QUIET).construct()
    with pytest.raises(ValueError, match=r"no query groups"):
        feval(_tied_scores(small), no_group)
    with pytest.raises(ValueError, match=r"no query groups"):
        make_eval_metric()(small.y, _tied_scores(small), None, None)
    with pytest.raises(ValueError, match=r"preds must have one score per row"):
        feval(np.zeros(3), _dataset(small))
    bad = _tied_scores(small)
    bad[0] = np.nan
    with pytest.raises(ValueError, match=r"preds must be finite"):
        feval(bad, _dataset(small))
    with pytest.raises(ValueError, match=r"y_pred must be finite"):
        make_eval_metric()(small.y, bad, None, small.group_sizes)
    with pytest.raises(ValueError, match=r"group add up to"):
        make_eval_metric()(small.y, _tied_scores(small), None, small.group_sizes[:-1])
    with pytest.raises(ValueError, match=r"weight must have one entry per row"):
        make_eval_metric()(small.y, _tied_scores(small), np.ones(2), small.group_sizes)
    with pytest.raises(ValueError, match=r"labels must be integers"):
        make_eval_metric()(small.y + 0.5, _tied_scores(small), None, small.group_sizes)
    with pytest.raises(TypeError, match=r"y_true must be array-like, got None"):
        make_eval_metric()(None, _tied_scores(small), None, small.group_sizes)
    with pytest.raises(ValueError, match=r"undefined for queries without relevant"):
        make_eval_metric(empty="error")([0, 0, 1], [1.0, 2.0, 3.0], None, [2, 1])


def test_early_stopping_argument_errors() -> None:
    with pytest.raises(TypeError, match=r"needs feval .* or metric="):
        early_stopping(5)
    # the second positional argument is feval (xgboost's early_stopping takes a name there)
    with pytest.raises(TypeError, match=r"feval must be .*; got 'ndcg@10' \(a metric name goes "
                                        r"in metric=\)"):
        early_stopping(5, "ndcg@10")
    with pytest.raises(TypeError, match=r"feval must be what make_feval"):
        early_stopping(0, 5)
    # with metric= the feval is not read: a list of them, or LightGBM's own function, is fine
    feval = make_feval("ndcg", k=10, prefix="tie_")
    assert early_stopping(5, [feval, feval], metric="tie_ndcg@10").metric == "tie_ndcg@10"
    assert early_stopping(5, len, metric="my").metric == "my"
    with pytest.raises(ValueError, match=r"stopping_rounds must be an int >= 1; got 0"):
        early_stopping(0, metric="x")
    with pytest.raises(ValueError, match=r"min_delta must be a finite number >= 0; got -1"):
        early_stopping(3, metric="x", min_delta=-1)
    with pytest.raises(TypeError, match=r"metric must be a metric name"):
        early_stopping(3, metric="")


def test_map_counts_lightgbms_relevant_rows_on_fractional_labels():
    """LightGBM's map@k counts a row relevant when its label, a C float, is > 0.5; the feval
    counted label >= 1, so fractional labels (objectives such as cross_entropy take them) gave
    another number (0.8 alone in a query: LightGBM 0.25, ours 1.0 as an empty query). The
    default threshold is now LightGBM's rule, float32 rounding included."""
    from rankmetrics.lightgbm import LIGHTGBM_THRESHOLD

    above = float(np.nextafter(np.float32(0.5), np.float32(1)))  # the least float32 > 0.5
    rng = np.random.default_rng(5)
    levels = np.array([0.0, 0.3, 0.5, 0.5 + 2.0**-26, above, 0.8, 1.0, 2.0])
    sizes = np.array([4, 7, 1, 9, 12, 6])
    y = levels[rng.integers(0, levels.size, sizes.sum())]
    y[:4] = [0.8, 0.0, 0.0, 0.0]
    s = rng.permutation(sizes.sum()).astype(float)  # no ties
    params = {"objective": "regression", "metric": "map", "eval_at": [1, 3, 4, 10],
              "verbose": -1, "num_threads": 1}
    data = lgb.Dataset(np.zeros((y.size, 1)), label=y, group=sizes, init_score=s,
                       params=params, free_raw_data=False)
    theirs = {r[1]: r[2] for r in lgb.Booster(params, data).eval_train()}
    assert theirs["map@4"] != 1.0
    feval = make_feval(["map@1", "map@3", "map@4", "map@10"], ties="stable")
    ours = {name: value for name, value, _ in feval(s, data)}
    for name, value in theirs.items():
        assert ours[name] == pytest.approx(value, abs=1e-12), name
    assert np.float32(LIGHTGBM_THRESHOLD) > 0.5 >= np.float32(np.nextafter(LIGHTGBM_THRESHOLD, 0))


def test_a_metric_given_to_the_wrong_lightgbm_entry_point_says_which_to_use() -> None:
    """make_feval's object in LGBMRanker.fit(eval_metric=...) raised "'numpy.ndarray' object
    has no attribute 'get_label'"; make_eval_metric's in lgb.train(feval=...) "missing 'weight'
    and 'group'"."""
    d = _data()
    sizes = np.unique(d.qid, return_counts=True)[1]
    ranker = lgb.LGBMRanker(n_estimators=2, min_child_samples=5, n_jobs=1, verbose=-1)
    with pytest.raises(TypeError, match=r"LGBMRanker.fit\(eval_metric=...\) use rankmetrics"):
        ranker.fit(d.X, d.y, group=sizes, eval_set=[(d.X, d.y)], eval_group=[sizes],
                   eval_metric=make_feval("ndcg@3"))
    train = lgb.Dataset(d.X, d.y, group=sizes)
    with pytest.raises(TypeError, match=r"lgb.train\(feval=...\) use rankmetrics"):
        lgb.train({"objective": "lambdarank", "verbose": -1, "num_threads": 1}, train, 2,
                  valid_sets=[train], feval=make_eval_metric("ndcg@3"))


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_spelled_lightgbm_measures_equal_lightgbms_builtin_through_the_core(k) -> None:
    # the README's recipe for LightGBM's number outside its adapter: map@k divides by
    # min(k, R) and a query without a relevant document scores 1 (the core's map@k: R and 0)
    rng = np.random.default_rng(k)
    sizes = rng.integers(1, 9, 40)
    q = np.repeat(np.arange(sizes.size), sizes)
    y = rng.integers(0, 3, q.size) * (rng.random(q.size) < 0.6)
    y[q % 7 == 0] = 0  # queries without a relevant document
    s = rng.permutation(q.size) / q.size  # no ties: LightGBM's order is the only one
    params = {"objective": "lambdarank", "metric": ["map", "ndcg"], "eval_at": [k],
              "verbose": -1}
    data = lgb.Dataset(np.zeros((q.size, 1)), label=y, group=sizes, init_score=s, params=params)
    builtin = {r[1]: r[2] for r in lgb.Booster(params, data).eval_train()}
    names = [f"AP(denominator=min_k_relevant, empty=1)@{k}", f"nDCG(empty=1)@{k}"]
    ours = rm.QueryPlan(y, q).evaluate(s, names)
    assert np.mean(ours[names[0]]) == pytest.approx(builtin[f"map@{k}"], abs=1e-12)
    assert np.mean(ours[names[1]]) == pytest.approx(builtin[f"ndcg@{k}"], abs=1e-12)
    plain = rm.QueryPlan(y, q).evaluate(s, [f"map@{k}", f"ndcg@{k}"])
    assert np.mean(plain[f"ndcg@{k}"]) < builtin[f"ndcg@{k}"]  # the empty queries score 0


def test_weighted_ndcg_with_an_empty_query_warns_that_lightgbm_differs():
    """LightGBM's weighted ndcg adds 1.0 for an all-zero query without its weight and divides
    by the total weight (0.3967 here); we weight it like the others (0.8967) and only the
    docstrings said so. Now a UserWarning, once per evaluation set; none without weights,
    without an empty query, with empty=0.0 or for map."""
    import warnings

    y = np.array([0, 0, 0, 2, 0, 1.0])
    s = np.array([0.3, 0.2, 0.1, 0.1, 0.9, 0.5])
    w = np.array([3, 3, 3, 1, 1, 1.0])
    p = {"objective": "lambdarank", "metric": "ndcg", "eval_at": [3], "verbose": -1}

    def data(labels, weight):
        return lgb.Dataset(np.zeros((6, 1)), label=labels, group=[3, 3], weight=weight,
                           init_score=s, params=p, free_raw_data=False).construct()

    d = data(y, w)
    builtin = lgb.Booster(p, d).eval_train()[0][2]
    feval = make_feval("ndcg", k=3)
    with pytest.warns(UserWarning, match=r"1 of 2 queries have no relevant document: "
                                         r"LightGBM's own weighted ndcg adds 1.0"):
        ours = feval(s, d)[0][1]
    assert builtin == pytest.approx((1.0 + 1 * 0.5872) / 4, abs=1e-3)
    assert ours == pytest.approx((3 * 1.0 + 1 * 0.5872) / 4, abs=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        feval(s, d)  # once per evaluation set
        make_feval("ndcg", k=3)(s, data(y, None))
        make_feval("ndcg", k=3)(s, data(np.array([1, 0, 0, 2, 0, 1.0]), w))
        make_feval("ndcg", k=3, empty=0.0)(s, d)
        make_feval("map", k=3)(s, d)
        # weights of 1 on the empty query: LightGBM's number is ours
        d1 = data(y, np.array([1, 1, 1, 2, 2, 2.0]))
        assert make_feval("ndcg", k=3)(s, d1)[0][1] == pytest.approx(
            lgb.Booster(p, d1).eval_train()[0][2], abs=1e-6)
    # the unweighted numbers are LightGBM's
    d0 = data(y, None)
    assert make_feval("ndcg", k=3)(s, d0)[0][1] == pytest.approx(
        lgb.Booster(p, d0).eval_train()[0][2], abs=1e-6)


def test_host_conventions_we_refuse_or_warn_about_say_so() -> None:
    """Found against LightGBM 4.7: a group of size 0 (np.bincount of query ids with gaps) is
    scored 1.0 by LightGBM's built-in metric, which we refused as "group must be positive
    integers"; a label_gain that decreases makes LightGBM's ndcg exceed 1 (its ideal orders
    by label), ours silently differed; builtin_ndcg(k=2.7) raised a bare TypeError and
    k="12" evaluated ndcg@1 and ndcg@2."""
    y = np.array([2, 0, 1, 0, 0, 3, 1])
    s = np.array([0.1, 0.5, 0.3, 0.2, 0.9, 0.4, 0.8])
    ds = lgb.Dataset(np.zeros((7, 1)), y, group=[3, 0, 2, 2], params=QUIET).construct()
    with pytest.raises(ValueError, match=r"group: 1 query of size 0 \(the first at position "
                                         r"1\); LightGBM's built-in metrics count each"):
        make_feval("ndcg", k=3)(s, ds)
    with pytest.raises(ValueError, match="query of size 0"):
        make_eval_metric("ndcg", k=3)(y, s, None, [3, 0, 2, 2])
    gain = [0.0, 10.0, 1.0]
    with pytest.warns(UserWarning, match=r"label_gain decreases from label 1 to 2 \(10 > 1\)"):
        f = make_feval("ndcg", k=1, ties="stable", label_gain=gain)
    yy, ss = np.array([1, 2, 0]), np.array([0.9, 0.1, 0.5])
    d3 = lgb.Dataset(np.zeros((3, 1)), yy, group=[3], params=QUIET).construct()
    assert f(ss, d3)[0][1] == 1.0
    assert builtin_ndcg(yy, ss, [3], k=1, label_gain=gain)["ndcg@1"] == 10.0
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make_feval("map", k=1, label_gain=gain)  # no gain measure: silent
        make_feval("ndcg", k=1, label_gain=[0, 1, 3, 3, 7])
    for bad in (2.7, None, "12", [1, None]):
        with pytest.raises(TypeError, match="k must be a positive int or a sequence of them"):
            builtin_ndcg([1, 0, 1], [0.5, 0.1, 0.2], [3], k=bad)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_bounds_of_a_measure_with_its_own_ties_are_over_every_tied_ordering(backend) -> None:
    """bounds=True gave nDCG(ties=stable)@3_optimistic and _pessimistic the stable value (the
    measure's own ties= overrode each bound's rule); they are the best and worst orderings, as
    for a measure without ties= and as RankingMonitor's _max / _min."""
    y = np.array([2, 0, 1, 0, 0, 1, 3, 0, 1, 0])
    s = np.array([0.5, 0.5, 0.5, 0.9, 0.3, 0.3, 0.8, 0.3, 0.7, 0.7])
    q = np.repeat([0, 1, 2], [4, 4, 2])
    names = ["nDCG(ties=stable)@3", "RR(ties=average)", "AP"]
    prev = rm.get_backend()
    rm.set_backend(backend)
    try:
        data = lgb.Dataset(np.zeros((10, 1)), label=y, group=[4, 4, 2],
                           params={"verbose": -1}).construct()
        got = make_feval(names, bounds=True).per_query(s, data)
        plan = rm.QueryPlan(y, q)
        for rule in ("optimistic", "pessimistic"):
            want = {"nDCG(ties=stable)@3": plan.ndcg(s, k=3, ties=rule, empty=1.0),
                    "RR(ties=average)": plan.reciprocal_rank(s, ties=rule, empty=1.0),
                    "AP": plan.average_precision(s, ties=rule, empty=1.0,
                                                 denominator="min_k_relevant")}
            for name in names:
                np.testing.assert_allclose(got[f"{name}_{rule}"], want[name], rtol=0,
                                           atol=1e-15, err_msg=f"{name}_{rule}")
        assert not np.allclose(got["nDCG(ties=stable)@3_optimistic"],
                               got["nDCG(ties=stable)@3_pessimistic"])
    finally:
        rm.set_backend(prev)


def test_a_feval_warns_when_the_boosters_label_gain_is_not_its_gain() -> None:
    """A model trained with a custom ``label_gain`` and a feval left at the default gain:
    our ``ndcg@5`` (ties="stable") was 0.7978 where LightGBM's own ``ndcg@5`` of that Booster
    was 0.8376, under LightGBM's name, without a word. Now the first evaluation warns, and the
    feval given the Booster's label_gain equals LightGBM's number."""
    import warnings

    d = _data(20, seed=7)
    dt = lgb.Dataset(d.X, d.y, group=d.group_sizes, params=QUIET)
    gain = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]

    def train(params: dict, feval: Any) -> dict:
        record: dict = {}
        lgb.train({**PARAMS, "eval_at": [5], **params}, dt, num_boost_round=2,
                  valid_sets=[dt], valid_names=["v"], feval=feval,
                  callbacks=[lgb.record_evaluation(record)])
        return record["v"]

    with pytest.warns(UserWarning, match=r"\['t_ndcg@5'\] use a gain other than the Booster's"):
        record = train({"label_gain": gain}, make_feval("ndcg@5", ties="stable", prefix="t_"))
    assert abs(record["t_ndcg@5"][0] - record["ndcg@5"][0]) > 1e-3  # what the warning is about
    with pytest.warns(UserWarning, match=r"\['ndcg@5'\] use a gain other than the Booster's "
                                         r"\(the default"):
        train({"metric": "None"}, make_feval("ndcg@5", label_gain=gain))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        matched = train({"label_gain": ",".join(map(str, gain))},
                        make_feval("ndcg@5", ties="stable", prefix="t_", label_gain=gain))
        np.testing.assert_allclose(matched["t_ndcg@5"], matched["ndcg@5"], atol=1e-12)
        train({"label_gain": gain, "metric": "None"}, make_feval(["map@5", "ndcg@5"],
                                                                   gain="linear"))  # chosen
        train({"label_gain": gain, "metric": "None"}, make_feval("map@5"))  # no gain measure
        train({"metric": "None"}, make_feval("ndcg@5"))  # LightGBM's default 2**i - 1
