"""Self-checks of the brute-force oracle (tests/oracle.py), independent of rankmetrics.

Hand-computed tiny cases, the worked examples of the seed papers and slides, and the
McSherry-Najork (2008) closed forms evaluated group by group, which must agree with the
enumeration over orderings.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import (
    discount_values,
    gain_values,
    oracle,
    orderings,
    per_query,
    rr_first_relevant_group,
    stable_ordering,
    weighted_mean,
)

# ---------------------------------------------------------------------------------------------
# hand-computed cases


def test_ndcg_at_1_three_tied_one_relevant() -> None:
    # labels [2, 0, 0], all tied: the relevant doc is first in 1/3 of the orderings
    s = oracle("ndcg", [2, 0, 0], [1.0, 1.0, 1.0], k=1)
    assert s.n_orderings == 6
    assert s.mean == pytest.approx(1 / 3, abs=1e-15)
    assert s.max == 1.0
    assert s.min == 0.0
    assert s.stable == 1.0  # input order puts label 2 first
    assert oracle("ndcg", [0, 0, 2], [1.0, 1.0, 1.0], k=1).stable == 0.0


def test_rr_group_of_three_two_relevant_at_top() -> None:
    # NOTES.md: 2/3 * 1 + 1/3 * 1/2 = 0.8333 (the difference form, not f itself)
    s = oracle("reciprocal_rank", [1, 1, 0], [5, 5, 5])
    assert s.mean == pytest.approx(5 / 6, abs=1e-15)
    assert rr_first_relevant_group(3, 2, 0) == pytest.approx(5 / 6, abs=1e-15)
    assert s.max == 1.0 and s.min == 0.5


def test_rr_behind_a_tie_group_and_cut() -> None:
    # group {A(0), B(1)} then group {C(1), D(0), E(0)}: first relevant at 2 (B first) or 1
    labels = [0, 1, 1, 0, 0]
    scores = [3, 3, 1, 1, 1]
    assert oracle("reciprocal_rank", labels, scores).mean == pytest.approx(0.75, abs=1e-15)
    # drop B: the first relevant is C in positions 3..5 with probability 1/3 each
    labels = [0, 0, 1, 0, 0]
    expect = (1 / 3 + 1 / 4 + 1 / 5) / 3
    assert oracle("reciprocal_rank", labels, scores).mean == pytest.approx(expect, abs=1e-15)
    # cut at k=3: only position 3 counts
    assert oracle("reciprocal_rank", labels, scores, k=3).mean == pytest.approx(1 / 9, abs=1e-15)


def test_precision_divides_by_k_even_for_short_lists() -> None:
    s = oracle("precision", [1, 0], [1, 0], k=5)
    assert s.mean == pytest.approx(1 / 5, abs=1e-15)
    assert oracle("precision", [1, 0], [1, 0]).mean == pytest.approx(1 / 2, abs=1e-15)


def test_precision_recall_f1_tied_cut() -> None:
    # 4 tied docs, 2 relevant, k = 1: expected hits 1/2
    labels, scores = [1, 0, 1, 0], [0, 0, 0, 0]
    assert oracle("precision", labels, scores, k=1).mean == pytest.approx(0.5, abs=1e-15)
    assert oracle("recall", labels, scores, k=1).mean == pytest.approx(0.25, abs=1e-15)
    # F1 = 2c / (k + R) = 2 * 0.5 / 3
    assert oracle("f1", labels, scores, k=1).mean == pytest.approx(1 / 3, abs=1e-15)
    # F_2 = 5c / (4R + k) = 2.5 / 9
    got = oracle("fbeta", labels, scores, k=1, beta=2.0).mean
    assert got == pytest.approx(2.5 / 9, abs=1e-15)


def test_fbeta_is_zero_when_nothing_retrieved() -> None:
    s = oracle("fbeta", [0, 1], [1, 0], k=1, beta=0.5)
    assert s.mean == 0.0 and s.max == 0.0


def test_average_precision_denominators() -> None:
    # ranking 1 0 1 0 1, k = 2: only rank 1 counts
    labels, scores = [1, 0, 1, 0, 1], [5, 4, 3, 2, 1]
    assert oracle("average_precision", labels, scores).mean == pytest.approx(
        (1 + 2 / 3 + 3 / 5) / 3, abs=1e-15
    )
    assert oracle("average_precision", labels, scores, k=2).mean == pytest.approx(1 / 3, abs=1e-15)
    got = oracle("average_precision", labels, scores, k=2, denominator="min_k_relevant").mean
    assert got == pytest.approx(1 / 2, abs=1e-15)


def test_average_precision_two_tied_both_relevant_behind_irrelevant() -> None:
    # ranking: 0, then tie {1, 1}: AP = (1/2 + 2/3) / 2 in every ordering
    s = oracle("average_precision", [0, 1, 1], [2, 1, 1])
    assert s.mean == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)
    assert s.max == s.min


def test_empty_rules() -> None:
    for metric in ("precision", "recall", "f1", "average_precision", "reciprocal_rank"):
        assert oracle(metric, [0, 0], [1, 0]).mean == 0.0
        assert oracle(metric, [0, 0], [1, 0], empty=1.0).mean == 1.0
        assert math.isnan(oracle(metric, [0, 0], [1, 0], empty="skip").mean)
        with pytest.raises(ValueError):
            oracle(metric, [0, 0], [1, 0], empty="error")
    # threshold decides relevance
    assert oracle("precision", [1, 1], [1, 0], threshold=2, empty=0.5).mean == 0.5
    for metric in ("ncg", "ndcg"):
        assert oracle(metric, [0, 0], [1, 0], empty=1.0).mean == 1.0
        assert math.isnan(oracle(metric, [0, 0], [0, 0], empty="skip").min)


def test_cg_dcg_ncg_ndcg_small() -> None:
    labels, scores = [1, 2, 0], [3, 2, 1]  # ranking 1, 2, 0; gains 1, 3, 0
    assert oracle("cg", labels, scores).mean == 4.0
    assert oracle("cg", labels, scores, gain="linear", k=1).mean == 1.0
    dcg = 1 + 3 / math.log2(3)
    assert oracle("dcg", labels, scores).mean == pytest.approx(dcg, abs=1e-15)
    ideal = 3 + 1 / math.log2(3)
    assert oracle("ndcg", labels, scores).mean == pytest.approx(dcg / ideal, abs=1e-15)
    assert oracle("ncg", labels, scores, k=1).mean == pytest.approx(1 / 3, abs=1e-15)
    # nDCG ideal uses all rows, even those past the cut-off
    assert oracle("ndcg", [0, 1], [1, 0], k=1).mean == 0.0


def test_gain_forms() -> None:
    labels = np.array([0, 1, 2, 3])
    np.testing.assert_array_equal(gain_values(labels, "exponential"), [0, 1, 3, 7])
    np.testing.assert_array_equal(gain_values(labels, "linear"), [0, 1, 2, 3])
    np.testing.assert_array_equal(gain_values(labels, [0, 1, 10, 100]), [0, 1, 10, 100])
    np.testing.assert_array_equal(gain_values(labels, {0: 0, 1: 2, 2: 4, 3: 8}), [0, 2, 4, 8])
    np.testing.assert_array_equal(gain_values(labels, lambda x: x * x), [0, 1, 4, 9])
    with pytest.raises(ValueError):
        gain_values([0.5], "exponential")


def test_discount_forms() -> None:
    np.testing.assert_allclose(discount_values(3, "log", 2), [1, 1 / math.log2(3), 0.5])
    np.testing.assert_allclose(
        discount_values(4, "jarvelin2002", 3), [1, 1, 1, math.log(3) / math.log(4)]
    )
    np.testing.assert_allclose(discount_values(2, "jarvelin2008", 2), [1, 0.5])
    np.testing.assert_array_equal(discount_values(3, "none", 2), [1, 1, 1])
    np.testing.assert_array_equal(discount_values(3, lambda r: 1.0 / r, 2), [1, 0.5, 1 / 3])


# ---------------------------------------------------------------------------------------------
# worked examples of the seeds


def test_jarvelin_kekalainen_2002_vectors() -> None:
    g = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    scores = list(range(10, 0, -1))
    cg = oracle("cg_curve", g, scores, depth=10, gain="linear").mean
    np.testing.assert_array_equal(cg, [3, 5, 8, 8, 8, 9, 11, 13, 16, 16])
    dcg = oracle(
        "dcg_curve", g, scores, depth=10, gain="linear", discount="jarvelin2002", log_base=2
    ).mean
    printed = [3, 5, 6.89, 6.89, 6.89, 7.28, 7.99, 8.66, 9.61, 9.61]  # truncated to 2 decimals
    np.testing.assert_allclose(dcg, printed, atol=0.01)
    ideal = [3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0]
    icg = oracle("ideal_cg_curve", ideal, [0] * 13, depth=12, gain="linear").mean  # scores unused
    np.testing.assert_array_equal(icg, [3, 6, 9, 11, 13, 15, 16, 17, 18, 19, 19, 19])
    idcg = per_query(
        "ideal_dcg_curve", ideal, None, depth=12, gain="linear", discount="jarvelin2002"
    )[0]
    printed = [3, 6, 7.89, 8.89, 9.75, 10.52, 10.88, 11.21, 11.53, 11.83, 11.83, 11.83]
    np.testing.assert_allclose(idcg, printed, atol=0.01)


def test_jarvelin_2008_corrected_example() -> None:
    g = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    dcg = oracle(
        "dcg_curve",
        g,
        list(range(10, 0, -1)),
        depth=10,
        gain="linear",
        discount="jarvelin2008",
        log_base=4,
    ).mean
    corrected = [3, 4.33, 6.01, 6.01, 6.01, 6.44, 7.28, 8.08, 9.24, 9.24]  # NOTES.md
    np.testing.assert_allclose(dcg, corrected, atol=0.01)


def test_lecture_slides_ndcg_table() -> None:
    g = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    scores = list(range(10, 0, -1))
    dcg = oracle("dcg_curve", g, scores, depth=10).mean
    np.testing.assert_allclose(
        dcg, [7.00, 8.89, 12.39, 12.39, 12.39, 12.75, 13.75, 14.70, 16.80, 16.80], atol=0.005
    )
    ndcg = oracle("ndcg_curve", g, scores, depth=10).mean
    np.testing.assert_allclose(
        ndcg, [1.00, 0.78, 0.83, 0.76, 0.71, 0.69, 0.73, 0.78, 0.90, 0.90], atol=0.005
    )
    for k in range(1, 11):
        assert oracle("ndcg", g, scores, k=k).mean == pytest.approx(ndcg[k - 1], abs=1e-15)


def test_lecture_slides_average_precision() -> None:
    scores = list(range(10, 0, -1))

    def ap(ranks: list[int]) -> float:
        rel = [1 if i + 1 in ranks else 0 for i in range(10)]
        return oracle("average_precision", rel, scores).mean

    # printed to two decimals; the exact values first, then the printed ones within 0.01
    assert ap([1, 3, 4, 5, 6, 10]) == pytest.approx(
        (1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10) / 6
    )
    assert ap([1, 6, 10]) == pytest.approx((1 + 2 / 6 + 3 / 10) / 3)
    assert ap([1, 3, 4, 5, 6, 10]) == pytest.approx(0.78, abs=0.01)  # A
    assert ap([1, 6, 10]) == pytest.approx(0.54, abs=0.01)  # C (the slide's 0.44 is a slip)
    assert ap([2, 5, 6, 7, 9, 10]) == pytest.approx(0.52, abs=0.01)  # B
    assert ap([2, 5, 7]) == pytest.approx(0.44, abs=0.01)  # D


def test_lecture_slides_mrr() -> None:
    # three topics with the first relevant document at ranks 1, 2, 4
    labels = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]
    scores = [4, 3, 2, 1] * 3
    qid = [0] * 4 + [1] * 4 + [2] * 4
    rr = per_query("reciprocal_rank", labels, scores, qid)
    np.testing.assert_allclose(rr, [1, 1 / 2, 1 / 4])
    assert weighted_mean(rr) == pytest.approx(0.58, abs=0.005)


# ---------------------------------------------------------------------------------------------
# enumeration mechanics


def test_orderings_are_exactly_the_score_consistent_permutations() -> None:
    scores = [1, 2, 1, 2, 0, 1]
    orders = orderings(scores)
    assert orders.shape == (2 * 6 * 1, 6)
    assert len({tuple(o) for o in orders}) == orders.shape[0]
    s = np.asarray(scores)
    for o in orders:
        assert sorted(o.tolist()) == list(range(6))
        assert np.all(np.diff(s[o]) <= 0)
    np.testing.assert_array_equal(stable_ordering(scores), [1, 3, 0, 2, 5, 4])


def test_oracle_refuses_huge_tie_groups() -> None:
    with pytest.raises(AssertionError):
        orderings([0.0] * 9)  # 9! = 362880 orderings


def test_per_query_alignment_and_row_order() -> None:
    labels = [2, 0, 0, 1, 0]
    scores = [1, 1, 1, 0, 0]
    qid = ["b", "a", "b", "a", "b"]  # a: rows 1, 3; b: rows 0, 2, 4
    got = per_query("ndcg", labels, scores, qid, k=1)
    np.testing.assert_allclose(got, [0.0, 0.5], atol=1e-15)
    got = per_query("ndcg", labels, scores, qid, k=1, ties="stable")
    np.testing.assert_allclose(got, [0.0, 1.0], atol=1e-15)
    assert per_query("ndcg_curve", labels, scores, qid, depth=4).shape == (2, 4)


# ---------------------------------------------------------------------------------------------
# enumeration == McSherry-Najork closed forms, group by group


def _groups(labels: np.ndarray, scores: np.ndarray) -> list[np.ndarray]:
    return [labels[scores == v] for v in sorted(set(scores.tolist()), reverse=True)]


def _closed_forms(labels: np.ndarray, scores: np.ndarray, k: int, threshold: float) -> dict:
    n = labels.size
    groups = _groups(labels, scores)
    rel_total = int((labels >= threshold).sum())
    top = min(k, n)
    hits = 0.0  # R_c + (k - t_c) r_c / n_c, written for every group
    ap_sum = 0.0
    rr = 0.0
    dcg = 0.0
    discount = discount_values(n, "log", 2)
    start = 0  # t_i
    before = 0  # R_i
    rr_done = False
    for g in groups:
        n_i = g.size
        r_i = int((g >= threshold).sum())
        inside = max(0, min(top, start + n_i) - start)
        hits += inside * r_i / n_i
        for j in range(start + 1, start + inside + 1):
            slots = j - start - 1
            extra = 0.0 if n_i == 1 else slots * (r_i - 1) / (n_i - 1)
            ap_sum += (r_i / n_i) * (before + extra + 1) / j
        if not rr_done and r_i > 0:
            rr = rr_first_relevant_group(n_i, r_i, start, k) if start < k else 0.0
            rr_done = True
        mean_gain = float(np.mean(2.0**g - 1))
        dcg += mean_gain * float(discount[start : start + inside].sum())
        start += n_i
        before += r_i
    return {
        "precision": hits / k,
        "recall": hits / rel_total,
        "f1": 2 * hits / (k + rel_total),
        "fbeta": (1 + 0.25) * hits / (0.25 * rel_total + k),  # beta = 0.5
        "average_precision": ap_sum / rel_total,
        "reciprocal_rank": rr,
        "dcg": dcg,
    }


def test_enumeration_matches_mcsherry_najork_closed_forms() -> None:
    rng = np.random.default_rng(20080330)
    checked = 0
    for _ in range(400):
        n = int(rng.integers(1, 8))
        labels = rng.integers(0, 4, size=n).astype(np.float64)
        scores = rng.integers(0, 3, size=n).astype(np.float64)
        k = int(rng.integers(1, 9))
        threshold = float(rng.integers(1, 3))
        if not (labels >= threshold).any():
            continue
        expect = _closed_forms(labels, scores, k, threshold)
        for metric, value in expect.items():
            params: dict = {"k": k}
            if metric != "dcg":
                params["threshold"] = threshold
            if metric == "fbeta":
                params["beta"] = 0.5
            got = oracle(metric, labels, scores, **params).mean
            assert got == pytest.approx(value, rel=1e-12, abs=1e-12), (metric, labels, scores, k)
        checked += 1
    assert checked > 200


def test_optimistic_is_ties_sorted_by_gain_for_named_discounts() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 7))
        labels = rng.integers(0, 5, size=n)
        scores = rng.integers(0, 3, size=n)
        k = int(rng.integers(1, 8))
        best = np.lexsort((-labels, -scores))  # score desc, then label desc
        worst = np.lexsort((labels, -scores))
        for metric in ("dcg", "ndcg", "average_precision", "reciprocal_rank", "precision"):
            s = oracle(metric, labels, scores, k=k)
            assert s.max == pytest.approx(oracle(metric, labels[best], -np.arange(n), k=k).mean)
            assert s.min == pytest.approx(oracle(metric, labels[worst], -np.arange(n), k=k).mean)
            assert s.min - 1e-12 <= s.mean <= s.max + 1e-12
