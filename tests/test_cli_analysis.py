"""``rankmetrics plot`` and ``rankmetrics compare`` end to end on small files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _extras import require

require("pandas")
require("scipy")
require("matplotlib")

from rankmetrics import cli  # noqa: E402
from rankmetrics.cli.analysis import parse_gain  # noqa: E402
from rankmetrics.plot import trec_gain_curves  # noqa: E402
from rankmetrics.stats import compare  # noqa: E402
from rankmetrics.trec import evaluate  # noqa: E402

RNG = np.random.default_rng(5)
QIDS = [f"q{i}" for i in range(8)]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("trec")
    qrels = d / "qrels.txt"
    lines = []
    for q in QIDS:
        for j in range(12):
            lines.append(f"{q} 0 D{j} {int(RNG.choice(4, p=[0.5, 0.25, 0.15, 0.1]))}")
    qrels.write_text("\n".join(lines) + "\n")
    runs = []
    for name, noise in (("good", 0.5), ("fair", 1.5), ("poor", 4.0)):
        path = d / f"{name}.run"
        out = []
        for q in QIDS if name != "poor" else QIDS[:-1]:  # "poor" lacks the last query
            for j in range(15):
                score = round(float(3 - j / 4 + RNG.normal(0, noise)), 1)  # ties
                out.append(f"{q} Q0 D{j} {j + 1} {score} {name}")
        path.write_text("\n".join(out) + "\n")
        runs.append(path)
    return qrels, runs


def run_cli(argv, capsys):
    rc = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_compare_table_matches_the_api(files, capsys):
    qrels, runs = files
    rc, out, err = run_cli(["compare", qrels, *runs, "-m", "nDCG@10", "--test", "friedman",
                            "--test", "anova", "--details"], capsys)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["good", "fair", "poor"]  # names without extensions
    per_q = {r.stem: evaluate(qrels, r, ["nDCG@10"]).per_query["nDCG@10"] for r in runs}
    fr = compare(per_q, test="friedman", metric="nDCG@10")
    row = lines[1].split()
    assert row[0] == "nDCG@10"
    assert row[1:4] == [f"{m:.3f}" for m in fr.means]
    assert "missing='intersect': 1 dropped; poor lacks 1 (q7)" in out
    assert "* = p < 0.05: Friedman test" in out and "# = p < 0.05: two-way ANOVA" in out
    assert "omnibus friedman_chi2(2)" in out and "omnibus anova_F(2, 12)" in out


def test_compare_json_zero_fill_and_options(files, capsys):
    qrels, runs = files
    rc, out, err = run_cli(["compare", qrels, runs[0], runs[2], "-m", "P@5", "--missing", "zero",
                            "--names", "A,B", "--format", "json", "--ties", "docno",
                            "--gain", "0,1,10,100"], capsys)
    assert rc == 0, err
    (res,) = json.loads(out)["comparisons"]
    assert res["systems"] == ["A", "B"] and res["missing"] == "zero" and res["n_queries"] == 8
    assert "scored 0 where absent" in res["missing_statement"]
    a = evaluate(qrels, runs[0], ["P@5"], ties="docno").per_query["P@5"]
    b = evaluate(qrels, runs[2], ["P@5"], ties="docno").per_query["P@5"]
    assert res["means"][0] == pytest.approx(a.mean())
    assert res["means"][1] == pytest.approx(b.reindex(a.index).fillna(0).mean())
    (pair,) = res["pairwise"]
    assert pair["a"] == "A" and pair["b"] == "B" and pair["effect_name"] == "cohen_dz"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--missing", "error"], "queries are missing in some systems (poor lacks 1 (q7))"),
        (["--names", "x"], "--names needs 3 distinct comma-separated names"),
        (["-m", "bogus@3"], "bogus"),
        (["--gain", "a,b"], "--gain must be 'linear', 'exponential', level=gain pairs"),
    ],
)
def test_compare_errors(files, capsys, args, message):
    qrels, runs = files
    rc, out, err = run_cli(["compare", qrels, *runs, *args], capsys)
    assert rc == 1
    assert err.startswith("rankmetrics compare: error: ") and message in err


def test_compare_needs_two_runs(files, capsys):
    qrels, runs = files
    rc, _, err = run_cli(["compare", qrels, runs[0]], capsys)
    assert rc == 1 and "compare needs at least 2 runs; got 1" in err


def test_compare_unknown_test_is_a_usage_error(files, capsys):
    qrels, runs = files
    with pytest.raises(SystemExit) as exc:
        cli.main(["compare", str(qrels), *map(str, runs), "--test", "mannwhitney"])
    assert exc.value.code == 2
    assert "invalid choice: 'mannwhitney'" in capsys.readouterr().err


@pytest.mark.parametrize("curve", ["cg", "dcg", "ncg", "ndcg", "pr"])
def test_plot_writes_png(files, capsys, tmp_path, curve):
    qrels, runs = files
    out_png = tmp_path / f"{curve}.png"
    # pr curves run to recall 1 (--depth is refused for them, not ignored)
    extra = ["--ties", "docno"] if curve == "pr" else ["--depth", "15"]
    rc, out, err = run_cli(["plot", qrels, *runs, "--curve", curve, "-o", out_png, *extra],
                           capsys)
    assert rc == 0, err
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {out_png}: {curve} curves of 3 run(s)" in out


def test_plot_curve_values_match_evaluate(files):
    qrels, runs = files
    vecs, _ = trec_gain_curves(qrels, runs[:2], curve="ndcg", depth=10)
    for r in runs[:2]:
        # trec_gain_curves keeps 2**l - 1; evaluate's default is trec_eval's linear gain
        pq = evaluate(qrels, r, ["nDCG@3", "nDCG@10"], gain="exponential").per_query
        assert vecs[r.stem][[2, 9]] == pytest.approx(pq.mean().to_numpy())
    cg, _ = trec_gain_curves(qrels, runs[:1], curve="cg", depth=5, gain="linear")
    assert cg[runs[0].stem][4] == pytest.approx(
        evaluate(qrels, runs[0], ["CG@5"], gain="linear").mean["CG@5"])
    # a partial {level: gain} mapping keeps the other levels linear, as evaluate does
    part, _ = trec_gain_curves(qrels, runs[:1], curve="ndcg", depth=5, gain={3: 10})
    assert part[runs[0].stem][4] == pytest.approx(
        evaluate(qrels, runs[0], ["nDCG@5"], gain={3: 10}).mean["nDCG@5"])


def test_plot_errors(files, capsys, tmp_path):
    qrels, runs = files
    rc, _, err = run_cli(["plot", qrels, *runs, "--names", "a,a,b", "-o", tmp_path / "x.png"],
                         capsys)
    assert rc == 1 and "--names needs 3 distinct" in err
    rc, _, err = run_cli(["plot", qrels, tmp_path / "missing.run", "-o", tmp_path / "x.png"],
                         capsys)
    assert rc == 1 and err.startswith("rankmetrics plot: error: ")
    with pytest.raises(SystemExit):
        cli.main(["plot", str(qrels), str(runs[0]), "--depth", "0"])


def test_parse_gain():
    assert parse_gain("Linear") == "linear"
    assert parse_gain("0,1,10,100") == [0.0, 1.0, 10.0, 100.0]
    assert parse_gain("1=3,2=9") == {1.0: 3.0, 2.0: 9.0}
    with pytest.raises(ValueError, match="weights must be finite numbers >= 0"):
        parse_gain("0,-1")


# ------------------------------------------------------------------------------- sessions
SESSIONS = {
    "s1.run": "u1 1 T1 D1 1 3.0\nu1 1 T1 D2 2 2.0\nu1 2 T1 D3 1 1.0\n"
              "u2 1 T1 D4 1 2.0\nu3 1 T2 D1 1 1.0\nu3 2 T2 D2 1 1.0\n",
    "s2.run": "u1 1 T1 D3 1 3.0\nu1 1 T1 D1 2 2.0\n"
              "u2 1 T1 D1 1 2.0\nu2 2 T1 D2 1 2.0\nu3 1 T2 D2 1 1.0\n",
}
SESSION_QRELS = "T1 0 D1 3\nT1 0 D2 1\nT1 0 D3 2\nT2 0 D1 1\nT2 0 D2 2\n"


@pytest.fixture()
def session_files(tmp_path):
    q = tmp_path / "sq.txt"
    q.write_text(SESSION_QRELS)
    paths = []
    for name, text in SESSIONS.items():
        p = tmp_path / name
        p.write_text(text)
        paths.append(p)
    return q, paths


def test_session_plot_and_compare(session_files, capsys, tmp_path):
    from rankmetrics.session import evaluate_sessions

    qrels, runs = session_files
    png = tmp_path / "s.png"
    rc, out, err = run_cli(["plot", qrels, *runs, "--curve", "nsdcg", "--depth", "2", "-o", png],
                           capsys)
    assert rc == 0, err and png.exists()
    assert "(6 sessions; " in out
    rc, out, err = run_cli(["plot", qrels, runs[0], "--curve", "sdcg", "--individual", "-o",
                            png], capsys)
    assert rc == 0, err
    rc, out, err = run_cli(["compare", qrels, *runs, "--session", "-m", "nsdcg", "-m",
                            "avg-sdcg", "--depth", "2", "--format", "json"], capsys)
    assert rc == 0, err
    res = json.loads(out)["comparisons"]
    a = evaluate_sessions(qrels, runs[0], depth=2).to_frame()
    assert res[0]["means"][0] == pytest.approx(a["final_normalised"].mean())
    assert res[1]["metric"] == "avg-sdcg" and res[0]["n_queries"] == 3
    rc, _, err = run_cli(["compare", qrels, *runs, "--session", "-m", "ndcg@10"], capsys)
    assert rc == 1 and "with --session, -m must be one of sdcg, nsdcg" in err


def test_session_last_best_compare_and_query_position_plot(session_files, capsys, tmp_path):
    from rankmetrics.session import evaluate_sessions

    qrels, runs = session_files
    rc, out, err = run_cli(["compare", qrels, *runs, "--session", "-m", "last-nsdcg", "-m",
                            "best-sdcg", "--depth", "2", "--format", "json"], capsys)
    assert rc == 0, err
    res = json.loads(out)["comparisons"]
    a = evaluate_sessions(qrels, runs[0], depth=2)
    assert res[0]["means"][0] == pytest.approx(np.mean(a.last_query_gain(normalised=True)))
    assert res[1]["means"][0] == pytest.approx(np.mean(a.best_query_gain()))
    png = tmp_path / "fig1.png"
    rc, out, err = run_cli(["plot", qrels, *runs, "--curve", "query-position", "--depth", "3",
                            "-o", png], capsys)
    assert rc == 0, err
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert "last vs non-last queries" in out and "6 sessions" in out


def test_compare_relative_and_output_file(files, capsys, tmp_path):
    qrels, runs = files
    rc, out, _ = run_cli(["compare", qrels, *runs[:2], "-m", "P@5"], capsys)
    assert rc == 0 and "%)" in out.splitlines()[1] and "Sparck Jones" in out
    rc, out, _ = run_cli(["compare", qrels, *runs[:2], "-m", "P@5", "--no-relative"], capsys)
    assert rc == 0 and "%)" not in out.splitlines()[1] and "Sparck Jones" not in out
    dest = tmp_path / "t.tex"
    rc, out, _ = run_cli(["compare", qrels, *runs[:2], "-m", "P@5", "--format", "latex",
                          "-o", dest], capsys)
    assert rc == 0 and "wrote" in out and dest.read_text().startswith("\\begin{table}")



def test_compare_output_format_follows_the_extension_unless_given(files, capsys, tmp_path):
    # -o x.csv without --format wrote the text table into x.csv
    import csv
    import json

    qrels, runs = files
    base = ["compare", qrels, *runs[:2], "-m", "P@5"]
    rc, _, err = run_cli([*base, "-o", tmp_path / "r.csv"], capsys)
    assert rc == 0, err
    rows = list(csv.DictReader((tmp_path / "r.csv").read_text().splitlines()))
    assert rows and "rel_diff" in rows[0]
    # the file ended with a blank line, which csv.reader returns as an empty row []
    with open(tmp_path / "r.csv", newline="") as fh:
        assert all(csv.reader(fh))
    rc, _, err = run_cli([*base, "-o", tmp_path / "r.JSON"], capsys)
    assert rc == 0, err
    assert json.loads((tmp_path / "r.JSON").read_text())
    rc, _, err = run_cli([*base, "-o", tmp_path / "r.md"], capsys)
    assert rc == 0 and (tmp_path / "r.md").read_text().lstrip().startswith("|")
    for name in ("r.txt", "r"):  # no format of its own: text
        rc, _, err = run_cli([*base, "-o", tmp_path / name], capsys)
        assert rc == 0 and "Sparck Jones" in (tmp_path / name).read_text()
    rc, _, err = run_cli([*base, "--format", "text", "-o", tmp_path / "t.csv"], capsys)
    assert rc == 0 and "Sparck Jones" in (tmp_path / "t.csv").read_text()  # given: kept

def test_plot_title_names_measure_gain_ties_topics_and_dropped(files, capsys, tmp_path):
    from rankmetrics.plot import plot_trec_curves

    qrels, runs = files
    fig = plot_trec_curves(qrels, runs, curve="dcg", depth=10, gain="linear", ties="average")
    title = fig.axes[0].get_title()
    assert "DCG, gain linear" in title and "ties=average" in title
    assert "7 topics (missing='intersect' dropped q7: lacking in poor)" in title
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["ideal", "good", "fair", "poor"]
    zero = plot_trec_curves(qrels, runs, curve="ndcg", depth=10, missing="zero", title="")
    assert zero.axes[0].get_title() == ""
    with pytest.raises(ValueError, match="no exact tie-averaged form"):
        plot_trec_curves(qrels, runs, curve="pr")
    pr = plot_trec_curves(qrels, runs, curve="pr", ties="docno", missing="zero")
    assert "8 topics (missing='zero' scored 0 where lacking q7" in pr.axes[0].get_title()


def test_fourth_probe_output_dpi_and_resamples(files, capsys, tmp_path):
    """plot --dpi 100000 died in matplotlib (MemoryError traceback); -o without an extension
    said it wrote a file matplotlib had named <name>.png; compare -o '' printed instead;
    --n-resamples 2**70 got the process killed (scipy draws every resample at once)."""
    qrels, runs = files
    rc, _, err = run_cli(["plot", qrels, *runs, "--dpi", "100000", "-o", tmp_path / "a.png"],
                         capsys)
    assert rc == 1 and "--dpi must be at most 2400; got 100000" in err
    for name in ("a", "", "a."):
        rc, _, err = run_cli(["plot", qrels, *runs, "-o", str(tmp_path / name) if name else ""],
                             capsys)
        assert rc == 1 and "-o/--output needs an image file name with its extension" in err
    assert not (tmp_path / "a.png").exists()
    rc, _, err = run_cli(["compare", qrels, *runs, "-o", ""], capsys)
    assert rc == 1 and "-o/--output is empty" in err
    rc, _, err = run_cli(["compare", qrels, *runs, "--test", "bootstrap", "--n-resamples",
                          2**70], capsys)
    assert rc == 1 and "n_resamples=1180591620717411303424 asks scipy for" in err
    small = compare({"A": [.2, .4, .3, .5], "B": [.3, .6, .4, .7]}, test="randomization",
                    n_resamples=2**70)  # 4 queries: all 16 flips, whatever the count
    assert small.pair("A", "B").pvalue == 0.125


# ---------------------------------------------------------------- probe 47: horizontal, compare
def usage_error(argv, capsys):
    """argparse's exit status 2 and message; nothing on standard output."""
    with pytest.raises(SystemExit) as exc:
        cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    assert exc.value.code == 2 and out.out == "", out.out
    return out.err


@pytest.mark.parametrize("command", ["plot", "horizontal"])
def test_depth_2_62_is_refused_naming_depth(files, capsys, tmp_path, command):
    """plot --depth 2**62 passed the depth check, then failed with numpy's "array is too big",
    which names no option."""
    qrels, runs = files
    out = ["-o", tmp_path / "x.png"] if command == "plot" else []
    rc, _, err = run_cli([command, qrels, *runs, "--depth", 2**62, *out], capsys)
    assert rc == 1 and "error: --depth=4611686018427387904 asks for" in err, err
    assert not (tmp_path / "x.png").exists()


def test_trec_gain_vectors_bounds_depth_before_allocating(files):
    from rankmetrics.plot import trec_gain_vectors

    qrels, runs = files
    with pytest.raises(ValueError, match=r"^depth=4611686018427387904 asks for 5 \(8, "):
        trec_gain_vectors(qrels, runs, curve="cg", depth=2**62, missing="zero")


def test_no_judged_query_names_the_run(files, capsys, tmp_path, session_files):
    qrels, runs = files
    alien = tmp_path / "alien.run"
    alien.write_text("zz Q0 D1 1 2.0 x\nzz Q0 D2 2 1.0 x\n")
    rc, _, err = run_cli(["compare", qrels, runs[0], alien], capsys)
    assert rc == 1
    assert f"error: run 'alien' ({alien}): no query of the run has judgements" in err, err
    for command in ("horizontal", "plot"):
        rc, _, err = run_cli([command, qrels, alien, runs[0], "-o", tmp_path / "x.png"]
                             if command == "plot" else [command, qrels, alien, runs[0]], capsys)
        assert rc == 1 and "'alien' has no topic judged in the qrels" in err, err
    sq, sruns = session_files
    salien = tmp_path / "alien.sessions"
    salien.write_text("u1 1 T9 D1 1 1.0\n")
    rc, _, err = run_cli(["compare", sq, sruns[0], salien, "--session"], capsys)
    assert rc == 1 and f"error: {salien}: no session's topic has a qrels line" in err, err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--no-pad"], "--no-pad applies only with --session"),
        (["--query-log-base", "3", "--duplicates", "first"],
         "--query-log-base, --duplicates apply only with --session"),
        (["--depth", "5"], "--depth applies only with --session"),
        (["--details", "--format", "json"], "--details applies only to --format text; got "
                                            "--format json"),
        (["--details", "--format", "csv"], "--details applies only to --format text"),
        (["--seed", "3"], "--seed applies only to --test randomization, permutation, bootstrap"),
        (["--n-resamples", "100", "--test", "wilcoxon"], "--n-resamples applies only to --test"),
        (["--no-relative", "--format", "csv"], "--no-relative applies only to --format text, "
                                               "markdown, latex, json"),
    ],
)
def test_compare_refuses_options_it_would_ignore(files, capsys, args, message):
    qrels, runs = files
    err = usage_error(["compare", qrels, *runs, *args], capsys)
    assert f"rankmetrics compare: error: {message}" in err, err


def test_compare_session_refuses_docno_and_reads_resampling_options(session_files, capsys):
    qrels, runs = session_files
    err = usage_error(["compare", qrels, *runs, "--session", "--ties", "docno"], capsys)
    assert "--ties docno (trec_eval's document id order) applies only to TREC runs" in err
    rc, out, err = run_cli(["compare", qrels, *runs, "--session", "--test", "bootstrap",
                            "--seed", "4", "--n-resamples", "50", "--format", "json"], capsys)
    assert rc == 0, err
    (res,) = json.loads(out)["comparisons"]
    assert res["n_resamples"] == 50 and res["seed"] == 4


def test_compare_reads_eval_measure_lists(files, capsys):
    """compare -m P.5,10 was refused although eval -m P.5,10 (trec_eval's P at 5 and 10) is
    read; both now go through one function of the grammar."""
    qrels, runs = files
    rc, out, err = run_cli(["compare", qrels, *runs[:2], "-m", "P.5,10", "-m",
                            "avg-ndcg@1-5,ndcg_cut.3", "-m", "P.10", "--format", "json"], capsys)
    assert rc == 0, err
    res = json.loads(out)["comparisons"]
    assert [r["metric"] for r in res] == ["P.5", "P.10", "avg-ndcg@1-5", "ndcg_cut.3"]
    per = evaluate(qrels, runs[0], ["P.5", "P.10", "ndcg_cut.3"]).per_query
    assert res[0]["means"][0] == pytest.approx(per["P.5"].mean())
    assert res[1]["means"][0] == pytest.approx(per["P.10"].mean())
    assert res[3]["means"][0] == pytest.approx(per["ndcg_cut.3"].mean())
    rc, out, err = run_cli(["eval", qrels, runs[0], "-m", "P.5,10", "--format", "json"], capsys)
    assert rc == 0 and set(json.loads(out)["mean"]) == {"P.5", "P.10"}
    # trec_eval's own rbp is refused by compare as by eval (a silent RBP(p=0.8) before)
    rc, _, err = run_cli(["compare", qrels, *runs[:2], "-m", "rbp"], capsys)
    assert rc == 1 and "'rbp' is trec_eval 10's rbp" in err


def test_compare_session_metric_lists(session_files, capsys):
    qrels, runs = session_files
    rc, out, err = run_cli(["compare", qrels, *runs, "--session", "-m", "nsdcg,avg-sdcg", "-m",
                            "NSDCG", "--depth", "2", "--format", "json"], capsys)
    assert rc == 0, err
    res = json.loads(out)["comparisons"]
    assert [r["metric"] for r in res] == ["nsdcg", "avg-sdcg"]


def test_horizontal_refuses_before_printing(files, capsys):
    """--reference bogus and --at beyond --depth printed the header, then an error naming
    'reference' / 'n'; --discount with --curve cg was ignored; a run named 'ideal' was read as
    the ideal reference."""
    qrels, runs = files
    err = usage_error(["horizontal", qrels, *runs, "--reference", "bogus"], capsys)
    assert "--reference must be 'ideal' or a run name (good, fair, poor); got 'bogus'" in err
    err = usage_error(["horizontal", qrels, *runs, "--at", "50", "--depth", "20"], capsys)
    assert "--at must be at most --depth (20), the ranks searched; got --at 50" in err
    err = usage_error(["horizontal", qrels, *runs, "--discount", "jarvelin2008"], capsys)
    assert "--discount applies only to --curve dcg" in err
    rc, out, err = run_cli(["horizontal", qrels, *runs[:2], "--names", "ideal,b"], capsys)
    assert rc == 1 and out == "" and "a run is named 'ideal'" in err
    rc, out, err = run_cli(["horizontal", qrels, *runs[:2], "--at", "5", "--at", "5",
                            "--at", "3"], capsys)
    assert rc == 0, err
    assert out.splitlines()[1].split() == ["run", "n=5", "mean", "reached", "n=3", "mean",
                                           "reached"]


def test_horizontal_counts_reached_of_the_topics_with_something_to_reach(tmp_path, capsys):
    """A topic without relevant documents (ideal 0 at every rank) was counted as one the run
    never reaches: 'reached 2/3' where both topics with relevant documents are reached (2/2)."""
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 d 1\n3 0 z 0\n")
    run.write_text("1 Q0 a 1 3 r\n1 Q0 b 2 3 r\n1 Q0 c 3 1 r\n2 Q0 d 1 1 r\n2 Q0 e 2 1 r\n"
                   "3 Q0 z 1 1 r\n")
    rc, out, err = run_cli(["horizontal", str(qrels), str(run), "--at", "1", "--depth", "3"],
                           capsys)
    assert rc == 0, err
    assert out.splitlines()[2].split() == ["r", "2", "2.0", "2/2"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--threshold", "2"], "--threshold applies only to --curve pr"),
        (["--curve", "pr", "--ties", "docno", "--depth", "5"],
         "--depth applies only to gain curves, not --curve pr"),
        (["--curve", "pr", "--ties", "docno", "--gain", "linear"], "--gain applies only to"),
        (["--no-pad"], "--no-pad applies only to session curves"),
        (["--min-queries", "2"], "--min-queries applies only to --curve sdcg, nsdcg"),
        (["--curve", "cg", "--log-base", "3"], "--log-base applies only to discounted curves"),
        (["--curve", "dcg", "--average", "ideal"], "--average applies only to --curve ncg"),
    ],
)
def test_plot_refuses_options_its_curve_ignores(files, capsys, tmp_path, args, message):
    qrels, runs = files
    err = usage_error(["plot", qrels, *runs, "-o", tmp_path / "x.png", *args], capsys)
    assert f"rankmetrics plot: error: {message}" in err, err
    assert not (tmp_path / "x.png").exists()


def test_plot_session_curves_refuse_missing_and_docno(session_files, capsys, tmp_path):
    qrels, runs = session_files
    png = tmp_path / "s.png"
    err = usage_error(["plot", qrels, *runs, "--curve", "sdcg", "--missing", "zero", "-o", png],
                      capsys)
    assert "--missing applies only to --curve cg, dcg, ncg, ndcg, pr" in err
    err = usage_error(["plot", qrels, *runs, "--curve", "nsdcg", "--ties", "docno", "-o", png],
                      capsys)
    assert "applies only to TREC runs, not to session runs" in err
    rc, out, err = run_cli(["plot", qrels, *runs, "--curve", "nsdcg", "--query-log-base", "2",
                            "--no-pad", "--duplicates", "first", "-o", png], capsys)
    assert rc == 0 and "bq=2" in out, err


@pytest.mark.parametrize("session", [False, True])
def test_empty_metric_option_names_m(files, session_files, capsys, session):
    """compare -m '' said "a report needs at least one Comparison", naming no option."""
    qrels, runs = session_files if session else files
    rc, _, err = run_cli(["compare", qrels, *runs, "-m", "", "-m", ","]
                         + (["--session"] if session else []), capsys)
    assert rc == 1 and "error: -m names no measure; got '', ','" in err, err
    if not session:
        rc, _, err = run_cli(["eval", qrels, runs[0], "-m", ""], capsys)
        assert rc == 1 and "error: -m names no measure; got ''" in err, err


def test_session_gain_pairs_keep_other_levels_linear(session_files, capsys, tmp_path):
    """compare --session --gain 3=7 (level=gain pairs, "other levels linear" by the help)
    failed: "gain mapping has no weight for label(s) [0.0, ...]"."""
    qrels, runs = session_files
    rows = {}
    for g in ("3=7", "0,1,2,7"):
        rc, out, err = run_cli(["compare", qrels, *runs, "--session", "-m", "sdcg", "--gain", g,
                                "--format", "json"], capsys)
        assert rc == 0, err
        rows[g] = json.loads(out)["comparisons"][0]["means"]
    assert rows["3=7"] == rows["0,1,2,7"]
    rc, _, err = run_cli(["plot", qrels, *runs, "--curve", "sdcg", "--gain", "1=5", "-o",
                          tmp_path / "s.png"], capsys)
    assert rc == 0, err


def test_compare_session_refuses_one_id_on_two_topics(session_files, capsys, tmp_path):
    """Sessions pair by id: u1 on T1 in one run and on T2 in another was tested as a pair."""
    qrels, runs = session_files
    other = tmp_path / "other.run"
    other.write_text("u1 1 T2 D1 1 3.0\nu2 1 T1 D4 1 2.0\nu3 1 T2 D1 1 1.0\n")
    rc, out, err = run_cli(["compare", qrels, runs[0], other, "--session"], capsys)
    assert rc == 1 and out == ""
    assert (f"error: session 'u1' is topic 'T1' in s1 ({runs[0]}) but 'T2' in other ({other}):"
            " sessions are paired by id") in err, err


def test_compare_runs_a_test_given_twice_once(files, capsys):
    """--test t --test ttest failed: "the test 'paired t-test, alpha 0.05' is given twice"."""
    qrels, runs = files
    rc, out, err = run_cli(["compare", qrels, *runs[:2], "--test", "t", "--test", "ttest",
                            "--test", "permutation", "--test", "randomization", "--n-resamples",
                            "100", "--format", "json"], capsys)
    assert rc == 0, err
    assert [c["test"] for c in json.loads(out)["comparisons"]] == ["t", "randomization"]
