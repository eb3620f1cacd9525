"""``rankmetrics eval QRELS RUN -m nDCG@10 -m P@5 ...``: trec_eval-style evaluation."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from typing import Any

from ..core.gains import DISCOUNTS
from ..core.validation import ascii_integer
from ..measures.grammar import parse_gain_spec

DEFAULT_MEASURES = ("AP", "Rprec", "RR", "P@5", "P@10", "nDCG", "nDCG@10", "R@100")
#: inputs at least this large (bytes, qrels + run) get a progress bar on a terminal
PROGRESS_BYTES = 20_000_000
FORMATS = ("table", "csv", "json", "trec")


def _gain(text: str) -> Any:
    """``linear`` | ``exponential`` | ``1=3,2=9,4=4.5`` (level=gain) | ``0,1,10,100`` (weights),
    as :func:`rankmetrics.measures.grammar.parse_gain_spec` reads them."""
    try:
        return parse_gain_spec(text, "--gain")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _empty(text: str) -> Any:
    if text in ("skip", "error"):
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--empty must be a number, 'skip' or 'error'; got {text!r}"
        ) from None


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``eval`` sub-command (pandas and pyarrow are imported only when it runs)."""
    from ..core.validation import TIES as CORE_TIES

    ties = (*CORE_TIES, "docno")
    p = subparsers.add_parser(
        "eval",
        help="evaluate a TREC run against qrels (trec_eval-compatible options)",
        description=(
            "Evaluate a TREC run (qid Q0 docno rank score tag) against qrels (qid iter docno "
            "rel). Measures use ir_measures names (nDCG@10, P@5, AP, RR, Rprec, R@100, "
            "Success@10, SetF(beta=0.5), ERR@20, RBP(p=0.8), RBP_residual, IPrec@0.1, "
            "11pt_avg, Bpref, Judged@10, ...) or trec_eval names "
            "(ndcg_cut.10, P.5, map, recip_rank, ..., official, all_trec). Gains are linear "
            "(trec_eval's and ir_measures'); use --ties docno to reproduce trec_eval's tie "
            "order too."
        ),
    )
    p.add_argument("qrels", help="qrels file (.gz accepted)")
    p.add_argument("run", help="run file (.gz accepted; - reads it from stdin, as trec_eval 10)")
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help="measure name; repeat or separate with commas (default: "
                        + ", ".join(DEFAULT_MEASURES) + ")")
    p.add_argument("--ties", choices=ties, default="average",
                   help="order of tied scores: exact average over orderings (default), "
                        "optimistic, pessimistic, stable (file order), docno (trec_eval)")
    p.add_argument("--docno-scores", choices=("double", "float"), default="double",
                   help="with --ties docno, compare scores as doubles (trec_eval 10; default) "
                        "or as C floats (trec_eval 9, pytrec_eval, ir_measures: scores equal "
                        "in single precision tie)")
    p.add_argument("-q", "--per-query", "--query_eval_wanted", action="store_true",
                   help="print every query, not only the aggregate")
    p.add_argument("-n", "--no-summary", "--nosummary", action="store_true",
                   help="with -q: leave out the aggregate ('all') lines (trec_eval -n)")
    p.add_argument("--format", choices=FORMATS, default="table",
                   help="output: aligned table (default), csv, json, or trec_eval's three "
                        "columns")
    p.add_argument("--gain", type=_gain, default="linear",
                   help="gain of a label: linear (the label, as trec_eval and ir_measures; "
                        "default), exponential (2^l-1), '1=3,2=9' (level=gain, others linear) "
                        "or '0,1,10,100' (per level)")
    p.add_argument("--discount", default="log",
                   choices=DISCOUNTS,
                   help="rank discount (default log: 1/log_b(rank+1))")
    p.add_argument("--log-base", type=float, default=2.0, help="logarithm base b (default 2)")
    p.add_argument("-l", "--threshold", "--level_for_rel", type=_relevance_level, default=1.0,
                   help="relevance level, an integer: labels >= it are relevant (trec_eval -l; "
                        "default 1)")
    p.add_argument("-c", "--complete", "--complete_rel_info_wanted", action="store_true",
                   help="score qrels queries missing from the run as 0 (trec_eval -c)")
    p.add_argument("-M", "--max-depth", "--Max_retrieved_per_topic", type=_max_depth,
                   default=None,
                   metavar="M",
                   help="read only the top M documents of each query (trec_eval -M)")
    p.add_argument("-J", "--judged-only", "--Judged_docs_only", action="store_true",
                   help="drop unjudged retrieved documents (no qrels entry or a negative "
                        "label) before ranking: every measure over judged documents only "
                        "(trec_eval -J)")
    p.add_argument("--beta", type=float, default=1.0, help="F-measure beta (default 1)")
    p.add_argument("--empty", type=_empty, default=0.0,
                   help="value of queries without relevant documents: a number (default 0), "
                        "'skip' (left out of the mean) or 'error'")
    p.add_argument("--digits", type=int, default=4,
                   help="decimals in table and csv output (default 4)")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None,
                     help="always show a progress bar on stderr")
    bar.add_argument("--no-progress", dest="progress", action="store_false",
                     help="never show a progress bar")
    for flags, what in _UNSUPPORTED:  # refused by name (argparse took their values for files)
        p.add_argument(*flags, nargs=1, action=_Unsupported, help=argparse.SUPPRESS, what=what)
    p.set_defaults(func=run)
    return p


#: trec_eval options that ``eval`` does not take, with what they do there
_UNSUPPORTED = (
    (("-D", "--Debug_level"), "its debug level"),
    (("-N", "--Number_docs_in_coll"), "the number of documents in the collection"),
    (("-R", "--Rel_info_format"), "another qrels format"),
    (("-T", "--Results_format"), "another run format"),
    (("-Z", "--Zscore"), "z-scores against a file of means"),
)


class _Unsupported(argparse.Action):
    """A trec_eval option ``eval`` does not take: a usage error naming it."""

    def __init__(self, *args: Any, what: str = "", **kwargs: Any) -> None:
        self.what = what
        super().__init__(*args, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        parser.error(f"{'/'.join(self.option_strings)} (trec_eval: {self.what}) is not "
                     "supported by rankmetrics eval")


def _relevance_level(text: str) -> float:
    """``-l``: an integer, as trec_eval reads it (``atol``: its ``-l 1.5`` is 1, ``-l 1_0``
    is 1); anything else is refused rather than read as another level than trec_eval's."""
    level = ascii_integer(text)
    if level is None:
        raise argparse.ArgumentTypeError(
            f"-l takes an integer relevance level, as trec_eval reads it; got {text!r}"
        )
    return float(level)


def _max_depth(text: str) -> int:
    """``-M``: a positive integer. trec_eval's ``-M 0`` (no document read: every measure 0)
    is refused by name rather than reported as the API's ``max_depth``; so is text that
    ``atol`` reads otherwise than Python (``-M 1_0``: trec_eval's 1)."""
    depth = ascii_integer(text) or 0
    if depth < 1:
        raise argparse.ArgumentTypeError(
            f"-M takes a positive integer, the documents read per query (trec_eval's -M 0, "
            f"which reads none, is not offered); got {text!r}"
        )
    return depth


def _measures(values: list[str] | None, ties: str, fmt: str = "trec") -> list[str]:
    from ..measures.grammar import option_measures

    if not values:
        return list(DEFAULT_MEASURES)
    names, notes = option_measures(values, ties=ties, trec_order=fmt == "trec")
    for note in notes:
        sys.stderr.write(f"rankmetrics eval: {note}\n")
    return names


def _show_progress(args: argparse.Namespace) -> bool:
    if args.progress is not None:
        return bool(args.progress)
    if not sys.stderr.isatty():
        return False
    size = 0
    for path in (args.qrels, args.run):
        try:
            size += os.path.getsize(path)
        except OSError:
            pass
    return size >= PROGRESS_BYTES


def render(result: Any, fmt: str, per_query: bool, digits: int = 4, summary: bool = True
           ) -> str:
    """Text of an :class:`~rankmetrics.trec.EvalResult` in one of :data:`FORMATS`."""
    if fmt == "trec":
        return result.to_trec(per_query=per_query, summary=summary)
    if fmt == "json":
        return result.to_json(per_query=per_query, summary=summary)
    frame = result.to_frame(per_query=per_query, summary=summary)
    for name in result.count_measures:  # counts print as integers, as in trec_eval
        frame[name] = frame[name].round().astype("Int64")
    if fmt == "csv":
        return frame.to_csv(float_format=f"%.{digits}f").rstrip("\n")
    return frame.reset_index().to_string(index=False, float_format=lambda v: f"{v:.{digits}f}")


def run(args: argparse.Namespace) -> int:
    """Run the ``eval`` command; returns the exit status."""
    from ..trec import evaluate
    from ..trec.io import copy_stream

    if args.digits < 0:
        raise ValueError(f"--digits must be >= 0; got {args.digits}")
    if args.no_summary and not args.per_query:  # trec_eval would print nothing
        raise ValueError("-n/--no-summary leaves out the aggregate: give -q too (per query)")
    with contextlib.ExitStack() as stack:
        run_src = args.run
        if run_src == "-":  # trec_eval 10 reads the run from stdin: copied in blocks to a file
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="rankmetrics-"))
            run_src = os.path.join(tmp, "stdin.run")
            copy_stream(sys.stdin.buffer, run_src)
        try:
            result = evaluate(
                args.qrels, run_src, _measures(args.measures, args.ties, args.format),
                ties=args.ties, gain=args.gain,
                discount=args.discount, log_base=args.log_base, threshold=args.threshold,
                complete=args.complete, max_depth=args.max_depth, beta=args.beta,
                empty=args.empty, progress=_show_progress(args), judged_only=args.judged_only,
                docno_scores=args.docno_scores,
            )
        except ValueError as exc:
            if run_src == args.run:
                raise
            raise ValueError(str(exc).replace(run_src, "<stdin>")) from None
    text = render(result, args.format, args.per_query, args.digits, not args.no_summary)
    sys.stdout.write(text + "\n")
    return 0
