"""The analysis layer at its edges: reports that would merge different data, duplicate TREC
lines on every path, options the avg-pos metrics cannot honour, counts that are not whole,
and the argument checks of the tests and tables."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _extras import require

require("pandas")
require("scipy")

import pandas as pd  # noqa: E402

from rankmetrics import cli  # noqa: E402
from rankmetrics.analysis.pr import (  # noqa: E402
    expected_interpolated_precision,
    fallout,
    precision_recall_points,
)
from rankmetrics.plot import trec_gain_vectors  # noqa: E402
from rankmetrics.session import evaluate_sessions, sessions_by_length  # noqa: E402
from rankmetrics.stats import compare, compare_runs, significance_table  # noqa: E402
from rankmetrics.trec import evaluate  # noqa: E402

NDCG = {"A": [0.20, 0.40, 0.30, 0.50, 0.35], "B": [0.21, 0.39, 0.31, 0.50, 0.36]}
AP = {"A": [0.10, 0.20, 0.30, 0.40, 0.50], "B": [0.30, 0.41, 0.52, 0.60, 0.71]}


def test_a_report_row_never_merges_different_scores():
    """Two compare() calls without metric= shared the row "score": its difference from the
    first (p = 0.37) under a marker of the second (p = 6e-7)."""
    with pytest.raises(ValueError, match="hold different per-query scores.*own metric="):
        significance_table([compare(NDCG, test="t"), compare(AP, test="t")])
    text = significance_table([compare(NDCG, test="t", metric="ndcg"),
                               compare(AP, test="t", metric="ap")])
    rows = {line.split()[0]: line for line in text.splitlines() if line.strip()}
    assert "*" not in rows["ndcg"] and "*" in rows["ap"]
    # one measure under two tests still shares its row
    both = significance_table([compare(AP, test="t"), compare(AP, test="wilcoxon")])
    assert len([ln for ln in both.splitlines() if ln.startswith("score ")]) == 1


def test_a_test_given_twice_is_refused_not_marked_twice():
    with pytest.raises(ValueError, match="given twice for score"):
        significance_table([compare(AP, test="t"), compare(AP, test="t")])


@pytest.fixture()
def trec_files(tmp_path):
    qrels = ["q1 0 d1 2", "q1 0 d2 1", "q1 0 d3 0", "q2 0 d1 1", "q2 0 d4 0"]
    run_a = ["q1 Q0 d1 1 3.0 a", "q1 Q0 d2 2 2.0 a", "q1 Q0 d3 3 1.0 a",
             "q2 Q0 d4 1 2.0 a", "q2 Q0 d1 2 1.0 a"]
    run_b = ["q1 Q0 d3 1 3.0 b", "q1 Q0 d2 2 2.0 b", "q1 Q0 d1 3 1.0 b",
             "q2 Q0 d1 1 2.0 b", "q2 Q0 d4 2 1.0 b"]
    paths = {}
    for name, lines in (("qrels.txt", qrels), ("a.run", run_a), ("b.run", run_b),
                        ("qrels_dup.txt", [*qrels, "q1 0 d1 0"]),
                        ("qrels_same.txt", [*qrels, "q1 0 d1 2"]),
                        ("a_dup.run", [*run_a, "q1 Q0 d1 4 0.5 a"])):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
        paths[name] = str(tmp_path / name)
    return paths


def test_duplicate_qrels_and_run_lines_raise_on_every_path(trec_files):
    """evaluate refused them; the gain vectors (plot, horizontal, avg-* metrics) and the
    session evaluation kept one line silently."""
    f = trec_files
    runs = {"a": f["a.run"], "b": f["b.run"]}
    dup_qrels = r"qrels_dup.txt, lines 1, 6: the qrels judge document 'd1' of query 'q1' twice"
    with pytest.raises(ValueError, match=dup_qrels):
        trec_gain_vectors(f["qrels_dup.txt"], runs, curve="cg", depth=3)
    with pytest.raises(ValueError, match=dup_qrels):
        compare_runs(f["qrels_dup.txt"], runs, ["avg-ndcg@1-3"])
    with pytest.raises(ValueError, match=dup_qrels):  # the file named, not "qrels input"
        compare_runs(f["qrels_dup.txt"], runs, ["ndcg@3"])
    srun = pd.DataFrame({"session": ["s1"] * 2, "query": [1, 1], "topic": ["q1"] * 2,
                         "docid": ["d1", "d2"], "score": [2.0, 1.0]})
    with pytest.raises(ValueError, match=dup_qrels):
        evaluate_sessions(f["qrels_dup.txt"], srun, depth=2)
    dup_run = r"a_dup.run, lines 1, 6: the run retrieves document 'd1' twice for query 'q1'"
    for metric in ("avg-ndcg@1-3", "ndcg@3"):
        with pytest.raises(ValueError, match=dup_run):
            compare_runs(f["qrels.txt"], {"a": f["a_dup.run"], "b": f["b.run"]}, [metric])
    # a qrels line repeated with its label is allowed, as evaluate allows it
    same = compare_runs(f["qrels_same.txt"], runs, ["avg-ndcg@1-3"])[0]
    assert same.means.tolist() == compare_runs(f["qrels.txt"], runs, ["avg-ndcg@1-3"])[0] \
        .means.tolist()


def test_compare_cli_names_the_file_of_a_duplicate(trec_files, capsys):
    f = trec_files
    for args in ([f["qrels_dup.txt"], f["a.run"], f["b.run"]],
                 [f["qrels.txt"], f["a_dup.run"], f["b.run"], "-m", "avg-ndcg@1-3"]):
        assert cli.main(["compare", *args]) == 1
        err = capsys.readouterr().err
        assert "_dup." in err and "lines 1, 6" in err, err


def test_avg_pos_metrics_take_evaluate_defaults_and_refuse_what_they_cannot_honour(trec_files):
    f = trec_files
    runs = {"a": f["a.run"], "b": f["b.run"]}
    # avg-pos over ranks 3..3 of the nDCG vector is nDCG@3: the same gain (linear) by default
    cs = compare_runs(f["qrels.txt"], runs, ["avg-ndcg@3-3", "ndcg@3"])
    np.testing.assert_allclose(cs[0].means, cs[1].means, rtol=1e-12)
    want = [evaluate(f["qrels.txt"], r, ["nDCG@3"]).mean["nDCG@3"] for r in runs.values()]
    np.testing.assert_allclose(cs[0].means, want, rtol=1e-12)
    # the empty rule reaches the vectors: a topic without relevant documents is skipped
    qrels0 = pd.DataFrame({"qid": ["q1", "q1", "q2", "q3", "q3"],
                           "docid": ["d1", "d2", "d1", "d1", "d2"], "label": [2, 1, 0, 1, 0]})
    runs0 = {n: pd.DataFrame({"qid": ["q1", "q1", "q2", "q2", "q3", "q3"],
                              "docid": ["d1", "d2", "d1", "d2", "d1", "d2"], "score": s})
             for n, s in (("a", [2.0, 1, 2, 1, 1, 2]), ("b", [1.0, 2, 1, 2, 2, 1]))}
    for metric in ("avg-ndcg@1-2", "ndcg@2"):
        c = compare_runs(qrels0, runs0, [metric], empty="skip")[0]
        assert c.queries.tolist() == ["q1", "q3"], metric
    with pytest.raises(ValueError, match=r"avg-<curve> metrics take only .*threshold=2"):
        compare_runs(f["qrels.txt"], runs, ["avg-ndcg@1-3"], threshold=2)
    with pytest.raises(TypeError, match="unexpected keyword arguments \\['bogus'\\]"):
        compare_runs(f["qrels.txt"], runs, ["avg-ndcg@1-3"], bogus=1)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: fallout([1, 0, 1, 0], [4, 3, 2, 1], k=2, n_documents=10.5), ValueError,
     "n_documents must be whole non-negative numbers of documents; got 10.5"),
    (lambda: fallout([1, 0, 1, 0], [4, 3, 2, 1], k=2, n_documents="10"), TypeError,
     "n_documents must be whole numbers"),
    (lambda: fallout([1, 0, 1, 0], [4, 3, 2, 1], k=2, n_documents=None), TypeError,
     "n_documents must be whole numbers"),
    (lambda: fallout([1, 0, 1, 0], [4, 3, 2, 1], k=2, n_documents=10, n_relevant=2.5),
     ValueError, "n_relevant must be whole"),
    (lambda: fallout([1, 0, 1, 0], [4, 3, 2, 1], k=2, n_documents=10, n_relevant="a"),
     TypeError, "n_relevant must be whole numbers"),
    (lambda: expected_interpolated_precision([1, 0, 1, 0], [4, 3, 2, 1], n_relevant=[2.5],
                                             levels=[1.0]), ValueError, "n_relevant must be"),
    (lambda: precision_recall_points([1, 0, 1, 0], [4, 3, 2, 1], n_relevant=2.5), ValueError,
     "n_relevant must be whole"),
    (lambda: compare({"A": [10**400, 1, 2], "B": [1, 2, 3]}), ValueError,
     "system 'A' hold an integer too large for a float"),
    (lambda: compare(AP, test="bootstrap", seed=-1), ValueError,
     "seed must be a non-negative int; got -1"),
    (lambda: sessions_by_length({}), ValueError, "results holds no system"),
    (lambda: sessions_by_length(np.array([2**63], np.uint64)), ValueError,
     "takes at most 100,000"),
    (lambda: sessions_by_length([1, 2], max_queries="5"), TypeError, "max_queries must be"),
    (lambda: sessions_by_length([1, 2], max_queries=4.7), TypeError, "max_queries must be"),
    (lambda: sessions_by_length([1, 2], max_queries=0), ValueError, "max_queries must be"),
])
def test_argument_checks(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_counts_of_any_integer_width_and_a_numpy_alpha_are_accepted():
    a = fallout([1, 0, 1, 0], [4, 3, 2, 1], k=2, n_documents=np.uint64(10),
                n_relevant=np.int8(2))
    b = fallout([1, 0, 1, 0], [4, 3, 2, 1], k=2, n_documents=10.0, n_relevant=[2])
    np.testing.assert_array_equal(a, b)
    assert a.tolist() == [1 / 8]  # one non-relevant of the top 2, 8 in the collection
    c = compare(AP, alpha=np.float32(0.05))
    assert type(c.alpha) is float and c.alpha == pytest.approx(0.05)


def test_average_normalised_of_averages_takes_the_same_queries_on_both_sides():
    # per_query=False averaged the curves without a NaN (skipped) query but the ideals with it:
    # 0.6667 per rank instead of 1; and a curves/ideal pair of different query counts passed
    from rankmetrics.analysis.vectors import average_normalised

    curves = [[np.nan, np.nan], [1.0, 2.0]]
    ideal = [[2.0, 4.0], [1.0, 2.0]]
    for per_query in (True, False):
        np.testing.assert_allclose(average_normalised(curves, ideal, per_query=per_query),
                                   [1.0, 1.0])
        with pytest.raises(ValueError, match="curves and ideal must have the same shape"):
            average_normalised([[1.0, 2.0]], ideal, per_query=per_query)
    with pytest.raises(ValueError, match="no vector to average"):
        average_normalised([[np.nan, 1.0]], [[1.0, 1.0]], per_query=False)


def test_norm_vect_keeps_a_skipped_query_nan_where_its_ideal_is_zero():
    # a NaN (skipped) curve whose ideal is 0 was normalised to empty=0 and averaged in:
    # average_normalised(per_query=True) 0.25 per rank, per_query=False 0.5 (the query left out)
    from rankmetrics.analysis.vectors import average_normalised, avg_vect, norm_vect

    curves = [[1.0, 2.0], [np.nan, np.nan]]
    ideal = [[2.0, 4.0], [0.0, 0.0]]
    np.testing.assert_array_equal(norm_vect([np.nan, 1.0], [0.0, 0.0]), [np.nan, 0.0])
    for per_query in (True, False):
        np.testing.assert_allclose(average_normalised(curves, ideal, per_query=per_query),
                                   [0.5, 0.5])
    np.testing.assert_allclose(avg_vect(norm_vect(curves, ideal)), [0.5, 0.5])


def test_avg_vect_and_avg_pos_of_huge_finite_values_do_not_overflow():
    # the sums overflowed float64: avg_vect([[1e308], [1e308]]) and avg_pos([1e308, 1e308], 2)
    # gave inf (the mean is 1e308), and weights of 1e308 gave 0 (their sum was inf)
    from rankmetrics.analysis.vectors import avg_pos, avg_vect

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(avg_vect([[1e308, 1.0], [1e308, 3.0]]), [1e308, 2.0])
        np.testing.assert_allclose(avg_vect([[1e-10], [3e-10]], weights=[1e308, 1e308]),
                                   [2e-10])
        assert avg_pos([1e308, 1e308, 0.0], 2) == 1e308
        np.testing.assert_array_equal(avg_pos([[1e308, 1e308], [1.0, 2.0]], 2), [1e308, 1.5])
