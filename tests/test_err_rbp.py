"""ERR and RBP through every entry point: brute force over tied orderings, the two kernels, torch,
the TREC layer (with RBP's residual) and the peers (gdeval via ir_measures, trectools, ranx).

tests/test_err.py proves the numpy ERR kernel by brute force; here the same numbers must come
from the compiled kernel, the public functions, QueryPlan.evaluate, torch and trec.evaluate.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import pkgutil
import subprocess
import sys

import hypothesis.strategies as st
import numpy as np
import pytest
from _extras import require
from hypothesis import HealthCheck, given, settings
from oracle import orderings, stable_ordering
from test_err import _brute as _err_brute

import rankmetrics as rm
from rankmetrics import QueryPlan
from rankmetrics.measures.grammar import parse_measure

TIES = ("average", "optimistic", "pessimistic", "stable")
EPS = np.finfo(np.float64).eps
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@contextlib.contextmanager
def _backend(name):
    before = rm.get_backend()
    rm.set_backend(name)
    try:
        yield
    finally:
        rm.set_backend(before)


def _rbp_plain(gains, p, k):
    n = len(gains) if k is None else min(k, len(gains))
    return sum((1 - p) * p**i * g for i, g in enumerate(gains[:n]))


def _rbp_brute(labels, scores, p, k, threshold=None):
    """(mean, max, min, stable) of plain RBP over every ordering consistent with the scores."""
    lab = np.asarray(labels, dtype=float)
    g = (lab >= threshold).astype(float) if threshold is not None else lab
    vals = [_rbp_plain(list(g[o]), p, k) for o in orderings(scores)]
    return (float(np.mean(vals)), max(vals), min(vals),
            _rbp_plain(list(g[stable_ordering(scores)]), p, k))


# ------------------------------------------------------------------------ brute force
@SETTINGS
@given(data=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=1, max_size=7),
       k=st.one_of(st.none(), st.integers(1, 8)),
       backend=st.sampled_from(["numpy", "numba"]))
def test_err_public_function_equals_brute_force_on_both_kernels(data, k, backend):
    require("numba")
    labels = [a for a, _ in data]
    scores = [float(b) for _, b in data]
    want = _err_brute(labels, scores, k, 4)
    with _backend(backend):
        for ties, w in zip(TIES, want, strict=True):
            got = rm.err(labels, scores, k=k, ties=ties)[0]
            assert got == pytest.approx(w, abs=1e-12), ties


@SETTINGS
@given(data=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=7),
       k=st.one_of(st.none(), st.integers(1, 8)),
       p=st.sampled_from([0.5, 0.8, 0.95]),
       threshold=st.sampled_from([None, 1, 2]),
       backend=st.sampled_from(["numpy", "numba"]))
def test_rbp_equals_brute_force_every_tie_mode(data, k, p, threshold, backend):
    require("numba")
    labels = [a for a, _ in data]
    scores = [float(b) for _, b in data]
    want = _rbp_brute(labels, scores, p, k, threshold)
    with _backend(backend):
        for ties, w in zip(TIES, want, strict=True):
            got = rm.rbp(labels, scores, p=p, k=k, threshold=threshold, ties=ties)[0]
            assert got == pytest.approx(w, abs=1e-12), ties


def test_rbp_worked_example():
    # relevant at ranks 1, 3, 4 of five, p = 0.8: 0.2 (1 + 0.64 + 0.512) = 0.4304
    assert rm.rbp([1, 0, 1, 1, 0], [5, 4, 3, 2, 1])[0] == pytest.approx(0.4304, abs=1e-15)
    # graded labels are used as they are (trectools, ranx): label 2 counts twice
    assert rm.rbp([2, 0], [2, 1], p=0.5)[0] == pytest.approx(1.0, abs=1e-15)
    assert rm.rbp([2, 0], [2, 1], p=0.5, threshold=1)[0] == pytest.approx(0.5, abs=1e-15)


def test_err_large_grades_do_not_overflow():
    # 2**1500 overflows float64; the stop probability 2**(g - g_max) - 2**-g_max does not
    got = rm.err([1500, 2000, 0], [3.0, 2.0, 1.0], max_grade=2000)[0]
    assert got == pytest.approx(2.0**-500 + (1 - 2.0**-500) / 2, abs=1e-15)


def test_err_worked_example_by_hand():
    # grades 4, 0, 2 (gmax 4): R = 15/16, 0, 3/16: 15/16 + (1/16)(1)(3/16)/3
    want = 15 / 16 + (1 / 16) * (3 / 16) / 3
    assert rm.err([4, 0, 2], [3, 2, 1])[0] == pytest.approx(want, abs=1e-15)
    assert rm.err([4, 0, 2], [3, 2, 1], k=1)[0] == pytest.approx(15 / 16, abs=1e-15)


# ------------------------------------------------------------------ numpy vs numba kernel
def _workload(seed, shape):
    rng = np.random.default_rng(seed)
    if shape == "many_small":
        sizes = rng.integers(1, 9, 40)
    elif shape == "one_long":
        sizes = np.array([300])
    else:  # mixed lengths, long tie groups
        sizes = rng.integers(1, 120, 12)
    qid = np.repeat(np.arange(sizes.size), sizes)
    labels = rng.integers(0, 5, qid.size).astype(float)
    scores = rng.integers(0, max(2, int(sizes.max()) // 6), qid.size).astype(float)
    perm = rng.permutation(qid.size)  # interleaved queries
    return labels[perm], scores[perm], qid[perm]


@pytest.mark.parametrize("shape", ["many_small", "one_long", "mixed"])
@pytest.mark.parametrize("seed", range(3))
def test_err_and_rbp_numba_equal_numpy(shape, seed):
    """Bit for bit, tie-averaged ERR too: the tie average is symmetric in a group's members but
    its products and symmetric-mean recurrence round by their order, so every kernel visits
    them by ascending continue probability (row order here against np.argsort's order in the
    reference gave differences of 4-8 ulp)."""
    require("numba")
    y, s, q = _workload(seed, shape)
    names = ["ERR", "ERR@1", "ERR@5", "ERR(max_grade=6)@20", "RBP", "RBP(p=0.5)@3",
             "RBP(rel=2, p=0.9)@10"]
    for ties in TIES:
        got = {}
        for backend in ("numpy", "numba"):
            with _backend(backend):
                got[backend] = QueryPlan(y, q).evaluate(s, names, ties=ties)
        for name in names:
            a, b = got["numpy"][name], got["numba"][name]
            if name.startswith("RBP"):  # discounted sums: same terms, same order
                np.testing.assert_allclose(b, a, rtol=4 * EPS, atol=1e-300, err_msg=name)
            else:
                np.testing.assert_array_equal(b, a, err_msg=f"{ties} {name}")


def test_err_evaluate_equals_method_and_function():
    y, s, q = _workload(7, "many_small")
    plan = QueryPlan(y, q)
    out = plan.evaluate(s, ["ERR@10", "err", "ERR(max_grade=5, ties=pessimistic)@3",
                            "RBP(p=0.9)@5", "RBP(rel=3)"])
    np.testing.assert_array_equal(out["ERR@10"], plan.err(s, k=10))
    np.testing.assert_array_equal(out["ERR@10"], rm.err(y, s, q, k=10))
    np.testing.assert_array_equal(out["err"], plan.err(s))
    np.testing.assert_array_equal(out["ERR(max_grade=5, ties=pessimistic)@3"],
                                  plan.err(s, k=3, max_grade=5, ties="pessimistic"))
    np.testing.assert_array_equal(out["RBP(p=0.9)@5"], rm.rbp(y, s, q, p=0.9, k=5))
    np.testing.assert_array_equal(out["RBP(rel=3)"], plan.rbp(s, threshold=3))
    assert rm.err_score(y, s, q, k=10) == pytest.approx(out["ERR@10"].mean())
    assert rm.rbp_score(y, s, q) == pytest.approx(plan.rbp(s).mean())


def test_grammar_and_errors():
    (m,) = parse_measure("ERR(max_grade=3)@5")
    assert (m.kind, m.k, m.max_grade) == ("err", 5, 3.0)
    assert parse_measure("err@10")[0].kind == "err"
    (m,) = parse_measure("RBP(p=0.95, rel=2)@10")
    assert (m.kind, m.k, m.p, m.rel) == ("rbp", 10, 0.95, 2.0)
    assert parse_measure("RBP_residual(p=0.5)@20")[0].kind == "rbp_residual"
    with pytest.raises(ValueError, match="max_grade of 'ERR.max_grade=0.' must be > 0"):
        parse_measure("ERR(max_grade=0)")
    for bad in ("RBP(p=1)", "RBP(p=0)", "RBP(p=-0.5)"):
        with pytest.raises(ValueError, match=r"p \(persistence\) of .* must be in \(0, 1\)"):
            parse_measure(bad)
    with pytest.raises(ValueError, match="'rel' does not apply to 'ERR"):
        parse_measure("ERR(rel=2)")
    with pytest.raises(ValueError, match="exceeds max_grade=4"):
        rm.err([5, 0], [1.0, 0.0])
    with pytest.raises(ValueError, match="exceeds max_grade=2"):
        QueryPlan([3, 0]).evaluate([1.0, 0.0], "ERR(max_grade=2)")
    with pytest.raises(ValueError, match=r"p \(RBP persistence\) must be in \(0, 1\)"):
        rm.rbp([1, 0], [1.0, 0.0], p=1.0)
    with pytest.raises(ValueError, match="computed only by rankmetrics.trec"):
        QueryPlan([1, 0]).evaluate([1.0, 0.0], "RBP_residual")
    # no relevant document: ERR and RBP are 0, and empty= decides as for the other measures
    assert rm.err([0, 0], [1.0, 0.0])[0] == 0.0
    assert np.isnan(rm.err([0, 0], [1.0, 0.0], empty="skip")[0])
    with pytest.raises(ValueError, match="RBP is undefined"):
        rm.rbp([0, 0], [1.0, 0.0], empty="error")



def test_trec_err_grade_error_names_the_qrels_label_behind_a_gains_table() -> None:
    # the message named only the mapped grade (9), which appears nowhere in the qrels
    pd = require("pandas")
    from rankmetrics import trec

    qrels = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "c"], "label": [3, 2, 1]})
    run = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [2.0, 1.0]})
    with pytest.raises(ValueError, match=r"grade 9 > max_grade=4 \(gains= makes label 2 "
                                         r"grade 9\)"):
        trec.evaluate(qrels, run, ["ERR(gains={2: 9})@5"])
    with pytest.raises(ValueError, match=r"grade 3 > max_grade=2 \(its stop"):
        trec.evaluate(qrels, run, ["ERR(max_grade=2)@5"])

# ------------------------------------------------------------------------------- torch
@pytest.mark.parametrize("seed", range(3))
def test_torch_err_rbp_equal_the_core_in_float64(seed):
    torch = require("torch")
    from rankmetrics.torch import err, evaluate, rbp

    y, s, q = _workload(seed, "mixed")
    names = ["ERR", "ERR@3", "ERR(max_grade=5)@10", "RBP", "RBP(p=0.6)@4", "RBP(rel=3)@7"]
    for ties in TIES:
        want = QueryPlan(y, q).evaluate(s, names, ties=ties)
        got = evaluate(torch.tensor(s), torch.tensor(y), torch.tensor(q), metrics=names,
                       ties=ties)
        for name in names:
            if name.startswith("ERR"):  # the same operations in the same order: bit for bit
                np.testing.assert_array_equal(got[name].numpy(), want[name],
                                              err_msg=f"{ties} {name}")
            else:
                np.testing.assert_allclose(got[name].numpy(), want[name], rtol=0, atol=1e-12,
                                           err_msg=f"{ties} {name}")
        np.testing.assert_array_equal(
            err(torch.tensor(s), torch.tensor(y), torch.tensor(q), k=3, ties=ties).numpy(),
            want["ERR@3"])
        np.testing.assert_allclose(
            rbp(torch.tensor(s), torch.tensor(y), torch.tensor(q), p=0.6, k=4, ties=ties)
            .numpy(), want["RBP(p=0.6)@4"], rtol=0, atol=1e-12)


def test_torch_err_padded_with_mask_and_a_tie_group_past_the_cutoff():
    torch = require("torch")
    from rankmetrics.torch import err

    preds = torch.tensor([[1.0, 1.0, 1.0, 1.0, 0.0], [3.0, 2.0, 2.0, 0.0, 0.0]],
                         dtype=torch.float64)
    target = torch.tensor([[4, 0, 2, 1, 3], [1, 3, 0, 4, 0]])
    mask = torch.tensor([[True] * 5, [True, True, True, True, False]])
    for k in (1, 2, 3, None):
        got = err(preds, target, mask=mask, k=k).numpy()
        want = [_err_brute([4, 0, 2, 1, 3], [1, 1, 1, 1, 0], k, 4)[0],
                _err_brute([1, 3, 0, 4], [3, 2, 2, 0], k, 4)[0]]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="exceeds max_grade=4"):
        err(preds, target + 1)


# --------------------------------------------------------------- TREC layer, residual
def _collection(seed, n_queries=5, numeric=False, distinct=False):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"{q + 1}" if numeric else f"q{q}"
        docs = [f"{i:03d}" if numeric else f"d{i:03d}" for i in rng.permutation(40)[:25]]
        qrels[qid] = {d: int(rng.integers(-1, 5)) for d in docs[:15]}
        if distinct:
            scores = rng.permutation(20).astype(float) + 100 * q
        else:  # few distinct scores: ties; per-query offsets keep queries apart
            scores = rng.integers(0, 4, 20).astype(float) + 10 * q
        run[qid] = {d: float(v) for d, v in zip(docs[5:], scores, strict=True)}
    return qrels, run


def _residual_plain(judged, p, k):
    n = len(judged) if k is None else min(k, len(judged))
    return sum((1 - p) * p**i for i in range(n) if not judged[i]) + p**n


@pytest.mark.parametrize("k", [None, 1, 3, 6])
def test_rbp_residual_equals_brute_force(k):
    from rankmetrics.trec import evaluate

    qrels = {"q": {"a": 1, "b": 0, "c": -1, "x": 2}}  # x is not retrieved
    run = {"q": {"a": 2.0, "u1": 2.0, "b": 1.0, "u2": 1.0, "c": 1.0, "u3": 0.5}}
    docs = list(run["q"])
    scores = [run["q"][d] for d in docs]
    judged = np.array([d in qrels["q"] for d in docs])
    p = 0.6
    name = "RBP_residual(p=0.6)" + ("" if k is None else f"@{k}")
    vals = [_residual_plain(list(judged[o]), p, k) for o in orderings(scores)]
    want = {"average": np.mean(vals), "optimistic": max(vals), "pessimistic": min(vals)}
    for ties, w in want.items():
        got = evaluate(qrels, run, [name], ties=ties).per_query[name].iloc[0]
        assert got == pytest.approx(w, abs=1e-12), ties
    # docno: score descending, then document id descending (trec_eval, gdeval)
    order = sorted(range(len(docs)), key=lambda i: (-scores[i], [-ord(c) for c in docs[i]]))
    got = evaluate(qrels, run, [name], ties="docno").per_query[name].iloc[0]
    assert got == pytest.approx(_residual_plain(list(judged[order]), p, k), abs=1e-12)


def test_rbp_residual_equals_trectools_on_full_depth():
    """trectools' residual adds p**depth (the evaluation depth), ours p**min(n, k): equal when
    every list is at least as long as the cutoff."""
    trectools = require("trectools")
    import pandas as pd

    from rankmetrics.trec import evaluate

    qrels, run = _collection(3, distinct=True)
    qrels_df = pd.DataFrame([(q, 0, d, v) for q, j in qrels.items() for d, v in j.items()],
                            columns=["query", "q0", "docid", "rel"])
    run_df = pd.DataFrame([(q, "Q0", d, 0, v, "t") for q, j in run.items() for d, v in j.items()],
                          columns=["query", "q0", "docid", "rank", "score", "system"])
    run_df = run_df.sort_values(["query", "score"], ascending=[True, False])
    tq, tr = trectools.TrecQrel(), trectools.TrecRun()
    tq.qrels_data, tr.run_data = qrels_df, run_df
    for depth, p in ((10, 0.8), (20, 0.5)):
        _, res = trectools.TrecEval(tr, tq).get_rbp(p=p, depth=depth, per_query=True,
                                                    binary_topical_relevance=True)
        ours = evaluate(qrels, run, [f"RBP_residual(p={p})@{depth}"],
                        ties="docno").per_query.iloc[:, 0]
        want = res.iloc[:, 0]
        for qid, v in want.items():
            assert ours[str(qid)] == pytest.approx(v, abs=1e-12), (qid, depth)


# ----------------------------------------------------------------------------- peers
def _gdeval_script(tmp_path):
    """ir_measures' gdeval.pl printing 17 significant digits instead of 5 decimals."""
    text = pkgutil.get_data("ir_measures", "bin/gdeval.pl").decode()
    assert text.count("%.5f,%.5f") == 1
    path = tmp_path / "gdeval17.pl"
    path.write_text(text.replace("%.5f,%.5f", "%.17g,%.17g"))
    return path


def _gdeval(script, qrels_path, run_path, k):
    out = subprocess.run(["perl", str(script), str(qrels_path), str(run_path), str(k)],
                         check=True, capture_output=True, text=True).stdout
    return {line.split(",")[1]: float(line.split(",")[3]) for line in out.splitlines()[1:]
            if line}


def _write(tmp_path, qrels, run):
    qp, rp = tmp_path / "qrels", tmp_path / "run"
    qp.write_text("".join(f"{q} 0 {d} {v}\n" for q, j in qrels.items() for d, v in j.items()))
    rp.write_text("".join(f"{q} Q0 {d} 0 {v!r} t\n" for q, j in run.items()
                          for d, v in j.items()))
    return qp, rp


@pytest.mark.parametrize("source", ["qrels.test", "qrels.rel_level", "random0", "random1"])
def test_err_docno_equals_gdeval_to_1e12(tmp_path, shared_data, source):
    """gdeval (ir_measures' ERR@k): negative labels count 0, grade 4 is the maximum, ties by
    docno descending. A copy printing 17 digits gives the 1e-12 check."""
    import shutil

    from rankmetrics.trec import evaluate

    if shutil.which("perl") is None:
        pytest.fail("perl is needed for gdeval (it is on the CI image)")
    script = _gdeval_script(tmp_path)
    if source.startswith("random"):
        qp, rp = _write(tmp_path, *_collection(int(source[-1]), numeric=True))
    else:
        qp, rp = shared_data / "trec_eval" / source, shared_data / "trec_eval" / "results.test"
    for k in (1, 5, 20, 1000):
        want = _gdeval(script, qp, rp, k)
        got = evaluate(qp, rp, [f"ERR@{k}"], ties="docno").per_query[f"ERR@{k}"]
        assert want, "gdeval printed no topic"
        for qid, v in want.items():
            assert got[qid] == pytest.approx(v, abs=1e-12), (qid, k)
        # topics without a positive judgement: gdeval prints none, ir_measures fills 0
        assert (got.drop(list(want)) == 0.0).all()


def test_err_and_rbp_through_ir_measures_equal_its_providers(shared_data):
    """ERR@k: gdeval prints 5 decimals (tolerance 5e-6); RBP: trectools (one measure per call:
    its provider binds the cutoff and p of the last measure of a call to every RBP measure)."""
    irm = require("ir_measures")
    require("trectools")
    from rankmetrics.ir_measures import provider

    root = shared_data / "trec_eval"
    run = list(irm.read_trec_run(str(root / "results.test")))
    for qf in ("qrels.test", "qrels.rel_level"):
        qrels = list(irm.read_trec_qrels(str(root / qf)))
        errs = [irm.parse_measure(x) for x in ("ERR@5", "ERR@20")]
        ref = irm.providers.registry["gdeval"].iter_calc(errs, qrels, run)
        got = {(m.query_id, str(m.measure)): m.value
               for m in provider(ties="docno").iter_calc(errs, qrels, run)}
        for m in ref:
            assert got[(m.query_id, str(m.measure))] == pytest.approx(m.value, abs=5e-6)
        for text in ("RBP", "RBP(p=0.5)", "RBP@10", "RBP(p=0.95)@20"):
            measure = irm.parse_measure(text)
            want = {m.query_id: m.value for m in
                    irm.providers.registry["trectools"].iter_calc([measure], qrels, run)}
            # trectools averages the discounts of tied scores, as our default does
            mine = {m.query_id: m.value for m in provider().iter_calc([measure], qrels, run)}
            for qid, v in want.items():
                assert mine[qid] == pytest.approx(v, abs=1e-12), (qf, text, qid)


@pytest.mark.parametrize("seed", range(3))
def test_rbp_average_equals_trectools_tie_averaged(seed):
    """trectools (ir_measures' RBP provider) averages the discounts of tied scores: our default
    ties="average" gives its number on the whole list (at a cutoff it truncates the tie group
    holding the cutoff, so only the whole list is compared here)."""
    irm = require("ir_measures")
    require("trectools")
    from rankmetrics.trec import evaluate

    qrels, run = _collection(seed)
    for text in ("RBP", "RBP(p=0.5)"):
        measure = irm.parse_measure(text)
        want = {m.query_id: m.value for m in
                irm.providers.registry["trectools"].iter_calc([measure], qrels, run)}
        got = evaluate(qrels, run, [text], ties="average").per_query[text]
        for qid, v in want.items():
            assert got[qid] == pytest.approx(v, abs=1e-12), (text, qid)


def test_rbp_equals_ranx(monkeypatch):
    """ranx's rbp: the label itself for labels >= rel_lvl (graded; ``-l2`` drops labels below
    2, our ``gains={1: 0}``). ranx's own Python source of the measure runs (``py_func``) on
    arrays in ranx's layout (rows [document code, label or score], the run by score
    descending): its numba build takes about a minute on a fresh cache. No ties here (ranx
    orders tied scores its own way)."""
    require("ranx")
    import ranx.metrics.rank_biased_precision  # noqa: F401

    from rankmetrics.trec import evaluate

    module = sys.modules["ranx.metrics.rank_biased_precision"]
    monkeypatch.setattr(module, "clean_qrels", module.clean_qrels.py_func)
    for seed in range(2):
        qrels, run = _collection(seed, distinct=True)
        for p, lvl, name in ((0.8, 1, "RBP"), (0.5, 1, "RBP(p=0.5)"),
                             (0.8, 2, "RBP(gains={1: 0})")):
            got = evaluate(qrels, run, [name], ties="docno").per_query[name]
            for qid, judged in qrels.items():
                code = {d: float(i) for i, d in enumerate(sorted(set(judged) | set(run[qid])))}
                tq = np.array([[code[d], v] for d, v in judged.items() if v > 0])
                ranked = sorted(run[qid].items(), key=lambda kv: -kv[1])
                tr = np.array([[code[d], v] for d, v in ranked])
                want = module._rank_biased_precision.py_func(tq, tr, p, lvl)
                assert got[qid] == pytest.approx(want, abs=1e-12), (name, qid)


def test_trec_err_rbp_with_a_gain_weighing_level_zero(tmp_path):
    """nDCG(gains={0: 1, ...}) makes the TREC layer shift labels by one (unjudged kept at 0):
    ERR and graded RBP must not move."""
    from rankmetrics.trec import evaluate

    qrels, run = _collection(4)
    alone = evaluate(qrels, run, ["ERR@10", "RBP", "RBP(rel=2)@5", "RBP_residual"]).per_query
    mixed = evaluate(qrels, run, ["nDCG(gains={0: 1, 1: 2})@10", "ERR@10", "RBP",
                                  "RBP(rel=2)@5", "RBP_residual"]).per_query
    for name in alone:
        np.testing.assert_allclose(mixed[name], alone[name], rtol=0, atol=1e-15)


def test_cli_computes_err_rbp_and_the_residual(tmp_path):
    from rankmetrics.cli import main
    from rankmetrics.trec import evaluate

    qrels, run = _collection(5, numeric=True)
    qp, rp = _write(tmp_path, qrels, run)
    names = ["ERR@20", "RBP(p=0.9)", "RBP_residual(p=0.9)@10"]
    args = ["eval", str(qp), str(rp), "--format", "json", "-q"]
    for n in names:
        args += ["-m", n]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(args) == 0
    per_query = json.loads(buf.getvalue())["per_query"]
    want = evaluate(qp, rp, names).per_query
    for name in names:
        for qid, row in per_query.items():
            assert row[name] == pytest.approx(want.loc[qid, name], abs=1e-12)
    assert all(0.0 <= v <= 1.0 for v in want["RBP_residual(p=0.9)@10"])
    assert math.isfinite(want["ERR@20"].mean())
    assert sys.modules["rankmetrics"] is rm


@SETTINGS
@given(data=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 4), st.integers(0, 3)),
                     min_size=1, max_size=40),
       ks=st.lists(st.one_of(st.none(), st.integers(1, 12)), min_size=1, max_size=3,
                   unique=True),
       ties=st.sampled_from(TIES))
def test_err_kernels_agree_property(data, ks, ties):
    """numpy vs numba ERR on random queries (interleaved ids, ties, several cutoffs at once):
    bit for bit in every tie mode (see test_err_and_rbp_numba_equal_numpy)."""
    require("numba")
    from rankmetrics.core.err import err_at_cutoffs, stop_probabilities
    from rankmetrics.core.kernel import padded

    y = np.array([a for a, _, _ in data], dtype=float)
    s = np.array([b for _, b, _ in data], dtype=float)
    q = np.array([c for _, _, c in data])
    depth = None if None in ks else max(ks)
    got = {}
    for backend in ("numpy", "numba"):
        with _backend(backend):
            plan = QueryPlan(y, q)
            stop = padded(stop_probabilities(plan.labels, 5.0), 0.0)
            got[backend] = err_at_cutoffs(plan.rank(s, depth=depth, ties=ties),
                                          plan.n_queries, stop, ties, ks)
    np.testing.assert_array_equal(got["numba"], got["numpy"])


def test_xgboost_and_lightgbm_adapters_equal_the_core():
    xgb = require("xgboost")
    require("lightgbm")
    from rankmetrics.lightgbm import make_eval_metric
    from rankmetrics.xgboost import make_custom_metric

    y, s, q = _workload(2, "many_small")
    order = np.argsort(q, kind="stable")
    y, s, q = y[order], s[order], q[order]
    d = xgb.DMatrix(np.zeros((y.size, 1)), label=y, qid=q)
    out = dict(make_custom_metric(["ERR@5", "RBP(p=0.9)"], bounds=True)(s, d))
    assert out["ERR@5"] == pytest.approx(rm.err_score(y, s, q, k=5, empty=1.0), abs=1e-15)
    assert out["RBP(p=0.9)"] == pytest.approx(rm.rbp_score(y, s, q, p=0.9, empty=1.0),
                                              abs=1e-15)
    assert out["ERR@5_pessimistic"] <= out["ERR@5"] <= out["ERR@5_optimistic"]
    means = make_eval_metric(["ERR@5", "RBP"], empty=0.0)(y, s, None, np.bincount(q))
    assert [(n, hib) for n, _, hib in means] == [("ERR@5", True), ("RBP", True)]
    assert means[0][1] == pytest.approx(rm.err_score(y, s, q, k=5), abs=1e-15)
    assert means[1][1] == pytest.approx(rm.rbp_score(y, s, q), abs=1e-15)


def test_err_and_rbp_empty_queries_are_label_side_and_cached(monkeypatch) -> None:
    # the queries without a positive grade depend on the labels and gains= only: found once per
    # gains table, not on every call with new scores (as the ideal DCG and the relevance are)
    y = np.array([0, 2, 1, 0, 0, 3])
    q = np.array([1, 1, 1, 2, 2, 3])
    plan = QueryPlan(y, q)
    names = ["ERR@3", "RBP", "ERR(gains={2: 0, 1: 0})@3"]
    first = plan.evaluate([0.3, 0.2, 0.1, 0.5, 0.4, 0.9], names, empty="skip")
    assert np.isnan(first["ERR@3"][1]) and np.isnan(first["RBP"][1])
    assert np.isnan(first["ERR(gains={2: 0, 1: 0})@3"][0])  # grades 0 under the table

    def recount(*args):
        raise AssertionError("label-side work redone for new scores")

    monkeypatch.setattr(plan, "_per_query_any", recount)
    again = plan.evaluate([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], names, empty="skip")
    for name in names:
        assert np.array_equal(np.isnan(again[name]), np.isnan(first[name]))
