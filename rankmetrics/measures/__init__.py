"""The measure language: measure objects, definitions and the one parser.

Every entry point that takes a measure name (:meth:`rankmetrics.QueryPlan.evaluate`, the
scikit-learn scorers, the LightGBM feval/eval_metric, the torch metrics, :func:`rankmetrics.trec
.evaluate` and the ``rankmetrics eval`` command) parses it with
:func:`~rankmetrics.measures.grammar.parse_measures`, and accepts these objects as well, built as
with ir_measures:

>>> from rankmetrics.measures import nDCG, P, AP, SetF
>>> nDCG@10
nDCG@10
>>> P(rel=2)@5
P(rel=2)@5
>>> (P(rel=2)@5).rel, (P(rel=2)@5).k
(2.0, 5)
>>> SetF(beta=0.5)
SetF(beta=0.5)
>>> from rankmetrics.measures import ERR, RBP
>>> ERR(max_grade=3)@10, RBP(p=0.9)@5
(ERR(max_grade=3)@10, RBP(p=0.9)@5)
"""

from __future__ import annotations

from .grammar import Measure, parse_measure, parse_measures
from .registry import DEFINITIONS, REGISTRY, Definition

__all__ = [
    "AP", "CG", "DCG", "ERR", "F", "IPrec", "Measure", "RBP", "RBP_residual", "NumRel",
    "NumRelRet", "NumRet", "P", "R", "RR",
    "Rprec", "SetF", "Success", "nCG", "nDCG", "Definition", "DEFINITIONS", "REGISTRY",
    "parse_measure", "parse_measures",
    "Bpref", "Judged",
]


def _object(kind: str) -> Measure:
    return Measure(name=REGISTRY[kind].display, kind=kind)


nDCG = _object("ndcg")
DCG = _object("dcg")
nCG = _object("ncg")
CG = _object("cg")
P = _object("p")
R = _object("r")
F = _object("f")
SetF = _object("setf")
AP = _object("ap")
RR = _object("rr")
Rprec = _object("rprec")
Success = _object("success")
IPrec = _object("iprec")
NumRet = _object("numret")
NumRel = _object("numrel")
NumRelRet = _object("numrelret")
ERR = _object("err")
RBP = _object("rbp")
RBP_residual = _object("rbp_residual")
Bpref = _object("bpref")
Judged = _object("judged")
