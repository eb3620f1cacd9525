"""Named regressions of issue #17 ("Exact at the edges"): every reproducer of the issue that is
not about the TREC/session file readers, custom TREC gains or memory, plus the other defects of
the same kind found while fixing them. Each test fails on the code before the fix."""

from __future__ import annotations

import datetime
import pickle
import sys
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm
from rankmetrics import QueryPlan

pd = require("pandas")

A = 6148914691236517205  # a + (-a - 1) = -1 and 0 - a, a - (-a - 1) wrap in int64


# ------------------------------------------------------------------- items 1-3: query ids
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_issue17_item1_unsigned_qids(dtype):
    q = np.array([1, 2, 1], dtype=dtype)
    got = rm.ndcg([1, 0, 1], [0.1, 0.2, 0.3], q)
    np.testing.assert_array_equal(got, rm.ndcg([1, 0, 1], [0.1, 0.2, 0.3], [1, 2, 1]))
    assert got.shape == (2,)
    plan = QueryPlan([1, 0, 1], q)
    np.testing.assert_array_equal(plan.qids, [1, 2])
    # query_weight follows np.unique(qid): weight 0 on query 2 leaves query 1 only
    assert rm.ndcg_score([1, 0, 1], [0.1, 0.2, 0.3], q, query_weight=[1, 0]) == 1.0


def test_issue17_item1_unsigned_qids_sklearn_scorer():
    require("sklearn")
    import sklearn
    from sklearn.linear_model import LinearRegression

    from rankmetrics.sklearn import make_ranking_scorer

    X = np.array([[0.0], [1.0], [2.0], [2.0], [0.5], [1.5]])
    y = np.array([1, 0, 1, 2, 0, 1])
    est = LinearRegression().fit(X, y)
    scorer = make_ranking_scorer("ndcg@2")
    q = np.array([3, 1, 3, 1, 2, 2], dtype=np.uint32)
    want = rm.ndcg_score(y, est.predict(X), q.astype(np.int64), k=2)
    with sklearn.config_context(enable_metadata_routing=True):
        assert scorer(est, X, y, qid=q) == pytest.approx(want, abs=1e-15)
        assert scorer(est, X, y, qid=q.astype(np.uint64)) == pytest.approx(want, abs=1e-15)


def test_issue17_item2_far_apart_int64_qids():
    q = np.array([0, A, -A - 1, 0], dtype=np.int64)
    got = rm.ndcg([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], q)
    assert got.shape == (3,)
    plan = QueryPlan([1, 0, 1, 0], q)
    np.testing.assert_array_equal(plan.qids, np.unique(q))
    np.testing.assert_array_equal(plan.sizes, [1, 2, 1])
    plan = QueryPlan([1, 0], [2**62, -(2**62) - 1])
    np.testing.assert_array_equal(plan.qids, [-(2**62) - 1, 2**62])
    np.testing.assert_array_equal(
        QueryPlan([1, 0], np.array([2**64 - 1, 0], dtype=np.uint64)).qids, [0, 2**64 - 1])


def test_issue17_item3_object_qids_ordered_as_numbers():
    plan = QueryPlan([1, 0, 1], np.array([10, 2, 10], dtype=object))
    np.testing.assert_array_equal(plan.qids, [2, 10])
    np.testing.assert_array_equal(plan.sizes, [1, 2])
    # 1 and 1.0 are one id (Python's ==); a huge Python int keeps its exact value
    assert QueryPlan([1, 0], np.array([1, 1.0], dtype=object)).n_queries == 1
    big = np.array([2**70, 5, 2**70], dtype=object)
    plan = QueryPlan([1, 0, 1], big)
    assert plan.qids.tolist() == [5, 2**70]


@pytest.mark.parametrize("bad", [
    [1, "1"],
    [1, b"1"],
    ["a", 2.5],
    [2**60 + 1, 0.5],  # not exactly a float64: mixing would merge or split ids
    [Decimal(1), Decimal(2)],
    [(1,), (2,)],
])
def test_issue17_item3_mixed_or_foreign_qids_raise_type_error(bad):
    ids = np.empty(2, dtype=object)
    ids[:] = bad
    with pytest.raises(TypeError, match="qid"):
        rm.ndcg([1, 0], [0.1, 0.2], ids)
    if not isinstance(bad[0], tuple):  # a list of tuples is a 2-D array (a ValueError)
        for seq in (list(bad), tuple(bad)):  # numpy would coerce these to one kind
            with pytest.raises(TypeError, match="qid"):
                rm.ndcg([1, 0], [0.1, 0.2], seq)
            with pytest.raises(TypeError, match="qid"):
                QueryPlan([1, 0], seq)


def test_issue17_item3_qid_lists_follow_the_object_rule():
    """A Python list of ids is grouped as the same ids in an object array are: numpy's own
    conversion would make [1, "1"] two strings (one query) and [2**53 + 1, 2.0**53] two
    equal floats (one query)."""
    y, s = [1, 0, 0, 1], [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(TypeError, match="qid"):
        rm.ndcg(y, s, [2**53 + 1, 2**53 + 1, 2.0**53, 2.0**53])
    with pytest.raises(TypeError, match="qid"):
        rm.ndcg(y, s, [1, 1, "1", "1"])
    for ids in ([1, 1, 2.0, 2.0], [1.5, 1.5, 2, 2], [np.int8(1), 1, np.float32(2.0), 2.0]):
        plan = QueryPlan(y, ids)
        assert plan.n_queries == 2
        np.testing.assert_array_equal(rm.ndcg(y, s, ids), rm.ndcg(y, s, [0, 0, 1, 1]))


@pytest.mark.parametrize("missing", [None, float("nan"), np.nan, "NA", "NaT"])
def test_issue17_item3_missing_qids_raise_value_error(missing):
    value = {"NA": pd.NA, "NaT": pd.NaT}.get(missing, missing) if isinstance(missing, str) \
        else missing
    for ids in ([1, value, 1], ["a", value, "a"]):
        with pytest.raises(ValueError, match="qid"):
            rm.ndcg([1, 0, 1], [0.1, 0.2, 0.3], np.array(ids, dtype=object))
    with pytest.raises(ValueError, match="qid"):
        rm.ndcg([1, 0, 1], [0.1, 0.2, 0.3], pd.array(["a", None, "a"], dtype="string"))
    with pytest.raises(ValueError, match="qid"):
        rm.ndcg([1, 0, 1], [0.1, 0.2, 0.3], pd.array([1, None, 1], dtype="Int64"))


_UTC = datetime.timezone.utc
_PLUS1 = datetime.timezone(datetime.timedelta(hours=1))


@pytest.mark.parametrize("ids, n_queries", [
    ([datetime.date(2024, 1, 2), datetime.date(2024, 1, 1), datetime.date(2024, 1, 2)], 2),
    ([datetime.datetime(2024, 1, 1, 5), datetime.datetime(2024, 1, 1),
      datetime.datetime(2024, 1, 1, 5)], 2),
    # equal instants in two time zones are one id, as Python's == says
    ([datetime.datetime(2024, 1, 1, 1, tzinfo=_PLUS1), datetime.datetime(2024, 1, 2, tzinfo=_UTC),
      datetime.datetime(2024, 1, 1, tzinfo=_UTC)], 2),
    ([pd.Timestamp("2024-01-01"), datetime.datetime(2024, 1, 1),
      pd.Timestamp("2024-01-01 00:00:00.000000001")], 2),
    ([datetime.timedelta(2), datetime.timedelta(1), datetime.timedelta(2)], 2),
    ([np.timedelta64(2, "D"), np.timedelta64(48, "h"), np.timedelta64(1, "D")], 2),
])
def test_issue17_date_and_time_qids_group_as_python_compares_them(ids, n_queries):
    """Lists and object arrays (pandas object columns, tz-aware Timestamp columns) of dates,
    datetimes or durations are query ids, as the README says; the values and the grouping are
    those of the same queries numbered by Python's own order."""
    y, s = [1, 0, 1], [0.2, 0.3, 0.1]
    key = sorted(set(ids))
    dense = [key.index(x) for x in ids]
    want = rm.ndcg(y, s, dense)
    for q in (ids, np.array(ids, dtype=object), pd.Series(ids, dtype=object)):
        plan = QueryPlan(y, q)
        assert plan.n_queries == n_queries == len(key)
        np.testing.assert_array_equal(rm.ndcg(y, s, q), want)
    stamps = pd.Series(pd.to_datetime(["2024-01-02", "2024-01-01", "2024-01-02"]))
    for col in (stamps, stamps.dt.tz_localize("UTC"), stamps.dt.tz_localize("Europe/Paris")):
        np.testing.assert_array_equal(rm.ndcg(y, s, col), rm.ndcg(y, s, [1, 0, 1]))


@pytest.mark.parametrize("bad, error", [
    ([datetime.date(2024, 1, 1), datetime.datetime(2024, 1, 1)], TypeError),
    ([datetime.datetime(2024, 1, 1), datetime.datetime(2024, 1, 1, tzinfo=_UTC)], TypeError),
    ([datetime.date(2024, 1, 1), "2024-01-01"], TypeError),
    ([datetime.date(2024, 1, 1), np.datetime64("2024-01-01")], TypeError),
    ([pd.Timestamp("2024-01-01"), pd.NaT], ValueError),
    ([datetime.timedelta(1), None], ValueError),
])
def test_issue17_date_qids_of_mixed_kinds_or_missing_raise(bad, error):
    for q in (bad, np.array(bad, dtype=object)):
        with pytest.raises(error, match="qid"):
            rm.ndcg([1, 0], [0.1, 0.2], q)


def test_issue17_item3_datetime_and_complex_qids():
    t = np.array(["2024-01-01", "NaT", "2024-01-01"], dtype="datetime64[D]")
    with pytest.raises(ValueError, match="qid"):
        rm.ndcg([1, 0, 1], [0.1, 0.2, 0.3], t)
    with pytest.raises(TypeError, match="qid"):
        rm.ndcg([1, 0, 1], [0.1, 0.2, 0.3], np.array([1j, 2j, 1j]))


def test_issue17_item3_stats_alignment_rejects_mixed_ids():
    require("scipy")
    from rankmetrics.stats import compare

    a = {1: 0.5, 2: 0.7, 3: 0.1}
    b = {"1": 0.4, "2": 0.6, "3": 0.2}
    with pytest.raises(TypeError, match="query ids of scores"):
        compare({"A": a, "B": b})


# -------------------------------------------------------------------- item 6: score exactness
@pytest.mark.parametrize("scores", [
    [2**64, 2**64 + 1],
    [2**63, 2**63 + 1],
    np.array([2**63, 2**63 + 1], dtype=np.uint64),
    [2**62 + 1, 2**62, 0.5],  # numpy would turn this list into float64 silently
    np.array([2**53 + 1, 1], dtype=object),
])
def test_issue17_item6_integers_beyond_2_53(scores):
    labels = [0, 1, 0][: len(scores)]
    with pytest.raises(ValueError, match=r"y_score has integers of magnitude 2\*\*53 or more"):
        rm.ndcg(labels, scores, k=1)


def test_issue17_item6_decimal_fraction_longdouble():
    # distinct values that float64 would merge into a false tie: an error
    with pytest.raises(ValueError, match="y_score has distinct values that float64"):
        rm.ndcg([0, 1], [Decimal("1.00000000000000000001"), Decimal(1)], k=1)
    with pytest.raises(ValueError, match="y_score has distinct values that float64"):
        rm.ndcg([0, 1], [Fraction(1, 3) + Fraction(1, 10**30), Fraction(1, 3)], k=1)
    if np.finfo(np.longdouble).nmant > 52:
        ld = np.array([1, 1], dtype=np.longdouble)
        ld[0] += np.longdouble(2) ** -60
        with pytest.raises(ValueError, match="y_score has distinct values that float64"):
            rm.ndcg([0, 1], ld, k=1)
    # values float64 keeps apart: the exact answer
    assert rm.ndcg([0, 1], [Decimal("1.5"), Decimal(1)], k=1)[0] == 0.0
    assert rm.ndcg([0, 1], [Fraction(1, 3), Fraction(1, 2)], k=1)[0] == 1.0
    assert rm.ndcg([0, 1], np.array([1, 2], dtype=np.longdouble), k=1)[0] == 1.0


@pytest.mark.parametrize("scores", [
    [1 + 5j, 1],
    np.array([1 + 0j, 2 + 0j]),
    np.array([1 + 5j, 1], dtype=object),
    ["1", "2"],
])
def test_issue17_item6_complex_and_strings_rejected(scores, recwarn):
    with pytest.raises(TypeError, match="y_score"):
        rm.ndcg([0, 1], scores)
    assert not [w for w in recwarn if issubclass(w.category, np.exceptions.ComplexWarning)]


def test_issue17_item6_labels_complex_and_missing():
    with pytest.raises(TypeError, match="y_true"):
        rm.ndcg([1 + 1j, 0], [1, 2])
    with pytest.raises(ValueError, match="y_true must be finite; found nan"):
        rm.ndcg(np.array([1, None], dtype=object), [1, 2])
    with pytest.raises(ValueError, match="y_true has missing values"):
        rm.ndcg(np.array([1, pd.NA], dtype=object), [1, 2])
    with pytest.raises(ValueError, match="y_score has missing values"):
        rm.ndcg([1, 0], np.array([1, pd.NA], dtype=object))


def test_issue17_item6_torch_host_inputs():
    torch = require("torch")
    rmt = require("rankmetrics.torch")
    with pytest.raises(ValueError, match=r"preds has integers of magnitude 2\*\*53 or more"):
        rmt.ndcg([2**63, 2**63 + 1], [1, 0], k=1)
    with pytest.raises(ValueError, match=r"preds has uint64 values >= 2\*\*63"):
        rmt.ndcg(torch.tensor([2**63, 1], dtype=torch.uint64), torch.tensor([1, 0]), k=1)
    with pytest.raises(ValueError, match=r"preds has integers of magnitude 2\*\*53 or more"):
        rmt.ndcg(torch.tensor([2**60, 1], dtype=torch.uint64), torch.tensor([1, 0]), k=1)
    got = rmt.ndcg(torch.tensor([1, 2, 2], dtype=torch.uint32), torch.tensor([0, 1, 2]), k=1)
    assert float(got[0]) == pytest.approx(float(rm.ndcg([0, 1, 2], [1, 2, 2], k=1)[0]))


# ----------------------------------------------------------------- item 7: label gain limit
def test_issue17_item7_labels_at_the_limit_are_exact():
    # 2**53 - 1 gains are exact; three of them no longer overflow
    vals = rm.ndcg([53, 53, 53], [1, 2, 3])
    assert vals[0] == 1.0
    assert rm.cg([53, 53], [1, 2])[0] == 2.0 * (2.0**53 - 1)
    with pytest.raises(ValueError, match=r"label 54 is too large for gain 2\*\*l - 1"):
        rm.ndcg([54, 0], [1, 2])
    with pytest.raises(ValueError, match=r"label 1023 is too large"):
        rm.cg([1023, 1023], [1, 2])


def test_issue17_item7_torch_labels_at_the_limit():
    torch = require("torch")
    rmt = require("rankmetrics.torch")
    got = rmt.ndcg(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([53, 53, 53]))
    assert float(got[0]) == 1.0
    with pytest.raises(ValueError, match=r"label 1023 is too large"):
        rmt.cg(torch.tensor([1.0, 2.0]), torch.tensor([1023, 1023]))


def test_issue17_item7_overflowing_custom_gains_raise():
    with pytest.raises(ValueError, match="gain x discount sums overflow float64"):
        rm.dcg([1, 1], [1, 2], gain=[0, 1e308])
    with pytest.raises(ValueError, match="gain x discount sums overflow float64"):
        rm.ndcg_curve([1, 0], [1, 2], depth=2, gain=[0, 1e308],
                      discount=lambda r: np.full(r.shape, 10.0))


# ------------------------------------------------------------- item 8: torch split queries
def _rank_test(shared_data):
    from rankmetrics.datasets import load_letor

    folder = shared_data / "lightgbm_lambdarank"
    d = load_letor(folder / "rank.test", folder / "rank.test.query", n_features=300)
    X = d.X.toarray() if hasattr(d.X, "toarray") else np.asarray(d.X)
    return d.y, X[:, 5], d.qid


def test_issue17_item8_monitor_split_query(shared_data):
    torch = require("torch")
    rmt = require("rankmetrics.torch")
    y, s, q = _rank_test(shared_data)
    want = rm.ndcg_score(y, s, q, k=10, gain="exponential")  # the torch default gain
    assert round(want, 4) == 0.6827 and np.unique(q).size == 50
    chunks = [slice(a, a + 100) for a in range(0, y.size, 100)]

    def feed(mon):
        for sl in chunks:
            mon.update(torch.tensor(s[sl]), torch.tensor(y[sl]), torch.tensor(q[sl]))

    wrong = rmt.RankingMonitor("ndcg@10")
    with pytest.raises(ValueError, match="indexes: this batch starts with index .*spanning=True"):
        feed(wrong)
    # the failing batch was not added: the state holds the whole batches before it
    assert wrong.compute()["queries"] < 50
    span = rmt.RankingMonitor("ndcg@10", spanning=True)
    feed(span)
    out = span.compute()
    assert out["queries"] == 50 and out["ndcg@10"] == pytest.approx(want, abs=1e-12)
    # reset() starts a new stream: the same first index is allowed again
    ok = rmt.RankingMonitor("ndcg@10")
    ok.update(torch.tensor(s[:3]), torch.tensor(y[:3]), torch.tensor(np.zeros(3, np.int64)))
    ok.reset()
    ok.update(torch.tensor(s[:3]), torch.tensor(y[:3]), torch.tensor(np.zeros(3, np.int64)))


def test_issue17_item8_metric_split_query(shared_data):
    torch = require("torch")
    require("torchmetrics")
    rmt = require("rankmetrics.torch")
    y, s, q = _rank_test(shared_data)
    want = rm.ndcg_score(y, s, q, k=10, gain="exponential")  # the torch default gain
    chunks = [slice(a, a + 100) for a in range(0, y.size, 100)]
    for use_forward in (False, True):
        metric = rmt.RankingMetric("ndcg@10")
        call = metric.forward if use_forward else metric.update
        with pytest.raises(ValueError, match="indexes: this batch starts with index"):
            for sl in chunks:
                call(torch.tensor(s[sl]), torch.tensor(y[sl]), torch.tensor(q[sl]))
    span = rmt.RankingMetric("ndcg@10", spanning=True)
    for sl in chunks:
        span.update(torch.tensor(s[sl]), torch.tensor(y[sl]), torch.tensor(q[sl]))
    assert float(span.compute()) == pytest.approx(want, abs=1e-12)
    # whole-query batches pass, through update and forward
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    whole = rmt.RankingMetric("ndcg@10")
    for a, b in zip(starts[::7], np.r_[starts[7::7], q.size], strict=True):
        whole(torch.tensor(s[a:b]), torch.tensor(y[a:b]), torch.tensor(q[a:b]))
    assert float(whole.compute()) == pytest.approx(want, abs=1e-12)


# ----------------------------------------------------------------------- item 9: smaller
def test_issue17_item9_negative_row_weight():
    require("lightgbm")
    from rankmetrics.lightgbm import make_eval_metric

    metric = make_eval_metric("ndcg", k=2)
    with pytest.raises(ValueError, match="weight must be >= 0"):
        metric([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], np.array([-1.0, 3, 1, 1]), np.array([2, 2]))
    with pytest.raises(TypeError, match="weight"):
        metric([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], np.array(["a"] * 4), np.array([2, 2]))


def test_issue17_item9_monitor_merge_self():
    torch = require("torch")
    rmt = require("rankmetrics.torch")
    mon = rmt.RankingMonitor("ndcg@2")
    mon.update(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0, 1, 2]))
    before = mon.compute()
    with pytest.raises(ValueError, match="other is this monitor"):
        mon.merge(mon)
    assert mon.compute() == before


@pytest.mark.filterwarnings("ignore:The ``compute`` method of metric")
def test_issue17_item9_metric_state_from_other_configuration():
    torch = require("torch")
    require("torchmetrics")
    rmt = require("rankmetrics.torch")
    src = rmt.RankingMetric("ndcg@2")
    src.persistent(True)
    src.update(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0, 1, 2]),
               indexes=torch.tensor([0, 0, 0]))
    saved = src.state_dict()
    other = rmt.RankingMetric("ndcg@3")
    other.persistent(True)
    with pytest.raises(ValueError, match="state_dict was saved from a RankingMetric with other"):
        other.load_state_dict(saved)
    wider = rmt.RankingMetric(["ndcg@3", "map"], bounds=True)
    with pytest.raises(ValueError, match=r"state_dict: its RankingMetric state has shape \(3,\)"):
        wider.load_state_dict(saved)
    older = {"state": saved["state"]}  # a save without the configuration record
    with pytest.raises(ValueError, match=r"state has shape \(3,\), this metric needs \(9,\)"):
        wider.load_state_dict(older)
    same = rmt.RankingMetric("ndcg@2")
    same.persistent(True)
    same.load_state_dict(saved)
    assert float(same.compute()) == float(src.compute())


def test_issue17_item9_plan_pickles_after_lambda_gain():
    plan = QueryPlan([2, 0, 1, 1], [1, 1, 2, 2])
    first = plan.ndcg([0.3, 0.2, 0.1, 0.1], gain=lambda lab: lab * 3.0,
                      discount=lambda r: 1.0 / r)
    back = pickle.loads(pickle.dumps(plan))
    np.testing.assert_array_equal(
        back.ndcg([0.3, 0.2, 0.1, 0.1], gain=lambda lab: lab * 3.0, discount=lambda r: 1.0 / r),
        first)
    np.testing.assert_array_equal(back.qids, plan.qids)


# --------------------------------------------------------- item 10: group-size overflow
def test_issue17_item10_group_sizes_that_wrap(tmp_path):
    huge = np.array([2**63 - 1, 2**63 - 1, 5])
    with pytest.raises(ValueError, match="group_sizes cannot describe the 3 rows"):
        QueryPlan.from_group_sizes([1, 0, 1], huge)
    with pytest.raises(ValueError, match="group_sizes add up to 4 but y_true has 3 rows"):
        QueryPlan.from_group_sizes([1, 0, 1], [2, 2])
    with pytest.raises(ValueError, match="group_sizes must be positive integers"):
        QueryPlan.from_group_sizes([1, 0, 1], [1.5, 1.5])
    with pytest.raises(ValueError, match="group_sizes cannot describe"):
        QueryPlan.from_group_sizes([1, 0, 1], np.array([2**64 - 1, 4], dtype=np.uint64))
    require("lightgbm")
    # the issue's reproducer killed the interpreter; run it in a child to be safe
    import subprocess

    from rankmetrics.lightgbm import builtin_ndcg, make_eval_metric
    code = ("import numpy as np\nfrom rankmetrics.lightgbm import make_eval_metric\n"
            "try:\n    make_eval_metric('ndcg', k=2)([1,0,1], [.1,.2,.3], None, "
            "np.array([2**63-1, 2**63-1, 5]))\nexcept ValueError as e:\n    print('VE', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("VE group cannot describe"), out
    with pytest.raises(ValueError, match="group add up to"):
        make_eval_metric("ndcg")([1, 0, 1], [0.1, 0.2, 0.3], None, np.array([1, 1]))
    with pytest.raises(ValueError, match="group cannot describe"):
        builtin_ndcg([1, 0, 1], [0.1, 0.2, 0.3], np.array([2**63 - 1, 2**63 - 1, 5]))


# ----------------------------------------------------------------------- unclear errors
def test_issue17_errors_meta_tensors():
    torch = require("torch")
    rmt = require("rankmetrics.torch")
    with pytest.raises(ValueError, match="preds is on the meta device"):
        rmt.ndcg(torch.ones(3, device="meta"), torch.ones(3, device="meta"))


def test_issue17_errors_gain_options_named():
    with pytest.raises(TypeError, match="gain callable"):
        rm.ndcg([0, 1], [1, 2], gain=lambda lab: np.array(["a"] * lab.size))
    with pytest.raises(TypeError, match="gain mapping label"):
        rm.ndcg([0, 1], [1, 2], gain={0: 0, "1": 1})
    with pytest.raises(TypeError, match="gain mapping weight"):
        rm.ndcg([0, 1], [1, 2], gain={0: 0, 1: "x"})
    with pytest.raises(TypeError, match="gain weights"):
        rm.ndcg([0, 1], [1, 2], gain=["0", "1"])
    with pytest.raises(TypeError, match="discount callable"):
        rm.dcg([0, 1], [1, 2], discount=lambda r: np.array(["a"] * r.size))
    with pytest.raises(TypeError, match="query_weight"):
        rm.ndcg_score([0, 1, 1], [1, 2, 3], [1, 1, 2], query_weight=["a", "b"])


def test_issue17_errors_validated_when_built():
    require("lightgbm")
    from rankmetrics.lightgbm import make_eval_metric, make_feval

    with pytest.raises(ValueError, match="label_gain: gain weights must be"):
        make_feval("ndcg", label_gain=[0, -1, 3])
    with pytest.raises(ValueError, match="label_gain"):
        make_eval_metric("ndcg", label_gain=[0, float("nan")])
    with pytest.raises(TypeError, match="label_gain"):
        make_feval("ndcg", label_gain="0 1 3")
    with pytest.raises(ValueError, match="gain weights must be"):
        make_feval("ndcg", gain=[0, float("nan")])
    with pytest.raises(ValueError, match="gain mapping returned a non-finite gain"):
        make_feval("ndcg", gain={0: 0, 1: float("nan")})
    with pytest.raises(ValueError, match="gain mapping labels"):
        make_feval("ndcg", gain={float("nan"): 1})
    torch = require("torch")
    rmt = require("rankmetrics.torch")
    with pytest.raises(ValueError, match="gain weights must be"):
        rmt.RankingMonitor("ndcg", gain=[0, float("nan")])
    assert torch is not None


def test_issue17_errors_progress_without_tqdm(monkeypatch):
    require("pandas")
    from rankmetrics import trec

    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    with pytest.raises(ImportError, match=r"rankmetrics\[io\]"):
        trec.evaluate(qrels, run, ["ndcg"], progress=True)
    # None means "on a terminal, if available": no error
    trec.evaluate(qrels, run, ["ndcg"], progress=None)
    with pytest.raises(TypeError, match="progress"):
        trec.evaluate(qrels, run, ["ndcg"], progress="yes")


# ------------------------------------------------------- more of the same kind (found here)
def test_issue17_same_kind_recall_base_signed_vs_unsigned_ids():
    # int64 plan ids vs uint64 recall-base ids were compared in float64: 2**60+1 == 2**60+2
    q = np.array([2**60 + 1, 2**60 + 2, 2**60 + 2], dtype=np.int64)
    base_q = np.array([2**60 + 1, 2**60 + 2, 2**60 + 2, 2**60 + 2, 2**64 - 1], dtype=np.uint64)
    plan = QueryPlan([1, 0, 1], q, recall_base=([1, 1, 1, 1, 1], base_q))
    np.testing.assert_allclose(plan.recall([3, 2, 1]), [1.0, 1 / 3])
    plan = QueryPlan([1, 0, 1], q.astype(np.uint64),
                     recall_base=([1, 1, 1, 1, 1], base_q.astype(np.int64)))
    np.testing.assert_allclose(plan.recall([3, 2, 1]), [1.0, 1 / 3])


def test_issue17_same_kind_trec_dict_and_frame_ids():
    from rankmetrics import trec

    # 1 and "1" were merged into one query "1"; None became the query "None"
    with pytest.raises(ValueError, match="qrels dict query ids: .* would both become the id"):
        trec.evaluate({1: {"a": 1}, "1": {"b": 1}}, {"1": {"a": 1.0, "b": 2.0}}, ["nDCG"])
    with pytest.raises(ValueError, match="run dict query ids has missing values"):
        trec.evaluate({"q": {"a": 1}}, {None: {"a": 1.0}}, ["nDCG"])
    frame = pd.DataFrame({"qid": np.array([2**70, 2**70], dtype=object), "docid": ["a", "b"],
                          "label": [1, 0]})
    run = pd.DataFrame({"qid": [str(2**70)] * 2, "docid": ["a", "b"], "score": [1.0, 2.0]})
    res = trec.evaluate(frame, run, ["AP"])  # was an uncaught OverflowError from pyarrow
    assert res.per_query.loc[str(2**70), "AP"] == 0.5
    with pytest.raises(ValueError, match="run DataFrame column 'qid' has missing query ids"):
        trec.evaluate(frame, run.assign(qid=[None, "x"]), ["AP"])


def test_issue17_same_kind_torch_byte_order_read_only_and_uint64_indexes():
    torch = require("torch")
    rmt = require("rankmetrics.torch")
    s = np.array([0.3, 0.1, 0.2, 0.5], dtype=">f8")  # big-endian: torch refused it
    y = np.array([1, 0, 1, 0], dtype=">i4")
    q = np.array([3, 3, 1, 1], dtype=">i8")
    want = rm.ndcg(y, s, q)
    np.testing.assert_allclose(rmt.ndcg(s, y, q).numpy(), want)
    ro = s.astype(np.float64)
    ro.setflags(write=False)
    np.testing.assert_allclose(rmt.ndcg(ro, y, q).numpy(), want)
    big = torch.tensor([2**64 - 1, 5, 2**63, 5, 2**64 - 1], dtype=torch.uint64)
    ids = np.array([2**64 - 1, 5, 2**63, 5, 2**64 - 1], dtype=np.uint64)
    preds, target = [1.0, 2.0, 3.0, 4.0, 5.0], [1, 0, 1, 1, 0]
    np.testing.assert_allclose(rmt.ndcg(torch.tensor(preds), torch.tensor(target), big).numpy(),
                               rm.ndcg(target, preds, ids))


def test_issue17_same_kind_lightgbm_names_its_arguments():
    require("lightgbm")
    from rankmetrics.lightgbm import make_eval_metric

    with pytest.raises(ValueError, match="y_pred must be finite"):
        make_eval_metric("ndcg")([1, 0], [np.nan, 1.0], None, [2])
    with pytest.raises(ValueError, match=r"y_pred has integers of magnitude 2\*\*53 or more"):
        make_eval_metric("ndcg")([1, 0], [2**63, 1], None, [2])
    with pytest.raises(ValueError, match="y_true must be non-negative"):
        make_eval_metric("ndcg")([-1, 0], [1.0, 2.0], None, [2])


def test_issue17_same_kind_analysis_edges():
    """avg_pos of a scalar raised IndexError; render_report(digits=-1) a format error from
    Python; session_dcg's depth error offered None, which it refuses; weights of 1e308
    gave NaN (their sum overflows) and of 1e-320 a mean off in the 7th digit (subnormal)."""
    from rankmetrics.analysis.report import render_report
    from rankmetrics.analysis.session import session_dcg
    from rankmetrics.analysis.vectors import avg_pos
    from rankmetrics.stats import compare

    with pytest.raises(ValueError, match="vector must be 1-D"):
        avg_pos(5.0, 1)
    c = compare({"A": [0.2, 0.4, 0.3, 0.5], "B": [0.3, 0.6, 0.4, 0.7]})
    with pytest.raises(ValueError, match="digits must be >= 0"):
        render_report([c], "text", digits=-1)
    with pytest.raises(TypeError, match="digits must be an int"):
        render_report([c], "text", digits=2.5)
    for bad in (0, -3):
        with pytest.raises(ValueError, match=r"depth must be a positive int \(X"):
            session_dcg([1, 0], [0.5, 0.2], session=[1, 1], query=[1, 1], depth=bad)
    y, s, q = [1, 0, 2, 0, 1, 1], [0.1, 0.4, 0.3, 0.2, 0.5, 0.1], [0, 0, 1, 1, 2, 2]
    plain = rm.ndcg_score(y, s, q, query_weight=[1.0, 2.0, 3.0])
    for scale in (1e300, 1e-320):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = rm.ndcg_score(y, s, q, query_weight=[1 * scale, 2 * scale, 3 * scale])
        assert got == pytest.approx(plain, rel=1e-12), scale
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rm.ndcg_score(y, s, q, query_weight=[1e308] * 3) == pytest.approx(
            rm.ndcg_score(y, s, q), rel=1e-12)


def test_issue17_same_kind_curve_depth_beyond_memory():
    """A curve of depth 2**40 (check_k allows 2**62) failed with numpy's MemoryError ("Unable
    to allocate 8.00 TiB"); now a ValueError naming depth, before anything is allocated."""
    from rankmetrics.analysis.session import session_dcg

    calls = [lambda: rm.cg_curve([1, 0], [0.5, 0.2], depth=2**40),
             lambda: rm.ndcg_curve([1, 0], [0.5, 0.2], depth=2**40),
             lambda: rm.ideal_dcg_curve([1, 0], depth=2**40),
             lambda: rm.ideal_cg_curve([1, 0], depth=2**40),
             lambda: session_dcg([1, 0], [0.5, 0.2], session=[1, 1], query=[1, 1],
                                 doc=["a", "b"], depth=2**40)]
    for call in calls:
        with pytest.raises(ValueError, match=r"depth=1099511627776 asks for a \(1, 10995"):
            call()
    assert rm.ndcg_curve([1, 0], [0.5, 0.2], depth=1000).shape == (1, 1000)


def test_issue17_same_kind_docno_ties_outside_trec_say_where_they_belong():
    """``nDCG(ties=docno)@5`` parses (the grammar serves rankmetrics.trec too) but the core
    has no document ids: its error now says which entry points take "docno"."""
    for call in (lambda: QueryPlan([1, 0], [0, 0]).evaluate([0.1, 0.2], ["nDCG(ties=docno)@5"]),
                 lambda: rm.ndcg([1, 0], [0.1, 0.2], ties="docno")):
        with pytest.raises(ValueError, match="got 'docno', trec_eval's order .* rankmetrics.trec"):
            call()
