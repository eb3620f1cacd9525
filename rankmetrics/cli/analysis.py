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
        s.add_argument("--query-log-base", type=float, default=4.0, metavar="BQ",
                       help="base bq of the query-position discount 1/(1 + log_bq q) (default 4)")
        s.add_argument("--no-pad", action="store_true",
                       help="do not pad short result lists to the depth X (paper: pad)")
        s.add_argument("--duplicates", default="all", choices=("all", "first"),
                       help="count a document every time it is returned (paper) or only the "
                            "first time")


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
    p.add_argument("--average", default="per-query", choices=("per-query", "ideal"),
                   help="normalised curves: mean of per-query normalised vectors (default), or "
                        "the mean vector over the mean ideal vector (JK 2002 Figs 3-4)")
    p.add_argument("--missing", default="intersect", choices=("intersect", "zero"),
                   help="topics some runs lack: average over the topics all runs have "
                        "(default), or over all, a lacking run scoring 0")
    p.add_argument("--threshold", type=float, default=1.0,
                   help="relevance threshold for --curve pr (default 1)")
    p.add_argument("--no-ideal", action="store_true", help="do not draw the ideal curve")
    p.add_argument("--min-queries", type=_positive_int, default=None,
                   help="session curves: also draw the average over sessions with at least this "
                        "many queries")
    p.add_argument("--individual", action="store_true",
                   help="session curves: one line per session (one run only)")
    p.add_argument("--dpi", type=_positive_int, default=120)
    _gain_options(p, session=True)
    p.set_defaults(func=run_plot)

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
                   help="metric to compare, repeatable (default ndcg@10): any measure of "
                        "'rankmetrics eval', or avg-CURVE@K / avg-CURVE@START-K (CURVE cg, dcg, "
                        "ncg, ndcg): the per-topic average of the gain vector over ranks "
                        "START..K (JK 2002 eq. 6 and Table 1, e.g. avg-ndcg@1-10, "
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
    c.add_argument("--n-resamples", type=_positive_int, default=10000, metavar="B",
                   help="randomization/bootstrap: sign flips or resamples (default 10000; all "
                        "2^n flips when that is fewer)")
    c.add_argument("--seed", type=int, default=0, help="seed of the resampling tests (default 0)")
    c.add_argument("--names", default=None, help="comma-separated names for the runs")
    c.add_argument("--format", default="text",
                   choices=("text", "markdown", "latex", "csv", "json"),
                   help="report format (default text): the JK 2002 Table 1 layout with "
                        "significance markers and a legend")
    c.add_argument("--no-relative", action="store_true",
                   help="do not show relative differences (B - A) / A next to the differences")
    c.add_argument("--details", action="store_true",
                   help="text format: also print every comparison's details")
    c.add_argument("-o", "--output", default=None,
                   help="write the report to this file instead of standard output")
    c.add_argument("--session", action="store_true",
                   help="RUN files are session runs; sessions are paired by session id")
    c.add_argument("--depth", type=_positive_int, default=10,
                   help="with --session: X, the top documents of each query (default 10)")
    _gain_options(c, session=True, compare=True)
    c.set_defaults(func=run_compare)

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
    h.set_defaults(func=run_horizontal)


def _session_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kw: dict[str, Any] = {
        "query_log_base": args.query_log_base,
        "pad": not args.no_pad,
        "duplicates": args.duplicates,
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


def run_plot(args: argparse.Namespace) -> int:
    """Run ``rankmetrics plot``; returns the exit status."""
    from ..analysis import plot

    if os.path.splitext(args.output)[1] == "":  # matplotlib would write "<name>.png" instead
        raise ValueError(f"-o/--output needs an image file name with its extension (.png, "
                         f".svg, .pdf); got {args.output!r}")
    if args.dpi > _MAX_DPI:  # matplotlib's renderer fails on a huge canvas (MemoryError)
        raise ValueError(f"--dpi must be at most {_MAX_DPI}; got {args.dpi}")
    runs = _run_map(args.runs, args.names)
    if args.curve in (*_SESSION_CURVES, "query-position"):
        from ..analysis.session import evaluate_sessions

        if args.individual and len(runs) != 1:
            raise ValueError("--individual draws the sessions of one run; got "
                             f"{len(runs)} runs")
        fig1 = args.curve == "query-position"
        depth = args.depth or (100 if fig1 else 10)
        results = {name: evaluate_sessions(args.qrels, r, depth=depth, **_session_kwargs(args))
                   for name, r in runs.items()}
        n_units = sum(r.n_sessions for r in results.values())
        n_q = sum(int(r.n_queries.sum()) for r in results.values())
        auto = (f"{'normalised ' if args.curve == 'nsdcg' else ''}"
                f"{'sDCG(q) by rank, last vs non-last queries' if fig1 else 'session DCG'}, "
                f"gain {_gain_text(args, 'exponential')}, b={args.log_base or 2:g}, "
                f"bq={args.query_log_base:g}, ties={args.ties}\n"
                f"{n_units} sessions, {n_q} queries, top {depth} of each")
        title = auto if args.title is None else args.title
        if fig1:
            fig = plot.plot_query_position_curves(results, title=title)
        else:
            fig = plot.plot_session_curves(
                results, normalised=args.curve == "nsdcg", min_queries=args.min_queries,
                individual=args.individual, average="ideal" if args.average == "ideal"
                else "per_session", show_ideal=not args.no_ideal and args.curve == "sdcg"
                and not args.individual, title=title,
            )
        if title:
            fig.axes[0].set_title(title, fontsize="small")
        what = f"{n_units} sessions" + (f"; {auto.replace(chr(10), '; ')}" if title else "")
    else:
        kw = _eval_kwargs(args)
        if args.curve == "pr":
            fig = plot.plot_trec_curves(args.qrels, runs, curve="pr", ties=args.ties,
                                        threshold=args.threshold, missing=args.missing,
                                        title=args.title)
        else:
            kw.setdefault("gain", "exponential")
            fig = plot.plot_trec_curves(
                args.qrels, runs, curve=args.curve, depth=args.depth or 100,
                gain=kw["gain"], discount=kw.get("discount", "log"),
                log_base=kw.get("log_base", 2.0), ties=args.ties,
                average="ideal" if args.average == "ideal" else "per_query",
                missing=args.missing, show_ideal=not args.no_ideal, title=args.title,
            )
        title = fig.axes[0].get_title()
        what = title.replace("\n", "; ") if title else f"missing={args.missing}, ties={args.ties}"
    fig.savefig(args.output, dpi=args.dpi)
    print(f"wrote {args.output}: {args.curve} curves of {len(runs)} run(s) ({what})")
    return 0


def run_compare(args: argparse.Namespace) -> int:
    """Run ``rankmetrics compare``; returns the exit status."""
    from ..analysis import stats
    from ..analysis.report import render_report

    if len(args.runs) < 2:
        raise ValueError(f"compare needs at least 2 runs; got {len(args.runs)}")
    if args.output is not None and not args.output.strip():
        raise ValueError("-o/--output is empty: give a file name, or leave -o out to print")
    runs = _run_map(args.runs, args.names)
    metrics = args.metrics or (["nsdcg"] if args.session else ["ndcg@10"])
    tests = args.tests or ["t"]
    resampling = {"n_resamples": args.n_resamples, "seed": args.seed}
    if args.session:
        from ..analysis.session import evaluate_sessions

        bad = [m for m in metrics if m.lower() not in _SESSION_METRICS]
        if bad:
            raise ValueError(f"with --session, -m must be one of {', '.join(_SESSION_METRICS)}; "
                             f"got {bad}")
        frames = {name: evaluate_sessions(args.qrels, r, depth=args.depth,
                                          **_session_kwargs(args)).to_frame()
                  for name, r in runs.items()}
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
        # docno ties as trec_eval 10 and the other commands compare scores: as doubles
        docno: dict[str, Any] = {"docno_scores": "double"} if args.ties == "docno" else {}
        comparisons = stats.compare_runs(args.qrels, runs, metrics, tests=tests,
                                         alpha=args.alpha, missing=args.missing,
                                         correction=args.correction, **resampling,
                                         **_eval_kwargs(args), **docno)
    text = render_report(comparisons, args.format, relative=not args.no_relative)
    if args.format == "text" and args.details:
        text += "".join("\n\n" + c.summary() for c in comparisons)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        print(f"wrote {args.output}: {args.format} report of {len(comparisons)} comparison(s)")
    else:
        sys.stdout.write(text + "\n")
    return 0


def run_horizontal(args: argparse.Namespace) -> int:
    """Run ``rankmetrics horizontal``; returns the exit status."""
    import numpy as np

    from ..analysis.plot import topics_statement, trec_gain_vectors

    runs = _run_map(args.runs, args.names)
    kw = _eval_kwargs(args)
    kw.setdefault("gain", "exponential")
    gv = trec_gain_vectors(args.qrels, runs, curve=args.curve, depth=args.depth,
                           missing=args.missing, **kw)
    ranks = args.ranks or [10]
    ref = args.reference
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
    for name in names:
        cells = []
        for n in ranks:
            col = tables[n][name].to_numpy()
            ok = ~np.isnan(col)
            a = on_avg[n][name]
            cells.append(f"{'-' if np.isnan(a) else f'{a:.0f}':>8} "
                         f"{(f'{col[ok].mean():.1f}' if ok.any() else '-'):>7} "
                         f"{f'{int(ok.sum())}/{col.size}':>8}")
        print(f"{name:<{width}} " + " ".join(cells))
    print(f"n=N: rank at which the average {_CURVE_NAMES[args.curve]} curve reaches the "
          f"{ref}'s average at rank N ('-': not within {args.depth}); mean: mean over the "
          "topics that reach it (per topic, against that topic's own reference); reached: "
          "how many do")
    if args.per_query:
        for n in ranks:
            print(f"\nper topic, n={n}:")
            print(tables[n].to_string(na_rep="-", float_format=lambda x: f"{x:.0f}"))
    return 0
