"""Conformance with literal test vectors taken from peer libraries' own tests.

``../shared/data/peer_vectors.json`` holds test vectors (inputs, parameters, expected value,
tolerance, the peer's semantics) copied from the unit tests and doctests of scikit-learn,
torchmetrics, xgboost, pytrec_eval, ir_measures, ranx and trectools.

Every vector is either

* **mapped**: translated into one or more rankmetrics calls with the peer's semantics
  (gain, discount, tie rule, empty-query convention) and checked within the vector's own
  tolerance (``test_peer_vector``, one test per vector, the vector id is the test id); or
* **classified** in :data:`CLASSIFIED` with the reason it cannot (yet) be expressed.

``test_every_vector_is_mapped_or_classified`` makes sure a vector added to the file is never
silently ignored.

How the peers' semantics are expressed:

* scikit-learn ``dcg_score``/``ndcg_score`` (and torchmetrics' ``retrieval_normalized_dcg``,
  which is tested against it): ``gain="linear"``, ``discount="log"``, ``ties="average"``
  (McSherry-Najork), 2-D input = one query per row. ``ignore_ties=True`` ranks by
  ``np.argsort(y_score)[::-1]``, i.e. tied rows in *reverse* input order: expressed by reversing
  the columns and ``ties="stable"``.
* xgboost ``ndcg``/``map``/``pre``: ties keep input order (``ties="stable"``), nDCG gain
  ``2**l - 1`` unless ``ndcg_exp_gain=false``; a query without relevant documents scores 1 for
  ``ndcg``/``map`` and 0 for the ``-`` variants (``empty=1.0`` / ``empty=0.0``).
* torchmetrics retrieval: nDCG with linear gain and tie averaging; the binary measures (AP, RR,
  P@k, R@k) are only compared on tie-free inputs (checked), since their tie rule is torch's sort.
* trec_eval (pytrec_eval, ir_measures' pytrec_eval provider): documents are ranked by score
  descending, ties broken by docno *descending*; expressed by ordering the rows that way and
  ``ties="stable"``. The reduction of a (qrels, run) pair to label/score arrays is exact:

  - a retrieved but unjudged document gets label 0 (gain 0, not relevant), a negative qrels label
    is clamped to 0 (trec_eval treats it as judged non-relevant with gain 0);
  - judged documents the run did not retrieve still count in ``R`` (recall, AP) and in the ideal
    DCG: they are appended *below* every retrieved document and the cut-off becomes
    ``min(k, n_retrieved)``, so they never enter the ranked list. For nDCG with a cut-off beyond
    the run length this is exact only when the ideal DCG does not change past ``n_retrieved``;
    the reduction asserts it;
  - P@k (and SetP) use the retrieved documents only: P@k divides by k, as in trec_eval.
* ranx: the run is an already ranked id list (strictly decreasing synthetic scores); relevance
  ``> 0`` is relevant (``threshold=1``); ``dcg``/``ndcg`` are linear (Järvelin), ``*_burges``
  exponential; AP@k divides by the total number of relevant documents (``denominator="relevant"``).
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _extras import shared_data_dir

import rankmetrics as rm

PEER_FILE = "peer_vectors.json"

LATER_TREC = "later issue: trec evaluation"
_SUCCESS = f"{LATER_TREC}: Success@k (hit rate) is not in the core API"
_RPREC = f"{LATER_TREC}: R-precision (P@R, R per query) is not in the core API"
_INPUT_FILES_MISSING = (
    f"{LATER_TREC}: the trectools run/qrels files it reads are not shipped in shared/data "
    "(trec_eval map/P/recall/recip_rank over whole files)"
)

# Vectors that are deliberately not mapped, with the reason. Reasons starting with LATER_TREC
# need qrels/run evaluation features beyond the core per-query API; they are to be mapped once
# ``rankmetrics.evaluate`` exists.
CLASSIFIED: dict[str, str] = {
    # --- scikit-learn
    "sklearn.test_ndcg_error_single_document": (
        "sklearn-only restriction: ndcg_score refuses a single document; the contract defines "
        "single-document queries (nDCG 1.0, or the empty value when the label is 0)"
    ),
    # --- torchmetrics
    "torchmetrics.doc.functional.r_precision": _RPREC,
    "torchmetrics.doc.class.RetrievalRPrecision": _RPREC,
    "torchmetrics.doc.functional.hit_rate@2": _SUCCESS,
    "torchmetrics.doc.class.RetrievalHitRate@2": _SUCCESS,
    "torchmetrics.test_map_all_zero_predictions_returns_zero": (
        "convention differs: torchmetrics (PR #3160) treats predictions <= 0 as not retrieved; "
        "rankmetrics only compares scores, so all three tied rows are ranked"
    ),
    "torchmetrics.test_mrr_all_zero_predictions_returns_zero": (
        "convention differs: torchmetrics (PR #3160) treats predictions <= 0 as not retrieved; "
        "rankmetrics only compares scores, so all three tied rows are ranked"
    ),
    "torchmetrics.test_precision_all_zero_predictions_returns_zero": (
        "convention differs: torchmetrics (PR #3160) treats predictions <= 0 as not retrieved; "
        "rankmetrics only compares scores, so all three tied rows are ranked"
    ),
    "torchmetrics.test_recall_all_zero_predictions_returns_zero": (
        "convention differs: torchmetrics (PR #3160) treats predictions <= 0 as not retrieved; "
        "rankmetrics only compares scores, so all three tied rows are ranked"
    ),
    # --- xgboost
    "xgboost.empty_input_conventions": (
        "convention differs: xgboost scores an empty input (no rows at all) 1 or 0; the contract "
        "raises ValueError on empty input. The per-query empty convention (empty=1.0 for "
        "ndcg/map) is exercised by xgboost.map.groups"
    ),
    # --- pytrec_eval
    "pytrec_eval.ndcg.q2_judged_docs_only": (
        f"{LATER_TREC}: judged_docs_only_flag drops unjudged retrieved documents (needs qrels)"
    ),
    # --- ir_measures (pytrec_eval provider)
    "ir_measures.pytrec_eval_provider.Success@2": _SUCCESS,
    "ir_measures.pytrec_eval_provider.Success(rel=2)@2": _SUCCESS,
    "ir_measures.pytrec_eval_provider.Success(rel=3)@2": _SUCCESS,
    "ir_measures.pytrec_eval_provider.nDCG(gains={0:1,1:4})": (
        f"{LATER_TREC}: custom trec_eval gains give judged level 0 gain 1 while unjudged "
        "documents keep gain 0, which is not a function of a label column (needs qrels)"
    ),
    "ir_measures.pytrec_eval_provider.P(judged_only=True)@4": (
        f"{LATER_TREC}: judged_only drops unjudged retrieved documents (needs qrels)"
    ),
    # --- ir_measures (ranx provider)
    "ir_measures.ranx_provider.Success@10": _SUCCESS,
    "ir_measures.ranx_provider.Success(rel=2)@10": _SUCCESS,
    "ir_measures.ranx_provider.Success@2": _SUCCESS,
    "ir_measures.ranx_provider.Success(rel=2)@2": _SUCCESS,
    "ir_measures.ranx_provider.NumRet(rel=1)": (
        f"{LATER_TREC}: NumRet(rel) (number of relevant retrieved) is not in the core API"
    ),
    "ir_measures.ranx_provider.Rprec": _RPREC,
    "ir_measures.ranx_provider.Rprec(rel=2)": _RPREC,
    # --- ranx
    "ranx.hits_single@5": (
        f"{LATER_TREC}: hits@k (number of relevant in the top k) is not in the core API"
    ),
    "ranx.r_precision_single": _RPREC,
    # --- trectools (the inputs are files that are not part of shared/data)
    "trectools.r4.rr": _INPUT_FILES_MISSING,
    "trectools.r4.map": _INPUT_FILES_MISSING,
    "trectools.r4.P@1000": _INPUT_FILES_MISSING,
    "trectools.r4.recall@1000": _INPUT_FILES_MISSING,
    "trectools.uic0301.rr": _INPUT_FILES_MISSING,
    "trectools.uic0301.rr.per_query": _INPUT_FILES_MISSING,
    "trectools.uic0301.map": _INPUT_FILES_MISSING,
    "trectools.uic0301.map.per_query": _INPUT_FILES_MISSING,
    "trectools.uic0301.P@1000": _INPUT_FILES_MISSING,
    "trectools.uic0301.P@30.per_query": _INPUT_FILES_MISSING,
    "trectools.uic0301.recall@k": _INPUT_FILES_MISSING,
    "trectools.uic0301.recall@30.per_query": _INPUT_FILES_MISSING,
}

# Minimum number of mapped vectors per peer (the counts when this module was written); a drop
# means vectors were reclassified or the file lost vectors. Every peer in the file must appear.
MIN_MAPPED: dict[str, int] = {
    "scikit-learn": 32,
    "torchmetrics": 14,
    "xgboost": 19,
    "pytrec_eval": 10,
    "ir_measures": 35,
    "ranx": 15,
    "trectools": 0,
}

# Every DCG/nDCG vector of these peers must be mapped, except the ones listed here.
CORE_PEERS = ("scikit-learn", "xgboost", "torchmetrics")
CORE_GAIN_METRICS = ("dcg", "ndcg", "dcg_per_query", "ndcg_per_query")
CORE_GAIN_EXCEPTIONS = frozenset({"sklearn.test_ndcg_error_single_document"})


# ---------------------------------------------------------------------------------------------
# Loading


@lru_cache(maxsize=4)
def _load(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _vectors(data_dir: Path) -> list[dict[str, Any]]:
    return list(_load(data_dir / PEER_FILE)["vectors"])


def peer_of(vector: dict[str, Any]) -> str:
    """Short peer name: the first word of the source project ("scikit-learn", "xgboost", ...)."""
    return str(vector["source"]["project"]).split(" ")[0]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # Collection needs the vector ids; shared_data_dir() fails loudly (never skips) when the
    # shared data folder is missing, exactly like the ``shared_data`` fixture.
    if "vector_id" in metafunc.fixturenames:
        ids = [v["id"] for v in _vectors(shared_data_dir()) if v["id"] not in CLASSIFIED]
        metafunc.parametrize("vector_id", ids, ids=ids)


@pytest.fixture(scope="module")
def peer_vectors(shared_data: Path) -> dict[str, dict[str, Any]]:
    path = shared_data / PEER_FILE
    if not path.is_file():
        pytest.fail(f"{path} is missing from the shared conformance data")
    return {v["id"]: v for v in _vectors(shared_data)}


# ---------------------------------------------------------------------------------------------
# Checks: a vector maps to one or more checks, each one or more rankmetrics calls


class NotExpressible(AssertionError):
    """The mapping's exactness precondition does not hold for this vector."""


@dataclass
class Call:
    """``rankmetrics.<func>(y_true, y_score, qid, **kwargs)``, optionally one query of it."""

    func: str
    y_true: np.ndarray
    y_score: np.ndarray
    qid: np.ndarray | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)
    pick: int | None = None

    def __call__(self) -> Any:
        out = getattr(rm, self.func)(self.y_true, self.y_score, self.qid, **self.kwargs)
        return out if self.pick is None else out[self.pick]

    def __str__(self) -> str:
        def fmt(a: Any) -> str:
            return np.array2string(np.asarray(a), separator=", ", threshold=60)

        args = [f"y_true={fmt(self.y_true)}", f"y_score={fmt(self.y_score)}"]
        if self.qid is not None:
            args.append(f"qid={fmt(self.qid)}")
        args += [f"{k}={v!r}" for k, v in self.kwargs.items()]
        pick = "" if self.pick is None else f"[{self.pick}]"
        return f"rankmetrics.{self.func}({', '.join(args)}){pick}"


@dataclass
class Check:
    """``combine([call() for call in calls])`` must equal ``expected`` within ``tol``."""

    label: str
    calls: list[Call]
    expected: Any
    tol: float = 0.0
    combine: Callable[[list[Any]], Any] | None = None
    raises: type[Exception] | None = None

    def got(self) -> Any:
        values = [c() for c in self.calls]
        return values[0] if self.combine is None else self.combine(values)


def _mean(values: list[Any]) -> float:
    return math.fsum(float(v) for v in values) / len(values)


def _as_list(values: list[Any]) -> list[float]:
    return [float(v) for v in values]


def _tolerance(vector: dict[str, Any]) -> float:
    return float(vector.get("tolerance") or 0.0)


def _close(got: Any, expected: Any, tol: float) -> bool:
    g = np.asarray(got, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    if g.shape != e.shape:
        return False
    # On top of the vector's tolerance, allow a few ulps: a tolerance of 0 means "exact in the
    # peer's own arithmetic", and rankmetrics may sum in a different order.
    allowed = tol + 8 * np.finfo(np.float64).eps * np.maximum(1.0, np.abs(e))
    return bool(np.all(np.abs(g - e) <= allowed))


def _require_tie_free(scores: np.ndarray, qid: np.ndarray | None, why: str) -> None:
    groups = [scores] if qid is None else [scores[qid == q] for q in np.unique(qid)]
    for s in groups:
        if np.unique(s).size != s.size:
            raise NotExpressible(f"tied scores {s.tolist()}: {why}")


# ---------------------------------------------------------------------------------------------
# scikit-learn / torchmetrics 2-D inputs ("matrix"): one query per row


def _map_matrix(v: dict[str, Any]) -> list[Check]:
    p = v["params"]
    y_true = np.asarray(v["inputs"]["y_true"])
    y_score = np.asarray(v["inputs"]["y_score"], dtype=np.float64)
    metric = v["metric"]
    base = metric.removesuffix("_per_query")
    if base not in ("dcg", "ndcg"):
        raise KeyError(f"no mapping for matrix metric {metric!r}")
    kwargs: dict[str, Any] = {"gain": "linear", "discount": "log", "ties": "average"}
    if p.get("k") is not None:
        kwargs["k"] = p["k"]
    if p.get("log_base") is not None:
        kwargs["log_base"] = p["log_base"]
    if p.get("ignore_ties"):
        # np.argsort(y_score)[::-1]: tied rows in reverse input order.
        y_true, y_score = y_true[:, ::-1], y_score[:, ::-1]
        kwargs["ties"] = "stable"
    if base == "ndcg":
        kwargs["empty"] = 0.0  # sklearn: a row whose ideal DCG is 0 scores 0
    func = base if metric.endswith("_per_query") else f"{base}_score"
    call = Call(func, y_true, y_score, None, kwargs)
    if v.get("expected_error"):
        return [Check(metric, [call], None, raises=_exception(v["expected_error"]))]
    return [Check(metric, [call], v["expected"], _tolerance(v))]


def _exception(name: str) -> type[Exception]:
    return {"ValueError": ValueError, "TypeError": TypeError}[name]


# ---------------------------------------------------------------------------------------------
# torchmetrics retrieval (preds, target, indexes): per query, then the mean


_TORCH_BINARY = {
    "ap": "mean_average_precision_score",
    "rr": "reciprocal_rank_score",
    "precision": "mean_precision_score",
    "recall": "mean_recall_score",
}


def _map_torch_grouped(v: dict[str, Any]) -> list[Check]:
    p = v["params"]
    inp = v["inputs"]
    preds = np.asarray(inp["preds"], dtype=np.float64)
    target = np.asarray(inp["target"])
    qid = np.asarray(inp["indexes"])
    metric = v["metric"]
    tol = _tolerance(v)
    k = {} if p.get("k") is None else {"k": p["k"]}
    if metric == "ndcg":
        kwargs = {"gain": "linear", "discount": "log", "ties": "average", "empty": 0.0, **k}
        return [Check(metric, [Call("ndcg_score", target, preds, qid, kwargs)], v["expected"], tol)]
    _require_tie_free(preds, qid, "torchmetrics' binary measures follow torch's sort order")
    if metric in _TORCH_BINARY:
        kwargs = {"threshold": 1, "ties": "average", "empty": 0.0, **k}
        call = Call(_TORCH_BINARY[metric], target, preds, qid, kwargs)
        return [Check(metric, [call], v["expected"], tol)]
    if metric == "precision_recall_at_k_curve":
        ks = list(range(1, p["max_k"] + 1))
        exp = v["expected"]
        assert exp["k"] == ks, exp["k"]
        checks = []
        for name, func in (("precision@k", "mean_precision_score"),
                           ("recall@k", "mean_recall_score")):
            calls = [
                Call(func, target, preds, qid, {"k": kk, "threshold": 1, "ties": "average"})
                for kk in ks
            ]
            checks.append(Check(name, calls, exp[name], tol, combine=_as_list))
        return checks
    raise KeyError(f"no mapping for torchmetrics metric {metric!r}")


# ---------------------------------------------------------------------------------------------
# xgboost GetMetricEval(metric, preds, labels, group_ptr)


def _map_xgboost(v: dict[str, Any]) -> list[Check]:
    p = v["params"]
    inp = v["inputs"]
    preds = np.asarray(inp["preds"], dtype=np.float64)
    labels = np.asarray(inp["labels"])
    qid = None
    if inp.get("group_ptr") is not None:
        ptr = np.asarray(inp["group_ptr"])
        qid = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    name = p["xgb_name"]
    base = name.partition("@")[0]
    minus = base.endswith("-")
    kwargs: dict[str, Any] = {"ties": "stable"}
    if p.get("k") is not None:
        kwargs["k"] = p["k"]
    metric = v["metric"]
    if metric == "ndcg":
        func = "ndcg_score"
        kwargs["gain"] = "exponential" if p.get("ndcg_exp_gain", True) else "linear"
        kwargs["discount"] = "log"
        kwargs["empty"] = 0.0 if (minus or p.get("no_relevant_scores_zero")) else 1.0
    elif metric == "ap":
        func = "mean_average_precision_score"
        kwargs["empty"] = 0.0 if (minus or p.get("no_relevant_scores_zero")) else 1.0
    elif metric == "precision":
        func = "mean_precision_score"
        kwargs["empty"] = 0.0  # no relevant document: no hit in the top k
    else:
        raise KeyError(f"no mapping for xgboost metric {metric!r}")
    return [Check(name, [Call(func, labels, preds, qid, kwargs)], v["expected"], _tolerance(v))]


# ---------------------------------------------------------------------------------------------
# trec_eval-style (qrels, run) -> label/score arrays


@dataclass
class TrecQuery:
    """One query of a (qrels, run) pair, rows in trec_eval order, unretrieved judged docs last."""

    labels: np.ndarray  # retrieved rows first (trec_eval order), then judged-but-unretrieved
    scores: np.ndarray
    n_run: int  # number of retrieved rows

    @property
    def n_extra(self) -> int:
        return self.labels.size - self.n_run


def _trec_query(qrels: dict[str, int], run: dict[str, float]) -> TrecQuery:
    if not run:
        raise NotExpressible("the run retrieved nothing for this query")
    # score descending, ties by docno descending (strcmp); the stable sort keeps the docno order.
    by_docno = sorted(run.items(), key=lambda kv: kv[0], reverse=True)
    ranked = sorted(by_docno, key=lambda kv: -kv[1])
    labels = [max(int(qrels.get(doc, 0)), 0) for doc, _ in ranked]  # unjudged / negative -> 0
    scores = [float(s) for _, s in ranked]
    extra = [max(int(lvl), 0) for doc, lvl in sorted(qrels.items()) if doc not in run]
    below = min(scores) - 1.0
    return TrecQuery(
        labels=np.asarray(labels + extra, dtype=np.int64),
        scores=np.asarray(scores + [below] * len(extra), dtype=np.float64),
        n_run=len(ranked),
    )


# measures that only look at the retrieved rows (they do not depend on R or on the ideal)
_RUN_ONLY = frozenset({"precision", "dcg"})


def _trec_call(tq: TrecQuery, func: str, k: int | None, **kwargs: Any) -> Call:
    """Call ``func`` at cut-off ``k`` on one reduced query, exactly as the peer defines it."""
    kwargs = {"ties": "stable", **kwargs}
    if func in _RUN_ONLY or tq.n_extra == 0:
        n = tq.n_run if func in _RUN_ONLY else tq.labels.size
        return Call(func, tq.labels[:n], tq.scores[:n], None, {"k": k, **kwargs}, pick=0)
    k_eff = tq.n_run if k is None else min(k, tq.n_run)
    if func == "ndcg" and (k is None or k > tq.n_run):
        # The ideal is cut at k_eff instead of k: only exact when it has no gain past k_eff.
        n_positive = int(np.count_nonzero(tq.labels > 0))
        if n_positive > k_eff:
            raise NotExpressible(
                f"nDCG@{k} of a run with {tq.n_run} rows and {n_positive} judged positive docs"
            )
    return Call(func, tq.labels, tq.scores, None, {"k": k_eff, **kwargs}, pick=0)


def _map_pytrec_eval(v: dict[str, Any]) -> list[Check]:
    p = v["params"]
    if p.get("judged_docs_only_flag"):
        raise NotExpressible("judged_docs_only_flag needs qrels-aware evaluation")
    inp = v["inputs"]
    query = inp["query"]
    tq = _trec_query(inp["qrels"][query], inp["run"][query])
    metric = v["metric"]
    m = re.fullmatch(r"ndcg(?:_cut_(\d+))?", metric)
    if m is None:
        raise KeyError(f"no mapping for pytrec_eval measure {metric!r}")
    k = None if m.group(1) is None else int(m.group(1))
    call = _trec_call(tq, "ndcg", k, gain="linear", discount="log", empty=0.0)
    return [Check(f"{metric}[{query}]", [call], v["expected"], _tolerance(v))]


# ---------------------------------------------------------------------------------------------
# ir_measures (TREC text qrels/run, measure strings like "AP(rel=2)@10")


def _parse_trec_text(qrels_text: str, run_text: str) -> tuple[dict, dict]:
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_text.splitlines():
        if line.strip():
            q, _, doc, lvl = line.split()
            qrels.setdefault(q, {})[doc] = int(lvl)
    run: dict[str, dict[str, float]] = {}
    for line in run_text.splitlines():
        if line.strip():
            q, _, doc, _rank, score, _tag = line.split()  # the rank column is ignored
            run.setdefault(q, {})[doc] = float(score)
    return qrels, run


def _parse_measure(text: str) -> tuple[str, dict[str, Any], int | None]:
    m = re.fullmatch(r"(\w+)(?:\((.*)\))?(?:@(\d+))?", text)
    if m is None:
        raise KeyError(f"cannot parse ir_measures measure {text!r}")
    params: dict[str, Any] = {}
    if m.group(2):
        for part in m.group(2).split(","):
            key, _, value = part.partition("=")
            params[key.strip()] = ast.literal_eval(value.strip())
    return m.group(1), params, None if m.group(3) is None else int(m.group(3))


def _ir_measures_call(name: str, params: dict[str, Any], k: int | None, tq: TrecQuery) -> Call:
    unknown = set(params) - {"rel", "dcg"}
    if unknown:
        raise NotExpressible(f"{name} parameters {sorted(unknown)} need qrels-aware evaluation")
    binary = {"threshold": int(params.get("rel", 1)), "empty": 0.0}
    if name in ("P", "SetP"):
        return _trec_call(tq, "precision", k if name == "P" else None, **binary)
    if name in ("R", "SetR"):
        return _trec_call(tq, "recall", k if name == "R" else None, **binary)
    if name == "RR":
        return _trec_call(tq, "reciprocal_rank", k, **binary)
    if name == "AP":
        return _trec_call(tq, "average_precision", k, denominator="relevant", **binary)
    if name == "nDCG":
        gain = {"exp-log2": "exponential"}.get(params.get("dcg", ""), "linear")
        return _trec_call(tq, "ndcg", k, gain=gain, discount="log", empty=0.0)
    raise KeyError(f"no mapping for ir_measures measure {name!r}")


def _map_ir_measures(v: dict[str, Any]) -> list[Check]:
    p = v["params"]
    qrels, run = _parse_trec_text(v["inputs"]["qrels"], v["inputs"]["run"])
    name, params, k = _parse_measure(p["ir_measures_measure"])
    tol = _tolerance(v)
    exp = v["expected"]
    calls = []
    checks = []
    for q, value in exp["per_query"].items():
        if p["provider"] == "ranx":
            _require_tie_free(np.asarray(list(run[q].values())), None, "ranx's own tie rule")
        elif p["provider"] != "pytrec_eval":
            raise KeyError(f"no mapping for ir_measures provider {p['provider']!r}")
        call = _ir_measures_call(name, params, k, _trec_query(qrels.get(q, {}), run[q]))
        calls.append(call)
        checks.append(Check(f"query {q}", [call], value, tol))
    if exp.get("aggregate") is not None:
        checks.append(Check("aggregate (mean over queries)", calls, exp["aggregate"], tol, _mean))
    return checks


# ---------------------------------------------------------------------------------------------
# ranx low level: y_pred is an already ranked list of ids


_RANX = {
    "dcg": ("dcg", {"gain": "linear", "discount": "log"}),
    "ndcg": ("ndcg", {"gain": "linear", "discount": "log", "empty": 0.0}),
    "dcg_burges": ("dcg", {"gain": "exponential", "discount": "log"}),
    "ndcg_burges": ("ndcg", {"gain": "exponential", "discount": "log", "empty": 0.0}),
    "rr": ("reciprocal_rank", {"threshold": 1, "empty": 0.0}),
    "recall": ("recall", {"threshold": 1, "empty": 0.0}),
    "precision": ("precision", {"threshold": 1, "empty": 0.0}),
    "ap": ("average_precision", {"threshold": 1, "empty": 0.0, "denominator": "relevant"}),
}


def _map_ranx(v: dict[str, Any]) -> list[Check]:
    metric = v["metric"]
    if metric not in _RANX:
        raise KeyError(f"no mapping for ranx metric {metric!r}")
    inp = v["inputs"]
    qrels = {str(doc): int(rel) for doc, rel in inp["y_true"]}
    ranked = [str(doc) for doc in inp["y_pred_ranked_ids"]]
    run = {doc: float(len(ranked) - i) for i, doc in enumerate(ranked)}  # list order = rank
    func, kwargs = _RANX[metric]
    call = _trec_call(_trec_query(qrels, run), func, v["params"].get("k"), **kwargs)
    return [Check(f"{metric}@{v['params'].get('k')}", [call], v["expected"], _tolerance(v))]


# ---------------------------------------------------------------------------------------------


_MAPPERS: dict[tuple[str, str], Callable[[dict[str, Any]], list[Check]]] = {
    ("scikit-learn", "matrix"): _map_matrix,
    ("torchmetrics", "matrix"): _map_matrix,
    ("torchmetrics", "grouped"): _map_torch_grouped,
    ("xgboost", "grouped_ptr"): _map_xgboost,
    ("pytrec_eval", "pytrec_eval_dicts"): _map_pytrec_eval,
    ("ir_measures", "trec_text"): _map_ir_measures,
    ("ranx", "ranx_ranked_ids"): _map_ranx,
}


def checks_for(vector: dict[str, Any]) -> list[Check]:
    """The rankmetrics checks of one vector; raises when the vector cannot be mapped."""
    key = (peer_of(vector), vector["kind"])
    if key not in _MAPPERS:
        raise KeyError(f"no mapping for peer/kind {key}")
    checks = _MAPPERS[key](vector)
    if not checks:
        raise KeyError("the mapping produced no check")
    return checks


# ---------------------------------------------------------------------------------------------
# Tests


def test_peer_vector(vector_id: str, peer_vectors: dict[str, dict[str, Any]]) -> None:
    vector = peer_vectors[vector_id]
    source = vector["source"]
    where = f"{vector_id} ({source['project']}, {source['file']}: {source['where']})"
    failures = []
    for check in checks_for(vector):
        calls = "\n    ".join(str(c) for c in check.calls)
        if check.raises is not None:
            with pytest.raises(check.raises):
                check.got()
            continue
        got = check.got()
        if not _close(got, check.expected, check.tol):
            failures.append(
                f"  {check.label}: expected {check.expected!r} (tol {check.tol:g}), "
                f"got {np.asarray(got).tolist()!r}\n    {calls}"
            )
    assert not failures, f"{where}\n  semantics: {vector['semantics']}\n" + "\n".join(failures)


def test_every_vector_is_mapped_or_classified(peer_vectors: dict[str, dict[str, Any]]) -> None:
    stale = sorted(set(CLASSIFIED) - set(peer_vectors))
    assert not stale, f"CLASSIFIED names vectors that are not in {PEER_FILE}: {stale}"
    problems = []
    for vid, vector in peer_vectors.items():
        if vid in CLASSIFIED:
            if not CLASSIFIED[vid].strip():
                problems.append(f"{vid}: empty reason")
            continue
        try:
            checks_for(vector)
        except (KeyError, NotExpressible) as exc:
            problems.append(f"{vid}: neither classified nor mappable ({exc})")
    assert not problems, "\n".join(problems)


def _mapped_by_peer(peer_vectors: dict[str, dict[str, Any]]) -> Counter[str]:
    return Counter(peer_of(v) for vid, v in peer_vectors.items() if vid not in CLASSIFIED)


def test_minimum_mapped_per_peer(peer_vectors: dict[str, dict[str, Any]]) -> None:
    peers = {peer_of(v) for v in peer_vectors.values()}
    assert peers <= set(MIN_MAPPED), f"new peer(s) without a minimum: {peers - set(MIN_MAPPED)}"
    mapped = _mapped_by_peer(peer_vectors)
    low = {p: (mapped[p], n) for p, n in MIN_MAPPED.items() if mapped[p] < n}
    assert not low, f"fewer mapped vectors than required (mapped, minimum): {low}"


def test_core_peers_gain_vectors_are_mapped(peer_vectors: dict[str, dict[str, Any]]) -> None:
    core = [
        vid
        for vid, v in peer_vectors.items()
        if peer_of(v) in CORE_PEERS and v["metric"] in CORE_GAIN_METRICS
    ]
    unmapped = sorted(vid for vid in core if vid in CLASSIFIED and vid not in CORE_GAIN_EXCEPTIONS)
    assert not unmapped, f"DCG/nDCG vectors of {CORE_PEERS} must be mapped: {unmapped}"
    for peer in CORE_PEERS:
        assert any(peer_of(peer_vectors[vid]) == peer for vid in core), f"no DCG/nDCG for {peer}"
