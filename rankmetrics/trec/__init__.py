"""Evaluate TREC runs against qrels: readers, :func:`evaluate` and :class:`EvalResult`.

A *run* lists, per query, retrieved documents with scores; *qrels* give graded relevance
judgements. The ideal ranking of nDCG/nCG and the number of relevant documents R come from the
*recall base* -- every judged document of the topic, retrieved or not (Järvelin & Kekäläinen
2002, eq. 4) -- and unjudged retrieved documents have gain 0.

Needs the ``io`` extra (pandas, pyarrow; tqdm for progress bars).

Examples
--------
>>> from rankmetrics.trec import evaluate
>>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.9, "d3": 0.1, "d9": 0.5}, "q2": {"d5": 1.0, "d4": 0.5}}
>>> res = evaluate(qrels, run, ["nDCG@2", "P@2", "AP", "RR"])
>>> res.per_query.round(4)  # doctest: +NORMALIZE_WHITESPACE
     nDCG@2  P@2     AP    RR
qid
q1   0.6199  0.5  0.625  0.75
q2   0.6309  0.5  0.500  0.50
>>> res.mean["AP"]
0.5625

d1 and d2 tie at 0.9: with the default ties="average", AP and RR take the exact mean over both
orders (McSherry & Najork 2008); the ideal DCG uses every judged document (recall base).

``ties="docno"`` reproduces trec_eval, which breaks the tie of d1 and d2 by docno descending
(d2 first):

>>> evaluate(qrels, run, ["RR"], ties="docno").per_query["RR"].tolist()
[0.5, 0.5]
"""

from __future__ import annotations

import json
import math
import numbers
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from ..core.gains import DiscountLike, GainLike, apply_gain, discount_key, gain_key
from ..core.validation import TIES as CORE_TIES
from ..core.validation import as_float64, check_empty, check_flag, check_positive_real
from ..measures.grammar import (
    ORDER_ONLY_KINDS,
    Measure,
    is_trec_gain_map,
    parse_measures,
    trec_eval_conflict,
    trec_eval_spelling,
)
from . import io as _trec_io
from . import judged as _judged
from . import match as _match
from .compute import compute, trec_gain

__all__ = [
    "EvalResult",
    "TIES",
    "evaluate",
    "qrels_from_arrays",
    "read_qrels",
    "read_run",
    "run_from_arrays",
    "tie_effect",
    "write_qrels",
    "write_run",
]

#: tie modes of :func:`evaluate`: the core's four plus trec_eval's docno order
TIES = (*CORE_TIES, "docno")
_COUNT_KINDS = ("numret", "numrel", "numrelret")


def read_qrels(src: Any) -> pd.DataFrame:
    """Read relevance judgements.

    Parameters
    ----------
    src : path, DataFrame, dict, ranx Qrels or iterable of ir_measures Qrel
        A file (format below), a pandas or polars DataFrame or arrow table with query id,
        document id and label columns (``qid``/``query_id``/``q_id``/``query``/``topic``,
        ``docid``/``doc_id``/``docno``/``doc``, ``label``/``relevance``/``rel``), a nested dict
        ``{qid: {docid: label}}`` (pytrec_eval, ranx), a ranx ``Qrels``, or an iterable of
        ir_measures ``Qrel(query_id, doc_id, relevance, iteration)`` namedtuples.

        File formats, by the extension under a ``.gz``/``.bz2``/``.xz`` suffix (compression is
        recognised by the file's first bytes too): ``.parquet``/``.pq``, ``.json`` (the nested
        dict), ``.csv``/``.tsv`` with a header naming the columns (without one, TREC lines
        are TREC text: MS MARCO's ``qrels.dev.tsv``); any other name is read by content --
        parquet's ``PAR1`` at both ends, JSON's ``{`` and a key, else TREC text (``query iter docno
        relevance`` per line, whitespace separated; lines starting with ``#`` are comments; a
        UTF-8 byte-order mark is dropped).

    Returns
    -------
    pandas.DataFrame
        Columns ``qid`` (str), ``docid`` (str), ``label`` (float64), one row per judgement,
        in input order. Labels are kept as given (negative labels included).

    Raises
    ------
    FileNotFoundError, IsADirectoryError
        No file at the path.
    ValueError
        A malformed line (the message names the file and the line), text that is not UTF-8, a
        non-numeric or non-finite label, missing columns, no judgements at all, truncated or
        corrupt compressed data, or a file that does not parse as its detected format (the
        message names the format and how it was detected).
    TypeError
        ``src`` of another type.

    Examples
    --------
    >>> read_qrels({"301": {"d1": 1, "d2": -1}})
       qid docid  label
    0  301    d1    1.0
    1  301    d2   -1.0
    """
    return _trec_io.to_frame(_trec_io.to_table(src, "qrels"))


def read_run(src: Any) -> pd.DataFrame:
    """Read a run (ranked retrieval results).

    Parameters
    ----------
    src : path, DataFrame, dict, ranx Run or iterable of ir_measures ScoredDoc
        A file in one of the formats of :func:`read_qrels` (TREC text: ``query Q0 docno rank
        score [tag]``; the rank column is ignored, as in trec_eval, and fields after the sixth
        too), a pandas or polars DataFrame or arrow table with query id, document id and
        ``score`` columns, a nested dict ``{qid: {docid: score}}``, a ranx ``Run``, or an
        iterable of ir_measures ``ScoredDoc(query_id, doc_id, score)`` namedtuples.

    Returns
    -------
    pandas.DataFrame
        Columns ``qid`` (str), ``docid`` (str), ``score`` (float64), in input order.

    Raises
    ------
    FileNotFoundError, IsADirectoryError
        No file at the path.
    ValueError
        A malformed line (naming the file and the line), a non-numeric or non-finite score,
        missing columns, an empty run, or the other file errors of :func:`read_qrels`.
    TypeError
        ``src`` of another type.

    Examples
    --------
    >>> read_run({"301": {"d1": 2.5, "d2": 1.0}})
       qid docid  score
    0  301    d1    2.5
    1  301    d2    1.0
    """
    return _trec_io.to_frame(_trec_io.to_table(src, "run"))


def run_from_arrays(qid: Any, score: Any, docno: Any = None) -> pd.DataFrame:
    """A run from per-row arrays, e.g. a model's predictions on LETOR data.

    Parameters
    ----------
    qid : array-like of shape (n_rows,)
        Query id of every row: integers (written as decimal text) or strings.
    score : array-like of shape (n_rows,)
        Score of every row (higher ranks first); finite numbers.
    docno : array-like of shape (n_rows,), optional
        Document id of every row. By default ``"d0", "d1", ...``: the row number, which
        :func:`qrels_from_arrays` generates too, so a run and qrels built from the same rows
        match.

    Returns
    -------
    pandas.DataFrame
        Columns ``qid`` (str), ``docid`` (str), ``score`` (float64), in input order; accepted by
        :func:`evaluate`, :func:`write_run` and :func:`rankmetrics.stats.compare_runs`.

    Raises
    ------
    ValueError
        Arrays of different lengths, empty, non-finite scores, missing ids or non-integral
        float ids.
    TypeError
        Ids that are neither text nor integers.

    Examples
    --------
    >>> run_from_arrays([7, 7, 8], [0.5, 2.0, 1.0])
      qid docid  score
    0   7    d0    0.5
    1   7    d1    2.0
    2   8    d2    1.0
    """
    return _trec_io.to_frame(_trec_io.from_arrays(qid, score, docno, kind="run"))


def qrels_from_arrays(qid: Any, label: Any, docno: Any = None) -> pd.DataFrame:
    """Qrels from per-row arrays (the labels of a LETOR file, say); see :func:`run_from_arrays`.

    Parameters
    ----------
    qid : array-like of shape (n_rows,)
        Query id of every row (integers or strings).
    label : array-like of shape (n_rows,)
        Relevance label of every row (finite numbers).
    docno : array-like of shape (n_rows,), optional
        Document ids; by default ``"d0", "d1", ...`` (the row number).

    Returns
    -------
    pandas.DataFrame
        Columns ``qid`` (str), ``docid`` (str), ``label`` (float64), in input order.

    Raises
    ------
    ValueError, TypeError
        As :func:`run_from_arrays`.

    Examples
    --------
    >>> qrels_from_arrays([7, 7, 8], [1, 0, 2])["docid"].tolist()
    ['d0', 'd1', 'd2']
    """
    return _trec_io.to_frame(_trec_io.from_arrays(qid, label, docno, kind="qrels"))


def _write(kind: str, path: Any, qid: Any, docno: Any, value: Any, **options: Any) -> Any:
    if docno is None and value is None:
        tb = _trec_io.to_table(qid, kind)
    elif value is None:
        raise TypeError(f"write_{kind} needs {_trec_io.VALUE_NAME[kind]} with arrays of qid and "
                        "docno (or one run/qrels source as qid)")
    else:
        tb = _trec_io.from_arrays(qid, value, docno, kind=kind)
    return _trec_io.write_table(path, tb, kind, **options)


def write_run(path: Any, qid: Any, docno: Any = None, score: Any = None, *,
              tag: str = "rankmetrics") -> Any:
    """Write a run; the format comes from the extension of ``path``.

    Parameters
    ----------
    path : str or path-like
        ``.parquet``, ``.json`` (``{qid: {docid: score}}``), ``.csv``/``.tsv`` (header ``qid,
        docid, score``), anything else TREC text ``qid Q0 docno rank score tag``, sorted by
        query (byte order), score descending and docno descending -- trec_eval's order -- with
        ranks 1, 2, ... per query. ``.gz``, ``.bz2`` or ``.xz`` after a text format compresses
        it.
    qid : array-like of shape (n_rows,), or a run
        Query ids; or, with ``docno`` and ``score`` left out, any run :func:`read_run` accepts.
    docno : array-like of shape (n_rows,), optional
        Document ids; generated as ``"d0", "d1", ...`` (see :func:`run_from_arrays`) when
        ``score`` is given without them.
    score : array-like of shape (n_rows,), optional
        Scores (finite); written in their shortest round-trip form, so reading the file back
        gives the same floats.
    tag : str, default "rankmetrics"
        Run tag of TREC text (the sixth field; no whitespace).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ValueError
        Bad arrays (see :func:`run_from_arrays`); ids with whitespace, empty ids, query ids
        starting with ``#`` or a first query id starting with a byte-order mark in TREC text
        (they could not be read back); a compressed parquet name.
    TypeError
        Ids that are neither text nor integers.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "model.run"
    >>> _ = write_run(path, [7, 7, 8], ["a", "b", "c"], [0.5, 2.0, 1.0], tag="lgbm")
    >>> print(path.read_text(), end="")
    7 Q0 b 1 2 lgbm
    7 Q0 a 2 0.5 lgbm
    8 Q0 c 1 1 lgbm
    >>> read_run(path).equals(read_run({"7": {"b": 2.0, "a": 0.5}, "8": {"c": 1.0}}))
    True
    """
    return _write("run", path, qid, docno, score, tag=tag)


def write_qrels(path: Any, qid: Any, docno: Any = None, label: Any = None, *,
                iteration: str = "0") -> Any:
    """Write qrels; the format comes from the extension of ``path`` (as :func:`write_run`).

    Parameters
    ----------
    path : str or path-like
        As in :func:`write_run`; TREC text is ``qid iteration docno label`` in input order,
        labels as integers when they all are.
    qid : array-like of shape (n_rows,), or qrels
        Query ids; or, with ``docno`` and ``label`` left out, any qrels :func:`read_qrels`
        accepts.
    docno : array-like of shape (n_rows,), optional
        Document ids (generated ``"d0", "d1", ...`` when ``label`` is given without them).
    label : array-like of shape (n_rows,), optional
        Relevance labels (finite).
    iteration : str, default "0"
        The second field of TREC qrels (ignored by readers).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ValueError, TypeError
        As :func:`write_run`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = write_qrels(path, {"7": {"a": 1, "b": 0}})
    >>> print(path.read_text(), end="")
    7 0 a 1
    7 0 b 0
    """
    return _write("qrels", path, qid, docno, label, iteration=iteration)


_F = TypeVar("_F", bound=Callable[..., Any])


def _shown_options(summary_is: str) -> Callable[[_F], _F]:
    """The ``per_query`` / ``summary`` parameters and their error, which ``to_frame``,
    ``to_trec`` and ``to_json`` share, written into the method's docstring at its
    ``@shown_params`` and ``@shown_raises`` lines (``summary_is``: what the summary is there)."""
    params = (
        "Parameters\n"
        "        ----------\n"
        "        per_query : bool, default True\n"
        "            Include a row per evaluated query (in :attr:`per_query`'s order).\n"
        "        summary : bool, default True\n"
        f"            Include the mean over queries ({summary_is}); False is trec_eval's "
        "``-n``."
    )
    raises = (
        "Raises\n"
        "        ------\n"
        "        ValueError\n"
        "            ``per_query=False`` and ``summary=False`` (nothing to show).\n"
        "        TypeError\n"
        "            ``per_query`` or ``summary`` not True or False."
    )

    def deco(fn: _F) -> _F:
        doc = fn.__doc__
        if doc is None:  # python -OO: no docstrings
            return fn
        if "@shown_params" not in doc or "@shown_raises" not in doc:
            raise AssertionError(f"{fn.__name__}: no @shown_params / @shown_raises line")
        fn.__doc__ = doc.replace("@shown_params", params).replace("@shown_raises", raises)
        return fn

    return deco


@dataclass
class EvalResult:
    """Per-query values and their aggregate, as returned by :func:`evaluate`.

    Attributes
    ----------
    per_query : pandas.DataFrame
        Index ``qid`` (str, sorted as trec_eval does), one float64 column per measure named as
        given (trec_eval family names expand to one column per member). NaN marks a query left
        out by ``empty="skip"``.
    mean : dict of str to float
        Mean over queries (NaN left out) of every measure; the count measures NumRet, NumRel and
        NumRelRet are summed instead, as in trec_eval's "all" row.
    params : dict
        The options of the evaluation (ties, gain, threshold, ...).
    """

    per_query: pd.DataFrame
    mean: dict[str, float]
    params: dict[str, Any] = field(default_factory=dict)
    _counts: tuple[str, ...] = field(default=(), repr=False)

    @property
    def measures(self) -> list[str]:
        """Column names, in order."""
        return [str(c) for c in self.per_query.columns]

    @property
    def count_measures(self) -> tuple[str, ...]:
        """Columns that count documents (NumRet, NumRel, NumRelRet): summed in :attr:`mean`."""
        return self._counts

    @_shown_options("the ``all`` row")
    def to_frame(self, *, per_query: bool = True, summary: bool = True) -> pd.DataFrame:
        """The per-query table (optional) with a final ``all`` row holding :attr:`mean`.

        @shown_params

        Returns
        -------
        pandas.DataFrame
            Index ``qid`` (``"all"`` for the summary row), one float64 column per measure.

        @shown_raises
        """
        _check_shown(per_query, summary)
        all_row = pd.DataFrame([self.mean], index=pd.Index(["all"], name="qid"))
        if not per_query:
            return all_row
        if not summary:
            return self.per_query.copy()
        return pd.concat([self.per_query, all_row])

    def __repr__(self) -> str:
        means = ", ".join(f"{m}={self._fmt(m, v)}" for m, v in list(self.mean.items())[:6])
        more = f", ... ({len(self.mean)} measures)" if len(self.mean) > 6 else ""
        ties = self.params.get("ties")
        opts = f", ties={ties!r}" if ties is not None else ""
        return f"EvalResult({len(self.per_query)} queries{opts}: {means}{more})"

    def _fmt(self, name: str, value: float) -> str:
        if name in self._counts and not math.isnan(value):
            return str(int(round(value)))
        return f"{value:.4f}"

    @_shown_options("the ``all`` lines")
    def to_trec(self, *, per_query: bool = True, summary: bool = True) -> str:
        """trec_eval's three-column text (``measure<TAB>query<TAB>value``), per query then all.

        @shown_params

        Returns
        -------
        str
            One line per (query, measure), counts as integers and the rest with 4 decimals.

        @shown_raises

        Examples
        --------
        >>> res = evaluate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5}}, ["P@2", "NumRet"])
        >>> print(res.to_trec())  # doctest: +NORMALIZE_WHITESPACE
        P@2                   	q	0.5000
        NumRet                	q	2
        P@2                   	all	0.5000
        NumRet                	all	2
        """
        _check_shown(per_query, summary)
        lines = []
        shown = {m: trec_eval_spelling(m) for m in self.mean}  # P.5 is printed P_5
        if per_query:
            for qid, row in self.per_query.iterrows():
                lines += [f"{shown[m]:<22}\t{qid}\t{self._fmt(m, v)}" for m, v in row.items()]
        if summary:
            lines += [f"{shown[m]:<22}\tall\t{self._fmt(m, v)}" for m, v in self.mean.items()]
        return "\n".join(lines)

    @_shown_options('the ``"mean"`` object')
    def to_json(self, *, per_query: bool = True, summary: bool = True) -> str:
        """JSON ``{"mean": {...}, "per_query": {qid: {...}}, "params": {...}}`` (NaN -> null,
        an infinite value -> ``"inf"`` / ``"-inf"``: strict JSON has neither).

        @shown_params

        Returns
        -------
        str
            The JSON text, indented by 2.

        @shown_raises
        """

        def clean(d: dict) -> dict:
            return {str(k): _json_number(v) for k, v in d.items()}

        _check_shown(per_query, summary)
        out: dict[str, Any] = {"mean": clean(self.mean)} if summary else {}
        if per_query:
            out["per_query"] = {str(q): clean(row.to_dict())
                                for q, row in self.per_query.iterrows()}
        out["params"] = {k: _json_param(v) for k, v in self.params.items()}
        return json.dumps(out, indent=2)


def _json_number(v: Any) -> Any:
    """A value as strict JSON: NaN as null, an infinity as the text "inf" / "-inf" (as the
    comparison reports write it); ``json.dumps`` would write the bare NaN / Infinity that JSON
    has no word for."""
    if isinstance(v, float) and not math.isfinite(v):
        return None if math.isnan(v) else str(v)
    return v


def _json_param(v: Any) -> Any:
    """An option as JSON: numpy scalars as the number they hold (``max_depth=np.int64(5)`` is
    5, not the text ``"np.int64(5)"``), other objects (gain mappings, callables) by repr."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return _json_number(float(v))
    return repr(v)


def _check_shown(per_query: bool, summary: bool) -> None:
    check_flag("per_query", per_query)
    check_flag("summary", summary)
    if not (per_query or summary):
        raise ValueError("per_query=False and summary=False: nothing to show")


def _check_threads(threads: Any) -> int:
    """The thread count of :func:`evaluate`: ``threads``, or pyarrow's CPU count for None."""
    if threads is None:
        import pyarrow as pa

        return max(int(pa.cpu_count()), 1)
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise TypeError(f"threads must be a positive int or None; got {threads!r}")
    if threads < 1:
        raise ValueError(f"threads must be >= 1 (None: pyarrow.cpu_count()); got {threads!r}")
    return int(threads)


def _check_options(ties: Any, threshold: Any, max_depth: Any, beta: Any, empty: Any,
                   gain: Any, discount: Any, log_base: Any, complete: Any) -> None:
    if not isinstance(ties, str) or ties not in TIES:
        raise ValueError(
            f"ties must be one of {', '.join(map(repr, TIES))}; got {ties!r} ('docno' breaks "
            "score ties by document id descending, as trec_eval does)"
        )
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number > 0; got {threshold!r}")
    if not math.isfinite(as_float64(threshold, "threshold")) or threshold <= 0:
        raise ValueError(
            f"threshold must be a finite number > 0 (labels <= 0 and unjudged documents are "
            f"never relevant here; trec_eval's -l 0 would count judged label-0 documents "
            f"relevant, which rankmetrics does not offer); got {threshold!r}"
        )
    if max_depth is not None and (isinstance(max_depth, bool)
                                  or not isinstance(max_depth, numbers.Integral)):
        raise TypeError(f"max_depth must be a positive int or None; got {max_depth!r}")
    if max_depth is not None and max_depth < 1:
        raise ValueError(f"max_depth must be a positive int or None; got {max_depth!r}")
    check_positive_real("beta", beta)
    check_empty(empty)
    gain_key(gain)
    discount_key(discount, log_base)
    check_flag("complete", complete)


def _check_tie_support(measures: Sequence[Measure], ties: str) -> None:
    if ties != "average":
        return
    bad = [m.name for m in measures if m.kind in ORDER_ONLY_KINDS]
    if bad:
        raise ValueError(
            f"{', '.join(map(repr, bad))}: interpolated precision has no exact tie-averaged form "
            "(it is a maximum over ranks, not a sum); pass ties='docno' (trec_eval), 'stable', "
            "'optimistic' or 'pessimistic'"
        )


def _progress(enabled: bool | None, total: int):
    if enabled is False:
        return None
    if enabled is not None and not isinstance(enabled, (bool, np.bool_)):
        raise TypeError(f"progress must be True, False or None; got {enabled!r}")
    try:
        from tqdm.auto import tqdm
    except ImportError as exc:
        if enabled is None:  # "only on a terminal": best effort
            return None
        raise ImportError(
            "progress=True needs tqdm; install the extra: pip install 'rankmetrics[io]'"
        ) from exc
    return tqdm(total=total, desc="rankmetrics eval", unit="step",
                disable=None if enabled is None else not enabled, leave=False)


def evaluate(
    qrels: Any,
    run: Any,
    metrics: str | Iterable[str],
    *,
    ties: str = "average",
    gain: GainLike = "linear",
    discount: DiscountLike = "log",
    log_base: float = 2,
    threshold: float = 1,
    complete: bool = False,
    max_depth: int | None = None,
    beta: float = 1.0,
    empty: float | str = 0.0,
    progress: bool | None = False,
    judged_only: bool = False,
    threads: int | None = None,
    docno_scores: str = "float",
) -> EvalResult:
    """Evaluate a run against qrels, per query and on average.

    Parameters
    ----------
    qrels : path, pandas.DataFrame or dict
        Relevance judgements, see :func:`read_qrels`. Labels <= 0 are non-relevant with gain 0
        (trec_eval's rule; -1 marks judged non-relevant in some collections).
    run : path, pandas.DataFrame or dict
        Scored retrieval results, see :func:`read_run`. Only scores order the documents.
    metrics : str, measure object or iterable of them
        Measure names of the measure language (:mod:`rankmetrics.measures`; objects such as
        ``rankmetrics.measures.nDCG@10`` too), case-insensitive, in ir_measures style with
        optional parameters (also ``ties=``, ``gain=``, ``discount=``, ``b=``, ``empty=``,
        overriding the options below for that measure) --
        ``nDCG``, ``nDCG@10``, ``DCG@10``, ``CG@10``, ``nCG@10``, ``P@5``, ``R@100``,
        ``F1@10``, ``F(beta=0.5)@10``, ``SetF(beta=0.5)``, ``AP``, ``AP@100``, ``RR``,
        ``RR@10``, ``Rprec``, ``Success@10``, ``IPrec@0.1``, ``11pt_avg``, ``NumRet``,
        ``NumRel``, ``NumRelRet``, ``P(rel=2)@5``, ``nDCG(gains={1: 3, 2: 9})@10``,
        ``ERR@20`` (gdeval's: stop probability (2**g - 1) / 2**4; ``ERR(max_grade=g)@k``),
        ``RBP``, ``RBP(p=0.95, rel=2)@100`` (graded with the label unless ``rel=``),
        ``RBP_residual(p=0.8)`` (the RBP weight of unjudged retrieved documents plus the tail
        p**min(n, k) past the n retrieved: Moffat & Zobel's residual) -- or
        trec_eval names (``ndcg_cut.10`` or ``ndcg_cut_10``, ``P.5``, ``map``,
        ``map_cut.100``, ``recip_rank``, ``recall_100``, ``success_10``, ``set_F``,
        ``iprec_at_recall_0.10``; the family names ``iprec_at_recall``, ``ndcg_cut``,
        ``map_cut``, ``success`` and ``all_trec`` expand to trec_eval's default
        parameters).
    ties : {"average", "optimistic", "pessimistic", "stable", "docno"}, default "average"
        Order of documents with equal scores. "average": the exact mean over all orderings
        (McSherry & Najork 2008); "optimistic"/"pessimistic": the best/worst ordering; "stable":
        run order; "docno": document id descending (byte order), as trec_eval does, the
        scores compared as ``docno_scores`` says. IPrec and 11pt_avg are maxima over ranks
        with no exact tie average: they raise under "average".
    gain : {"linear", "exponential"}, sequence, mapping or callable, default "linear"
        Gain of a label for nDCG/DCG/CG/nCG (see :func:`rankmetrics.ndcg`). "linear", the
        label itself, is trec_eval's and ir_measures' gain, so ``nDCG@10`` here is their
        ``nDCG@10`` (the default used to be "exponential", 2**l - 1). In a mapping, levels
        left out keep their linear gain (trec_eval's ``-m ndcg.1=3,2=9`` rule). Per-measure
        ``gains={...}`` or ``gain=`` override it. Unjudged and negative-label documents have
        gain 0 whatever the gain of level 0, as in trec_eval.
    discount : {"log", "jarvelin2002", "jarvelin2008", "none"} or callable, default "log"
    log_base : float > 1, default 2
    threshold : float > 0, default 1
        A document is relevant (binary measures, R) when its label is >= threshold
        (trec_eval ``-l``). Per-measure ``rel=...`` overrides it.
    complete : bool, default False
        Evaluate every qrels query; those the run misses score 0 (trec_eval ``-c``). Otherwise
        they are left out. Run queries without judgements are always ignored. As trec_eval
        ``-c``, the ``mean`` (summary) of ``num_rel`` / ``NumRel`` is then the count of every
        qrels judgement with a label >= 1, whatever ``threshold`` (trec_eval's
        ``m_num_rel.c`` ignores ``-l`` there), while its per-query values use ``threshold``.
        (trec_eval 10.0 itself exits with "result qid ... not found in qrels" when a qrels
        query has no run line and ``-c`` is not given; here such queries are left out, as
        trec_eval 9 and pytrec_eval do.)
    max_depth : int, optional
        Read only ranks 1..max_depth of every query (trec_eval ``-M``): measures use the cutoff
        ``min(k, max_depth)`` while P@k still divides by k and the ideal comes from the qrels.
    beta : float > 0, default 1
        Weight of recall in F measures without their own ``beta`` (``F``: beta^2 in the
        formula; ``SetF(beta=x)`` always uses trec_eval's ``set_F.x`` weight x itself,
        (1 + x) P R / (x P + R), as ir_measures does).
    empty : float, "skip" or "error", default 0.0
        Value of a query with no relevant document (nDCG/nCG: zero ideal gain up to the cutoff),
        as in the core functions. 0.0 is trec_eval's convention.
    progress : bool or None, default False
        Show a tqdm progress bar over the stages; None shows it only on a terminal.
    judged_only : bool, default False
        Drop the retrieved documents without a judgement (no qrels entry, or a negative label,
        which trec_eval reads as "in the pool, unjudged") before ranking, so every measure is
        computed over the judged documents only (trec_eval ``-J``, pytrec_eval's
        ``judged_docs_only_flag``, ir_measures' ``judged_only=True``). The recall base, R and
        the ideal are unchanged. With ``max_depth`` the run is cut at ``max_depth`` first, as in
        trec_eval; that cut depends on the order of tied scores, so it needs ``ties="docno"``
        or ``"stable"``. A query left with no retrieved document has IPrec and 11pt_avg 0
        here, where trec_eval ``-J`` prints ``-nan`` (0 / 0) for it and for its "all" row: a
        UserWarning names such queries.
    threads : int >= 1, optional
        Threads of the evaluation: pyarrow's file readers and the kernel sums of large runs
        (one thread per group of measures sharing a values array). None (default) takes
        ``pyarrow.cpu_count()``, so ``pyarrow.set_cpu_count(1)`` makes the whole evaluation run
        on the calling thread; 1 does so whatever pyarrow's setting. The numbers do not depend
        on it.
    docno_scores : {"float", "double"}, default "float"
        The precision in which ``ties="docno"`` compares scores: "float", C floats, as
        trec_eval 9.x, pytrec_eval and ir_measures do (scores equal in single precision, such
        as 15.12345679 and 15.12345671, tie and are ordered by document id); "double", as
        trec_eval 10.0 does (``rankmetrics eval``'s default). Other tie rules compare doubles.

    Returns
    -------
    EvalResult
        ``per_query`` (DataFrame indexed by qid, one column per measure) and ``mean``.

    Raises
    ------
    ValueError
        Unknown or malformed measure names; bad options (the message names the option and
        value); IPrec/11pt_avg with ties="average"; malformed files (file and line named);
        a document retrieved twice for a query; conflicting duplicate judgements; labels that
        the gain cannot take (e.g. fractional labels with "exponential"); an empty query with
        ``empty="error"``; ``judged_only`` with ``max_depth`` under a tie rule other than
        "docno" or "stable".
    TypeError
        Inputs or options of the wrong type.

    Warns
    -----
    UserWarning
        Fractional qrels labels (trec_eval reads integers); ``judged_only`` leaving an
        evaluated query no retrieved document while IPrec or 11pt_avg is asked for; the name
        ``rbp``, which is trec_eval 10's other RBP
        (:func:`rankmetrics.measures.grammar.trec_eval_conflict`).

    Notes
    -----
    With effective cutoff ``c = min(k, M)`` and expected counts under the tie mode:
    P@k = rel(c) / k; R@k = rel(c) / R; F_beta@k = (1 + beta^2) rel(c) / (beta^2 R + k);
    AP@k = sum over relevant ranks i <= c of P@i, divided by R (trec_eval's map_cut);
    RR@k = 1 / rank of the first relevant document within c; Success@k = 1 if one is within c;
    nDCG@k = DCG(c) / IDCG(k), the ideal from every judged document; Rprec = rel(min(R, M)) / R;
    IPrec@x = max precision at or below the rank where the j-th relevant document is found,
    j = lround(x R) as in trec_eval 10 (``IPrec(rule=trec9)@x``: int(x R + 0.9), trec_eval 9 and
    pytrec_eval; ``rule=recall``: the least j with j / R >= x, the textbook "recall >= x");
    11pt_avg = mean of IPrec at 0, 0.1, ..., 1 (the slides' "AP alternative 2"; other levels
    with ``11pt_avg(levels=[...])``). Bpref = (1/R) sum over relevant retrieved documents d of
    1 - min(n_d, R) / min(N, R), n_d the judged non-relevant documents ranked above d (label
    in [0, threshold)), N those in the qrels; unjudged and negative-label documents are ignored
    (trec_eval's bpref; exact expectation under "average", see
    :mod:`rankmetrics.trec.judged`). Judged@k = documents with a qrels entry (any label) in
    the top k / min(k, retrieved) (ir_measures' Judged@k; the whole list without k).
    ``AP(denominator=found)@k`` divides by the relevant documents found in the top k
    (torchmetrics). Without a cutoff the whole retrieved list is used (P and F then divide by
    the number retrieved). Under "average" every measure except
    IPrec/11pt_avg is the exact expectation over tie orders; Rprec reads the expected count at
    rank R, which is exact too.

    References
    ----------
    Järvelin & Kekäläinen (2002), Cumulated gain-based evaluation of IR techniques, eq. 1-5.
    McSherry & Najork (2008), Computing information retrieval performance measures efficiently
    in the presence of tied scores, sec. 2. trec_eval 10.0 (NIST), measure definitions.
    Buckley & Voorhees (2004), Retrieval evaluation with incomplete information, SIGIR, sec. 4
    (bpref). MacAvaney, Macdonald & Ounis (2022), Streamlining evaluation with ir-measures,
    ECIR (Judged@k).

    Examples
    --------
    >>> qrels = {"q1": {"a": 3, "b": 1, "c": 0, "z": 2}}
    >>> run = {"q1": {"a": 1.0, "b": 0.5, "c": 0.5, "u": 0.2}}
    >>> res = evaluate(qrels, run, ["nDCG", "R@2", "Rprec", "NumRel"])
    >>> res.per_query.round(4).to_dict("records")
    [{'nDCG': 0.7488, 'R@2': 0.5, 'Rprec': 0.6667, 'NumRel': 3.0}]

    b and c tie at ranks 2-3, so R@2 counts b half; z (judged, not retrieved) is in the ideal
    and in R; u (retrieved, unjudged) has gain 0.

    >>> evaluate(qrels, run, ["11pt_avg"])
    Traceback (most recent call last):
    ...
    ValueError: '11pt_avg': interpolated precision has no exact tie-averaged form (it is a \
maximum over ranks, not a sum); pass ties='docno' (trec_eval), 'stable', 'optimistic' or \
'pessimistic'
    """
    measures = parse_measures(metrics)
    for m in measures:
        conflict = trec_eval_conflict(m.name)
        if conflict is not None:
            warnings.warn(conflict + " to silence this warning", UserWarning, stacklevel=2)
    _check_options(ties, threshold, max_depth, beta, empty, gain, discount, log_base, complete)
    judged_only = check_flag("judged_only", judged_only)
    if docno_scores not in ("float", "double"):
        raise ValueError(f"docno_scores must be 'float' (trec_eval 9, pytrec_eval) or 'double' "
                         f"(trec_eval 10); got {docno_scores!r}")
    n_threads = _check_threads(threads)
    for m in measures:
        if m.empty is not None:
            check_empty(m.empty)
    by_ties: dict[str, list[Measure]] = {}
    for m in measures:
        by_ties.setdefault(m.ties or ties, []).append(m)
    for t, group in by_ties.items():
        _check_tie_support(group, t)
        if judged_only and max_depth is not None and t not in ("docno", "stable"):
            raise ValueError(
                f"judged_only with max_depth needs ties='docno' (trec_eval -J -M) or 'stable'; "
                f"got ties={t!r} for {', '.join(m.name for m in group)}: trec_eval cuts the "
                "run at max_depth before it drops unjudged documents, and where a tie group "
                "straddles that depth the cut depends on the order of the tied documents"
            )
    bar = _progress(progress, 3 * len(by_ties))

    def step(desc: str) -> None:
        if bar is not None:
            bar.set_postfix_str(desc)
            bar.update(1)

    values: dict[str, np.ndarray] = {}
    empties: dict[str, np.ndarray] = {}
    all_rel = 0.0
    try:
        for t, group in by_ties.items():
            q_side, r_side = _match.prepare(qrels, run, t == "docno", n_threads,
                                            docno_scores == "double")
            step("read")
            _warn_trec_gain_order(group, q_side.labels)
            group, thr = _judged_gains(q_side, group, gain, float(threshold))
            matched = _match.match(q_side, r_side, complete=complete)
            del q_side, r_side  # the read tables are not needed by the kernel: free them first
            if judged_only:
                matched = _judged.judged_only(matched, t, max_depth)
                _warn_empty_judged(matched, group)
            if complete:  # trec_eval's "all" num_rel under -c, whatever the threshold
                all_rel = float(np.count_nonzero(
                    matched.base_labels >= 1.0 + (thr - float(threshold))))
            step("match")
            if matched.qids.size == 0:
                raise ValueError(
                    "no query of the run has judgements in the qrels (query ids must match "
                    "exactly, as strings); nothing to evaluate"
                )
            vals, emp = compute(
                group, matched, ties=t, gain=gain, discount=discount,
                log_base=float(log_base), threshold=thr, max_depth=max_depth,
                beta=float(beta), threads=n_threads,
            )
            values.update(vals)
            empties.update(emp)
            step("measures")
    finally:
        if bar is not None:
            bar.close()

    for m in measures:
        mask = empties[m.name]
        if not mask.any():
            continue
        rule = check_empty(empty if m.empty is None else m.empty)
        if rule == "error":
            bad = matched.qids[mask][:5].tolist()
            raise ValueError(
                f"{m.name} is undefined for queries without relevant documents (qid {bad}); "
                "pass empty=0.0, 1.0 or 'skip'"
            )
        values[m.name][mask] = np.nan if rule == "skip" else rule
    per_query = pd.DataFrame({m.name: values[m.name] for m in measures},
                             index=pd.Index(matched.qids.astype(str), name="qid"))
    counts = tuple(m.name for m in measures if m.kind in _COUNT_KINDS)
    mean = {m.name: _aggregate(values[m.name], m.name in counts) for m in measures}
    if complete:
        # trec_eval -c recounts num_rel's summary over every qrels judgement with a label > 0
        # (its integer labels: >= 1 here), ignoring -l (m_num_rel.c, te_calc_avg_num_rel); the
        # per-query values use the threshold. Measures with their own rel= keep the sum
        for m in measures:
            if m.kind == "numrel" and m.rel is None:
                mean[m.name] = all_rel
    params = {"ties": ties, "gain": gain, "discount": discount, "log_base": log_base,
              "threshold": threshold, "complete": complete, "max_depth": max_depth,
              "beta": beta, "empty": empty, "judged_only": judged_only,
              "docno_scores": docno_scores}
    return EvalResult(per_query=per_query, mean=mean, params=params, _counts=counts)


def _judged_gains(q_side: Any, measures: list[Measure], gain: GainLike,
                  threshold: float) -> tuple[list[Measure], float]:
    """Keep unjudged and negative-label documents at gain 0 when a gain has g(0) != 0.

    The join gives unjudged retrieved documents label 0 and clips negative labels to 0, so a
    gain with g(0) != 0 (``gains={0: 1, ...}``, a list or mapping weighing level 0) would give
    them g(0), in the DCG and the ideal. trec_eval gives them 0. Then every judged label l >= 0
    becomes l + 1 (negative ones 0) before the join, each gain measure gets the table
    {l + 1: g(l), 0: 0} and every relevance threshold t becomes t + 1: unjudged, negative and
    judged-0 documents are told apart, and every number is the same otherwise.
    """
    labels = np.asarray(q_side.labels, dtype=np.float64)
    levels = np.unique(np.concatenate([labels[labels >= 0], [0.0]]))
    tables: dict[str, dict[float, float]] = {}
    for m in measures:
        if m.kind in ("ndcg", "dcg", "cg", "ncg", "err", "rbp"):
            spec = dict(m.gains) if m.gains is not None else (m.gain or gain)
            _refuse_negative_level_gains(m.name, spec)
        if m.kind in ("ndcg", "dcg", "cg", "ncg"):
            g = apply_gain(trec_gain(spec, levels), levels)
            tables[m.name] = {0.0: 0.0, **{lv + 1.0: v for lv, v in
                                           zip(levels.tolist(), g.tolist(), strict=True)}}
        elif m.kind == "err" or (m.kind == "rbp" and m.rel is None):
            # graded ERR / RBP read the label (or its gains= table) itself
            g = (apply_gain(trec_gain(dict(m.gains), levels), levels) if m.gains is not None
                 else levels)
            tables[m.name] = {0.0: 0.0, **{lv + 1.0: v for lv, v in
                                           zip(levels.tolist(), g.tolist(), strict=True)}}
    if not any(t[1.0] != 0.0 for t in tables.values()):  # 1.0 is judged level 0 shifted
        return measures, threshold
    q_side.judged = labels >= 0
    q_side.labels = np.where(labels >= 0, labels + 1.0, 0.0)
    out = [replace(m, gains=tuple(sorted(tables[m.name].items())), gain=None)
           if m.name in tables
           else replace(m, rel=(threshold if m.rel is None else m.rel) + 1.0)
           for m in measures]
    return out, threshold + 1.0


def _refuse_negative_level_gains(name: str, spec: Any) -> None:
    """A gain map giving a negative label a gain would be ignored here (unjudged and
    negative-label documents have gain 0, :func:`_judged_gains`) and trec_eval would count it
    in the DCG alone; refuse it (ValueError naming the measure) rather than ignore it."""
    if not isinstance(spec, Mapping):
        return
    bad = sorted(float(k) for k, v in spec.items() if float(k) < 0 and float(v) != 0)
    if bad:
        raise ValueError(
            f"{name}: a gain for level {bad[0]:g}; TREC evaluation gives negative-label (and "
            "unjudged) documents gain 0, as trec_eval's ideal DCG does (its DCG would count "
            "the gain, so nDCG could exceed 1). Leave negative levels out of the gain map"
        )


def _warn_trec_gain_order(measures: Sequence[Measure], labels: np.ndarray) -> None:
    """trec_eval sorts the gains of ``-m ndcg.1=0.5,...`` with a comparator returning their
    difference truncated to an int (gain_init.c, ``comp_rel_gain``): two gains less than 1
    apart compare equal, its ideal ranking can come out of order and its nDCG differs from
    the exact one computed here. Warn (UserWarning) when a measure in trec_eval's gain-map
    syntax meets such gains: the listed ones and the label of every level 0..max of the qrels
    that the map leaves out (trec_eval's linear default)."""
    for m in measures:
        if m.gains is None or not is_trec_gain_map(m.name):
            continue
        judged = labels[labels >= 0]
        top = int(np.trunc(judged.max())) if judged.size else 0
        listed = dict(m.gains)
        values = sorted({*listed.values(), *(float(v) for v in range(top + 1)
                                              if float(v) not in listed)})
        close = [(a, b) for a, b in zip(values[:-1], values[1:], strict=True) if b - a < 1.0]
        if close:
            a, b = close[0]
            warnings.warn(
                f"{m.name}: trec_eval orders the gains by their difference truncated to an "
                f"integer (gain_init.c, comp_rel_gain), so gains less than 1 apart ({a:g} and "
                f"{b:g}) can put its ideal ranking out of order; the nDCG here uses the exact "
                "ideal and can differ from trec_eval's",
                UserWarning, stacklevel=3,
            )


def _warn_empty_judged(matched: Any, measures: Sequence[Measure]) -> None:
    """trec_eval -J (and pytrec_eval's ``judged_docs_only_flag``) gives interpolated precision
    0 / 0 (NaN; trec_eval prints -nan, for the query and its "all" row) at the recall levels
    needing no relevant document, and 11pt_avg, for a query none of whose retrieved documents
    is judged; rankmetrics gives 0. Said when it happens."""
    if not any(m.kind in ORDER_ONLY_KINDS for m in measures):
        return
    n_ret = np.bincount(matched.run_qidx, minlength=matched.qids.shape[0])
    none = np.flatnonzero(n_ret == 0)
    if none.size:
        shown = ", ".join(repr(str(q)) for q in matched.qids[none[:5]])
        warnings.warn(
            f"judged_only: {none.size} evaluated query(ies) keep no retrieved document ({shown}"
            f"{', ...' if none.size > 5 else ''}); interpolated precision (IPrec, 11pt_avg) is "
            "0 for them here, while trec_eval -J and pytrec_eval's judged_docs_only_flag give "
            "NaN (0 / 0) at the recall levels needing no relevant document and for 11pt_avg, "
            "and trec_eval's 'all' row prints -nan",
            UserWarning, stacklevel=3,
        )


def _aggregate(values: np.ndarray, is_count: bool) -> float:
    """The "all" value: counts summed; other measures the mean over the queries left (NaN:
    skipped), added one after another in query order and divided by their number, as
    trec_eval (te_acc_meas_s, te_calc_avg_meas_s): numpy's pairwise sum moved the printed
    fourth decimal of about one run in five (0.56875 printed 0.5688 where trec_eval prints
    0.5687)."""
    keep = values[~np.isnan(values)]
    if is_count:
        return float(keep.sum())
    return float(np.cumsum(keep)[-1] / keep.size) if keep.size else float("nan")


def tie_effect(qrels: Any, run: Any, metrics: str | Iterable[str], **kwargs: Any
               ) -> pd.DataFrame:
    """How much trec_eval's docno tie-breaking moves each measure, per query.

    Evaluates with ``ties="docno"`` and ``ties="average"`` (other options passed on) and returns
    a long table with columns ``measure``, ``qid``, ``docno``, ``average`` and
    ``delta = docno - average``, only for the (measure, query) pairs that change.

    Parameters
    ----------
    qrels, run
        As in :func:`evaluate` (paths, DataFrames or nested dicts).
    metrics : str or iterable of str
        Measure names as in :func:`evaluate`.
    **kwargs
        Other options of :func:`evaluate` (gain, threshold, complete, max_depth, ...); not
        ``ties``, which this function sets.

    Returns
    -------
    pandas.DataFrame
        Columns measure (str), qid (str), docno, average, delta (float64); one row per changed
        (measure, query) pair, empty when ties move nothing.

    Raises
    ------
    ValueError
        As :func:`evaluate`; measures without a tie-averaged form (IPrec, 11pt_avg) included.
    TypeError
        As :func:`evaluate`; ``ties=`` given.

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": 0}}
    >>> run = {"q": {"a": 1.0, "b": 1.0}}
    >>> tie_effect(qrels, run, ["P@1", "RR"]).round(4).to_dict("records")
    [{'measure': 'P@1', 'qid': 'q', 'docno': 0.0, 'average': 0.5, 'delta': -0.5}, \
{'measure': 'RR', 'qid': 'q', 'docno': 0.5, 'average': 0.75, 'delta': -0.25}]
    """
    if "ties" in kwargs:  # dropped silently before: a caller's rule was never used
        raise TypeError("tie_effect compares ties='docno' with ties='average' itself; ties= is "
                        "not an option here (use evaluate(..., ties=...) for one rule)")
    q_tb = _trec_io.to_table(qrels, "qrels")
    r_tb = _trec_io.to_table(run, "run")
    qf, rf = _trec_io.to_frame(q_tb), _trec_io.to_frame(r_tb)
    docno = evaluate(qf, rf, metrics, ties="docno", **kwargs).per_query
    avg = evaluate(qf, rf, metrics, ties="average", **kwargs).per_query
    rows = []
    for name in docno.columns:
        d, a = docno[name].to_numpy(), avg[name].to_numpy()
        # NaN under both (a query skipped with empty="skip") is no change
        moved = ~np.isclose(d, a, rtol=0.0, atol=1e-12, equal_nan=True)
        for q, dv, av in zip(docno.index[moved], d[moved], a[moved], strict=True):
            rows.append({"measure": name, "qid": q, "docno": float(dv), "average": float(av),
                         "delta": float(dv - av)})
    out = pd.DataFrame(rows, columns=["measure", "qid", "docno", "average", "delta"])
    # typed when empty too (object columns, not the documented str / float64)
    return out.astype({"measure": str, "qid": str, "docno": np.float64,
                       "average": np.float64, "delta": np.float64})
