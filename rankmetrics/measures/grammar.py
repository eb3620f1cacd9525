"""Measure names for :func:`rankmetrics.trec.evaluate`: ir_measures style and trec_eval names.

Two spellings are accepted, case-insensitively:

* ir_measures style ``Name(param=value, ...)@cutoff``: ``nDCG@10``, ``P(rel=2)@5``,
  ``nDCG(gains={1: 3, 2: 9})@10``, ``F(beta=0.5)@10``, ``IPrec@0.2``, ``AP``, ``Rprec``;
* trec_eval names: ``ndcg_cut_10``, ``P_5``, ``recall_100``, ``map``, ``map_cut_100``,
  ``recip_rank``, ``success_10``, ``iprec_at_recall_0.10``, ``11pt_avg``, ``num_rel_ret``.
  The family names ``iprec_at_recall``, ``ndcg_cut``, ``map_cut`` and ``success`` expand to
  trec_eval's default parameters (11 recall levels; cutoffs 5..1000; cutoffs 1, 5, 10).
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: canonical kind -> accepted base names (lower case)
_KIND_NAMES: dict[str, tuple[str, ...]] = {
    "ndcg": ("ndcg",),
    "dcg": ("dcg",),
    "cg": ("cg",),
    "ncg": ("ncg",),
    "p": ("p", "precision", "prec"),
    "r": ("r", "recall"),
    "f": ("f", "f1", "fbeta"),
    "ap": ("ap", "map", "average_precision"),
    "rr": ("rr", "mrr", "recip_rank", "reciprocal_rank"),
    "rprec": ("rprec", "r-prec", "r_prec"),
    "success": ("success",),
    "iprec": ("iprec", "iprec_at_recall"),
    "11pt": ("11pt_avg", "11pt", "ipavg11"),
    "numret": ("numret", "num_ret"),
    "numrel": ("numrel", "num_rel"),
    "numrelret": ("numrelret", "num_rel_ret"),
}
_BY_NAME = {alias: kind for kind, names in _KIND_NAMES.items() for alias in names}

GAIN_KINDS = ("ndcg", "dcg", "cg", "ncg")
BINARY_KINDS = ("p", "r", "f", "ap", "rr", "rprec", "success", "iprec", "11pt", "numrel",
                "numrelret")
COUNT_KINDS = ("numret", "numrel", "numrelret")
#: kinds whose value is not a sum of per-position terms: no tie-averaged form here
ORDER_ONLY_KINDS = ("iprec", "11pt")
_CUTOFF_KINDS = ("ndcg", "dcg", "cg", "ncg", "p", "r", "f", "ap", "rr", "success")
_NO_CUTOFF = ("rprec", "11pt", "numret", "numrel", "numrelret")

#: trec_eval's recall levels of iprec_at_recall and 11pt_avg: 0.0, 0.1, ..., 1.0
RECALL_LEVELS = tuple(i / 10 for i in range(11))
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_TREC_FAMILIES = {
    "iprec_at_recall": [f"iprec_at_recall_{x:.2f}" for x in RECALL_LEVELS],
    "ndcg_cut": [f"ndcg_cut_{k}" for k in TREC_CUTOFFS],
    "map_cut": [f"map_cut_{k}" for k in TREC_CUTOFFS],
    "success": ["success_1", "success_5", "success_10"],
}
_TREC_CUT_RE = re.compile(
    r"^(ndcg_cut|map_cut|p|recall|success|iprec_at_recall)_([0-9]*\.?[0-9]+)$"
)
_TREC_CUT_KIND = {"ndcg_cut": "ndcg", "map_cut": "ap", "p": "p", "recall": "r",
                  "success": "success", "iprec_at_recall": "iprec"}
_IRM_RE = re.compile(
    r"^\s*(?P<base>[A-Za-z0-9_\-]+?)\s*(?:\((?P<params>.*)\))?\s*"
    r"(?:@\s*(?P<cut>[0-9]*\.?[0-9]+))?\s*$",
    re.DOTALL,
)
_PARAMS_OF = {
    "rel": BINARY_KINDS,
    "gains": GAIN_KINDS,
    "beta": ("f",),
    "rule": ("iprec", "11pt"),
    "levels": ("11pt",),
}


@dataclass(frozen=True)
class Measure:
    """One parsed measure.

    Attributes
    ----------
    name : str
        The column name: the name as given (or the expanded trec_eval name of a family).
    kind : str
        Canonical kind (``"ndcg"``, ``"p"``, ``"iprec"``, ...).
    k : int or None
        Rank cutoff (None: the whole retrieved list).
    level : float or None
        Recall level of ``iprec``.
    rel : float or None
        Per-measure relevance threshold (overrides ``threshold``).
    gains : tuple of (label, gain) pairs or None
        Per-measure gain of listed levels (others keep their linear gain, as trec_eval does).
    beta : float or None
        F-measure weight.
    rule : {"trec", "trec9", "recall"}
        Interpolated precision: the count of relevant documents that reaches a recall level is
        ``lround(level * R)`` (trec_eval 10), ``int(level * R + 0.9)`` (trec_eval 9 and
        pytrec_eval) or the least j with ``j / R >= level`` (textbook).
    levels : tuple of float or None
        Recall levels averaged by ``11pt_avg`` (None: 0, 0.1, ..., 1).
    """

    name: str
    kind: str
    k: int | None = None
    level: float | None = None
    rel: float | None = None
    gains: tuple[tuple[float, float], ...] | None = field(default=None)
    beta: float | None = None
    rule: str = "trec"
    levels: tuple[float, ...] | None = None


def _split_top(text: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside (), [] and {}."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return [s.strip() for s in out if s.strip()]


def split_measure_list(text: str) -> list[str]:
    """``"nDCG@10, P(rel=2)@5"`` -> ``["nDCG@10", "P(rel=2)@5"]`` (commas inside () kept)."""
    return _split_top(text)


def _number(value: str, what: str) -> float:
    try:
        out = float(value)
    except ValueError:
        raise ValueError(f"{what} must be a number; got {value!r}") from None
    if not math.isfinite(out):
        raise ValueError(f"{what} must be finite; got {value!r}")
    return out


def _parse_gains(value: str, name: str) -> tuple[tuple[float, float], ...]:
    text = value.strip()
    try:
        obj = ast.literal_eval(text) if text.startswith("{") else None
    except (ValueError, SyntaxError):
        obj = None
    if obj is None and not text.startswith("{"):
        # trec_eval spelling 1=3;2=9 (';' because ',' separates parameters)
        try:
            obj = {float(a): float(b) for a, b in (p.split("=") for p in text.split(";"))}
        except ValueError:
            obj = None
    if not isinstance(obj, Mapping) or not obj:
        raise ValueError(
            f"gains of {name!r} must be a mapping like {{1: 3, 2: 9}} (or 1=3;2=9); got {value!r}"
        )
    pairs = []
    for a, b in obj.items():
        la = _number(str(a), f"gain level in {name!r}")
        gb = _number(str(b), f"gain of level {a} in {name!r}")
        if gb < 0:
            raise ValueError(f"gain of level {a} in {name!r} must be >= 0; got {b}")
        pairs.append((la, gb))
    return tuple(sorted(pairs))


def _cutoff(kind: str, cut: str | None, name: str) -> tuple[int | None, float | None]:
    if kind == "iprec":
        if cut is None:
            raise ValueError(f"{name!r} needs a recall level, e.g. 'IPrec@0.1' or "
                             "'iprec_at_recall_0.10'")
        level = _number(cut, f"recall level of {name!r}")
        if not 0.0 <= level <= 1.0:
            raise ValueError(f"recall level of {name!r} must be in [0, 1]; got {cut}")
        return None, level
    if cut is None:
        return None, None
    if kind in _NO_CUTOFF:
        raise ValueError(f"{name!r}: {kind} takes no cutoff")
    if not re.fullmatch(r"[0-9]+", cut) or int(cut) < 1:
        raise ValueError(f"cutoff of {name!r} must be a positive integer; got {cut!r}")
    return int(cut), None


def parse_measure(name: str) -> list[Measure]:
    """Parse one measure name into one :class:`Measure` (several for a trec_eval family name).

    Raises
    ------
    TypeError
        ``name`` is not a string.
    ValueError
        Unknown measure, malformed or unsupported parameters, bad cutoff or recall level.
    """
    if not isinstance(name, str):
        raise TypeError(f"measure names must be strings like 'nDCG@10'; got {name!r}")
    low = name.strip().lower()
    if low in _TREC_FAMILIES:
        return [m for sub in _TREC_FAMILIES[low] for m in parse_measure(sub)]
    tm = _TREC_CUT_RE.match(low)
    if tm:
        tkind = _TREC_CUT_KIND[tm.group(1)]
        k, level = _cutoff(tkind, tm.group(2), name)
        return [Measure(name=name, kind=tkind, k=k, level=level)]
    m = _IRM_RE.match(name)
    found = _BY_NAME.get(m.group("base").lower()) if m else None
    if m is None or found is None:
        raise ValueError(
            f"unknown measure {name!r}; use e.g. nDCG@10, nDCG, DCG@10, CG@10, nCG@10, P@5, "
            "R@100, F1@10, F(beta=2)@10, AP, AP@100, RR, RR@10, Rprec, Success@10, IPrec@0.1, "
            "11pt_avg, NumRet, NumRel, NumRelRet, or trec_eval names (ndcg_cut_10, P_5, map, "
            "recip_rank, recall_100, iprec_at_recall_0.10, ...)"
        )
    kind: str = found
    k, level = _cutoff(kind, m.group("cut"), name)
    opts: dict[str, Any] = {}
    if m.group("base").lower() == "f1":
        opts["beta"] = 1.0
    for item in _split_top(m.group("params") or ""):
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or key not in _PARAMS_OF:
            raise ValueError(
                f"bad parameter {item!r} in {name!r}; supported: rel=<threshold> (binary "
                "measures), gains={level: gain} (gain measures), beta=<weight> (F), "
                "rule=trec|trec9|recall (IPrec, 11pt_avg), levels=[...] (11pt_avg)"
            )
        if kind not in _PARAMS_OF[key]:
            raise ValueError(f"parameter {key!r} does not apply to {name!r}")
        if key in opts:
            raise ValueError(f"parameter {key!r} given twice in {name!r}")
        if key == "rel":
            rel = _number(value, f"rel of {name!r}")
            if rel <= 0:
                raise ValueError(
                    f"rel of {name!r} must be > 0 (labels <= 0 are never relevant); got {value}"
                )
            opts["rel"] = rel
        elif key == "levels":
            try:
                lv = ast.literal_eval(value.strip())
                levels = tuple(float(x) for x in (lv if isinstance(lv, (list, tuple)) else [lv]))
            except (ValueError, SyntaxError, TypeError):
                levels = ()
            if not levels or not all(0.0 <= x <= 1.0 for x in levels):
                raise ValueError(
                    f"levels of {name!r} must be a list of recall levels in [0, 1], e.g. "
                    f"[0.2, 0.5, 0.8]; got {value}"
                )
            opts["levels"] = levels
        elif key == "rule":
            rule = value.strip().strip("'\"").lower()
            if rule not in ("trec", "trec9", "recall"):
                raise ValueError(
                    f"rule of {name!r} must be 'trec', 'trec9' or 'recall'; got {value}"
                )
            opts["rule"] = rule
        elif key == "beta":
            beta = _number(value, f"beta of {name!r}")
            if beta <= 0:
                raise ValueError(f"beta of {name!r} must be > 0; got {value}")
            opts["beta"] = beta
        else:
            opts["gains"] = _parse_gains(value, name)
    return [Measure(name=name, kind=kind, k=k, level=level, **opts)]


def parse_measures(names: str | Iterable[str]) -> list[Measure]:
    """Parse measure names (a string or an iterable of strings); column names must be unique.

    Raises
    ------
    ValueError
        No measure, an unknown or malformed measure, or the same column twice.
    """
    items = [names] if isinstance(names, str) else list(names)
    out = [m for item in items for m in parse_measure(item)]
    if not out:
        raise ValueError("metrics must name at least one measure, e.g. ['nDCG@10', 'AP']")
    seen: set[str] = set()
    for m in out:
        if m.name in seen:
            raise ValueError(f"measure {m.name!r} is given twice")
        seen.add(m.name)
    return out
