"""A borrowed name gives the lender's number by default (issue #10).

* ``rankmetrics.trec.evaluate`` and ``rankmetrics eval`` with default options (only
  ``ties="docno"``, trec_eval's tie order) equal ir_measures and pytrec_eval to 1e-12 on
  trec_eval's own test files, binary (``qrels.test``) and graded (``qrels.rel_level``);
* the LightGBM adapter with ``ties="stable"`` equals LightGBM's built-in ``ndcg@k`` and ``map@k``
  (a zero-tree Booster evaluating its ``init_score``) on the LightGBM lambdarank example data and
  on random data with many tied scores;
* the spellings the docs give for LightGBM's numbers outside its adapters equal them through the
  core and the TREC layer, and ranx's lower-case names equal the core's (its linear ``ndcg@k`` as
  ``nDCG(gain=linear)@k``, its ``ndcg_burges@k`` as ``ndcg@k``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from _extras import require

from rankmetrics.cli import main
from rankmetrics.trec import evaluate

#: the measures of the issue (ir_measures names) and pytrec_eval's (name, relevance level)
MEASURES = {
    "nDCG": ("ndcg", 1), "nDCG@10": ("ndcg_cut_10", 1), "nDCG@5": ("ndcg_cut_5", 1),
    "P@5": ("P_5", 1), "P@10": ("P_10", 1), "P(rel=2)@5": ("P_5", 2),
    "P(rel=2)@10": ("P_10", 2), "R@100": ("recall_100", 1), "AP": ("map", 1),
    "AP@100": ("map_cut_100", 1), "RR": ("recip_rank", 1), "Rprec": ("Rprec", 1),
    "Success@10": ("success_10", 1), "SetF(beta=0.5)": ("set_F", 1),
}
QRELS = ("qrels.test", "qrels.rel_level")


def _pytrec(qrels_path, run_path):
    """pytrec_eval per-query values keyed like ours: {measure: {qid: value}}."""
    pytrec_eval = require("pytrec_eval")
    ir = require("ir_measures")
    qrels: dict = {}
    for q in ir.read_trec_qrels(str(qrels_path)):
        qrels.setdefault(q.query_id, {})[q.doc_id] = int(q.relevance)
    run: dict = {}
    for r in ir.read_trec_run(str(run_path)):
        run.setdefault(r.query_id, {})[r.doc_id] = float(r.score)
    out: dict = {}
    for level in (1, 2):
        names = {n for n, (_, lv) in MEASURES.items() if lv == level}
        params = {MEASURES[n][0] for n in names if MEASURES[n][0] != "set_F"}
        res = pytrec_eval.RelevanceEvaluator(qrels, params, relevance_level=level).evaluate(run)
        for n in names:
            trec_name = MEASURES[n][0]
            if trec_name == "set_F":  # set_F.0.5: trec_eval's weight x, (1 + x) P R / (x P + R)
                ev = pytrec_eval.RelevanceEvaluator(qrels, {"set_F.0.5"},
                                                    relevance_level=level).evaluate(run)
                out[n] = {q: v["set_F"] for q, v in ev.items()}
            else:
                out[n] = {q: v[trec_name] for q, v in res.items()}
    return out


def _ir_measures(qrels_path, run_path):
    ir = require("ir_measures")
    parsed = [ir.parse_measure(n) for n in MEASURES]
    qrels = list(ir.read_trec_qrels(str(qrels_path)))
    run = list(ir.read_trec_run(str(run_path)))
    out: dict = {str(m): {} for m in parsed}
    for row in ir.iter_calc(parsed, qrels, run):
        out[str(row.measure)][row.query_id] = row.value
    return out


def _same(ours: dict, theirs: dict, label: str) -> None:
    for name in MEASURES:
        t = theirs[name]
        assert sorted(t) == sorted(ours[name]), (label, name)
        for qid, value in t.items():
            assert ours[name][qid] == pytest.approx(value, abs=1e-12), (label, name, qid)


@pytest.mark.parametrize("qrels_name", QRELS)
def test_trec_evaluate_defaults_equal_ir_measures_and_pytrec_eval(shared_data, qrels_name):
    qrels = shared_data / "trec_eval" / qrels_name
    run = shared_data / "trec_eval" / "results.test"
    res = evaluate(qrels, run, list(MEASURES), ties="docno").per_query
    ours = {n: res[n].to_dict() for n in MEASURES}
    _same(ours, _pytrec(qrels, run), "pytrec_eval")
    _same(ours, _ir_measures(qrels, run), "ir_measures")
    if qrels_name == "qrels.rel_level":  # the example: graded qrels, linear gain
        assert res["nDCG@10"].mean() == pytest.approx(0.2656, abs=5e-5)


@pytest.mark.parametrize("qrels_name", QRELS)
def test_cli_defaults_equal_pytrec_eval(shared_data, qrels_name, capsys):
    qrels = shared_data / "trec_eval" / qrels_name
    run = shared_data / "trec_eval" / "results.test"
    args = ["eval", str(qrels), str(run), "--ties", "docno", "--format", "json", "-q"]
    for name in MEASURES:
        args += ["-m", name]
    assert main(args) == 0
    per_query = json.loads(capsys.readouterr().out)["per_query"]
    ours = {n: {q: row[n] for q, row in per_query.items()} for n in MEASURES}
    _same(ours, _pytrec(qrels, run), "pytrec_eval via the CLI")


def test_trec_eval_names_in_the_cli_equal_the_ir_measures_names(shared_data, capsys):
    qrels = shared_data / "trec_eval" / "qrels.rel_level"
    run = shared_data / "trec_eval" / "results.test"
    pairs = {"ndcg_cut.10": "nDCG@10", "P.5": "P@5", "map_cut.100": "AP@100",
             "recip_rank": "RR", "set_F.0.5": "SetF(beta=0.5)", "success.10": "Success@10"}
    res = evaluate(qrels, run, list(pairs) + list(pairs.values()), ties="docno").per_query
    for trec_name, irm_name in pairs.items():
        np.testing.assert_array_equal(res[trec_name].to_numpy(), res[irm_name].to_numpy())


# ------------------------------------------------------------------------------- LightGBM
def _lightgbm_case(shared_data):
    sk = require("sklearn.datasets")
    base = shared_data / "lightgbm_lambdarank"
    X, y = sk.load_svmlight_file(str(base / "rank.test"))
    group = np.loadtxt(base / "rank.test.query", dtype=np.int64)
    # a coarse linear score: many ties, as in early boosting rounds
    w = np.random.default_rng(0).normal(size=X.shape[1])
    scores = np.round(np.asarray(X @ w).ravel(), 0)
    return y.astype(np.float64), scores, group


def _random_case(seed: int):
    rng = np.random.default_rng(seed)
    group = rng.integers(1, 30, 60)
    y = rng.choice([0, 0, 0, 1, 1, 2, 3], size=int(group.sum())).astype(np.float64)
    y[: group[0]] = 0  # a query without relevant documents (LightGBM scores it 1)
    scores = rng.integers(0, 4, y.size).astype(np.float64)  # heavy ties
    return y, scores, group


@pytest.mark.parametrize("case", ["lambdarank", "random0", "random1"])
def test_lightgbm_adapter_equals_lightgbm_builtin_ndcg_and_map(shared_data, case):
    lgb = require("lightgbm")
    from rankmetrics.lightgbm import builtin_map, builtin_ndcg, make_eval_metric, make_feval

    y, scores, group = (_lightgbm_case(shared_data) if case == "lambdarank"
                        else _random_case(int(case[-1])))
    ks = (1, 3, 5, 10)
    want = {**builtin_ndcg(y, scores, group, k=ks), **builtin_map(y, scores, group, k=ks)}
    names = [f"ndcg@{k}" for k in ks] + [f"map@{k}" for k in ks]
    ds = lgb.Dataset(np.zeros((y.size, 1)), label=y, group=group,
                     params={"verbose": -1}).construct()
    got = {n: v for n, v, _ in make_feval(names, ties="stable")(scores, ds)}
    also = {n: v for n, v, _ in make_eval_metric(["ndcg", "map"], k=ks, ties="stable")(
        y, scores, None, group)}
    for name in names:
        assert got[name] == pytest.approx(want[name], abs=1e-12), name
        assert also[name] == pytest.approx(want[name], abs=1e-12), name
    # per query too, on the small random case
    if case == "random0":
        pq = make_feval(names, ties="stable").per_query(scores, ds)
        want_pq = {**builtin_ndcg(y, scores, group, k=ks, per_query=True),
                   **builtin_map(y, scores, group, k=ks, per_query=True)}
        for name in names:
            np.testing.assert_allclose(pq[name], want_pq[name], rtol=0, atol=1e-12)


def test_make_feval_map_has_no_hidden_cutoff():
    require("lightgbm")
    from rankmetrics import average_precision
    from rankmetrics.lightgbm import make_eval_metric

    y, scores, group = _random_case(2)
    q = np.repeat(np.arange(group.size), group)
    (name, value, _), = make_eval_metric("map")(y, scores, None, group)
    assert name == "map"
    # whole list: min(k, R) with k = the list length is R
    assert value == pytest.approx(average_precision(y, scores, q, empty=1.0).mean(), abs=1e-12)


#: the spellings docs/guide/measures.md and the README give for LightGBM's numbers outside its
#: adapters (the gain is spelled out: the TREC layer's default gain is linear)
LIGHTGBM_SPELLINGS = {"ndcg@{k}": "nDCG(gain=exponential, empty=1)@{k}",
                      "map@{k}": "AP(denominator=min_k_relevant, empty=1)@{k}"}


def _trec_dicts(y, scores, group):
    q = np.repeat(np.arange(group.size), group)
    qrels: dict = {}
    run: dict = {}
    for i, (a, label, score) in enumerate(zip(q, y, scores, strict=True)):
        qrels.setdefault(f"q{a:03d}", {})[f"d{i}"] = int(label)  # sorted as numbers
        run.setdefault(f"q{a:03d}", {})[f"d{i}"] = float(score)
    return q, qrels, run


def test_documented_lightgbm_spellings_give_lightgbm_numbers_everywhere():
    """``nDCG(gain=exponential, empty=1)@k`` and ``AP(denominator=min_k_relevant, empty=1)@k``
    are LightGBM's ``ndcg@k`` and ``map@k`` through the core and the TREC layer (whose own
    gain is linear: ``nDCG(empty=1)@k`` is not LightGBM's there)."""
    require("lightgbm")
    import rankmetrics as rm
    from rankmetrics.lightgbm import builtin_map, builtin_ndcg

    y, scores, group = _random_case(3)
    scores = scores + np.random.default_rng(3).permutation(y.size) * 1e-3  # no ties
    q, qrels, run = _trec_dicts(y, scores, group)
    ks = (1, 3, 10)
    want = {**builtin_ndcg(y, scores, group, k=ks), **builtin_map(y, scores, group, k=ks)}
    names = {lgb.format(k=k): ours.format(k=k)
             for lgb, ours in LIGHTGBM_SPELLINGS.items() for k in ks}
    core = rm.QueryPlan(y, q).evaluate(scores, list(names.values()))
    trec_mean = evaluate(qrels, run, list(names.values())).mean
    for lgb_name, ours in names.items():
        assert core[ours].mean() == pytest.approx(want[lgb_name], abs=1e-12), ours
        assert trec_mean[ours] == pytest.approx(want[lgb_name], abs=1e-12), ours
    linear = evaluate(qrels, run, ["nDCG(empty=1)@3"]).mean["nDCG(empty=1)@3"]
    assert abs(linear - want["ndcg@3"]) > 1e-3  # the TREC layer's gain is linear


def test_ranx_spellings():
    """ranx's ``map@k``, ``mrr@k``, ``precision@k``, ``recall@k`` and ``f1@k`` are the core's
    names with the core's defaults; ranx's ``ndcg@k`` is linear (``nDCG(gain=linear)@k``) and
    its ``ndcg_burges@k`` is the core's ``ndcg@k`` (documented next to ``nDCG``). ranx scores
    only queries with a relevant document; no ties here (ranx orders them its own way)."""
    ranx = require("ranx")
    import rankmetrics as rm

    y, scores, group = _random_case(4)
    scores = scores + np.random.default_rng(4).permutation(y.size) * 1e-3
    q, qrels, run = _trec_dicts(y, scores, group)
    positive = {qid: {d: v for d, v in docs.items() if v > 0} for qid, docs in qrels.items()}
    positive = {qid: docs for qid, docs in sorted(positive.items()) if docs}
    pairs = {f"{n}@{k}": f"{n}@{k}" for n in ("map", "mrr", "precision", "recall", "f1")
             for k in (1, 3, 10)}
    pairs.update({f"ndcg@{k}": f"nDCG(gain=linear)@{k}" for k in (1, 3, 10)})
    pairs.update({f"ndcg_burges@{k}": f"ndcg@{k}" for k in (1, 3, 10)})
    theirs = ranx.evaluate(ranx.Qrels(positive), ranx.Run({k: run[k] for k in positive}),
                           list(pairs), return_mean=False)
    core = rm.QueryPlan(y, q).evaluate(scores, list(set(pairs.values())))
    rows = [int(qid[1:]) for qid in positive]  # ranx's order: sorted query ids
    for ranx_name, ours in pairs.items():
        np.testing.assert_allclose(core[ours][rows], np.asarray(theirs[ranx_name]),
                                   rtol=0, atol=1e-12, err_msg=f"{ranx_name} vs {ours}")
