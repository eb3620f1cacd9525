"""Analysis on real inputs: trec_eval's test runs and LightGBM LambdaRank models as TREC runs.

* ../shared/data/trec_eval: results.test against results.trunc (topic 302 missing from the
  latter). The per-query scores the tests see are trec_eval's own (out.test.aq / .aqc), zero-fill
  is trec_eval's ``-c``, and the 11-point curve under trec_eval's docno tie order is its
  ``iprec_at_recall`` row.
* ../shared/data/lightgbm_lambdarank: a LambdaRank model after 1, 10 and 50 boosting rounds,
  each written as a TREC run over rank.test (qrels = rank.test's labels), compared with every
  test and plotted; the TREC path (files) equals the array path (core functions).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from _extras import require

require("pandas")
require("scipy")
require("matplotlib")

import rankmetrics as rm  # noqa: E402
from rankmetrics import cli  # noqa: E402
from rankmetrics.plot import (  # noqa: E402
    gain_curves,
    interpolated_precision,
    trec_gain_curves,
    trec_interpolated_precision,
)
from rankmetrics.stats import compare, compare_runs, per_query_scores  # noqa: E402

ROUNDS = (1, 10, 50)


def _trec_values(path: Path, measure: str) -> dict[str, float]:
    out = {}
    for line in path.read_text().splitlines():
        f = line.split()
        if f and f[0] == measure:
            out[f[1]] = float(f[2])
    return out


# ----------------------------------------------------------------------------- trec_eval
@pytest.fixture(scope="module")
def trec(shared_data: Path) -> Path:
    return shared_data / "trec_eval"


def test_compare_test_vs_trunc_uses_trec_eval_scores(trec: Path):
    qrels, runs = trec / "qrels.test", [trec / "results.test", trec / "results.trunc"]
    full = _trec_values(trec / "out.test.aq", "ndcg_cut_10")
    trunc_c = _trec_values(trec / "out.test.aqc", "ndcg_cut_10")  # -c: 302 scores 0
    table = per_query_scores(qrels, runs, "nDCG@10", gain="linear", ties="docno")
    assert table.loc[["301", "302", "303"], "results.test"].to_numpy() == pytest.approx(
        [full[q] for q in ("301", "302", "303")], abs=5e-5)
    assert np.isnan(table.loc["302", "results.trunc"])
    inter = compare(table, test="t", missing="intersect")
    assert inter.queries.tolist() == ["301", "303"]
    assert inter.missing_queries == {"results.test": [], "results.trunc": ["302"]}
    zero = compare(table, test="wilcoxon", missing="zero")
    assert zero.scores[:, 1] == pytest.approx([trunc_c[q] for q in ("301", "302", "303")],
                                              abs=5e-5)
    assert zero.means[1] == pytest.approx(trunc_c["all"], abs=5e-5)
    (comp,) = compare_runs(qrels, runs, "nDCG@10", tests="friedman", gain="linear",
                           ties="docno")
    assert comp.means == pytest.approx(inter.means)


def test_eleven_point_curve_is_trec_evals_iprec(trec: Path):
    expect = [_trec_values(trec / "out.test.a", f"iprec_at_recall_{lvl:.2f}")["all"]
              for lvl in np.arange(11) / 10]
    pr = trec_interpolated_precision(trec / "qrels.test", [trec / "results.test"], ties="docno")
    assert pr["results"] == pytest.approx(expect, abs=5e-5)


def test_cli_compare_and_plot_on_trec_eval_runs(trec: Path, tmp_path: Path, capsys):
    args = [str(trec / "qrels.test"), str(trec / "results.test"), str(trec / "results.trunc")]
    assert cli.main(["compare", *args, "-m", "nDCG@10", "-m", "P@10", "--test", "t",
                     "--test", "wilcoxon", "--gain", "linear", "--ties", "docno"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^nDCG@10 +0\.076 +0\.258 +0\.182 \(\+239\.4%\)$", out, re.M)
    assert "queries compared: 2 (missing='intersect': 1 dropped; results.trunc lacks 1 (302))" \
        in out
    png = tmp_path / "trec.png"
    assert cli.main(["plot", *args, "--curve", "ndcg", "--depth", "100", "-o", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    # the figure's title names the dropped topic (302 vanished silently before)
    out = capsys.readouterr().out
    assert "2 topics (missing='intersect' dropped 302: lacking in results.trunc)" in out


# ------------------------------------------------------------------------------ LightGBM
@pytest.fixture(scope="module")
def lgb_runs(shared_data: Path, tmp_path_factory) -> dict:
    lgb = require("lightgbm")
    require("sklearn")
    from rankmetrics.datasets import load_letor

    root = shared_data / "lightgbm_lambdarank"
    train = load_letor(root / "rank.train", root / "rank.train.query", n_features=300)
    test = load_letor(root / "rank.test", root / "rank.test.query", n_features=300)
    model = lgb.train(
        {"objective": "lambdarank", "num_leaves": 7, "learning_rate": 0.1,
         "min_data_in_leaf": 20, "num_threads": 2, "seed": 0, "deterministic": True,
         "force_row_wise": True, "verbose": -1},
        lgb.Dataset(train.X, train.y, group=train.group_sizes),
        num_boost_round=max(ROUNDS),
    )
    d = tmp_path_factory.mktemp("lgb")
    qrels = d / "rank.test.qrels"
    docs = [f"d{i}" for i in range(test.n_samples)]
    qrels.write_text("".join(f"q{q} 0 {doc} {lab}\n"
                             for q, doc, lab in zip(test.qid, docs, test.y, strict=True)))
    scores, runs = {}, {}
    for r in ROUNDS:
        s = model.predict(test.X, num_iteration=r)
        scores[f"round{r}"] = s
        path = d / f"round{r}.run"
        lines = []
        for q in np.unique(test.qid):
            rows = np.flatnonzero(test.qid == q)
            rows = rows[np.argsort(-s[rows], kind="stable")]
            lines += [f"q{q} Q0 {docs[i]} {k} {float(s[i])!r} lgb{r}\n"
                      for k, i in enumerate(rows, 1)]
        path.write_text("".join(lines))
        runs[f"round{r}"] = path
    return {"test": test, "qrels": qrels, "runs": runs, "scores": scores}


def test_lightgbm_rounds_compared_with_every_test(lgb_runs: dict):
    test, qrels, runs, scores = (lgb_runs[k] for k in ("test", "qrels", "runs", "scores"))
    comps = compare_runs(qrels, runs, ["nDCG@10", "AP"], tests=["t", "wilcoxon", "friedman",
                                                                 "anova"])
    assert len(comps) == 8
    k = len(ROUNDS)
    # compare_runs evaluates with trec.evaluate's defaults: trec_eval's linear gain
    per_round = np.column_stack([rm.ndcg(test.y, scores[f"round{r}"], test.qid, k=10,
                                         gain="linear") for r in ROUNDS])
    for c in comps[:4]:
        assert c.systems == tuple(f"round{r}" for r in ROUNDS)
        assert c.n_queries == 50 and c.missing_statement().endswith("every query)")
        # files -> trec.evaluate -> compare equals the core on the arrays
        assert c.means == pytest.approx(per_round.mean(axis=0))
        assert len(c.pairwise) == k * (k - 1) // 2
        assert all(0 <= p.pvalue <= 1 for p in c.pairwise)
    direct = compare(per_round, test="friedman", systems=[f"round{r}" for r in ROUNDS])
    assert comps[2].omnibus.statistic == pytest.approx(direct.omnibus.statistic)
    # boosting helps on this data: the last model beats the first on average
    assert comps[0].pair("round1", f"round{ROUNDS[-1]}").mean_diff > 0


def test_lightgbm_curves_trec_path_equals_array_path(lgb_runs: dict, tmp_path: Path, capsys):
    test, qrels, runs, scores = (lgb_runs[k] for k in ("test", "qrels", "runs", "scores"))
    for curve in ("dcg", "ndcg", "ncg"):
        a, ai = gain_curves(test.y, scores, test.qid, curve=curve, depth=20)
        t, ti = trec_gain_curves(qrels, runs, curve=curve, depth=20)
        assert ti == pytest.approx(ai)
        for name in scores:
            assert t[name] == pytest.approx(a[name])
    pr = trec_interpolated_precision(qrels, runs, ties="optimistic")
    for name, s in scores.items():
        arr = interpolated_precision(test.y, s, test.qid, ties="optimistic")
        assert pr[name] == pytest.approx(arr.mean(axis=0))
    png = tmp_path / "lgb.png"
    assert cli.main(["plot", str(qrels), *map(str, runs.values()), "--curve", "ndcg",
                     "--depth", "20", "-o", str(png)]) == 0
    assert png.stat().st_size > 1000
    capsys.readouterr()
    assert cli.main(["compare", str(qrels), *map(str, runs.values()), "-m", "nDCG@10",
                     "--test", "friedman", "--test", "anova"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    assert header.split()[:len(ROUNDS)] == [f"round{r}" for r in ROUNDS]
    assert f"round{ROUNDS[-1]} - round{ROUNDS[0]}" in header


def test_readme_figure_script_runs(tmp_path: Path):
    require("lightgbm")
    import importlib.util

    script = Path(__file__).resolve().parents[1] / "examples" / "plot_curves.py"
    spec = importlib.util.spec_from_file_location("plot_curves_example", script)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.main(["-o", str(tmp_path / "curves.png")])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20_000


def test_analysis_example_prints_the_readme_report(tmp_path: Path, capsys):
    require("scipy")
    require("statsmodels")
    require("matplotlib")
    import importlib.util

    root = Path(__file__).resolve().parents[1]
    script = root / "examples" / "analysis_report.py"
    spec = importlib.util.spec_from_file_location("analysis_report_example", script)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out_dir = mod.main(["-o", str(tmp_path)])
    out = capsys.readouterr().out
    readme = (root / "README.md").read_text()
    table = out[out.index("|  |"):out.index("wrote ")].strip()
    assert table in readme  # the README's report is this script's output
    hz = out[out.index("horizontal reading of CG"):out.index("\n\n$ rankmetrics plot")]
    assert hz.strip().replace(str(tmp_path), "analysis_out") in readme
    for ext in ("tex", "csv", "json"):
        assert (out_dir / f"table1.{ext}").stat().st_size > 500
    assert (out_dir / "ndcg.png").read_bytes()[:4] == b"\x89PNG"
