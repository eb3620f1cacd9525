"""Core API edges found by probe 47."""

from __future__ import annotations

import numpy as np
import pytest

import rankmetrics as rm

Y = np.array([2, 0, 1, 0, 3, 1])
S = np.array([0.5, 0.5, 0.1, 0.3, 0.9, 0.2])
Q = np.array([1, 1, 1, 2, 2, 2])


@pytest.mark.parametrize("wrap", [lambda a: a, lambda a: a[::1].view()],
                         ids=["array", "view"])
def test_ranking_keeps_its_scores_when_the_caller_reuses_the_buffer(backend, wrap):
    # a training loop refills one prediction buffer every round: a Ranking made from it must
    # keep the numbers of the scores it was made from (the compiled Ranking read them later)
    plan = rm.QueryPlan(Y, Q)
    expected = plan.evaluate(S, ["nDCG@2", "AP", "RR", "P@2"])
    buf = S.copy()
    ranking = plan.rank(wrap(buf))
    buf[:] = 0.0
    got = plan.evaluate(ranking, ["nDCG@2", "AP", "RR", "P@2"])
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name], value, err_msg=name)
    assert repr(ranking).endswith("queries_with_ties=1)")


@pytest.mark.parametrize("ids", [["a", "a\x00"], ("a", "a\x00"), [b"a", b"a\x00"]],
                         ids=["str-list", "str-tuple", "bytes-list"])
def test_list_qids_differing_by_trailing_nul_stay_two_queries(backend, ids):
    # numpy's fixed-width strings drop trailing NULs ("a\x00" -> "a"): a Python list of such
    # ids merged two queries silently, where the object array of the same ids did not
    got = rm.ndcg([1, 0], [0.1, 0.2], ids)
    np.testing.assert_array_equal(got, [1.0, 0.0])
    assert rm.QueryPlan([1, 0], ids).n_queries == 2


def test_integer_labels_float64_cannot_hold_are_refused(backend):
    # labels are compared as float64: 2**63 + 1 became 2**63, so with threshold=2**63 + 1 a
    # document labelled 2**63 counted as relevant (P@1 of a tie 1.0 instead of 0.5)
    s, q = [0.5, 0.5, 0.1, 0.3, 0.9, 0.2], [1, 1, 1, 2, 2, 2]
    lab = np.array([2**63 + 1, 2**63, 1, 0, 3, 1], dtype=np.uint64)
    for call in (lambda: rm.precision(lab, s, q, k=1, threshold=2**63),
                 lambda: rm.QueryPlan(lab, q),
                 lambda: rm.ndcg([2**70 + 1, 0, 1, 0, 3, 1], s, q, gain="linear")):
        with pytest.raises(ValueError, match="y_true has an integer label"):
            call()
    with pytest.raises(ValueError, match="threshold must be exactly a float64"):
        rm.precision(np.array([2**53, 0, 1, 0, 3, 1]), s, q, k=1, threshold=2**53 + 1)
    # labels float64 holds exactly are kept, compared exactly
    exact = np.array([2**63, 2**62, 1, 0, 3, 1], dtype=np.uint64)
    np.testing.assert_array_equal(rm.precision(exact, s, q, k=1, threshold=2**63), [0.5, 0.0])
    with pytest.raises(ValueError, match="non-negative"):  # the sign is said first
        rm.ndcg(np.array([-(2**63), 0, 1, 0, 3, 1]), s, q)
    # signed int64 labels of one-call functions are checked where their sign is (deferred):
    # every measure family reads them, through the gains or the relevance
    big = np.array([2**62 + 1, 2**62, 1, 0, 3, 1], dtype=np.int64)
    for call in (lambda: rm.ndcg(big, s, q, k=1), lambda: rm.ndcg(big, s, q, gain="linear"),
                 lambda: rm.precision(big, s, q, k=1, threshold=2**62),
                 lambda: rm.average_precision(big, s, q)):
        with pytest.raises(ValueError, match="y_true has an integer label"):
            call()
