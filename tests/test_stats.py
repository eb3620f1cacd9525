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


@pytest.mark.parametrize("level", [1e6, 1e8])
def test_anova_is_unmoved_by_large_query_levels(level):
    # queries as blocks: a level added to every score of a query changes no test. SS_err was
    # SS_total - SS_sys - SS_queries, which lost the residuals to the rounding of the levels:
    # with levels of 1e6 the Tukey p of two systems was 0.0 for the t-test's 0.10, with 1e8
    # F was 0 and p 1.0 (statsmodels' AnovaRM: F 0.227, p 0.80)
    rng = np.random.default_rng(0)
    x = rng.random((10, 3))
    far = x + rng.random((10, 1)) * level
    for cols in ([0, 1], [0, 1, 2]):
        near = compare(x[:, cols], test="anova")
        c = compare(far[:, cols], test="anova")
        t = compare(far[:, cols], test="t").pairwise[0]
        # the levels' own rounding (1e-16 of 1e8 per score) moves the numbers a little
        assert c.omnibus.statistic == pytest.approx(near.omnibus.statistic, rel=1e-4)
        assert c.omnibus.pvalue == pytest.approx(near.omnibus.pvalue, rel=1e-4)
        for p, q in zip(c.pairwise, near.pairwise, strict=True):
            assert p.pvalue == pytest.approx(q.pvalue, rel=1e-4)
        if len(cols) == 2:
            assert c.pairwise[0].pvalue == pytest.approx(t.pvalue, rel=1e-6)
    same = np.column_stack([far[:, 0]] * 3)
    c = compare(same, test="anova")
    assert c.omnibus.pvalue == 1.0 and all(p.pvalue == 1.0 for p in c.pairwise)


def test_anova_tests_small_differences_between_systems():
    # SS_err below 1e-12 of SS_total (query variation included) was taken for rounding: systems
    # 1e-7 apart gave the omnibus p 1.0 and the Tukey p 0.0, for the t-test's 0.1295
    rng = np.random.default_rng(2)
    a = rng.random(25)
    b = a + rng.normal(3e-8, 1e-7, 25)
    t = compare({"A": a, "B": b}, test="t").pairwise[0]
    c = compare({"A": a, "B": b}, test="anova")
    assert t.pvalue == pytest.approx(0.1295, abs=1e-4)
    assert c.omnibus.pvalue == pytest.approx(t.pvalue, rel=1e-6)
    assert c.pairwise[0].pvalue == pytest.approx(t.pvalue, rel=1e-6)


def test_identical_systems_give_p_one_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for test in ("t", "wilcoxon", "friedman", "anova"):
            c = compare({"A": A, "B": A.copy(), "C": A.copy()}, test=test)
            assert all(p.pvalue == 1.0 and not p.significant for p in c.pairwise), test
            if c.omnibus is not None:
                assert c.omnibus.pvalue == 1.0
                # no effect: ANOVA's partial eta^2 was 1.0 here (rounding noise over noise)
                assert c.omnibus.statistic == 0.0 and c.omnibus.effect_size == 0.0, test


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
    with pytest.raises(ValueError, match="a mapping or DataFrame names its systems"):
        compare(frame, systems=["A", "B"])  # was ignored: named one, two
    assert compare(frame).to_frame().shape[0] == 1


@pytest.mark.parametrize(
    ("scores", "kwargs", "exc", "match"),
    [
        ({"A": [0.1, 0.2]}, {}, ValueError, "at least 2 systems; got 1"),
        # an empty mapping said "arrays must be 1-D and of one length ...; got shapes []"
        ({}, {}, ValueError, "at least 2 systems; got 0"),
        # systems= was ignored for a mapping: every system compared, under its own name
        ({"A": [0.1, 0.2], "B": [0.3, 0.2], "C": [0.2, 0.2]}, {"systems": ["A", "B"]},
         ValueError, "systems= names the columns of a 2-D array"),
        ({"A": [0.1, 0.2], "B": [0.1]}, {}, ValueError, "must be 1-D and of one length"),
        ({"A": [0.1], "B": [0.2]}, {}, ValueError, "1 query left to compare"),
        ({"A": [0.1, 0.2], "B": [0.3, 0.2]}, {"test": "mannwhitney"}, ValueError,
         "test must be one of 't', 'wilcoxon', 'friedman', 'anova', 'randomization', "
         "'bootstrap'; got 'mannwhitney'"),
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
    assert "* = p < 0.05: paired t-test" in text
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


# ------------------------------------------------------------------ resampling tests
def _sign_flip_pvalue(d):
    """Two-sided p of the paired randomization test by enumerating all 2^n sign flips."""
    import itertools

    n = d.shape[0]
    flips = np.array(list(itertools.product([1.0, -1.0], repeat=n)))
    null = (flips * d).mean(axis=1)
    obs = d.mean()
    tol = 1e-12 * max(1.0, abs(obs))
    less = np.mean(null <= obs + tol)
    greater = np.mean(null >= obs - tol)
    return min(1.0, 2 * min(less, greater))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_randomization_is_exact_on_small_inputs(seed):
    rng = np.random.default_rng(seed)
    n = 10  # 1024 sign flips <= n_resamples: scipy enumerates them all
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(0.08, 0.15, n), 0, 1)
    c = compare({"a": a, "b": b}, test="randomization", n_resamples=2000, seed=seed)
    p = c.pair("a", "b")
    assert c.exact and c.n_resamples == 2000
    assert p.pvalue == pytest.approx(_sign_flip_pvalue(b - a), abs=1e-12)
    assert p.statistic == pytest.approx((b - a).mean())
    assert "all 2^10 sign flips (exact)" in c.summary()


def test_randomization_with_ties_in_the_differences_is_exact():
    d = np.array([0.1, 0.1, -0.1, 0.2, 0.0, 0.1, 0.3])  # equal |d| and a zero difference
    c = compare({"a": np.zeros(7), "b": d}, test="randomization", n_resamples=500)
    assert c.pair("a", "b").pvalue == pytest.approx(_sign_flip_pvalue(d))


def test_randomization_agrees_with_scipy_and_is_seeded_on_large_inputs():
    n = 60
    rng = np.random.default_rng(11)
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(0.03, 0.2, n), 0, 1)
    c = compare({"a": a, "b": b}, test="randomization", n_resamples=4000, seed=5)
    ref = stats.permutation_test((b - a,), np.mean, permutation_type="samples",
                                 n_resamples=4000, rng=np.random.default_rng(5))
    assert not c.exact
    assert c.pair("a", "b").pvalue == pytest.approx(ref.pvalue)
    again = compare({"a": a, "b": b}, test="randomization", n_resamples=4000, seed=5)
    assert again.pair("a", "b").pvalue == c.pair("a", "b").pvalue
    # Monte Carlo p is close to the t-test's on a large sample (Smucker et al. 2007)
    assert c.pair("a", "b").pvalue == pytest.approx(stats.ttest_rel(b, a).pvalue, abs=0.03)
    assert "4000 random sign flips, seed 5" in significance_table([c])


def test_bootstrap_ci_and_pvalue_by_hand():
    rng = np.random.default_rng(3)
    a = rng.uniform(0, 1, 30)
    b = np.clip(a + rng.normal(0.1, 0.1, 30), 0, 1)
    d = b - a
    c = compare({"a": a, "b": b}, test="bootstrap", n_resamples=3000, seed=9, alpha=0.1)
    p = c.pair("a", "b")
    # the same resamples drawn by hand (scipy draws index arrays from the seeded generator)
    ref = stats.bootstrap((d,), np.mean, n_resamples=3000, method="percentile",
                          confidence_level=0.9, rng=np.random.default_rng(9))
    dist = ref.bootstrap_distribution
    assert (p.ci_low, p.ci_high) == pytest.approx((np.quantile(dist, 0.05),
                                                   np.quantile(dist, 0.95)), rel=1e-3)
    assert p.ci_low < d.mean() < p.ci_high
    hits = np.sum(np.abs(dist - d.mean()) >= abs(d.mean()))
    assert p.pvalue == pytest.approx((hits + 1) / 3001)
    q = c.pair("b", "a")
    assert (q.ci_low, q.ci_high) == pytest.approx((-p.ci_high, -p.ci_low))
    assert "3000 resamples, seed 9, 90% percentile CI" in c.summary()


@pytest.mark.parametrize("alpha, level", [(0.025, "97.5%"), (0.001, "99.9%"), (0.005, "99.5%")])
def test_bootstrap_ci_level_is_stated_exactly(alpha, level):
    # whole percents printed the 97.5 % interval as "98% CI" and the 99.9 % one as "100% CI"
    c = compare({"a": A, "b": B}, test="bootstrap", n_resamples=200, alpha=alpha)
    assert f"{level} percentile CI" in c.method_statement()
    assert f", {level} CI [" in c.summary()
    assert f"{level} percentile CI" in significance_table([c])


def test_bh_holm_bonferroni_match_statsmodels():
    from statsmodels.stats.multitest import multipletests

    cs = {"A": A, "B": B, "C": C, "D": (A + C) / 2}
    raw = np.array([p.pvalue for p in compare(cs, test="t").pairwise])
    for name, method in (("bh", "fdr_bh"), ("holm", "holm"), ("bonferroni", "bonferroni")):
        got = np.array([p.pvalue for p in compare(cs, test="t", correction=name).pairwise])
        assert got == pytest.approx(multipletests(raw, method=method)[1])
    bh = np.array([p.pvalue for p in compare(cs, test="t", correction="bh").pairwise])
    # BH by hand: p_(i) * m / i, made monotone from the largest
    order = np.argsort(raw)
    m = raw.size
    adj = np.minimum.accumulate((raw[order] * m / np.arange(1, m + 1))[::-1])[::-1]
    assert bh[order] == pytest.approx(np.minimum(adj, 1))
    assert "Benjamini-Hochberg" in compare(cs, test="t", correction="bh").summary()


def test_relative_differences_and_sparck_jones():
    from rankmetrics.stats import sparck_jones_class

    c = compare({"A": [0.5, 0.4, 0.6], "B": [0.52, 0.41, 0.63], "C": [0.6, 0.5, 0.7]})
    ab, ac = c.pair("A", "B"), c.pair("A", "C")
    assert ab.rel_diff == pytest.approx((0.52 + 0.41 + 0.63 - 1.5) / 1.5)
    assert ab.sparck_jones == "marginal" and ac.sparck_jones == "essential"
    assert sparck_jones_class(0.07) == "noticeable" and sparck_jones_class(math.nan) == "undefined"
    # text, None and lists raised Python's "must be real number, not str", naming nothing;
    # True was classed as a 100 % difference
    for bad in ("0.1", None, [0.1], True):
        with pytest.raises(TypeError, match="^rel_diff must be a real number"):
            sparck_jones_class(bad)
    assert sparck_jones_class(np.float32(0.07)) == "noticeable"
    text = significance_table([c])
    assert "(+4.0%)" in text and "(+20.0%)" in text and "Sparck Jones" in text
    zero = compare({"A": [0.0, 0.0], "B": [0.1, 0.2]})
    assert math.isnan(zero.pair("A", "B").rel_diff) and "(n/a)" in significance_table([zero])


def test_sparck_jones_classes_exact_boundaries_as_the_criteria_say():
    # float rounding put exact 10 % and 5 % differences a hair off the boundary: 0.5 -> 0.55
    # (rel_diff 0.10000000000000009) was "essential", 0.2 -> 0.21 (0.0499999...) "marginal"
    ten = compare({"A": [0.5, 0.5], "B": [0.55, 0.55]}).pair("A", "B")
    five = compare({"A": [0.2, 0.2], "B": [0.21, 0.21]}).pair("A", "B")
    assert ten.sparck_jones == "noticeable" and five.sparck_jones == "noticeable"
    assert compare({"A": [0.5, 0.5], "B": [0.56, 0.56]}).pair("A", "B").sparck_jones == \
        "essential"


def test_comparison_repr_is_short_and_names_dropped_queries():
    c = compare({"A": {"q1": 0.1, "q2": 0.3, "q3": 0.2}, "B": {"q1": 0.2, "q2": 0.5}},
                metric="AP")
    r = repr(c)
    assert len(r) < 200 and "array" not in r
    assert "metric='AP'" in r and "n_queries=2" in r and "dropped=1" in r
    assert c.dropped_queries == ["q3"]
    assert "B lacks 1 (q3)" in significance_table([c])
    rr = repr(compare({"A": A, "B": B}, test="randomization", n_resamples=50, seed=4))
    assert "n_resamples=50, seed=4" in rr


def test_resampling_argument_errors():
    with pytest.raises(ValueError, match="n_resamples must be a positive int"):
        compare({"A": A, "B": B}, test="randomization", n_resamples=0)
    with pytest.raises(TypeError, match="seed must be an int"):
        compare({"A": A, "B": B}, test="bootstrap", seed=1.5)


def test_wilcoxon_p_is_scipys_when_differences_are_zero():
    """Zero differences were dropped before calling scipy, which then took its exact path
    where, given every difference, it takes another (0.047913 against scipy's 0.046826)."""
    a = np.zeros(16)
    b = np.array([0, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1.0, 1.1, -1.2, -1.3, 1.4, 1.5])
    got = compare({"A": a, "B": b}, test="wilcoxon").pairwise[0].pvalue
    assert got == pytest.approx(stats.wilcoxon(b, a).pvalue, rel=1e-12)
    rng = np.random.default_rng(4)
    for n in (8, 12, 20):
        x, y = rng.random(n), rng.random(n)
        y[:2] = x[:2]  # two zero differences
        got = compare({"A": x, "B": y}, test="wilcoxon").pairwise[0].pvalue
        assert got == pytest.approx(stats.wilcoxon(x, y).pvalue, rel=1e-12), n


def test_compare_refuses_repeated_queries_and_systems_and_reads_missing_values():
    """A Series or DataFrame index listing a query twice kept one of its values silently; two
    systems named 1 and "1" shared a report column; pd.NA (a Float64 column) and None (in a
    mapping) raised TypeError from float() where a list's None is a missing value."""
    pd = require("pandas")
    with pytest.raises(ValueError, match="query 1 twice"):
        compare({"A": pd.Series([0.1, 0.9, 0.3], index=[1, 1, 2]),
                 "B": pd.Series([0.2, 0.3, 0.4], index=[1, 2, 3])})
    with pytest.raises(ValueError, match="query 1 twice"):
        compare(pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.2, 0.3, 0.4]}, index=[1, 1, 2]))
    with pytest.raises(TypeError, match="query ids of scores"):
        compare(pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.2, 0.3, 0.4]}, index=[1, "1", 2]))
    with pytest.raises(ValueError, match="system name '1' is given twice"):
        compare({"A": [0.1, 0.2, 0.3], 1: [0.2, 0.3, 0.1], "1": [0.3, 0.1, 0.2]})
    frame = pd.DataFrame({"A": pd.array([0.1, None, 0.3, 0.2], dtype="Float64"),
                          "B": [0.2, 0.3, 0.4, 0.1]})
    keyed = {"A": {1: 0.1, 2: None, 3: 0.3, 4: 0.2}, "B": {1: 0.2, 2: 0.3, 3: 0.4, 4: 0.1}}
    listed = {"A": [0.1, None, 0.3, 0.2], "B": [0.2, 0.3, 0.4, 0.1]}
    want = compare(listed).pairwise[0].pvalue
    assert compare(frame).pairwise[0].pvalue == want
    assert compare(keyed).pairwise[0].pvalue == want


def test_randomization_is_exact_only_when_every_flip_was_enumerated() -> None:
    # a pair of equal systems (every difference 0) used to report exact=True whatever n, and
    # the comparison kept the last pair's flag: the legend then claimed all 2^30 flips
    rng = np.random.default_rng(3)
    a, b = rng.random(30), rng.random(30)
    for systems in ({"A": a, "B": b, "C": b.copy()}, {"A": a, "B": a.copy(), "C": b}):
        c = compare(systems, test="randomization", n_resamples=1000)
        assert c.exact is False
        assert "2^30" not in c.method_statement()
    small = compare({"A": a[:5], "B": b[:5], "C": b[:5].copy()}, test="randomization",
                    n_resamples=1000)
    assert small.exact is True


def test_method_statement_alpha_is_a_flag() -> None:
    """``method_statement(alpha=0.01)`` (read as setting the level) printed "alpha 0.05", the
    comparison's level, and ``alpha=0`` dropped it: the flag took any value by its truth. Now
    a TypeError; True/False (numpy's too) state the level or leave it out."""
    c = compare({"A": [0.1, 0.2, 0.3, 0.5], "B": [0.2, 0.3, 0.4, 0.4]})
    for bad in (0.01, 0, None, "no"):
        with pytest.raises(TypeError, match=f"alpha must be True or False; got {bad!r}"):
            c.method_statement(alpha=bad)
    assert c.method_statement() == c.method_statement(alpha=np.True_) == "paired t-test, alpha 0.05"
    assert c.method_statement(alpha=False) == "paired t-test"


@pytest.mark.parametrize("scale", [1e300, 1e-300, 1e146])
def test_scores_whose_squares_leave_the_float_range_are_refused(scale) -> None:
    # t = 0 (p = 1), F = NaN or F = 0 came back silently at these magnitudes
    x = {"A": np.array([0.2, 0.4, 0.3, 0.5, 0.1]) * scale,
         "B": np.array([0.3, 0.6, 0.4, 0.7, 0.2]) * scale}
    for test in ("t", "anova", "randomization", "bootstrap", "wilcoxon", "friedman"):
        with pytest.raises(ValueError, match="rescale the scores"):
            compare(x, test=test)
    # within the range the tests are scale-free: the t statistic and ANOVA's F at 1e140
    ref, big = (compare({k: v / scale * f for k, v in x.items()}, test="anova")
                for f in (1.0, 1e140))
    assert big.omnibus.statistic == pytest.approx(ref.omnibus.statistic, rel=1e-12)
    assert big.pair("A", "B").pvalue == pytest.approx(ref.pair("A", "B").pvalue, rel=1e-9)


def test_per_query_scores_that_are_not_real_numbers_are_refused() -> None:
    pd = require("pandas")
    cases = [
        {"A": {"q1": "0.3", "q2": 0.2}, "B": {"q1": 0.1, "q2": 0.5}},  # float("0.3") read it
        {"A": ["a", 0.2], "B": [0.1, 0.5]},  # numpy's "could not convert string to float"
        {"A": [0.3 + 1j, 0.2], "B": [0.1, 0.5]},  # the real part was kept
        pd.DataFrame({"A": ["0.3", "0.2"], "B": [0.1, 0.5]}),
        {"A": pd.Series(["0.3", "0.2"], index=["q1", "q2"]),
         "B": pd.Series([0.1, 0.5], index=["q1", "q2"])},
        {"A": np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[D]"), "B": [0.1, 0.5]},
    ]
    for scores in cases:
        with pytest.raises(TypeError, match="per-query scores of system 'A' must be real"):
            compare(scores, test="t")
    with pytest.raises(TypeError, match="per-query scores must be real numbers"):
        compare(np.array([["0.1", "0.2"], ["0.3", "0.4"]]), test="t")
    # numbers of every kind still pair as before
    frame = pd.DataFrame({"A": pd.array([0.3, None, 0.2, 0.5], dtype="Float64"),
                          "B": pd.array([1, 2, 3, 1], dtype="Int64")})
    got = compare(frame, test="t").pair("A", "B")
    want = stats.ttest_rel([1, 3, 1], [0.3, 0.2, 0.5])
    assert got.pvalue == pytest.approx(want.pvalue, rel=1e-12)
    mixed = {"A": np.array([1, 0, 1], dtype=object), "B": [0.1, 0.5, 0.2]}
    assert compare(mixed, test="t").pair("A", "B").pvalue == pytest.approx(
        stats.ttest_rel([0.1, 0.5, 0.2], [1, 0, 1]).pvalue, rel=1e-12)


def test_compare_runs_leaves_out_queries_undefined_under_empty_skip():
    """A topic without relevant documents has nDCG NaN with empty="skip" in every run that
    retrieved it: missing="zero" scored it 0 for both runs (an extra zero difference) and
    missing="error" refused it as lacking, though both runs retrieved it."""
    pd = require("pandas")
    from rankmetrics.stats import compare_runs
    from rankmetrics.trec import evaluate

    qrels = pd.DataFrame({"qid": ["1", "1", "2", "3", "3", "4"],
                          "docid": ["a", "b", "c", "e", "f", "g"],
                          "label": [1, 0, 0, 2, 1, 1]})
    r1 = pd.DataFrame({"qid": ["1", "1", "2", "3", "3", "4"],
                       "docid": ["a", "b", "c", "f", "e", "x"],
                       "score": [3.0, 2.0, 3.0, 3.0, 2.0, 3.0]})
    r2 = pd.DataFrame({"qid": ["1", "1", "2", "3", "3", "4"],
                       "docid": ["b", "a", "c", "e", "f", "g"],
                       "score": [3.0, 2.0, 3.0, 3.0, 2.0, 3.0]})
    per = {n: evaluate(qrels, r, "ndcg@10", empty="skip").per_query["ndcg@10"]
           for n, r in (("r1", r1), ("r2", r2))}
    defined = ["1", "3", "4"]
    want = stats.ttest_rel(per["r2"][defined], per["r1"][defined])
    for missing in ("intersect", "zero", "error"):
        c = compare_runs(qrels, {"r1": r1, "r2": r2}, "ndcg@10", missing=missing,
                         empty="skip")[0]
        p = c.pair("r1", "r2")
        assert c.n_queries == 3 and list(c.queries) == defined
        assert p.pvalue == pytest.approx(want.pvalue, rel=1e-12)
        assert c.undefined_queries == ["2"] and c.dropped_queries == ["2"]
        assert not any(c.missing_queries.values())  # neither run lacks topic 2
        assert "1 (2) undefined (empty='skip')" in c.missing_statement()


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_resampling_tests_hold_batches_not_every_resample(test):
    """scipy drew every resample at once: the sign-flip test held about 8 (n_resamples,
    n_queries) float64 arrays (30 000 queries x 10 000 flips, about 20 GiB, passed the memory
    check and got the process killed). In batches the same numbers are drawn."""
    import tracemalloc

    n, draws = 2000, 10000
    rng = np.random.default_rng(11)
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(0.005, 0.1, n), 0, 1)
    d = b - a
    from rankmetrics.analysis.stats import _rng_kw  # rng= or random_state= by scipy version

    kw = {"n_resamples": draws, "vectorized": True, "batch": 100,
          **_rng_kw(stats.bootstrap, 0)}
    if test == "randomization":
        want = stats.permutation_test((d,), np.mean, permutation_type="samples", **kw).pvalue
    else:
        want = stats.bootstrap((d,), np.mean, method="percentile", **kw).confidence_interval.low
    tracemalloc.start()
    try:
        p = compare({"A": a, "B": b}, test=test, n_resamples=draws).pair("A", "B")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (p.pvalue if test == "randomization" else p.ci_low) == want
    assert peak < 8 * n * draws  # less than one array of every resample
