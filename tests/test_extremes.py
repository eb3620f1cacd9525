"""Valid inputs at the far ends of their range: a huge F-beta weight, query ids that numpy's
fixed-width strings would shorten."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm
from rankmetrics.trec import evaluate as trec_evaluate

Y = np.array([2, 0, 1, 0, 1, 3, 0, 1])
S = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
Q = np.array([7, 7, 7, 9, 9, 9, 7, 9])


@pytest.mark.parametrize("beta", [1e77, 2.0**256 * 1.5, 1e154, 1e200, 1e308])
def test_fbeta_with_a_huge_beta_is_recall(beta):
    """(1 + b^2) tp / (b^2 R + k) overflowed to inf / inf = NaN (and a query of R = 1 to 0.0)
    once b^2 R passed the float range; its limit, and its value to the last bit, is recall."""
    want = rm.recall(Y, S, Q, k=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning, no "all skipped" warning
        np.testing.assert_array_equal(rm.fbeta(Y, S, Q, k=2, beta=beta), want)
        np.testing.assert_array_equal(
            rm.QueryPlan(Y, Q).evaluate(S, [f"F(beta={beta!r})@2"])[f"F(beta={beta!r})@2"],
            want)
        assert rm.mean_fbeta_score(Y, S, Q, k=2, beta=beta) == pytest.approx(want.mean())


def test_fbeta_just_below_the_switch_keeps_the_formula():
    """Below 2**512 for beta^2 the formula is computed as written; there it already rounds to
    recall (the switch moves no value)."""
    beta = 2.0**255
    np.testing.assert_array_equal(rm.fbeta(Y, S, Q, k=2, beta=beta), rm.recall(Y, S, Q, k=2))
    # F2@2 = 5 tp / (4 R + 2): one relevant document in each top 2, R = 2 and 3
    np.testing.assert_array_equal(rm.fbeta(Y, S, Q, k=2, beta=2.0), [5 / 10, 5 / 14])


def test_fbeta_huge_beta_in_trec_and_torch():
    qrels = {"q1": {"d1": 1, "d2": 1, "d3": 0}, "q2": {"d1": 1}}
    run = {"q1": {"d1": 3.0, "d2": 1.0, "d3": 2.0}, "q2": {"d1": 1.0, "d2": 2.0}}
    got = trec_evaluate(qrels, run, ["F(beta=1e200)@2", "R@2"]).mean
    assert got["F(beta=1e200)@2"] == got["R@2"] == pytest.approx(0.75)
    setf = trec_evaluate(qrels, run, ["SetF(beta=1e308)", "R"]).mean
    assert setf["SetF(beta=1e308)"] == pytest.approx(setf["R"])
    torch = require("torch")
    from rankmetrics.torch import fbeta, recall

    p, t, i = torch.tensor(S), torch.tensor(Y), torch.tensor(Q)
    assert torch.equal(fbeta(p, t, i, k=2, beta=1e200), recall(p, t, i, k=2))


@pytest.mark.parametrize("kind", ["str", "bytes", "series"])
def test_ids_differing_only_by_trailing_nul_stay_apart(kind):
    """numpy's fixed-width U/S types drop trailing NULs, which merged "a" and "a\\0" into one
    query; np.unique of the object array (the documented grouping) keeps them apart."""
    ids = ["a", "a\x00", "a", "a\x00\x00"]
    if kind == "bytes":
        ids = [x.encode() for x in ids]
    qid = np.array(ids, dtype=object)
    if kind == "series":
        pd = require("pandas")
        qid = pd.Series(ids)
    y, s = [1, 0, 0, 1], [0.9, 0.8, 0.7, 0.6]
    plan = rm.QueryPlan(y, qid)
    assert plan.qids.tolist() == np.unique(np.array(ids, dtype=object)).tolist()
    np.testing.assert_allclose(rm.ndcg(y, s, qid), [1.0, 0.0, 1.0])


def test_discount_none_is_refused_not_read_as_no_discount():
    """discount=None silently gave nCG (the kernel's internal "no discount"); "none" is that
    discount's name."""
    for call in (lambda: rm.ndcg(Y, S, Q, discount=None), lambda: rm.dcg(Y, S, Q, discount=None),
                 lambda: rm.ndcg_curve(Y, S, Q, depth=2, discount=None),
                 lambda: rm.dcg_curve(Y, S, Q, depth=2, discount=None)):
        with pytest.raises(TypeError, match='got None \\(no discount is "none"\\)'):
            call()
    np.testing.assert_array_equal(rm.ndcg(Y, S, Q, discount="none"), rm.ncg(Y, S, Q))


# -------------------------- Python int lists beyond int64 (docs probe, stop 48)
@pytest.mark.parametrize("wrap", [list, tuple], ids=["list", "tuple"])
def test_python_int_qids_beyond_int64_mixed_with_small_ones_stay_distinct(backend, wrap):
    # README: qids are "ints of any size kept exact". numpy reads [2**63 + 1, 2**63, 0] as
    # float64, where 2**63 + 1 == 2**63: two queries were merged into one
    ids = [2**63 + 1, 2**63 + 1, 2**63, 2**63, 0, 0]
    y, s = [1, 0, 0, 1, 1, 0], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    expected = np.array([rm.ndcg(y[i:i + 2], s[i:i + 2])[0] for i in (4, 2, 0)])  # unique order
    np.testing.assert_array_equal(rm.ndcg(y, s, wrap(ids)), expected)
    assert rm.QueryPlan(y, wrap(ids)).n_queries == 3


@pytest.mark.parametrize("wrap", [list, tuple], ids=["list", "tuple"])
def test_python_int_labels_beyond_int64_mixed_with_small_ones_are_refused(backend, wrap):
    # README: integer labels must be exactly float64 values, else ValueError. The list
    # [2**63 + 1, 1] became float64 [2**63, 1] and was scored as if the label were 2**63
    s = [0.1, 0.2]
    for call in (lambda: rm.precision(wrap([2**63 + 1, 1]), s),
                 lambda: rm.QueryPlan(wrap([2**63 + 1, 1])),
                 lambda: rm.ndcg(wrap([2**63 + 1, 1]), s, gain="linear")):
        with pytest.raises(ValueError, match="y_true has an integer label, 9223372036854775809"):
            call()
    # a label float64 holds exactly still passes, and is compared exactly
    np.testing.assert_array_equal(rm.precision(wrap([2**63, 1]), s, k=1, threshold=2**63), [0.0])
    np.testing.assert_array_equal(rm.precision(wrap([2**63, 1]), [0.2, 0.1], k=1,
                                               threshold=2**63), [1.0])


@pytest.mark.parametrize("kind", ["Decimal", "Fraction"])
def test_whole_decimal_and_fraction_labels_float64_cannot_hold_are_refused(backend, kind):
    # README: integer labels must be exactly float64 values, else ValueError. Decimal(2**53 + 3)
    # became 2**53 + 4: P@1 at threshold=2**53 + 4 gave 1.0 (right: 0.0)
    from decimal import Decimal
    from fractions import Fraction

    num = Decimal if kind == "Decimal" else Fraction
    big = num(2**53 + 3)
    for call in (lambda: rm.precision([big, num(0)], [2, 1], k=1, threshold=2**53 + 4),
                 lambda: rm.QueryPlan([big, num(0)], [1, 1]),
                 lambda: rm.QueryPlan([1, 0], [1, 1], recall_base=([big, num(0)], [1, 1]))):
        with pytest.raises(ValueError, match="label, 9007199254740995, that float64 cannot"):
            call()
    # whole labels float64 holds, and fractional ones, still pass
    np.testing.assert_array_equal(
        rm.precision([num(2**53 + 4), num(0)], [2, 1], k=1, threshold=2**53 + 4), [1.0])
    np.testing.assert_allclose(rm.ndcg([num(1) / num(2), num(2)], [2, 1], gain="linear"),
                               rm.ndcg([0.5, 2.0], [2, 1], gain="linear"))


def test_whole_long_double_labels_float64_cannot_hold_are_refused(backend):
    # long double holds 2**53 + 3 exactly and float64 made it 2**53 + 4: P@1 at
    # threshold=2**53 + 4 gave 1.0 (right: 0.0); README: else ValueError
    y = np.array([2**53 + 3, 0], dtype=np.longdouble)
    if y[0] != 2**53 + 3:  # a platform whose long double is float64: nothing to refuse
        return
    for call in (lambda: rm.precision(y, [2, 1], k=1, threshold=2**53 + 4),
                 lambda: rm.QueryPlan(y),
                 lambda: rm.QueryPlan(y.reshape(1, 2))):
        with pytest.raises(ValueError, match="label, 9007199254740995, that float64 cannot"):
            call()
    ok = np.array([2**53 + 4, 0.5], dtype=np.longdouble)
    np.testing.assert_array_equal(rm.precision(ok, [2, 1], k=1, threshold=2**53 + 4), [1.0])


def test_a_whole_fraction_or_long_double_threshold_float64_cannot_hold_is_refused(backend):
    # threshold=Fraction(2**53 + 1) became 2**53: P@1 on a label of 2**53 gave 1.0 (right:
    # 0.0), where the int 2**53 + 1 raises ValueError
    from fractions import Fraction

    y = [float(2**53), 0.0]
    values = [Fraction(2**53 + 1)]
    if np.longdouble(2**53 + 1) == 2**53 + 1:
        values.append(np.longdouble(2**53 + 1))
    for t in values:
        with pytest.raises(ValueError, match="exactly a float64.*got 9007199254740993"):
            rm.precision(y, [2, 1], k=1, threshold=t)
        with pytest.raises(ValueError, match="exactly a float64.*got 9007199254740993"):
            rm.QueryPlan(y).evaluate([2, 1], ["P@1"], threshold=t)
    assert rm.precision(y, [2, 1], k=1, threshold=Fraction(2**53))[0] == 1.0
    assert rm.precision([1, 0], [2, 1], k=1, threshold=Fraction(1, 2))[0] == 1.0


def test_a_gain_mapping_label_float64_cannot_hold_is_refused(backend):
    # the key 2**53 + 1 became 2**53 and gave its weight to the label 2**53: dcg 5.0 (right:
    # the label has no weight, ValueError); {2**53: 1, 2**53 + 1: 5} gave 5.0 silently
    from fractions import Fraction

    y = [float(2**53), 0.0]
    for gains in ({2**53 + 1: 5.0, 0: 0.0}, {2**53: 1.0, 2**53 + 1: 5.0, 0: 0.0},
                  {Fraction(2**53 + 1): 5.0, 0: 0.0}, {np.uint64(2**53 + 1): 5.0, 0: 0.0}):
        with pytest.raises(ValueError, match=r"gain mapping label \(key\) 9007199254740993 is "
                                             "not exactly a float64"):
            rm.dcg(y, [2, 1], gain=gains)
    np.testing.assert_array_equal(rm.dcg(y, [2, 1], gain={2**53: 3.0, 0: 0.0}), [3.0])
