"""JK analysis from runs: vectors, avg-pos, horizontal reading, reports (golden), PR points."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm
from rankmetrics.analysis.pr import fallout, precision_recall_points
from rankmetrics.analysis.vectors import avg_pos, horizontal_reading

GOLDEN = Path(__file__).parent / "golden"

# JK 2002 research note, Sec. 2.1-2.3: G', CG', DCG' (b = 2), the ideal I' and its vectors
G1 = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
CG1 = [3, 5, 8, 8, 8, 9, 11, 13, 16, 16]
DCG1 = [3, 5, 6.89, 6.89, 6.89, 7.28, 7.99, 8.66, 9.61, 9.61]
I1 = [3, 3, 3, 2, 2, 2, 1, 1, 1, 1]
CGI = [3, 6, 9, 11, 13, 15, 16, 17, 18, 19]
DCGI = [3, 6, 7.89, 8.89, 9.75, 10.52, 10.88, 11.21, 11.53, 11.83]


def test_seed_vectors_and_their_horizontal_reading():
    score = -np.arange(10.0)
    cg = rm.cg_curve(G1, score, depth=10, gain="linear")[0]
    dcg = rm.dcg_curve(G1, score, depth=10, gain="linear", discount="jarvelin2002")[0]
    assert cg == pytest.approx(CG1)
    assert dcg == pytest.approx(DCG1, abs=0.01)  # printed truncated to two decimals
    # ranks CG' needs for CG_I'[n]: 3 -> 1, 6 -> 3 (CG' 8), 9 -> 6, 11 -> 7, 13 -> 8,
    # 15 and 16 -> 9; 17, 18, 19 never within the 10 printed ranks
    got = [horizontal_reading(CG1, CGI, n) for n in range(1, 11)]
    assert got[:7] == [1, 3, 6, 7, 8, 9, 9] and all(math.isnan(x) for x in got[7:])
    # DCG': 6 -> 3 (6.89), 7.89 -> 7 (7.99), 8.89 -> 9 (9.61); 9.75 never
    got = [horizontal_reading(DCG1, DCGI, n) for n in range(1, 6)]
    assert got[:4] == [1, 3, 7, 9] and math.isnan(got[4])
    # per-query (2-D) against a run, and a zero reference is NaN (nothing to reach)
    rows = horizontal_reading([CG1, CGI], [CGI, CG1], 3)
    assert rows.tolist() == [6.0, 3.0]
    assert math.isnan(horizontal_reading([0, 1], [0, 0], 2))
    with pytest.raises(ValueError, match="n must be between 1 and the reference length 10"):
        horizontal_reading(CG1, CGI, 11)


def test_avg_pos_ranges():
    v = np.array([CG1, CGI], dtype=float) / 20
    assert avg_pos(v, 10).tolist() == pytest.approx(v.mean(axis=1))
    assert avg_pos(v, 10, start=4) == pytest.approx(v[:, 3:].mean(axis=1))
    with pytest.raises(ValueError, match="start must be between 1 and k=3"):
        avg_pos(v, 3, start=4)


def test_avg_pos_names_take_ascii_digits_only():
    from rankmetrics.measures.grammar import _xgboost_hint, parse_avg_pos

    assert parse_avg_pos("avg-nDCG@2-10") == ("ndcg", 2, 10)
    # other scripts' digits (Arabic-Indic three) are not a rank: the name is no vector name
    assert parse_avg_pos("avg-ndcg@\u0663") is None
    assert parse_avg_pos("avg-ndcg@1-\u0663") is None
    assert _xgboost_hint("pre@\u0663") == ""


def test_avg_pos_name_that_is_not_a_string_is_a_type_error():
    """parse_avg_pos (public in rankmetrics.stats) raised AttributeError "'int' object has no
    attribute 'strip'" for 5, None or a measure object (compare_runs(metrics=[nDCG@10]) too),
    and "cannot use a string pattern on a bytes-like object" for bytes, naming nothing."""
    from rankmetrics.measures import nDCG
    from rankmetrics.stats import parse_avg_pos

    for bad in (5, None, b"avg-ndcg@10", nDCG @ 10):
        with pytest.raises(TypeError, match="metric must be a measure name"):
            parse_avg_pos(bad)


@pytest.fixture(scope="module")
def trec(tmp_path_factory):
    require("pandas")
    d = tmp_path_factory.mktemp("jk")
    rng = np.random.default_rng(21)
    qrels, runs = [], {"bool": [], "sum": [], "ssyn": []}
    for t in range(301, 309):
        labels = rng.choice(4, 30, p=[0.55, 0.2, 0.15, 0.1])
        qrels += [f"{t} 0 D{j} {lv}" for j, lv in enumerate(labels)]
        for name, noise in (("bool", 3.0), ("sum", 1.5), ("ssyn", 0.6)):
            if name == "bool" and t == 302:
                continue  # topic 302 is missing from one run
            s = np.round(labels + rng.normal(0, noise, 30), 1)
            runs[name] += [f"{t} Q0 D{j} {i} {s[j]} {name}" for i, j in enumerate(np.argsort(-s))]
    (d / "qrels.txt").write_text("\n".join(qrels) + "\n")
    paths = []
    for name, lines in runs.items():
        (d / f"{name}.run").write_text("\n".join(lines) + "\n")
        paths.append(d / f"{name}.run")
    return d / "qrels.txt", paths


def test_trec_gain_vectors_match_evaluate_and_curves(trec):
    from rankmetrics.plot import trec_gain_curves, trec_gain_vectors
    from rankmetrics.trec import evaluate

    qrels, runs = trec
    gv = trec_gain_vectors(qrels, runs, curve="ndcg", depth=20, gain=[0, 1, 10, 100])
    assert set(gv.vectors) == {"bool", "sum", "ssyn"}
    assert "302" not in gv.queries.tolist() and gv.dropped_queries == ["302"]
    assert gv.missing_queries["bool"] == ["302"]
    ev = evaluate(qrels, runs[1], ["nDCG@5", "nDCG@20"], gain=[0, 1, 10, 100]).per_query
    ev = ev.loc[gv.queries]
    assert gv.vectors["sum"][:, [4, 19]] == pytest.approx(ev.to_numpy())
    curves, _ = trec_gain_curves(qrels, runs, curve="ndcg", depth=20, gain=[0, 1, 10, 100])
    assert curves["sum"] == pytest.approx(gv.vectors["sum"].mean(axis=0))
    ap = gv.avg_pos(10)
    assert ap["ssyn"].to_numpy() == pytest.approx(gv.vectors["ssyn"][:, :10].mean(axis=1))
    raw = trec_gain_vectors(qrels, runs, curve="cg", depth=40, gain="linear")
    h = raw.horizontal(5)
    for name in raw.vectors:
        expect = [horizontal_reading(v, i, 5) for v, i in zip(raw.vectors[name], raw.ideal,
                                                               strict=True)]
        assert h[name].to_numpy() == pytest.approx(np.array(expect), nan_ok=True)
    on_avg = raw.horizontal_on_average(5, reference="ssyn")
    assert on_avg["ssyn"] <= 5
    with pytest.raises(ValueError, match="horizontal readings need cumulated vectors"):
        gv.horizontal(5)
    # a reference that is not a string raised "unhashable type: 'list'", naming nothing
    for bad in (["ssyn"], None):
        with pytest.raises(TypeError, match="reference must be 'ideal' or a run name"):
            raw.horizontal(5, reference=bad)
        with pytest.raises(TypeError, match="reference must be 'ideal' or a run name"):
            raw.horizontal_on_average(5, reference=bad)


def test_compare_tests_avg_pos_of_vectors(trec):
    from rankmetrics.plot import trec_gain_vectors
    from rankmetrics.stats import compare, compare_runs

    qrels, runs = trec
    cs = compare_runs(qrels, runs, ["avg-ndcg@1-10", "avg-ncg@20"], tests=["t"],
                      gain=[0, 1, 10, 100])
    gv = trec_gain_vectors(qrels, runs, curve="ndcg", depth=10, gain=[0, 1, 10, 100])
    ref = compare(gv.avg_pos(10), test="t", metric="avg-ndcg@1-10")
    assert cs[0].means == pytest.approx(ref.means)
    assert cs[0].pair("bool", "ssyn").pvalue == pytest.approx(ref.pair("bool", "ssyn").pvalue)
    assert cs[0].dropped_queries == ["302"] and cs[1].metric == "avg-ncg@20"
    zero = compare_runs(qrels, runs, "avg-ndcg@1-10", missing="zero", gain=[0, 1, 10, 100])[0]
    assert zero.n_queries == 8 and zero.scores[zero.queries.tolist().index("302"), 0] == 0


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("RANKMETRICS_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs from the golden file"


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "csv", "json"])
def test_compare_reports_are_golden(trec, capsys, fmt):
    require("scipy")
    require("statsmodels")
    from rankmetrics import cli

    qrels, runs = trec
    argv = ["compare", str(qrels), *map(str, runs), "-m", "avg-ncg@1-20", "-m",
            "avg-ndcg@1-10", "--gain", "0,1,10,100", "--test", "randomization", "--test",
            "friedman", "--n-resamples", "500", "--seed", "3", "--correction", "holm",
            "--format", fmt]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    _golden(f"compare.{ {'markdown': 'md', 'latex': 'tex'}.get(fmt, fmt) }".replace(" ", ""),
            out)
    assert "302" in out  # the dropped topic is named in every format
    if fmt == "json":
        data = json.loads(out)
        assert data["dropped_queries"] == {"avg-ncg@1-20": ["302"], "avg-ndcg@1-10": ["302"]}
        assert data["comparisons"][0]["n_resamples"] == 500
    if fmt in ("text", "markdown", "latex"):
        assert "7 sign flips (exact)" in out and "Holm" in out


def test_horizontal_and_query_position_cli(trec, capsys, tmp_path):
    require("matplotlib")
    from rankmetrics import cli

    qrels, runs = trec
    assert cli.main(["horizontal", str(qrels), *map(str, runs), "--at", "5", "--at", "10",
                     "--gain", "linear", "--depth", "30", "--per-query"]) == 0
    out = capsys.readouterr().out
    assert "7 topics (missing='intersect' dropped 302: lacking in bool)" in out
    from rankmetrics.plot import trec_gain_vectors

    gv = trec_gain_vectors(qrels, runs, curve="cg", depth=30, gain="linear")
    ssyn = [ln for ln in out.splitlines() if ln.startswith("ssyn ")][0].split()
    assert float(ssyn[1]) == gv.horizontal_on_average(5)["ssyn"]
    assert float(ssyn[2]) == pytest.approx(np.nanmean(gv.horizontal(5)["ssyn"]), abs=0.05)


def test_precision_recall_points_and_fallout_by_enumeration():
    import itertools

    y = np.array([1, 0, 1, 0, 0])
    s = np.array([3.0, 2.0, 2.0, 2.0, 1.0])  # a tie group of three with one relevant
    r, p = precision_recall_points(y, s, ties="average")
    fo = [fallout(y, s, k=k, n_documents=20)[0] for k in range(1, 6)]
    orders = [list(o) for o in itertools.permutations([1, 2, 3])]
    pr_all, fo_all = [], []
    for o in orders:
        ranked = y[[0, *o, 4]]
        rel = np.cumsum(ranked)
        pr_all.append(rel / np.arange(1, 6))
        fo_all.append((np.arange(1, 6) - rel) / 18)
    assert p[0] == pytest.approx(np.mean(pr_all, axis=0))
    assert r[0] == pytest.approx(np.mean(pr_all, axis=0) * np.arange(1, 6) / 2)
    assert fo == pytest.approx(np.mean(fo_all, axis=0))
    with pytest.raises(ValueError, match="collection size"):
        fallout(y, s, k=2, n_documents=3)


def test_sessions_by_length_reproduces_2008_table2():
    require("pandas")
    from rankmetrics.session import sessions_by_length

    table2 = {"System 1": [28, 7, 10, 4, 5, 4, 1, 1, 0, 0, 0],
              "System 2": [21, 7, 9, 11, 2, 4, 2, 2, 0, 1, 1]}
    counts = {k: np.repeat(np.arange(1, 12), v) for k, v in table2.items()}
    t = sessions_by_length(counts)
    for k, v in table2.items():
        assert t.loc[k, list(range(1, 12))].tolist() == v
        assert t.loc[k, "sessions"] == 60
    assert round(t.loc["System 1", "avg_queries"], 2) == 2.53
    assert round(t.loc["System 2", "avg_queries"], 2) == 3.18
    with pytest.raises(ValueError, match="integers >= 1"):
        sessions_by_length([0, 1])


def test_json_report_is_valid_json_when_the_omnibus_p_is_nan() -> None:
    import dataclasses
    import json
    import math

    from rankmetrics.analysis.report import comparison_json
    from rankmetrics.stats import compare

    c = compare({"A": [0.2, 0.4, 0.3], "B": [0.3, 0.5, 0.1], "C": [0.1, 0.2, 0.6]},
                test="anova")
    c = dataclasses.replace(c, omnibus=dataclasses.replace(c.omnibus, pvalue=math.nan))
    text = json.dumps(comparison_json(c), allow_nan=False)  # NaN is not JSON
    assert json.loads(text)["omnibus"]["pvalue"] is None


def test_markdown_report_escapes_strikethrough_code_links_and_tags():
    """Run names "bm25~1" and "bm25~2" made GitHub strike through "1 - bm25" (GFM's single
    tilde strikethrough); backticks, brackets and an HTML tag start were not escaped either."""
    require("scipy")
    from rankmetrics.analysis.report import render_report
    from rankmetrics.stats import compare

    c = compare({"bm25~1": [0.2, 0.4, 0.3, 0.5], "`x`[y](z)<b>": [0.3, 0.6, 0.4, 0.7]},
                metric="m")
    header = render_report([c], "markdown").splitlines()[0]
    assert header == (r"|  | bm25\~1 | \`x\`\[y\](z)\<b> | \`x\`\[y\](z)\<b> - bm25\~1 |")
    assert "- \\* = p < 0.05" in render_report([c], "markdown")  # "< " is no tag: left as is


def test_csv_report_carries_the_omnibus_test():
    """The guide says every format carries the omnibus tests; the CSV report had no column
    for them (a Friedman or ANOVA comparison lost its F / chi2, df and p-value)."""
    require("scipy")
    import csv
    import io

    from rankmetrics.analysis.report import render_report
    from rankmetrics.stats import compare

    scores = {"A": [0.2, 0.4, 0.3, 0.5, 0.1], "B": [0.3, 0.6, 0.4, 0.7, 0.2],
              "C": [0.1, 0.1, 0.2, 0.3, 0.3]}
    c = compare(scores, test="anova")
    rows = list(csv.DictReader(io.StringIO(render_report([c], "csv"))))
    assert len(rows) == 3
    for row in rows:
        assert row["omnibus"] == "anova_F" and row["omnibus_df"] == "2 8"
        assert float(row["omnibus_statistic"]) == c.omnibus.statistic
        assert float(row["omnibus_pvalue"]) == c.omnibus.pvalue
        assert float(row["omnibus_effect_size"]) == c.omnibus.effect_size
    t = list(csv.DictReader(io.StringIO(render_report([compare(scores, test="t")], "csv"))))
    assert {r["omnibus"] for r in t} == {""}


def test_latex_report_makes_line_breaks_spaces():
    """A system name holding a blank line ("a\\n\\nb") put a paragraph break into the
    caption, where LaTeX stops ("Paragraph ended before \\@caption was complete"), and into
    the table cells; line breaks are now spaces, as in Markdown."""
    require("scipy")
    from rankmetrics.analysis.report import render_report
    from rankmetrics.stats import compare

    c = compare({"a\n\nb": [0.2, 0.4, 0.3, 0.5, float("nan")], "c\r\nd": [0.3, 0.6, 0.4, 0.7, 0.1]},
                metric="m")
    tex = render_report([c], "latex")
    assert "\n\n" not in tex and "\r" not in tex
    assert " & a  b & c d & c d $-$ a  b \\\\" in tex
    assert "a  b lacks 1 (4)" in tex.split("\\caption{")[1]
