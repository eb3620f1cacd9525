"""Measure definitions: one entry per measure, separate from how it is computed.

Each :class:`Definition` says what a measure *is* (its display name, the names it answers to,
the parameters it takes, whether it takes a cutoff, which direction is better) and which kernel
quantity computes it (:mod:`rankmetrics.core.contributions` kinds, read at a cutoff). Adding a
measure means adding its definition here, its kernel contribution in the core (and torch), and
its tests; the parser (:mod:`rankmetrics.measures.grammar`) needs no change.
"""

from __future__ import annotations

from dataclasses import dataclass

#: parameters of our own that every kernel measure accepts (per measure: overrides the call's)
COMMON_PARAMS = ("ties", "empty")
#: parameters of the gain measures
GAIN_PARAMS = ("gains", "gain")
#: parameters of the discounted gain measures
DISCOUNT_PARAMS = ("discount", "b")


@dataclass(frozen=True)
class Definition:
    """What a measure is.

    Attributes
    ----------
    kind : str
        Internal key (``"ndcg"``, ``"p"``, ...).
    display : str
        The ir_measures spelling used when a measure object is printed (``"nDCG"``, ``"P"``).
    names : tuple of str
        Lower-case names it answers to: ir_measures, trec_eval, LightGBM and our own spellings.
    params : tuple of str
        Parameters allowed in parentheses.
    cutoff : {"rank", "level", "none"}
        ``@k`` is a rank cutoff, a recall level (IPrec) or not allowed.
    higher_is_better : bool
    quantity : str
        The kernel quantity behind it: ``"gain"`` (discounted gain prefix sums), ``"rel"``
        (expected relevant count), ``"ap"``, ``"rr"`` (McSherry & Najork 2008 terms),
        ``"rr*rank"`` (Success: the RR terms times their rank), ``"rel@R"`` (R-precision: the
        expected relevant count read at rank R), ``"order"`` (interpolated precision: a maximum
        over ranks, no tie average), ``"err"`` (ERR's cascade terms, :mod:`rankmetrics.core.err`),
        ``"residual"`` (RBP's residual: discounted unjudged indicator plus the tail),
        ``"judged"`` (needs to tell judged from unjudged documents: Bpref, Judged) or
        ``"count"``.
    core : str or None
        The core metric (:meth:`rankmetrics.QueryPlan.evaluate`) computing it; None for the
        measures only :func:`rankmetrics.trec.evaluate` computes.
    doc : str
        One line for the documentation.
    """

    kind: str
    display: str
    names: tuple[str, ...]
    params: tuple[str, ...]
    cutoff: str
    higher_is_better: bool
    quantity: str
    core: str | None
    doc: str


_B = ("rel", *COMMON_PARAMS)  # binary measures
_G = (*GAIN_PARAMS, *COMMON_PARAMS)
# DCG and CG are defined (0) without a relevant document: no empty= (it would be dropped)
_U = (*GAIN_PARAMS, "ties")

DEFINITIONS: tuple[Definition, ...] = (
    Definition("ndcg", "nDCG", ("ndcg",), (*_G, *DISCOUNT_PARAMS), "rank", True, "gain",
               "ndcg", "normalised discounted cumulated gain (JK 2002, eq. 5)"),
    Definition("dcg", "DCG", ("dcg",), (*_U, *DISCOUNT_PARAMS), "rank", True, "gain", "dcg",
               "discounted cumulated gain (JK 2002, eq. 2)"),
    Definition("ncg", "nCG", ("ncg",), _G, "rank", True, "gain", "ncg",
               "normalised cumulated gain"),
    Definition("cg", "CG", ("cg",), _U, "rank", True, "gain", "cg", "cumulated gain (eq. 1)"),
    Definition("p", "P", ("p", "precision", "prec", "setp", "set_p"), _B, "rank", True, "rel",
               "precision", "precision at k (the whole list without a cutoff)"),
    Definition("r", "R", ("r", "recall", "setr", "set_recall"), _B, "rank", True, "rel",
               "recall", "recall at k"),
    Definition("f", "F", ("f", "f1", "fbeta"), (*_B, "beta"), "rank", True, "rel", "fbeta",
               "F-beta at k: (1 + beta^2) P R / (beta^2 P + R)"),
    Definition("setf", "SetF", ("setf", "set_f"), (*_B, "beta"), "none", True, "rel", "fbeta",
               "F of the whole list with trec_eval's set_F weight: (1 + beta) P R / (beta P + R)"),
    Definition("ap", "AP", ("ap", "map", "average_precision"), (*_B, "denominator"), "rank",
               True, "ap", "ap", "average precision (at k), divided by R"),
    Definition("rr", "RR", ("rr", "mrr", "recip_rank", "reciprocal_rank"), _B, "rank", True,
               "rr", "rr", "reciprocal rank of the first relevant document (within k)"),
    Definition("rprec", "Rprec", ("rprec", "r-prec", "r_prec", "r_precision"), _B, "none", True,
               "rel@R", "rprec", "precision at rank R (the number of relevant documents)"),
    Definition("success", "Success", ("success",), _B, "rank", True, "rr*rank", "success",
               "1 if a relevant document is within k (its probability under ties)"),
    Definition("err", "ERR", ("err",), ("max_grade", "gains", *COMMON_PARAMS), "rank", True,
               "err", "err", "expected reciprocal rank (Chapelle et al. 2009, eq. 4), stop "
               "probability (2^g - 1) / 2^max_grade, max_grade 4 as gdeval"),
    Definition("rbp", "RBP", ("rbp",), ("p", "rel", "gains", *COMMON_PARAMS), "rank", True,
               "gain", "rbp", "rank-biased precision (Moffat & Zobel 2008): "
               "(1 - p) sum_i r_i p^(i-1), p = 0.8; graded labels as they are unless rel="),
    Definition("rbp_residual", "RBP_residual", ("rbp_residual", "rbp_res"), ("p", "ties"),
               "rank", False, "residual", None, "RBP's residual (Moffat & Zobel 2008): "
               "the RBP weight of unjudged ranked documents plus the tail p^n"),
    Definition("iprec", "IPrec", ("iprec", "iprec_at_recall"), ("rel", "rule"), "level", True,
               "order", None, "interpolated precision at a recall level"),
    Definition("11pt", "11pt_avg", ("11pt_avg", "11pt", "ipavg11"), ("rel", "rule", "levels"),
               "none", True, "order", None, "mean interpolated precision at 11 recall levels"),
    Definition("numret", "NumRet", ("numret", "num_ret"), (), "none", True, "count", None,
               "documents retrieved"),
    Definition("numrel", "NumRel", ("numrel", "num_rel"), ("rel",), "none", True, "count", None,
               "relevant documents judged"),
    Definition("numrelret", "NumRelRet", ("numrelret", "num_rel_ret"), ("rel",), "none", True,
               "count", None, "relevant documents retrieved"),
    Definition("bpref", "Bpref", ("bpref",), ("rel", "ties", "empty"), "none", True, "judged",
               None, "binary preference: judged non-relevant ranked above each relevant "
               "document (Buckley & Voorhees 2004, trec_eval's bpref)"),
    Definition("judged", "Judged", ("judged",), ("ties",), "rank", True, "judged", None,
               "fraction of the top k that has a qrels entry (ir_measures' Judged@k)"),
)

REGISTRY: dict[str, Definition] = {d.kind: d for d in DEFINITIONS}
#: lower-case name -> kind
BY_NAME: dict[str, str] = {n: d.kind for d in DEFINITIONS for n in d.names}
