"""The ir_measures provider: equals pytrec_eval (ties="docno") and the rankmetrics core."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _extras import require

irm = require("ir_measures")
require("pytrec_eval")

from rankmetrics.ir_measures import RankMetricsProvider, provider, translate  # noqa: E402
from rankmetrics.trec import evaluate  # noqa: E402

MEASURES = [
    "nDCG", "nDCG@10", "nDCG@5", "P@5", "P@10", "P(rel=2)@5", "R@100", "R@10", "AP", "AP@100",
    "AP(rel=2)", "RR", "RR(rel=2)", "Rprec", "Rprec(rel=2)", "Success@10", "Success@1",
    "SetF(beta=0.5)", "SetF", "NumRet", "NumRel", "NumRelRet", "IPrec@0.3", "IPrec@0.0",
    "nDCG(judged_only=True)@10", "P(judged_only=True)@10", "AP(judged_only=True)",
    "nDCG(gains={0:0,1:1,2:3})@10", "Bpref", "Bpref(rel=2)", "SetP", "SetP(rel=2)", "SetR",
    "SetR(rel=2)", "SetP(judged_only=True)",
]


def _per_query(evaluator, run):
    return {(m.query_id, str(m.measure)): m.value for m in evaluator.iter_calc(run)}


@pytest.mark.parametrize("qrels_file", ["qrels.test", "qrels.rel_level"])
def test_docno_equals_pytrec_eval_on_trec_eval_files(shared_data, qrels_file):
    root = shared_data / "trec_eval"
    qrels = list(irm.read_trec_qrels(str(root / qrels_file)))
    run = list(irm.read_trec_run(str(root / "results.test")))
    measures = [irm.parse_measure(m) for m in MEASURES]
    reference = irm.providers.registry["pytrec_eval"]
    assert all(reference.supports(m) for m in measures)
    want = _per_query(reference.evaluator(measures, qrels), run)
    got = _per_query(provider(ties="docno").evaluator(measures, qrels), run)
    assert set(got) == set(want)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


def _random_collection(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(6):
        docs = [f"d{i:03d}" for i in rng.permutation(40)[:25]]
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in docs[:15]}
        # few distinct scores: many ties, some unjudged documents retrieved
        run[f"q{q}"] = {d: float(rng.integers(0, 4)) for d in docs[5:]}
    return qrels, run


@pytest.mark.parametrize("seed", range(4))
def test_docno_equals_pytrec_eval_on_tied_random_collections(seed):
    qrels, run = _random_collection(seed)
    measures = [irm.parse_measure(m) for m in MEASURES]
    want = _per_query(irm.providers.registry["pytrec_eval"].evaluator(measures, qrels), run)
    got = _per_query(provider(ties="docno").evaluator(measures, qrels), run)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


@pytest.mark.parametrize("seed", range(3))
def test_average_equals_the_rankmetrics_core(seed):
    qrels, run = _random_collection(seed)
    names = [m for m in MEASURES if not m.startswith("IPrec") and "judged_only" not in m]
    measures = [irm.parse_measure(m) for m in names]
    got = _per_query(provider().evaluator(measures, qrels), run)
    for m in measures:
        text, gain = translate(m)
        core = evaluate(qrels, run, [text], gain=gain).per_query[text]
        for qid, value in core.items():
            assert got[(qid, str(m))] == pytest.approx(value, abs=1e-12)


def test_judged_only_keeps_a_query_with_nothing_judged_and_judged_matches_ir_measures():
    """A query whose retrieved documents are all unjudged: pytrec_eval (-J) still reports it
    (num_ret 0), so the provider must too; Judged@k equals ir_measures' judged provider on
    tie-free scores."""
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "n": -1}}
    run = {"q1": {"a": 2.0, "x": 3.0, "b": 1.0}, "q2": {"n": 2.0, "y": 1.0}}
    measures = [irm.parse_measure(m) for m in ("P(judged_only=True)@2", "AP(judged_only=True)")]
    want = _per_query(irm.providers.registry["pytrec_eval"].evaluator(measures, qrels), run)
    got = _per_query(provider(ties="docno").evaluator(measures, qrels), run)
    assert ("q2", "P(judged_only=True)@2") in want
    assert got == pytest.approx(want, abs=1e-12)
    judged = [irm.Judged @ 1, irm.Judged @ 2, irm.Judged @ 10, irm.Judged]
    want = _per_query(irm.providers.registry["judged"].evaluator(judged, qrels), run)
    got = _per_query(provider().evaluator(judged, qrels), run)
    assert got == pytest.approx(want, abs=1e-12)


def test_tie_aware_differs_from_docno_where_ties_mix_relevance():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0}}  # docno order puts b first
    assert provider(ties="docno").calc_aggregate([irm.RR], qrels, run)[irm.RR] == 0.5
    assert provider().calc_aggregate([irm.RR], qrels, run)[irm.RR] == 0.75


def test_registered_and_usable_through_the_ir_measures_api(shared_data):
    root = shared_data / "trec_eval"
    qrels = list(irm.read_trec_qrels(str(root / "qrels.test")))
    run = list(irm.read_trec_run(str(root / "results.test")))
    registered = irm.providers.registry["rankmetrics"]
    assert isinstance(registered, RankMetricsProvider)
    agg = registered.calc_aggregate([irm.nDCG @ 10, irm.AP], qrels, run)
    core = evaluate(str(root / "qrels.test"), str(root / "results.test"), ["nDCG@10", "AP"],
                    gain="linear").mean
    assert agg[irm.nDCG @ 10] == pytest.approx(core["nDCG@10"], abs=1e-12)
    assert agg[irm.AP] == pytest.approx(core["AP"], abs=1e-12)
    results = registered.calc([irm.P @ 5, irm.RR], qrels, run)
    assert len(results.per_query) == 6
    assert math.isfinite(results.aggregated[irm.P @ 5])


def test_interpolated_precision_only_with_an_order():
    assert not provider().supports(irm.IPrec @ 0.5)
    assert provider(ties="docno").supports(irm.IPrec @ 0.5)
    assert not provider().supports(irm.alpha_nDCG @ 10)
    assert provider().supports(irm.ERR @ 10) and provider().supports(irm.RBP(p=0.9) @ 5)


def test_bad_options_name_the_option():
    with pytest.raises(ValueError, match="ties"):
        provider(ties="random")
    with pytest.raises(ValueError, match="gain"):
        provider(gain="exponential")


def test_options_are_checked_when_the_provider_is_made():
    """A misspelt option was reported only at evaluation, as evaluate()'s TypeError;
    empty='skip' was silently 0 (ir_measures fills a query without a value with 0)."""
    with pytest.raises(TypeError, match="unknown option.*'compelte'"):
        provider(compelte=True)
    with pytest.raises(ValueError, match="empty='skip' cannot pass through ir_measures"):
        provider(empty="skip")
    assert provider(complete=True, max_depth=5).options == {"complete": True, "max_depth": 5}


def test_metrics_is_no_option():
    """evaluate's measure list (its parameter ``metrics``) was taken as an option and listed
    among them; evaluation then failed with "evaluate() got multiple values for argument
    'metrics'"."""
    with pytest.raises(TypeError, match="unknown option.*'metrics'") as err:
        provider(metrics=["P@1"])
    assert "metrics" not in str(err.value).split("evaluate: ")[1]


def test_ir_measures_frames_equal_measures_and_unjudged_batches():
    """As ir_measures: its own columns only (extra docid / docno / qid / label columns were
    read instead), measures it holds equal (AP, AP(rel=1)) reported once (their rows were
    doubled: NumRel 6 for 3), empty or disjoint qrels give nothing / 0 (they raised)."""
    import pandas as pd

    qrels = pd.DataFrame({"query_id": ["1", "1", "1", "2"], "doc_id": ["a", "b", "c", "a"],
                          "relevance": [1, 0, 1, 1], "label": [0, 0, 0, 0]})
    run = pd.DataFrame({"query_id": ["1", "1", "1", "2"], "doc_id": ["a", "b", "c", "a"],
                        "score": [3.0, 2.0, 1.0, 1.0], "docid": [7, 8, 9, 7],
                        "docno": ["z", "z", "z", "z"], "qid": ["x"] * 4})
    measures = [irm.AP, irm.AP(rel=1), irm.P @ 1, irm.NumRel, irm.NumRel(rel=1)]
    reference = irm.providers.registry["pytrec_eval"]
    ours = provider(ties="docno")
    plain = run[["query_id", "doc_id", "score"]]
    def rows(metrics):
        return sorted((m.query_id, str(m.measure), m.value) for m in metrics)

    want = rows(reference.iter_calc(measures, qrels[["query_id", "doc_id", "relevance"]], plain))
    got = rows(ours.iter_calc(measures, qrels, run))
    assert [g[:2] for g in got] == [w[:2] for w in want] and len(got) == 6
    assert [g[2] for g in got] == pytest.approx([w[2] for w in want], abs=1e-12)
    assert ours.calc_aggregate(measures, qrels, run) == reference.calc_aggregate(
        measures, qrels, plain)
    empty = qrels.iloc[:0]
    assert list(ours.iter_calc([irm.AP], empty, run)) == list(
        reference.iter_calc([irm.AP], empty, plain)) == []
    other = [irm.Qrel("9", "a", 1)]
    assert list(ours.iter_calc([irm.AP], other, run)) == list(
        reference.iter_calc([irm.AP], other, plain))


def test_prefer_routes_the_default_pipeline_and_restores_it():
    from rankmetrics.ir_measures import prefer

    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    before = list(irm.DefaultPipeline.providers)
    with prefer() as chosen:
        assert irm.DefaultPipeline.providers[0] is chosen
        assert irm.calc_aggregate([irm.RR], qrels, run)[irm.RR] == 0.75
    assert irm.DefaultPipeline.providers == before
    assert irm.calc_aggregate([irm.RR], qrels, run)[irm.RR] == 0.5


def test_pyterrier_experiment_runs_on_rankmetrics(shared_data):
    pt = require("pyterrier")
    import pandas as pd

    from rankmetrics.ir_measures import prefer

    root = shared_data / "trec_eval"
    qrels = pd.read_csv(root / "qrels.test", sep=r"\s+", names=["qid", "iter", "docno", "label"],
                        dtype={"qid": str, "docno": str})
    run = pd.read_csv(root / "results.test", sep=r"\s+",
                      names=["qid", "Q0", "docno", "rank", "score", "tag"],
                      dtype={"qid": str, "docno": str})
    topics = pd.DataFrame({"qid": sorted(run["qid"].unique()), "query": "unused"})
    # Terrier's retrievers also give docid, its internal integer id: the provider read it as
    # the document id (every measure 0 under prefer(), no error)
    run["docid"] = np.arange(len(run))
    system = pt.Transformer.from_df(run[["qid", "docid", "docno", "score"]])
    measures = [irm.nDCG @ 10, irm.AP, irm.RR]
    plain = pt.Experiment([system], topics, qrels, eval_metrics=measures, names=["s"])
    with prefer(ties="docno"):
        docno = pt.Experiment([system], topics, qrels, eval_metrics=measures, names=["s"])
    with prefer():
        average = pt.Experiment([system], topics, qrels, eval_metrics=measures, names=["s"],
                                perquery=True)
    for m in measures:  # docno order is pytrec_eval's: identical numbers
        assert docno[str(m)].iloc[0] == pytest.approx(plain[str(m)].iloc[0], abs=1e-12)
    core = evaluate(str(root / "qrels.test"), str(root / "results.test"),
                    ["nDCG@10", "AP", "RR"], gain="linear").per_query
    got = average.pivot(index="qid", columns="measure", values="value")
    for name, m in zip(["nDCG@10", "AP", "RR"], measures, strict=True):
        for qid, value in core[name].items():
            assert got.loc[qid, str(m)] == pytest.approx(value, abs=1e-12)


def test_measures_it_cannot_give_ir_measures_number_fall_back_to_ir_measures():
    """SetP(relative=True) (trec_eval's set_relative_P) passed supports() and was computed as
    plain SetP (0.5 for 0.8333); SetF(beta=0) and a gain for a negative label passed
    supports() and then raised, so prefer() lost ir_measures' fallback."""
    from ir_measures import SetF, SetP, nDCG

    from rankmetrics.ir_measures import prefer

    qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d4": 1}, "q2": {"d1": 1}}
    run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1, "d5": 0.5}, "q2": {"d2": 1.0, "d1": 0.5}}
    p = provider()
    refused = [SetP(relative=True), SetF(beta=0.0), nDCG(gains={-1: 5})@5]
    for m in refused:
        assert not p.supports(m)
        with pytest.raises(ValueError, match="rankmetrics does not provide"):
            p.calc_aggregate([m], qrels, run)
        with prefer():
            ours = irm.calc_aggregate([m], qrels, run)[m]
        assert ours == pytest.approx(irm.pytrec_eval.calc_aggregate([m], qrels, run)[m])
    assert p.supports(SetP) and p.supports(SetP(relative=False))
    assert p.calc_aggregate([SetP], qrels, run)[SetP] == pytest.approx(
        irm.pytrec_eval.calc_aggregate([SetP], qrels, run)[SetP])


def test_a_negative_level_in_gains_with_judged_only_falls_back_to_ir_measures():
    """ir_measures maps the qrels through gains= before pytrec_eval's -J reads them: with
    gains={-1: 0} a label -1 becomes a judged 0 and stays ranked (nDCG@1 0.0), where the
    provider dropped it as unjudged and gave 1.0."""
    from ir_measures import nDCG

    from rankmetrics.ir_measures import prefer

    qrels = {"q": {"a": 1, "b": -1}}
    run = {"q": {"b": 2.0, "a": 1.0}}
    m = nDCG(gains={-1: 0}, judged_only=True) @ 1
    assert irm.calc_aggregate([m], qrels, run)[m] == 0.0
    p = provider()
    assert not p.supports(m)
    with prefer():
        assert irm.calc_aggregate([m], qrels, run)[m] == 0.0
    for same in (nDCG(gains={-1: 0}) @ 1, nDCG(gains={2: 3}, judged_only=True) @ 1):
        assert p.supports(same)
        assert p.calc_aggregate([same], qrels, run)[same] == irm.calc_aggregate(
            [same], qrels, run)[same]


def test_docno_ties_compare_scores_as_each_lender_does():
    """gdeval (ERR, exp-log2 nDCG) compares scores as doubles, pytrec_eval as C floats: two
    scores equal only in single precision tie for pytrec_eval's measures and not for
    gdeval's. The provider gave ERR@1 0.0 where gdeval gives 0.1875."""
    qrels = {"1": {"a": 2, "b": 0}}
    run = {"1": {"a": 15.12345679, "b": 15.12345671}}
    m = [irm.ERR @ 1, irm.nDCG(dcg="exp-log2") @ 1, irm.P @ 1, irm.nDCG @ 1]
    ours = provider(ties="docno").calc_aggregate(m, qrels, run)
    theirs = irm.calc_aggregate(m, qrels, run)  # gdeval and pytrec_eval
    for measure in m:
        assert ours[measure] == pytest.approx(theirs[measure], abs=1e-5), measure
    assert ours[irm.ERR @ 1] == pytest.approx(0.1875) and ours[irm.P @ 1] == 0.0
    # one precision for all when asked
    both = provider(ties="docno", docno_scores="double").calc_aggregate(m, qrels, run)
    assert both[irm.P @ 1] == 1.0


@pytest.mark.parametrize("name", ["SetP@5", "set_P@5", "SetR@5", "set_recall@5"])
def test_set_measure_names_with_a_cutoff_are_refused(name):
    """ir_measures and trec_eval have no cutoff on set_P / set_recall; we read SetP@5 as P@5."""
    with pytest.raises(ValueError, match="whole retrieved list .* takes no cutoff; ask for"):
        evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, [name])


def test_exp_log2_with_gains_is_refused_as_ir_measures_refuses_it():
    """nDCG(dcg='exp-log2', gains={2: 10})@5 passed supports() and gave nDCG(gains={2: 10})@5's
    number (dcg='exp-log2' dropped); ir_measures' own providers support no such measure."""
    from ir_measures import nDCG

    from rankmetrics.ir_measures import prefer

    qrels = {"q": {"a": 2, "b": 1, "c": 0, "d": 3}}
    run = {"q": {"a": 0.1, "b": 0.5, "c": 0.4, "d": 0.3}}
    m = nDCG(dcg="exp-log2", gains={2: 10}) @ 5
    with pytest.raises(ValueError, match="Unsupported measures"):
        irm.calc_aggregate([m], qrels, run)  # the lender's own pipeline
    p = provider()
    assert not p.supports(m)
    with pytest.raises(ValueError, match="rankmetrics does not provide"):
        p.calc_aggregate([m], qrels, run)
    with prefer(), pytest.raises(ValueError, match="Unsupported measures"):
        irm.calc_aggregate([m], qrels, run)
    with pytest.raises(ValueError, match="cannot be combined"):
        translate(m)
    # each alone is still provided
    assert p.supports(nDCG(dcg="exp-log2") @ 5) and p.supports(nDCG(gains={2: 10}) @ 5)


def test_ids_are_read_as_evaluate_reads_them():
    """astype(str) made a float id column's 1.0 the query "1.0", which the qrels' int column
    calls "1": every query fell out of the run (AP 0.0 for evaluate's 0.75, no error); a
    missing query id crashed (qrels: TypeError from sorted) or dropped the row silently
    (run), and 1 beside "1" merged into one query where evaluate refuses them."""
    import pandas as pd

    qrels = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": [10, 11, 10],
                          "relevance": [1, 0, 1]})
    floats = pd.DataFrame({"query_id": [1.0, 1.0, 2.0], "doc_id": [10.0, 11.0, 10.0],
                           "score": [1.0, 2.0, 3.0]}, index=[5, 3, 9])
    core = evaluate(qrels, floats, ["AP"]).mean["AP"]
    assert core == pytest.approx(0.75)
    assert provider().calc_aggregate([irm.AP], qrels, floats)[irm.AP] == pytest.approx(core)
    got = {m.query_id: m.value for m in provider().iter_calc([irm.AP], qrels, floats)}
    assert got == pytest.approx({"1": 0.5, "2": 1.0})
    missing = pd.DataFrame({"query_id": ["1", None], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match="run DataFrame column 'query_id' has missing"):
        provider().calc_aggregate([irm.AP], {"1": {"a": 1}}, missing)
    with pytest.raises(ValueError, match="qrels DataFrame column 'query_id' has missing"):
        provider().evaluator([irm.AP], missing.rename(columns={"score": "relevance"}))
    with pytest.raises(ValueError, match="1 and '1' would both become"):
        provider().calc_aggregate([irm.AP], {1: {"a": 1}, "1": {"b": 1}}, {"1": {"a": 1.0}})


def test_interpolated_precision_levels_round_as_pytrec_eval_asks_them():
    """pytrec_eval (ir_measures' only IPrec provider) computes IPrec@x at trec_eval's
    iprec_at_recall_{x:.2f}: IPrec@0.125 is the level 0.12. We computed 0.125 itself (0.75
    here for pytrec_eval's 1.0: with 9 relevant documents trec_eval 9's int(x R + 0.9) needs 1
    of them at 0.12 and 2 at 0.125), and refused IPrec@1e-9 (level 0.00)."""
    qrels = {"q": {f"r{i}": 1 for i in range(9)}}
    order = ["r0", "x1", "x2", "x3", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8"]
    run = {"q": {d: float(len(order) - i) for i, d in enumerate(order)}}
    for level in (0.125, 0.333, 0.12345, 1e-9, 0.5):
        m = irm.IPrec @ level
        want = irm.providers.registry["pytrec_eval"].calc_aggregate([m], qrels, run)[m]
        assert provider(ties="docno").calc_aggregate([m], qrels, run)[m] == pytest.approx(
            want, abs=1e-12), level
    # two measures of one level both get its value (the first was left at its default 0)
    both = [irm.IPrec @ 0.12, irm.IPrec @ 0.125]
    assert provider(ties="docno").calc_aggregate(both, qrels, run) == {
        both[0]: 1.0, both[1]: 1.0}


def test_the_core_iprec_name_rounds_its_level_as_ir_measures():
    """IPrec@x is ir_measures' name: the measure language now reads x to two decimals too
    (trec.evaluate gave 0.75 for IPrec@0.125 where ir_measures gives 1.0); trec_eval's own
    spelling keeps x as written."""
    from rankmetrics.trec import evaluate

    qrels = {"q": {f"r{i}": 1 for i in range(9)}}
    order = ["r0", "x1", "x2", "x3", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8"]
    run = {"q": {d: float(len(order) - i) for i, d in enumerate(order)}}
    names = ["IPrec@0.125", "IPrec@0.333", "IPrec@0.12345"]
    got = evaluate(qrels, run, names, ties="docno").mean
    reference = irm.providers.registry["pytrec_eval"]
    for name in names:
        m = irm.parse_measure(name)
        assert got[name] == pytest.approx(reference.calc_aggregate([m], qrels, run)[m],
                                          abs=1e-12), name
    assert got["IPrec@0.125"] == 1.0
    from rankmetrics.measures.grammar import parse_measure
    assert parse_measure("iprec_at_recall_0.125")[0].level == 0.125


def test_a_qrels_query_judging_nothing_is_reported_as_ir_measures_reports_it():
    """A dict query with no judgments ({"1": {}}, e.g. qrels filtered to relevant documents)
    is one of ir_measures' queries, reported with 0; it vanished here (mean AP 1.0 for
    pytrec_eval's 0.5)."""
    qrels = {"1": {}, "2": {"a": 1}}
    run = {"1": {"a": 1.0}, "2": {"a": 1.0}}
    measures = [irm.AP, irm.NumRet]
    reference = irm.providers.registry["pytrec_eval"]
    want = _per_query(reference.evaluator(measures, qrels), run)
    assert _per_query(provider(ties="docno").evaluator(measures, qrels), run) == want
    assert provider().calc_aggregate(measures, qrels, run) == reference.calc_aggregate(
        measures, qrels, run) == {irm.AP: 0.5, irm.NumRet: 1.0}


def test_measures_that_are_not_measure_objects_are_a_type_error():
    """A measure name ('AP') failed with AttributeError ('str' object has no attribute
    'validate_params'), a bare measure instead of a list with KeyError: 0."""
    from rankmetrics.ir_measures import prefer

    qrels, run = {"1": {"a": 1}}, {"1": {"a": 1.0}}
    with pytest.raises(TypeError, match=r"parse_measure\('AP'\)"):
        provider().calc_aggregate(["AP"], qrels, run)
    with pytest.raises(TypeError, match=r"a list of ir_measures measures; got AP \(write \[AP\]"):
        provider().calc_aggregate(irm.AP, qrels, run)
    with pytest.raises(TypeError, match="a list of ir_measures measures"):
        provider().evaluator("AP", qrels)
    with pytest.raises(TypeError, match="Measure objects; got int 5"):
        provider().supports(5)
    with prefer(), pytest.raises(TypeError, match="Measure objects"):
        irm.calc_aggregate(["AP"], qrels, run)
    assert provider().calc_aggregate((m for m in [irm.AP]), qrels, run) == {irm.AP: 1.0}


def test_a_dict_whose_values_are_not_mappings_is_a_type_error():
    """{"1": 1.0} as a run (or qrels) failed inside ir_measures' converter with AttributeError
    ('float' object has no attribute 'items'); pytrec_eval gives a TypeError."""
    qrels, run = {"1": {"a": 1}}, {"1": {"a": 1.0}}
    with pytest.raises(TypeError, match=r"run dict: query '1' maps to float 1.0; expected"):
        provider().calc_aggregate([irm.AP], qrels, {"1": 1.0})
    with pytest.raises(TypeError, match=r"qrels dict: query '1' maps to list"):
        provider().calc_aggregate([irm.AP], {"1": [("a", 1)]}, run)
