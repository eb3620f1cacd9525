"""One measure language everywhere: the grammar, measure objects, and every entry point giving the
same per-query values for the same string with the same options (issue #10)."""

from __future__ import annotations

import itertools
import json
import math
import re
import warnings

import numpy as np
import pytest
from _extras import require
from oracle import orderings

import rankmetrics as rm
from rankmetrics import QueryPlan
from rankmetrics.measures import AP, RBP, RR, P, R, Rprec, SetF, Success, nDCG, parse_measure
from rankmetrics.measures.grammar import parse_measures
from rankmetrics.measures.registry import BY_NAME, DEFINITIONS, REGISTRY

#: the grammar list of the issue: ir_measures names, trec_eval names, LightGBM names
GRAMMAR = [
    "nDCG@10", "nDCG(gains={0:0,1:1,2:3})@10", "P(rel=2)@5", "R@100", "AP", "AP@100", "RR",
    "Rprec", "Success@10", "SetF(beta=0.5)",
    "ndcg_cut.10", "ndcg_cut_10", "P.5", "P_5", "map_cut.100", "recip_rank",
    "ndcg@10", "map@5", "mrr",
    "ERR@10", "ERR(max_grade=3)@5", "err", "RBP", "RBP(p=0.9, rel=2)@5",
    "nDCG(dcg='exp-log2')@5",
]
#: the options every entry point is given explicitly
SAME = {"ties": "average", "gain": "linear", "empty": 0.0, "denominator": "relevant"}


def _data(seed: int = 0, n_queries: int = 12):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.choice([0, 0, 0, 1, 1, 2, 3], size=qid.size)
    y[qid == 3] = 0  # a query without relevant documents
    s = np.round(rng.normal(size=qid.size), 1)  # coarse: many ties
    perm = rng.permutation(qid.size)  # queries not contiguous
    return y[perm], s[perm], qid[perm]


# ----------------------------------------------------------------------------- the grammar
@pytest.mark.parametrize(
    ("name", "kind", "k", "extra"),
    [
        ("ndcg_cut.10", "ndcg", 10, {}),
        ("P.5", "p", 5, {}),
        ("map_cut.100", "ap", 100, {}),
        ("success.10", "success", 10, {}),
        ("set_F", "setf", None, {}),
        ("set_F.0.5", "setf", None, {"beta": 0.5}),
        ("SetF(beta=0.5)", "setf", None, {"beta": 0.5}),
        ("r_prec", "rprec", None, {}),
        ("mrr", "rr", None, {}),
        ("map@5", "ap", 5, {}),
        ("nDCG(ties=stable, gain=exponential, discount=jarvelin2002, b=3, empty=skip)@5", "ndcg",
         5, {"ties": "stable", "gain": "exponential", "discount": "jarvelin2002",
             "log_base": 3.0, "empty": "skip"}),
        ("AP(denominator=min_k_relevant, empty=1)@5", "ap", 5,
         {"denominator": "min_k_relevant", "empty": 1.0}),
        ("P(threshold=2)@5", "p", 5, {"rel": 2.0}),
    ],
)
def test_names(name, kind, k, extra):
    (m,) = parse_measure(name)
    assert (m.name, m.kind, m.k) == (name, kind, k)
    for key, value in extra.items():
        assert getattr(m, key) == value


def test_measure_objects_print_and_parse_like_ir_measures():
    assert str(nDCG @ 10) == "nDCG@10"
    assert repr(P(rel=2) @ 5) == "P(rel=2)@5"
    assert (P(rel=2) @ 5) == parse_measure("P(rel=2)@5")[0]
    assert str(SetF(beta=0.5)) == "SetF(beta=0.5)"
    m = nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10
    assert (m.k, m.gains) == (10, ((0.0, 0.0), (1.0, 1.0), (2.0, 3.0)))
    assert [x.name for x in parse_measures([AP, RR @ 10, Rprec, Success @ 5, R @ 100])] == [
        "AP", "RR@10", "Rprec", "Success@5", "R@100"]
    with pytest.raises(ValueError, match="already has a cutoff"):
        (nDCG @ 10) @ 5
    with pytest.raises(ValueError, match="does not apply to 'P"):
        P(gains={1: 2})
    with pytest.raises(ValueError, match="Rprec@3': rprec takes no cutoff"):
        Rprec @ 3


def test_err_and_rbp_read_their_own_parameters_not_the_calls_gain_or_threshold():
    # documented in QueryPlan.evaluate and docs/guide/measures.md: RBP stays graded (ir_measures'
    # RBP) whatever the call's threshold; binary RBP is RBP(rel=x), as rbp(threshold=x)
    y, s = np.array([2, 1, 0, 1]), np.array([4.0, 3.0, 2.0, 1.0])
    plan = QueryPlan(y)
    base = plan.evaluate(s, ["ERR", "RBP"])
    for opts in ({"threshold": 2}, {"gain": [0, 5, 9]}, {"discount": "none", "log_base": 10}):
        got = plan.evaluate(s, ["ERR", "RBP"], **opts)
        assert got["ERR"] == base["ERR"] and got["RBP"] == base["RBP"], opts
    assert base["RBP"] == pytest.approx(rm.rbp(y, s))
    binary = plan.evaluate(s, ["RBP(rel=2)"])["RBP(rel=2)"]
    assert binary == pytest.approx(rm.rbp(y, s, threshold=2))


def test_an_integer_rel_float64_cannot_hold_is_refused_as_threshold_is():
    # rel=2**53 + 1 was parsed as float 2**53: P(rel=9007199254740993)@1 gave 1.0 on a label of
    # 2**53 (right: 0.0), where threshold=2**53 + 1 raises ValueError
    plan = QueryPlan([float(2**53), 0.0])
    with pytest.raises(ValueError, match="rel of 'P.*must be exactly a float64"):
        plan.evaluate([2.0, 1.0], ["P(rel=9007199254740993)@1"])
    with pytest.raises(ValueError, match="rel of 'RBP.*must be exactly a float64"):
        plan.evaluate([2.0, 1.0], ["RBP(rel=9007199254740993)"])
    with pytest.raises(ValueError, match="must be exactly a float64"):
        P(rel=2**53 + 1)
    out = plan.evaluate([2.0, 1.0], ["P(rel=9007199254740992)@1", "P(rel=1.5)@1"])
    assert out["P(rel=9007199254740992)@1"][0] == 1.0 and out["P(rel=1.5)@1"][0] == 1.0


def test_measure_objects_take_numpy_scalar_parameters_and_cutoffs():
    # numpy 2 writes np.int64(2): the parameter was rendered so and refused as "not a number"
    assert P(rel=np.int64(2)) @ np.int64(5) == parse_measure("P(rel=2)@5")[0]
    assert str(SetF(beta=np.float64(0.5))) == "SetF(beta=0.5)"
    assert nDCG(gains={np.int64(1): np.float64(3.0)}).gains == ((1.0, 3.0),)
    assert RBP(p=np.float32(0.5)).p == 0.5
    with pytest.raises(ValueError, match="must be > 0"):
        P(rel=np.int8(0))
    with pytest.raises(ValueError, match="must be a number; got 'True'"):
        P(rel=True)  # a bool is no threshold (the core's TypeError says so too)
    with pytest.raises(TypeError, match="cutoff of 'nDCG' must be a number; got True"):
        nDCG @ True
    # a trec_eval name carries its cutoff: said so (it was "unknown measure 'ndcg_cut.10@5'")
    with pytest.raises(ValueError, match="'ndcg_cut.10' already has a cutoff"):
        parse_measure("ndcg_cut.10")[0] @ 5
    with pytest.raises(ValueError, match=r"on the bare measure: P\(...\)@k; got 'P_5'"):
        parse_measure("P_5")[0](rel=2)
    assert parse_measure("map")[0](rel=2) == parse_measure("map(rel=2)")[0]


def test_ir_measures_printed_spellings_parse_as_ir_measures_means_them():
    """str() of ir_measures' NumRelRet is NumRet(rel=1) and of its exponential nDCG
    nDCG(dcg='exp-log2')@k: both were refused ("parameter 'rel' does not apply", "bad
    parameter"); dcg='log2' is the linear gain in every entry point (the core's nDCG@2 is
    0.2754 here, ir_measures' 0.3801)."""
    irm = require("ir_measures")
    assert str(irm.NumRelRet) == "NumRet(rel=1)"
    (m,) = parse_measure(str(irm.NumRet(rel=2)))
    assert (m.kind, m.rel) == ("numrelret", 2.0)
    assert parse_measure(str(irm.NumRet))[0].kind == "numret"
    assert parse_measure("NumRet(threshold=2)")[0].kind == "numrelret"
    assert rm.measures.NumRet(rel=2).kind == "numrelret"
    exp = parse_measure(str(irm.nDCG(dcg="exp-log2") @ 5))[0]
    assert (exp.kind, exp.k, exp.gain) == ("ndcg", 5, "exponential")
    assert parse_measure("nDCG(dcg=log2)@5")[0].gain == "linear"
    plan = QueryPlan([2, 1, 0])
    got = plan.evaluate([0.1, 0.5, 0.4], ["nDCG(dcg=log2)@2", "nDCG(dcg='exp-log2')@2"])
    assert got["nDCG(dcg=log2)@2"][0] == pytest.approx(0.3800937667)
    assert got["nDCG(dcg='exp-log2')@2"][0] == pytest.approx(0.2754115481)
    for bad, match in [("P(dcg=log2)@5", r"parameter 'dcg' does not apply to 'P"),
                       ("nDCG(dcg=exp)@5", r"dcg of 'nDCG\(dcg=exp\)@5' must be 'log2' or"),
                       ("nDCG(dcg=log2, gain=linear)@5", r"'gain' given twice .*dcg= is"),
                       ("nDCG(dcg=log2, gains={1: 2})@5", r"cannot be combined"),
                       ("AP(judged_only=True)", r"'AP\(judged_only=True\)': judged_only is not "
                                                r"a measure parameter here; pass judged_only")]:
        with pytest.raises(ValueError, match=match):
            parse_measure(bad)


def test_an_ir_measures_object_is_a_type_error_that_says_what_it_is():
    """An ir_measures measure object prints as its name, so the TypeError read "got nDCG@10"
    as if a string nDCG@10 had been refused."""
    irm = require("ir_measures")
    from rankmetrics.trec import evaluate

    with pytest.raises(TypeError, match=r"got the ir_measures measure object P\(rel=2\)@5: give "
                                        r"its name, 'P\(rel=2\)@5'"):
        evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, [irm.P(rel=2) @ 5])
    with pytest.raises(TypeError, match="ir_measures measure object nDCG@10"):
        QueryPlan([1, 0]).evaluate([1.0, 0.0], irm.nDCG @ 10)


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("ndgc@10", r"unknown measure 'ndgc@10'.*did you mean 'nDCG'"),
        ("presicion@5", r"did you mean 'P'"),
        ("recip_rnak", r"did you mean 'RR'"),
        ("nDCG(ties=random)@5", r"ties of .* must be one of average"),
        ("nDCG(gain=cubic)", r"gain of .* must be 'linear' or 'exponential'"),
        ("nDCG(b=1)", r"b \(log base\) of .* must be > 1"),
        ("P(gain=linear)@5", r"parameter 'gain' does not apply to 'P\(gain=linear\)@5'"),
        ("SetF@10", r"setf takes no cutoff"),
        # DCG and CG are 0 without a relevant document: empty= was accepted and dropped
        # everywhere (the scikit-learn scorers refused it as an option of dcg)
        ("DCG(empty=1)@5", r"parameter 'empty' does not apply to 'DCG\(empty=1\)@5'"),
        ("CG(empty=skip)@5", r"parameter 'empty' does not apply to 'CG\(empty=skip\)@5'"),
        ("set_F.0", r"beta of 'set_F.0' must be > 0"),
    ],
)
def test_errors_name_the_problem(name, match):
    with pytest.raises(ValueError, match=match):
        parse_measure(name)


def test_registry_has_one_entry_per_measure():
    kinds = [d.kind for d in DEFINITIONS]
    assert len(kinds) == len(set(kinds)) == len(REGISTRY)
    names = [n for d in DEFINITIONS for n in d.names]
    assert len(names) == len(set(names)) == len(BY_NAME)
    for d in DEFINITIONS:
        assert d.cutoff in ("rank", "level", "none")
        assert d.higher_is_better or d.kind == "rbp_residual"  # an uncertainty, not a score
        assert d.core is None or d.core in rm.core.plan.METRICS


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_measure_asked_for_twice_in_one_call_gives_its_value_twice(backend):
    """Rprec under two names in one evaluate call (["Rprec", "r_precision"], or the LightGBM
    adapter's bounds=True with ties="optimistic") raised IndexError: its sums had one row for
    two requested names. Every core measure, asked for under its name and again with
    (ties=average), gives the value of a call of its own."""
    y = np.array([2, 0, 1, 0, 1, 1, 0, 3])
    s = np.array([0.5, 0.5, 0.1, 0.9, 0.3, 0.3, 0.2, 0.8])
    q = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    prev = rm.get_backend()
    rm.set_backend(backend)
    try:
        plan = rm.QueryPlan(y, q)
        for d in DEFINITIONS:
            if d.core is None:
                continue
            name = d.display
            twice = plan.evaluate(s, [name, f"{name}(ties=average)"])
            alone = plan.evaluate(s, [name])[name]
            np.testing.assert_array_equal(twice[name], alone)
            np.testing.assert_array_equal(twice[f"{name}(ties=average)"], alone)
    finally:
        rm.set_backend(prev)


def test_old_parse_metric_still_works():
    assert rm.parse_metric("ndcg@10") == ("ndcg", 10)
    assert rm.parse_metric("MAP") == ("ap", None)
    assert rm.parse_metric("f1@5") == ("f1", 5)
    assert rm.parse_metric("P.5") == ("precision", 5)
    with pytest.raises(ValueError, match="computed only by rankmetrics.trec.evaluate"):
        rm.parse_metric("IPrec@0.5")


# --------------------------------------------------------------------- new core measures
def _brute(labels, scores, fn):
    return np.mean([fn(labels[o]) for o in orderings(scores)])


@pytest.mark.parametrize("seed", range(30))
def test_rprec_and_success_equal_brute_force_over_tied_orderings(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    y = rng.integers(0, 3, n)
    s = rng.integers(0, 3, n).astype(float)  # heavy ties
    r = int((y >= 1).sum())
    for k in (1, 2, 3, None):
        kk = n if k is None else k
        want = _brute(y, s, lambda lab, kk=kk: float((lab[:kk] >= 1).any()))
        got = rm.success(y, s, k=k)[0]
        assert got == pytest.approx(want if r else 0.0, abs=1e-12)
    want = _brute(y, s, lambda lab: (lab[:r] >= 1).sum() / r) if r else 0.0
    assert rm.r_precision(y, s)[0] == pytest.approx(want, abs=1e-12)
    for ties, pick in (("optimistic", max), ("pessimistic", min)):
        vals = [(y[o][:r] >= 1).sum() / r for o in orderings(s)] if r else [0.0]
        assert rm.r_precision(y, s, ties=ties)[0] == pytest.approx(pick(vals), abs=1e-12)


def test_setf_uses_trec_evals_set_f_weight():
    y, s = np.array([1, 0, 1, 1, 0]), np.array([0.9, 0.8, 0.1, 0.05, 0.0])
    q = np.zeros(5)
    # SetF of the whole list: P = 3/5, R = 3/3; set_F.x = (1 + x) P R / (x P + R)
    p_, r_ = 3 / 5, 1.0
    for x in (0.25, 0.5, 2.0):
        got = QueryPlan(y, q).evaluate(s, [f"SetF(beta={x})"])[f"SetF(beta={x})"][0]
        assert got == pytest.approx((1 + x) * p_ * r_ / (x * p_ + r_), abs=1e-15)
        assert got == pytest.approx(rm.fbeta(y, s, beta=math.sqrt(x))[0], abs=1e-15)


def test_as_frame_is_indexed_by_qid():
    y, s, q = _data(1)
    frame = QueryPlan(y, q).evaluate(s, ["nDCG@10", AP], as_frame=True)
    assert frame.index.name == "qid" and list(frame.columns) == ["nDCG@10", "AP"]
    np.testing.assert_array_equal(frame.index.to_numpy(), np.unique(q))
    np.testing.assert_array_equal(frame["AP"].to_numpy(), rm.average_precision(y, s, q))


def test_per_measure_parameters_override_the_call():
    y, s, q = _data(2)
    plan = QueryPlan(y, q)
    out = plan.evaluate(s, ["nDCG(gain=exponential, ties=stable)@5", "P(rel=2)@5",
                            "AP(denominator=min_k_relevant, empty=1)@5", "nDCG(b=10)@5"],
                        gain="linear")
    np.testing.assert_array_equal(out["nDCG(gain=exponential, ties=stable)@5"],
                                  plan.ndcg(s, k=5, gain="exponential", ties="stable"))
    np.testing.assert_array_equal(out["P(rel=2)@5"], plan.precision(s, k=5, threshold=2))
    np.testing.assert_array_equal(out["AP(denominator=min_k_relevant, empty=1)@5"],
                                  plan.average_precision(s, k=5, denominator="min_k_relevant",
                                                         empty=1.0))
    np.testing.assert_array_equal(out["nDCG(b=10)@5"],
                                  plan.ndcg(s, k=5, gain="linear", log_base=10))
    # gains= lists some levels; the others keep their linear gain (ir_measures, trec_eval)
    got = plan.evaluate(s, "nDCG(gains={2: 5})@5")["nDCG(gains={2: 5})@5"]
    np.testing.assert_allclose(got, plan.ndcg(s, k=5, gain={0: 0, 1: 1, 2: 5, 3: 3}),
                               rtol=0, atol=1e-15)


def test_trec_only_measures_are_refused_by_the_core_with_a_clear_error():
    with pytest.raises(ValueError, match="'IPrec@0.5' is computed only by rankmetrics.trec"):
        QueryPlan([1, 0]).evaluate([1.0, 0.0], "IPrec@0.5")


# ------------------------------------------------------------- every entry point, same values
def _core(y, s, q, names):
    return QueryPlan(y, q).evaluate(s, names, **SAME)


@pytest.fixture(scope="module")
def entry_points(tmp_path_factory):
    """Per-query values (or means) of every GRAMMAR name through every entry point."""
    torch = require("torch")
    lgb = require("lightgbm")
    from rankmetrics import trec
    from rankmetrics.lightgbm import make_eval_metric, make_feval
    from rankmetrics.torch import RankingMonitor
    from rankmetrics.torch import evaluate as torch_evaluate

    y, s, q = _data(3)
    order = np.argsort(q, kind="stable")
    ys, ss, qs = y[order], s[order], q[order]
    sizes = np.bincount(qs)
    out: dict = {"data": (y, s, q), "core": _core(y, s, q, GRAMMAR)}
    # torch functional, per query
    got = torch_evaluate(torch.tensor(s), torch.tensor(y), torch.tensor(q), metrics=GRAMMAR,
                         **SAME)
    out["torch"] = {n: v.numpy() for n, v in got.items()}
    # LightGBM feval (per query, rows grouped by query) and eval_metric (means)
    feval = make_feval(GRAMMAR, **SAME)
    assert len(feval.names) == len(GRAMMAR)
    ds = lgb.Dataset(np.zeros((ys.size, 1)), label=ys, group=sizes,
                     params={"verbose": -1}).construct()
    pq = feval.per_query(ss, ds)
    out["lightgbm"] = {n: pq[f] for n, f in zip(GRAMMAR, feval.names, strict=True)}
    means = make_eval_metric(GRAMMAR, **SAME)(ys, ss, None, sizes)
    out["lightgbm_mean"] = {n: v for n, (_, v, _) in zip(GRAMMAR, means, strict=True)}
    # TREC evaluate: every row judged, so the recall base is the ranked rows
    qrels: dict = {}
    run: dict = {}
    for i, (qq, lab, sc) in enumerate(zip(q, y, s, strict=True)):
        qrels.setdefault(f"q{qq:03d}", {})[f"d{i:05d}"] = int(lab)
        run.setdefault(f"q{qq:03d}", {})[f"d{i:05d}"] = float(sc)
    res = trec.evaluate(qrels, run, GRAMMAR,
                        **{k: v for k, v in SAME.items() if k != "denominator"}).per_query
    out["trec"] = {n: res[n].to_numpy() for n in GRAMMAR}
    # the CLI on the same data written as TREC files
    import contextlib
    import io

    from rankmetrics.cli import main

    tmp = tmp_path_factory.mktemp("cli")
    (tmp / "qrels").write_text("".join(f"{qq} 0 {d} {lab}\n" for qq, j in qrels.items()
                                       for d, lab in j.items()))
    (tmp / "run").write_text("".join(f"{qq} Q0 {d} 0 {sc!r} t\n" for qq, j in run.items()
                                     for d, sc in j.items()))
    args = ["eval", str(tmp / "qrels"), str(tmp / "run"), "--format", "json", "-q"]
    for n in GRAMMAR:
        args += ["-m", n]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(args) == 0
    per_query = json.loads(buf.getvalue())["per_query"]
    out["cli"] = {n: np.array([row[n] for _, row in sorted(per_query.items())])
                  for n in GRAMMAR}
    # torch monitor: means
    monitor = RankingMonitor(GRAMMAR, **SAME)
    monitor.update(torch.tensor(s), torch.tensor(y), torch.tensor(q))
    out["monitor_mean"] = monitor.compute()
    return out


@pytest.mark.parametrize("name", GRAMMAR)
def test_every_entry_point_accepts_the_name_with_the_same_values(entry_points, name):
    sklearn = require("sklearn")
    from sklearn.base import BaseEstimator, RegressorMixin

    from rankmetrics.sklearn import _OPTIONS, make_ranking_scorer, ranking_scorers

    y, s, q = entry_points["data"]
    want = entry_points["core"][name]
    for entry in ("torch", "lightgbm", "trec", "cli"):
        np.testing.assert_allclose(entry_points[entry][name], want, rtol=0, atol=1e-12,
                                   err_msg=f"{entry} {name}")
    for entry in ("lightgbm_mean", "monitor_mean"):
        assert entry_points[entry][name] == pytest.approx(want.mean(), abs=1e-12), entry

    class Fixed(RegressorMixin, BaseEstimator):
        def fit(self, X, y):
            return self

        def predict(self, X):
            return s

    base = rm.core.plan.core_metric(parse_measure(name)[0])
    opts = {k: v for k, v in SAME.items() if k != "ties" and k in _OPTIONS[base]}
    scorers = [make_ranking_scorer(name, ties="average", **opts),
               ranking_scorers(name, ties="average", **opts)[name]]
    for scorer in scorers:
        with warnings.catch_warnings(), sklearn.config_context(enable_metadata_routing=True):
            warnings.simplefilter("ignore")  # single-row queries
            value = scorer(Fixed(), np.zeros((y.size, 1)), y, qid=q)
        assert value == pytest.approx(want.mean(), abs=1e-12), "sklearn"


def test_torch_metric_accepts_measure_objects_and_grammar_names():
    torch = require("torch")
    require("torchmetrics")
    from rankmetrics.torch import RankingMetric

    y, s, q = _data(4)
    want = _core(y, s, q, ["P(rel=2)@5", "Rprec", "Success@10"])
    metric = RankingMetric([P(rel=2) @ 5, "Rprec", Success @ 10], **SAME)
    metric.update(torch.tensor(s), torch.tensor(y), torch.tensor(q))
    out = metric.compute()
    for name, v in want.items():
        assert float(out[name]) == pytest.approx(v.mean(), abs=1e-12)
    single = RankingMetric(nDCG @ 10, **SAME)
    single.update(torch.tensor(s), torch.tensor(y), torch.tensor(q))
    assert float(single.compute()) == pytest.approx(_core(y, s, q, "nDCG@10")["nDCG@10"].mean())


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "stable"])
def test_torch_rprec_success_setf_equal_the_numpy_core(ties):
    torch = require("torch")
    from rankmetrics.torch import r_precision, success

    y, s, q = _data(5)
    plan = QueryPlan(y, q)
    np.testing.assert_allclose(
        r_precision(torch.tensor(s), torch.tensor(y), torch.tensor(q), ties=ties).numpy(),
        plan.r_precision(s, ties=ties), rtol=0, atol=1e-12)
    for k in (1, 3, None):
        np.testing.assert_allclose(
            success(torch.tensor(s), torch.tensor(y), torch.tensor(q), k=k, ties=ties).numpy(),
            plan.success(s, k=k, ties=ties), rtol=0, atol=1e-12)


def test_cli_accepts_trec_eval_names_and_all_trec(tmp_path, capsys):
    from rankmetrics.cli import main

    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n")
    run.write_text("1 Q0 a 1 0.5 t\n1 Q0 b 2 0.5 t\n1 Q0 c 3 0.1 t\n2 Q0 d 1 1.0 t\n")
    names = ["ndcg_cut.10", "P.5", "map_cut.100", "recip_rank", "SetF(beta=0.5)"]
    assert main(["eval", str(qrels), str(run), "-m", ",".join(names), "--format", "json",
                 "-q"]) == 0
    got = json.loads(capsys.readouterr().out)
    from rankmetrics import trec

    want = trec.evaluate(str(qrels), str(run), names)
    for name in names:
        assert got["mean"][name] == pytest.approx(want.mean[name], abs=1e-12)
    assert main(["eval", str(qrels), str(run), "-m", "all_trec", "--ties", "docno",
                 "--format", "json"]) == 0
    mean = json.loads(capsys.readouterr().out)["mean"]
    assert {"map", "P_5", "ndcg_cut_10", "iprec_at_recall_0.50", "set_F"} <= set(mean)
    # one measure under several spellings is printed once, as trec_eval prints it once
    assert main(["eval", str(qrels), str(run), "-m", "P", "-m", "P.5", "-m", "P_5",
                 "--format", "trec"]) == 0
    lines = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert lines.count("P_5") == 1 and lines[:2] == ["P_5", "P_10"]


# --------------------------------------------------------------- the scikit-learn name rule
@pytest.mark.parametrize(("seed", "k"), list(itertools.product(range(4), (None, 1, 3))))
def test_ndcg_score_and_dcg_score_give_sklearns_number(seed, k):
    skm = require("sklearn.metrics")
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, (6, 9))
    s = np.round(rng.normal(size=(6, 9)), 1)  # ties: sklearn's ignore_ties=False averages them
    w = rng.random(6)
    assert rm.ndcg_score(y, s, k=k) == pytest.approx(skm.ndcg_score(y, s, k=k), abs=1e-12)
    assert rm.dcg_score(y, s, k=k) == pytest.approx(skm.dcg_score(y, s, k=k), abs=1e-12)
    assert rm.ndcg_score(y, s, k=k, sample_weight=w) == pytest.approx(
        skm.ndcg_score(y, s, k=k, sample_weight=w), abs=1e-12)
    # the per-query function keeps exponential gain; gain= switches either way
    assert rm.ndcg_score(y, s, k=k, gain="exponential") == pytest.approx(
        rm.ndcg(y, s, k=k).mean(), abs=1e-15)


def test_ndcg_score_takes_sklearns_ignore_ties_and_names_sample_weight():
    """scikit-learn's ``ignore_ties`` was a TypeError naming ``ndcg`` (not a parameter), and a
    wrong-length ``sample_weight`` was reported as ``query_weight``."""
    skm = require("sklearn.metrics")
    rng = np.random.default_rng(7)
    y = rng.integers(0, 4, (5, 8))
    s = rng.normal(size=(5, 8))  # no ties: both switches give sklearn's number
    for ignore in (False, True):
        for ours, theirs in ((rm.ndcg_score, skm.ndcg_score), (rm.dcg_score, skm.dcg_score)):
            assert ours(y, s, k=3, ignore_ties=ignore) == pytest.approx(
                theirs(y, s, k=3, ignore_ties=ignore), abs=1e-12)
    tied = np.round(s, 0)
    assert rm.ndcg_score(y, tied, ignore_ties=False) == pytest.approx(
        skm.ndcg_score(y, tied), abs=1e-12)
    assert rm.ndcg_score(y, tied, ignore_ties=True) == rm.ndcg_score(y, tied, ties="stable")
    with pytest.raises(TypeError, match="ties or ignore_ties"):
        rm.ndcg_score(y, s, ignore_ties=True, ties="average")
    with pytest.raises(TypeError, match="ignore_ties must be True or False"):
        rm.ndcg_score(y, s, ignore_ties="yes")
    with pytest.raises(ValueError, match="sample_weight must have one weight per query"):
        rm.ndcg_score(y, s, sample_weight=[1.0, 2.0])


def test_ndcg_score_refuses_one_document_per_row_as_sklearn():
    """scikit-learn's ndcg_score and dcg_score raise on a (n_queries, 1) layout; ours returned
    0.5 and 0.5. Flat input with qid (queries of one document) is not affected."""
    skm = require("sklearn.metrics")
    y, s = np.array([[1], [0]]), np.array([[0.3], [0.1]])
    for ours, theirs, name in ((rm.ndcg_score, skm.ndcg_score, "NDCG"),
                               (rm.dcg_score, skm.dcg_score, "DCG")):
        with pytest.raises(ValueError):
            theirs(y, s)
        with pytest.raises(ValueError, match=f"y_true: computing {name} is only meaningful"):
            ours(y, s)
    assert rm.ndcg_score(y.ravel(), s.ravel(), [0, 1]) == 0.5



def test_ndcg_score_ragged_y_true_error_names_y_true():
    """Ragged nested lists as y_true: ndcg_score and dcg_score raised numpy's bare ValueError
    ("setting an array element with a sequence") from their 2-D layout check, naming no
    argument; the per-query functions and the other means name y_true."""
    ragged = [[1, 2], [3]]
    for fn in (rm.ndcg_score, rm.dcg_score, rm.mean_precision_score):
        with pytest.raises(TypeError, match="y_true could not be converted"):
            fn(ragged, ragged)


def test_dcg_score_documents_the_inputs_sklearn_scores_and_it_refuses():
    """The note said the two agree on scikit-learn's 2-D layout, but sklearn.metrics.dcg_score
    sums negative labels (-1.646 here) and takes log_base in (0, 1], where ours raises."""
    skm = require("sklearn.metrics")
    y, s = np.array([[-3, -2, 0, -1]]), np.array([[0.1, 0.2, 0.3, 0.4]])
    assert skm.dcg_score(y, s) < 0 and skm.dcg_score(-y, s, log_base=0.5) < 0
    with pytest.raises(ValueError, match="non-negative"):
        rm.dcg_score(y, s)
    with pytest.raises(ValueError, match="log_base must be > 1"):
        rm.dcg_score(-y, s, log_base=0.5)
    for fn in (rm.dcg_score, rm.ndcg_score):
        assert "negative labels" in fn.__doc__ and "``log_base`` <= 1" in fn.__doc__

def test_issue_example_ndcg_score_on_sklearns_layout():
    skm = require("sklearn.metrics")
    y = np.asarray([[10, 0, 0, 1, 5]])
    s = np.asarray([[0.1, 0.2, 0.3, 4, 70]])
    assert rm.ndcg_score(y, s) == pytest.approx(skm.ndcg_score(y, s), abs=1e-12)


@pytest.mark.parametrize(
    ("old", "new"),
    [("precision_score", "mean_precision_score"), ("recall_score", "mean_recall_score"),
     ("f1_score", "mean_f1_score"), ("fbeta_score", "mean_fbeta_score"),
     ("average_precision_score", "mean_average_precision_score")],
)
def test_sklearn_classification_names_are_renamed_and_the_old_ones_warn(old, new):
    y, s, q = _data(6)
    with pytest.warns(FutureWarning, match=rf"now spelled rankmetrics\.{new}"):
        value = getattr(rm, old)(y, s, q, k=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(rm, new)(y, s, q, k=5) == value


# ------------------------------------------- TREC: custom gains never reach unjudged documents
def test_issue17_item5_gain_of_level_0_does_not_leak_to_unjudged_documents():
    from rankmetrics import trec

    res = trec.evaluate({"q": {"a": 1, "b": 0}}, {"q": {"x": 3.0, "a": 2.0}},
                        ["nDCG(gains={0: 1, 1: 4})"], ties="docno", gain="linear")
    # DCG: x unjudged (0), a 4 at rank 2; ideal: a 4, b (judged 0) 1
    want = (4 / math.log2(3)) / (4 + 1 / math.log2(3))
    assert res.mean["nDCG(gains={0: 1, 1: 4})"] == pytest.approx(want, abs=1e-15)
    assert want == pytest.approx(0.5450, abs=1e-4)  # pytrec_eval's number in the issue


@pytest.mark.parametrize("seed", [0, 1])
def test_gains_with_nonzero_level_0_equal_pytrec_eval(seed):
    pytrec_eval = require("pytrec_eval")
    from rankmetrics import trec

    rng = np.random.default_rng(seed)
    qrels: dict = {}
    run: dict = {}
    for q in range(15):
        docs = [f"D{x:04d}" for x in rng.choice(500, size=25, replace=False)]
        run[str(q)] = {d: float(np.round(rng.normal(), 1)) for d in docs[:18]}
        qrels[str(q)] = {d: int(rng.choice([-1, 0, 0, 1, 2])) for d in docs[5:]}
    gains = {0: 1, 1: 4, 2: 9}
    # ir_measures' way of giving gains to pytrec_eval: map the qrels (unlisted levels keep theirs)
    mapped = {q: {d: gains.get(v, v) for d, v in j.items()} for q, j in qrels.items()}
    want = pytrec_eval.RelevanceEvaluator(mapped, {"ndcg", "ndcg_cut.5"}).evaluate(run)
    for rel in (1, 2):  # the shift of labels keeps every relevance threshold right too
        got = trec.evaluate(qrels, run, ["nDCG(gains={0: 1, 1: 4, 2: 9})",
                                         "nDCG(gains={0: 1, 1: 4, 2: 9})@5", "P@5", "AP", "NumRel"],
                            ties="docno", threshold=rel).per_query
        plain = trec.evaluate(qrels, run, ["P@5", "AP", "NumRel"], ties="docno",
                              threshold=rel).per_query
        for q, row in want.items():
            assert got.loc[q, "nDCG(gains={0: 1, 1: 4, 2: 9})"] == pytest.approx(
                row["ndcg"], abs=1e-12)
            assert got.loc[q, "nDCG(gains={0: 1, 1: 4, 2: 9})@5"] == pytest.approx(
                row["ndcg_cut_5"], abs=1e-12)
        for name in ("P@5", "AP", "NumRel"):
            np.testing.assert_array_equal(got[name].to_numpy(), plain[name].to_numpy())
    # a level-weight list and a mapping gain as options behave the same
    a = trec.evaluate(qrels, run, ["nDCG"], gain=[1, 4, 9], ties="docno").per_query["nDCG"]
    b = trec.evaluate(qrels, run, ["nDCG(gains={0: 1, 1: 4, 2: 9})"],
                      ties="docno").per_query.iloc[:, 0]
    np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=0, atol=1e-15)


CONFLICTS = {
    "RBP(rel=2, gains={2: 5})": "RBP takes rel= .binary. or gains= .graded., not both",
    "nDCG(gains={1: 3}, gain=exponential)@3": "gains=.level: gain. and gain= cannot be combined",
    "f1(beta=2)@3": "F1 is F with beta=1; write F.beta=2.",
}


@pytest.mark.parametrize("name", list(CONFLICTS))
def test_conflicting_parameters_are_refused_by_every_entry_point(name, tmp_path, capsys):
    # the RBP pair was refused by the core and computed (gains= dropped) by torch, TREC and the
    # CLI; gains= beside gain= and f1's beta were taken everywhere with one of them dropped
    torch = require("torch")
    require("lightgbm")
    require("xgboost")
    require("sklearn")
    from rankmetrics import trec
    from rankmetrics.cli import main
    from rankmetrics.lightgbm import make_feval
    from rankmetrics.sklearn import make_ranking_scorer
    from rankmetrics.torch import functional as tf
    from rankmetrics.xgboost import make_custom_metric

    y, s, q = [1, 2, 3, 0, 1], [0.5, 0.4, 0.3, 0.2, 0.1], [1, 1, 1, 2, 2]
    calls = [
        lambda: QueryPlan(y, q).evaluate(s, [name]),
        lambda: tf.evaluate(torch.tensor(s), torch.tensor(y), torch.tensor(q), metrics=[name]),
        lambda: trec.evaluate({"1": {"a": 1}}, {"1": {"a": 0.5}}, [name]),
        lambda: make_feval(name), lambda: make_custom_metric(name),
        lambda: make_ranking_scorer(name),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=CONFLICTS[name]):
            call()
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 0.5 t\n")
    assert main(["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", name]) != 0
    assert re.search(CONFLICTS[name], capsys.readouterr().err)


def test_gbdt_metrics_refuse_a_k_that_no_name_takes():
    # make_feval("ndcg@3", k=5) gave ndcg@3 and dropped k; make_ranking_scorer refuses it
    require("lightgbm")
    require("xgboost")
    from rankmetrics.lightgbm import make_eval_metric, make_feval
    from rankmetrics.xgboost import make_custom_metric

    for make in (make_feval, make_eval_metric, make_custom_metric):
        for metrics, k in (("ndcg@3", 5), ("ndcg@3", (3, 5)), ("Rprec", 5), ("success", 5),
                           (["map@2", "Rprec"], 10)):
            with pytest.raises(ValueError, match="applies to none of the metrics"):
                make(metrics, k=k)
        assert make(["ndcg@3", "map"], k=10).names == ["ndcg@3", "map@10"]
        assert make("ndcg@3").names == ["ndcg@3"]


def test_option_measures_is_eval_and_compare_grammar():
    """One reader of -m for eval and compare (compare refused P.5,10 before)."""
    from rankmetrics.measures.grammar import option_measures

    assert option_measures(["P.5,10", "P_5"]) == (["P.5", "P.10", "P_5"], [])
    assert option_measures(["P.10,5", "P_5"], trec_order=True)[0] == ["P.5", "P.10"]
    assert option_measures(["avg-ndcg@1-10,nDCG@10"], vectors=True)[0] == [
        "avg-ndcg@1-10", "nDCG@10"]
    with pytest.raises(ValueError, match="unknown measure 'avg-ndcg@1-10'"):
        option_measures(["avg-ndcg@1-10"])
    with pytest.raises(ValueError, match="no exact tie average"):
        option_measures(["iprec_at_recall.0.1"])
    names, notes = option_measures(["all_trec"], ties="docno")
    assert "iprec_at_recall_0.10" in names and notes[0].startswith("all_trec leaves out")


def test_a_gains_level_float64_cannot_hold_is_refused():
    # the level 2**53 + 1 was parsed as 2**53 and gave its gain to the label 2**53 (nDCG 1.0
    # for {2**53 + 1: 5, 0: 0}; {2**53: 1, 2**53 + 1: 5} kept one of the two silently)
    plan = QueryPlan([float(2**53), 0.0])
    for name in ("nDCG(gains={9007199254740993:5, 0:0})",
                 "nDCG(gains={9007199254740992:1, 9007199254740993:5})"):
        with pytest.raises(ValueError, match="gain level in .* must be exactly a float64"):
            plan.evaluate([2.0, 1.0], [name])
    with pytest.raises(ValueError):
        plan.evaluate([2.0, 1.0], ["nDCG(gains=9007199254740993=5;0=0)"])
    out = plan.evaluate([1.0, 2.0], ["DCG(gains={9007199254740992:2, 0:0})"])
    np.testing.assert_allclose(out["DCG(gains={9007199254740992:2, 0:0})"], [2 / np.log2(3)])


def test_a_dotted_trec_eval_cutoff_is_read_as_atol_without_float_rounding():
    # P.9007199254740993 was read through float() as the cutoff 9007199254740992 (and printed
    # P_9007199254740992; trec_eval's atol prints P_9007199254740993), P.4611686018427387905
    # (2**62 + 1) as 2**62 instead of being refused as too large
    from rankmetrics.measures.grammar import trec_eval_spelling

    (m,) = parse_measure("P.9007199254740993")
    assert m.k == 9007199254740993
    assert trec_eval_spelling("P.9007199254740993") == "P_9007199254740993"
    assert trec_eval_spelling("ndcg_cut.23.4") == "ndcg_cut_23"  # atol stops at the "."
    with pytest.raises(ValueError, match=r"at most 2\*\*62; got '4611686018427387905'"):
        parse_measure("P.4611686018427387905")
    with pytest.raises(ValueError, match="must be a positive integer; got '0'"):
        parse_measure("map_cut..5")  # atol(".5") is 0
