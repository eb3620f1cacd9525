"""An ir_measures provider backed by rankmetrics: ``calc_aggregate``, ``iter_calc`` and
``evaluator`` on rankmetrics, tie-aware by default.

ir_measures (MacAvaney, Macdonald & Ounis 2022) separates measure *definitions* (``nDCG@10``,
``P(rel=2)@5``, ...) from the *providers* that compute them (pytrec_eval, gdeval, ranx, ...).
This module is one more provider. Every ir_measures measure it supports is translated into the
rankmetrics measure language and computed by :func:`rankmetrics.trec.evaluate`; no metric math
lives here.

Numbers: with ``ties="docno"`` the provider reproduces pytrec_eval (trec_eval) -- ir_measures'
default provider -- for every supported measure: nDCG gain is the relevance level
(``dcg="log2"``; ``dcg="exp-log2"`` uses 2**l - 1), ``IPrec@x`` reaches a recall level with
trec_eval 9's rounding (what pytrec_eval ships) at x to two decimals (pytrec_eval asks
trec_eval for ``iprec_at_recall_{x:.2f}``: ``IPrec@0.125`` is the level 0.12),
``SetF(beta=x)`` weighs with trec_eval's
``set_F.x`` (x is beta squared in the textbook F-beta), ``judged_only=True`` drops unjudged
documents from the run (trec_eval ``-J``, :func:`rankmetrics.trec.evaluate`'s ``judged_only``;
a negative qrels label counts as unjudged there). ``Bpref`` is trec_eval's bpref; ``Judged@k``
is ir_measures' own ``judged`` provider's, and ``RR@k`` (a cutoff: pytrec_eval has none) its
``msmarco`` provider's; both break score ties by doc id *ascending*: under ``ties="docno"`` ours
follows trec_eval's descending order, so a tie group straddling k (for RR@k: holding the first
relevant document) can differ; the default ``ties="average"`` is the exact mean over tied
orders).
``ERR@k`` is gdeval's (ir_measures' only ERR provider): stop probability (2**g - 1) / 2**4,
negative labels 0, ties by document id descending, so ``ties="docno"`` reproduces it (gdeval
prints 5 decimals). Scores tie as their lender compares them: as doubles for gdeval's measures
(``ERR@k``, ``nDCG(dcg="exp-log2")``), as C floats for pytrec_eval's (``docno_scores=`` among
the provider's options sets one precision for all).
``RBP`` without ``rel`` is graded with the label itself, as ir_measures'
trectools provider computes it (which averages tied scores' discounts, like our default, but
with a cutoff first cuts a tie group straddling it in its own order); with ``rel`` it is binary
(ir_measures' cwl_eval provider). With the default ``ties="average"``
every measure is the exact mean over all orderings of tied scores (McSherry & Najork 2008)
instead of trec_eval's docno order.

Importing the module registers a default provider as ``ir_measures.providers.registry
["rankmetrics"]``. Needs the ``ir_measures`` extra (``pip install "rankmetrics[ir_measures]"``).

Examples
--------
>>> import ir_measures
>>> from rankmetrics.ir_measures import provider
>>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.9, "d3": 0.1}}
>>> tie_aware = provider()                     # ties="average"
>>> round(tie_aware.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR], 4)
0.75
>>> round(provider(ties="docno").calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR], 4)
0.5
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

try:
    import ir_measures as _irm
    from ir_measures import Metric
    from ir_measures import measures as _m
    from ir_measures.providers.base import NOT_PROVIDED, Choices, Evaluator, Provider
    from ir_measures.providers.base import Any as _AnyParam
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "rankmetrics.ir_measures needs ir_measures: pip install \"rankmetrics[ir_measures]\""
    ) from exc

import pandas as pd

from .measures.grammar import parse_measure
from .trec import TIES, evaluate
from .trec.io import _text_ids as id_texts
from .trec.io import frame_ids

__all__ = ["RankMetricsProvider", "prefer", "provider"]


def _given(value: Any) -> bool:
    return value is not NOT_PROVIDED and value is not None


def _rel(m: Any) -> str:
    rel = m.params.get("rel", NOT_PROVIDED) if hasattr(m, "params") else NOT_PROVIDED
    return f"rel={rel}" if _given(rel) else ""


def _cut(m: Any, key: str = "cutoff") -> str:
    value = m.params.get(key, NOT_PROVIDED)
    return f"@{value}" if _given(value) else ""


def _with(name: str, params: list[str], suffix: str) -> str:
    inner = ", ".join(p for p in params if p)
    return f"{name}({inner}){suffix}" if inner else f"{name}{suffix}"


def translate(measure: Any) -> tuple[str, str]:
    """The rankmetrics measure string and gain option that compute an ir_measures measure.

    Returns
    -------
    (name, gain) : tuple of str
        A name of the rankmetrics measure language and the ``gain`` option of
        :func:`rankmetrics.trec.evaluate` ("linear" unless ``nDCG(dcg="exp-log2")``).

    Raises
    ------
    ValueError
        A measure or parameter this provider does not support.
    """
    name, p = measure.NAME, measure.params
    if name == "nDCG":
        gains = p.get("gains", NOT_PROVIDED)
        inner = [f"gains={dict(gains)!r}"] if _given(gains) else []
        dcg = p.get("dcg", NOT_PROVIDED)
        gain = "exponential" if dcg == "exp-log2" else "linear"
        if inner and gain == "exponential":  # gains= would overrule the exponential gain
            raise ValueError(f"rankmetrics does not provide {measure}: gains= and "
                             "dcg='exp-log2' cannot be combined (ir_measures' providers "
                             "refuse it too)")
        return _with("nDCG", inner, _cut(measure)), gain
    if name in ("P", "R", "AP", "RR", "Success"):
        return _with(name, [_rel(measure)], _cut(measure)), "linear"
    if name in ("SetP", "SetR"):  # trec_eval's set_P / set_recall: P and R of the whole list
        return _with(name[3:], [_rel(measure)], ""), "linear"
    if name in ("Rprec", "NumRel"):
        return _with(name, [_rel(measure)], ""), "linear"
    if name == "NumRet":  # ir_measures spells NumRelRet as NumRet(rel=1)
        rel = _rel(measure)
        return (_with("NumRelRet", [rel], "") if rel else "NumRet"), "linear"
    if name == "IPrec":
        # pytrec_eval, ir_measures' only IPrec provider, asks trec_eval for
        # iprec_at_recall_{level:.2f}: IPrec@0.125 is the level 0.12
        level = f"{float(p.get('recall')):.2f}"
        return _with("IPrec", [_rel(measure), "rule=trec9"], f"@{level}"), "linear"
    if name == "ERR":  # gdeval's ERR: max_grade 4 (our default)
        return _with("ERR", [], _cut(measure)), "linear"
    if name == "RBP":  # graded (the label) without rel, as trectools; binary with rel
        pers = p.get("p", NOT_PROVIDED)
        inner = [f"p={float(pers)!r}"] if _given(pers) else []
        return _with("RBP", [*inner, _rel(measure)], _cut(measure)), "linear"
    if name == "Bpref":
        return _with("Bpref", [_rel(measure)], ""), "linear"
    if name == "Judged":
        return f"Judged{_cut(measure)}", "linear"
    if name == "SetF":
        beta = p.get("beta", NOT_PROVIDED)
        x = 1.0 if not _given(beta) else float(beta)
        # trec_eval's set_F.x is (1 + x) P R / (x P + R): the textbook beta is sqrt(x)
        return _with("F", [_rel(measure), f"beta={math.sqrt(x)!r}"], ""), "linear"
    raise ValueError(f"rankmetrics does not provide {measure}")


_SUPPORTED: list[Any] = [
    _m._nDCG(cutoff=_AnyParam(), dcg=Choices("log2", "exp-log2"), gains=_AnyParam(),
             judged_only=_AnyParam()),
    _m._P(cutoff=_AnyParam(), rel=_AnyParam(), judged_only=_AnyParam()),
    _m._R(cutoff=_AnyParam(), rel=_AnyParam(), judged_only=_AnyParam()),
    _m._AP(cutoff=_AnyParam(), rel=_AnyParam(), judged_only=_AnyParam()),
    _m._RR(cutoff=_AnyParam(), rel=_AnyParam(), judged_only=_AnyParam()),
    _m._Rprec(rel=_AnyParam(), judged_only=_AnyParam()),
    _m._Success(cutoff=_AnyParam(), rel=_AnyParam(), judged_only=_AnyParam()),
    _m._SetF(rel=_AnyParam(), beta=_AnyParam(), judged_only=_AnyParam()),
    _m._SetP(rel=_AnyParam(), judged_only=_AnyParam(),
             relative=Choices(False)),  # not relative=True (trec_eval's set_relative_P)
    _m._SetR(rel=_AnyParam()),
    _m._NumRet(rel=_AnyParam()),
    _m._NumRel(rel=_AnyParam()),
    _m._ERR(cutoff=_AnyParam()),
    _m._RBP(cutoff=_AnyParam(), p=_AnyParam(), rel=_AnyParam()),
    _m._Bpref(rel=_AnyParam()),
    _m._Judged(cutoff=_AnyParam()),
]
_ORDER_ONLY: list[Any] = [_m._IPrec(recall=_AnyParam(), rel=_AnyParam(), judged_only=_AnyParam())]


def _nested(data: Any, kind: str) -> Any:
    """A dict input as it is, once every value is a mapping (ir_measures' converter raised
    AttributeError: 'float' object has no attribute 'items')."""
    if isinstance(data, dict):
        for qid, docs in data.items():
            if not isinstance(docs, Mapping):
                value = "score" if kind == "run" else "relevance"
                raise TypeError(f"{kind} dict: query {qid!r} maps to {type(docs).__name__} "
                                f"{docs!r:.60}; expected {{doc_id: {value}}}")
    return data


def _with_text_ids(frame: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The frame with its ids as the text :func:`rankmetrics.trec.evaluate` reads them as (a
    float column's 1.0 is "1", as an int column's 1), missing ids refused: compared as text
    here, they must match evaluate's rule (``astype(str)`` made 1.0 "1.0", a query the qrels
    call "1", and passed NaN on)."""
    qids, docids = frame_ids(frame, kind)
    return frame.assign(query_id=qids, doc_id=docids)


class _Evaluator(Evaluator):
    def __init__(self, measures: list[Any], qrels: pd.DataFrame, qids: list[str], ties: str,
                 options: dict[str, Any]) -> None:
        super().__init__(measures, qids)
        self._qrels = qrels
        self._ties = ties
        # one trec.evaluate call per (gain, judged_only, docno precision) group of measures;
        # measures ir_measures holds equal (AP and AP(rel=1)) are computed once, as ir_measures
        # reports them once. Under docno ties each lender's precision: gdeval (ERR, exp-log2
        # nDCG) compares scores as doubles, pytrec_eval as C floats. Measures ir_measures holds
        # different may share a text (IPrec@0.12 and IPrec@0.125, both the level 0.12): each
        # gets the value (pytrec_eval reports the last, the first gets the default 0)
        self._groups: dict[tuple[str, bool, str], dict[str, list[Any]]] = {}
        for m in dict.fromkeys(measures):
            text, gain = translate(m)
            judged = bool(m.params.get("judged_only", False) is True)
            gdeval = m.NAME == "ERR" or (m.NAME == "nDCG" and m.params.get("dcg") == "exp-log2")
            precision = options.get("docno_scores", "double" if gdeval else "float")
            self._groups.setdefault((gain, judged, precision), {}).setdefault(
                text, []).append(m)
        self._options = {k: v for k, v in options.items() if k != "docno_scores"}

    def _iter_calc(self, run: Any) -> Iterator[Any]:
        frame = _irm.util.RunConverter(_nested(run, "run")).as_pd_dataframe()
        # ir_measures' columns only: a PyTerrier frame also holds docid (Terrier's internal
        # integer id) and maybe qid / docno, which trec.evaluate would prefer
        frame = _with_text_ids(frame[["query_id", "doc_id", "score"]], "run")
        # only judged queries (ir_measures gives the others nothing, and a qrels query the run
        # lacks its measure's default, 0): empty or disjoint qrels are no error there
        frame = frame[frame["query_id"].isin(self._qrels["query_id"])]
        if frame.empty:
            return
        for (gain, judged, precision), named in self._groups.items():
            # judged_only: trec_eval -J (a negative label is unjudged too); a query left with
            # nothing retrieved is still evaluated, as pytrec_eval does
            res = evaluate(self._qrels, frame, list(named), ties=self._ties, gain=gain,
                           judged_only=judged, docno_scores=precision, **self._options)
            for text, same in named.items():
                column = res.per_query[text]
                for measure in same:
                    for qid, value in column.items():
                        if not math.isnan(value):
                            yield Metric(query_id=str(qid), measure=measure, value=float(value))


def _check_measure(measure: Any) -> None:
    if not isinstance(measure, _irm.Measure):  # ir_measures' base raised AttributeError
        hint = f" (ir_measures.parse_measure({measure!r}))" if isinstance(measure, str) else ""
        raise TypeError(f"measures must be ir_measures Measure objects{hint}; got "
                        f"{type(measure).__name__} {measure!r}")


class RankMetricsProvider(Provider):
    """ir_measures provider computing measures with :func:`rankmetrics.trec.evaluate`.

    Parameters
    ----------
    ties : {"average", "optimistic", "pessimistic", "stable", "docno"}, default "average"
        Tie rule: the exact mean over all orderings of tied scores (default), the bounds, run
        order, or trec_eval's docno order ("docno" reproduces pytrec_eval).
    **options
        Further options of :func:`rankmetrics.trec.evaluate` (``complete``, ``max_depth``,
        ``empty``, ...). ``gain`` is set per measure (nDCG's ``dcg`` parameter), and so is
        ``docno_scores`` unless given here (each lender's precision: "double" for gdeval's
        measures, "float" for pytrec_eval's).

    Raises
    ------
    ValueError
        An unknown tie rule, ``gain`` among the options (set per measure), or
        ``empty="skip"`` (ir_measures gives a query without a value its measure's default, 0).
    TypeError
        An option :func:`rankmetrics.trec.evaluate` does not take.
    """

    NAME = "rankmetrics"

    def __init__(self, ties: str = "average", **options: Any) -> None:
        super().__init__()
        if ties not in TIES:
            raise ValueError(f"ties must be one of {', '.join(map(repr, TIES))}; got {ties!r}")
        if "gain" in options:
            raise ValueError("gain is set per measure: use nDCG(dcg='exp-log2') or "
                             "nDCG(gains={...})")
        known = set(inspect.signature(evaluate).parameters) - {
            "qrels", "run", "metrics", "ties", "gain", "judged_only", "progress"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(f"unknown option(s) {', '.join(map(repr, unknown))}; options are "
                            f"those of rankmetrics.trec.evaluate: {', '.join(sorted(known))}")
        if options.get("empty") == "skip":
            raise ValueError(
                "empty='skip' cannot pass through ir_measures, which gives a query without a "
                "value its measure's default (0); use rankmetrics.trec.evaluate(..., "
                "empty='skip') for means over the queries with a relevant document"
            )
        self.ties = ties
        self.options = options
        # IPrec is a maximum over ranks: no exact tie average (see rankmetrics.trec.evaluate)
        self.SUPPORTED_MEASURES = _SUPPORTED + ([] if ties == "average" else _ORDER_ONLY)

    def supports(self, measure: Any) -> bool:
        """ir_measures' parameter check, and also False for a measure rankmetrics would refuse
        when computing it (``SetF(beta=0)``; ``nDCG(gains=...)`` giving a negative label a
        gain, which TREC evaluation here keeps at 0) or would give another number for
        (``nDCG(gains=...)`` listing a negative label with ``judged_only=True``: ir_measures'
        mapped label is judged, ours stays unjudged): ir_measures then takes it from its own
        providers, as it would without this one, instead of failing. TypeError for anything
        but an ir_measures measure (a string: ``ir_measures.parse_measure`` it first)."""
        _check_measure(measure)
        if not super().supports(measure):
            return False
        try:
            text, _ = translate(measure)
            parse_measure(text)
        except (TypeError, ValueError):
            return False
        gains = measure.params.get("gains", NOT_PROVIDED) if measure.NAME == "nDCG" else None
        if gains is None or not _given(gains):
            return True
        # ir_measures maps the qrels labels through gains before trec_eval reads them, so a
        # negative label given a gain of 0 becomes a judged 0, which judged_only=True (-J) keeps
        # in the ranking; here a negative label stays unjudged and is dropped
        judged = measure.params.get("judged_only", False) is True
        return not any(float(k) < 0 and (float(v) != 0 or judged) for k, v in dict(gains).items())

    def _evaluator(self, measures: Iterable[Any], qrels: Any) -> Evaluator:
        if isinstance(measures, (str, _irm.Measure)):  # iterating a Measure raised KeyError: 0
            one = (f"ir_measures.parse_measure({measures!r})" if isinstance(measures, str)
                   else repr(measures))
            raise TypeError(f"measures must be a list of ir_measures measures; got {measures!r} "
                            f"(write [{one}])")
        measures = list(measures)
        refused = [m for m in measures if not self.supports(m)]
        if refused:  # called directly (ir_measures' pipeline asks supports() first)
            raise ValueError(f"rankmetrics does not provide {', '.join(map(str, refused))} "
                             "(ir_measures' own providers do)")
        frame = _irm.util.QrelsConverter(_nested(qrels, "qrels")).as_pd_dataframe()
        frame = _with_text_ids(frame[["query_id", "doc_id", "relevance"]], "qrels")
        qids = set(frame["query_id"])
        if isinstance(qrels, dict):  # a query judging nothing ({"q": {}}) has no row in the
            # frame, but ir_measures still reports it with its measures' defaults (0)
            qids.update(id_texts(list(qrels), "qrels dict query ids"))
        return _Evaluator(measures, frame, sorted(qids), self.ties, self.options)

    def is_available(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"RankMetricsProvider(ties={self.ties!r})"


def provider(ties: str = "average", **options: Any) -> RankMetricsProvider:
    """An ir_measures provider running on rankmetrics (see :class:`RankMetricsProvider`).

    Examples
    --------
    >>> import ir_measures
    >>> p = provider(ties="docno")
    >>> p.supports(ir_measures.nDCG@10), p.supports(ir_measures.IPrec@0.5)
    (True, True)
    >>> provider().supports(ir_measures.IPrec@0.5)   # no exact tie average for IPrec
    False
    """
    return RankMetricsProvider(ties, **options)


@contextmanager
def prefer(ties: str = "average", **options: Any) -> Iterator[RankMetricsProvider]:
    """Make ir_measures' default pipeline compute with rankmetrics inside a ``with`` block.

    ``ir_measures.calc_aggregate``, ``iter_calc``, ``evaluator`` -- and everything built on them,
    such as PyTerrier's ``pt.Experiment`` -- then take every measure this provider supports from
    rankmetrics (the other measures still fall back to ir_measures' own providers). The default
    pipeline is restored on exit. Nothing changes outside the block: importing this module only
    registers the provider.

    Examples
    --------
    >>> import ir_measures
    >>> qrels = {"q": {"a": 1, "b": 0}}
    >>> run = {"q": {"a": 1.0, "b": 1.0}}
    >>> ir_measures.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR]   # docno order
    0.5
    >>> with prefer():
    ...     ir_measures.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR]
    0.75
    """
    chosen = provider(ties, **options)
    pipeline = _irm.DefaultPipeline.providers
    pipeline.insert(0, chosen)
    try:
        yield chosen
    finally:
        pipeline.remove(chosen)


_irm.providers.registry[RankMetricsProvider.NAME] = RankMetricsProvider()
