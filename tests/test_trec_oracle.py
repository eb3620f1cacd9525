"""rankmetrics.trec against a plain-Python reference of trec_eval's measures.

The reference (``measure``) is written from the definitions, one query at a time, on an explicit
ranked list of document ids; no numpy, no rankmetrics. It checks ``evaluate`` on random qrels and
runs with ties, unjudged and negative-label documents, in trec_eval's docno order with ``-M``,
``-c`` and ``-l``, and, over every ordering of tied documents, the tie modes: ``average`` is the
mean over orderings, ``optimistic``/``pessimistic`` the maximum/minimum.
"""

from __future__ import annotations

import itertools
import math
import random
import struct
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import pytest

from rankmetrics.trec import evaluate


def f32(x: float) -> float:
    """``x`` rounded to a C float, as trec_eval stores scores."""
    return struct.unpack("f", struct.pack("f", x))[0]


def docno_order(scores: Mapping[str, float]) -> list[str]:
    """trec_eval's order: score (as a C float) descending, then docno descending (strcmp)."""
    return [d for d, _ in sorted(scores.items(), key=lambda kv: (f32(kv[1]), kv[0]),
                                 reverse=True)]


def docno_order_double(scores: Mapping[str, float]) -> list[str]:
    """trec_eval 10's order: score (a double) descending, then docno descending."""
    return [d for d, _ in sorted(scores.items(), key=lambda kv: (kv[1] + 0.0, kv[0]),
                                 reverse=True)]


def tie_orders(scores: Mapping[str, float]) -> Iterator[list[str]]:
    """Every ranking consistent with the scores (all orders within each tie group)."""
    groups: dict[float, list[str]] = {}
    for d, s in scores.items():
        groups.setdefault(s, []).append(d)
    ordered = [groups[s] for s in sorted(groups, reverse=True)]
    for combo in itertools.product(*(itertools.permutations(g) for g in ordered)):
        yield [d for part in combo for d in part]


def lround(x: float) -> int:
    """C's lround for x >= 0: nearest integer, halves away from zero."""
    j = math.floor(x)
    return int(j) + (1 if x - j >= 0.5 else 0)


def measure(
    name: str,
    ranked: Sequence[str],
    judged: Mapping[str, float],
    *,
    k: int | None = None,
    threshold: float = 1.0,
    max_depth: int | None = None,
    gains: Mapping[float, float] | None = None,
    beta: float = 1.0,
    level: float = 0.0,
    levels: Sequence[float] = tuple(i / 10 for i in range(11)),
    rule: str = "trec",
) -> float:
    """Value of one measure for one query; 0 when there is nothing relevant (trec_eval)."""
    ranked = list(ranked)[:max_depth] if max_depth else list(ranked)
    labels = [max(judged.get(d, 0.0), 0.0) for d in ranked]
    rel = [1 if lab >= threshold else 0 for lab in labels]
    R = sum(1 for v in judged.values() if v >= threshold)
    n = len(ranked)
    top = rel[:k] if k else rel

    def gain(lab: float) -> float:
        return gains.get(lab, lab) if gains else lab

    if name == "numret":
        return float(n)
    if name == "numrel":
        return float(R)
    if name == "numrelret":
        return float(sum(rel))
    if name in ("dcg", "ndcg", "cg", "ncg"):
        disc = (lambda i: 1.0) if name in ("cg", "ncg") else (lambda i: 1 / math.log2(i + 1))
        got = sum(gain(lab) * disc(i) for i, lab in enumerate(labels[:k] if k else labels, 1))
        if name in ("dcg", "cg"):
            return got
        ideal_gains = sorted((gain(max(v, 0.0)) for v in judged.values()), reverse=True)
        ideal = sum(g * disc(i) for i, g in enumerate(ideal_gains[:k] if k else ideal_gains, 1))
        return got / ideal if ideal > 0 else 0.0
    if R == 0:
        return 0.0
    if name == "p":
        denom = k if k else n
        return sum(top) / denom if denom else 0.0
    if name == "r":
        return sum(top) / R
    if name == "f":
        denom = beta * beta * R + (k if k else n)
        return (1 + beta * beta) * sum(top) / denom
    if name == "ap":
        hits, total = 0, 0.0
        for i, r in enumerate(top, 1):
            if r:
                hits += 1
                total += hits / i
        return total / R
    if name == "rr":
        return next((1 / i for i, r in enumerate(top, 1) if r), 0.0)
    if name == "success":
        return 1.0 if any(top) else 0.0
    if name == "rprec":
        return sum(rel[:R]) / R
    if name in ("iprec", "11pt"):
        prec = [sum(rel[:i]) / i for i in range(1, n + 1)]
        pos = [i for i, r in enumerate(rel) if r]  # 0-based positions of relevant docs

        def at(x: float) -> float:
            if rule == "trec":
                j = lround(x * R)
            elif rule == "trec9":  # trec_eval 9 (pytrec_eval, ir_measures)
                j = int(x * R + 0.9)
            else:
                j = next(j for j in range(R + 1) if j / R >= x)
            if j > len(pos):
                return 0.0
            start = 0 if j == 0 else pos[j - 1]
            return max(prec[start:], default=0.0)

        if name == "iprec":
            return at(level)
        return sum(at(x) for x in levels) / len(levels)
    raise ValueError(name)


# ------------------------------------------------------------------------------------- tests

#: (our name, reference measure, reference keyword arguments)
MEASURES = [
    ("nDCG", "ndcg", {}),
    ("nDCG@3", "ndcg", {"k": 3}),
    ("DCG@4", "dcg", {"k": 4}),
    ("CG@2", "cg", {"k": 2}),
    ("nCG@3", "ncg", {"k": 3}),
    ("nDCG(gains={1: 3, 2: 9})@3", "ndcg", {"k": 3, "gains": {1.0: 3.0, 2.0: 9.0}}),
    ("P@3", "p", {"k": 3}),
    ("P", "p", {}),
    ("P(rel=2)@3", "p", {"k": 3, "threshold": 2.0}),
    ("R@4", "r", {"k": 4}),
    ("F1@3", "f", {"k": 3}),
    ("F(beta=2)@4", "f", {"k": 4, "beta": 2.0}),
    ("F", "f", {}),
    ("AP", "ap", {}),
    ("AP@3", "ap", {"k": 3}),
    ("RR", "rr", {}),
    ("RR@2", "rr", {"k": 2}),
    ("Rprec", "rprec", {}),
    ("Success@2", "success", {"k": 2}),
    ("NumRet", "numret", {}),
    ("NumRel", "numrel", {}),
    ("NumRelRet", "numrelret", {}),
    ("IPrec@0.3", "iprec", {"level": 0.3, "rule": "trec9"}),
    ("iprec_at_recall_0.30", "iprec", {"level": 0.3}),
    ("IPrec(rule=recall)@0.5", "iprec", {"level": 0.5, "rule": "recall"}),
    ("11pt_avg", "11pt", {}),
    ("11pt_avg(rule=recall)", "11pt", {"rule": "recall"}),
]
ORDER_ONLY = ("IPrec", "iprec", "11pt")


def random_case(seed: int, n_queries: int = 5, max_docs: int = 8, n_scores: int = 3):
    """Nested-dict qrels and run with ties, unjudged and -1 documents, a qrels-only query and
    a run-only query."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, float]] = {}
    run: dict[str, dict[str, float]] = {}
    levels = [-1, 0, 0, 1, 1, 2, 3]
    score_set = [round(rng.uniform(0, 3), 1) for _ in range(n_scores)]
    for q in range(n_queries):
        qid = f"q{rng.randint(0, 999)}"
        docs = [f"d{x}" for x in rng.sample(range(100), rng.randint(1, max_docs))]
        retrieved = [d for d in docs if rng.random() < 0.8] or docs[:1]
        judged = [d for d in docs if rng.random() < 0.7]
        judged += [f"u{x}" for x in range(rng.randint(0, 2))]  # judged, never retrieved
        if q != 0:
            run[qid] = {d: rng.choice(score_set) for d in retrieved}
        if judged and q != 1:
            qrels[qid] = {d: float(rng.choice(levels)) for d in judged}
    return qrels, run


def reference(qrels, run, *, complete=False, threshold=1.0, max_depth=None, order=docno_order):
    """Expected per-query values {qid: {name: value}} of MEASURES."""
    queries = sorted(qrels) if complete else sorted(q for q in qrels if q in run)
    out = {}
    for q in queries:
        ranked = order(run[q]) if q in run else []
        row = {}
        for name, kind, kw in MEASURES:
            opts = {"threshold": threshold, **kw}
            row[name] = measure(kind, ranked, qrels[q], max_depth=max_depth, **opts)
        out[q] = row
    return out


@pytest.mark.parametrize("seed", range(12))
def test_docno_order_matches_reference(seed):
    qrels, run = random_case(seed)
    rng = random.Random(seed)
    opts = {"complete": rng.random() < 0.5, "threshold": rng.choice([1.0, 2.0]),
            "max_depth": rng.choice([None, None, 2, 4])}
    res = evaluate(qrels, run, [m[0] for m in MEASURES], ties="docno", gain="linear", **opts)
    want = reference(qrels, run, **opts)
    assert list(res.per_query.index) == list(want)
    for q, row in want.items():
        for name, value in row.items():
            assert res.per_query.loc[q, name] == pytest.approx(value, abs=1e-12), (q, name)


def test_docno_compares_scores_as_c_floats():
    """1.0 and 1.0 + 1e-9 are one C float: trec_eval ties them and puts docno "b" first."""
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    assert evaluate(qrels, run, ["RR"], ties="docno").per_query["RR"].tolist() == [0.5]
    assert evaluate(qrels, run, ["RR"], ties="stable").per_query["RR"].tolist() == [1.0]
    assert docno_order(run["q"]) == ["b", "a"]


@pytest.mark.parametrize("seed", range(8))
def test_docno_scores_double_matches_trec_eval_10s_order(seed):
    """trec_eval 10 compares scores as doubles (trec_format.h: double sim), trec_eval 9 and
    pytrec_eval as C floats. Scores a few 1e-9 apart (one C float, two doubles) took the
    C-float order in every mode, so rankmetrics eval printed map 0.5 where trec_eval 10
    prints 1.0 (15.12345679 vs 15.12345671). docno_scores="double" follows trec_eval 10,
    the default "float" trec_eval 9 / pytrec_eval."""
    qrels, run = random_case(seed)
    rng = random.Random(seed)
    for q in run:
        for d in run[q]:
            if rng.random() < 0.5:
                run[q][d] += rng.choice([1, 2]) * 1e-9
    opts = {"complete": rng.random() < 0.5, "threshold": rng.choice([1.0, 2.0]),
            "max_depth": rng.choice([None, None, 2, 4])}
    names = [m[0] for m in MEASURES]
    for scores, order in (("double", docno_order_double), ("float", docno_order)):
        res = evaluate(qrels, run, names, ties="docno", gain="linear", docno_scores=scores,
                       **opts)
        want = reference(qrels, run, order=order, **opts)
        for q, row in want.items():
            for name, value in row.items():
                assert res.per_query.loc[q, name] == pytest.approx(value, abs=1e-12), \
                    (scores, q, name)


def test_docno_scores_double_in_the_cli_and_under_judged_only(tmp_path, capsys):
    from rankmetrics.cli import main

    qf, rf = tmp_path / "q.txt", tmp_path / "r.txt"
    qf.write_text("1 0 a 1\n1 0 b 0\n1 0 c 0\n")
    rf.write_text("1 Q0 a 1 15.12345679 r\n1 Q0 b 2 15.12345671 r\n1 Q0 u 3 1e-300 r\n"
                  "1 Q0 c 4 2e-300 r\n")
    base = ["eval", str(qf), str(rf), "--ties", "docno", "--format", "trec", "-m", "map,P.1"]
    assert main(base) == 0  # trec_eval 10.0 prints map 1.0000, P_1 1.0000
    assert capsys.readouterr().out.split() == ["map", "all", "1.0000", "P_1", "all", "1.0000"]
    assert main([*base, "--docno-scores", "float"]) == 0  # trec_eval 9, pytrec_eval
    assert capsys.readouterr().out.split() == ["map", "all", "0.5000", "P_1", "all", "0.0000"]
    # -J -M 2 cuts at rank 2 in the order of the same precision: c above u as doubles only
    res = {s: evaluate(str(qf), str(rf), ["NumRet", "P@2"], ties="docno", judged_only=True,
                       max_depth=3, docno_scores=s).mean for s in ("double", "float")}
    assert res["double"] == {"NumRet": 3.0, "P@2": 0.5}
    assert res["float"] == {"NumRet": 2.0, "P@2": 0.5}
    with pytest.raises(ValueError, match="docno_scores must be 'float'"):
        evaluate(str(qf), str(rf), ["P@1"], docno_scores="single")


def _one_query_cases(n: int):
    seed = 0
    found = 0
    while found < n:
        qrels, run = random_case(seed, n_queries=3, max_docs=7, n_scores=3)
        seed += 1
        for q in sorted(set(qrels) & set(run)):
            groups: dict[float, int] = {}
            for s in run[q].values():
                groups[s] = groups.get(s, 0) + 1
            n_orders = int(np.prod([math.factorial(c) for c in groups.values()]))
            if 1 < n_orders <= 720:
                found += 1
                yield seed, {q: qrels[q]}, {q: run[q]}
                break


@pytest.mark.parametrize(("seed", "qrels", "run"), list(_one_query_cases(14)),
                         ids=lambda x: str(x) if isinstance(x, int) else "")
def test_tie_modes_are_mean_max_min_over_orderings(seed, qrels, run):
    rng = random.Random(seed)
    opts = {"threshold": rng.choice([1.0, 2.0]), "max_depth": rng.choice([None, 2, 3])}
    (q,) = run
    orders = list(tie_orders(run[q]))
    per_order = [reference(qrels, run, order=lambda s, o=o: o, **opts)[q] for o in orders]
    names = [m[0] for m in MEASURES]
    tie_free = [n for n in names if not n.startswith(ORDER_ONLY)]
    avg = evaluate(qrels, run, tie_free, ties="average", gain="linear", **opts).per_query
    best = evaluate(qrels, run, names, ties="optimistic", gain="linear", **opts).per_query
    worst = evaluate(qrels, run, names, ties="pessimistic", gain="linear", **opts).per_query
    for name in names:
        vals = [row[name] for row in per_order]
        if name in tie_free:
            assert avg.loc[q, name] == pytest.approx(sum(vals) / len(vals), abs=1e-12), name
        assert best.loc[q, name] == pytest.approx(max(vals), abs=1e-12), name
        assert worst.loc[q, name] == pytest.approx(min(vals), abs=1e-12), name


def test_stable_keeps_run_order_within_ties():
    qrels = {"q": {"a": 1, "b": 0}}
    first_a = evaluate(qrels, {"q": {"a": 1.0, "b": 1.0}}, ["RR"], ties="stable")
    first_b = evaluate(qrels, {"q": {"b": 1.0, "a": 1.0}}, ["RR"], ties="stable")
    assert first_a.mean["RR"] == 1.0
    assert first_b.mean["RR"] == 0.5


def test_reference_reproduces_the_slides_11_point_example():
    """Slides, "AP alternative 2": ranking A (R=6) gives 0.82, ranking B gives 0.6, with the
    textbook rule (recall >= level); trec_eval 10 rounds the level to lround(level * R)."""
    judged = {f"r{i}": 1 for i in range(6)}
    a = ["r0", "n0", "r1", "r2", "r3", "r4", "n1", "n2", "n3", "r5"]
    b = ["n0", "r0", "n1", "n2", "r1", "r2", "r3", "n3", "r4", "r5"]
    assert measure("11pt", a, judged, rule="recall") == pytest.approx((2 + 7 * 5 / 6 + 1.2) / 11)
    assert measure("11pt", b, judged, rule="recall") == pytest.approx(0.6)
    assert measure("11pt", a, judged) == pytest.approx((3 + 7 * 5 / 6 + 0.6) / 11)
    run = {"A": {d: -i for i, d in enumerate(a)}, "B": {d: -i for i, d in enumerate(b)}}
    qrels = {"A": judged, "B": judged}
    res = evaluate(qrels, run, ["11pt_avg(rule=recall)", "11pt_avg"], ties="docno")
    assert res.per_query["11pt_avg(rule=recall)"].round(2).tolist() == [0.82, 0.6]
    assert res.per_query["11pt_avg"].tolist() == pytest.approx([(3.6 + 35 / 6) / 11, 0.6])


def test_docno_order_with_negative_zero_and_tiny_scores():
    """Negative scores, -0.0 == 0.0, 1e-46 rounds to a C float 0.0, huge magnitudes."""
    scores = [-1.5, -1.5, -0.0, 0.0, 1e-46, 2.0, -3e10, 3e10, 1e-30, -1e-30, 7.0, 7.0]
    run = {"q": {f"d{i:02d}": s for i, s in enumerate(scores)}}
    qrels = {"q": {f"d{i:02d}": i % 3 for i in range(len(scores))}}
    ranked = docno_order(run["q"])
    assert ranked == ["d07", "d11", "d10", "d05", "d08", "d04", "d03", "d02", "d09", "d01", "d00",
                      "d06"]
    res = evaluate(qrels, run, ["AP", "nDCG", "RR", "P@6"], ties="docno", gain="linear")
    for name, kind, kw in [("AP", "ap", {}), ("nDCG", "ndcg", {}), ("RR", "rr", {}),
                           ("P@6", "p", {"k": 6})]:
        assert res.per_query.loc["q", name] == pytest.approx(
            measure(kind, ranked, qrels["q"], **kw), abs=1e-12)
