"""``rankmetrics plot`` and ``rankmetrics compare``: curves and significance tests of runs.

Registered into :mod:`rankmetrics.cli` by :func:`add_parsers`.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..core.gains import DISCOUNTS
from ..core.validation import TIES
from ..measures.grammar import parse_gain_spec

_GAIN_CURVES = ("cg", "dcg", "ncg", "ndcg")
_SESSION_CURVES = ("sdcg", "nsdcg")
_SESSION_METRICS = {
    "sdcg": "final_gain",
    "nsdcg": "final_normalised",
    "avg-sdcg": "average_gain",
    "avg-nsdcg": "average_normalised",
    "last-sdcg": "last_query_gain",
    "last-nsdcg": "last_query_normalised",
    "best-sdcg": "best_query_gain",
    "best-nsdcg": "best_query_normalised",
}
_TEST_CHOICES = ("t", "ttest", "wilcoxon", "friedman", "anova", "randomization", "permutation",
                 "bootstrap")
_CURVE_NAMES = {"cg": "CG", "dcg": "DCG", "ncg": "nCG", "ndcg": "nDCG"}


def parse_gain(text: str) -> Any:
    """``exponential`` | ``linear`` | per-level weights ``0,1,10,100`` | ``1=3,2=9`` pairs
    (:func:`rankmetrics.measures.grammar.parse_gain_spec`; levels left out keep their linear
    gain)."""
    return parse_gain_spec(text, "--gain")


#: the largest --dpi of plot (print quality is 300-600)
_MAX_DPI = 2400


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {v}")
    return v


def _run_map(runs: list[str], names: str | None) -> dict[str, str]:
    if names is None:
        from ..analysis.stats import run_labels

        return dict(zip(run_labels(runs), runs, strict=True))
    labels = [n.strip() for n in names.split(",")]
    if len(labels) != len(runs) or len(set(labels)) != len(labels) or not all(labels):
        raise ValueError(f"--names needs {len(runs)} distinct comma-separated names (one per "
                         f"run); got {names!r}")
    return dict(zip(labels, runs, strict=True))


#: the session options (dest: option string), which apply only to session runs
_SESSION_OPTIONS = {"query_log_base": "--query-log-base", "no_pad": "--no-pad",
                    "duplicates": "--duplicates"}
_RESAMPLING_TESTS = ("randomization", "permutation", "bootstrap")
#: compare's report format named by the extension of -o when --format is not given
_REPORT_FORMATS = {".csv": "csv", ".json": "json", ".md": "markdown", ".markdown": "markdown",
                   ".tex": "latex"}


def _refuse_unused(args: argparse.Namespace, options: dict[str, str], why: str) -> None:
    """An argparse error (exit 2) naming the ``options`` (dest: option string) the user gave,
    which the command would otherwise ignore; ``why`` says where they apply."""
    given = [flag for dest, flag in options.items() if getattr(args, dest) not in (None, False)]
    if given:
        args.parser.error(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} "
                          f"only {why}")


def _refuse_docno(args: argparse.Namespace) -> None:
    """Session runs have no trec_eval order (the library's refusal names ``ties=`` and says
    the CLI offers docno)."""
    if args.ties == "docno":
        args.parser.error("--ties docno (trec_eval's document id order) applies only to TREC "
                          "runs, not to session runs")


def _check_session_topics(runs: dict[str, str]) -> None:
    """Sessions are paired by id: one id judged against different topics in two runs would be
    a paired test over different topics (it was, silently)."""
    from ..analysis.session import read_session_run

    seen: dict[str, tuple[str, str]] = {}  # session -> (topic, run name)
    for name, path in runs.items():
        pairs = read_session_run(path)[["session", "topic"]].drop_duplicates()
        for session, topic in zip(pairs["session"], pairs["topic"], strict=True):
            topic0, name0 = seen.setdefault(session, (topic, name))
            if topic0 != topic:
                raise ValueError(
                    f"session {session!r} is topic {topic0!r} in {name0} ({runs[name0]}) but "
                    f"{topic!r} in {name} ({path}): sessions are paired by id, so an id must "
                    "name the same topic in every run")


def _check_depth_memory(depth: int, rows: int) -> None:
    """``--depth`` bounded before any file is read: ``rows`` (n, depth) float64 curves, one
    query each at least, that this machine can hold (2**62 failed with numpy's "array is too
    big", which names no option)."""
    from ..core.validation import check_result_size

    check_result_size(1, depth, "--depth", copies=rows)


def _gain_options(p: argparse.ArgumentParser, *, session: bool, compare: bool = False) -> None:
    g = p.add_argument_group("gain and ranking")
    g.add_argument("--gain", default=None, metavar="GAIN",
                   help="'exponential' (2^l - 1, the default"
                        + ("; without --session compare's default is linear, trec.evaluate's"
                           if compare else "") + "), 'linear' (l; trec_eval's), "
                        "per-level weights like '0,1,10,100' (JK 2002's) or level=gain pairs "
                        "like '1=3,2=9' (other levels linear)")
    g.add_argument("--discount", default=None,
                   choices=DISCOUNTS,
                   help="rank discount (default: log; jarvelin2008 = 1/(1 + log_b i) for "
                        "sessions)")
    g.add_argument("--log-base", type=float, default=None, metavar="B",
                   help="base b of the rank discount (default 2)")
    g.add_argument("--ties", default="average", choices=(*TIES, "docno"),
                   help="tie rule for equal scores (default: average = exact mean over "
                        "orderings; docno = trec_eval 10's document id order, scores compared "
                        "as doubles, TREC runs only)")
    if session:
        s = p.add_argument_group("sessions (RUN lines: SESSION QUERY TOPIC DOCNO RANK SCORE "
                                 "[TAG]; QUERY = sequence number 1, 2, ...)")
        # None defaults: an option given where it does not apply is refused, not ignored
        s.add_argument("--query-log-base", type=float, default=None, metavar="BQ",
                       help="base bq of the query-position discount 1/(1 + log_bq q) (default 4)")
        s.add_argument("--no-pad", action="store_true", default=None,
                       help="do not pad short result lists to the depth X (paper: pad)")
        s.add_argument("--duplicates", default=None, choices=("all", "first"),
                       help="count a document every time it is returned (paper; default) or "
                            "only the first time")


def add_parsers(subparsers: Any) -> None:
    """Register the ``plot`` and ``compare`` sub-commands.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``ArgumentParser.add_subparsers()``.
    """
    p = subparsers.add_parser(
        "plot",
        help="draw average gain-by-rank, precision-recall or session curves of runs",
        description=(
            "Average CG/DCG curves with the ideal curve, nCG/nDCG curves (Järvelin & Kekäläinen "
            "2002, Figs 1-4), 11-point interpolated precision-recall curves, or concatenated "
            "session DCG curves (Järvelin et al. 2008, Figs 2-4) of one or more runs, written "
            "as an image (PNG, SVG or PDF by the file extension)."
        ),
    )
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    p.add_argument("runs", metavar="RUN", nargs="+",
                   help="TREC run files (session runs for --curve sdcg/nsdcg)")
    p.add_argument("--curve", default="ndcg",
                   choices=(*_GAIN_CURVES, "pr", *_SESSION_CURVES, "query-position"),
                   help="cg, dcg (with the ideal curve), ncg, ndcg, pr (11-point interpolated "
                        "precision-recall; needs --ties docno/stable/optimistic/pessimistic), "
                        "sdcg or nsdcg (session runs), query-position (session runs: last vs "
                        "non-last queries, Järvelin et al. 2008 Fig. 1) (default ndcg)")
    p.add_argument("--depth", type=_positive_int, default=None,
                   help="ranks to draw (default 100); for session curves X, the top documents of "
                        "each query (default 10)")
    p.add_argument("-o", "--output", default="curves.png", help="image file (default curves.png)")
    p.add_argument("--names", default=None, help="comma-separated names for the runs "
                                                 "(default: file names)")
    p.add_argument("--title", default=None,
                   help="figure title (default: measure, gain, tie rule, topics and any "
                        "dropped topics)")
    p.add_argument("--average", default=None, choices=("per-query", "ideal"),
                   help="normalised curves: mean of per-query normalised vectors (default), or "
                        "the mean vector over the mean ideal vector (JK 2002 Figs 3-4)")
    p.add_argument("--missing", default=None, choices=("intersect", "zero"),
                   help="topics some runs lack: average over the topics all runs have "
                        "(default), or over all, a lacking run scoring 0 (not session curves)")
    p.add_argument("--threshold", type=float, default=None,
                   help="relevance threshold for --curve pr (default 1)")
    p.add_argument("--no-ideal", action="store_true", help="do not draw the ideal curve")
    p.add_argument("--min-queries", type=_positive_int, default=None,
                   help="session curves: also draw the average over sessions with at least this "
                        "many queries")
    p.add_argument("--individual", action="store_true", default=None,
                   help="session curves: one line per session (one run only)")
    p.add_argument("--dpi", type=_positive_int, default=120)
    _gain_options(p, session=True)
    p.set_defaults(func=run_plot, parser=p)

    c = subparsers.add_parser(
        "compare",
        help="significance tests between runs over per-query scores",
        description=(
            "Evaluate two or more runs per query and test their differences: paired t-test, "
            "Wilcoxon signed-rank, Friedman (Conover's post-hoc pairs) or two-way ANOVA "
            "(Tukey HSD pairs). Prints a table shaped like Järvelin & Kekäläinen 2002 Table 1 "
            "(per-run averages, pairwise differences, significance markers), then details."
        ),
    )
    c.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    c.add_argument("runs", metavar="RUN", nargs="+", help="two or more run files")
    c.add_argument("-m", "--metric", dest="metrics", action="append", default=None,
                   metavar="METRIC",
                   help="metric to compare, repeatable or comma-separated, as 'rankmetrics "
                        "eval -m' reads them (default ndcg@10; P.5,10 is P at 5 and 10): any "
                        "measure of 'rankmetrics eval', or avg-CURVE@K / avg-CURVE@START-K "
                        "(CURVE cg, dcg, ncg, ndcg): the per-topic average of the gain vector "
                        "over ranks START..K (JK 2002 eq. 6 and Table 1, e.g. avg-ndcg@1-10, "
                        "avg-ndcg@100); with --session one of " + ", ".join(_SESSION_METRICS))
    c.add_argument("--test", dest="tests", action="append", default=None,
                   choices=_TEST_CHOICES,
                   help="test, repeatable (default t): paired t, wilcoxon, friedman, anova, "
                        "randomization (Fisher's, sign flips), bootstrap (with CIs)")
    c.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    c.add_argument("--missing", default="intersect", choices=("intersect", "zero", "error"),
                   help="queries some runs lack: drop them (default), score them 0, or fail; "
                        "always stated in the output, with the dropped topics named")
    c.add_argument("--correction", default="none",
                   choices=("none", "holm", "bonferroni", "bh"),
                   help="adjust pairwise p-values over the pairs (default none; bh = "
                        "Benjamini-Hochberg)")
    c.add_argument("--n-resamples", type=_positive_int, default=None, metavar="B",
                   help="randomization/bootstrap: sign flips or resamples (default 10000; all "
                        "2^n flips when that is fewer)")
    c.add_argument("--seed", type=int, default=None,
                   help="seed of the resampling tests (default 0)")
    c.add_argument("--names", default=None, help="comma-separated names for the runs")
    c.add_argument("--format", default=None,
                   choices=("text", "markdown", "latex", "csv", "json"),
                   help="report format: the JK 2002 Table 1 layout with significance markers "
                        "and a legend (default: from the extension of -o, .csv, .json, .md, "
                        ".tex; else text)")
    c.add_argument("--no-relative", action="store_true",
                   help="do not show relative differences (B - A) / A next to the differences")
    c.add_argument("--details", action="store_true",
                   help="--format text only: also print every comparison's details")
    c.add_argument("-o", "--output", default=None,
                   help="write the report to this file instead of standard output")
    c.add_argument("--session", action="store_true",
                   help="RUN files are session runs; sessions are paired by session id")
    c.add_argument("--depth", type=_positive_int, default=None,
                   help="with --session: X, the top documents of each query (default 10)")
    _gain_options(c, session=True, compare=True)
    c.set_defaults(func=run_compare, parser=c)

    h = subparsers.add_parser(
        "horizontal",
        help="rank each run needs to reach the ideal's (or a run's) gain at rank n",
        description=(
            "Horizontal reading of CG/DCG curves (Järvelin & Kekäläinen 2002): for each rank n "
            "given, the rank at which each run's cumulated gain first reaches the reference's "
            "gain at rank n, on the average curves (as the paper reads its Fig. 1: 30, 60 and "
            "170 documents for the ideal's 10) and averaged over topics."
        ),
    )
    h.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    h.add_argument("runs", metavar="RUN", nargs="+", help="TREC run files")
    h.add_argument("--at", dest="ranks", type=_positive_int, action="append", default=None,
                   metavar="N", help="rank n of the reference, repeatable (default 10)")
    h.add_argument("--curve", default="cg", choices=("cg", "dcg"), help="default cg")
    h.add_argument("--depth", type=_positive_int, default=200,
                   help="ranks searched (default 200)")
    h.add_argument("--reference", default="ideal",
                   help="'ideal' (default) or the name of a run")
    h.add_argument("--names", default=None, help="comma-separated names for the runs")
    h.add_argument("--missing", default="intersect", choices=("intersect", "zero"))
    h.add_argument("--per-query", action="store_true", help="also print every topic's rank")
    _gain_options(h, session=False)
    h.set_defaults(func=run_horizontal, parser=h)


def _session_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kw: dict[str, Any] = {
        "query_log_base": 4.0 if args.query_log_base is None else args.query_log_base,
        "pad": not args.no_pad,
        "duplicates": args.duplicates or "all",
        "ties": args.ties,
        "discount": args.discount or "jarvelin2008",
        "log_base": 2.0 if args.log_base is None else args.log_base,
    }
    if args.gain is not None:
        kw["gain"] = parse_gain(args.gain)
    return kw


def _eval_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kw: dict[str, Any] = {"ties": args.ties}
    if args.gain is not None:
        kw["gain"] = parse_gain(args.gain)
    if args.discount is not None:
        kw["discount"] = args.discount
    if args.log_base is not None:
        kw["log_base"] = args.log_base
    return kw


def _gain_text(args: argparse.Namespace, default: str) -> str:
    return args.gain if args.gain is not None else default


def _refuse_plot_options(args: argparse.Namespace) -> None:
    """Options the chosen ``--curve`` would ignore: an argparse error naming them."""
    curve = args.curve
    session = curve in (*_SESSION_CURVES, "query-position")
    if not session:
        _refuse_unused(args, _SESSION_OPTIONS, "to session curves (--curve sdcg, nsdcg, "
                                                "query-position)")
    if curve not in _SESSION_CURVES:
        _refuse_unused(args, {"min_queries": "--min-queries", "individual": "--individual"},
                       "to --curve sdcg, nsdcg")
    if curve != "pr":
        _refuse_unused(args, {"threshold": "--threshold"}, "to --curve pr")
    if curve not in ("ncg", "ndcg", "nsdcg"):  # how normalised vectors are averaged
        _refuse_unused(args, {"average": "--average"}, "to --curve ncg, ndcg, nsdcg")
    if curve == "pr":  # binary relevance by --threshold, ranks to the last relevant document
        _refuse_unused(args, {"depth": "--depth", "gain": "--gain", "discount": "--discount",
                              "log_base": "--log-base"}, "to gain curves, not --curve pr")
    if curve in ("cg", "ncg"):  # cumulated gain has no rank discount
        _refuse_unused(args, {"discount": "--discount", "log_base": "--log-base"},
                       "to discounted curves (dcg, ndcg, sdcg, nsdcg, query-position)")
    if session:  # sessions pair by session id; the session tables have no missing rule here
        _refuse_unused(args, {"missing": "--missing"}, "to --curve cg, dcg, ncg, ndcg, pr")


def run_plot(args: argparse.Namespace) -> int:
    """Run ``rankmetrics plot``; returns the exit status."""
    from ..analysis import plot

    plot.check_image_path(args.output, "-o/--output")  # else matplotlib writes <name>.png
    if args.dpi > _MAX_DPI:  # matplotlib's renderer fails on a huge canvas (MemoryError)
        raise ValueError(f"--dpi must be at most {_MAX_DPI}; got {args.dpi}")
    _refuse_plot_options(args)
    runs = _run_map(args.runs, args.names)
    missing = args.missing or "intersect"
    if args.curve in (*_SESSION_CURVES, "query-position"):
        from ..analysis.session import evaluate_sessions

        if args.individual and len(runs) != 1:
            raise ValueError("--individual draws the sessions of one run; got "
                             f"{len(runs)} runs")
        _refuse_docno(args)
        fig1 = args.curve == "query-position"
        depth = args.depth or (100 if fig1 else 10)
        _check_depth_memory(depth, len(runs))
        results = {name: evaluate_sessions(args.qrels, r, depth=depth, **_session_kwargs(args))
                   for name, r in runs.items()}
        n_units = sum(r.n_sessions for r in results.values())
        n_q = sum(int(r.n_queries.sum()) for r in results.values())
        auto = (f"{'normalised ' if args.curve == 'nsdcg' else ''}"
                f"{'sDCG(q) by rank, last vs non-last queries' if fig1 else 'session DCG'}, "
                f"gain {_gain_text(args, 'exponential')}, b={args.log_base or 2:g}, "
                f"bq={_session_kwargs(args)['query_log_base']:g}, ties={args.ties}\n"
                f"{n_units} sessions, {n_q} queries, top {depth} of each")
        title = auto if args.title is None else args.title
        if fig1:
            fig = plot.plot_query_position_curves(results, title=title)
        else:
            fig = plot.plot_session_curves(
                results, normalised=args.curve == "nsdcg", min_queries=args.min_queries,
                individual=bool(args.individual), average="ideal" if args.average == "ideal"
                else "per_session", show_ideal=not args.no_ideal and args.curve == "sdcg"
                and not args.individual, title=title,
            )
        if title:
            fig.axes[0].set_title(title, fontsize="small")
        what = f"{n_units} sessions" + (f"; {auto.replace(chr(10), '; ')}" if title else "")
    else:
        kw = _eval_kwargs(args)
        if args.curve == "pr":
            fig = plot.plot_trec_curves(
                args.qrels, runs, curve="pr", ties=args.ties,
                threshold=1.0 if args.threshold is None else args.threshold, missing=missing,
                title=args.title)
        else:
            _check_depth_memory(args.depth or 100, len(runs) + 1)
            kw.setdefault("gain", "exponential")
            fig = plot.plot_trec_curves(
                args.qrels, runs, curve=args.curve, depth=args.depth or 100,
                gain=kw["gain"], discount=kw.get("discount", "log"),
                log_base=kw.get("log_base", 2.0), ties=args.ties,
                average="ideal" if args.average == "ideal" else "per_query",
                missing=missing, show_ideal=not args.no_ideal, title=args.title,
            )
        title = fig.axes[0].get_title()
        what = title.replace("\n", "; ") if title else f"missing={missing}, ties={args.ties}"
    fig.savefig(args.output, dpi=args.dpi)
    print(f"wrote {args.output}: {args.curve} curves of {len(runs)} run(s) ({what})")
    return 0


def run_compare(args: argparse.Namespace) -> int:
    """Run ``rankmetrics compare``; returns the exit status."""
    from ..analysis import stats
    from ..analysis.report import render_report
    from ..measures.grammar import option_measures, split_measure_list

    if len(args.runs) < 2:
        raise ValueError(f"compare needs at least 2 runs; got {len(args.runs)}")
    if args.output is not None and not args.output.strip():
        raise ValueError("-o/--output is empty: give a file name, or leave -o out to print")
    if args.format is None:  # as matplotlib's savefig: the file's extension names its format
        ext = os.path.splitext(args.output or "")[1].lower()
        args.format = _REPORT_FORMATS.get(ext, "text")
    if not args.session:
        _refuse_unused(args, {**_SESSION_OPTIONS, "depth": "--depth"},
                       "with --session (session runs)")
    if args.details and args.format != "text":  # the other formats are tables to be read by
        # programs or typeset: text appended would break them (json holds the details)
        args.parser.error(f"--details applies only to --format text; got --format "
                          f"{args.format}")
    if args.no_relative and args.format == "csv":  # csv is data: rel_diff is a column
        args.parser.error("--no-relative applies only to --format text, markdown, latex, json "
                          "(csv has the relative difference as its rel_diff column)")
    # a test given twice, or under two names (t / ttest), is run once, as -m's measures
    tests = list(dict.fromkeys(stats._test_name(t) for t in args.tests or ["t"]))
    if not any(t in _RESAMPLING_TESTS for t in tests):
        _refuse_unused(args, {"n_resamples": "--n-resamples", "seed": "--seed"},
                       "to --test " + ", ".join(_RESAMPLING_TESTS))
    runs = _run_map(args.runs, args.names)
    resampling: dict[str, Any] = {
        "n_resamples": 10000 if args.n_resamples is None else args.n_resamples,
        "seed": 0 if args.seed is None else args.seed,
    }
    if args.session:
        from ..analysis.session import evaluate_sessions

        _refuse_docno(args)
        depth = 10 if args.depth is None else args.depth
        _check_depth_memory(depth, len(runs))
        # the session measures are the session frame's columns, listed as -m lists measures
        # (comma-separated); a name given twice is one column
        given = [m for v in args.metrics or ["nsdcg"] for m in split_measure_list(v)]
        if not given:
            raise ValueError(f"-m names no measure; got {', '.join(map(repr, args.metrics))}")
        first: dict[str, str] = {}
        for m in given:
            first.setdefault(m.lower(), m)
        metrics = list(first.values())
        bad = [m for m in metrics if m.lower() not in _SESSION_METRICS]
        if bad:
            raise ValueError(f"with --session, -m must be one of {', '.join(_SESSION_METRICS)}; "
                             f"got {bad}")
        frames = {name: evaluate_sessions(args.qrels, r, depth=depth,
                                          **_session_kwargs(args)).to_frame()
                  for name, r in runs.items()}
        _check_session_topics(runs)
        comparisons = []
        for m in metrics:
            col = _SESSION_METRICS[m.lower()]
            table = {name: f[col] for name, f in frames.items()}
            for t in tests:
                comparisons.append(stats.compare(table, test=t, alpha=args.alpha,
                                                 missing=args.missing,
                                                 correction=args.correction, metric=m,
                                                 **resampling))
    else:
        metrics = ["ndcg@10"]
        if args.metrics:  # eval's -m grammar: P.5,10, ndcg_cut.5,10, P, all_trec, ...
            metrics, notes = option_measures(args.metrics, ties=args.ties, vectors=True)
            for note in notes:
                print(f"rankmetrics compare: {note}", file=sys.stderr)
        # docno ties as trec_eval 10 and the other commands compare scores: as doubles
        docno: dict[str, Any] = {"docno_scores": "double"} if args.ties == "docno" else {}
        comparisons = stats.compare_runs(args.qrels, runs, metrics, tests=tests,
                                         alpha=args.alpha, missing=args.missing,
                                         correction=args.correction, **resampling,
                                         **_eval_kwargs(args), **docno)
    text = render_report(comparisons, args.format, relative=not args.no_relative)
    if args.format == "text" and args.details:
        text += "".join("\n\n" + c.summary() for c in comparisons)
    if not text.endswith("\n"):  # CSV ends with its line end: a second one is an empty row
        text += "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {args.output}: {args.format} report of {len(comparisons)} comparison(s)")
    else:
        sys.stdout.write(text)
    return 0


def run_horizontal(args: argparse.Namespace) -> int:
    """Run ``rankmetrics horizontal``; returns the exit status."""
    import numpy as np

    from ..analysis.plot import topics_statement, trec_gain_vectors

    if args.curve == "cg":  # cumulated gain has no rank discount
        _refuse_unused(args, {"discount": "--discount", "log_base": "--log-base"},
                       "to --curve dcg")
    ranks = list(dict.fromkeys(args.ranks or [10]))  # an --at given twice is one column
    if max(ranks) > args.depth:  # said before any output, in the options' words
        args.parser.error(f"--at must be at most --depth ({args.depth}), the ranks searched; "
                          f"got --at {max(ranks)}")
    runs = _run_map(args.runs, args.names)
    ref = args.reference
    if ref != "ideal" and ref not in runs:
        args.parser.error(f"--reference must be 'ideal' or a run name ({', '.join(runs)}); "
                          f"got {ref!r}")
    if ref == "ideal" and "ideal" in runs:  # the reference would silently be the qrels' ideal
        raise ValueError("a run is named 'ideal', the --reference keyword for the qrels' ideal "
                         "ranking: give it another name with --names")
    _check_depth_memory(args.depth, len(runs) + 1)
    kw = _eval_kwargs(args)
    kw.setdefault("gain", "exponential")
    gv = trec_gain_vectors(args.qrels, runs, curve=args.curve, depth=args.depth,
                           missing=args.missing, **kw)
    topics = topics_statement(len(gv.queries), args.missing, gv.missing_queries)
    curve = _CURVE_NAMES[args.curve]
    print(f"horizontal reading of {curve} (gain {gv.gain}, ties={args.ties}): rank each run "
          f"needs to reach the {ref} {curve} at rank n, searched to rank {args.depth}; {topics}")
    names = list(gv.vectors)
    width = max(len(n) for n in [*names, "run"])
    print(f"{'run':<{width}} " + " ".join(
        f"{'n=' + str(n):>8} {'mean':>7} {'reached':>8}" for n in ranks))
    tables = {n: gv.horizontal(n, reference=ref) for n in ranks}
    on_avg = {n: gv.horizontal_on_average(n, reference=ref) for n in ranks}
    ref_vectors = gv.ideal if ref == "ideal" else gv.vectors[ref]
    # a topic whose reference is 0 at rank n (no relevant document) has nothing to reach
    to_reach = {n: int(np.count_nonzero(ref_vectors[:, n - 1] > 0)) for n in ranks}
    for name in names:
        cells = []
        for n in ranks:
            col = tables[n][name].to_numpy()
            ok = ~np.isnan(col)
            a = on_avg[n][name]
            cells.append(f"{'-' if np.isnan(a) else f'{a:.0f}':>8} "
                         f"{(f'{col[ok].mean():.1f}' if ok.any() else '-'):>7} "
                         f"{f'{int(ok.sum())}/{to_reach[n]}':>8}")
        print(f"{name:<{width}} " + " ".join(cells))
    print(f"n=N: rank at which the average {_CURVE_NAMES[args.curve]} curve reaches the "
          f"{ref}'s average at rank N ('-': not within {args.depth}); mean: mean over the "
          "topics that reach it (per topic, against that topic's own reference); reached: "
          "how many do, of the topics whose reference is above 0 at rank N ('-' per topic "
          "also for the others: nothing to reach)")
    if args.per_query:
        for n in ranks:
            print(f"\nper topic, n={n}:")
            print(tables[n].to_string(na_rep="-", float_format=lambda x: f"{x:.0f}"))
    return 0
