"""Significance tests between systems (rankmetrics.stats), checked against scipy and by hand."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _extras import require

stats = require("scipy.stats")

from rankmetrics.stats import (  # noqa: E402
    align_scores,
    compare,
    significance_table,
)

RNG = np.random.default_rng(7)
A = RNG.uniform(0.2, 0.6, 25)
B = np.clip(A + RNG.normal(0.05, 0.08, 25), 0, 1)
C = np.clip(A + RNG.normal(0.12, 0.1, 25), 0, 1)


def test_paired_t_matches_scipy():
    c = compare({"A": A, "B": B}, test="t")
    ref = stats.ttest_rel(B, A)
    p = c.pair("A", "B")
    assert p.statistic == pytest.approx(ref.statistic)
    assert p.pvalue == pytest.approx(ref.pvalue)
    d = B - A
    assert p.mean_diff == pytest.approx(d.mean())
    assert p.effect_size == pytest.approx(d.mean() / d.std(ddof=1))
    assert p.effect_name == "cohen_dz"
    assert p.significant == (ref.pvalue < 0.05)
    # reversed pair flips signs
    q = c.pair("B", "A")
    assert q.mean_diff == pytest.approx(-d.mean()) and q.pvalue == p.pvalue


def test_wilcoxon_matches_scipy_and_rank_biserial_by_hand():
    a = np.array([0.1, 0.4, 0.3, 0.5, 0.2, 0.6])
    b = np.array([0.3, 0.4, 0.2, 0.9, 0.6, 0.7])  # differences .2, 0, -.1, .4, .4, .1
    c = compare({"a": a, "b": b}, test="wilcoxon")
    p = c.pair("a", "b")
    ref = stats.wilcoxon(b - a, zero_method="wilcox")
    assert p.pvalue == pytest.approx(ref.pvalue)
    # |d| without the zero: .2 .1 .4 .4 .1 -> ranks 3, 1.5, 4.5, 4.5, 1.5; W- = 1.5 (the -.1)
    assert p.statistic == pytest.approx(1.5)
    assert p.effect_size == pytest.approx((13.5 - 1.5) / 15)
    assert p.effect_name == "rank_biserial"


def test_friedman_matches_scipy_with_ties():
    x = np.round(np.column_stack([A, B, C]), 1)  # rounding creates ties within queries
    c = compare({"A": x[:, 0], "B": x[:, 1], "C": x[:, 2]}, test="friedman")
    ref = stats.friedmanchisquare(x[:, 0], x[:, 1], x[:, 2])
    assert c.omnibus is not None
    assert c.omnibus.statistic == pytest.approx(ref.statistic)
    assert c.omnibus.pvalue == pytest.approx(ref.pvalue)
    assert c.omnibus.df == (2.0,)
    assert c.omnibus.effect_size == pytest.approx(ref.statistic / (25 * 2))


def test_friedman_conover_pairs_by_hand():
    # 4 queries x 3 systems, no ties; ranks (1 = worst) per query:
    x = np.array([[0.1, 0.2, 0.3], [0.2, 0.1, 0.3], [0.1, 0.3, 0.2], [0.1, 0.2, 0.3]])
    # ranks: [1,2,3], [2,1,3], [1,3,2], [1,2,3] -> R = [5, 8, 11], A = 4 * 14 = 56
    c = compare(x, test="friedman", systems=["S1", "S2", "S3"])
    n, k, r = 4, 3, np.array([5.0, 8.0, 11.0])
    chi2 = 12 / (n * k * (k + 1)) * (r**2).sum() - 3 * n * (k + 1)
    assert c.omnibus.statistic == pytest.approx(chi2)  # 4.5
    se = math.sqrt(2 * (n * 56 - (r**2).sum()) / ((n - 1) * (k - 1)))
    p13 = c.pair("S1", "S3")
    assert p13.statistic == pytest.approx(6 / se)
    assert p13.pvalue == pytest.approx(2 * stats.t.sf(6 / se, 6))
    assert p13.effect_size == pytest.approx(6 / 4)
    assert p13.effect_name == "mean_rank_diff"


def test_anova_block_design_against_least_squares():
    x = np.column_stack([A, B, C])
    n, k = x.shape
    c = compare({"A": A, "B": B, "C": C}, test="anova")
    # independent check: residual sums of squares of two linear models
    q_dummies = np.eye(n)[np.repeat(np.arange(n), k)]
    s_dummies = np.eye(k)[np.tile(np.arange(k), n)][:, 1:]
    y = x.ravel()

    def rss(design):
        beta, *_ = np.linalg.lstsq(design, y, rcond=None)
        return float(((y - design @ beta) ** 2).sum())

    full = rss(np.hstack([q_dummies, s_dummies]))
    reduced = rss(q_dummies)
    df2 = (n - 1) * (k - 1)
    f = ((reduced - full) / (k - 1)) / (full / df2)
    assert c.omnibus.statistic == pytest.approx(f)
    assert c.omnibus.pvalue == pytest.approx(stats.f.sf(f, k - 1, df2))
    assert c.omnibus.df == (2.0, float(df2))
    assert c.omnibus.effect_size == pytest.approx((reduced - full) / reduced)
    pab = c.pair("A", "B")
    q = abs(B.mean() - A.mean()) / math.sqrt(full / df2 / n)
    assert pab.statistic == pytest.approx(q)
    assert pab.pvalue == pytest.approx(stats.studentized_range.sf(q, k, df2))


def test_two_systems_anova_and_tukey_equal_the_t_test():
    t = compare({"A": A, "B": B}, test="t").pair("A", "B")
    an = compare({"A": A, "B": B}, test="anova")
    assert an.omnibus.statistic == pytest.approx(t.statistic**2)
    assert an.omnibus.pvalue == pytest.approx(t.pvalue)
    assert an.pair("A", "B").pvalue == pytest.approx(t.pvalue, rel=1e-6)


def test_identical_systems_give_p_one_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for test in ("t", "wilcoxon", "friedman", "anova"):
            c = compare({"A": A, "B": A.copy(), "C": A.copy()}, test=test)
            assert all(p.pvalue == 1.0 and not p.significant for p in c.pairwise), test
            if c.omnibus is not None:
                assert c.omnibus.pvalue == 1.0


def test_constant_shift_is_significant_for_t():
    c = compare({"A": A, "B": A + 0.1}, test="t")
    assert c.pair("A", "B").pvalue == 0.0 and math.isinf(c.pair("A", "B").statistic)


def test_corrections():
    cs = {"A": A, "B": B, "C": C}
    raw = compare(cs, test="t")
    bon = compare(cs, test="t", correction="bonferroni")
    holm = compare(cs, test="t", correction="holm")
    p = np.array([x.pvalue for x in raw.pairwise])
    assert [x.pvalue for x in bon.pairwise] == pytest.approx(np.minimum(3 * p, 1))
    order = np.argsort(p)
    expect = np.maximum.accumulate(p[order] * np.array([3, 2, 1]))
    got = np.array([x.pvalue for x in holm.pairwise])[order]
    assert got == pytest.approx(np.minimum(expect, 1))


# ------------------------------------------------------------------------ missing queries
def test_missing_queries_intersect_zero_error():
    a = {"q1": 0.5, "q2": 0.3, "q3": 0.9, "q4": 0.2}
    b = {"q1": 0.6, "q2": 0.4, "q4": 0.1}
    names, queries, mat, lacking = align_scores({"A": a, "B": b}, missing="intersect")
    assert queries.tolist() == ["q1", "q2", "q4"] and lacking == {"A": [], "B": ["q3"]}
    assert mat[:, 1].tolist() == [0.6, 0.4, 0.1]
    _, queries, mat, _ = align_scores({"A": a, "B": b}, missing="zero")
    assert queries.tolist() == ["q1", "q2", "q3", "q4"] and mat[2].tolist() == [0.9, 0.0]
    with pytest.raises(ValueError, match=r"queries are missing in some systems \(B lacks 1 "
                                         r"\(q3\)\); pass missing='intersect'"):
        align_scores({"A": a, "B": b}, missing="error")
    c = compare({"A": a, "B": b}, missing="intersect")
    assert c.n_queries == 3
    assert c.missing_statement() == ("queries compared: 3 (missing='intersect': 1 dropped; "
                                     "B lacks 1 (q3))")
    z = compare({"A": a, "B": b}, missing="zero")
    assert "scored 0 where absent" in z.missing_statement() and z.n_queries == 4
    full = compare({"A": A, "B": B})
    assert full.missing_statement().endswith("every system scored every query)")


def test_nan_scores_are_missing_and_series_input():
    pd = require("pandas")
    s1 = pd.Series([0.1, np.nan, 0.4], index=["x", "y", "z"])
    s2 = pd.Series([0.2, 0.3, 0.5], index=["x", "y", "z"])
    c = compare({"one": s1, "two": s2})
    assert c.queries.tolist() == ["x", "z"]
    frame = pd.DataFrame({"one": s1, "two": s2})
    assert compare(frame).queries.tolist() == ["x", "z"]
    assert compare(frame).to_frame().shape[0] == 1


@pytest.mark.parametrize(
    ("scores", "kwargs", "exc", "match"),
    [
        ({"A": [0.1, 0.2]}, {}, ValueError, "at least 2 systems; got 1"),
        ({"A": [0.1, 0.2], "B": [0.1]}, {}, ValueError, "must be 1-D and of one length"),
        ({"A": [0.1], "B": [0.2]}, {}, ValueError, "1 query left to compare"),
        ({"A": [0.1, 0.2], "B": [0.3, 0.2]}, {"test": "mannwhitney"}, ValueError,
         "test must be one of 't', 'wilcoxon', 'friedman', 'anova', 'randomization', 'bootstrap'; got "
         "'mannwhitney'"),
        ({"A": [0.1, 0.2], "B": [0.3, 0.2]}, {"alpha": 1.5}, ValueError,
         r"alpha must be a number in \(0, 1\)"),
        ({"A": [0.1, 0.2], "B": [0.3, 0.2]}, {"missing": "drop"}, ValueError,
         "missing must be one of 'intersect', 'zero', 'error'"),
        ({"A": [0.1, 0.2], "B": [0.3, 0.2]}, {"correction": "fdr"}, ValueError,
         "correction must be one of 'none', 'holm', 'bonferroni', 'bh'"),
        ({"A": [0.1, np.inf], "B": [0.3, 0.2]}, {}, ValueError, "must be finite"),
        ({"A": {"q": 0.1}, "B": [0.3]}, {}, ValueError, "mix of keyed"),
        (np.zeros(3), {}, ValueError, "2-D"),
    ],
)
def test_errors(scores, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        compare(scores, **kwargs)


def test_unknown_pair():
    c = compare({"A": A, "B": B})
    with pytest.raises(KeyError, match="no pair"):
        c.pair("A", "Z")


# ---------------------------------------------------------------------------- JK Table 1
def _jk_like():
    """Per-request scores whose means are JK 2002 Table 1's nCG row: 0.457, 0.627, 0.755."""
    rng = np.random.default_rng(2002)
    base = rng.uniform(0.2, 0.7, 30)
    noise = rng.normal(0, 0.05, (30, 3))
    x = np.column_stack([base, base + 0.17, base + 0.298]) + noise
    x += np.array([0.457, 0.627, 0.755]) - x.mean(axis=0)
    return {"BOOL": x[:, 0], "SUM": x[:, 1], "SSYN-C": x[:, 2]}


def test_significance_table_has_the_jk2002_table1_shape():
    scores = _jk_like()
    fr = compare(scores, test="friedman", alpha=0.01, metric="nCG")
    an = compare(scores, test="anova", alpha=0.01, metric="nCG")
    text = significance_table([fr, an], repeat=2, relative=False)
    lines = text.splitlines()
    header = lines[0].split()
    assert header[:3] == ["BOOL", "SUM", "SSYN-C"]
    assert "SUM - BOOL" in lines[0] and "SSYN-C - BOOL" in lines[0] and "SSYN-C - SUM" in lines[0]
    row = lines[1].split()
    assert row[0] == "nCG"
    assert row[1:4] == ["0.457", "0.627", "0.755"]
    assert row[4].startswith("0.170") and row[5].startswith("0.298") and row[6].startswith("0.128")
    # every difference is large here: both markers, doubled as in JK's legend
    assert row[5] == "0.298**##"
    assert "** = p < 0.01: Friedman test" in text
    assert "## = p < 0.01: two-way ANOVA" in text
    assert "nCG: friedman_chi2(2)" in text and "nCG: anova_F(2, 58)" in text
    assert "queries compared: 30 (missing='intersect': every system scored every query)" in text


def test_table_markers_follow_significance_and_rows_per_metric():
    scores = {"A": A, "B": A + RNG.normal(0, 0.001, 25), "C": C}
    c1 = compare(scores, test="t", metric="nDCG@10")
    c2 = compare({k: v * 0.5 for k, v in scores.items()}, test="t", metric="P@5")
    text = significance_table([c1, c2], relative=False)
    body = text.splitlines()[1:3]
    assert body[0].startswith("nDCG@10") and body[1].startswith("P@5")
    for line, c in zip(body, (c1, c2), strict=True):
        cells = line.split()[4:]
        for cell, pair in zip(cells, c.pairwise, strict=True):
            assert cell.endswith("*") == pair.significant
    assert "* = p < 0.05, paired t-test" in text
    with pytest.raises(ValueError, match="same systems"):
        significance_table([c1, compare({"A": A, "C": C})])
    with pytest.raises(ValueError, match="at least one Comparison"):
        significance_table([])


def test_summary_mentions_everything():
    c = compare({"A": A, "B": B, "C": C}, test="friedman", metric="nDCG@10")
    s = c.summary()
    assert "Friedman test" in s and "omnibus friedman_chi2(2)" in s and "kendall_w" in s
    assert "B - A: diff" in s and "C - B: diff" in s
    assert "queries compared: 25" in s
    assert c.table().splitlines()[1].startswith("nDCG@10")


def test_friedman_pairs_are_significant_only_after_a_significant_omnibus():
    # within-query ranks (A, B, C): four queries (1, 3, 2) and one (2, 1, 3):
    # R = (6, 13, 11), A = 5 * 14, chi2 = 12 / 60 * 326 - 60 = 5.2 (p = 0.074); Conover's A-B:
    # t = 7 / sqrt(2 (5 * 70 - 326) / 8) = 2.86 with 8 df (p = 0.021)
    x = np.array([[1, 3, 2]] * 4 + [[2, 1, 3]], dtype=float)
    c = compare(x, test="friedman", systems=["A", "B", "C"])
    raw = c.pair("A", "B")
    assert c.omnibus.statistic == pytest.approx(5.2)
    assert c.omnibus.pvalue == pytest.approx(stats.chi2.sf(5.2, 2))
    assert raw.pvalue == pytest.approx(2 * stats.t.sf(7 / math.sqrt(2 * (5 * 70 - 326) / 8), 8))
    assert raw.pvalue < 0.05 and not raw.significant
    loose = compare(x, test="friedman", alpha=0.1, systems=["A", "B", "C"])
    assert loose.pair("A", "B").significant
