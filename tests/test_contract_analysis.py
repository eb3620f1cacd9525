"""Contract of the analysis modules: every bad argument is a TypeError or ValueError naming it
(never a crash, a format-engine or numpy message, or a silent wrong number)."""

import os

import numpy as np
import pytest
from _extras import require

pd = require("pandas")
require("scipy")  # the stats module's tests (fails loudly under CI=true, never skips)

from rankmetrics.analysis.pr import expected_interpolated_precision, fallout  # noqa: E402
from rankmetrics.analysis.report import (  # noqa: E402
    render_latex,
    render_report,
    report_table,
)
from rankmetrics.analysis.session import session_dcg, sessions_by_length  # noqa: E402
from rankmetrics.analysis.vectors import horizontal_reading  # noqa: E402
from rankmetrics.plot import (  # noqa: E402
    gain_curves,
    interpolated_precision,
    trec_gain_vectors,
)
from rankmetrics.stats import compare, per_query_scores, significance_table  # noqa: E402

A = np.array([0.2, 0.4, 0.3, 0.5])
B = np.array([0.3, 0.6, 0.4, 0.7])
QRELS = pd.DataFrame({"qid": ["1", "1", "2"], "docid": ["a", "b", "c"], "label": [2, 1, 1]})
RUN = pd.DataFrame({"qid": ["1", "1", "2"], "docid": ["b", "a", "x"],
                    "score": [2.0, 1.0, 1.0]})
RUN2 = pd.DataFrame({"qid": ["1", "1", "2"], "docid": ["a", "b", "c"],
                     "score": [2.0, 1.0, 1.0]})


@pytest.fixture
def comparison():
    return compare({"A": A, "B": B}, metric="nDCG@10")


# 1 ------------------------------------------------------------------------------------------
def test_session_dcg_depth_checked_for_every_array_it_builds():
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    depth = total // 8 // 2  # one (1, depth) array fits; the dozen the function holds do not
    with pytest.raises(ValueError, match=r"depth=\d+ asks for 12 \(1, \d+\) float64 arrays"):
        session_dcg([2], [2.0], ["s"], [1], doc=["a"], depth=depth)


# 2 ------------------------------------------------------------------------------------------
TWICE = "'1' is given twice"


def test_sessions_by_length_refuses_names_equal_as_strings():
    with pytest.raises(ValueError, match=TWICE):
        sessions_by_length({1: [1, 2], "1": [3, 3, 3]})


def test_gain_curves_refuses_names_equal_as_strings():
    with pytest.raises(ValueError, match=TWICE):
        gain_curves([2, 0, 1], {1: [3, 2, 1], "1": [1, 2, 3]}, curve="cg", depth=3)


def test_trec_runs_refuse_names_equal_as_strings():
    with pytest.raises(ValueError, match=TWICE):
        trec_gain_vectors(QRELS, {1: RUN, "1": RUN2}, curve="cg", depth=3)
    with pytest.raises(ValueError, match=TWICE):
        per_query_scores(QRELS, {1: RUN, "1": RUN2}, "ndcg@10")


# 3 ------------------------------------------------------------------------------------------
def test_compare_matrix_refuses_repeated_system_names():
    with pytest.raises(ValueError, match="'x' is given twice"):
        compare(np.array([A, B, A]).T, systems=["x", "x", "y"])


# 4 ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("repeat, exc", [(0, ValueError), (-1, ValueError), (2.5, TypeError),
                                         (2**70, ValueError), (True, TypeError)])
def test_report_repeat_checked(comparison, repeat, exc):
    with pytest.raises(exc, match="repeat must be"):
        render_report([comparison], repeat=repeat)
    with pytest.raises(exc, match="repeat must be"):
        significance_table([comparison], repeat=repeat)


@pytest.mark.parametrize("relative", ["no", None, 0])
def test_report_relative_checked(comparison, relative):
    """``relative="no"`` printed the relative differences, ``None``/``0`` dropped them: any
    value was read by its truth; now a TypeError, in every format and significance_table."""
    for fmt in ("text", "markdown", "latex", "csv", "json"):
        with pytest.raises(TypeError, match=f"relative must be True or False; got {relative!r}"):
            render_report([comparison], fmt, relative=relative)
    with pytest.raises(TypeError, match="relative must be True or False"):
        significance_table([comparison], relative=relative)
    assert render_report([comparison], relative=np.False_) == render_report([comparison],
                                                                             relative=False)


@pytest.mark.parametrize("symbols, exc, msg", [
    (("", ""), ValueError, "symbols must be non-empty"),
    (("*", "*"), ValueError, "symbols must be distinct"),
    ((1, 2), TypeError, "symbols must hold strings"),
])
def test_report_symbols_checked(comparison, symbols, exc, msg):
    with pytest.raises(exc, match=msg):
        report_table([comparison], symbols=symbols)


# 5 ------------------------------------------------------------------------------------------
def test_render_report_refuses_what_is_not_a_comparison(comparison):
    with pytest.raises(TypeError, match="comparisons must hold Comparison objects"):
        render_report([1])
    with pytest.raises(TypeError, match="comparisons must hold Comparison objects"):
        significance_table([comparison, "x"])
    with pytest.raises(TypeError, match="comparisons must be a sequence"):
        render_report(comparison)


# 6 ------------------------------------------------------------------------------------------
def test_fallout_refuses_fewer_non_relevant_documents_than_ranked():
    with pytest.raises(ValueError, match=r"n_documents - n_relevant \(4 - 3\).*query 0"):
        fallout([0, 0, 0, 1], [4, 3, 2, 1], k=3, n_documents=4, n_relevant=3)
    with pytest.raises(ValueError, match="n_documents - n_relevant.*query 'b'"):
        fallout([0, 1, 0, 0], [2, 1, 2, 1], ["a", "a", "b", "b"], k=2, n_documents=[5, 3],
                n_relevant=[1, 2])
    assert fallout([0, 0, 0, 1], [4, 3, 2, 1], k=3, n_documents=6, n_relevant=3).tolist() \
        == [1.0]


# 7 ------------------------------------------------------------------------------------------
def test_expected_interpolated_precision_takes_the_2d_layout():
    y, s = [[1, 0, 0], [0, 1, 1]], [[1, 1, 1], [3, 2, 1]]
    got = expected_interpolated_precision(y, s)
    rows = [expected_interpolated_precision(yy, ss)[0] for yy, ss in zip(y, s, strict=True)]
    np.testing.assert_allclose(got, np.vstack(rows))
    assert got[0, -1] == pytest.approx(11 / 18)


def test_expected_interpolated_precision_refuses_empty_input_and_bad_levels():
    with pytest.raises(ValueError, match="y_true is empty"):
        expected_interpolated_precision([], [])
    with pytest.raises(TypeError, match="levels must be numbers"):
        expected_interpolated_precision([1, 0], [2, 1], levels="a")
    with pytest.raises(ValueError, match="levels must be a 1-D"):
        expected_interpolated_precision([1, 0], [2, 1], levels=[[0.5, 1.0]])


# 8 ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_relevant, exc", [([np.nan], ValueError), ([np.inf], ValueError),
                                             ([2.5], ValueError), (["2"], TypeError),
                                             ([-1], ValueError)])
def test_interpolated_precision_checks_n_relevant_as_counts(n_relevant, exc):
    with pytest.raises(exc, match="n_relevant must be"):
        interpolated_precision([1, 0, 1, 0], [4, 3, 2, 1], ties="stable",
                               n_relevant=n_relevant)


# 9 ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("width, exc", [(np.nan, TypeError), ("10", TypeError),
                                        (2**70, ValueError), (5.5, TypeError),
                                        (10**17, ValueError)])
def test_session_extended_width_checked(width, exc):
    r = session_dcg([2, 1], [2.0, 1.0], ["s", "s"], [1, 2], doc=["a", "b"], depth=2)
    with pytest.raises(exc, match="width"):
        r.extended(width)
    assert r.extended(6).shape == (1, 6)


# 10 -----------------------------------------------------------------------------------------
def test_horizontal_reading_rows_and_rtol():
    with pytest.raises(ValueError, match="same rows"):
        horizontal_reading(np.ones((3, 4)), np.ones((2, 4)), 2)
    for bad in (2, 1, -0.1, np.nan, np.inf):
        with pytest.raises(ValueError, match=r"rtol must be a finite number in \[0, 1\)"):
            horizontal_reading([0, 0, 0], [1, 2, 3], 3, rtol=bad)
    with pytest.raises(TypeError, match="rtol must be a number"):
        horizontal_reading([0, 0, 0], [1, 2, 3], 3, rtol="0.1")
    assert np.isnan(horizontal_reading([0, 0, 0], [1, 2, 3], 3, rtol=0.5))


# 11 -----------------------------------------------------------------------------------------
def test_every_digits_argument_checked(comparison):
    with pytest.raises(ValueError, match="digits must be >= 0"):
        comparison.summary(digits=-1)
    with pytest.raises(TypeError, match="digits must be an int"):
        comparison.summary(digits=2.5)
    with pytest.raises(ValueError, match="digits must be at most 17"):
        render_report([comparison], digits=2**70)
    with pytest.raises(ValueError, match="digits must be at most 17"):
        comparison.table(digits=10**6)
    with pytest.raises(ValueError, match="digits must be >= 0"):
        render_latex(report_table([comparison]), digits=-1)
    assert "0.35000000000000003" in render_report([comparison], digits=17)


# 12 -----------------------------------------------------------------------------------------
def test_trec_gain_vectors_checks_gain_as_the_core_before_reading_runs():
    with pytest.raises(TypeError, match="gain mapping label"):
        trec_gain_vectors(QRELS, {"r": RUN}, gain={"1": 1})
    # before any run is read: the unreadable run is not reached
    with pytest.raises(TypeError, match="gain mapping label"):
        trec_gain_vectors(QRELS, {"r": "/nonexistent/run.txt"}, gain={"1": 1})
    assert trec_gain_vectors(QRELS, {"r": RUN}, gain={1: 1, 2: 5}).gain == "{1: 1, 2: 5}"


# 13 -----------------------------------------------------------------------------------------
def test_session_dcg_ideal_labels_checked_per_session():
    y, s, sess, q = [2, 1], [2.0, 1.0], ["s", "s"], [1, 2]
    with pytest.raises(TypeError, match=r"ideal_labels\['s'\] must be numeric"):
        session_dcg(y, s, sess, q, ideal_labels={"s": ["a", "b"]}, depth=2)
    with pytest.raises(ValueError, match=r"ideal_labels\['s'\] must be 1-D"):
        session_dcg(y, s, sess, q, ideal_labels={"s": [[1, 2], [3, 4]]}, depth=2)


# 14 -----------------------------------------------------------------------------------------
def test_sessions_by_length_refuses_complex_counts():
    with pytest.raises(TypeError, match="query counts must be real integers"):
        sessions_by_length(np.array([1 + 1j]))


# 15 -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("arg", ["n_documents", "n_relevant"])
def test_fallout_huge_counts_are_too_large_not_fractional(arg):
    kw = {"n_documents": 10, "n_relevant": 1, arg: 2**70}
    with pytest.raises(ValueError, match=rf"{arg} must be .*at most 2\*\*53"):
        fallout([0, 0, 0, 1], [4, 3, 2, 1], k=3, **kw)


def test_counts_and_levels_as_python_numbers_and_symbols_as_an_array():
    """Object arrays of small ints or Fractions were refused as counts (with a message about
    2**53) or as levels; a numpy array of symbols was refused as not a sequence."""
    from fractions import Fraction

    y, s, q = [1, 0, 1, 0, 2, 0], [3, 2, 1, 3, 2, 1], [1, 1, 1, 2, 2, 2]
    want = interpolated_precision(y, s, q, ties="stable", n_relevant=[3, 2])
    for nr in (np.array([3, 2], dtype=object), [Fraction(3), Fraction(2)]):
        np.testing.assert_array_equal(
            interpolated_precision(y, s, q, ties="stable", n_relevant=nr), want)
    with pytest.raises(ValueError, match=r"at most 2\*\*53 .*; got 1180591620717411303424"):
        interpolated_precision(y, s, q, ties="stable", n_relevant=[2**70, 2])
    np.testing.assert_array_equal(
        expected_interpolated_precision([1, 0, 0], [1, 1, 1], levels=[Fraction(1, 2)]),
        expected_interpolated_precision([1, 0, 0], [1, 1, 1], levels=[0.5]))
    c = compare({"A": [.2, .4, .3, .5], "B": [.3, .6, .4, .7]}, metric="m")
    assert significance_table([c], symbols=np.array(["*"])) == significance_table(
        [c], symbols=["*"])
