"""rankmetrics.trec against trec_eval 10.0's own expected outputs (``../shared/data/trec_eval``).

With ``ties="docno"`` and linear gain every per-query and "all" value printed by trec_eval's
quicktest (4 decimals) must be reproduced: ``out.test.aq`` (``-q``), ``out.test.aqc`` (``-c``,
topic 302 missing from the run), ``out.test.aqcM`` (``-c -M100``), ``out.test.aql`` (``-l2``,
graded qrels with -1 labels) and the parameterised rows of ``out.test.meas_params``. The last test
prints how much trec_eval's docno tie-breaking moves the numbers compared with exact tie
averaging (``ties="average"``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rankmetrics.cli import main
from rankmetrics.trec import evaluate, tie_effect

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: every measure of the issue, by its trec_eval name, plus the counts and map_cut
MEASURES = (
    ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "ndcg", "11pt_avg",
     "bpref"]
    + [f"P_{k}" for k in CUTS]
    + [f"recall_{k}" for k in CUTS]
    + [f"ndcg_cut_{k}" for k in CUTS]
    + [f"map_cut_{k}" for k in CUTS]
    + ["success_1", "success_5", "success_10"]
    + [f"iprec_at_recall_{x / 10:.2f}" for x in range(11)]
)
#: the measures that have an exact tie-averaged form (for the ties report)
AVERAGEABLE = [m for m in MEASURES if not m.startswith(("iprec", "11pt", "num_"))]

CASES = {
    "out.test.aq": ("qrels.test", "results.test", {}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"complete": True}),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"complete": True, "max_depth": 100}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"threshold": 2}),
}
CLI_FLAGS = {"complete": ["-c"], "max_depth": ["-M", "100"], "threshold": ["-l", "2"]}

#: out.test.meas_params row name -> our spelling (ir_measures style where it has parameters)
MEAS_PARAMS = {
    "ndcg_1=3,2=9,4=4.5": "nDCG(gains={1: 3, 2: 9, 4: 4.5})",
    "ndcg_cut_10": "ndcg_cut_10",
    "ndcg_cut_20": "nDCG@20",
    "ndcg_cut_23": "ndcg_cut_23",
    "P_3": "P@3",
    "P_5": "P_5",
    "P_7": "p@7",
    "success_2": "Success@2",
    "success_5": "success_5",
    "success_20": "SUCCESS@20",
    "iprec_at_recall_0.10": "IPrec(rule=trec)@0.1",
    "iprec_at_recall_0.20": "iprec_at_recall_0.20",
    "iprec_at_recall_0.25": "IPrec(rule=trec)@0.25",
    "iprec_at_recall_0.50": "IPrec(rule=trec)@.5",
    "iprec_at_recall_0.75": "IPrec(rule=trec)@0.75",
    "recall_20": "R@20",
    "recall_2000": "recall_2000",
    "11pt_avg_.25,.5,.75": "11pt_avg(levels=[.25, .5, .75])",
}


def expected(path: Path) -> dict[tuple[str, str], str]:
    """(measure, query) -> printed value of a trec_eval output file."""
    out = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3:
            out[(parts[0], parts[1])] = parts[2]
    return out


def printed(name: str, value: float) -> str:
    return str(int(round(value))) if name.startswith("num_") else f"{value:.4f}"


def compare(result, exp: dict, names: dict[str, str]) -> list[str]:
    """Mismatches between our values and trec_eval's (names: trec_eval name -> our column)."""
    bad = []
    queries = [*result.per_query.index, "all"]
    for trec_name, ours in names.items():
        for q in queries:
            v = result.mean[ours] if q == "all" else float(result.per_query.loc[q, ours])
            want = exp.get((trec_name, q))
            if want is None:
                bad.append(f"{trec_name} {q}: not in trec_eval's output")
            elif printed(trec_name, v) != want:
                bad.append(f"{trec_name} {q}: {printed(trec_name, v)} != trec_eval {want}")
    return bad


@pytest.mark.parametrize("out_file", sorted(CASES))
def test_all_measures_match_trec_eval(shared_data, out_file):
    qrels, run, opts = CASES[out_file]
    d = shared_data / "trec_eval"
    exp = expected(d / out_file)
    res = evaluate(d / qrels, d / run, MEASURES, ties="docno", gain="linear", **opts)
    assert list(res.per_query.index) == ["301", "302", "303"]
    assert compare(res, exp, {m: m for m in MEASURES}) == []
    # every per-query and "all" row of these measures was checked
    assert len(res.per_query) * len(MEASURES) + len(MEASURES) == 4 * len(MEASURES)


def test_meas_params_rows_match_trec_eval(shared_data):
    d = shared_data / "trec_eval"
    exp = expected(d / "out.test.meas_params")
    res = evaluate(d / "qrels.test", d / "results.test", list(MEAS_PARAMS.values()),
                   ties="docno", gain="linear")
    assert compare(res, exp, MEAS_PARAMS) == []


def test_cli_takes_trec_evals_own_meas_params_command(shared_data, capsys):
    """trec_eval's own test command for parameters (its Makefile, in
    quicktest_commands_from_Makefile.txt) prints trec_eval's lines in trec_eval's order: the
    gain map ``ndcg.1=3,2=9,4=4.5`` and the levels ``11pt_avg..25,.5,.75`` were refused as
    unknown measures, ``P.5,7,3`` printed unsorted and ``ndcg_cut.23.4`` was refused (trec_eval
    reads 23). Rprec_mult and utility, which rankmetrics does not compute, are left out."""
    d = shared_data / "trec_eval"
    command = (d / "quicktest_commands_from_Makefile.txt").read_text()
    line = next(x for x in command.splitlines() if "out.test.meas_params" in x)
    words = line.split()[1:line.split().index("test/qrels.test")]
    args = []
    it = iter(words)
    for f in it:  # "-m X" or "-mX"; the unsupported measures left out
        value = next(it) if f == "-m" else f[2:] if f.startswith("-m") else None
        if value is None:
            args.append(f)
        elif not value.startswith(("Rprec_mult", "utility")):
            args += ["-m", value]
    code = main(["eval", str(d / "qrels.test"), str(d / "results.test"), *args, "--ties",
                 "docno", "--gain", "linear", "--format", "trec"])
    assert code == 0
    want = [x for x in (d / "out.test.meas_params").read_text().splitlines()
            if not x.startswith(("Rprec_mult", "utility"))]
    assert capsys.readouterr().out.splitlines() == want


@pytest.mark.parametrize("out_file", sorted(CASES))
def test_cli_trec_format_reproduces_trec_eval_lines(shared_data, capsys, out_file):
    """``rankmetrics eval --format trec -q`` prints trec_eval's own lines for these measures."""
    qrels, run, opts = CASES[out_file]
    d = shared_data / "trec_eval"
    flags = [f for key in opts for f in CLI_FLAGS[key]]
    code = main(["eval", str(d / qrels), str(d / run), "-m", ",".join(MEASURES), "-q",
                 "--ties", "docno", "--gain", "linear", "--format", "trec", *flags])
    assert code == 0
    ours = capsys.readouterr().out.splitlines()
    lines = (d / out_file).read_text().splitlines()
    theirs = set(lines)
    assert len(ours) == 4 * len(MEASURES)
    assert [line for line in ours if line not in theirs] == []
    # and in trec_eval's order (its measure table's), not in the order of -m (MEASURES lists
    # bpref after recip_rank and 11pt_avg before P_5: they printed in that order)
    assert ours == [line for line in lines if line in set(ours)]


def test_cli_bare_family_names_print_trec_eval_families(shared_data, capsys):
    """``-m P`` and ``-m recall`` print trec_eval's P_5 ... P_1000 and recall_5 ...
    recall_1000 (its lines in out.test.aq), as ``-m ndcg_cut`` and ``-m success`` did; they
    printed one whole-list P and recall row. trec_eval's whole-list ones stay ``set_P`` /
    ``set_recall``."""
    d = shared_data / "trec_eval"
    code = main(["eval", str(d / "qrels.test"), str(d / "results.test"), "-m", "P",
                 "-m", "recall,success", "-m", "ndcg_cut", "-m", "set_P", "-q", "--ties",
                 "docno", "--format", "trec"])
    assert code == 0
    ours = capsys.readouterr().out.splitlines()
    names = list(dict.fromkeys(line.split()[0] for line in ours))
    assert names == ([f"P_{k}" for k in CUTS] + [f"recall_{k}" for k in CUTS]
                     + [f"ndcg_cut_{k}" for k in CUTS]
                     + ["success_1", "success_5", "success_10"] + ["set_P"])
    theirs = set((d / "out.test.aq").read_text().splitlines())
    assert len(ours) == 4 * len(names)
    assert [line for line in ours if line not in theirs] == []


def test_report_how_much_ties_move_trec_eval(shared_data, capsys):
    """Ties report: trec_eval's docno order vs the exact average over tied orderings.

    results.test has 9 groups of tied scores (6 in topic 301, 2 in 302, 1 in 303); only one of
    them, in topic 301 (score 2.243509), mixes a relevant and a non-relevant document, so only
    topic 301 moves, by at most 1.4e-5 (ndcg_cut_100; map by 4.2e-6). Five of the values trec_eval
    prints (4 decimals) change in the last digit: ndcg_cut_100 of topic 301 and its "all" row
    under -l2 (out.test.aql), and the "all" rows of ndcg, ndcg_cut_500 and ndcg_cut_1000 under -c
    (out.test.aqc), which sit on a rounding boundary.
    """
    d = shared_data / "trec_eval"
    lines = ["ties='docno' (trec_eval) minus ties='average' (exact), linear gain, "
             f"{len(AVERAGEABLE)} measures:"]
    changed_topics, printed_changes = {}, []
    for out_file, (qrels, run, opts) in sorted(CASES.items()):
        eff = tie_effect(d / qrels, d / run, AVERAGEABLE, gain="linear", **opts)
        topics = sorted(eff["qid"].unique())
        changed_topics[out_file] = topics
        worst = eff["delta"].abs().max() if len(eff) else 0.0
        lines.append(f"  {out_file:<14} topics changed: {len(topics)} of 3 {topics}, "
                     f"(measure, topic) pairs: {len(eff)}, max |delta| {worst:.2e}")
        for row in eff.itertuples():
            lines.append(f"      {row.measure:<14} {row.qid}  docno {row.docno:.6f}  "
                         f"average {row.average:.6f}  delta {row.delta:+.2e}")
            if f"{row.docno:.4f}" != f"{row.average:.4f}":
                printed_changes.append((out_file, row.measure, row.qid))
        docno = evaluate(d / qrels, d / run, AVERAGEABLE, ties="docno", gain="linear", **opts)
        avg = evaluate(d / qrels, d / run, AVERAGEABLE, ties="average", gain="linear", **opts)
        moved = {m: docno.mean[m] - avg.mean[m] for m in AVERAGEABLE
                 if abs(docno.mean[m] - avg.mean[m]) > 1e-12}
        lines.append(f"      'all' rows changed: {len(moved)}, max |delta| "
                     f"{max(map(abs, moved.values()), default=0.0):.2e}")
        printed_changes += [(out_file, m, "all") for m in moved
                            if f"{docno.mean[m]:.4f}" != f"{avg.mean[m]:.4f}"]
        assert worst < 2e-5
    lines.append(f"  printed 4-decimal values that change: {printed_changes}")
    report = "\n".join(lines)
    with capsys.disabled():  # shown with ``pytest -s``
        print("\n" + report)
    assert all(t == ["301"] for t in changed_topics.values())
    assert printed_changes == [
        ("out.test.aqc", "ndcg", "all"), ("out.test.aqc", "ndcg_cut_500", "all"),
        ("out.test.aqc", "ndcg_cut_1000", "all"), ("out.test.aql", "ndcg_cut_100", "301"),
        ("out.test.aql", "ndcg_cut_100", "all"),
    ]
    assert "topics changed: 1 of 3 ['301']" in report
