"""The one measure language: every entry point that takes a measure name parses it here.

Accepted, case-insensitively (see ``docs/guide/measures.md``):

* ir_measures style ``Name(param=value, ...)@cutoff``: ``nDCG@10``, ``P(rel=2)@5``,
  ``nDCG(gains={0: 0, 1: 1, 2: 3})@10``, ``R@100``, ``AP``, ``AP@100``, ``RR``, ``Rprec``,
  ``Success@10``, ``SetF(beta=0.5)``, ``IPrec@0.2``, ``ERR@20``, ``ERR(max_grade=3)@10``,
  ``RBP``, ``RBP(p=0.95, rel=2)@100``, ``RBP_residual`` (TREC layer), ``nDCG(dcg='exp-log2')@10``
  (ir_measures' ``dcg=``: ``log2`` is ``gain=linear``, ``exp-log2`` ``gain=exponential``),
  ``NumRet(rel=1)`` (ir_measures' spelling of ``NumRelRet``); our parameters
  ``ties=``, ``gain=``, ``discount=``, ``b=`` (log base), ``empty=``, ``denominator=``
  override the call's options for that measure;
* trec_eval names: ``ndcg_cut.10`` / ``ndcg_cut_10``, ``P.5`` / ``P_5``, ``recall_100``,
  ``map``, ``map_cut.100``, ``recip_rank``, ``success_10``, ``set_F``, ``iprec_at_recall_0.10``,
  ``11pt_avg``, ``num_rel_ret``; the family names ``iprec_at_recall``, ``ndcg_cut``, ``map_cut``,
  ``success`` and ``all_trec`` expand to trec_eval's default parameters;
* LightGBM-style lower-case names: ``ndcg@10``, ``map@5``, ``mrr``, ``p@5``, ``f1@10``;
* measure objects (:data:`rankmetrics.measures.nDCG` ``@ 10``, ``P(rel=2) @ 5``), wherever a
  string is accepted.

The definitions (names, parameters, cutoffs) live in :mod:`rankmetrics.measures.registry`.
"""

from __future__ import annotations

import ast
import difflib
import math
import numbers
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.gains import DISCOUNTS
from ..core.options import DENOMINATORS
from ..core.validation import MAX_CUTOFF, ascii_integer
from .registry import BY_NAME, REGISTRY

GAIN_KINDS = ("ndcg", "dcg", "cg", "ncg")
BINARY_KINDS = ("p", "r", "f", "setf", "ap", "rr", "rprec", "success", "iprec", "11pt",
                "numrel", "numrelret", "bpref")
COUNT_KINDS = ("numret", "numrel", "numrelret")
#: kinds whose value is not a sum of per-position terms: no tie-averaged form here
ORDER_ONLY_KINDS = ("iprec", "11pt")
_NO_CUTOFF = tuple(d.kind for d in REGISTRY.values() if d.cutoff == "none")
TIE_NAMES = ("average", "optimistic", "pessimistic", "stable", "docno")
EMPTY_WORDS = ("skip", "error")

#: trec_eval's recall levels of iprec_at_recall and 11pt_avg: 0.0, 0.1, ..., 1.0
RECALL_LEVELS = tuple(i / 10 for i in range(11))
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: every trec_eval measure rankmetrics computes, with trec_eval's default parameters
ALL_TREC = (
    ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank"]
    + [f"iprec_at_recall_{x:.2f}" for x in RECALL_LEVELS]
    + [f"P_{k}" for k in TREC_CUTOFFS]
    + [f"recall_{k}" for k in TREC_CUTOFFS]
    + ["set_P", "set_recall", "set_F", "ndcg"]
    + [f"ndcg_cut_{k}" for k in TREC_CUTOFFS]
    + [f"map_cut_{k}" for k in TREC_CUTOFFS]
    + ["success_1", "success_5", "success_10", "11pt_avg"]
)
#: trec_eval's ``-m official`` (its default set) less runid, num_q and gm_map
OFFICIAL_TREC = (
    ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank"]
    + [f"iprec_at_recall_{x:.2f}" for x in RECALL_LEVELS]
    + [f"P_{k}" for k in TREC_CUTOFFS]
)
#: trec_eval's measure sets: what each leaves out is said on the command line
_TREC_SETS = {"all_trec": ALL_TREC, "official": OFFICIAL_TREC}
_TREC_FAMILIES = {
    "iprec_at_recall": [f"iprec_at_recall_{x:.2f}" for x in RECALL_LEVELS],
    "ndcg_cut": [f"ndcg_cut_{k}" for k in TREC_CUTOFFS],
    "map_cut": [f"map_cut_{k}" for k in TREC_CUTOFFS],
    "success": ["success_1", "success_5", "success_10"],
    "all_trec": ALL_TREC,
    "official": OFFICIAL_TREC,
}
#: trec_eval's ``-m`` names whose bare form elsewhere in the grammar is the whole retrieved
#: list (the core's P and recall, named with ``k=`` by the LightGBM / XGBoost adapters); the
#: trec_eval-compatible command line expands them as trec_eval does (:func:`trec_eval_family`)
_TREC_EVAL_ONLY = {
    "p": [f"P_{k}" for k in TREC_CUTOFFS],
    "recall": [f"recall_{k}" for k in TREC_CUTOFFS],
}
_TREC_CUT_RE = re.compile(
    r"^(ndcg_cut|map_cut|p|recall|success|iprec_at_recall|set_f)[._]([0-9]*\.?[0-9]+)$"
)
_TREC_CUT_KIND = {"ndcg_cut": "ndcg", "map_cut": "ap", "p": "p", "recall": "r",
                  "success": "success", "iprec_at_recall": "iprec", "set_f": "setf"}
_IRM_RE = re.compile(
    r"^\s*(?P<base>[A-Za-z0-9_\-]+?)\s*(?:\((?P<params>.*)\))?\s*"
    r"(?:@\s*(?P<cut>[0-9]*\.?[0-9]+))?\s*$",
    re.DOTALL,
)
_PARAM_ALIASES = {"log_base": "b", "threshold": "rel"}
_ALL_PARAMS = ("rel", "gains", "beta", "rule", "levels", "ties", "gain", "discount", "b",
               "empty", "denominator", "max_grade", "p")


@dataclass(frozen=True)
class Measure:
    """One measure: a kind, its cutoff and its parameters.

    Parsed from a name (:func:`parse_measure`) or built like an ir_measures object:
    ``nDCG @ 10``, ``P(rel=2) @ 5`` (see :mod:`rankmetrics.measures`). Accepted wherever a
    measure name is.

    Attributes
    ----------
    name : str
        The column name: the name as given (or the expanded trec_eval name of a family); for a
        measure object, its ir_measures spelling.
    kind : str
        Canonical kind (``"ndcg"``, ``"p"``, ``"iprec"``, ...; see
        :data:`rankmetrics.measures.registry.REGISTRY`).
    k : int or None
        Rank cutoff (None: the whole retrieved list).
    level : float or None
        Recall level of ``iprec``.
    rel : float or None
        Per-measure relevance threshold (overrides ``threshold``).
    gains : tuple of (label, gain) pairs or None
        Per-measure gain of listed levels (others keep their linear gain, as trec_eval and
        ir_measures do).
    beta : float or None
        F weight: ``F(beta=b)`` weighs recall b times as much as precision (b^2 in the formula);
        ``SetF(beta=x)`` uses trec_eval's ``set_F.x`` convention, (1 + x) P R / (x P + R).
    rule : {"trec", "trec9", "recall"}
        Interpolated precision: the count of relevant documents that reaches a recall level is
        ``lround(level * R)`` (trec_eval 10: the default of ``iprec_at_recall_x`` and
        ``11pt_avg``), ``int(level * R + 0.9)`` (trec_eval 9 and pytrec_eval, hence
        ir_measures: the default of ``IPrec@x``) or the least j with ``j / R >= level``
        (textbook).
    levels : tuple of float or None
        Recall levels averaged by ``11pt_avg`` (None: 0, 0.1, ..., 1).
    ties, gain, discount, log_base, empty, denominator
        Per-measure overrides of the call's options (None: the call's).
    max_grade : float or None
        ERR's g_max in the stop probability (2**g - 1) / 2**g_max (None: 4, as gdeval).
    p : float or None
        RBP's persistence in (0, 1) (None: 0.8, as ir_measures).
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
    ties: str | None = None
    gain: str | None = None
    discount: str | None = None
    log_base: float | None = None
    empty: float | str | None = None
    denominator: str | None = None
    max_grade: float | None = None
    p: float | None = None

    # ir_measures-style construction -------------------------------------------------------
    def __matmul__(self, cutoff: Any) -> Measure:
        if "@" in self.name or self.k is not None or self.level is not None:  # ndcg_cut.10
            raise ValueError(f"{self.name!r} already has a cutoff")
        if isinstance(cutoff, bool) or not isinstance(cutoff, (numbers.Real, str)):
            raise TypeError(f"the cutoff of {self.name!r} must be a number; got {cutoff!r}")
        (m,) = parse_measure(f"{self.name}@{_render(cutoff)}")
        return m

    def __call__(self, **params: Any) -> Measure:
        if "(" in self.name or "@" in self.name or self.name.strip().lower() not in BY_NAME:
            raise ValueError(
                f"give the parameters before the cutoff, on the bare measure: "
                f"{REGISTRY[self.kind].display}(...)@k; got {self.name!r}(...)"
            )
        parts = [f"{key}={_render(value)}" for key, value in params.items()]
        (m,) = parse_measure(f"{self.name}({', '.join(parts)})" if parts else self.name)
        return m

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name

    @property
    def higher_is_better(self) -> bool:
        """Whether larger values are better (every measure but ``RBP_residual``, an
        uncertainty)."""
        return REGISTRY[self.kind].higher_is_better


def _render(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        # a number as the grammar reads it: numpy scalars repr as np.int64(2) (numpy 2)
        return str(int(value)) if isinstance(value, numbers.Integral) else repr(float(value))
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_render(a)}: {_render(b)}" for a, b in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_render(v) for v in value) + "]"
    return repr(value)


def _split_top(text: str, sep: str = ",", strip: bool = True) -> list[str]:
    """Split on ``sep`` outside (), [] and {}; blank items are dropped, the others stripped
    (``strip=False``: as written)."""
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
    return [s.strip() if strip else s for s in out if s.strip()]


def split_measure_list(text: str) -> list[str]:
    """``"nDCG@10, P(rel=2)@5"`` -> ``["nDCG@10", "P(rel=2)@5"]`` (commas inside () kept).

    trec_eval's parameter lists are read as trec_eval reads them: ``"P.5,10"`` ->
    ``["P.5", "P.10"]``, ``"ndcg_cut.5,10,20"``, ``"iprec_at_recall.0.1,0.5"`` (a bare number
    after a dotted trec_eval name is another parameter of it), in ascending order as trec_eval
    prints them (``"P.5,7,3"`` -> P.3, P.5, P.7); ``"ndcg.1=3,2=9"`` (a gain per level) and
    ``"11pt_avg..25,.5"`` (recall levels) are one measure each."""
    out: list[str] = []
    run: list[str] = []  # the members of one dotted parameter list
    prefix = None
    glue = None  # "ndcg" / "11pt": later items are parameters of the last measure

    def flush() -> None:
        if run:
            assert prefix is not None
            out.extend(sorted(run, key=lambda n: float(n[len(prefix):])))
            run.clear()

    for raw in _split_top(text, strip=False):
        item = bare = raw.strip()
        if glue == "ndcg" and _LEVEL_GAIN_RE.fullmatch(bare):
            # a space before the level is kept: trec_eval ignores such a pair (its level is
            # no integer to it), so parse_measure refuses it rather than use its gain
            out[-1] += "," + raw.rstrip()
            continue
        if glue == "11pt" and _NUMBER_RE.fullmatch(bare):
            out[-1] += "," + bare
            continue
        if prefix is not None and _NUMBER_RE.fullmatch(bare):
            run.append(prefix + bare)
            continue
        flush()
        pm = _TREC_PARAM_RE.match(bare)
        glue = _trec_param_kind(pm) if pm and pm.group(2) == "." else None
        m = _TREC_CUT_RE.match(bare.lower())
        prefix = bare[:len(m.group(1)) + 1] if m and bare[len(m.group(1))] == "." else None
        if prefix is not None:
            run.append(bare)
        else:
            out.append(item)
    flush()
    return out


_NUMBER_RE = re.compile(r"[0-9]*\.?[0-9]+")
#: a level (read with atol by trec_eval) = a gain (read with atof: an exponent too, 2=1e3)
_LEVEL_GAIN_RE = re.compile(r"-?[0-9]*\.?[0-9]+\s*=\s*-?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?")
#: trec_eval's ``ndcg.<level>=<gain>,...`` (gains per level) and ``11pt_avg.<levels>`` (recall
#: levels), dotted as given on its command line or with ``_`` as it prints them
_TREC_PARAM_RE = re.compile(r"^(ndcg|11pt_avg)([._])(.+)$", re.IGNORECASE)


def _trec_param_kind(pm: re.Match[str]) -> str | None:
    """"ndcg" or "11pt" when a :data:`_TREC_PARAM_RE` match is one of those parameter lists
    (``ndcg_cut.10`` is not: its parameter holds no ``=``), else None."""
    items = [p.strip() for p in pm.group(3).split(",")]
    if pm.group(1).lower() == "ndcg":
        return "ndcg" if all(_LEVEL_GAIN_RE.fullmatch(p) for p in items) else None
    return "11pt" if all(_NUMBER_RE.fullmatch(p) for p in items) else None


def _number(value: str, what: str) -> float:
    try:
        out = float(value)
    except ValueError:
        raise ValueError(f"{what} must be a number; got {value!r}") from None
    if not math.isfinite(out):
        raise ValueError(f"{what} must be finite; got {value!r}")
    return out


def _check_exact_whole(value: str, what: str) -> None:
    """Refuse an integer text float64 cannot hold: labels are compared with its float, where
    2**53 + 1 would be 2**53 (as the keyword ``threshold=`` and gain mapping keys are)."""
    try:
        whole = int(value)
    except ValueError:
        return
    if float(whole) != whole:
        raise ValueError(f"{what} must be exactly a float64 (below 2**53 for an integer); "
                         f"got {whole}")


class _DuplicateLevel(ValueError):
    """A gain map that gives one level twice."""


def _level_gain_pairs(items: list[str], what: str) -> dict[float, float]:
    """``level=gain`` texts as a dict; a level given twice is a ValueError (trec_eval keeps the
    first, a Python dict the last: neither is what every reader expects)."""
    out: dict[float, float] = {}
    for item in items:
        a, sep, b = item.partition("=")
        if not sep:
            raise ValueError(f"{what}: {item!r} is not a level=gain pair")
        level, gain = float(a), float(b)
        _check_exact_whole(a, f"{what}: level")
        if not math.isfinite(level):
            raise ValueError(f"{what}: level {a.strip()} is not a finite number")
        if level in out:
            raise _DuplicateLevel(f"{what} gives level {a.strip()} twice; give each level once")
        out[level] = gain
    return out


def _dict_literal(text: str, what: str) -> Any:
    """``{1: 3, 2: 9}`` evaluated as a literal, refusing a key given twice (which Python's own
    dict display would silently drop); None when ``text`` is no literal."""
    try:
        node = ast.parse(text, mode="eval").body
        obj = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None
    if isinstance(node, ast.Dict) and isinstance(obj, dict) and len(obj) != len(node.keys):
        seen: set[Any] = set()
        for key in node.keys:
            value = ast.literal_eval(key) if key is not None else None
            if value in seen:
                raise _DuplicateLevel(f"{what} gives level {value} twice; give each level once")
            seen.add(value)
    return obj


def _parse_gains(value: str, name: str) -> tuple[tuple[float, float], ...]:
    text = value.strip()
    what = f"gains of {name!r}"
    obj = _dict_literal(text, what) if text.startswith("{") else None
    if obj is None and not text.startswith("{"):
        # trec_eval spelling 1=3;2=9 (';' because ',' separates parameters)
        try:
            obj = _level_gain_pairs(text.split(";"), what)
        except _DuplicateLevel:
            raise
        except ValueError:
            obj = None
    if not isinstance(obj, Mapping) or not obj:
        raise ValueError(
            f"gains of {name!r} must be a mapping like {{1: 3, 2: 9}} (or 1=3;2=9); got {value!r}"
        )
    pairs = []
    for a, b in obj.items():
        la = _number(str(a), f"gain level in {name!r}")
        _check_exact_whole(str(a), f"gain level in {name!r}")
        gb = _number(str(b), f"gain of level {a} in {name!r}")
        if gb < 0:
            raise ValueError(f"gain of level {a} in {name!r} must be >= 0; got {b}")
        pairs.append((la, gb))
    return tuple(sorted(pairs))


def parse_gain_spec(text: str, what: str = "--gain") -> str | dict[float, float] | list[float]:
    """A gain given as command-line text, parsed for ``rankmetrics eval --gain`` and the
    analysis commands' ``--gain``.

    Parameters
    ----------
    text : str
        ``linear`` | ``exponential`` | level=gain pairs ``1=3,2=9`` (levels left out keep
        their linear gain) | per-level weights ``0,1,10,100`` (the gain of level 0, 1, 2, ...).
    what : str
        The option's name, for messages.

    Returns
    -------
    str, dict of float to float, or list of float
        The ``gain=`` argument of :func:`rankmetrics.trec.evaluate` and the core functions.

    Raises
    ------
    ValueError
        Text of none of these forms; a gain that is negative or not finite; a level given
        twice (``1=3,1=5``: trec_eval's ``ndcg.1=3,1=5`` keeps the first, a dict the last).
    """
    t = text.strip()
    if t.lower() in ("exponential", "linear"):
        return t.lower()
    try:
        if "=" in t:
            pairs = _level_gain_pairs(t.split(","), what)
            values = list(pairs.values())
        else:
            values = [float(w) for w in t.split(",")]
    except _DuplicateLevel:
        raise
    except ValueError:
        raise ValueError(
            f"{what} must be 'linear', 'exponential', level=gain pairs such as '1=3,2=9' or "
            f"per-level weights such as '0,1,10,100'; got {text!r}"
        ) from None
    if any(not math.isfinite(w) or w < 0 for w in values):
        raise ValueError(f"{what} weights must be finite numbers >= 0; got {text!r}")
    return pairs if "=" in t else values


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
    if int(cut) > MAX_CUTOFF:
        raise ValueError(f"cutoff of {name!r} must be at most 2**62; got {cut!r}")
    return int(cut), None


def _suggest(name: str) -> str:
    base = re.split(r"[(@._]", name.strip(), maxsplit=1)[0].lower()
    shown = {d.kind: d.display for d in REGISTRY.values()}
    pool = sorted(set(BY_NAME) | set(_TREC_FAMILIES))
    close = difflib.get_close_matches(base, pool, n=3, cutoff=0.6)
    if not close:
        return ""
    out = []
    for c in close:
        label = shown.get(BY_NAME.get(c, ""), c)
        if label not in out:
            out.append(label)
    return f" (did you mean {' or '.join(repr(x) for x in out)}?)"


_XGBOOST_NAME = re.compile(r"^\s*(ndcg|map|pre)(@[0-9]+)?(-?)\s*$", re.IGNORECASE)


def _xgboost_hint(name: str) -> str:
    """How to spell XGBoost's own metric names (``pre@5``, ``ndcg@5-``), not taken here: the
    XGBoost adapter's defaults already give its numbers, and ``-`` is an option."""
    m = _XGBOOST_NAME.match(name)
    if m is None or (m.group(1).lower() != "pre" and not m.group(3)):
        return ""
    base = "p" if m.group(1).lower() == "pre" else m.group(1).lower()
    spelled = f"{base}{m.group(2) or ''}"
    hint = f"; XGBoost's {name.strip()!r} is {spelled!r} here"
    if m.group(1).lower() == "pre":
        hint += (" (with rankmetrics.xgboost's default precision_denominator='min_k_size', "
                 "XGBoost's; the core's P@k divides by k, as trec_eval)")
    if m.group(3):
        hint += " with empty=0 (the metric option, or the measure parameter: "
        hint += f"{'P' if base == 'p' else base}(empty=0){m.group(2) or ''})"
    return hint


def _unknown(name: str) -> ValueError:
    return ValueError(
        f"unknown measure {name!r}; use e.g. nDCG@10, nDCG, DCG@10, CG@10, nCG@10, P@5, "
        "R@100, F1@10, F(beta=2)@10, SetF(beta=0.5), AP, AP@100, RR, RR@10, Rprec, Success@10, "
        "ERR@10, RBP, RBP(p=0.95), IPrec@0.1, 11pt_avg, NumRet, NumRel, NumRelRet, Bpref, "
        "Judged@10, or trec_eval names (ndcg_cut.10, P_5, "
        f"map, recip_rank, recall_100, iprec_at_recall_0.10, ...){_suggest(name)}"
        f"{_xgboost_hint(name)}"
    )


def _word(value: str) -> str:
    return value.strip().strip("'\"").lower()


def _set_param(key: str, value: str, kind: str, name: str, opts: dict[str, Any]) -> None:
    """Validate one ``key=value`` parameter of measure ``name`` into ``opts``."""
    if key == "rel":
        rel = _number(value, f"rel of {name!r}")
        _check_exact_whole(value, f"rel of {name!r}")
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
        rule = _word(value)
        if rule not in ("trec", "trec9", "recall"):
            raise ValueError(f"rule of {name!r} must be 'trec', 'trec9' or 'recall'; got {value}")
        opts["rule"] = rule
    elif key == "beta":
        beta = _number(value, f"beta of {name!r}")
        if beta <= 0:
            raise ValueError(f"beta of {name!r} must be > 0; got {value}")
        opts["beta"] = beta
    elif key == "gains":
        opts["gains"] = _parse_gains(value, name)
    elif key == "ties":
        ties = _word(value)
        if ties not in TIE_NAMES:
            raise ValueError(f"ties of {name!r} must be one of {', '.join(TIE_NAMES)}; got {value}")
        opts["ties"] = ties
    elif key == "gain":
        opts["gain"] = _choice(value, "gain", name, ("linear", "exponential"),
                               " (per-level gains: gains={0: 0, 1: 1, 2: 3})")
    elif key == "discount":
        opts["discount"] = _choice(value, "discount", name, DISCOUNTS)
    elif key == "b":
        b = _number(value, f"b (log base) of {name!r}")
        if b <= 1:
            raise ValueError(f"b (log base) of {name!r} must be > 1; got {value}")
        opts["log_base"] = b
    elif key == "empty":
        word = _word(value)
        opts["empty"] = word if word in EMPTY_WORDS else _number(value, f"empty of {name!r}")
    elif key == "denominator":
        opts["denominator"] = _choice(value, "denominator", name, DENOMINATORS)
    elif key == "max_grade":
        top = _number(value, f"max_grade of {name!r}")
        if top <= 0:
            raise ValueError(f"max_grade of {name!r} must be > 0; got {value}")
        opts["max_grade"] = top
    elif key == "p":
        pers = _number(value, f"p (persistence) of {name!r}")
        if not 0.0 < pers < 1.0:
            raise ValueError(f"p (persistence) of {name!r} must be in (0, 1); got {value}")
        opts["p"] = pers


def _choice(value: str, what: str, name: str, allowed: tuple[str, ...], hint: str = "") -> str:
    """The word ``value`` if it is one of ``allowed``, else a ValueError naming the parameter."""
    word = _word(value)
    if word not in allowed:
        listed = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        raise ValueError(f"{what} of {name!r} must be {listed}{hint}; got {value}")
    return word


def _is_ir_measures(obj: Any) -> bool:
    """Whether ``obj`` is an ir_measures measure object (read without importing ir_measures)."""
    return type(obj).__module__.split(".")[0] == "ir_measures"


def parse_measure(name: str | Measure) -> list[Measure]:
    """Parse one measure name into one :class:`Measure` (several for a trec_eval family name).

    Parameters
    ----------
    name : str or Measure
        A name of the measure language (see the module docstring) or a measure object, which is
        returned as it is.

    Returns
    -------
    list of Measure

    Raises
    ------
    TypeError
        ``name`` is neither a string nor a :class:`Measure`.
    ValueError
        Unknown measure (with the closest names), malformed or unsupported parameters,
        parameters that would overrule one another (``gains=`` with ``gain=``; RBP's ``rel=``
        with ``gains=``; ``F1`` with a ``beta`` other than 1), bad cutoff or recall level.

    Examples
    --------
    >>> from rankmetrics.measures.grammar import parse_measure
    >>> parse_measure("P(rel=2)@5")[0].rel
    2.0
    >>> [m.k for m in parse_measure("ndcg_cut.10")]
    [10]
    """
    if isinstance(name, Measure):
        return [name]
    if not isinstance(name, str):
        if _is_ir_measures(name):  # its repr reads as a name
            raise TypeError(
                f"measure names must be strings like 'nDCG@10'; got the ir_measures measure "
                f"object {name!r}: give its name, {str(name)!r} (ir_measures' spellings are "
                "read here; nDCG's gain is the entry point's, see docs/guide/measures.md), or "
                "compute it with ir_measures on rankmetrics.ir_measures.provider()"
            )
        raise TypeError(
            f"measure names must be strings like 'nDCG@10'; got {name!r} (or measure objects "
            "such as rankmetrics.measures.nDCG@10)"
        )
    low = name.strip().lower()
    pm = _TREC_PARAM_RE.match(name.strip())
    kind_p = _trec_param_kind(pm) if pm else None
    if pm and kind_p == "ndcg":  # trec_eval's ndcg.1=3,2=9: the gain of each listed level
        pairs = [p.split("=") for p in pm.group(3).split(",")]
        _trec_gain_levels([a for a, _ in pairs], name)
        _level_gain_pairs(pm.group(3).split(","), f"{name!r} (trec_eval keeps the first gain)")
        # as numbers (trec_eval reads "01" as 1; a Python literal would not)
        gains = ", ".join(f"{float(a)!r}: {float(b)!r}" for a, b in pairs)
        return [renamed(parse_measure(f"nDCG(gains={{{gains}}})")[0], name)]
    if pm and kind_p == "11pt":  # trec_eval's 11pt_avg..25,.5,.75: the recall levels
        return [renamed(parse_measure(f"11pt_avg(levels=[{pm.group(3)}])")[0], name)]
    if low in _TREC_FAMILIES and name.strip() != "Success":  # ir_measures' Success: whole list
        return [m for sub in _TREC_FAMILIES[low] for m in parse_measure(sub)]
    tm = _TREC_CUT_RE.match(low)
    if tm:
        tkind = _TREC_CUT_KIND[tm.group(1)]
        if tkind == "setf":
            beta = _number(tm.group(2), f"beta of {name!r}")
            if beta <= 0:
                raise ValueError(f"beta of {name!r} must be > 0; got {tm.group(2)}")
            return [Measure(name=name, kind="setf", beta=beta)]
        k, level = _cutoff(tkind, _trec_cut_param(tkind, low, tm), name)
        return [Measure(name=name, kind=tkind, k=k, level=level)]
    m = _IRM_RE.match(name)
    found = BY_NAME.get(m.group("base").lower()) if m else None
    if m is None or found is None:
        raise _unknown(name)
    kind: str = found
    k, level = _cutoff(kind, m.group("cut"), name)
    if k is not None and m.group("base").lower() in _SET_SPELLINGS:
        raise ValueError(
            f"{name!r}: {m.group('base')} is the whole retrieved list (trec_eval's set_P / "
            f"set_recall, ir_measures' SetP / SetR) and takes no cutoff; ask for "
            f"{REGISTRY[kind].display}@{k}")
    items = _split_top(m.group("params") or "")
    if kind == "numret" and m.group("base").lower() == "numret" and any(
            _PARAM_ALIASES.get(k, k) == "rel"
            for k in (i.partition("=")[0].strip().lower() for i in items)):
        kind = "numrelret"  # ir_measures spells NumRelRet NumRet(rel=x) (its str(NumRelRet))
    allowed = REGISTRY[kind].params
    opts: dict[str, Any] = {}
    if m.group("base").lower() == "f1":
        opts["beta"] = 1.0
    seen: set[str] = set()
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        key = _PARAM_ALIASES.get(key, key)
        if eq and key == "judged_only":
            raise ValueError(
                f"{name!r}: judged_only is not a measure parameter here; pass judged_only=True "
                "to rankmetrics.trec.evaluate (trec_eval's -J), or use the ir_measures provider "
                "(rankmetrics.ir_measures), which reads ir_measures' judged_only="
            )
        if eq and key == "dcg":  # ir_measures' nDCG(dcg=log2|exp-log2): the gain, log2 discount
            if "gain" not in REGISTRY[kind].params:
                raise ValueError(f"parameter 'dcg' does not apply to {name!r} (it takes "
                                 f"{', '.join(REGISTRY[kind].params) or 'no parameters'})")
            word = _choice(value, "dcg", name, ("log2", "exp-log2"))
            key, value = "gain", "linear" if word == "log2" else "exponential"
        if not eq or key not in _ALL_PARAMS:
            raise ValueError(
                f"bad parameter {item!r} in {name!r}; supported: rel=<threshold> (binary "
                "measures), gains={level: gain} (gain measures), beta=<weight> (F, SetF), "
                "rule=trec|trec9|recall (IPrec, 11pt_avg), levels=[...] (11pt_avg), "
                "max_grade= (ERR), p= (RBP), dcg=log2|exp-log2 (ir_measures' gain), and "
                "ties=, gain=linear|exponential, discount=, b=<log base>, empty=, denominator="
            )
        if key not in allowed:
            raise ValueError(
                f"parameter {key!r} does not apply to {name!r} (it takes "
                f"{', '.join(allowed) or 'no parameters'})"
            )
        if key in seen:
            also = " (dcg= is ir_measures' spelling of gain=)" if key == "gain" else ""
            raise ValueError(f"parameter {key!r} given twice in {name!r}{also}")
        seen.add(key)
        if key == "beta" and m.group("base").lower() == "f1" \
                and _number(value, f"beta of {name!r}") != 1.0:
            raise ValueError(f"{name!r}: F1 is F with beta=1; write F(beta={value.strip()}) for "
                             "another weight")
        _set_param(key, value, kind, name, opts)
    # parameters that would overrule one another: refused here, so that no entry point drops one
    if "gains" in opts and "gain" in opts:
        raise ValueError(f"{name!r}: gains={{level: gain}} and gain= cannot be combined (one "
                         "of them would be dropped); give one")
    if kind == "rbp" and "gains" in opts and "rel" in opts:
        raise ValueError(f"{name!r}: RBP takes rel= (binary) or gains= (graded), not both")
    if kind == "iprec":  # ir_measures' IPrec@x is pytrec_eval's (trec_eval 9) rounding
        opts.setdefault("rule", "trec9")
        # at x to two decimals: pytrec_eval, ir_measures' IPrec provider, asks trec_eval for
        # iprec_at_recall_{x:.2f} (IPrec@0.125 is the level 0.12)
        level = float(f"{level:.2f}")
    return [Measure(name=name, kind=kind, k=k, level=level, **opts)]


#: spellings of P and R that borrow the names of set measures, which have no cutoff
_SET_SPELLINGS = frozenset({"setp", "set_p", "setr", "set_recall"})


def _trec_cut_param(kind: str, low: str, tm: re.Match[str]) -> str:
    """The parameter of a trec_eval cutoff name; a dotted one is read as trec_eval's ``atol``
    reads it and prints it: a fraction (``ndcg_cut.23.4``, from trec_eval's own tests) is cut
    to its integer part, leading zeros (``P.05``) are dropped."""
    param = tm.group(2)
    if kind not in ("iprec", "setf") and low[len(tm.group(1))] == ".":
        # the digits before any "." (not int(float(...)), which rounds P.9007199254740993 to
        # P_9007199254740992); ".5" is atol's 0
        return str(int(param.partition(".")[0] or "0"))
    return param


def trec_eval_spelling(name: str) -> str:
    """The name trec_eval prints for a trec_eval measure name given with a dot (``P.5`` ->
    ``P_5``, ``ndcg_cut.10`` -> ``ndcg_cut_10``, ``iprec_at_recall.0.1`` ->
    ``iprec_at_recall_0.10``, ``set_F.0.5`` -> ``set_F_0.5``); any other name as it is."""
    text = name.strip()
    pm = _TREC_PARAM_RE.match(text)
    if pm and pm.group(2) == "." and _trec_param_kind(pm):  # ndcg_1=3,2=9; 11pt_avg_.25,.5
        return f"{pm.group(1)}_{pm.group(3)}"
    m = _TREC_CUT_RE.match(text.lower())
    if m is None or text[len(m.group(1))] != ".":
        return name
    param = _trec_cut_param(_TREC_CUT_KIND[m.group(1)], text.lower(), m)
    if m.group(1) == "iprec_at_recall":
        param = f"{float(param):.2f}"
    return f"{text[:len(m.group(1))]}_{param}"


def _trec_gain_levels(levels: list[str], name: str) -> None:
    """Refuse the levels of a trec_eval gain map that trec_eval reads otherwise than we would:
    it ignores a pair whose level is not an integer written as digits with an optional sign
    (``valid_int`` in its gain_init.c: ``1.5=3`` and ``1 =3`` leave level 1 its linear gain),
    and gives its pseudo-levels -1 (retrieved, not in the qrels) and -2 (in the qrels,
    unjudged) their gain in the DCG but not in the ideal DCG, so that nDCG exceeds 1."""
    for text in levels:
        # trec_eval's valid_int: digits with a sign, no space (other pairs it ignores)
        if ascii_integer(text, spaces=False) is None:
            raise ValueError(
                f"{name!r}: level {text!r} is not an integer written as digits (no spaces, "
                "no fraction); trec_eval ignores such a pair and keeps the level's linear "
                "gain. Give integer levels"
            )
        level = float(text)
        if level < 0:
            raise ValueError(
                f"{name!r}: level {text.strip()} is not supported in trec_eval's gain map. "
                "trec_eval counts the gain of its pseudo-levels (-1: retrieved but not in the "
                "qrels, -2: unjudged) in the DCG but not in the ideal DCG, so nDCG can exceed 1; "
                "use nDCG(gains={...}) for the gains of negative qrels labels"
            )


def is_trec_gain_map(name: str) -> bool:
    """True for a name in trec_eval's ndcg gain-map syntax (``ndcg.1=3,2=9``), parsed by this
    module's own rule (:func:`_trec_param_kind`)."""
    pm = _TREC_PARAM_RE.match(name.strip()) if isinstance(name, str) else None
    return pm is not None and _trec_param_kind(pm) == "ndcg"


#: trec_eval 10 names that this grammar reads as another measure: ``rbp`` (``rbp.p=0.8``, ...)
#: is the core's RBP here, trec_eval's own RBP elsewhere (case-sensitive, as trec_eval reads
#: its names: ``RBP`` is ir_measures')
_TREC_EVAL_OTHER = re.compile(r"^rbp(?:\.(.*))?$")


def trec_eval_conflict(name: str) -> str | None:
    """Why a trec_eval name means another measure in this grammar (a sentence), or None.

    ``rbp``: trec_eval 10's rank-biased precision (m_rbp.c) takes p = 0.9 and divides each
    query's gains by the largest label of its qrels when that exceeds 1, reading two
    uninitialised variables while doing so (its number depends on the build); this grammar's
    ``rbp`` is Moffat & Zobel's with p = 0.8 and the label as the gain (ir_measures' ``RBP``).
    ``rankmetrics eval`` refuses the name, :func:`rankmetrics.trec.evaluate` warns.
    """
    tm = _TREC_EVAL_OTHER.match(name.strip()) if isinstance(name, str) else None
    if tm is None:
        return None
    given = re.search(r"(?:^|,)\s*p\s*=\s*([0-9.eE+-]+)", tm.group(1) or "")
    p = given.group(1) if given else "0.9"
    return (
        f"{name.strip()!r} is trec_eval 10's rbp, which takes p = {p} and divides each query's "
        "gains by the largest label of its qrels (reading two uninitialised variables in "
        "m_rbp.c, so its number depends on the build); rankmetrics' rbp is RBP(p=0.8) with the "
        f"label as the gain (ir_measures' RBP). Ask for RBP(p={p}) or RBP(p={p}, rel=1)"
    )


def trec_eval_family(name: str) -> list[str] | None:
    """The measures trec_eval's ``-m NAME`` prints for a bare family name that this grammar
    reads otherwise: ``P`` -> ``P_5`` ... ``P_1000``, ``recall`` -> ``recall_5`` ...
    ``recall_1000`` (trec_eval's default cutoffs, :data:`TREC_CUTOFFS`); None for any other
    name (the other families, ``ndcg_cut``, ``success``, ..., expand in :func:`parse_measure`
    everywhere). ``rankmetrics eval`` calls it; elsewhere ``P`` and ``recall`` are the whole
    retrieved list (trec_eval's ``set_P`` / ``set_recall``)."""
    return _TREC_EVAL_ONLY.get(name.strip().lower()) if isinstance(name, str) else None


#: trec_eval 10's measure table (``te_trec_measures``, the order of ``-m all_trec``'s output,
#: ``relstring`` as in its ``-q`` output): trec_eval prints the measures in this order, not
#: in the order of its ``-m`` options
TREC_EVAL_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
    "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map",
    "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj",
)


def trec_eval_position(printed: str) -> tuple[int, float]:
    """Sort key of a printed measure name (``P_10``, ``ndcg_cut_5``, ``map``, as
    :func:`trec_eval_spelling` gives them; case-sensitive, as trec_eval) in trec_eval's output
    order: its family's place in :data:`TREC_EVAL_ORDER` (the longest table name that is the
    name or its ``<name>_`` prefix: ``map_cut_10`` is ``map_cut``, not ``map``), then the
    cutoff or level, ascending as trec_eval sorts them (0 for a name without one or with a
    parameter list). A name trec_eval does not print (``nDCG@10``, ``ERR@20``) sorts after
    every one it prints."""
    best, where = -1, len(TREC_EVAL_ORDER)
    for i, family in enumerate(TREC_EVAL_ORDER):
        if len(family) > best and (printed == family or printed.startswith(family + "_")):
            best, where = len(family), i
    param = printed[best + 1:] if 0 <= best < len(printed) else ""
    try:
        value = float(param) if param else 0.0
    except ValueError:  # ndcg_1=3,2=9; 11pt_avg_.25,.5
        value = 0.0
    return where, value


def measure_items(names: Any, arg: str = "metrics") -> list[Any]:
    """``names`` as a list of its items: a string or measure object is one item, any other
    iterable gives its items (not yet parsed).

    Raises
    ------
    TypeError
        ``names`` is neither a string, a measure object nor an iterable (the message names
        ``arg``).
    """
    if isinstance(names, (str, Measure, bytes, bytearray)) or _is_ir_measures(names):
        # iterating an ir_measures measure raised KeyError: 0, bytes gave its ints (b"ndcg"
        # was refused as "got 110"): one item, which the parser refuses as itself
        return [names]
    try:
        return list(names)
    except TypeError:
        raise TypeError(
            f"{arg} must be a measure name, a Measure or an iterable of them; got {names!r}"
        ) from None


def parse_measures(names: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse measure names (a string, a measure object or an iterable of them); column names
    must be unique.

    Raises
    ------
    ValueError
        No measure, an unknown or malformed measure, or the same column twice.
    TypeError
        ``names`` or an item of it is neither a string nor a measure object.
    """
    items = measure_items(names)
    out = [m for item in items for m in parse_measure(item)]
    if not out:
        raise ValueError("metrics must name at least one measure, e.g. ['nDCG@10', 'AP']")
    seen: set[str] = set()
    for m in out:
        if m.name in seen:
            raise ValueError(f"measure {m.name!r} is given twice")
        seen.add(m.name)
    return out


def renamed(m: Measure, name: str) -> Measure:
    """``m`` with another column name."""
    return replace(m, name=name)


_AVG_POS = re.compile(r"^avg-(cg|dcg|ncg|ndcg)@(?:([0-9]+)-)?([0-9]+)$", re.IGNORECASE)


def parse_avg_pos(metric: str) -> tuple[str, int, int] | None:
    """``"avg-ndcg@100"`` -> ("ndcg", 1, 100); ``"avg-ncg@11-100"`` -> ("ncg", 11, 100).

    The analysis layer's vector names (``rankmetrics compare -m avg-ndcg@1-10``), parsed here
    with every other measure name.

    The per-query avg-pos (JK 2002 eq. 6) of a CG/DCG/nCG/nDCG vector over ranks start..k:
    the numbers JK 2002 Table 1 and TOIS Table 2 average and test. None for other names.

    Raises
    ------
    ValueError
        A range with start > k or a rank 0.
    TypeError
        ``metric`` not a string.

    Examples
    --------
    >>> parse_avg_pos("avg-nDCG@1-10"), parse_avg_pos("ndcg@10")
    (('ndcg', 1, 10), None)
    """
    if not isinstance(metric, str):  # 5 or a measure object: AttributeError 'strip'
        raise TypeError(f"metric must be a measure name (a string such as 'avg-ndcg@10'); "
                        f"got {metric!r}")
    m = _AVG_POS.match(metric.strip())
    if m is None:
        return None
    start, k = int(m.group(2) or 1), int(m.group(3))
    if not 1 <= start <= k <= MAX_CUTOFF:
        raise ValueError(f"{metric!r}: the rank range must satisfy 1 <= start <= k <= 2**62")
    return m.group(1).lower(), start, k


def option_measures(values: Iterable[str], *, ties: str = "average", trec_order: bool = False,
                    vectors: bool = False) -> tuple[list[str], list[str]]:
    """The measure names of a command line's ``-m`` options, as ``rankmetrics eval`` and
    ``rankmetrics compare`` read them (one grammar for both).

    Each option may list several names (:func:`split_measure_list`: ``P.5,10`` is ``P.5`` and
    ``P.10``); trec_eval's family names expand as trec_eval's ``-m`` does (``P`` ->
    ``P_5`` ... ``P_1000``, :func:`trec_eval_family`; ``ndcg_cut`` -> its members; ``all_trec``
    -> :data:`ALL_TREC`, ``official`` -> :data:`OFFICIAL_TREC`); a name asked for twice is
    kept once.

    Parameters
    ----------
    values : iterable of str
        The ``-m`` option values, in order.
    ties : str, default "average"
        The command's ``--ties``: with "average", a measure without an exact tie average
        (interpolated precision) raises, and ``all_trec`` and ``official`` leave those out.
    trec_order : bool, default False
        Order and deduplicate as trec_eval prints (its table's order; ``P.5`` and ``P_5`` are
        one line); else keep the order given, deduplicated by the names as given.
    vectors : bool, default False
        Also accept the analysis layer's ``avg-<curve>@[<start>-]<k>`` names
        (:func:`parse_avg_pos`).

    Returns
    -------
    names : list of str
        The measure names to evaluate.
    notes : list of str
        Sentences for the user (what ``all_trec`` or ``official`` leaves out), without a
        command prefix.

    Raises
    ------
    ValueError
        No name at all (``-m ''``), an unknown or malformed name, a trec_eval name this grammar
        reads as another measure (:func:`trec_eval_conflict`), or, with ``ties="average"``,
        interpolated precision.
    """
    values = list(values)
    out: list[str] = []
    notes: list[str] = []
    said: set[str] = set()  # all_trec / official given twice: expanded (and said) once
    for name in (m for v in values for m in split_measure_list(v)):
        if vectors and parse_avg_pos(name) is not None:
            out.append(name)
            continue
        conflict = trec_eval_conflict(name)  # -m rbp: trec_eval's own measure, refused
        if conflict is not None:
            raise ValueError(conflict)
        family = trec_eval_family(name)  # -m P / -m recall: trec_eval's P_5 ... P_1000
        if family is not None:
            out.extend(family)
            continue
        set_name = name.strip().lower()
        if set_name not in _TREC_SETS:
            members = parse_measure(name)  # ndcg_cut, success, ...: one line per member, so
            # that each sorts and is deduplicated among the other -m options' lines
            out.extend([m.name for m in members] if len(members) > 1 else [name])
            continue
        if set_name in said:
            continue
        said.add(set_name)
        full = _TREC_SETS[set_name]
        have = {TREC_EVAL_ORDER[trec_eval_position(trec_eval_spelling(n))[0]] for n in full}
        left = ("runid", "num_q", "gm_map") if set_name == "official" else TREC_EVAL_ORDER
        notes.append(f"{set_name} leaves out the trec_eval measures rankmetrics does not "
                     "compute: " + ", ".join(f for f in left if f not in have))
        keep = [n for n in full
                if ties != "average" or parse_measure(n)[0].kind not in ORDER_ONLY_KINDS]
        if len(keep) < len(full):
            gone = " and ".join(f for f in ("iprec_at_recall", "11pt_avg")
                                if any(n.startswith(f) for n in full))
            verb = "have" if " and " in gone else "has"
            notes.append(f"{set_name} without {gone}, which {verb} no exact tie average (add "
                         "--ties docno for trec_eval's order and all of them)")
        out.extend(keep)
    # a measure asked for twice is given once, as trec_eval prints it once; in trec_eval's
    # order also under two spellings of one line (P.5 and P_5; P and P.5), otherwise the
    # values are keyed by the names as given
    if not out:  # -m '' or -m ',': said in the option's words (the report's refusal was not)
        raise ValueError(f"-m names no measure; got {', '.join(map(repr, values))}")
    first: dict[str, str] = {}
    for name in out:
        first.setdefault(trec_eval_spelling(name) if trec_order else name, name)
    out = list(first.values())
    if trec_order:  # trec_eval prints its table's order, whatever the order of -m; names it
        # does not print follow, as given
        out.sort(key=lambda n: trec_eval_position(trec_eval_spelling(n)))
    if ties == "average":  # said in a command's words (the library names ties=)
        for name in out:
            if vectors and parse_avg_pos(name) is not None:
                continue
            m = parse_measure(name)[0]
            if m.kind in ORDER_ONLY_KINDS and m.ties in (None, "average"):
                raise ValueError(
                    f"{name!r} has no exact tie average (interpolated precision is a maximum "
                    "over ranks, not a sum): add --ties docno (trec_eval's order), stable, "
                    "optimistic or pessimistic"
                )
    return out, notes
