"""``rankmetrics plot`` and ``rankmetrics compare``: curves and significance tests of runs.

Registered into :mod:`rankmetrics.cli` by :func:`add_parsers`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any

from ..core.validation import TIES

_GAIN_CURVES = ("cg", "dcg", "ncg", "ndcg")
_SESSION_CURVES = ("sdcg", "nsdcg")
_SESSION_METRICS = {
    "sdcg": "final_gain",
    "nsdcg": "final_normalised",
    "avg-sdcg": "average_gain",
    "avg-nsdcg": "average_normalised",
}
_TEST_CHOICES = ("t", "ttest", "wilcoxon", "friedman", "anova")


def parse_gain(text: str) -> Any:
    """``exponential`` | ``linear`` | per-level weights ``0,1,10,100`` | ``1=3,2=9`` pairs.

    As ``rankmetrics eval --gain``: in level=gain pairs, levels left out keep their linear gain.
    """
    t = text.strip()
    if t.lower() in ("exponential", "linear"):
        return t.lower()
    try:
        if "=" in t:
            pairs = {float(a): float(b) for a, b in (p.split("=") for p in t.split(","))}
            values = list(pairs.values())
        else:
            values = [float(w) for w in t.split(",")]
    except ValueError:
        raise ValueError(
            f"--gain must be 'exponential', 'linear', per-level weights such as '0,1,10,100' or "
            f"level=gain pairs such as '1=3,2=9'; got {text!r}"
        ) from None
    if any(not math.isfinite(w) or w < 0 for w in values):
        raise ValueError(f"--gain weights must be finite numbers >= 0; got {text!r}")
    return pairs if "=" in t else values


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
        out: dict[str, str] = {}
        for i, r in enumerate(runs):
            name = os.path.basename(r) or r
            out[name if name not in out else f"{name}#{i + 1}"] = r
        return out
    labels = [n.strip() for n in names.split(",")]
    if len(labels) != len(runs) or len(set(labels)) != len(labels) or not all(labels):
        raise ValueError(f"--names needs {len(runs)} distinct comma-separated names (one per "
                         f"run); got {names!r}")
    return dict(zip(labels, runs, strict=True))


def _gain_options(p: argparse.ArgumentParser, *, session: bool) -> None:
    g = p.add_argument_group("gain and ranking")
    g.add_argument("--gain", default=None, metavar="GAIN",
                   help="'exponential' (2^l - 1, the default), 'linear' (l; trec_eval's), "
                        "per-level weights like '0,1,10,100' (JK 2002's) or level=gain pairs "
                        "like '1=3,2=9' (other levels linear)")
    g.add_argument("--discount", default=None,
                   choices=("log", "jarvelin2002", "jarvelin2008", "none"),
                   help="rank discount (default: log; jarvelin2008 = 1/(1 + log_b i) for "
                        "sessions)")
    g.add_argument("--log-base", type=float, default=None, metavar="B",
                   help="base b of the rank discount (default 2)")
    g.add_argument("--ties", default="average", choices=(*TIES, "docno"),
                   help="tie rule for equal scores (default: average = exact mean over "
                        "orderings; docno = trec_eval's document id order, TREC runs only)")
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
                   choices=(*_GAIN_CURVES, "pr", *_SESSION_CURVES),
                   help="cg, dcg (with the ideal curve), ncg, ndcg, pr (11-point interpolated "
                        "precision-recall), sdcg or nsdcg (session runs) (default ndcg)")
    p.add_argument("--depth", type=_positive_int, default=None,
                   help="ranks to draw (default 100); for session curves X, the top documents of "
                        "each query (default 10)")
    p.add_argument("-o", "--output", default="curves.png", help="image file (default curves.png)")
    p.add_argument("--names", default=None, help="comma-separated names for the runs "
                                                 "(default: file names)")
    p.add_argument("--title", default=None)
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
                   help="metric to compare, repeatable (default ndcg@10); with --session one of "
                        + ", ".join(_SESSION_METRICS))
    c.add_argument("--test", dest="tests", action="append", default=None,
                   choices=_TEST_CHOICES, help="test, repeatable (default t)")
    c.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    c.add_argument("--missing", default="intersect", choices=("intersect", "zero", "error"),
                   help="queries some runs lack: drop them (default), score them 0, or fail; "
                        "always stated in the output")
    c.add_argument("--correction", default="none", choices=("none", "holm", "bonferroni"),
                   help="adjust pairwise p-values over the pairs (default none)")
    c.add_argument("--names", default=None, help="comma-separated names for the runs")
    c.add_argument("--format", default="text", choices=("text", "json"))
    c.add_argument("--session", action="store_true",
                   help="RUN files are session runs; sessions are paired by session id")
    c.add_argument("--depth", type=_positive_int, default=10,
                   help="with --session: X, the top documents of each query (default 10)")
    _gain_options(c, session=True)
    c.set_defaults(func=run_compare)


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


def run_plot(args: argparse.Namespace) -> int:
    """Run ``rankmetrics plot``; returns the exit status."""
    from ..analysis import plot

    runs = _run_map(args.runs, args.names)
    if args.curve in _SESSION_CURVES:
        from ..analysis.session import evaluate_sessions

        if args.individual and len(runs) != 1:
            raise ValueError("--individual draws the sessions of one run; got "
                             f"{len(runs)} runs")
        depth = args.depth or 10
        results = {name: evaluate_sessions(args.qrels, r, depth=depth, **_session_kwargs(args))
                   for name, r in runs.items()}
        fig = plot.plot_session_curves(
            results, normalised=args.curve == "nsdcg", min_queries=args.min_queries,
            individual=args.individual, average="ideal" if args.average == "ideal"
            else "per_session", show_ideal=not args.no_ideal and args.curve == "sdcg"
            and not args.individual, title=args.title,
        )
        n_units = sum(r.n_sessions for r in results.values())
        what = f"{n_units} sessions"
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
        what = f"missing={args.missing}, ties={args.ties}"
        if args.curve == "pr" and args.ties == "average":
            what += ": interpolated from the tie-averaged precision and recall at each rank"
    fig.savefig(args.output, dpi=args.dpi)
    print(f"wrote {args.output}: {args.curve} curves of {len(runs)} run(s) ({what})")
    return 0


def run_compare(args: argparse.Namespace) -> int:
    """Run ``rankmetrics compare``; returns the exit status."""
    from ..analysis import stats

    if len(args.runs) < 2:
        raise ValueError(f"compare needs at least 2 runs; got {len(args.runs)}")
    runs = _run_map(args.runs, args.names)
    metrics = args.metrics or (["nsdcg"] if args.session else ["ndcg@10"])
    tests = args.tests or ["t"]
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
                                                 correction=args.correction, metric=m))
    else:
        comparisons = stats.compare_runs(args.qrels, runs, metrics, tests=tests,
                                         alpha=args.alpha, missing=args.missing,
                                         correction=args.correction, **_eval_kwargs(args))
    if args.format == "json":
        json.dump([_as_json(c) for c in comparisons], sys.stdout, indent=2)
        print()
        return 0
    print(stats.significance_table(comparisons))
    for c in comparisons:
        print()
        print(c.summary())
    return 0


def _as_json(c: Any) -> dict[str, Any]:
    def num(x: float) -> float | str:
        return x if math.isfinite(x) else str(x)

    return {
        "metric": c.metric,
        "test": c.test,
        "alpha": c.alpha,
        "missing": c.missing,
        "missing_statement": c.missing_statement(),
        "correction": c.correction,
        "n_queries": c.n_queries,
        "systems": list(c.systems),
        "means": [float(m) for m in c.means],
        "omnibus": None if c.omnibus is None else {
            "name": c.omnibus.name, "statistic": num(c.omnibus.statistic),
            "df": list(c.omnibus.df), "pvalue": c.omnibus.pvalue,
            "effect_size": num(c.omnibus.effect_size), "effect_name": c.omnibus.effect_name,
        },
        "pairwise": [{k: num(v) if isinstance(v, float) else v for k, v in p.__dict__.items()}
                     for p in c.pairwise],
    }
