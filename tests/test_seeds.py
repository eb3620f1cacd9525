"""The worked examples of the seed texts (``../shared/seeds``) as tests of the public API.

Every expected value is written out here as plain arithmetic (explicit sums with ``math.log``),
never computed by ``rankmetrics``, and checked to 1e-12.  Where a seed prints a number, that
printed (two-decimal, usually truncated) value is checked as well with an absolute tolerance of
0.01.  Known slips in the seeds are documented in ``../shared/seeds/NOTES.md`` and pinned below.

Seeds:
- JK2002-RN  Järvelin & Kekäläinen, "Cumulated gain-based indicators of IR performance",
             Univ. of Tampere Research Note RN-2002-2 (jarvelin-kekalainen-2002-cumulated-gain-
             indicators.txt), section 2, eqs. 1-6.
- JK2002-TOIS the TOIS 2002 journal text (jarvelin-kekalainen-2002-tois-stopworded.txt), sec. 2.2.
- JK2008     Järvelin, Price, Delcambre & Nielsen, "Discounted cumulated gain based evaluation of
             multiple-query IR sessions", ECIR 2008 (jarvelin-et-al-2008-session-dcg.txt), Appendix.
- SLIDES     ir-evaluation-lecture-slides.txt, chapter IR:VIII "Performance Measures".
- MN2008     McSherry & Najork, "Computing information retrieval performance measures
             efficiently in the presence of tied scores", ECIR 2008
             (mcsherry-najork-2008-tied-scores.txt), sec. 2.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate, permutations, product

import numpy as np
import pytest

import rankmetrics

EXACT = 1e-12  # formula value vs library
PRINTED = 0.01  # printed (truncated / rounded to two decimals) value vs formula and library


def _running(terms: Sequence[float]) -> list[float]:
    """Running sums of explicitly written terms: the recursive definitions CG[i] = CG[i-1] + ..."""
    return list(accumulate(terms))


def _log(x: float, b: float) -> float:
    return math.log(x) / math.log(b)


# ---------------------------------------------------------------------------------------------
# 1. Järvelin & Kekäläinen 2002 (research note RN-2002-2), section 2
# ---------------------------------------------------------------------------------------------

# JK2002-RN sec. 2.1: the sample gain vector G' = <3, 2, 3, 0, 0, 1, 2, 2, 3, 0, ...>.
G_PRIME = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
# JK2002-RN sec. 2.2, eq. 4: the sample ideal vector I' = <3,3,3,2,2,2,1,1,1,1,0,0,0,...> comes from
# the *recall base* (m = 3 documents at level 3, l = 3 at level 2, k = 4 at level 1).  G' retrieves
# all three 3s and all three 2s but only one of the four 1s, so the recall base has three more
# level-1 documents that were not retrieved in the top 10.  We model them as extra rows of the same
# query scored below every retrieved document (ranks 11..13); the API builds the ideal from all
# rows of the query.
RECALL_BASE_EXTRA = [1, 1, 1]
JK_LABELS = np.array(G_PRIME + RECALL_BASE_EXTRA)
JK_SCORES = np.arange(len(JK_LABELS), 0, -1, dtype=np.float64)  # distinct, descending: 13..1
I_PRIME = [3, 3, 3, 2, 2, 2, 1, 1, 1, 1]

# eq. 1: CG[1] = G[1], CG[i] = CG[i-1] + G[i].
CG_PRIME = _running([3, 2, 3, 0, 0, 1, 2, 2, 3, 0])
CG_PRIME_PRINTED = [3, 5, 8, 8, 8, 9, 11, 13, 16, 16]
# eq. 2 with b = 2: DCG[1] = G[1], DCG[i] = DCG[i-1] + G[i] / log_2 i.
DCG_PRIME = _running(
    [
        3,
        2 / math.log2(2),
        3 / math.log2(3),
        0 / math.log2(4),
        0 / math.log2(5),
        1 / math.log2(6),
        2 / math.log2(7),
        2 / math.log2(8),
        3 / math.log2(9),
        0 / math.log2(10),
    ]
)
DCG_PRIME_PRINTED = [3, 5, 6.89, 6.89, 6.89, 7.28, 7.99, 8.66, 9.61, 9.61]
# Ideal vectors of I' (sec. 2.2, after eq. 4).
CG_IDEAL = _running([3, 3, 3, 2, 2, 2, 1, 1, 1, 1])
CG_IDEAL_PRINTED = [3, 6, 9, 11, 13, 15, 16, 17, 18, 19]
DCG_IDEAL = _running(
    [
        3,
        3 / math.log2(2),
        3 / math.log2(3),
        2 / math.log2(4),
        2 / math.log2(5),
        2 / math.log2(6),
        1 / math.log2(7),
        1 / math.log2(8),
        1 / math.log2(9),
        1 / math.log2(10),
    ]
)
# Printed values are truncated: 10.52 for 10.5278..., 11.83 for 11.8339...
DCG_IDEAL_PRINTED = [3, 6, 7.89, 8.89, 9.75, 10.52, 10.88, 11.21, 11.53, 11.83]
# sec. 2.3, eq. 5: nCG' = norm-vect(CG', CG_I').
NCG_PRIME = [c / i for c, i in zip(CG_PRIME, CG_IDEAL, strict=True)]
NCG_PRIME_PRINTED = [1, 0.83, 0.89, 0.73, 0.62, 0.6, 0.69, 0.76, 0.89, 0.84]
# nDCG' = norm-vect(DCG', DCG_I') (the paper describes it but prints no numbers).
NDCG_PRIME = [d / i for d, i in zip(DCG_PRIME, DCG_IDEAL, strict=True)]

JK_KW = {"gain": "linear", "ties": "average"}
JK2002_KW = {"gain": "linear", "discount": "jarvelin2002", "log_base": 2, "ties": "average"}


def _row(curves: np.ndarray) -> np.ndarray:
    curves = np.asarray(curves)
    assert curves.shape == (1, 10)
    return curves[0]


def test_jk2002_arithmetic_reproduces_printed_vectors() -> None:
    # Sanity check of the arithmetic above against the paper's printed vectors (sec. 2.1-2.3).
    np.testing.assert_allclose(CG_PRIME, CG_PRIME_PRINTED, rtol=0, atol=EXACT)
    np.testing.assert_allclose(CG_IDEAL, CG_IDEAL_PRINTED, rtol=0, atol=EXACT)
    np.testing.assert_allclose(DCG_PRIME, DCG_PRIME_PRINTED, rtol=0, atol=PRINTED)
    np.testing.assert_allclose(DCG_IDEAL, DCG_IDEAL_PRINTED, rtol=0, atol=PRINTED)
    np.testing.assert_allclose(NCG_PRIME, NCG_PRIME_PRINTED, rtol=0, atol=PRINTED)


def test_jk2002_cg_curve_eq1() -> None:
    # JK2002-RN sec. 2.1, eq. 1: CG' = <3, 5, 8, 8, 8, 9, 11, 13, 16, 16, ...>.
    got = _row(rankmetrics.cg_curve(JK_LABELS, JK_SCORES, depth=10, **JK_KW))
    np.testing.assert_allclose(got, CG_PRIME, rtol=0, atol=EXACT)
    np.testing.assert_allclose(got, CG_PRIME_PRINTED, rtol=0, atol=PRINTED)


def test_jk2002_dcg_curve_eq2_base2() -> None:
    # JK2002-RN sec. 2.2, eq. 2, b = 2:
    # DCG' = <3, 5, 6.89, 6.89, 6.89, 7.28, 7.99, 8.66, 9.61, 9.61, ...>.
    got = _row(rankmetrics.dcg_curve(JK_LABELS, JK_SCORES, depth=10, **JK2002_KW))
    np.testing.assert_allclose(got, DCG_PRIME, rtol=0, atol=EXACT)
    np.testing.assert_allclose(got, DCG_PRIME_PRINTED, rtol=0, atol=PRINTED)


def test_jk2002_scalar_cg_dcg_match_curves_at_every_rank() -> None:
    # The per-query functions with k = i give component i of the JK vectors (eqs. 1, 2).
    for i in range(1, 11):
        cg = rankmetrics.cg(JK_LABELS, JK_SCORES, k=i, **JK_KW)
        dcg = rankmetrics.dcg(JK_LABELS, JK_SCORES, k=i, **JK2002_KW)
        np.testing.assert_allclose(cg, [CG_PRIME[i - 1]], rtol=0, atol=EXACT)
        np.testing.assert_allclose(dcg, [DCG_PRIME[i - 1]], rtol=0, atol=EXACT)


def test_jk2002_ideal_vectors_eq4_from_recall_base() -> None:
    # JK2002-RN sec. 2.2, eq. 4 and the ideal CG / DCG (b = 2) vectors printed after it.
    # The ideal comes from all rows of the query (the recall base), not from the top 10 retrieved:
    # the ideal of the retrieved list alone would be <3,3,3,2,2,2,1,0,0,0>.
    icg = _row(rankmetrics.ideal_cg_curve(JK_LABELS, depth=10, gain="linear"))
    idcg = _row(
        rankmetrics.ideal_dcg_curve(
            JK_LABELS, depth=10, gain="linear", discount="jarvelin2002", log_base=2
        )
    )
    np.testing.assert_allclose(icg, CG_IDEAL, rtol=0, atol=EXACT)
    np.testing.assert_allclose(icg, CG_IDEAL_PRINTED, rtol=0, atol=PRINTED)
    np.testing.assert_allclose(idcg, DCG_IDEAL, rtol=0, atol=EXACT)
    np.testing.assert_allclose(idcg, DCG_IDEAL_PRINTED, rtol=0, atol=PRINTED)
    # eq. 4 only counts relevant documents by level: the order of the input rows is irrelevant.
    shuffled = JK_LABELS[np.random.default_rng(0).permutation(len(JK_LABELS))]
    icg2 = _row(rankmetrics.ideal_cg_curve(shuffled, depth=10, gain="linear"))
    np.testing.assert_allclose(icg2, CG_IDEAL, rtol=0, atol=EXACT)


def test_jk2002_ncg_curve_eq5() -> None:
    # JK2002-RN sec. 2.3, eq. 5: nCG' = <1, 0.83, 0.89, 0.73, 0.62, 0.6, 0.69, 0.76, 0.89, 0.84>.
    got = _row(rankmetrics.ncg_curve(JK_LABELS, JK_SCORES, depth=10, **JK_KW))
    np.testing.assert_allclose(got, NCG_PRIME, rtol=0, atol=EXACT)
    np.testing.assert_allclose(got, NCG_PRIME_PRINTED, rtol=0, atol=PRINTED)


def test_jk2002_ndcg_curve_eq5() -> None:
    # JK2002-RN sec. 2.3: nDCG' = norm-vect(DCG', DCG_I') (no printed values in the paper).
    got = _row(rankmetrics.ndcg_curve(JK_LABELS, JK_SCORES, depth=10, **JK2002_KW))
    np.testing.assert_allclose(got, NDCG_PRIME, rtol=0, atol=EXACT)
    # Rank 1 is ideal (3 / 3); rank 10: 9.6051... / 11.8339... ~ 0.8117.
    assert got[0] == pytest.approx(1.0, abs=EXACT)
    assert got[9] == pytest.approx(0.81, abs=PRINTED)


def test_jk2002_ndcg_at_k_uses_recall_base() -> None:
    # ndcg(k=10) is the last component of nDCG'; the ideal is the recall base's (eq. 4).
    got = rankmetrics.ndcg(JK_LABELS, JK_SCORES, k=10, **JK2002_KW)
    np.testing.assert_allclose(got, [NDCG_PRIME[9]], rtol=0, atol=EXACT)
    got = rankmetrics.ncg(JK_LABELS, JK_SCORES, k=5, **JK_KW)
    np.testing.assert_allclose(got, [8 / 13], rtol=0, atol=EXACT)


def test_jk2002_case_study_weights_0_1_10_100() -> None:
    # JK2002-RN sec. 3 / JK2008 sec. 3.1: relevance levels 0-3 weighted 0-1-10-100.
    # DCG (eq. 2, b = 2) of G' with the weights substituted for the levels:
    w = {0: 0, 1: 1, 2: 10, 3: 100}
    expected = _running(
        [w[3], w[2] / math.log2(2)]
        + [w[g] / math.log2(i) for i, g in zip(range(3, 11), G_PRIME[2:], strict=True)]
    )
    # ... the same written out for the last component: 100 + 10 + 100/log2 3 + 1/log2 6
    #     + 10/log2 7 + 10/log2 8 + 100/log2 9.
    last = (
        100
        + 10
        + 100 / math.log2(3)
        + 1 / math.log2(6)
        + 10 / math.log2(7)
        + 10 / math.log2(8)
        + 100 / math.log2(9)
    )
    assert expected[9] == pytest.approx(last, abs=EXACT)
    for gain in ([0, 1, 10, 100], {0: 0, 1: 1, 2: 10, 3: 100}):
        got = _row(
            rankmetrics.dcg_curve(
                JK_LABELS, JK_SCORES, depth=10, gain=gain, discount="jarvelin2002", log_base=2
            )
        )
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)


def test_jk2002_tois_no_discount_below_base_10() -> None:
    # JK2002-TOIS sec. 2.2 ("moreover apply discount case ranks less logarithm base would give
    # boost"): the journal version leaves ranks i < b undiscounted, DCG[i] = CG[i] for i < b, and
    # discounts G[i] / log_b i for i >= b.  For b = 10, ranks 1..9 are undiscounted and rank 10
    # has 1 / log_10 10 = 1, so DCG' = CG' over the top ten; the recall-base rows at ranks 11..13
    # (gain 1 each) are the first ones actually discounted.
    expected = _running(
        [3, 2, 3, 0, 0, 1, 2, 2, 3]  # ranks 1..9: no discount
        + [0 / _log(10, 10), 1 / _log(11, 10), 1 / _log(12, 10), 1 / _log(13, 10)]
    )
    got = np.asarray(
        rankmetrics.dcg_curve(
            JK_LABELS, JK_SCORES, depth=13, gain="linear", discount="jarvelin2002", log_base=10
        )
    )
    assert got.shape == (1, 13)
    np.testing.assert_allclose(got[0], expected, rtol=0, atol=EXACT)
    np.testing.assert_allclose(got[0, :10], CG_PRIME, rtol=0, atol=EXACT)
    # The research note's literal eq. 2 (discount from rank 2 on) would *boost* rank 2 for b = 10:
    # 3 + 2 / log_10 2 = 9.64.  The library follows the journal rule instead.
    assert abs(got[0, 1] - (3 + 2 / _log(2, 10))) > 1.0
    # For b = 2 both readings agree (sec. 2.2 of both texts): rank 1 undiscounted, then 1/log_2 i.
    got2 = _row(rankmetrics.dcg_curve(JK_LABELS, JK_SCORES, depth=10, **JK2002_KW))
    np.testing.assert_allclose(got2, DCG_PRIME, rtol=0, atol=EXACT)


def test_jk2002_avg_vect_eq3() -> None:
    # JK2002-RN sec. 2.2, eq. 3: avg-vect(V) = |V|^-1 * sum of the vectors, component-wise.
    v = np.array([CG_PRIME, CG_IDEAL, DCG_PRIME])
    expected = [(a + b + c) / 3 for a, b, c in zip(CG_PRIME, CG_IDEAL, DCG_PRIME, strict=True)]
    np.testing.assert_allclose(rankmetrics.avg_vect(v), expected, rtol=0, atol=EXACT)
    small = np.array([[1.0, 2.0, 3.0], [3.0, 4.0, 7.0]])
    np.testing.assert_allclose(rankmetrics.avg_vect(small), [2.0, 3.0, 5.0], rtol=0, atol=EXACT)


def test_jk2002_norm_vect_eq5() -> None:
    # JK2002-RN sec. 2.3, eq. 5: norm-vect(V, I) = <v1/i1, ..., vk/ik>; the paper's example is
    # nCG' = norm-vect(CG', CG_I'), and norm-vect(I, I) = <1, 1, ..., 1>.
    got = rankmetrics.norm_vect(np.array(CG_PRIME, float), np.array(CG_IDEAL, float))
    np.testing.assert_allclose(got, NCG_PRIME, rtol=0, atol=EXACT)
    np.testing.assert_allclose(got, NCG_PRIME_PRINTED, rtol=0, atol=PRINTED)
    ideal = np.array(DCG_IDEAL)
    np.testing.assert_allclose(rankmetrics.norm_vect(ideal, ideal), np.ones(10), rtol=0, atol=EXACT)


def test_jk2002_avg_pos_eq6() -> None:
    # JK2002-RN sec. 2.3, eq. 6: avg-pos(V, k) = k^-1 * sum_{i=1..k} V[i].
    v = np.array(NCG_PRIME)
    assert rankmetrics.avg_pos(v, 10) == pytest.approx(sum(NCG_PRIME) / 10, abs=EXACT)
    assert rankmetrics.avg_pos(v, 3) == pytest.approx((1 + 5 / 6 + 8 / 9) / 3, abs=EXACT)
    assert rankmetrics.avg_pos(np.array([2.0, 4.0, 9.0]), 2) == pytest.approx(3.0, abs=EXACT)


# ---------------------------------------------------------------------------------------------
# 3. Järvelin et al. 2008 (session DCG), Appendix eq. 2: DCG[i] = sum_j G[j] / (1 + log_b j)
# ---------------------------------------------------------------------------------------------

# The appendix prints "G[j]/(1 + log_b i)"; the j-indexed discount is the intended one (every rank
# discounted, rank 1 by 1 / (1 + 0) = 1).  With b = 4:
DCG_2008 = _running(
    [
        3 / (1 + _log(1, 4)),
        2 / (1 + _log(2, 4)),
        3 / (1 + _log(3, 4)),
        0 / (1 + _log(4, 4)),
        0 / (1 + _log(5, 4)),
        1 / (1 + _log(6, 4)),
        2 / (1 + _log(7, 4)),
        2 / (1 + _log(8, 4)),
        3 / (1 + _log(9, 4)),
        0 / (1 + _log(10, 4)),
    ]
)
# Erratum (NOTES.md): the paper prints DCG' = <3, 4, 5.67, 5.67, 5.67, 6.11, 6.94, 8.14, 9.30, 9.30>
# with two arithmetic slips: rank 2 adds 1 instead of 2 / (1 + log_4 2) = 2 / 1.5 = 1.33 (and the
# 0.33 deficit is carried on through ranks 3..7), and rank 8 adds 1.20 instead of
# 2 / (1 + log_4 8) = 2 / 2.5 = 0.80.  The formula gives the corrected list below.
DCG_2008_PRINTED = [3, 4, 5.67, 5.67, 5.67, 6.11, 6.94, 8.14, 9.30, 9.30]
DCG_2008_CORRECTED = [3, 4.33, 6.01, 6.01, 6.01, 6.44, 7.28, 8.08, 9.24, 9.24]


def test_jk2008_appendix_cg_eq1() -> None:
    # JK2008 Appendix eq. 1: CG' = <3, 5, 8, 8, 8, 9, 11, 13, 16, 16, ...> (same as JK2002).
    got = _row(rankmetrics.cg_curve(np.array(G_PRIME), JK_SCORES[:10], depth=10, **JK_KW))
    np.testing.assert_allclose(got, CG_PRIME_PRINTED, rtol=0, atol=EXACT)


def test_jk2008_appendix_dcg_eq2_base4() -> None:
    # JK2008 Appendix eq. 2, b = 4, discount 1 / (1 + log_b j) at every rank.
    got = _row(
        rankmetrics.dcg_curve(
            np.array(G_PRIME),
            JK_SCORES[:10],
            depth=10,
            gain="linear",
            discount="jarvelin2008",
            log_base=4,
        )
    )
    np.testing.assert_allclose(got, DCG_2008, rtol=0, atol=EXACT)
    np.testing.assert_allclose(got, DCG_2008_CORRECTED, rtol=0, atol=PRINTED)
    # Pin the erratum: the printed list is NOT what the formula gives at ranks 2 and 8, both in the
    # cumulated values and in the increments added at those ranks.
    assert abs(got[1] - DCG_2008_PRINTED[1]) > 0.3  # 4.33 vs printed 4
    assert abs(got[7] - DCG_2008_PRINTED[7]) > 0.05  # 8.08 vs printed 8.14
    assert abs((got[1] - got[0]) - (4 - 3)) > 0.3  # +1.33 vs printed +1
    assert abs((got[7] - got[6]) - (8.14 - 6.94)) > 0.3  # +0.80 vs printed +1.20
    # The other increments of the printed list agree with the formula.
    for i in (2, 5, 6, 8):
        printed_step = DCG_2008_PRINTED[i] - DCG_2008_PRINTED[i - 1]
        assert got[i] - got[i - 1] == pytest.approx(printed_step, abs=PRINTED)


def test_jk2008_scalar_dcg_at_k() -> None:
    for i in range(1, 11):
        got = rankmetrics.dcg(
            np.array(G_PRIME),
            JK_SCORES[:10],
            k=i,
            gain="linear",
            discount="jarvelin2008",
            log_base=4,
        )
        np.testing.assert_allclose(got, [DCG_2008[i - 1]], rtol=0, atol=EXACT)


# ---------------------------------------------------------------------------------------------
# 2. Lecture slides (chapter IR:VIII)
# ---------------------------------------------------------------------------------------------

# SLIDES "Normalized Discounted Cumulative Gain (NDCG)": gain 2^r - 1, discount 1 / log2(1 + i),
# ideal ranking from the same ten judged documents (3 3 3 2 2 2 1 0 0 0).
SLIDE_LABELS = np.array([3, 2, 3, 0, 0, 1, 2, 2, 3, 0])
SLIDE_SCORES = np.array([7.9, 7.6, 6.8, 6.5, 6.2, 5.9, 5.4, 4.5, 4.1, 3.2])  # slides' score row
SLIDE_DCG = _running(
    [
        (2**3 - 1) / math.log2(2),
        (2**2 - 1) / math.log2(3),
        (2**3 - 1) / math.log2(4),
        (2**0 - 1) / math.log2(5),
        (2**0 - 1) / math.log2(6),
        (2**1 - 1) / math.log2(7),
        (2**2 - 1) / math.log2(8),
        (2**2 - 1) / math.log2(9),
        (2**3 - 1) / math.log2(10),
        (2**0 - 1) / math.log2(11),
    ]
)
SLIDE_IDCG = _running(
    [
        (2**3 - 1) / math.log2(2),
        (2**3 - 1) / math.log2(3),
        (2**3 - 1) / math.log2(4),
        (2**2 - 1) / math.log2(5),
        (2**2 - 1) / math.log2(6),
        (2**2 - 1) / math.log2(7),
        (2**1 - 1) / math.log2(8),
        (2**0 - 1) / math.log2(9),
        (2**0 - 1) / math.log2(10),
        (2**0 - 1) / math.log2(11),
    ]
)
SLIDE_DCG_PRINTED = [7.00, 8.89, 12.39, 12.39, 12.39, 12.75, 13.75, 14.70, 16.80, 16.80]
SLIDE_IDCG_PRINTED = [7.00, 11.42, 14.92, 16.21, 17.37, 18.44, 18.77, 18.77, 18.77, 18.77]
SLIDE_NDCG_PRINTED = [1.00, 0.78, 0.83, 0.76, 0.71, 0.69, 0.73, 0.78, 0.90, 0.90]


def test_slides_dcg_ndcg_table() -> None:
    # SLIDES, NDCG example table: DCG@k, DCG*@k and NDCG@k for k = 1..10.
    np.testing.assert_allclose(SLIDE_DCG, SLIDE_DCG_PRINTED, rtol=0, atol=PRINTED)
    np.testing.assert_allclose(SLIDE_IDCG, SLIDE_IDCG_PRINTED, rtol=0, atol=PRINTED)
    for k in range(1, 11):
        dcg = rankmetrics.dcg(SLIDE_LABELS, SLIDE_SCORES, k=k)  # defaults: 2^r - 1, 1/log2(1+i)
        ndcg = rankmetrics.ndcg(SLIDE_LABELS, SLIDE_SCORES, k=k)
        expected_ndcg = SLIDE_DCG[k - 1] / SLIDE_IDCG[k - 1]
        np.testing.assert_allclose(dcg, [SLIDE_DCG[k - 1]], rtol=0, atol=EXACT)
        np.testing.assert_allclose(dcg, [SLIDE_DCG_PRINTED[k - 1]], rtol=0, atol=PRINTED)
        np.testing.assert_allclose(ndcg, [expected_ndcg], rtol=0, atol=EXACT)
        np.testing.assert_allclose(ndcg, [SLIDE_NDCG_PRINTED[k - 1]], rtol=0, atol=PRINTED)
    # The ideal does not depend on the scores.
    idcg = _row(rankmetrics.ideal_dcg_curve(SLIDE_LABELS, depth=10, gain="exponential"))
    np.testing.assert_allclose(idcg, SLIDE_IDCG, rtol=0, atol=EXACT)


def test_slides_dcg_ndcg_curves() -> None:
    # Same table through the curve functions (explicit exponential gain / log discount, base 2).
    kw = {"gain": "exponential", "discount": "log", "log_base": 2}
    dcg = _row(rankmetrics.dcg_curve(SLIDE_LABELS, SLIDE_SCORES, depth=10, **kw))
    ndcg = _row(rankmetrics.ndcg_curve(SLIDE_LABELS, SLIDE_SCORES, depth=10, **kw))
    np.testing.assert_allclose(dcg, SLIDE_DCG, rtol=0, atol=EXACT)
    np.testing.assert_allclose(
        ndcg, [d / i for d, i in zip(SLIDE_DCG, SLIDE_IDCG, strict=True)], rtol=0, atol=EXACT
    )
    np.testing.assert_allclose(ndcg, SLIDE_NDCG_PRINTED, rtol=0, atol=PRINTED)


# SLIDES rankings (ten documents each, slides' scores); relevant ranks read off the printed
# precision/recall rows:
#   A (system 1, topic 1, R = 6): relevant at 1, 3, 4, 5, 6, 10
#   B (system 2, topic 1, R = 6): relevant at 2, 5, 6, 7, 9, 10
#   C (system 1, topic 2, R = 3): relevant at 1, 6, 10
#   D (system 2, topic 2, R = 3): relevant at 2, 5, 7
RANK_A = np.array([1, 0, 1, 1, 1, 1, 0, 0, 0, 1])
RANK_B = np.array([0, 1, 0, 0, 1, 1, 1, 0, 1, 1])
RANK_C = np.array([1, 0, 0, 0, 0, 1, 0, 0, 0, 1])
RANK_D = np.array([0, 1, 0, 0, 1, 0, 1, 0, 0, 0])
PRINTED_PR = {
    "A": (
        [1.00, 0.50, 0.67, 0.75, 0.80, 0.83, 0.71, 0.63, 0.56, 0.60],
        [0.17, 0.17, 0.33, 0.50, 0.67, 0.83, 0.83, 0.83, 0.83, 1.00],
    ),
    "B": (
        [0.00, 0.50, 0.33, 0.25, 0.40, 0.50, 0.57, 0.50, 0.56, 0.60],
        [0.00, 0.17, 0.17, 0.17, 0.33, 0.50, 0.67, 0.67, 0.83, 1.00],
    ),
    "C": (
        [1.00, 0.50, 0.33, 0.25, 0.20, 0.33, 0.29, 0.25, 0.22, 0.30],
        [0.33, 0.33, 0.33, 0.33, 0.33, 0.66, 0.66, 0.66, 0.66, 1.00],
    ),
    "D": (
        [0.00, 0.50, 0.33, 0.25, 0.40, 0.33, 0.43, 0.38, 0.33, 0.30],
        [0.00, 0.33, 0.33, 0.33, 0.67, 0.67, 1.00, 1.00, 1.00, 1.00],
    ),
}
RANKINGS = {"A": RANK_A, "B": RANK_B, "C": RANK_C, "D": RANK_D}

# SLIDES "Average Precision (Alternative 1)" and "MAP": sum of P@k at relevant ranks / R.
AP_A = (1 / 1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10) / 6  # 0.775, printed 0.78
AP_B = (1 / 2 + 2 / 5 + 3 / 6 + 4 / 7 + 5 / 9 + 6 / 10) / 6  # 0.5211, printed 0.52
AP_C = (1 / 1 + 2 / 6 + 3 / 10) / 3  # 0.5444, printed 0.54
AP_D = (1 / 2 + 2 / 5 + 3 / 7) / 3  # 0.4429, printed 0.44


def test_slides_precision_recall_at_k_tables() -> None:
    # SLIDES "Precision@k and Recall@k" and the PR-curve slides: printed rows for A, B, C, D.
    for name, labels in RANKINGS.items():
        r_total = int(labels.sum())
        p_printed, r_printed = PRINTED_PR[name]
        for k in range(1, 11):
            hits = int(labels[:k].sum())
            p = rankmetrics.precision(labels, SLIDE_SCORES, k=k)
            r = rankmetrics.recall(labels, SLIDE_SCORES, k=k)
            np.testing.assert_allclose(p, [hits / k], rtol=0, atol=EXACT)
            np.testing.assert_allclose(r, [hits / r_total], rtol=0, atol=EXACT)
            np.testing.assert_allclose(p, [p_printed[k - 1]], rtol=0, atol=PRINTED)
            np.testing.assert_allclose(r, [r_printed[k - 1]], rtol=0, atol=PRINTED)
    # "Both have precision = 0.6 and recall = 1.0" (A and B at k = 10).
    for labels in (RANK_A, RANK_B):
        assert rankmetrics.precision(labels, SLIDE_SCORES, k=10)[0] == pytest.approx(0.6, abs=EXACT)
        assert rankmetrics.recall(labels, SLIDE_SCORES, k=10)[0] == pytest.approx(1.0, abs=EXACT)


def test_slides_average_precision_rankings_a_b() -> None:
    # SLIDES "Average Precision (Alternative 1)": A = 0.78, B = 0.52.
    for labels, expected, printed in ((RANK_A, AP_A, 0.78), (RANK_B, AP_B, 0.52)):
        got = rankmetrics.average_precision(labels, SLIDE_SCORES)
        np.testing.assert_allclose(got, [expected], rtol=0, atol=EXACT)
        np.testing.assert_allclose(got, [printed], rtol=0, atol=PRINTED)


def test_slides_average_precision_at_k_min_k_relevant() -> None:
    # SLIDES AP_1@k = 1 / min(k, R) * sum_{i<=k} r(d_i) * precision@i
    # (denominator="min_k_relevant").
    # Ranking A, k = 5: min(5, 6) = 5 -> (1 + 2/3 + 3/4 + 4/5) / 5.
    got = rankmetrics.average_precision(RANK_A, SLIDE_SCORES, k=5, denominator="min_k_relevant")
    np.testing.assert_allclose(got, [(1 + 2 / 3 + 3 / 4 + 4 / 5) / 5], rtol=0, atol=EXACT)
    # Ranking C, k = 2: min(2, 3) = 2 -> (1) / 2.
    got = rankmetrics.average_precision(RANK_C, SLIDE_SCORES, k=2, denominator="min_k_relevant")
    np.testing.assert_allclose(got, [1 / 2], rtol=0, atol=EXACT)
    # Default denominator R (MN2008 sec. 2.4, trec_eval): ranking A, k = 5 -> (...) / 6.
    got = rankmetrics.average_precision(RANK_A, SLIDE_SCORES, k=5)
    np.testing.assert_allclose(got, [(1 + 2 / 3 + 3 / 4 + 4 / 5) / 6], rtol=0, atol=EXACT)


def test_slides_map_system1_with_slip() -> None:
    # SLIDES "Mean Average Precision (MAP)": "The MAP for System 1, Rankings A and C is
    # (0.78 + 0.44)/2 = 0.66" -- a slip (NOTES.md): 0.44 is ranking D's AP (system 2, topic 2).
    # Ranking C's AP is (1.0 + 0.33 + 0.3)/3 = 0.54 as the same slide says, and
    # (0.78 + 0.54)/2 = 0.66 is the printed MAP.
    y = np.concatenate([RANK_A, RANK_C])
    s = np.concatenate([SLIDE_SCORES, SLIDE_SCORES])
    qid = np.repeat([1, 2], 10)
    per_query = rankmetrics.average_precision(y, s, qid)
    np.testing.assert_allclose(per_query, [AP_A, AP_C], rtol=0, atol=EXACT)
    np.testing.assert_allclose(per_query, [0.78, 0.54], rtol=0, atol=PRINTED)
    map1 = rankmetrics.mean_average_precision_score(y, s, qid)
    assert map1 == pytest.approx((AP_A + AP_C) / 2, abs=EXACT)
    assert map1 == pytest.approx(0.66, abs=PRINTED)
    # Pin the slip: C's AP is not 0.44, and (0.78 + 0.44)/2 = 0.61 is not the MAP.
    assert abs(per_query[1] - 0.44) > 0.05
    assert abs(map1 - (0.78 + 0.44) / 2) > 0.04


def test_slides_map_system2() -> None:
    # SLIDES: "The MAP for System 2, Rankings B and D is (0.52 + 0.44)/2 = 0.48".
    y = np.concatenate([RANK_B, RANK_D])
    s = np.concatenate([SLIDE_SCORES, SLIDE_SCORES])
    qid = np.repeat(["t1", "t2"], 10)
    per_query = rankmetrics.average_precision(y, s, qid)
    np.testing.assert_allclose(per_query, [AP_B, AP_D], rtol=0, atol=EXACT)
    np.testing.assert_allclose(per_query, [0.52, 0.44], rtol=0, atol=PRINTED)
    map2 = rankmetrics.mean_average_precision_score(y, s, qid)
    assert map2 == pytest.approx((AP_B + AP_D) / 2, abs=EXACT)
    assert map2 == pytest.approx(0.48, abs=PRINTED)


def _first_relevant_at(ranks: Sequence[int], n_docs: int = 5) -> tuple[np.ndarray, ...]:
    """One query per entry, n_docs distinct-score documents, the only relevant one at ``rank``."""
    y, s, q = [], [], []
    for qi, rank in enumerate(ranks):
        labels = [0] * n_docs
        labels[rank - 1] = 1
        y += labels
        s += [float(n_docs - j) for j in range(n_docs)]
        q += [qi] * n_docs
    return np.array(y), np.array(s), np.array(q)


def test_slides_reciprocal_rank_table() -> None:
    # SLIDES "Mean Reciprocal Rank (MRR)": RR = 1/r, printed 1, 0.50, 0.33, ..., 0.13, 0.11, 0.10.
    printed = [1, 0.50, 0.33, 0.25, 0.20, 0.17, 0.14, 0.13, 0.11, 0.10]
    y, s, q = _first_relevant_at(list(range(1, 11)), n_docs=10)
    got = rankmetrics.reciprocal_rank(y, s, q)
    np.testing.assert_allclose(got, [1 / r for r in range(1, 11)], rtol=0, atol=EXACT)
    np.testing.assert_allclose(got, printed, rtol=0, atol=PRINTED)


def test_slides_mrr_examples() -> None:
    # SLIDES MRR remarks [Fuhr 2017]: System 1 ranks 1, 2, 4 -> 1/3 (1/1 + 1/2 + 1/4) = 0.58;
    # System 2 ranks 2, 2, 2 -> 1/3 (3 * 1/2) = 0.5.
    y, s, q = _first_relevant_at([1, 2, 4])
    mrr1 = rankmetrics.reciprocal_rank_score(y, s, q)
    assert mrr1 == pytest.approx((1 / 1 + 1 / 2 + 1 / 4) / 3, abs=EXACT)
    assert mrr1 == pytest.approx(0.58, abs=PRINTED)
    y, s, q = _first_relevant_at([2, 2, 2])
    mrr2 = rankmetrics.reciprocal_rank_score(y, s, q)
    assert mrr2 == pytest.approx((3 * 1 / 2) / 3, abs=EXACT)
    assert mrr2 == pytest.approx(0.5, abs=PRINTED)


# ---------------------------------------------------------------------------------------------
# 4. McSherry & Najork 2008: tie-aware measures (ties="average")
# ---------------------------------------------------------------------------------------------

# Running example: six documents in four tie groups (MN2008 sec. 2.1 notation):
#   V1 = {rel}                 score 5   t_1 = 0, n = 1, r = 1
#   V2 = {non}                 score 4   t_2 = 1, n = 1, r = 0
#   V3 = {rel, non, rel}       score 3   t_3 = 2, n = 3, r = 2, R_3 = 1
#   V4 = {non}                 score 1   t_4 = 5, n = 1, r = 0
# Rows are given out of score order on purpose (the library sorts; rows need not be sorted).
MN_LABELS = np.array([1, 0, 1, 0, 0, 1])
MN_SCORES = np.array([3.0, 1.0, 5.0, 3.0, 4.0, 3.0])
MN_R = 3


def _orderings(labels: Sequence[float], scores: Sequence[float]) -> Iterator[list[float]]:
    """Every ordering of the labels consistent with the scores (all permutations of each tie)."""
    groups: dict[float, list[float]] = {}
    for lab, sc in zip(labels, scores, strict=True):
        groups.setdefault(float(sc), []).append(float(lab))
    blocks = [groups[sc] for sc in sorted(groups, reverse=True)]
    for combo in product(*(permutations(b) for b in blocks)):
        yield [lab for block in combo for lab in block]


def _brute(
    labels: Sequence[float], scores: Sequence[float], metric: Callable[[list[float]], float]
) -> float:
    values = [metric(o) for o in _orderings(labels, scores)]
    return sum(values) / len(values)


def _ap(rel: list[float], k: int | None = None) -> float:
    k = len(rel) if k is None else k
    hits, total = 0, 0.0
    for i, r in enumerate(rel[:k], start=1):
        if r:
            hits += 1
            total += hits / i
    return total / sum(rel)


def _rr(rel: list[float], k: int | None = None) -> float:
    k = len(rel) if k is None else k
    for i, r in enumerate(rel[:k], start=1):
        if r:
            return 1 / i
    return 0.0


def test_mn2008_precision_recall_f1_at_k() -> None:
    # MN2008 sec. 2.1-2.3: replace the count of relevant in the top k by R_c + (k - t_c) r_c / n_c.
    # k = 4: V_c = V3, t_c = 2, R_c = 1 -> 1 + (4 - 2) * 2/3 = 7/3 expected relevant in the top 4.
    c4 = 1 + (4 - 2) * 2 / 3
    cases = {
        # k: expected relevant count in the top k
        2: 1 + 0,  # no tie crosses the cut-off
        3: 1 + (3 - 2) * 2 / 3,
        4: c4,
        5: 1 + (5 - 2) * 2 / 3,  # = 3, the whole tie group is inside
    }
    for k, c in cases.items():
        p = rankmetrics.precision(MN_LABELS, MN_SCORES, k=k, ties="average")
        r = rankmetrics.recall(MN_LABELS, MN_SCORES, k=k, ties="average")
        f1 = rankmetrics.f1(MN_LABELS, MN_SCORES, k=k, ties="average")
        np.testing.assert_allclose(p, [c / k], rtol=0, atol=EXACT)
        np.testing.assert_allclose(r, [c / MN_R], rtol=0, atol=EXACT)
        # sec. 2.3: F1@k = 2 c / (k + R).
        np.testing.assert_allclose(f1, [2 * c / (k + MN_R)], rtol=0, atol=EXACT)
        # Same as the brute-force mean over all orderings of the tie groups.
        brute_c = _brute(MN_LABELS, MN_SCORES, lambda o, k=k: sum(o[:k]))
        assert brute_c == pytest.approx(c, abs=EXACT)
    # k = 4 in numbers: P@4 = 7/12, R@4 = 7/9, F1@4 = 2/3.
    assert rankmetrics.precision(MN_LABELS, MN_SCORES, k=4)[0] == pytest.approx(0.5833, abs=1e-4)
    assert rankmetrics.recall(MN_LABELS, MN_SCORES, k=4)[0] == pytest.approx(0.7778, abs=1e-4)
    assert rankmetrics.f1(MN_LABELS, MN_SCORES, k=4)[0] == pytest.approx(2 / 3, abs=EXACT)
    # Fbeta is linear in the same count (NOTES.md): (1 + b^2) c / (b^2 R + k), b = 2, k = 4.
    f2 = rankmetrics.fbeta(MN_LABELS, MN_SCORES, beta=2.0, k=4, ties="average")
    np.testing.assert_allclose(f2, [(1 + 4) * c4 / (4 * MN_R + 4)], rtol=0, atol=EXACT)


def test_mn2008_average_precision() -> None:
    # MN2008 sec. 2.4: AP = sum_j (r_i/n_i) (R_i + (j - t_i - 1)(r_i - 1)/(n_i - 1) + 1) / j / R,
    # with the 0/0 term of a one-document group contributing 0 (NOTES.md).
    terms = [
        (1 / 1) * (0 + 0 + 1) / 1,  # j = 1, V1 (single relevant document)
        0.0,  # j = 2, V2 (r = 0)
        (2 / 3) * (1 + (3 - 2 - 1) * (2 - 1) / (3 - 1) + 1) / 3,  # j = 3, V3: 4/9
        (2 / 3) * (1 + (4 - 2 - 1) * (2 - 1) / (3 - 1) + 1) / 4,  # j = 4, V3: 5/12
        (2 / 3) * (1 + (5 - 2 - 1) * (2 - 1) / (3 - 1) + 1) / 5,  # j = 5, V3: 2/5
        0.0,  # j = 6, V4 (r = 0)
    ]
    expected = sum(terms) / MN_R  # (1 + 4/9 + 5/12 + 2/5) / 3 = 0.753703...
    assert expected == pytest.approx(_brute(MN_LABELS, MN_SCORES, _ap), abs=EXACT)
    got = rankmetrics.average_precision(MN_LABELS, MN_SCORES, ties="average")
    np.testing.assert_allclose(got, [expected], rtol=0, atol=EXACT)
    assert got[0] == pytest.approx(0.7537, abs=1e-4)
    # AP@4 (cut inside the tie group), normalised by R (MN2008 sec. 2.4).
    expected4 = sum(terms[:4]) / MN_R
    assert expected4 == pytest.approx(_brute(MN_LABELS, MN_SCORES, lambda o: _ap(o, 4)), abs=EXACT)
    got4 = rankmetrics.average_precision(MN_LABELS, MN_SCORES, k=4, ties="average")
    np.testing.assert_allclose(got4, [expected4], rtol=0, atol=EXACT)


def test_mn2008_reciprocal_rank_erratum_case() -> None:
    # MN2008 sec. 2.5 with the erratum of NOTES.md: a tie group of 3 documents, 2 relevant, at the
    # top.  P(first relevant at x) = f(x-1) - f(x), f(0) = 1, f(1) = 1 - 2/3 = 1/3, f(2) = 0:
    # RR = (1 - 1/3) * 1/1 + (1/3 - 0) * 1/2 = 2/3 + 1/6 = 0.8333.
    labels, scores = np.array([1, 1, 0]), np.array([1.0, 1.0, 1.0])
    f = [1.0, 1 - 2 / 3, (1 - 2 / 2) * (1 - 2 / 3), 0.0]
    expected = sum((f[x - 1] - f[x]) / x for x in (1, 2, 3))
    assert expected == pytest.approx(5 / 6, abs=EXACT)
    assert expected == pytest.approx(_brute(labels, scores, _rr), abs=EXACT)
    got = rankmetrics.reciprocal_rank(labels, scores, ties="average")
    np.testing.assert_allclose(got, [5 / 6], rtol=0, atol=EXACT)
    assert got[0] == pytest.approx(0.8333, abs=1e-4)
    # The printed final formula sum_j f(j - t_i, r_i, n_i) / j would give 1/3 + 0 + 0 = 0.3333.
    printed_formula = f[1] / 1 + f[2] / 2 + f[3] / 3
    assert abs(got[0] - printed_formula) > 0.4


def test_mn2008_reciprocal_rank_after_nonrelevant_and_cutoff() -> None:
    # MN2008 sec. 2.5: the first group with a relevant document follows one non-relevant document
    # (t_i = 1); that group has n = 4, r = 2.  f(1) = 1 - 2/4 = 1/2, f(2) = (1 - 2/3) f(1) = 1/6,
    # f(3) = (1 - 2/2) f(2) = 0.  First relevant at rank 2, 3, 4 with prob. 1/2, 1/3, 1/6.
    labels = np.array([0, 1, 1, 0, 0])
    scores = np.array([9.0, 2.0, 2.0, 2.0, 2.0])
    expected = (1 / 2) / 2 + (1 / 3) / 3 + (1 / 6) / 4  # 0.402777...
    assert expected == pytest.approx(_brute(labels, scores, _rr), abs=EXACT)
    got = rankmetrics.reciprocal_rank(labels, scores, ties="average")
    np.testing.assert_allclose(got, [expected], rtol=0, atol=EXACT)
    # Cut-off inside the tie group (k = 3): positions j <= min(t_{i+1}, k) only.
    expected3 = (1 / 2) / 2 + (1 / 3) / 3
    assert expected3 == pytest.approx(_brute(labels, scores, lambda o: _rr(o, 3)), abs=EXACT)
    got3 = rankmetrics.reciprocal_rank(labels, scores, k=3, ties="average")
    np.testing.assert_allclose(got3, [expected3], rtol=0, atol=EXACT)
    # One relevant in a tie of four after a non-relevant document: uniform over ranks 2..5.
    labels1 = np.array([0, 0, 1, 0, 0])
    expected1 = (1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 4
    got1 = rankmetrics.reciprocal_rank(labels1, scores, ties="average")
    np.testing.assert_allclose(got1, [expected1], rtol=0, atol=EXACT)


def test_mn2008_ndcg_mean_gain_per_tie_group() -> None:
    # MN2008 sec. 2.6: each position of a tie group gets the group's mean gain; the ideal is
    # unaffected by ties.  Labels 3, {2, 0}, 1 (the middle two tied), gain 2^l - 1: 7, {3, 0}, 1.
    labels = np.array([3, 2, 0, 1])
    scores = np.array([2.0, 1.0, 1.0, 0.0])
    mean_tied = (3 + 0) / 2
    dcg = [
        7 / math.log2(2),
        7 / math.log2(2) + mean_tied / math.log2(3),
        7 / math.log2(2) + mean_tied / math.log2(3) + mean_tied / math.log2(4),
        7 / math.log2(2) + mean_tied / math.log2(3) + mean_tied / math.log2(4) + 1 / math.log2(5),
    ]
    ideal = _running([7 / math.log2(2), 3 / math.log2(3), 1 / math.log2(4), 0 / math.log2(5)])
    for k in (1, 2, 3, 4):
        got_dcg = rankmetrics.dcg(labels, scores, k=k, ties="average")
        got_ndcg = rankmetrics.ndcg(labels, scores, k=k, ties="average")
        np.testing.assert_allclose(got_dcg, [dcg[k - 1]], rtol=0, atol=EXACT)
        np.testing.assert_allclose(got_ndcg, [dcg[k - 1] / ideal[k - 1]], rtol=0, atol=EXACT)

        def brute_dcg(o: list[float], k: int = k) -> float:
            return sum((2**lab - 1) / math.log2(i + 1) for i, lab in enumerate(o[:k], start=1))

        assert _brute(labels, scores, brute_dcg) == pytest.approx(dcg[k - 1], abs=EXACT)
    # k = 2 in numbers: (7 + 1.5/log2 3) / (7 + 3/log2 3) = 7.9464 / 8.8928 = 0.8936.
    got = rankmetrics.ndcg(labels, scores, k=2, ties="average")
    assert got[0] == pytest.approx(0.8936, abs=1e-4)


def test_mn2008_ties_in_jk_curve() -> None:
    # MN2008 sec. 2.6 applied to the JK vectors (eqs. 1, 2): tie ranks 2 and 3 of G' (gains 2 and 3)
    # -> each position gets 2.5; CG is unchanged from rank 3 on, CG[2] = 3 + 2.5.
    scores = JK_SCORES.copy()
    scores[2] = scores[1]
    cg = _row(rankmetrics.cg_curve(JK_LABELS, scores, depth=10, **JK_KW))
    expected = list(CG_PRIME)
    expected[1] = 3 + 2.5
    np.testing.assert_allclose(cg, expected, rtol=0, atol=EXACT)
    dcg = _row(rankmetrics.dcg_curve(JK_LABELS, scores, depth=10, **JK2002_KW))
    expected_dcg = [DCG_PRIME[0], 3 + 2.5 / math.log2(2)] + [
        3 + 2.5 / math.log2(2) + 2.5 / math.log2(3) + (d - DCG_PRIME[2]) for d in DCG_PRIME[2:]
    ]
    np.testing.assert_allclose(dcg, expected_dcg, rtol=0, atol=EXACT)


def test_mn2008_optimistic_pessimistic_bracket_average() -> None:
    # Contract: "optimistic"/"pessimistic" are the max/min over the orderings MN2008 averages.
    labels, scores = np.array([1, 1, 0]), np.array([1.0, 1.0, 1.0])
    assert rankmetrics.reciprocal_rank(labels, scores, ties="optimistic")[0] == pytest.approx(1.0)
    assert rankmetrics.reciprocal_rank(labels, scores, ties="pessimistic")[0] == pytest.approx(0.5)
    for k in (3, 4):
        vals = [sum(o[:k]) / k for o in _orderings(MN_LABELS, MN_SCORES)]
        hi = rankmetrics.precision(MN_LABELS, MN_SCORES, k=k, ties="optimistic")[0]
        lo = rankmetrics.precision(MN_LABELS, MN_SCORES, k=k, ties="pessimistic")[0]
        assert hi == pytest.approx(max(vals), abs=EXACT)
        assert lo == pytest.approx(min(vals), abs=EXACT)
