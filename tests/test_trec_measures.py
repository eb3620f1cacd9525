"""Measure names of rankmetrics.trec: ir_measures style, trec_eval names, parameters, errors."""

from __future__ import annotations

import pytest

from rankmetrics.measures.grammar import (
    Measure,
    parse_measure,
    parse_measures,
    split_measure_list,
)


@pytest.mark.parametrize(
    ("name", "kind", "k", "extra"),
    [
        ("nDCG@10", "ndcg", 10, {}),
        ("NDCG", "ndcg", None, {}),
        ("ndcg_cut_10", "ndcg", 10, {}),
        ("DCG@5", "dcg", 5, {}),
        ("CG@3", "cg", 3, {}),
        ("nCG@3", "ncg", 3, {}),
        ("P@5", "p", 5, {}),
        ("P_5", "p", 5, {}),
        ("precision@5", "p", 5, {}),
        ("R@100", "r", 100, {}),
        ("recall_100", "r", 100, {}),
        ("F1@10", "f", 10, {"beta": 1.0}),
        ("F(beta=0.5)@10", "f", 10, {"beta": 0.5}),
        ("F@10", "f", 10, {}),
        ("AP", "ap", None, {}),
        ("MAP", "ap", None, {}),
        ("map_cut_100", "ap", 100, {}),
        ("AP@100", "ap", 100, {}),
        ("RR", "rr", None, {}),
        ("MRR@10", "rr", 10, {}),
        ("recip_rank", "rr", None, {}),
        ("Rprec", "rprec", None, {}),
        ("Success@10", "success", 10, {}),
        ("success_1", "success", 1, {}),
        ("IPrec@0.1", "iprec", None, {"level": 0.1, "rule": "trec9"}),
        ("iprec_at_recall_0.10", "iprec", None, {"level": 0.1}),
        ("11pt_avg", "11pt", None, {}),
        ("NumRet", "numret", None, {}),
        ("num_rel_ret", "numrelret", None, {}),
        ("P(rel=2)@5", "p", 5, {"rel": 2.0}),
        ("nDCG(gains={1: 3, 2: 9, 4: 4.5})@10", "ndcg", 10,
         {"gains": ((1.0, 3.0), (2.0, 9.0), (4.0, 4.5))}),
        ("nDCG(gains=1=3;2=9)", "ndcg", None, {"gains": ((1.0, 3.0), (2.0, 9.0))}),
        ("11pt_avg(levels=[0.2, 0.5, 0.8], rule=recall)", "11pt", None,
         {"levels": (0.2, 0.5, 0.8), "rule": "recall"}),
        ("IPrec(rule='recall')@0.5", "iprec", None, {"level": 0.5, "rule": "recall"}),
    ],
)
def test_names(name, kind, k, extra):
    (m,) = parse_measure(name)
    assert m == Measure(name=name, kind=kind, k=k, **extra)


def test_trec_eval_families_expand():
    names = [m.name for m in parse_measures(["iprec_at_recall", "ndcg_cut", "success"])]
    assert names[:2] == ["iprec_at_recall_0.00", "iprec_at_recall_0.10"]
    assert names[10] == "iprec_at_recall_1.00"
    assert names[11:20] == [f"ndcg_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert names[20:] == ["success_1", "success_5", "success_10"]


def test_split_keeps_commas_inside_parentheses():
    assert split_measure_list("nDCG@10, P(rel=2)@5,nDCG(gains={1: 3, 2: 9})") == [
        "nDCG@10", "P(rel=2)@5", "nDCG(gains={1: 3, 2: 9})"]


@pytest.mark.parametrize(
    ("name", "exc", "match"),
    [
        ("foo@10", ValueError, r"unknown measure 'foo@10'; use e.g. nDCG@10"),
        ("P@0", ValueError, r"cutoff of 'P@0' must be a positive integer; got '0'"),
        ("P@2.5", ValueError, r"cutoff of 'P@2.5' must be a positive integer; got '2.5'"),
        ("IPrec", ValueError, r"'IPrec' needs a recall level, e.g. 'IPrec@0.1'"),
        ("IPrec@1.5", ValueError, r"recall level of 'IPrec@1.5' must be in \[0, 1\]; got 1.5"),
        ("Rprec@10", ValueError, r"'Rprec@10': rprec takes no cutoff"),
        ("P(gains={1: 2})@5", ValueError, r"parameter 'gains' does not apply to 'P\(gains"),
        ("P(rel=0)@5", ValueError, r"rel of 'P\(rel=0\)@5' must be > 0 \(labels <= 0 are never"),
        ("P(rel=x)@5", ValueError, r"rel of 'P\(rel=x\)@5' must be a number; got 'x'"),
        ("P(depth=3)@5", ValueError, r"bad parameter 'depth=3' in 'P\(depth=3\)@5'; supported"),
        ("F(beta=-1)@5", ValueError, r"beta of 'F\(beta=-1\)@5' must be > 0"),
        ("nDCG(gains={1: -2})", ValueError, r"gain of level 1 in .* must be >= 0"),
        ("nDCG(gains=[1, 2])", ValueError, r"gains of .* must be a mapping like \{1: 3, 2: 9\}"),
        ("11pt_avg(levels=[2])", ValueError, r"levels of .* must be a list of recall levels"),
        ("IPrec(rule=max)@0.1", ValueError, r"rule of .* must be 'trec', 'trec9' or 'recall'; "),
        ("P(rel=1, rel=2)@5", ValueError, r"parameter 'rel' given twice"),
        (10, TypeError, r"measure names must be strings like 'nDCG@10'; got 10"),
    ],
)
def test_bad_names(name, exc, match):
    with pytest.raises(exc, match=match):
        parse_measure(name)


def test_list_errors():
    with pytest.raises(ValueError, match="metrics must name at least one measure"):
        parse_measures([])
    with pytest.raises(ValueError, match="measure 'P@5' is given twice"):
        parse_measures(["P@5", "P@5"])
    assert [m.name for m in parse_measures("AP")] == ["AP"]
    # bytes were iterated as their ints: the error read "got 110" for b"ndcg"
    for raw in (b"ndcg", bytearray(b"ndcg")):
        with pytest.raises(TypeError, match=r"measure names must be strings like 'nDCG@10'; "
                                            r"got (bytearray\()?b'ndcg'"):
            parse_measures(raw)
