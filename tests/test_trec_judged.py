"""Bpref, Judged@k and judged-only evaluation (trec_eval -J) of rankmetrics.trec.

A plain-Python reference written from trec_eval's m_bpref.c / form_res_rels.c (a negative qrels
label is "in the pool, unjudged"; bpref counts judged non-relevant documents, label in
[0, threshold), and caps at min(R, N)) and from ir_measures' ``judged`` provider (Judged@k =
documents with a qrels entry, any label, in the top k / min(k, retrieved)); checked in docno
order, and over every ordering of tied documents for the tie modes. Then the peers: pytrec_eval
(every shared measure, with and without ``judged_docs_only_flag``), trec_eval's own outputs in
../shared/data, ranx's bpref and ir_measures' Judged.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from _extras import require
from test_trec_oracle import MEASURES, ORDER_ONLY, docno_order, measure, random_case, tie_orders
from test_trec_peers import CUTS, PAIRS, random_collection

from rankmetrics.cli import main
from rankmetrics.trec import evaluate


def ref_bpref(ranked, judged, threshold=1.0, max_depth=None):
    """trec_eval's te_calc_bpref on one ranked list."""
    ranked = list(ranked)[:max_depth] if max_depth else list(ranked)
    R = sum(1 for v in judged.values() if v >= threshold)
    N = sum(1 for v in judged.values() if 0 <= v < threshold)
    nonrel, total = 0, 0.0
    for d in ranked:
        if d not in judged or judged[d] < 0:
            continue
        if judged[d] < threshold:
            nonrel += 1
        elif nonrel > 0:
            total += 1.0 - min(nonrel, R) / min(N, R)
        else:
            total += 1.0
    return total / R if R else 0.0


def ref_judged(ranked, judged, k=None, max_depth=None):
    """ir_measures' Judged@k (the whole list without k); -M cuts the list first."""
    ranked = list(ranked)[:max_depth] if max_depth else list(ranked)
    cut = len(ranked) if k is None else k
    top = ranked[:cut]
    denom = min(cut, len(ranked))
    return sum(d in judged for d in top) / denom if denom else 0.0


NEW = [("Bpref", lambda r, j, o: ref_bpref(r, j, o["threshold"], o["max_depth"])),
       ("Judged@3", lambda r, j, o: ref_judged(r, j, 3, o["max_depth"])),
       ("Judged", lambda r, j, o: ref_judged(r, j, None, o["max_depth"]))]


def reference(qrels, run, opts, order=docno_order, judged_only=False):
    """{qid: {name: value}} of NEW and (judged_only) of the oracle's MEASURES."""
    queries = sorted(qrels) if opts.get("complete") else sorted(q for q in qrels if q in run)
    out = {}
    for q in queries:
        ranked = order(run[q]) if q in run else []
        row = {name: f(ranked, qrels[q], opts) for name, f in NEW}
        if judged_only:  # trec_eval -J: cut at -M, then drop the unjudged documents
            kept = [d for d in ranked[:opts["max_depth"]] if qrels[q].get(d, -1) >= 0]
            for name, kind, kw in MEASURES:
                row[name] = measure(kind, kept, qrels[q], **{"threshold": opts["threshold"],
                                                              **kw})
            row["Bpref"] = ref_bpref(kept, qrels[q], opts["threshold"])
            row["Judged@3"] = ref_judged(kept, qrels[q], 3)
            row["Judged"] = ref_judged(kept, qrels[q])
        out[q] = row
    return out


def _opts(seed):
    rng = random.Random(seed)
    return {"complete": rng.random() < 0.5, "threshold": rng.choice([1.0, 2.0]),
            "max_depth": rng.choice([None, None, 2, 4])}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("judged_only", [False, True])
def test_docno_order_matches_reference(seed, judged_only):
    qrels, run = random_case(seed)
    opts = _opts(seed)
    names = [n for n, _ in NEW] + ([m[0] for m in MEASURES] if judged_only else [])
    res = evaluate(qrels, run, names, ties="docno", judged_only=judged_only, **opts)
    want = reference(qrels, run, opts, judged_only=judged_only)
    assert list(res.per_query.index) == list(want)
    for q, row in want.items():
        for name, value in row.items():
            assert res.per_query.loc[q, name] == pytest.approx(value, abs=1e-12), (q, name)


def _tied_cases(n):
    seed, found = 0, 0
    while found < n:
        qrels, run = random_case(seed, n_queries=3, max_docs=7, n_scores=2)
        seed += 1
        for q in sorted(set(qrels) & set(run)):
            sizes: dict[float, int] = {}
            for s in run[q].values():
                sizes[s] = sizes.get(s, 0) + 1
            n_orders = int(np.prod([np.prod(range(1, c + 1)) for c in sizes.values()]))
            if 1 < n_orders <= 5040:
                found += 1
                yield seed, {q: qrels[q]}, {q: run[q]}
                break


@pytest.mark.parametrize(("seed", "qrels", "run"), list(_tied_cases(16)),
                         ids=lambda x: str(x) if isinstance(x, int) else "")
def test_tie_modes_are_mean_max_min_over_orderings(seed, qrels, run):
    """average = mean over every ordering of tied documents (exact, also for a tie group
    straddling max_depth), optimistic/pessimistic = max/min."""
    rng = random.Random(seed)
    opts = {"threshold": rng.choice([1.0, 2.0]), "max_depth": rng.choice([None, 2, 3, 5])}
    (q,) = run
    per_order = [reference(qrels, run, opts, order=lambda s, o=o: o)[q]
                 for o in tie_orders(run[q])]
    names = [n for n, _ in NEW]
    got = {t: evaluate(qrels, run, names, ties=t, **opts).per_query.loc[q]
           for t in ("average", "optimistic", "pessimistic")}
    for name in names:
        vals = [row[name] for row in per_order]
        assert got["average"][name] == pytest.approx(sum(vals) / len(vals), abs=1e-12), name
        assert got["optimistic"][name] == pytest.approx(max(vals), abs=1e-12), name
        assert got["pessimistic"][name] == pytest.approx(min(vals), abs=1e-12), name


def test_bpref_one_large_tie_group_straddling_the_depth():
    """8 tied documents (3 relevant, 3 judged non-relevant, 1 unjudged, 1 negative) below a
    judged non-relevant one, cut at -M 5: the hypergeometric path against all 40320 orders."""
    judged = {"a": 1, "b": 2, "c": 1, "n1": 0, "n2": 0, "n3": 0, "neg": -1, "top": 0, "z": 3,
              "w": 0}
    run = {"q": {"top": 2.0, **{d: 1.0 for d in ("a", "b", "c", "n1", "n2", "n3", "neg", "u")}}}
    tied = sorted(run["q"])
    tied.remove("top")
    for depth in (3, 5, None):
        vals = [ref_bpref(["top", *p], judged, 1.0, depth) for p in itertools.permutations(tied)]
        got = evaluate({"q": judged}, run, ["Bpref"], max_depth=depth).mean["Bpref"]
        assert got == pytest.approx(sum(vals) / len(vals), abs=1e-12), depth


def test_bpref_worked_example():
    """R = 2 relevant, N = 3 judged non-relevant (cap min(R, N) = 2): a at rank 1 has no
    judged non-relevant above (1); x is unjudged and ignored; c has n1 above: 1 - 1/2."""
    judged = {"a": 1, "c": 1, "n1": 0, "n2": 0, "n3": 0}
    run = {"q": {"a": 4.0, "x": 3.0, "n1": 2.0, "c": 1.0}}
    assert evaluate({"q": judged}, run, ["Bpref"]).mean["Bpref"] == pytest.approx(0.75)
    # tied a and n1: a is above n1 in half of the orders: (1 + 1/2) / 2 for a, c sees n1
    tied = {"q": {"a": 2.0, "n1": 2.0, "c": 1.0}}
    assert evaluate({"q": judged}, tied, ["Bpref"]).mean["Bpref"] == pytest.approx(
        ((1 + 0.5) / 2 + 0.5) / 2)
    # no judged non-relevant document at all: every relevant one scores 1 (trec_eval)
    assert evaluate({"q": {"a": 1, "c": 1}}, run, ["Bpref"]).mean["Bpref"] == 1.0
    # R = 0: empty (0 by default, as trec_eval)
    res = evaluate({"q": {"n1": 0}}, run, ["Bpref"], empty="skip")
    assert np.isnan(res.per_query.loc["q", "Bpref"])


def test_judged_counts_any_qrels_entry_and_divides_by_min_k_retrieved():
    qrels = {"q": {"a": 1, "neg": -1, "z": 0}}
    run = {"q": {"a": 3.0, "u": 2.0, "neg": 1.0}}
    res = evaluate(qrels, run, ["Judged@2", "Judged@10", "Judged"]).per_query.loc["q"]
    assert res.tolist() == pytest.approx([0.5, 2 / 3, 2 / 3])
    assert evaluate(qrels, run, ["Judged@2"], max_depth=1).mean["Judged@2"] == 1.0


def test_judged_only_drops_unjudged_and_negative_documents():
    qrels = {"q": {"a": 1, "neg": -1, "n": 0, "z": 1}}
    run = {"q": {"u": 5.0, "neg": 4.0, "n": 3.0, "a": 2.0}}
    names = ["RR", "P@2", "NumRet", "AP", "Bpref", "Judged"]
    got = evaluate(qrels, run, names, judged_only=True).per_query.loc["q"]
    want = evaluate(qrels, {"q": {"n": 3.0, "a": 2.0}}, names).per_query.loc["q"]
    assert got.tolist() == want.tolist()
    assert got.tolist() == pytest.approx([0.5, 0.5, 2.0, 0.25, 0.0, 1.0])
    # a query whose documents are all unjudged stays evaluated, with nothing retrieved
    res = evaluate({"q": {"a": 1}}, {"q": {"x": 1.0}}, ["NumRet", "P@5"], judged_only=True)
    assert res.per_query.loc["q"].tolist() == [0.0, 0.0]
    assert res.params["judged_only"] is True


def test_judged_only_ties_average_is_the_tie_average_of_the_judged_run():
    qrels, run = random_case(3, n_queries=6)
    names = [m[0] for m in MEASURES if not m[0].startswith(ORDER_ONLY)] + ["Bpref"]
    got = evaluate(qrels, run, names, judged_only=True).per_query
    kept = {q: {d: s for d, s in docs.items() if qrels.get(q, {}).get(d, -1) >= 0}
            for q, docs in run.items()}
    kept = {q: docs for q, docs in kept.items() if docs}
    want = evaluate(qrels, kept, names).per_query
    for q in want.index:
        assert got.loc[q].tolist() == pytest.approx(want.loc[q].tolist(), abs=1e-12)


def test_judged_only_errors():
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    with pytest.raises(ValueError, match="judged_only with max_depth needs ties='docno'"):
        evaluate(qrels, run, ["AP"], judged_only=True, max_depth=5)
    with pytest.raises(TypeError, match="judged_only must be True or False"):
        evaluate(qrels, run, ["AP"], judged_only=1)
    assert evaluate(qrels, run, ["AP"], judged_only=True, max_depth=5, ties="stable"
                    ).mean["AP"] == 1.0


def test_all_trec_includes_bpref_as_trec_eval_does(shared_data):
    root = shared_data / "trec_eval"
    res = evaluate(str(root / "qrels.test"), str(root / "results.test"), ["all_trec"],
                   ties="docno")
    assert round(res.mean["bpref"], 4) == 0.1981  # out.test.a


def test_names_and_errors():
    for name in ("bpref", "Bpref", "BPREF", "Bpref(rel=2)", "Judged@5", "judged"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [name])
    with pytest.raises(ValueError, match="takes no cutoff"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["Bpref@5"])
    with pytest.raises(ValueError, match="does not apply"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["Judged(rel=2)@5"])
    import rankmetrics as rm

    with pytest.raises(ValueError, match="computed only by rankmetrics.trec.evaluate"):
        rm.QueryPlan([1, 0], qid=[0, 0]).evaluate([1.0, 0.5], ["Bpref"])


# --------------------------------------------------------------------------------- peers
def _pytrec(qrels, run, threshold, judged_only):
    pytrec_eval = require("pytrec_eval")
    cut = ",".join(map(str, CUTS))
    params = {"map", "ndcg", "recip_rank", "Rprec", "num_ret", "num_rel", "num_rel_ret",
              "bpref", "11pt_avg", "iprec_at_recall", "success", f"P.{cut}", f"recall.{cut}",
              f"ndcg_cut.{cut}", f"map_cut.{cut}"}
    ev = pytrec_eval.RelevanceEvaluator(qrels, params, relevance_level=int(threshold),
                                        judged_docs_only_flag=judged_only)
    return ev.evaluate(run)


def _agree(qrels, run, threshold, judged_only):
    pairs = [*PAIRS, ("bpref", "Bpref")]
    expected = _pytrec(qrels, run, threshold, judged_only)
    ours = evaluate(qrels, run, [o for _, o in pairs], ties="docno", threshold=threshold,
                    judged_only=judged_only).per_query
    assert sorted(expected) == list(ours.index)
    for qid, row in expected.items():
        for trec_name, our_name in pairs:
            if np.isnan(row[trec_name]):
                # trec_eval's interpolated precision starts from num_rel_ret / num_ret: 0/0
                # when -J leaves a query nothing retrieved; ours is 0 (nothing found)
                assert judged_only and row["num_ret"] == 0, (qid, trec_name)
                assert trec_name in ("iprec_at_recall_0.00", "11pt_avg"), (qid, trec_name)
                assert ours.loc[qid, our_name] == 0.0
                continue
            assert ours.loc[qid, our_name] == pytest.approx(row[trec_name], abs=1e-12), (
                qid, trec_name)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("threshold", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True])
def test_every_measure_agrees_with_pytrec_eval(seed, threshold, judged_only):
    qrels, run = random_collection(seed)
    _agree(qrels, run, threshold, judged_only)


def _read(path, kind):
    out: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        f = line.split()
        if kind == "qrels":
            out.setdefault(f[0], {})[f[2]] = int(f[3])
        else:
            out.setdefault(f[0], {})[f[2]] = float(f[4])
    return out


@pytest.mark.parametrize(("qrels_file", "threshold"), [("qrels.test", 1),
                                                       ("qrels.rel_level", 2)])
@pytest.mark.parametrize("judged_only", [False, True])
def test_trec_eval_test_files_agree_with_pytrec_eval(shared_data, qrels_file, threshold,
                                                     judged_only):
    root = shared_data / "trec_eval"
    _agree(_read(root / qrels_file, "qrels"), _read(root / "results.test", "run"), threshold,
           judged_only)


@pytest.mark.parametrize(("out", "qrels_file", "run_file", "opts"), [
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc", {"complete": True, "max_depth": 100}),
    ("out.test.aql", "qrels.rel_level", "results.test", {"threshold": 2}),
])
def test_bpref_reproduces_trec_eval_outputs(shared_data, out, qrels_file, run_file, opts):
    root = shared_data / "trec_eval"
    want = {f[1]: float(f[2]) for f in (line.split() for line in
                                        (root / out).read_text().splitlines())
            if f and f[0] == "bpref"}
    res = evaluate(str(root / qrels_file), str(root / run_file), ["Bpref"], ties="docno",
                   **opts)
    got = {**{q: v for q, v in res.per_query["Bpref"].items()}, "all": res.mean["Bpref"]}
    assert set(got) == set(want)
    for q, v in want.items():
        assert round(got[q], 4) == v, q


def _tie_free(seed, negatives=True):
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    levels = [-1, 0, 0, 1, 1, 2] if negatives else [0, 0, 1, 1, 2]
    for q in range(30):
        n = int(rng.integers(1, 30))
        docs = [f"D{x:04d}" for x in rng.choice(5000, size=n + 5, replace=False)]
        run[str(q)] = {d: float(s) for d, s in zip(docs[:n], rng.permutation(n) + 0.5,
                                                   strict=True)}
        judged = [d for d in docs if rng.random() < 0.6] or docs[:1]
        qrels[str(q)] = {d: int(rng.choice(levels)) for d in judged}
    return qrels, run


def test_bpref_agrees_with_ranx():
    """ranx counts a negative label as judged non-relevant (trec_eval: unjudged) and breaks
    ties its own way: compared on tie-free runs without negative labels."""
    ranx = require("ranx")
    qrels, run = _tie_free(7, negatives=False)
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "bpref", return_mean=False)
    ours = evaluate(qrels, run, ["Bpref"]).per_query["Bpref"]
    keep = [q for q in sorted(qrels) if any(v >= 1 for v in qrels[q].values())]
    order = sorted(ranx.Qrels(qrels).qrels)  # ranx's query order
    by_q = dict(zip(order, np.asarray(theirs, dtype=float), strict=True))
    for q in keep:
        assert ours.loc[q] == pytest.approx(by_q[q], abs=1e-12), q


def test_judged_and_bpref_agree_with_ir_measures():
    irm = require("ir_measures")
    qrels, run = _tie_free(11)
    measures = [irm.Judged @ 1, irm.Judged @ 5, irm.Judged @ 50, irm.Judged, irm.Bpref,
                irm.Bpref(rel=2)]
    ours = evaluate(qrels, run, ["Judged@1", "Judged@5", "Judged@50", "Judged", "Bpref",
                                 "Bpref(rel=2)"], ties="docno").per_query
    names = dict(zip(measures, ours.columns, strict=True))
    seen = 0
    for m in irm.iter_calc(measures, irm.util.QrelsConverter(qrels).as_namedtuple_iter(),
                           irm.util.RunConverter(run).as_namedtuple_iter()):
        assert ours.loc[m.query_id, names[m.measure]] == pytest.approx(m.value, abs=1e-12)
        seen += 1
    assert seen == len(measures) * len(ours)


def test_cli_judged_only_and_bpref(shared_data, capsys):
    root = shared_data / "trec_eval"
    argv = ["eval", str(root / "qrels.test"), str(root / "results.test"), "-m", "bpref",
            "-m", "P@10", "-J", "--ties", "docno", "--format", "csv", "--digits", "12"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "qid,bpref,P@10"
    res = evaluate(str(root / "qrels.test"), str(root / "results.test"), ["bpref", "P@10"],
                   ties="docno", judged_only=True)
    assert lines[1] == f"all,{res.mean['bpref']:.12f},{res.mean['P@10']:.12f}"


def test_peer_vectors_of_judged_only(shared_data, tmp_path):
    """The two judged-only vectors of ../shared/data/peer_vectors.json (pytrec_eval's and
    ir_measures' own tests), which the core API cannot express."""
    import json

    vectors = {v["id"]: v for v in json.loads((shared_data / "peer_vectors.json").read_text(
        encoding="utf-8"))["vectors"]}
    v = vectors["pytrec_eval.ndcg.q2_judged_docs_only"]
    res = evaluate(v["inputs"]["qrels"], {q: d for q, d in v["inputs"]["run"].items() if d},
                   ["nDCG"], ties="docno", judged_only=True)
    assert res.per_query.loc[v["inputs"]["query"], "nDCG"] == pytest.approx(v["expected"],
                                                                            abs=1e-12)
    v = vectors["ir_measures.pytrec_eval_provider.P(judged_only=True)@4"]
    (tmp_path / "qrels").write_text(v["inputs"]["qrels"])
    (tmp_path / "run").write_text(v["inputs"]["run"])
    res = evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["P@4"], ties="docno",
                   judged_only=True)
    assert res.per_query["P@4"].to_dict() == pytest.approx(v["expected"]["per_query"],
                                                           abs=1e-12)


@pytest.mark.parametrize("judged_only", [False, True])
def test_judged_flags_survive_the_shifted_labels_of_a_level_zero_gain(judged_only):
    """A gain with g(0) != 0 makes evaluate shift every judged label by one before the join:
    judged/unjudged/negative must still be told apart the same way."""
    for seed in range(4):
        qrels, run = random_case(seed)
        plain = evaluate(qrels, run, ["Bpref", "Judged@3", "AP"], ties="docno",
                         judged_only=judged_only).per_query
        mixed = evaluate(qrels, run, ["Bpref", "Judged@3", "AP", "nDCG(gains={0: 1, 1: 4})"],
                         ties="docno", judged_only=judged_only).per_query
        np.testing.assert_allclose(mixed[plain.columns].to_numpy(), plain.to_numpy(), rtol=0,
                                   atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_bpref_same_for_a_run_file_in_any_line_order(tmp_path, seed):
    """Bpref ranks the matched rows without a sort when they are already in rank order (a run
    written query by query, best first; always under ties="docno"), else sorts them: the same
    run written best first and written shuffled, queries interleaved, gives the same values
    under every tie mode, and trec_eval's in docno order (the reference)."""
    qrels, run = random_case(seed, n_queries=6, max_docs=12, n_scores=4)
    lines = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    best_first = sorted(lines, key=lambda x: (x[0], -x[2]))
    shuffled = lines[:]
    random.Random(seed).shuffle(shuffled)
    qp = tmp_path / "qrels"
    qp.write_text("".join(f"{q} 0 {d} {int(v)}\n" for q, docs in qrels.items()
                          for d, v in docs.items()))
    runs = {}
    for name, rows in (("best_first", best_first), ("shuffled", shuffled)):
        p = tmp_path / name
        p.write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s in rows))
        runs[name] = p
    opts = {"max_depth": [None, 3][seed % 2]}
    for ties in ("average", "optimistic", "pessimistic", "stable", "docno"):
        got = {name: evaluate(qp, p, ["Bpref"], ties=ties, **opts).per_query["Bpref"]
               for name, p in runs.items()}
        if ties == "stable":  # file order decides ties: the two files differ there
            continue
        np.testing.assert_allclose(got["shuffled"], got["best_first"], rtol=0, atol=1e-12,
                                   err_msg=ties)
        if ties == "docno":
            want = reference(qrels, run, {"threshold": 1.0, **opts})
            for q, row in want.items():
                assert got["best_first"][q] == pytest.approx(row["Bpref"], abs=1e-12), q
