"""Tests of rankmetrics.sklearn: query-aware scorers and the QueryGroupRanker wrapper.

Every value a scorer returns is compared with the core ``rankmetrics.*_score`` function on the
same rows; metadata routing is switched on only inside ``sklearn.config_context`` blocks.
"""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
from _extras import call_unskipped, require

sklearn = require("sklearn")

from sklearn.base import BaseEstimator, RegressorMixin, clone  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.linear_model import LogisticRegression, Ridge  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    GridSearchCV,
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import estimator_checks_generator  # noqa: E402

import rankmetrics  # noqa: E402
import rankmetrics.sklearn as _sk  # noqa: E402
from rankmetrics.datasets import make_ranking_data  # noqa: E402
from rankmetrics.sklearn import (  # noqa: E402
    QueryGroupRanker,
    RankingCVWarning,
    make_ranking_scorer,
    map_scorer,
    mrr_scorer,
    ndcg_at_10_scorer,
    ndcg_scorer,
    ranking_scorers,
)

CORE = {
    "ndcg": rankmetrics.ndcg_score,
    "dcg": rankmetrics.dcg_score,
    "cg": rankmetrics.cg_score,
    "ncg": rankmetrics.ncg_score,
    "p": rankmetrics.mean_precision_score,
    "recall": rankmetrics.mean_recall_score,
    "f1": rankmetrics.mean_f1_score,
    "fbeta": rankmetrics.mean_fbeta_score,
    "map": rankmetrics.mean_average_precision_score,
    "ap": rankmetrics.mean_average_precision_score,
    "mrr": rankmetrics.reciprocal_rank_score,
    "rr": rankmetrics.reciprocal_rank_score,
}


def core_value(name: str, y, s, q, **options) -> float:
    """The core mean for a metric name such as 'ndcg@5' (reference for every scorer value)."""
    base, _, cut = name.partition("@")
    return CORE[base](y, s, q, k=int(cut) if cut else None, **options)


# ------------------------------------------------------------------------------- fixtures
@pytest.fixture(autouse=True)
def _routing_stays_scoped() -> Iterator[None]:
    """No test may leave metadata routing switched on for the rest of the session."""
    assert not sklearn.get_config()["enable_metadata_routing"]
    _sk._WARNED.clear()  # each test sees the once-per-layout warnings afresh
    yield
    assert not sklearn.get_config()["enable_metadata_routing"]


@pytest.fixture
def routing() -> Iterator[None]:
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture(scope="module")
def data():
    """Small generated data with rows shuffled: queries are not contiguous."""
    d = make_ranking_data(n_queries=24, min_docs=4, max_docs=14, n_features=6,
                          n_discrete=3, random_state=3)
    perm = np.random.default_rng(0).permutation(d.n_samples)
    return d.X[perm], d.y[perm], d.qid[perm]


class RecordingRanker(RegressorMixin, BaseEstimator):
    """A ranker needing group sizes: checks them, remembers what fit got, predicts by Ridge."""

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = alpha

    def fit(self, X, y, group=None, sample_weight=None):
        if group is None or int(np.sum(group)) != X.shape[0]:
            raise ValueError("RecordingRanker.fit needs group sizes summing to n_samples")
        self.X_seen_, self.y_seen_, self.group_seen_, self.weight_seen_ = (
            X, np.asarray(y), group, sample_weight,
        )
        self.model_ = Ridge(alpha=self.alpha).fit(X, y, sample_weight=sample_weight)
        self.n_features_in_ = self.model_.n_features_in_
        return self

    def predict(self, X):
        return self.model_.predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def fold_scores_by_hand(estimator, X, y, q, cv, name, **options):
    """Fit a clone per fold of ``cv`` (grouped by ``q``) and score the test rows with the core."""
    out = []
    for train, test in cv.split(X, y, groups=q):
        est = clone(estimator)
        if isinstance(est, QueryGroupRanker):
            est.fit(X[train], y[train], qid=q[train])
        else:
            est.fit(X[train], y[train])
        out.append(core_value(name, y[test], est.predict(X[test]), q[test], **options))
    return np.array(out)


# --------------------------------------------------------------------- scorer == core
METRICS = ["ndcg", "ndcg@5", "dcg@3", "cg@4", "ncg@4", "p@3", "recall@5", "f1@5", "map",
           "ap@5", "mrr", "rr@3"]


class Rounded(Ridge):
    """Ridge with scores rounded to integers: many exact ties within each query."""

    def predict(self, X):
        return np.round(super().predict(X))


@pytest.mark.parametrize("name", METRICS)
def test_scorer_equals_core_on_the_same_rows(data, routing, name):
    X, y, q = data
    scorer = make_ranking_scorer(name)
    for est in (Ridge().fit(X, y), Rounded().fit(X, y)):
        assert scorer(est, X, y, qid=q) == core_value(name, y, est.predict(X), q)
    tied = Rounded().fit(X, y).predict(X)
    assert np.unique(tied).size < tied.size / 10


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("ndcg@5", {"gain": "linear", "discount": "jarvelin2002", "log_base": 3}),
        ("ndcg@3", {"empty": "skip"}),
        ("ndcg", {"ties": "pessimistic"}),
        ("p@5", {"threshold": 2, "ties": "optimistic"}),
        ("fbeta@5", {"beta": 2.0}),
        ("ap@5", {"denominator": "min_k_relevant"}),
        ("rr", {"ties": "stable"}),
    ],
)
def test_scorer_forwards_core_options(data, routing, name, options):
    X, y, q = data
    est = Rounded().fit(X, y)
    scorer = make_ranking_scorer(name, **options)
    assert scorer(est, X, y, qid=q) == core_value(name, y, est.predict(X), q, **options)


def test_k_argument_and_name_cutoff_agree(data, routing):
    X, y, q = data
    est = Ridge().fit(X, y)
    a = make_ranking_scorer("ndcg", k=5)(est, X, y, qid=q)
    b = make_ranking_scorer("ndcg@5", k=5)(est, X, y, qid=q)
    assert a == b == core_value("ndcg@5", y, est.predict(X), q)
    assert "ndcg@5" in repr(make_ranking_scorer("ndcg", k=5))


def test_ties_rules_bracket_the_average(data, routing):
    X, y, q = data
    est = Rounded().fit(X, y)
    lo, avg, hi = (
        make_ranking_scorer("ndcg@5", ties=t)(est, X, y, qid=q)
        for t in ("pessimistic", "average", "optimistic")
    )
    assert lo < avg < hi


def test_groups_key_and_qid_precedence(data, routing):
    X, y, q = data
    est = Ridge().fit(X, y)
    by_qid = ndcg_at_10_scorer(est, X, y, qid=q)
    assert ndcg_at_10_scorer(est, X, y, groups=q) == by_qid
    coarse = q // 4  # e.g. CV groups by user, several queries each: qid must win
    assert ndcg_at_10_scorer(est, X, y, qid=q, groups=coarse) == by_qid
    assert ndcg_at_10_scorer(est, X, y, groups=coarse) != by_qid


def test_string_query_ids_and_row_order(data, routing):
    X, y, q = data
    est = Ridge().fit(X, y)
    names = np.array([f"query-{v}" for v in q], dtype=object)
    perm = np.random.default_rng(1).permutation(len(y))
    a = ndcg_scorer(est, X, y, qid=q)
    assert ndcg_scorer(est, X, y, qid=names) == pytest.approx(a, rel=1e-15)
    assert ndcg_scorer(est, X[perm], y[perm], qid=q[perm]) == pytest.approx(a, rel=1e-12)


def test_ready_scorers(data, routing):
    X, y, q = data
    est = Ridge().fit(X, y)
    pred = est.predict(X)
    assert ndcg_scorer(est, X, y, qid=q) == rankmetrics.ndcg_score(y, pred, q)
    assert ndcg_at_10_scorer(est, X, y, qid=q) == rankmetrics.ndcg_score(y, pred, q, k=10)
    assert map_scorer(est, X, y, qid=q) == rankmetrics.mean_average_precision_score(y, pred, q)
    assert mrr_scorer(est, X, y, qid=q) == rankmetrics.reciprocal_rank_score(y, pred, q)
    scorers = ranking_scorers("ndcg@10", "map", "p@5")
    assert list(scorers) == ["ndcg@10", "map", "p@5"]
    assert scorers["p@5"](est, X, y, qid=q) == rankmetrics.mean_precision_score(y, pred, q, k=5)


def test_ready_scorers_are_not_shared_between_users():
    """The ready-made scorers were module-level objects: set_score_request(qid=False) on
    ``ndcg_scorer`` changed it for every later user in the process (sklearn's get_scorer hands
    out copies). Each access now builds one."""
    import rankmetrics.sklearn as rs

    with sklearn.config_context(enable_metadata_routing=True):
        mine = rs.ndcg_scorer.set_score_request(qid=False)
        assert mine.get_metadata_routing().consumes("score", ["qid", "groups"]) == {"groups"}
        for name in ("ndcg_scorer", "ndcg_at_10_scorer", "map_scorer", "mrr_scorer"):
            assert getattr(rs, name).get_metadata_routing().consumes(
                "score", ["qid", "groups"]) == {"qid", "groups"}
            assert name in dir(rs)
    with pytest.raises(AttributeError, match="has no attribute 'ndcg_scorrer'"):
        rs.ndcg_scorrer  # noqa: B018
    assert rs.ndcg_scorer is not rs.ndcg_scorer
    # the README told users the opposite ("shared objects ... get a private copy")
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "ready scorers are shared objects" not in " ".join(readme.split())


def test_scorer_requests_qid_and_groups():
    for scorer in (ndcg_scorer, make_ranking_scorer("map")):
        request = scorer.get_metadata_routing()
        assert request.consumes("score", ["qid", "groups", "sample_weight"]) == {"qid", "groups"}


def test_plain_make_scorer_fallback(data, routing, monkeypatch):
    # should scikit-learn drop its private scorer class, scorers are plain make_scorer ones
    import rankmetrics.sklearn as rs

    monkeypatch.setattr(rs, "_Scorer", None)
    X, y, q = data
    est = Ridge().fit(X, y)
    plain = rs.make_ranking_scorer("ndcg@5", ties="pessimistic")
    assert type(plain).__name__ == "_Scorer"
    assert plain(est, X, y, groups=q) == core_value("ndcg@5", y, est.predict(X), q,
                                                    ties="pessimistic")


def test_scorer_pickles_and_runs_in_parallel(data, routing):
    joblib = require("joblib")
    X, y, q = data
    scorer = pickle.loads(pickle.dumps(make_ranking_scorer("ndcg@5", ties="average")))
    assert scorer.get_metadata_routing().consumes("score", ["qid", "groups"]) == {"qid", "groups"}
    serial = cross_val_score(Ridge(), X, y, cv=GroupKFold(3), scoring=scorer,
                             params={"groups": q}, error_score="raise")
    # threads keep this cheap; scikit-learn hands the routing config to each worker
    with joblib.parallel_backend("threading", n_jobs=2):
        parallel = cross_val_score(Ridge(), X, y, cv=GroupKFold(3), scoring=scorer,
                                   params={"groups": q}, error_score="raise", n_jobs=2)
    np.testing.assert_array_equal(serial, parallel)
    ranker = pickle.loads(pickle.dumps(QueryGroupRanker(RecordingRanker()).fit(X, y, qid=q)))
    np.testing.assert_array_equal(ranker.train_qids_, np.unique(q))


# ------------------------------------------------------------------------ response_method
def test_decision_function_is_used_for_classifiers(data, routing):
    X, y, q = data
    clf = LogisticRegression().fit(X, (y >= 1).astype(int))
    by_default = make_ranking_scorer("ndcg@5")(clf, X, y, qid=q)
    assert by_default == core_value("ndcg@5", y, clf.decision_function(X), q)
    proba = make_ranking_scorer("ndcg@5", response_method="predict_proba")(clf, X, y, qid=q)
    assert proba == core_value("ndcg@5", y, clf.predict_proba(X)[:, 1], q)
    hard = make_ranking_scorer("ndcg@5", response_method="predict")(clf, X, y, qid=q)
    assert hard == core_value("ndcg@5", y, clf.predict(X), q)


def test_predict_is_used_for_regressors_and_rankers(data, routing):
    X, y, q = data
    est = QueryGroupRanker(RecordingRanker()).fit(X, y, qid=q)
    scorer = make_ranking_scorer("map", response_method=["decision_function", "predict"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankingCVWarning)  # the training rows: no split warning
        assert scorer(est, X, y, qid=q) == core_value("map", y, est.predict(X), q)
        half = q < 12
        assert scorer(est, X[half], y[half], qid=q[half]) == core_value(
            "map", y[half], est.predict(X[half]), q[half]
        )
    with warnings.catch_warnings():
        # every other row of each query, scored outside cross-validation: no splitter, no
        # split warning (an independent test set reusing ids looks the same)
        warnings.simplefilter("error", RankingCVWarning)
        warnings.filterwarnings("ignore", "(?s).*single row", RankingCVWarning)
        scorer(est, X[::2], y[::2], qid=q[::2])


def test_multiclass_response_is_rejected(data, routing):
    X, y, q = data
    clf = LogisticRegression(max_iter=200).fit(X, np.minimum(y, 2))
    with pytest.raises(ValueError, match=r"needs one score per row.*shape \(\d+, 3\)"):
        make_ranking_scorer("ndcg")(clf, X, y, qid=q)



def test_column_vector_y_is_one_label_per_row(data, routing):
    """A column vector y (a one-column DataFrame), which Ridge fits, failed in every fold with
    "y_true and y_score must have the same shape; got (n, 1) and (n,)": the scorer made the
    one-column response 1-D but not the labels. Both are one value per row now."""
    pd = require("pandas")
    X, y, q = data
    cv = GroupKFold(n_splits=3)
    want = fold_scores_by_hand(Ridge(), X, y, q, cv, "ndcg@5")
    for column in (y.reshape(-1, 1), pd.DataFrame({"label": y})):
        got = cross_val_score(Ridge(), X, column, cv=cv, scoring=make_ranking_scorer("ndcg@5"),
                              params={"groups": q}, error_score="raise")
        np.testing.assert_allclose(got, want, rtol=1e-12)

# ----------------------------------------------------------------- routing in model selection
def test_cross_val_score_routes_sliced_query_ids(data, routing):
    X, y, q = data
    cv = GroupKFold(n_splits=4)
    got = cross_val_score(Ridge(), X, y, cv=cv, scoring=ndcg_at_10_scorer,
                          params={"groups": q}, error_score="raise")
    np.testing.assert_array_equal(got, fold_scores_by_hand(Ridge(), X, y, q, cv, "ndcg@10"))


def test_cross_validate_multi_metric_equals_core(data, routing):
    X, y, q = data
    scoring = ranking_scorers("ndcg@5", "map", "mrr")
    res = cross_validate(QueryGroupRanker(RecordingRanker()), X, y, cv=GroupKFold(3),
                         scoring=scoring, params={"groups": q}, return_estimator=True,
                         return_indices=True, error_score="raise")
    for i, (est, test) in enumerate(zip(res["estimator"], res["indices"]["test"], strict=True)):
        pred = est.predict(X[test])
        for name in scoring:
            assert res[f"test_{name}"][i] == core_value(name, y[test], pred, q[test])
        # the wrapper got the training fold's ids, grouped: sizes match the fold's queries
        train = res["indices"]["train"][i]
        _, sizes = np.unique(q[train], return_counts=True)
        np.testing.assert_array_equal(est.estimator_.group_seen_, sizes)
        np.testing.assert_array_equal(est.train_qids_, np.unique(q[train]))


def test_explicit_qid_key_with_coarser_cv_groups(data, routing):
    X, y, q = data
    users = q // 3  # CV by user: every test fold holds whole users, hence whole queries
    cv = GroupKFold(3)
    res = cross_validate(Ridge(), X, y, cv=cv, scoring=ndcg_at_10_scorer,
                         params={"groups": users, "qid": q}, return_indices=True,
                         return_estimator=True, error_score="raise")
    for est, test, value in zip(res["estimator"], res["indices"]["test"], res["test_score"],
                                strict=True):
        assert value == core_value("ndcg@10", y[test], est.predict(X[test]), q[test])


def test_grid_search_multi_metric_refit(data, routing):
    X, y, q = data
    cv = GroupKFold(3)
    grid = {"alpha": [0.01, 30.0, 3000.0]}
    search = GridSearchCV(Ridge(), grid, cv=cv, scoring=ranking_scorers("ndcg@10", "map"),
                          refit="ndcg@10", error_score="raise")
    search.fit(X, y, groups=q)
    res = search.cv_results_
    for c, params in enumerate(res["params"]):
        for name in ("ndcg@10", "map"):
            by_hand = fold_scores_by_hand(Ridge(**params), X, y, q, cv, name)
            got = [res[f"split{i}_test_{name}"][c] for i in range(3)]
            np.testing.assert_array_equal(got, by_hand)
    assert search.best_index_ == int(np.argmax(res["mean_test_ndcg@10"]))
    assert search.best_score_ == res["mean_test_ndcg@10"][search.best_index_]
    # the refitted search scores new rows with the refit metric, qid routed to score()
    assert search.score(X, y, groups=q) == core_value("ndcg@10", y, search.predict(X), q)


def test_randomized_search_with_wrapper(data, routing):
    X, y, q = data
    search = RandomizedSearchCV(
        QueryGroupRanker(RecordingRanker()),
        {"estimator__alpha": [0.1, 1.0, 10.0, 100.0]},
        n_iter=3, random_state=0, cv=GroupShuffleSplit(n_splits=2, test_size=0.3,
                                                       random_state=0),
        scoring=make_ranking_scorer("ndcg@5"), error_score="raise",
    )
    search.fit(X, y, groups=q)
    cv = GroupShuffleSplit(n_splits=2, test_size=0.3, random_state=0)
    for c, params in enumerate(search.cv_results_["params"]):
        est = QueryGroupRanker(RecordingRanker()).set_params(**params)
        by_hand = fold_scores_by_hand(est, X, y, q, cv, "ndcg@5")
        got = [search.cv_results_[f"split{i}_test_score"][c] for i in range(2)]
        np.testing.assert_array_equal(got, by_hand)
    assert isinstance(search.best_estimator_, QueryGroupRanker)


def test_pipeline_routes_query_ids_to_the_wrapper(data, routing):
    X, y, q = data
    pipe = make_pipeline(StandardScaler(), QueryGroupRanker(RecordingRanker()))
    search = GridSearchCV(pipe, {"querygroupranker__estimator__alpha": [0.1, 10.0]},
                          cv=GroupKFold(3), scoring=ndcg_at_10_scorer, error_score="raise")
    search.fit(X, y, groups=q)
    ranker = search.best_estimator_[-1]
    _, sizes = np.unique(q, return_counts=True)
    np.testing.assert_array_equal(ranker.estimator_.group_seen_, sizes)
    got = search.cv_results_["split0_test_score"][search.best_index_]
    train, test = next(GroupKFold(3).split(X, y, groups=q))
    fold = clone(pipe).set_params(**search.best_params_).fit(X[train], y[train], qid=q[train])
    assert got == core_value("ndcg@10", y[test], fold.predict(X[test]), q[test])


def test_pipeline_without_routing_takes_step_parameters(data):
    X, y, q = data
    pipe = make_pipeline(StandardScaler(), QueryGroupRanker(RecordingRanker()))
    pipe.fit(X, y, querygroupranker__qid=q)
    assert pipe[-1].train_qids_.size == np.unique(q).size


def test_nested_cross_validation(data, routing):
    X, y, q = data
    inner = GridSearchCV(QueryGroupRanker(RecordingRanker()), {"estimator__alpha": [0.1, 100.0]},
                         cv=GroupKFold(2), scoring=ndcg_at_10_scorer, error_score="raise")
    res = cross_validate(inner, X, y, cv=GroupKFold(3), scoring=ranking_scorers("ndcg@10"),
                         params={"groups": q}, return_estimator=True, return_indices=True,
                         error_score="raise")
    for i, (search, test) in enumerate(zip(res["estimator"], res["indices"]["test"], strict=True)):
        train = res["indices"]["train"][i]
        # the inner search saw only the outer training queries
        np.testing.assert_array_equal(search.best_estimator_.train_qids_, np.unique(q[train]))
        assert res["test_ndcg@10"][i] == core_value(
            "ndcg@10", y[test], search.predict(X[test]), q[test]
        )


# ------------------------------------------------------------------- wrapper behaviour
def test_wrapper_sorts_rows_and_passes_group_sizes(data):
    X, y, q = data
    w = np.linspace(0.5, 2.0, len(y))
    ranker = QueryGroupRanker(RecordingRanker()).fit(X, y, qid=q, sample_weight=w)
    seen = ranker.estimator_
    order = np.argsort(q, kind="stable")
    np.testing.assert_array_equal(seen.X_seen_, X[order])
    np.testing.assert_array_equal(seen.y_seen_, y[order])
    np.testing.assert_array_equal(seen.weight_seen_, w[order])
    np.testing.assert_array_equal(seen.group_seen_, np.unique(q, return_counts=True)[1])
    np.testing.assert_array_equal(ranker.train_qids_, np.unique(q))
    assert ranker.n_features_in_ == X.shape[1]


def test_wrapper_keeps_grouped_rows_in_place():
    # queries contiguous but not sorted: no reordering, sizes in row order
    X = np.arange(12.0).reshape(6, 2)
    y = np.array([0, 1, 2, 0, 1, 1])
    q = np.array([9, 9, 2, 2, 2, 5])
    seen = QueryGroupRanker(RecordingRanker()).fit(X, y, groups=q).estimator_
    np.testing.assert_array_equal(seen.X_seen_, X)
    np.testing.assert_array_equal(seen.group_seen_, [2, 3, 1])


def test_wrapper_group_format_qid():
    class QidRanker(RecordingRanker):
        def fit(self, X, y, qid=None):
            assert list(qid) == sorted(qid)
            self.qid_seen_ = qid
            self.model_ = Ridge().fit(X, y)
            return self

    X = np.arange(10.0).reshape(5, 2)
    q = np.array(["b", "a", "b", "c", "a"])
    ranker = QueryGroupRanker(QidRanker(), group_param="qid", group_format="qid")
    ranker.fit(X, [0, 1, 2, 0, 1], qid=q)
    # the grouped rows' query numbers ("a", "a", "b", "b", "c"): XGBoost takes integers only
    assert ranker.estimator_.qid_seen_.tolist() == [0, 0, 1, 1, 2]



class _DuckRanker:
    """A ranker with scikit-learn's API but not derived from BaseEstimator (no tags)."""

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = alpha

    def get_params(self, deep: bool = True) -> dict:
        return {"alpha": self.alpha}

    def set_params(self, **params):
        for name, value in params.items():
            setattr(self, name, value)
        return self

    def fit(self, X, y, group_id=None):
        self.group_id_seen_ = group_id
        self.model_ = Ridge(alpha=self.alpha).fit(X, y)
        return self

    def predict(self, X):
        return self.model_.predict(X)


def test_wrapper_takes_a_ranker_without_sklearn_tags(data, routing):
    """QueryGroupRanker.__sklearn_tags__ read the inner estimator's tags unguarded, so every
    fit (validate_data reads the tags) of a ranker that only duck-types scikit-learn's API
    failed with AttributeError ('no attribute __sklearn_tags__'); scikit-learn's Pipeline
    keeps its defaults there, and so does the wrapper now."""
    X, y, q = data
    ranker = QueryGroupRanker(_DuckRanker(alpha=2.0), group_param="group_id",
                              group_format="qid")
    assert sklearn.utils.get_tags(ranker).target_tags.required
    fitted = clone(ranker).fit(X, y, qid=q)
    order = np.argsort(q, kind="stable")
    assert np.array_equal(fitted.estimator_.group_id_seen_,
                          np.unique(q, return_inverse=True)[1][order])
    expected = fold_scores_by_hand(ranker, X, y, q, GroupKFold(3), "ndcg@5")
    got = cross_val_score(ranker, X, y, cv=GroupKFold(3), scoring=make_ranking_scorer("ndcg@5"),
                          params={"groups": q}, error_score="raise")
    np.testing.assert_allclose(got, expected, rtol=1e-12)

def test_wrapper_group_format_qid_fits_xgboost_with_string_ids(data):
    """XGBRanker(qid=) rejects string ids ("Unicode-3 is not supported"); the wrapper passed
    them through. The model is the one fitted on integer ids of the same queries."""
    xgboost = require("xgboost")
    X, y, q = data
    names = np.array([f"query-{i:03d}" for i in range(int(q.max()) + 1)])[q]

    def fitted(ids):
        inner = xgboost.XGBRanker(n_estimators=5, max_depth=2, nthread=1, random_state=0)
        return QueryGroupRanker(inner, group_param="qid", group_format="qid").fit(X, y, qid=ids)

    np.testing.assert_array_equal(fitted(names).predict(X), fitted(q).predict(X))


def test_wrapper_passes_dataframes_through(data):
    pd = require("pandas")
    X, y, q = data
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    ranker = QueryGroupRanker(RecordingRanker()).fit(frame, pd.Series(y), qid=q)
    seen = ranker.estimator_.X_seen_
    assert isinstance(seen, pd.DataFrame)
    np.testing.assert_array_equal(seen.to_numpy(), X[np.argsort(q, kind="stable")])
    assert list(ranker.feature_names_in_) == list(frame.columns)
    assert ranker.predict(frame).shape == (len(y),)


def test_wrapper_is_clone_safe():
    ranker = QueryGroupRanker(RecordingRanker(alpha=3.0), group_param="grp")
    params = ranker.get_params(deep=True)
    assert params["estimator__alpha"] == 3.0 and params["group_param"] == "grp"
    twin = clone(ranker).set_params(estimator__alpha=5.0)
    assert twin.estimator.alpha == 5.0 and ranker.estimator.alpha == 3.0
    assert twin.estimator is not ranker.estimator


def test_wrapper_matches_lightgbm_fitted_by_hand(data):
    lgb = require("lightgbm")
    X, y, q = data
    params = dict(n_estimators=8, num_leaves=7, min_child_samples=3, verbose=-1, n_jobs=1,
                  deterministic=True, force_row_wise=True)
    ranker = QueryGroupRanker(lgb.LGBMRanker(**params)).fit(X, y, groups=q)
    order = np.argsort(q, kind="stable")
    by_hand = lgb.LGBMRanker(**params).fit(X[order], y[order],
                                          group=np.unique(q, return_counts=True)[1])
    np.testing.assert_array_equal(ranker.predict(X), by_hand.predict(X))


def test_lightgbm_ranker_in_grid_search_pipeline(data, routing):
    lgb = require("lightgbm")
    X, y, q = data
    pipe = make_pipeline(StandardScaler(), QueryGroupRanker(
        lgb.LGBMRanker(n_estimators=5, min_child_samples=3, verbose=-1, n_jobs=1)))
    search = GridSearchCV(pipe, {"querygroupranker__estimator__num_leaves": [3, 7]},
                          cv=GroupKFold(3), scoring=ranking_scorers("ndcg@10", "map"),
                          refit="ndcg@10", error_score="raise").fit(X, y, groups=q)
    assert search.best_index_ == int(np.argmax(search.cv_results_["mean_test_ndcg@10"]))
    assert np.all(np.isfinite(search.cv_results_["mean_test_map"]))


# ----------------------------------------------------------------------------- errors
def test_error_when_routing_is_not_enabled(data):
    X, y, q = data
    with pytest.raises(ValueError, match="metadata routing is not enabled"):
        cross_val_score(Ridge(), X, y, groups=q, cv=GroupKFold(3), scoring=ndcg_scorer,
                        error_score="raise")
    with pytest.raises(ValueError, match="metadata routing is not enabled"):
        GridSearchCV(Ridge(), {"alpha": [1.0]}, cv=GroupKFold(3), scoring=ndcg_scorer,
                     error_score="raise").fit(X, y, groups=q)
    # a direct call with qid needs routing too (scikit-learn's own check)
    with pytest.raises((ValueError, TypeError), match="enable_metadata_routing"):
        ndcg_scorer(Ridge().fit(X, y), X, y, qid=q)


def test_default_error_score_turns_the_error_into_a_warning(data):
    X, y, q = data
    with pytest.warns(UserWarning, match="metadata routing is not enabled"):
        scores = cross_val_score(Ridge(), X, y, groups=q, cv=GroupKFold(3),
                                 scoring=ndcg_scorer)
    assert np.all(np.isnan(scores))


def test_error_when_query_ids_are_missing(data, routing):
    X, y, q = data
    with pytest.raises(ValueError, match="got neither 'qid' nor 'groups'"):
        cross_val_score(Ridge(), X, y, cv=KFold(3), scoring=ndcg_scorer, error_score="raise")
    with pytest.raises(ValueError, match="got neither 'qid' nor 'groups'"):
        ndcg_scorer(Ridge().fit(X, y), X, y)
    with pytest.raises(ValueError, match="qid must have one entry per row"):
        ndcg_scorer(Ridge().fit(X, y), X, y, qid=q[:-1])


def test_errors_about_groups_name_groups(data, routing):
    """Ids passed as ``groups`` (the recommended key) were named ``qid`` in every error
    ("qid must have one entry per row", "qid is a masked array ..."), an argument the caller
    never gave; the scorer and QueryGroupRanker.fit now name the key the ids came from."""
    X, y, q = data
    est = Ridge().fit(X, y)
    with pytest.raises(ValueError, match=r"^groups must have one entry per row"):
        ndcg_scorer(est, X, y, groups=q[:-1])
    hidden = np.ma.array(q, mask=np.arange(q.shape[0]) == 1)
    with pytest.raises(ValueError, match=r"^groups is a masked array with masked entries"):
        ndcg_scorer(est, X, y, groups=hidden)
    with pytest.raises(ValueError, match=r"^groups is a masked array with masked entries"):
        QueryGroupRanker(Ridge()).fit(X, y, groups=hidden)
    with pytest.raises(ValueError, match=r"^qid is a masked array with masked entries"):
        ndcg_scorer(est, X, y, qid=hidden, groups=q)


def test_wrapper_errors_without_query_ids(data):
    X, y, q = data
    with pytest.raises(ValueError, match="QueryGroupRanker.fit needs per-row query ids.*not "
                                         "enabled"):
        QueryGroupRanker(RecordingRanker()).fit(X, y)
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match="got neither 'qid' nor 'groups'"):
            QueryGroupRanker(RecordingRanker()).fit(X, y)
        with pytest.raises(ValueError, match="Metadata routing is enabled"):
            cross_val_score(QueryGroupRanker(RecordingRanker()), X, y, cv=KFold(2),
                            scoring=ndcg_scorer, error_score="raise")


def test_refit_without_early_stopping_drops_the_earlier_curve(data):
    lgb = require("lightgbm")
    X, y, q = data
    ranker = QueryGroupRanker(
        lgb.LGBMRanker(n_estimators=8, min_child_samples=2, verbose=-1, n_jobs=1),
        early_stopping=True, n_iter_no_change=2, random_state=0).fit(X, y, qid=q)
    assert ranker.n_iter_ >= ranker.best_iteration_ >= 1
    ranker.set_params(early_stopping=False).fit(X, y, qid=q)
    for attr in ("validation_qids_", "validation_score_", "best_iteration_", "n_iter_"):
        assert not hasattr(ranker, attr), attr
    assert ranker.estimator_.n_estimators_ == 8


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"group_format": "offsets"}, ValueError, "group_format must be 'sizes' or 'qid'"),
        ({"group_param": ""}, ValueError, "group_param must name a keyword"),
        # early-stopping parameters are checked with early stopping off too
        ({"ties": "bogus"}, ValueError, "ties must be one of"),
        ({"scoring": "ndcgg@10"}, ValueError, "ndcgg"),
        ({"validation_fraction": 1.5}, ValueError, "validation_fraction must be"),
        ({"n_iter_no_change": 0}, ValueError, "n_iter_no_change must be"),
        ({"tol": -1.0}, ValueError, "tol must be"),
        ({"early_stopping": "yes"}, TypeError, "early_stopping must be True or False"),
    ],
)
def test_wrapper_parameter_errors(data, kwargs, exc, match):
    X, y, q = data
    with pytest.raises(exc, match=match):
        QueryGroupRanker(RecordingRanker(), **kwargs).fit(X, y, qid=q)


def test_wrapper_input_errors(data):
    X, y, q = data
    ranker = QueryGroupRanker(RecordingRanker())
    with pytest.raises(ValueError, match="requires y to be passed"):
        ranker.fit(X, None, qid=q)
    with pytest.raises(ValueError, match="X must be 2-D.*Reshape your data"):
        ranker.fit(X[:, 0], y, qid=q)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        ranker.fit(X, y, qid=q[:-1])
    with pytest.raises(ValueError, match="sample_weight must not be all zero"):
        ranker.fit(X, y, qid=q, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="sample_weight must be >= 0"):
        ranker.fit(X, y, qid=q, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match=r"sample_weight must have one weight per row \(\d+,\)"):
        ranker.fit(X, y, qid=q, sample_weight=np.ones((len(y), 2)))
    fitted = clone(ranker).fit(X, y, qid=q)
    with pytest.raises(ValueError, match="X has 2 features"):
        fitted.predict(X[:, :2])
    with pytest.raises(NotFittedError):
        clone(ranker).predict(X)


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        (("ndgc",), {}, ValueError, "unknown measure 'ndgc'"),
        (("ndcg@5",), {"k": 10}, ValueError, "has cutoff 5 but k=10"),
        (("ndcg",), {"k": 0}, ValueError, "k must be a positive int"),
        (("ndcg",), {"k": 2.5}, TypeError, "k must be a positive int"),
        (("ndcg",), {"threshold": 2}, TypeError, "option 'threshold'.*ndcg does not take"),
        (("map",), {"gain": "linear"}, TypeError, "option 'gain'"),
        (("ndcg",), {"ties": "random"}, ValueError, r"make_ranking_scorer\('ndcg'\): ties must"),
        (("ndcg",), {"gain": "cubic"}, ValueError, r"make_ranking_scorer\('ndcg'\).*cubic"),
        (("ndcg",), {"response_method": "transform"}, ValueError, "response_method must name"),
        (("ndcg",), {"response_method": []}, ValueError, "response_method must be one of"),
        (("ndcg",), {"split_queries": "maybe"}, ValueError, "split_queries must be one of"),
    ],
)
def test_make_ranking_scorer_argument_errors(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        make_ranking_scorer(*args, **kwargs)


def test_ranking_scorers_errors():
    with pytest.raises(ValueError, match="at least one metric"):
        ranking_scorers()
    with pytest.raises(ValueError, match="metric name twice"):
        ranking_scorers("map", "map")


# ------------------------------------------------------------------- warnings on layout
def test_warns_on_single_row_queries(routing):
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 1, 1, 0])
    q = np.array([1, 1, 2, 3])
    est = Ridge().fit(X, y)
    with pytest.warns(RankingCVWarning, match="2 of 3 queries in the evaluated rows have a "
                                              "single row"):
        value = ndcg_scorer(est, X, y, qid=q)
    assert value == rankmetrics.ndcg_score(y, est.predict(X), q)



def test_single_row_warning_once_per_layout_for_object_ids(routing):
    """Timezone-aware datetime query ids stay Python objects; the once-per-layout key hashed
    their bytes, i.e. object addresses, which change at every slicing of the pandas column
    (and are reused after collection): a 4-candidate search over 3 folds warned 10 times
    instead of 3 (once per fold, as with integer ids)."""
    pd = require("pandas")
    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(9), [1, 3, 4, 1, 5, 2, 1, 3, 4])
    X, y = rng.normal(size=(q.size, 2)), rng.integers(0, 3, q.size)
    stamps = pd.Series(pd.Timestamp("2024-01-01", tz="UTC") + pd.to_timedelta(q, "D"))
    for ids in (q, stamps):
        _sk._WARNED.clear()
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            GridSearchCV(Ridge(), {"alpha": [0.1, 1.0, 10.0, 100.0]}, cv=GroupKFold(3),
                         scoring=make_ranking_scorer("ndcg"), error_score="raise"
                         ).fit(X, y, groups=ids)
        assert sum(issubclass(w.category, RankingCVWarning) for w in seen) == 3

def test_warns_when_the_splitter_cuts_queries(data, routing):
    X, y, q = data
    ranker = QueryGroupRanker(RecordingRanker())
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "(?s).*single row", RankingCVWarning)
        with pytest.warns(RankingCVWarning, match="also occur in the rows the estimator was "
                                                  "fitted on"):
            cross_val_score(ranker, X, y, cv=KFold(3), scoring=ndcg_scorer,
                            params={"groups": q}, error_score="raise")
    strict = make_ranking_scorer("ndcg", split_queries="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankingCVWarning)  # single-row queries of cut folds
        with pytest.raises(ValueError, match="splitter cut queries between train and test"):
            cross_val_score(make_pipeline(StandardScaler(), ranker), X, y, cv=KFold(3),
                            scoring=strict, params={"groups": q}, error_score="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankingCVWarning)
        # grouped folds: no shared ids, no warning; scoring the training rows is no split
        res = cross_validate(ranker, X, y, cv=GroupKFold(3), scoring=strict,
                             params={"groups": q}, return_train_score=True, error_score="raise")
        assert np.all(np.isfinite(res["train_score"]))
        # an independent set that reuses ids: opt out
        lax = make_ranking_scorer("ndcg", split_queries="ignore")
        fitted = clone(ranker).fit(X, y, qid=q)
        assert lax(fitted, X, y, qid=q) == rankmetrics.ndcg_score(y, fitted.predict(X), q)



def test_wrapper_reports_queries_cut_into_equal_halves(routing):
    """A fitted QueryGroupRanker was checked only against its training ids and row counts, so a
    splitter that cut every query into two halves of equal size (KFold(2) on interleaved
    queries) was taken for training rows scored again: no warning, and split_queries="raise"
    let the cut queries through. The fold's own train/test ids decide now, as for any
    estimator."""
    rng = np.random.default_rng(0)
    q = np.tile(np.arange(6), 10)  # KFold(2): 5 rows of every query in train, 5 in test
    X = rng.normal(size=(q.size, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 0] > 1)
    strict = make_ranking_scorer("ndcg@10", split_queries="raise")
    for est in (QueryGroupRanker(RecordingRanker()),
                make_pipeline(StandardScaler(), QueryGroupRanker(RecordingRanker()))):
        with pytest.raises(ValueError, match="6 of 6 query ids"):
            cross_val_score(est, X, y, cv=KFold(2), scoring=strict, params={"groups": q},
                            error_score="raise")
        with pytest.warns(RankingCVWarning, match="splitter cut queries between train"):
            cross_val_score(est, X, y, cv=KFold(2), scoring=make_ranking_scorer("ndcg@10"),
                            params={"groups": q}, error_score="raise")
        _sk._WARNED.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankingCVWarning)  # grouped folds, training rows scored
        res = cross_validate(QueryGroupRanker(RecordingRanker()), X, y, cv=GroupKFold(3),
                             scoring=strict, params={"groups": q}, return_train_score=True,
                             error_score="raise")
    assert np.all(np.isfinite(res["train_score"]))

# ------------------------------------------------------------------------ estimator checks
class _IdsForChecks(QueryGroupRanker):
    """Test-only: supplies query ids (3 interleaved queries) when scikit-learn's checks don't.

    Estimator checks call ``fit(X, y)`` with no metadata; this subclass differs from
    QueryGroupRanker only there, so the checks exercise the real sorting/grouping code.
    """

    def fit(self, X, y, qid=None, groups=None, sample_weight=None):
        if qid is None and groups is None:
            n = X.shape[0] if hasattr(X, "shape") else np.asarray(X).shape[0]
            qid = np.arange(n) % 3
        return super().fit(X, y, qid=qid, groups=groups, sample_weight=sample_weight)


# scikit-learn's array API check needs SCIPY_ARRAY_API in the environment before scipy is
# imported, so in this process it can only skip: it is left out here and run by
# test_array_api_check_in_a_fresh_process, where the variable is set (a skip there is a
# failure, in CI and outside it).
_RUN_ELSEWHERE = frozenset({"check_array_api_input"})


def _check_name(check) -> str:
    return getattr(check, "func", check).__name__


def _run_checks(estimator, expected_failed_checks=None):
    """scikit-learn's estimator checks (``estimator_checks_generator``, legacy ones included)
    except ``_RUN_ELSEWHERE``, each recorded as check_estimator records it: name, status
    ("passed", "failed", or "expected failure" for one of ``expected_failed_checks``, which
    must fail) and exception. A
    check scikit-learn skips is a check not made: the test fails at once, in CI and outside
    it alike."""
    expected = expected_failed_checks or {}
    results = []
    for est, check in estimator_checks_generator(estimator, legacy=True,
                                                 expected_failed_checks=expected, mark=None):
        name = _check_name(check)
        if name in _RUN_ELSEWHERE:
            continue
        try:
            call_unskipped(f"scikit-learn's {name}", check, est)
        except Exception as exc:  # a check failing is a result here, not an error
            status = "expected failure" if name in expected else "failed"
            results.append({"check_name": name, "status": status, "exception": exc})
        else:
            results.append({"check_name": name, "status": "passed", "exception": None})
    return results


def _failures(results):
    """The checks that did not pass."""
    return {r["check_name"]: r for r in results if r["status"] != "passed"}


_ARRAY_API_CHECK = """
import sys
sys.path.insert(0, {tests!r})
from sklearn.utils.estimator_checks import check_array_api_input
import test_sklearn as t
est = t._IdsForChecks({ranker})
# a check scikit-learn skips raises: this process then exits non-zero, as on a failure
check_array_api_input(type(est).__name__, est, array_namespace="numpy",
                      expect_only_array_outputs=False)
print("PASSED")
"""


@pytest.mark.parametrize("ranker", ["t.RecordingRanker()", "lightgbm"])
def test_array_api_check_in_a_fresh_process(ranker):
    # scikit-learn's check_array_api_input for an estimator without array API support: with
    # array API dispatch on and NumPy inputs, the wrapper's results do not change
    import os
    import subprocess
    import sys
    from pathlib import Path

    if ranker == "lightgbm":
        require("lightgbm")
        ranker = ("__import__('lightgbm').LGBMRanker(n_estimators=3, min_child_samples=1, "
                  "verbose=-1, n_jobs=1)")
    tests = str(Path(__file__).resolve().parent)
    env = {**os.environ, "SCIPY_ARRAY_API": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", _ARRAY_API_CHECK.format(tests=tests,
                                                                         ranker=ranker)],
                          env=env, capture_output=True, text=True, timeout=600)
    # a check scikit-learn skipped (e.g. no array API support in the installed versions) is
    # a check not made: a failure in CI and outside it alike, never a skip
    assert proc.returncode == 0, f"check_array_api_input did not pass:\n{proc.stderr[-3000:]}"
    last = proc.stdout.strip().splitlines()[-1]
    assert last == "PASSED", f"check_array_api_input did not pass: {proc.stdout[-2000:]}"


def _messages(exc):
    while exc is not None:
        yield str(exc)
        exc = exc.__cause__ or exc.__context__


def test_estimator_checks_bare_wrapper_fail_only_for_missing_query_ids():
    # scikit-learn's checks never pass query ids, so every check that fits must fail with
    # our message, and no other check may fail.
    results = _run_checks(QueryGroupRanker(RecordingRanker()))
    failures = _failures(results)
    assert failures, "expected the checks that fit without query ids to fail"
    for name, r in failures.items():
        assert any("per-row query ids" in m for m in _messages(r["exception"])), (name, r)
    assert "check_get_params_invariance" not in failures
    assert "check_estimator_cloneable" not in failures


def test_estimator_checks_with_query_ids():
    results = _run_checks(_IdsForChecks(RecordingRanker()))
    assert _failures(results) == {}


# LightGBM itself fails these; they are about LightGBM, not the wrapper.
LIGHTGBM_EXPECTED_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data":
        "LightGBM bins features and counts min_child_samples by rows, so a weight of 2 is not "
        "the same model as a repeated row",
    "check_sample_weight_equivalence_on_sparse_data": "as for dense data",
}


def test_estimator_checks_with_lightgbm_ranker():
    lgb = require("lightgbm")
    est = _IdsForChecks(lgb.LGBMRanker(n_estimators=3, min_child_samples=1, verbose=-1,
                                       n_jobs=1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # LightGBM: "Converting data to sparse"
        results = _run_checks(est, expected_failed_checks=LIGHTGBM_EXPECTED_FAILURES)
    assert _failures(results).keys() == LIGHTGBM_EXPECTED_FAILURES.keys()
    assert all(r["status"] == "expected failure" for r in _failures(results).values())


def test_scorer_takes_sample_weight_and_keeps_its_query_id_requests(data, routing):
    """``scorer(est, X, y, qid=q, sample_weight=w)`` raised a TypeError from the core, and
    ``set_score_request(sample_weight=True)`` dropped the ``qid``/``groups`` requests, so a
    search then failed for want of query ids. A query now weighs the mean of its rows'
    weights (LightGBM's rule), and the requests add up."""
    X, y, q = data
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    est = Ridge().fit(X, y)
    scorer = make_ranking_scorer("ndcg@5").set_score_request(sample_weight=True)
    requests = scorer.get_metadata_routing().score.requests
    assert requests == {"qid": True, "groups": True, "sample_weight": True}
    values = rankmetrics.ndcg(y, est.predict(X), q, k=5, gain="linear")
    _, inv = np.unique(q, return_inverse=True)
    qw = np.bincount(inv, weights=w) / np.bincount(inv)
    assert scorer(est, X, y, qid=q, sample_weight=w) == pytest.approx(
        np.average(values, weights=qw), abs=1e-12)
    assert scorer(est, X, y, qid=q) == pytest.approx(values.mean(), abs=1e-12)
    with pytest.raises(ValueError, match="sample_weight"):
        scorer(est, X, y, qid=q, sample_weight=w[:-1])
    got = cross_val_score(Ridge().set_fit_request(sample_weight=False), X, y, cv=GroupKFold(3),
                          scoring=scorer, params={"groups": q, "sample_weight": w})
    assert got.shape == (3,) and np.all(np.isfinite(got))


def test_scorer_called_without_labels_says_so(data):
    """``scorer(est, X, None, qid=...)`` died in an IndexError from the row count."""
    X, y, q = data
    est = Ridge().fit(X, y)
    scorer = make_ranking_scorer("ndcg@5")
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match="y is None; a ranking scorer needs"):
            scorer(est, X, None, qid=q)


def test_plain_estimator_with_a_splitter_that_cuts_queries(routing):
    # a plain estimator records no training ids: the fold's train/test rows tell the split
    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(6), 20)  # KFold(2) cuts every query into pieces of many rows
    y = rng.integers(0, 3, q.size)
    X = rng.normal(size=(q.size, 3))
    cut = KFold(2, shuffle=True, random_state=0)
    with pytest.warns(RankingCVWarning, match="splitter cut queries between train and test"):
        cross_val_score(Ridge(), X, y, cv=cut, scoring=make_ranking_scorer("ndcg@10"),
                        params={"groups": q}, error_score="raise")
    strict = make_ranking_scorer("ndcg@10", split_queries="raise")
    with pytest.raises(ValueError, match="6 of 6 query ids"):
        cross_val_score(Ridge(), X, y, cv=cut, scoring=strict, params={"groups": q},
                        error_score="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankingCVWarning)
        res = cross_validate(Ridge(), X, y, cv=GroupKFold(2), scoring=strict,
                             params={"groups": q}, return_train_score=True,
                             error_score="raise")
    assert np.all(np.isfinite(res["test_score"]))
