"""rankmetrics.trec (ties="docno") against pytrec_eval, which wraps trec_eval's C code.

Random qrels and runs with many tied scores, unjudged and -1 documents, queries on one side
only; every measure pytrec_eval shares with us must agree to 1e-12 (``-c`` and ``-M`` are not
exposed by pytrec_eval). pytrec_eval embeds trec_eval 9, whose interpolated precision rounds
recall levels as ``int(x R + 0.9)``: that is ``IPrec(rule=trec9)`` here.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from _extras import require

from rankmetrics.trec import evaluate

CUTS = (1, 3, 5, 10)
PAIRS = (
    [("map", "AP"), ("ndcg", "nDCG"), ("recip_rank", "RR"), ("Rprec", "Rprec"),
     ("num_ret", "NumRet"), ("num_rel", "NumRel"), ("num_rel_ret", "NumRelRet"),
     ("11pt_avg", "11pt_avg(rule=trec9)")]
    + [(f"P_{k}", f"P@{k}") for k in CUTS]
    + [(f"recall_{k}", f"R@{k}") for k in CUTS]
    + [(f"ndcg_cut_{k}", f"nDCG@{k}") for k in CUTS]
    + [(f"map_cut_{k}", f"AP@{k}") for k in CUTS]
    + [(f"success_{k}", f"Success@{k}") for k in (1, 5, 10)]
    + [(f"iprec_at_recall_{x / 10:.2f}", f"IPrec(rule=trec9)@{x / 10}") for x in range(11)]
)


def random_collection(seed: int, n_queries: int = 40):
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        qid = str(300 + q)
        n = int(rng.integers(1, 40))
        docs = [f"D{x:05d}" for x in rng.choice(20000, size=n + 5, replace=False)]
        scores = np.round(rng.normal(size=n), 1)  # coarse: many ties
        if q % 7 != 3:
            run[qid] = {d: float(s) for d, s in zip(docs[:n], scores, strict=True)}
        judged = [d for d in docs if rng.random() < 0.6]
        if q % 11 != 5 and judged:
            qrels[qid] = {d: int(rng.choice([-1, 0, 0, 1, 1, 2, 3])) for d in judged}
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("threshold", [1, 2])
def test_agrees_with_pytrec_eval(seed, threshold):
    pytrec_eval = require("pytrec_eval")
    qrels, run = random_collection(seed)
    cut = ",".join(map(str, CUTS))
    params = {"map", "ndcg", "recip_rank", "Rprec", "num_ret", "num_rel", "num_rel_ret",
              "11pt_avg", "iprec_at_recall", "success", f"P.{cut}", f"recall.{cut}",
              f"ndcg_cut.{cut}", f"map_cut.{cut}"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, params, relevance_level=threshold)
    expected = theirs.evaluate(run)
    ours = evaluate(qrels, run, [o for _, o in PAIRS], ties="docno", gain="linear",
                    threshold=threshold).per_query
    assert sorted(expected) == list(ours.index)
    for qid, row in expected.items():
        for trec_name, our_name in PAIRS:
            assert ours.loc[qid, our_name] == pytest.approx(row[trec_name], abs=1e-12), (
                qid, trec_name)


def test_docno_ties_of_scores_beyond_float32_agree_with_pytrec_eval(tmp_path):
    """trec_eval keeps scores as C floats: every score past float32's range is inf there, tied
    with the others of its sign (then ordered by docno). Such finite float64 scores were
    refused as non-finite; now each gives pytrec_eval's number, from a dict and a file."""
    pytrec_eval = require("pytrec_eval")
    qrels = {"1": {"a": 1, "b": 0, "c": 1}}
    runs = [{"a": 1e308, "b": 1e300, "c": 1.0}, {"a": 1e39, "b": 1e38, "c": 2.0},
            {"a": -1e308, "b": -1e300, "c": 0.5}, {"a": 3e38, "b": 4e38, "c": -1e39}]
    for i, scores in enumerate(runs):
        run = {"1": scores}
        names = ["recip_rank", "map", "bpref"]  # bpref ranks through its own path
        theirs = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)["1"]
        path = tmp_path / f"run{i}"
        path.write_text("".join(f"1 Q0 {d} 0 {s!r} t\n" for d, s in scores.items()))
        for src in (run, str(path)):
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no overflow warning from the float32 cast
                ours = evaluate(qrels, src, names, ties="docno").per_query
            for name in names:
                assert ours[name].tolist() == pytest.approx([theirs[name]], abs=1e-12), name


def test_fractional_labels_differ_from_pytrec_eval_and_say_so(tmp_path):
    """trec_eval reads qrels labels as integers (atol: 1.5 is 1, -0.5 is 0) and pytrec_eval
    takes integers; rankmetrics uses fractional labels as they are. The numbers then differ
    on purpose, so the difference is announced (UserWarning naming the source, the first such
    label, its query, document and line); integer labels give pytrec_eval's number, silently."""
    pytrec_eval = require("pytrec_eval")
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    frac = {"1": {"a": 0.5, "b": 1, "c": 2}}
    truncated = {"1": {"a": 0, "b": 1, "c": 2}}
    theirs = pytrec_eval.RelevanceEvaluator(truncated, {"ndcg"}).evaluate(run)["1"]["ndcg"]
    with pytest.warns(UserWarning, match=r"1 label\(s\) are not integers .*0\.5.*'a'"):
        ours = evaluate(frac, run, ["ndcg"], ties="docno").mean["ndcg"]
    assert ours != pytest.approx(theirs, abs=1e-6)  # the difference the warning announces
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = evaluate(truncated, run, ["ndcg"], ties="docno").mean["ndcg"]
    assert same == pytest.approx(theirs, abs=1e-12)
    path = tmp_path / "qrels"
    path.write_text("1 0 b 1\n1 0 c 2\n1 0 a -0.5\n")
    with pytest.warns(UserWarning, match=re.escape(str(path)) + r": 1 label.*-0\.5.*line 3"):
        evaluate(str(path), run, ["ndcg"])


def test_iprec_names_round_as_their_lenders():
    """ir_measures' IPrec@x is pytrec_eval's (trec_eval 9: j = int(x R + 0.9)); trec_eval 10's
    iprec_at_recall_x rounds j = lround(x R). IPrec@0.3 gave trec_eval 10's 1.0 where
    ir_measures (and our provider) gives 0.375."""
    pytrec_eval = require("pytrec_eval")
    qrels = {"q": {d: 1 for d in "abcdefg"}}
    run = {"q": {"a": 10.0, "b": 9.0, "n1": 8.0, "n2": 7.0, "n3": 6.0, "n4": 5.0, "n5": 4.0,
                 "c": 3.0}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)["q"]
    res = evaluate(qrels, run, ["IPrec@0.3", "iprec_at_recall_0.30"], ties="docno").mean
    assert res["IPrec@0.3"] == pytest.approx(theirs["iprec_at_recall_0.30"], abs=1e-12)
    assert res["IPrec@0.3"] == pytest.approx(0.375, abs=1e-12)
    assert res["iprec_at_recall_0.30"] == 1.0  # lround(2.1) = 2: the first two are relevant
