"""rankmetrics.trec.evaluate: recall base, options, empty queries, results, errors."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from rankmetrics import QueryPlan
from rankmetrics.datasets import make_benchmark_scores
from rankmetrics.trec import EvalResult, evaluate, tie_effect

LOG2_3 = math.log2(3)


def test_ideal_comes_from_the_recall_base_and_unjudged_documents_gain_nothing():
    """z is judged (2) but not retrieved: it is in the ideal and in R. u is retrieved but not
    judged: gain 0, non-relevant. -1 counts as 0."""
    qrels = {"q": {"a": 3, "b": 1, "n": -1, "z": 2}}
    run = {"q": {"a": 4.0, "u": 3.0, "n": 2.0, "b": 1.0}}
    res = evaluate(qrels, run, ["nDCG", "nDCG@2", "DCG", "R@4", "AP", "NumRel", "NumRelRet"],
                   gain="linear", ties="docno")
    row = res.per_query.loc["q"]
    dcg = 3 + 1 / math.log2(5)
    ideal = 3 + 2 / LOG2_3 + 1 / 2
    assert row["DCG"] == pytest.approx(dcg)
    assert row["nDCG"] == pytest.approx(dcg / ideal)
    assert row["nDCG@2"] == pytest.approx(3 / (3 + 2 / LOG2_3))
    assert row["R@4"] == pytest.approx(2 / 3)
    assert row["AP"] == pytest.approx((1 + 2 / 4) / 3)
    assert (row["NumRel"], row["NumRelRet"]) == (3, 2)


def test_default_gain_is_linear_like_trec_eval():
    # deliberately changed default: trec_eval's and ir_measures' linear gain (was exponential)
    qrels = {"q": {"a": 2, "b": 1}}
    run = {"q": {"b": 2.0, "a": 1.0}}
    exp = evaluate(qrels, run, ["nDCG"], gain="exponential").mean["nDCG"]
    lin = evaluate(qrels, run, ["nDCG"]).mean["nDCG"]
    assert exp == pytest.approx((1 + 3 / LOG2_3) / (3 + 1 / LOG2_3))
    assert lin == pytest.approx((1 + 2 / LOG2_3) / (2 + 1 / LOG2_3))


def test_gain_mappings_keep_linear_gain_for_unlisted_levels():
    qrels = {"q": {"a": 2, "b": 1}}
    run = {"q": {"b": 2.0, "a": 1.0}}
    got = evaluate(qrels, run, ["DCG", "nDCG(gains={1: 5})"], gain={2: 10})
    assert got.mean["DCG"] == pytest.approx(1 + 10 / LOG2_3)
    assert got.mean["nDCG(gains={1: 5})"] == pytest.approx((5 + 2 / LOG2_3) / (5 + 2 / LOG2_3))
    assert evaluate(qrels, run, ["DCG"], gain=[0, 4, 8]).mean["DCG"] == pytest.approx(
        4 + 8 / LOG2_3)


def test_per_measure_threshold_and_global_threshold():
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    res = evaluate(qrels, run, ["P@1", "P(rel=2)@1", "RR"], threshold=2)
    assert res.per_query.loc["q"].tolist() == [0.0, 0.0, 0.5]
    res = evaluate(qrels, run, ["P@1", "P(rel=2)@1"])
    assert res.per_query.loc["q"].tolist() == [1.0, 0.0]


def test_complete_scores_missing_queries_zero():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}
    run = {"q1": {"a": 1.0}, "q9": {"x": 1.0}}
    names = ["AP", "nDCG", "P@1", "NumRel", "NumRet"]
    default = evaluate(qrels, run, names)
    assert list(default.per_query.index) == ["q1"]
    full = evaluate(qrels, run, names, complete=True)
    assert list(full.per_query.index) == ["q1", "q2", "q3"]
    assert full.per_query.loc["q2"].tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]
    assert full.mean["AP"] == pytest.approx(1 / 3)
    assert full.mean["NumRel"] == 2  # counts are summed, like trec_eval's "all" row
    skipped = evaluate(qrels, run, names, complete=True, empty="skip")
    assert math.isnan(skipped.per_query.loc["q3", "AP"])
    assert skipped.mean["AP"] == pytest.approx(1 / 2)


def test_max_depth_cuts_the_list_but_not_the_denominators():
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    run = {"q": {"x": 5.0, "a": 4.0, "b": 3.0, "c": 2.0}}
    res = evaluate(qrels, run, ["P@5", "P", "R@5", "AP", "nDCG", "NumRet", "Rprec"],
                   gain="linear", max_depth=2).per_query.loc["q"]
    assert res["P@5"] == pytest.approx(1 / 5)
    assert res["P"] == pytest.approx(1 / 2)
    assert res["R@5"] == pytest.approx(1 / 3)
    assert res["AP"] == pytest.approx((1 / 2) / 3)
    assert res["nDCG"] == pytest.approx((1 / LOG2_3) / (1 + 1 / LOG2_3 + 1 / 2))
    assert res["NumRet"] == 2
    assert res["Rprec"] == pytest.approx(1 / 3)


def test_max_depth_through_a_tie_group_is_exact_under_averaging():
    """M=2 cuts the tie group {a, b, c} (one relevant): P@2 = E[relevant in top 2] / 2."""
    qrels = {"q": {"a": 1}}
    run = {"q": {"x": 9.0, "a": 1.0, "b": 1.0, "c": 1.0}}
    res = evaluate(qrels, run, ["P@2", "NumRelRet", "RR"], max_depth=2).per_query.loc["q"]
    assert res.tolist() == pytest.approx([(1 / 3) / 2, 1 / 3, (1 / 3) / 2])


@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic", "stable"])
def test_same_numbers_as_the_core_query_plan_with_recall_base(ties):
    """Without -M, evaluate equals QueryPlan(..., recall_base=...) on the matched rows."""
    y, s, q = make_benchmark_scores(n_queries=60, min_docs=5, max_docs=30, random_state=3)
    rng = np.random.default_rng(0)
    docs = np.array([f"d{i}" for i in range(y.size)])
    judged = rng.random(y.size) < 0.7
    extra_q = np.unique(q)
    qrels = pd.DataFrame({
        "qid": np.r_[q[judged], extra_q].astype(str),
        "docid": np.r_[docs[judged], [f"x{i}" for i in extra_q]],
        "label": np.r_[y[judged], np.full(extra_q.size, 2)],
    })
    run = pd.DataFrame({"qid": q.astype(str), "docid": docs, "score": s})
    names = ["ndcg@5", "ndcg", "ncg@5", "dcg@3", "p@5", "recall@10", "f1@5", "ap", "ap@10",
             "rr", "rr@3"]
    got = evaluate(qrels, run, names, ties=ties, gain="exponential").per_query
    labels = np.where(judged, y, 0)
    plan = QueryPlan(labels, q.astype(str),
                     recall_base=(qrels["label"].to_numpy(), qrels["qid"].to_numpy()))
    want = plan.evaluate(s, names, ties=ties, gain="exponential")
    assert list(got.index) == plan.qids.tolist()
    for name in names:
        np.testing.assert_allclose(got[name].to_numpy(), want[name], rtol=0, atol=1e-12,
                                   err_msg=name)


def test_interpolated_precision_needs_a_tie_order():
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    with pytest.raises(ValueError, match=r"'IPrec@0.5', '11pt_avg': interpolated precision has "
                                         r"no exact tie-averaged form .* pass ties='docno' "
                                         r"\(trec_eval\), 'stable', 'optimistic' or "
                                         r"'pessimistic'"):
        evaluate(qrels, run, ["AP", "IPrec@0.5", "11pt_avg"])
    res = evaluate(qrels, run, ["IPrec@0.5", "11pt_avg"], ties="optimistic")
    assert res.per_query.loc["q"].tolist() == [1.0, 1.0]


def test_empty_rule():
    qrels = {"q1": {"a": 1}, "q2": {"b": 0}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0}}
    assert evaluate(qrels, run, ["AP"]).mean["AP"] == 0.5
    assert evaluate(qrels, run, ["AP"], empty=1.0).mean["AP"] == 1.0
    res = evaluate(qrels, run, ["AP", "nDCG", "DCG"], empty="skip")
    assert math.isnan(res.per_query.loc["q2", "AP"]) and math.isnan(res.per_query.loc["q2",
                                                                                      "nDCG"])
    assert res.per_query.loc["q2", "DCG"] == 0.0
    assert res.mean["AP"] == 1.0
    with pytest.raises(ValueError, match=r"AP is undefined for queries without relevant "
                                         r"documents \(qid \['q2'\]\)"):
        evaluate(qrels, run, ["AP"], empty="error")


def test_queries_must_overlap():
    with pytest.raises(ValueError, match="no query of the run has judgements in the qrels"):
        evaluate({"1": {"a": 1}}, {"01": {"a": 1.0}}, ["AP"])


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"ties": "random"}, ValueError, r"ties must be one of 'average', 'optimistic', "
                                         r"'pessimistic', 'stable', 'docno'; got 'random'"),
        ({"threshold": 0}, ValueError, r"threshold must be a finite number > 0 .*got 0"),
        ({"threshold": "1"}, TypeError, r"threshold must be a number > 0; got '1'"),
        ({"max_depth": 0}, ValueError, r"max_depth must be a positive int or None; got 0"),
        ({"max_depth": 2.5}, TypeError, r"max_depth must be a positive int or None; got 2.5"),
        ({"beta": 0}, ValueError, r"beta must be > 0; got 0"),
        ({"empty": "nan"}, ValueError, r"empty must be one of 'skip', 'error'; got 'nan'"),
        ({"gain": "quadratic"}, ValueError, r"gain must be one of 'exponential', 'linear'"),
        ({"discount": "sqrt"}, ValueError, r"discount must be one of 'log'"),
        ({"log_base": 1}, ValueError, r"log_base must be > 1"),
        ({"complete": "yes"}, TypeError, r"complete must be True or False; got 'yes'"),
    ],
)
def test_bad_options(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["AP"], **kwargs)


def test_fractional_labels_need_a_gain_that_takes_them():
    qrels = {"q": {"a": 0.5}}
    run = {"q": {"a": 1.0}}
    with (pytest.raises(ValueError, match=r"labels must be integers with gain=\"exponential\""),
          pytest.warns(UserWarning, match="not integers")):
        evaluate(qrels, run, ["nDCG"], gain="exponential")
    with pytest.warns(UserWarning, match="not integers"):  # trec_eval would read 0.5 as 0
        assert evaluate(qrels, run, ["nDCG"]).mean["nDCG"] == 1.0


def test_result_object_and_formats():
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 0}}
    run = {"q1": {"a": 1.0, "x": 0.5}, "q2": {"y": 1.0}, "q3": {"d": 1.0}}
    res = evaluate(qrels, run, ["P@2", "NumRelRet"], empty="skip")
    assert isinstance(res, EvalResult)
    assert res.measures == ["P@2", "NumRelRet"]
    assert res.per_query.index.name == "qid"
    assert res.mean == {"P@2": 0.25, "NumRelRet": 1.0}
    frame = res.to_frame()
    assert list(frame.index) == ["q1", "q2", "q3", "all"]
    assert list(res.to_frame(per_query=False).index) == ["all"]
    trec = res.to_trec().splitlines()
    assert trec[0] == "P@2                   \tq1\t0.5000"
    assert trec[1] == "NumRelRet             \tq1\t1"
    assert trec[4] == "P@2                   \tq3\tnan"
    assert trec[-2:] == ["P@2                   \tall\t0.2500", "NumRelRet             \tall\t1"]
    assert res.to_trec(per_query=False).count("\n") == 1
    data = json.loads(res.to_json())
    assert data["per_query"]["q3"]["P@2"] is None
    assert data["mean"] == {"P@2": 0.25, "NumRelRet": 1.0}
    assert data["params"]["ties"] == "average"
    assert "per_query" not in json.loads(res.to_json(per_query=False))


def test_tie_effect_lists_what_moves():
    qrels = {"q": {"a": 1, "b": 0}, "r": {"e": 1}}
    run = {"q": {"a": 1.0, "b": 1.0}, "r": {"c": 1.0, "d": 1.0, "e": 2.0}}  # r: only 0s tie
    eff = tie_effect(qrels, run, ["P@1", "RR", "NumRelRet"])
    assert eff.to_dict("records") == [
        {"measure": "P@1", "qid": "q", "docno": 0.0, "average": 0.5, "delta": -0.5},
        {"measure": "RR", "qid": "q", "docno": 0.5, "average": 0.75, "delta": -0.25},
    ]
    # ties= was dropped silently (tie_effect sets both rules itself): now a TypeError
    with pytest.raises(TypeError, match="ties= is not an option here"):
        tie_effect(qrels, run, ["P@1"], ties="optimistic")


def test_tie_effect_skips_queries_undefined_under_both_orders_and_keeps_its_dtypes():
    """A query skipped with empty="skip" is NaN under both tie orders; NaN != NaN listed it as
    a change (delta NaN) although nothing moved. And an empty table (nothing moves) had object
    columns where the docstring promises str and float64."""
    qrels = {"q": {"a": 0, "b": 0}, "r": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0}, "r": {"a": 1.0, "b": 1.0}}
    eff = tie_effect(qrels, run, ["AP"], empty="skip")
    assert eff.to_dict("records") == [
        {"measure": "AP", "qid": "r", "docno": 0.5, "average": 0.75, "delta": -0.25}]
    still = tie_effect(qrels, {"q": {"a": 2.0, "b": 1.0}, "r": {"a": 2.0, "b": 1.0}}, ["AP"])
    assert still.empty
    assert [still[c].dtype for c in ("docno", "average", "delta")] == [np.float64] * 3
    assert all(pd.api.types.is_string_dtype(still[c]) for c in ("measure", "qid"))


def test_inputs_are_not_modified_and_progress_bar_runs(capsys):
    qrels = pd.DataFrame({"qid": ["q", "q"], "docid": ["a", "b"], "label": [1, -1]})
    run = pd.DataFrame({"qid": ["q", "q"], "docid": ["b", "a"], "score": [2.0, 1.0]})
    before = (qrels.copy(), run.copy())
    res = evaluate(qrels, run, ["RR"], progress=True)
    assert res.mean["RR"] == 0.5
    pd.testing.assert_frame_equal(qrels, before[0])
    pd.testing.assert_frame_equal(run, before[1])
    assert "rankmetrics eval" in capsys.readouterr().err


def test_large_evaluation_in_threads_equals_one_measure_at_a_time():
    """Above PARALLEL_ROWS the kernel sums run in two threads: same numbers."""
    from rankmetrics.trec.compute import PARALLEL_ROWS

    y, s, q = make_benchmark_scores(n_queries=1900, random_state=5)
    assert y.size >= PARALLEL_ROWS
    docs = np.char.add("d", np.arange(y.size).astype(str))
    run = pd.DataFrame({"qid": q.astype(str), "docid": docs, "score": s})
    qrels = pd.DataFrame({"qid": q.astype(str), "docid": docs, "label": y})
    names = ["nDCG@10", "nDCG", "P@10", "R@100", "AP", "RR", "Success@5"]
    for ties in ("average", "docno"):
        together = evaluate(qrels, run, names, ties=ties).per_query
        for name in names:
            alone = evaluate(qrels, run, [name], ties=ties).per_query[name]
            np.testing.assert_array_equal(together[name].to_numpy(), alone.to_numpy())


def test_complete_num_rel_summary_counts_every_judgement_as_trec_eval():
    """trec_eval -c recounts num_rel's "all" value over every qrels judgement with a label > 0,
    ignoring -l (m_num_rel.c, te_calc_avg_num_rel; trec_eval 10.0 prints 5 below with -c -l 2,
    per query 2 + 0 + 0); we summed the per-query values (2). Without -c, or with a measure's
    own rel=, the summary stays the sum."""
    qrels = {"a": {"d1": 1, "d2": 2, "d3": 3, "d4": 0, "d5": -1},
             "b": {"e1": 1, "e2": 1}, "c": {"f1": 0}}
    run = {"a": {"d1": 2.0, "x": 1.0}, "b": {"e1": 0.5}}
    res = evaluate(qrels, run, ["num_rel", "NumRel(rel=2)"], threshold=2, complete=True)
    assert res.per_query["num_rel"].tolist() == [2, 0, 0]
    assert res.mean["num_rel"] == 5  # d1, d2, d3, e1, e2
    assert res.mean["NumRel(rel=2)"] == 2
    assert evaluate(qrels, run, ["num_rel"], threshold=2).mean["num_rel"] == 2
    # a gain weighing level 0 shifts the labels inside: the count is the same
    res = evaluate(qrels, run, ["num_rel", "nDCG(gains={0: 1})"], threshold=2, complete=True)
    assert res.mean["num_rel"] == 5


def test_judged_only_query_with_nothing_left_warns_about_trec_evals_nan():
    """trec_eval -J prints -nan (0 / 0) for IPrec and 11pt_avg of a query none of whose
    retrieved documents is judged, and for their "all" row (trec_eval 10.0); we give 0 and
    said nothing."""
    qrels = {"1": {"a": 1, "b": 0}, "3": {"d": 1}}
    run = {"1": {"a": 2.0, "x": 1.0}, "3": {"y": 1.0}}
    with pytest.warns(UserWarning, match=r"1 evaluated query\(ies\) keep no retrieved "
                                         r"document \('3'\).*-nan"):
        res = evaluate(qrels, run, ["IPrec@0.0", "P@5"], ties="docno", judged_only=True)
    assert res.per_query["IPrec@0.0"].tolist() == [1.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the other measures are trec_eval's numbers: silent
        evaluate(qrels, run, ["P@5", "AP"], ties="docno", judged_only=True)
        evaluate(qrels, run, ["IPrec@0.0"], ties="docno")


def test_trec_eval_gain_maps_with_gains_less_than_1_apart_warn():
    """trec_eval sorts the gains of -m ndcg.1=0.5,... with a comparator that truncates their
    difference to an int (gain_init.c), so 0 and 0.5 compare equal and its ideal ranking can
    come out of order: on a random case trec_eval 10.0 printed 0.4501 where the exact nDCG is
    0.4253, and nothing said so. The gain-map syntax warns then; integer gains, gains 1 or more
    apart and ir_measures' gains={...} (exact in ir_measures too) do not."""
    qrels = {"q": {"a": 2, "b": 1, "c": 0, "d": 1}}
    run = {"q": {"a": 0.1, "b": 0.9, "c": 0.5, "d": 0.3}}
    with pytest.warns(UserWarning, match=r"ndcg.1=0.5,2=9: trec_eval orders the gains .* "
                                         r"\(0 and 0.5\)"):
        evaluate(qrels, run, ["ndcg.1=0.5,2=9"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(qrels, run, ["ndcg.1=3,2=9,4=4.5", "ndcg_cut.10", "nDCG(gains={1: 0.5})"])


def test_trec_eval_gain_maps_take_gains_with_an_exponent():
    """trec_eval reads the gains of -m ndcg.1=3,2=1e3 with atof (0.4337 here, as trec_eval 10.0
    prints it); the name was refused as an unknown measure."""
    qrels = {"q": {"a": 2, "b": 1, "c": 0, "d": 1}}
    run = {"q": {"a": 0.1, "b": 0.9, "c": 0.5, "d": 0.3}}
    res = evaluate(qrels, run, ["ndcg.1=3,2=1e3", "nDCG(gains={1: 3, 2: 1000})"],
                   ties="docno").per_query
    assert res["ndcg.1=3,2=1e3"].tolist() == res["nDCG(gains={1: 3, 2: 1000})"].tolist()
    assert res["ndcg.1=3,2=1e3"].iloc[0] == pytest.approx(0.4337, abs=5e-5)


def test_gain_maps_that_trec_eval_reads_otherwise_are_refused(tmp_path, capsys):
    """trec_eval 10.0 on ndcg.1=3,1=5 uses the first gain of level 1 (get_gain: 0.9134 on a
    case where we took the last, 0.8232, silently); on ndcg.-1=2 it gives the gain to
    retrieved documents missing from the qrels in the DCG but not in the ideal DCG (0.9180,
    above 1 with ndcg.-2=5: 5.6309) where we gave them 0; it ignores a pair whose level is
    not digits (gain_init.c's valid_int): ndcg.1.5=3, and ndcg.1 =3 and ndcg.2=9, 1=3, which
    we read as level 1 (0.4623 and 0.4593 on the probe files where trec_eval printed 0.5325
    and 0.5166 under the same names). Each is now a ValueError naming the measure, as is a
    level given twice in --gain or gains={...} (a dict display keeps the last silently)."""
    from rankmetrics.cli import main

    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    run = {"q": {"a": 0.1, "b": 0.9, "c": 0.5, "x": 0.7}}
    for name, match in [("ndcg.1=3,1=5", r"'ndcg.1=3,1=5' \(trec_eval keeps the first gain\) "
                                         r"gives level 1 twice"),
                        ("ndcg.-1=2", r"'ndcg.-1=2': level -1 is not supported"),
                        ("ndcg.-2=5,1=2", r"level -2 is not supported"),
                        ("ndcg.1.5=3", r"level '1.5' is not an integer written as digits"),
                        ("ndcg.1 =3", r"level '1 ' is not an integer .*trec_eval ignores"),
                        ("ndcg. 1=3", r"level ' 1' is not an integer written as digits"),
                        ("nDCG(gains={1: 3, 1: 5})", r"gives level 1 twice"),
                        ("nDCG(gains={1: 3, 1.0: 5})", r"gives level 1.0 twice"),
                        ("nDCG(gains=1=3;1=5)", r"gives level 1 twice")]:
        with pytest.raises(ValueError, match=match):
            evaluate(qrels, run, [name])
    qf, rf = tmp_path / "q.txt", tmp_path / "r.txt"
    qf.write_text("q 0 a 2\nq 0 b 1\nq 0 c 0\n")
    rf.write_text("q Q0 b 1 0.9 t\nq Q0 x 2 0.7 t\nq Q0 c 3 0.5 t\nq Q0 a 4 0.1 t\n")
    for argv in (["eval", str(qf), str(rf), "-m", "nDCG", "--gain", "1=3,1=5"],
                 ["compare", str(qf), str(rf), str(rf), "-m", "nDCG", "--gain", "1=3,1=5"]):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's type= error
            code = exc.code
        assert code in (1, 2)
        assert "--gain gives level 1 twice" in capsys.readouterr().err
    # -m splits its value on commas: the space before a level is the pair trec_eval ignores
    assert main(["eval", str(qf), str(rf), "-m", "ndcg.2=9, 1=3", "--ties", "docno"]) == 1
    assert "level ' 1' is not an integer written as digits" in capsys.readouterr().err
    assert main(["eval", str(qf), str(rf), "-m", "ndcg.2=9,1= 3 ", "--ties", "docno"]) == 0
    capsys.readouterr()
    # a gain for a negative label was ignored silently (those documents have gain 0 here)
    for name, kw in [("nDCG(gains={-1: 1, 2: 9})", {}), ("nDCG", {"gain": {-1: 1, 2: 9}}),
                     ("ERR(gains={-2: 4})", {})]:
        with pytest.raises(ValueError, match=r"a gain for level -\d; TREC evaluation gives "
                                             "negative-label"):
            evaluate({"q": {"a": 2, "b": -1}}, run, [name], **kw)
    kept = evaluate({"q": {"a": 2, "b": -1}}, run, ["nDCG(gains={-1: 0, 2: 9})"]).mean
    assert kept["nDCG(gains={-1: 0, 2: 9})"] == pytest.approx(1 / np.log2(5))


def test_trec_evals_rbp_is_not_taken_for_ours(tmp_path, capsys):
    """rankmetrics eval -m rbp printed RBP(p=0.8) with graded gains, 0.3199 on a file where
    trec_eval 10.0's rbp (p = 0.9, each query's gains divided by its largest label) prints
    0.1235: a borrowed name with another number, silently. The command line now refuses the
    name and says what to write; rankmetrics.trec.evaluate, where rbp is also the core's
    name, warns; RBP(...) and the other names stay silent."""
    from rankmetrics.cli import main

    qf, rf = tmp_path / "q.txt", tmp_path / "r.txt"
    qf.write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n")
    rf.write_text("1 Q0 a 1 0.9 t\n1 Q0 b 2 0.7 t\n1 Q0 c 3 0.5 t\n")
    for name, p in (("rbp", "0.9"), ("rbp.p=0.8", "0.8"), ("map,rbp", "0.9")):
        assert main(["eval", str(qf), str(rf), "-m", name]) == 1
        err = capsys.readouterr().err
        assert "is trec_eval 10's rbp" in err and f"Ask for RBP(p={p})" in err
    with pytest.warns(UserWarning, match=r"'rbp' is trec_eval 10's rbp"):
        got = evaluate(str(qf), str(rf), ["rbp"]).mean["rbp"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert evaluate(str(qf), str(rf), ["RBP"]).mean["RBP"] == got
        assert main(["eval", str(qf), str(rf), "-m", "RBP(p=0.9)"]) == 0
    assert got == pytest.approx(0.2 * (2 + 0.8))


def test_set_f_takes_trec_evals_operations():
    """set_F.2.0 of 7 relevant found among 18 retrieved, 7 relevant: (1 + x) P R / (x P + R)
    is 21/32 = 0.65625 exactly, and trec_eval's operations give 0.65625000000000011, which
    it prints 0.6563; our simplified (1 + x) found / (x R + retrieved) gave 0.65625, printed
    0.6562 (found by benchmarks/check_trec_eval.py against trec_eval 10.0)."""
    qrels = {"q": {f"r{i}": 1 for i in range(7)}}
    run = {"q": {**{f"r{i}": 30.0 - i for i in range(7)},
                 **{f"n{i}": 5.0 - i for i in range(11)}}}
    res = evaluate(qrels, run, ["set_F.2.0"], ties="docno")
    p, r = 7 / 18, 7 / 7
    assert res.mean["set_F.2.0"] == (2.0 + 1.0) * p * r / (2.0 * p + r) == 0.6562500000000001
    assert res.to_trec(per_query=False).split()[-1] == "0.6563"


def test_all_row_adds_queries_one_after_another_as_trec_eval():
    """trec_eval's "all" is a running sum in query order over the count (te_acc_meas_s,
    te_calc_avg_meas_s). numpy's pairwise mean gave 0.5687500000000001 here, printed 0.5688;
    trec_eval 10 prints 0.5687 (the running sum is 0.56874999999999998)."""
    counts = [6, 10, 6, 6, 0, 2, 7, 1, 4, 10, 10, 2, 8, 3, 9, 7]
    qrels = {f"q{i:02d}": {"d0": 0, **{f"d{j + 1}": 1 for j in range(c)}}
             for i, c in enumerate(counts)}
    run = {q: {f"d{j + 1}": float(10 - j) for j in range(10)} for q in qrels}
    res = evaluate(qrels, run, ["P@10"], ties="docno")
    per = res.per_query["P@10"].to_numpy()
    running = 0.0
    for v in per:  # query order: the qids sort as trec_eval's strcmp
        running += v
    assert res.mean["P@10"] == running / per.size
    assert f"{res.mean['P@10']:.4f}" == "0.5687"


def test_11pt_avg_adds_its_levels_from_the_last_down_as_trec_eval():
    """m_11pt_avg.c sums the interpolated precisions from the last level down: 0.46875 exactly
    here, printed 0.4688 by trec_eval; the mean over the levels gave 0.46874999999999994."""
    rel = [0, 2, 7, 17, 23] + list(range(100, 109))
    qrels = {"1": {f"d{x}": 1 for x in rel}}
    run = {"1": {f"d{i}": float(100 - i) for i in range(26)}}
    levels = "0.05,0.15,0.35,0.45"
    res = evaluate(qrels, run, [f"11pt_avg.{levels}"] + [f"iprec_at_recall_{x}"
                                                        for x in levels.split(",")],
                   ties="docno")
    row = res.per_query.iloc[0]
    iprec = [row[c] for c in res.per_query.columns[1:]]
    running = 0.0
    for v in iprec[::-1]:
        running += v
    assert row.iloc[0] == running / 4 == 0.46875


def test_to_json_params_numpy_scalars_are_numbers():
    # max_depth=np.int64(5) was written "np.int64(5)" (a string) in the JSON params
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0, "c": 2.0}, "q2": {"b": 1.0}}
    res = evaluate(qrels, run, ["AP"], max_depth=np.int64(5), threshold=np.int32(1),
                   beta=np.float32(2.0), empty=np.int64(0))
    params = json.loads(res.to_json())["params"]
    assert params["max_depth"] == 5 and isinstance(params["max_depth"], int)
    assert params["threshold"] == 1 and isinstance(params["threshold"], int)
    assert params["beta"] == 2.0 and isinstance(params["beta"], float)
    assert params["empty"] == 0
    assert params["ties"] == "average" and params["complete"] is False


def test_overflowed_gain_sums_are_refused_as_in_the_core():
    """DCG of two gains 1e308 overflowed in the tie-averaged sums: nDCG@10 and DCG@10 came
    back NaN (inf - inf) or inf without a word, where QueryPlan.evaluate raises."""
    qrels, run = {"q": {"a": 1, "b": 1, "c": 0}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    for name in ("nDCG@10", "DCG@10", "DCG"):
        with pytest.raises(ValueError, match="gain x discount sums overflow float64"):
            evaluate(qrels, run, [name], gain={1: 1e308})
    assert evaluate(qrels, run, ["DCG@1"], gain={1: 1e308}).mean["DCG@1"] == 1e308
    assert evaluate(qrels, run, ["nDCG@10"], gain={1: 1e300}).mean["nDCG@10"] == 1.0


def test_to_json_is_strict_json_for_infinite_values():
    # to_json wrote an infinite value as the bare token Infinity, which strict JSON parsers
    # (JavaScript, jq, json.loads(parse_constant=...)) refuse; no measure gives one since the
    # gain sums that overflowed are refused, so the value is put in by hand
    res = evaluate({"q": {"a": 1, "b": 1}, "p": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5},
                                                            "p": {"b": 1.0}},
                   ["DCG"], empty="skip")
    res.mean["DCG"] = math.inf
    res.per_query.loc["q", "DCG"] = math.inf

    def refuse(token):
        raise ValueError(f"bare {token}")

    data = json.loads(res.to_json(), parse_constant=refuse)
    assert data["mean"]["DCG"] == "inf" and data["per_query"]["q"]["DCG"] == "inf"
    assert data["per_query"]["p"]["DCG"] == 0.0
