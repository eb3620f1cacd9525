"""``rankmetrics eval``: formats, options, exit codes and error messages (in process and as a
subprocess)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pandas as pd
import pytest

from rankmetrics.cli import eval as _cli_eval
from rankmetrics.cli import main

QRELS = "# comment\n1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n3 0 e 1\n"
RUN = "1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 2.0 t\n2 Q0 x 1 1.0 t\n2 Q0 d 2 0.5 t\n"


@pytest.fixture
def files(tmp_path):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return str(q), str(r)


def run_cli(capsys, *argv):
    code = main(["eval", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_default_table(files, capsys):
    code, out, err = run_cli(capsys, *files)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["qid", *_cli_eval.DEFAULT_MEASURES]
    assert lines[1].split()[0] == "all" and len(lines) == 2


def test_per_query_csv_matches_the_api(files, capsys):
    from rankmetrics.trec import evaluate

    code, out, _ = run_cli(capsys, *files, "-q", "--format", "csv", "-m", "nDCG@2,P@2",
                           "-m", "NumRelRet", "--digits", "6", "--gain", "linear")
    assert code == 0
    frame = pd.read_csv(io.StringIO(out), index_col="qid", dtype={"qid": str})
    want = evaluate(*files, ["nDCG@2", "P@2", "NumRelRet"], gain="linear").to_frame()
    assert list(frame.index) == ["1", "2", "all"]
    pd.testing.assert_frame_equal(frame, want.round(6), check_dtype=False, check_names=False,
                                  atol=1e-6)
    assert "NumRelRet" in out.splitlines()[0] and out.splitlines()[-1].endswith(",3")


def test_json_and_trec_formats(files, capsys):
    code, out, _ = run_cli(capsys, *files, "-q", "--format", "json", "-m", "RR", "--empty",
                           "skip", "-c")
    data = json.loads(out)
    assert code == 0
    assert data["per_query"] == {"1": {"RR": 1.0}, "2": {"RR": 0.5}, "3": {"RR": 0.0}}
    assert data["params"]["complete"] is True
    code, out, _ = run_cli(capsys, *files, "--format", "trec", "-m", "map,P_2,num_ret",
                           "--ties", "docno", "--gain", "linear", "-q")
    assert code == 0
    # trec_eval order puts c before b (docno descending): query 1 is perfect; the measures
    # in trec_eval's table order (num_ret, map, P)
    assert out.splitlines() == [
        "num_ret               \t1\t3",
        "map                   \t1\t1.0000", "P_2                   \t1\t1.0000",
        "num_ret               \t2\t2",
        "map                   \t2\t0.5000", "P_2                   \t2\t0.5000",
        "num_ret               \tall\t5",
        "map                   \tall\t0.7500", "P_2                   \tall\t0.7500",
    ]


def test_trec_eval_options(files, capsys):
    """-l, -M and -c change what they change in trec_eval."""
    _, out, _ = run_cli(capsys, *files, "--format", "csv", "-q", "-m", "P@3,NumRelRet,NumRet",
                        "-l", "2", "-M", "2", "-c", "--ties", "docno")
    frame = pd.read_csv(io.StringIO(out), index_col="qid", dtype={"qid": str})
    assert frame.loc["1"].tolist() == pytest.approx([1 / 3, 1, 2], abs=1e-4)
    assert frame.loc["3"].tolist() == [0, 0, 0]


def test_gain_options(files, capsys):
    res = {}
    for gain in ("linear", "exponential", "1=3,2=9", "0,3,9"):
        code, out, _ = run_cli(capsys, *files, "--format", "json", "-m", "DCG@1", "--gain",
                               gain, "--ties", "docno")
        assert code == 0
        res[gain] = json.loads(out)["mean"]["DCG@1"]
    assert res == {"linear": 1.0, "exponential": 1.5, "1=3,2=9": 4.5, "0,3,9": 4.5}


def test_bad_gain_is_a_usage_error(files, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["eval", *files, "--gain", "square"])
    assert exc.value.code == 2
    assert "--gain must be 'linear', 'exponential'" in capsys.readouterr().err


@pytest.mark.parametrize("depth", ["0", "-3", "x"])
def test_max_depth_is_a_usage_error_naming_the_option(files, capsys, depth):
    """-M 0 (trec_eval: read no document) was refused naming the API's parameter
    ("max_depth must be a positive int"), which the command line has no option of."""
    with pytest.raises(SystemExit) as exc:
        main(["eval", *files, "-M", depth])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "-M takes a positive integer" in err and "max_depth" not in err


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["-m", "nDCG@ten"], "unknown measure 'nDCG@ten'"),
        (["-m", "11pt_avg"], "has no exact tie average (interpolated precision"),
        (["-m", "AP", "-l", "0"], "threshold must be a finite number > 0"),
        (["--digits", "-1"], "--digits must be >= 0; got -1"),
    ],
)
def test_errors_exit_1_with_a_message(files, capsys, argv, match):
    code, out, err = run_cli(capsys, *files, *argv)
    assert code == 1 and out == ""
    assert err.startswith("rankmetrics eval: error: ") and match in err


def test_malformed_file_names_file_and_line(tmp_path, files, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text(RUN + "2 Q0 y 3 high t\n")
    code, _, err = run_cli(capsys, files[0], str(bad))
    assert code == 1
    assert f"{bad}, line 6: score 'high' is not a number" in err
    code, _, err = run_cli(capsys, files[0], str(tmp_path / "missing.run"))
    assert code == 1 and "run file not found" in err


def test_progress_bar(files, capsys):
    code, _, err = run_cli(capsys, *files, "--progress")
    assert code == 0 and "rankmetrics eval" in err
    code, _, err = run_cli(capsys, *files)  # not a terminal: no bar
    assert code == 0 and err == ""


def test_subprocess(files):
    ok = subprocess.run([sys.executable, "-m", "rankmetrics.cli", "eval", *files, "-m", "P@2",
                         "--format", "trec"], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    # b and c tie: P@2 of query 1 is (1 + 1/2) / 2 on average; query 2 gives 1/2
    assert ok.stdout == "P@2                   \tall\t0.6250\n"
    bad = subprocess.run([sys.executable, "-m", "rankmetrics.cli", "eval", files[1], files[0]],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1
    assert "line 1: a qrels line needs 4 fields" in bad.stderr


def test_parser_offers_the_api_tie_modes_without_importing_pandas():
    import argparse

    from rankmetrics.trec import TIES

    sub = argparse.ArgumentParser().add_subparsers()
    parser = _cli_eval.add_parser(sub)
    ties = next(a for a in parser._actions if a.dest == "ties")
    assert tuple(ties.choices) == TIES


def test_trec_format_prints_trec_eval_spellings_of_dotted_names(files, capsys):
    """trec_eval prints ``-m P.5`` as P_5 and ``iprec_at_recall.0.1`` as iprec_at_recall_0.10
    (its own output, trec_eval 10.0); we printed the names as typed, so a script reading
    trec_eval's lines found none. Other names are printed as given (after trec_eval's, which
    follow its table order)."""
    from rankmetrics.measures.grammar import trec_eval_spelling

    code, out, _ = run_cli(capsys, *files, "--format", "trec", "--ties", "docno", "-m",
                           "P.5,set_F.0.5,iprec_at_recall.0.1,ndcg_cut.10,map_cut.5,recall.5,"
                           "success.1,nDCG@10")
    assert code == 0
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == [
        "iprec_at_recall_0.10", "P_5", "recall_5", "ndcg_cut_10", "map_cut_5", "success_1",
        "set_F_0.5", "nDCG@10"]
    assert trec_eval_spelling("P_5") == "P_5" and trec_eval_spelling("AP@5") == "AP@5"


def test_trec_eval_parameter_lists(files, capsys):
    """``-m P.5,10`` is trec_eval's P_5 and P_10 (its output, trec_eval 10.0); the list was
    split into "P.5" and an unknown measure "10"."""
    code, out, _ = run_cli(capsys, *files, "--format", "trec", "--ties", "docno", "-m",
                           "P.5,10", "-m", "ndcg_cut.5,10,map", "-m", "iprec_at_recall.0.1,0.5")
    assert code == 0
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == [
        "map", "iprec_at_recall_0.10", "iprec_at_recall_0.50", "P_5", "P_10", "ndcg_cut_5",
        "ndcg_cut_10"]
    code, out, _ = run_cli(capsys, *files, "-m", "map", "-m", "map,P_2", "--format", "trec")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == ["map", "P_2"]
    code, out, err = run_cli(capsys, *files, "-m", "P_5,10")  # no dotted name before the 10
    assert code != 0 and "'10'" in err


def test_run_from_stdin(files):
    """trec_eval 10 reads the run from stdin when its path is "-"; we said "run file not
    found: -". The numbers are those of the same run read from its file."""
    qrels, run = files
    args = [sys.executable, "-m", "rankmetrics", "eval", qrels, "-", "-m", "map,P_2",
            "--format", "trec", "--ties", "docno"]
    with open(run, "rb") as f:
        piped = subprocess.run(args, stdin=f, capture_output=True, check=True).stdout
    args[5] = run
    assert piped == subprocess.run(args, capture_output=True, check=True).stdout
    assert b"map" in piped
    args[5] = "-"
    bad = subprocess.run(args, input=b"1 Q0 a 1 high t\n", capture_output=True)
    assert bad.returncode != 0 and b"<stdin>, line 1: score 'high'" in bad.stderr


def test_interpolated_precision_without_a_tie_order_names_the_option(files, capsys):
    """Under the default tie average, ``-m iprec_at_recall`` / ``11pt_avg`` are refused in the
    command's words (``--ties docno``); the message told the user to pass ``ties='docno'``, the
    Python keyword."""
    for name in ("iprec_at_recall", "map,11pt_avg", "IPrec@0.5"):
        code, out, err = run_cli(capsys, *files, "-m", name)
        assert code != 0 and out == ""
        assert "--ties docno" in err and "ties='docno'" not in err
    code, out, _ = run_cli(capsys, *files, "-m", "iprec_at_recall", "--ties", "stable")
    assert code == 0 and "iprec_at_recall_0.50" in out


def test_relevance_level_is_an_integer_as_trec_eval_reads_it(files, capsys):
    # trec_eval reads -l with atol (its -l 1.5 is 1); we took 1.5 as another level
    with pytest.raises(SystemExit):
        run_cli(capsys, *files, "-l", "1.5")
    assert "-l takes an integer relevance level" in capsys.readouterr().err
    code, out, _ = run_cli(capsys, *files, "-l", "2", "-m", "P.5", "--format", "trec")
    assert code == 0 and out.split()[0] == "P_5"


@pytest.mark.parametrize("option", ["-l", "-M"])
@pytest.mark.parametrize("text", ["1_0", "\u0662", "1\u00a0"])
def test_level_and_depth_read_as_atol_or_refused(files, capsys, option, text):
    # Python's int() took "1_0" as 10 and other scripts' digits; trec_eval's atol reads
    # "1_0" as 1 (-l 1_0 gave map 0.0 where trec_eval gives 0.3333, -M 1_0 read 10 documents
    # where trec_eval reads 1)
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, *files, option, text, "-m", "map")
    assert exc.value.code == 2
    want = "-M takes a positive integer" if option == "-M" else "-l takes an integer relevance"
    assert want in capsys.readouterr().err
    code, out, _ = run_cli(capsys, *files, option, " +2 ", "-m", "map", "--format", "trec")
    assert code == 0 and out.split()[0] == "map"


def test_parameter_lists_print_in_ascending_order_as_trec_eval(files, capsys):
    # trec_eval's -m P.5,7,3 prints P_3, P_5, P_7 (out.test.meas_params); we kept the order typed
    code, out, _ = run_cli(capsys, *files, "-m", "P.5,7,3", "-m", "success.20,2", "--ties",
                           "docno", "--format", "trec")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "P_3", "P_5", "P_7", "success_2", "success_20"]


def test_trec_format_prints_trec_evals_table_order(files, capsys):
    # trec_eval prints its measures in the order of its measure table whatever the order of
    # -m (-m P.10 -m map prints map first); we printed the order typed. Names trec_eval does
    # not print follow, in the order given
    code, out, _ = run_cli(capsys, *files, "-m", "nDCG@3", "-m", "P.10", "-m", "ndcg_cut.5",
                           "-m", "map", "-m", "P.5", "-m", "RR", "-m", "map_cut.5", "-m",
                           "num_rel", "--ties", "docno", "--format", "trec")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "num_rel", "map", "P_5", "P_10", "ndcg_cut_5", "map_cut_5", "nDCG@3", "RR"]
    # the other formats keep the order given
    code, out, _ = run_cli(capsys, *files, "-m", "P.10", "-m", "map", "--ties", "docno",
                           "--format", "csv")
    assert code == 0 and out.splitlines()[0].split(",")[1:] == ["P.10", "map"]


def test_warnings_print_in_the_commands_words(tmp_path, capsys):
    # a warning printed Python's way: the library's file, line and source line
    # ("/.../rankmetrics/cli/eval.py:216: UserWarning: ...\n  result = evaluate(")
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text("1 0 a 1.5\n1 0 b 0\n")
    r.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    code, out, err = run_cli(capsys, str(q), str(r), "-m", "map")
    assert code == 0 and out.split()[-1] == "1.0000"
    assert err.startswith("rankmetrics eval: warning: ") and "not integers" in err
    assert "UserWarning" not in err and ".py:" not in err and len(err.splitlines()) == 1


def test_trec_eval_lines_for_leading_zeros_families_and_all_trec(files, capsys):
    """Compared with a trec_eval 10.0 build: -m P.05 printed P_05 (trec_eval reads the
    cutoff with atol and prints P_5); -m ndcg_cut -m ndcg_cut.3 printed ndcg_cut_3 after
    ndcg_cut_1000 (a bare family sorted as one name); -m all_trec left out the 19 trec_eval
    measures we do not compute without a word."""
    code, out, _ = run_cli(capsys, *files, "-m", "P.05", "-m", "success.01", "-m",
                           "map_cut.010", "-m", "P.007,10", "-m", "P.5", "--format", "trec")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "P_5", "P_7", "P_10", "map_cut_10", "success_1"]
    code, out, _ = run_cli(capsys, *files, "-m", "ndcg_cut", "-m", "ndcg_cut.3", "-m",
                           "ndcg_cut.5", "--format", "trec")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert names == [f"ndcg_cut_{k}" for k in (3, 5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    code, out, err = run_cli(capsys, *files, "-m", "all_trec", "--ties", "docno", "--format",
                             "trec")
    assert code == 0 and out
    assert ("all_trec leaves out the trec_eval measures rankmetrics does not compute: runid, "
            "num_q, gm_map, relstring, infAP") in err and "rbp_resid, unj" in err


def test_headerless_tsv_and_csv_are_read_as_trec_text(tmp_path, capsys):
    """MS MARCO's qrels.dev.tsv is TREC qrels lines with tabs and no header; trec_eval reads
    it, we stopped with "needs a query id column ... got columns ['1', '0', 'd1', '1']".
    A .tsv/.csv whose first line names no column and splits into a TREC line is TREC text
    now; a header naming the columns is still a table, an unknown header still an error."""
    q, r, txt = tmp_path / "qrels.dev.tsv", tmp_path / "run.csv", tmp_path / "run.txt"
    q.write_text("1\t0\td1\t1\n1\t0\td2\t0\n2\t0\td3\t2\n")
    r.write_text("1 Q0 d2 1 0.9 r\n1 Q0 d1 2 0.5 r\n2 Q0 d3 1 0.1 r\n")
    txt.write_text(r.read_text())
    code, out, _ = run_cli(capsys, str(q), str(r), "-m", "map", "--format", "trec")
    assert code == 0 and out.split() == ["map", "all", "0.7500"]
    table = tmp_path / "qrels.csv"
    table.write_text("qid,docno,label\n1,d1,1\n1,d2,0\n2,d3,2\n")
    code, out2, _ = run_cli(capsys, str(table), str(txt), "-m", "map", "--format", "trec")
    assert code == 0 and out2 == out
    # a docno spelled as a column name on the first line is data: its value field is a number
    # (read as a header before: "needs a query id column ...; got columns ['1', '0', 'doc']")
    named, run_doc = tmp_path / "named.tsv", tmp_path / "run_doc.txt"
    named.write_text("1\t0\tdoc\t1\n1\t0\td2\t0\n2\t0\td3\t2\n")
    run_doc.write_text(r.read_text().replace(" d1 ", " doc "))
    code, out3, _ = run_cli(capsys, str(named), str(run_doc), "-m", "map", "--format", "trec")
    assert code == 0 and out3 == out
    odd = tmp_path / "odd.tsv"
    odd.write_text("topic_no\tdocument\tjudgement\n1\td1\t1\n")
    code, _, err = run_cli(capsys, str(odd), str(txt), "-m", "map")
    assert code == 1 and "odd.tsv (read as tsv, detected from the extension .tsv)" in err


def test_second_probe_of_the_new_command_line_paths(tmp_path, capsys):
    """A .tsv run with 5- or 7-field lines, or a # comment first, was read as a table (the
    TREC reader takes them); a .tsv qrels with a fractional first label too; -m ndcg.01=3
    failed on a Python literal it built ("{01: 3}"; trec_eval prints ndcg_01=3); -m rbp_resid
    got the rbp message; rbp.p=0.8 was told to ask for p=0.9; all_trec twice said its note
    twice; compare --ties docno compared C floats where eval compares doubles."""
    q = tmp_path / "qrels.tsv"
    q.write_text("# judged by hand\n1\t0\td1\t0.5\n1\t0\td2\t1\n")
    r5, r7 = tmp_path / "run5.tsv", tmp_path / "run7.tsv"
    r5.write_text("1 Q0 d2 1 2.0\n1 Q0 d1 2 1.0\n")
    r7.write_text("# a run\n1 Q0 d2 1 2.0 r x\n1 Q0 d1 2 1.0 r x\n")
    for run in (r5, r7):
        code, out, err = run_cli(capsys, str(q), str(run), "-m", "map", "--format", "trec")
        assert code == 0 and out.split() == ["map", "all", "1.0000"]
        assert "warning:" in err and "are not integers" in err
    code, out, _ = run_cli(capsys, *_files(tmp_path), "-m", "ndcg.01=3", "--format", "trec")
    assert code == 0 and out.split()[:2] == ["ndcg_01=3", "all"]
    code, _, err = run_cli(capsys, *_files(tmp_path), "-m", "rbp_resid")
    assert code == 1 and "unknown measure 'rbp_resid'" in err
    code, _, err = run_cli(capsys, *_files(tmp_path), "-m", "rbp.p=0.8")
    assert code == 1 and "takes p = 0.8" in err and "Ask for RBP(p=0.8)" in err
    code, _, err = run_cli(capsys, *_files(tmp_path), "-m", "all_trec", "-m", "all_trec",
                           "--ties", "docno")
    assert code == 0 and err.count("all_trec leaves out") == 1
    qf, rf = tmp_path / "q.txt", tmp_path / "r.txt"
    qf.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    rf.write_text("1 Q0 a 1 15.12345679 r\n1 Q0 b 2 15.12345671 r\n2 Q0 c 1 1.0 r\n")
    code, out, _ = run_cli(capsys, str(qf), str(rf), "-m", "P@1", "--ties", "docno",
                           "--format", "csv", "-q")
    assert code == 0 and "1,1.0000" in out  # trec_eval 10: a (15.12345679) first
    from rankmetrics.cli import main

    assert main(["compare", str(qf), str(rf), str(rf), "-m", "P@1", "--ties", "docno",
                 "--format", "csv"]) == 0
    report = capsys.readouterr().out
    assert "0.5" not in report.split("\n")[1] and "1.0" in report


def _files(tmp_path):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return str(q), str(r)


def test_official_is_trec_evals_default_set(shared_data, capsys):
    """-m official, trec_eval's default measure set ('-m official' is default, says its usage),
    was an unknown measure. It now prints every line of trec_eval's own default output
    (out.test, from usnistgov's quicktest) but the three it does not compute, and says so."""
    root = shared_data / "trec_eval"
    code, out, err = run_cli(capsys, str(root / "qrels.test"), str(root / "results.test"),
                             "-m", "official", "--ties", "docno", "--format", "trec")
    assert code == 0
    want = [line for line in (root / "out.test").read_text().splitlines()
            if line.split()[0] not in ("runid", "num_q", "gm_map")]
    assert out.splitlines() == want
    assert "official leaves out the trec_eval measures rankmetrics does not compute: runid, " \
        "num_q, gm_map" in err
    code, out, err = run_cli(capsys, str(root / "qrels.test"), str(root / "results.test"),
                             "-m", "official")
    assert code == 0 and "iprec_at_recall" not in out and "P_1000" in out
    assert "official without iprec_at_recall, which has no exact tie average" in err


def test_no_summary_leaves_out_the_all_lines_as_trec_evals_n(files, capsys):
    # trec_eval's -n (--nosummary) was an unrecognised option; its output with -q -n is the
    # -q output without the "all" lines (checked against trec_eval 10.0-rc3 on qrels.test)
    qrels, run = files
    base = [qrels, run, "-q", "-m", "map", "-m", "P.5", "--ties", "docno"]
    code, full, _ = run_cli(capsys, *base, "--format", "trec")
    code_n, only, _ = run_cli(capsys, *base, "--format", "trec", "-n")
    assert code == code_n == 0
    want = [line for line in full.splitlines() if line.split("\t")[1] != "all"]
    assert only.splitlines() == want and len(want) < len(full.splitlines())
    code, out, _ = run_cli(capsys, *base, "--format", "json", "--no-summary")
    assert code == 0 and set(json.loads(out)) == {"per_query", "params"}
    code, out, _ = run_cli(capsys, *base, "--format", "csv", "-n")
    assert code == 0 and "all," not in out and out.count("\n") >= 1
    code, _, err = run_cli(capsys, qrels, run, "-n")  # nothing would be printed
    assert code == 1 and "give -q too" in err
    res = _evaluate_files(qrels, run)
    with pytest.raises(ValueError, match="nothing to show"):
        res.to_frame(per_query=False, summary=False)
    assert res.to_frame(summary=False).index.tolist() == res.per_query.index.tolist()


def _evaluate_files(qrels, run):
    from rankmetrics.trec import evaluate

    return evaluate(qrels, run, ["map"])


def test_trec_eval_long_options_and_unsupported_options_by_name(files, capsys):
    # trec_eval's long spellings were unrecognised, and "-N 100 qrels run" took 100 for the
    # qrels and named the run file as the unrecognised argument
    qrels, run = files
    short = run_cli(capsys, qrels, run, "-q", "-n", "-c", "-l", "1", "-M", "2", "-J",
                    "-m", "map", "--format", "trec", "--ties", "docno")
    long = run_cli(capsys, qrels, run, "--query_eval_wanted", "--nosummary",
                   "--complete_rel_info_wanted", "--level_for_rel", "1",
                   "--Max_retrieved_per_topic", "2", "--Judged_docs_only", "-m", "map",
                   "--format", "trec", "--ties", "docno")
    assert short[0] == 0 and long == short
    for flag in ("-N", "--Number_docs_in_coll", "-D", "-R", "-T", "-Z"):
        with pytest.raises(SystemExit) as exc:
            main(["eval", flag, "100", qrels, run])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert "is not supported by rankmetrics eval" in err and "(trec_eval: " in err
