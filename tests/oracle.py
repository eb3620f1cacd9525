"""Brute-force reference implementation of the rankmetrics measures (test-only).

This module is deliberately independent of :mod:`rankmetrics`: it never imports it. For one
query it enumerates *every* ordering of the rows that is consistent with the scores (distinct
scores descending, every permutation of each tie group, the cartesian product of those), computes
the plain textbook measure on each concrete ordering, and reports

* ``mean``: the McSherry-Najork (2008) tie-aware value (average over all orderings),
* ``max`` / ``min``: the optimistic / pessimistic values,
* ``stable``: the value of the ordering that keeps tied rows in input order.

Everything is defined from first principles on a concrete ranking ``v_1, ..., v_n``:

* gain ``G(l)``: ``2**l - 1`` ("exponential"), ``l`` ("linear"), ``weights[l]`` (sequence),
  ``mapping[l]`` (mapping) or ``f(labels)`` (callable);
* discount ``D(i)`` of the 1-based rank ``i``: ``1/log_b(i+1)`` ("log"), ``1`` for ``i < b`` and
  ``1/log_b(i)`` otherwise ("jarvelin2002"), ``1/(1+log_b(i))`` ("jarvelin2008"), ``1`` ("none"),
  or ``f(ranks)`` (callable);
* ``CG@k = sum_{i<=k} G(v_i)``, ``DCG@k = sum_{i<=k} G(v_i) D(i)``; nCG/nDCG divide by the same
  quantity for the ideal ranking (all rows of the query sorted by gain, descending, cut at k);
* with ``rel(v) = label(v) >= threshold`` and ``R`` the number of relevant rows:
  ``P@k = c/k`` (``c`` = relevant in the top k; ``k`` is the divisor even for shorter lists),
  ``R@k = c/R``, ``F_beta = (1+b^2) P R / (b^2 P + R)`` (0 when ``P = R = 0``),
  ``AP@k = (1/denominator) sum_{i<=k, rel(v_i)} P@i`` with denominator ``R`` or ``min(k, R)``,
  ``RR@k = 1/i`` for the first relevant rank ``i <= k``, else 0.
* ``k=None`` means the whole list. Queries without a relevant row (binary measures) or with zero
  ideal gain at the cut-off (nCG/nDCG) get the ``empty`` value: a float, ``"skip"`` (NaN) or
  ``"error"`` (ValueError).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

MAX_ORDERINGS = 20_000

GAIN_METRICS = ("cg", "dcg", "ncg", "ndcg")
BINARY_METRICS = (
    "precision",
    "recall",
    "f1",
    "fbeta",
    "average_precision",
    "reciprocal_rank",
)
SCALAR_METRICS = GAIN_METRICS + BINARY_METRICS
CURVES = ("cg_curve", "dcg_curve", "ncg_curve", "ndcg_curve")
IDEAL_CURVES = ("ideal_cg_curve", "ideal_dcg_curve")
TIE_MODES = ("average", "optimistic", "pessimistic", "stable")

# Parameters each measure accepts, with the contract's defaults.
_DEFAULTS: dict[str, dict[str, Any]] = {
    "cg": {"k": None, "gain": "exponential"},
    "dcg": {"k": None, "gain": "exponential", "discount": "log", "log_base": 2},
    "ncg": {"k": None, "gain": "exponential", "empty": 0.0},
    "ndcg": {"k": None, "gain": "exponential", "discount": "log", "log_base": 2, "empty": 0.0},
    "precision": {"k": None, "threshold": 1, "empty": 0.0},
    "recall": {"k": None, "threshold": 1, "empty": 0.0},
    "f1": {"k": None, "threshold": 1, "empty": 0.0},
    "fbeta": {"k": None, "threshold": 1, "empty": 0.0, "beta": 1.0},
    "average_precision": {"k": None, "threshold": 1, "empty": 0.0, "denominator": "relevant"},
    "reciprocal_rank": {"k": None, "threshold": 1, "empty": 0.0},
    "cg_curve": {"depth": None, "gain": "exponential"},
    "dcg_curve": {"depth": None, "gain": "exponential", "discount": "log", "log_base": 2},
    "ncg_curve": {"depth": None, "gain": "exponential", "empty": 0.0},
    "ndcg_curve": {
        "depth": None,
        "gain": "exponential",
        "discount": "log",
        "log_base": 2,
        "empty": 0.0,
    },
    "ideal_cg_curve": {"depth": None, "gain": "exponential"},
    "ideal_dcg_curve": {"depth": None, "gain": "exponential", "discount": "log", "log_base": 2},
}


@dataclass(frozen=True)
class TieSummary:
    """Value of a measure over all score-consistent orderings of one query."""

    mean: Any
    max: Any
    min: Any
    stable: Any
    n_orderings: int

    def for_ties(self, ties: str) -> Any:
        """The value a ``ties=...`` mode must produce."""
        return {
            "average": self.mean,
            "optimistic": self.max,
            "pessimistic": self.min,
            "stable": self.stable,
        }[ties]


# --------------------------------------------------------------------------------------------
# orderings


def orderings(scores: Any) -> np.ndarray:
    """All orderings consistent with ``scores``: int array (n_orderings, n) of row indices."""
    values = tuple(float(s) for s in np.asarray(scores, dtype=np.float64).ravel())
    return _orderings(values).copy()


@lru_cache(maxsize=2048)
def _orderings(scores: tuple[float, ...]) -> np.ndarray:
    groups = []
    for value in sorted(set(scores), reverse=True):
        groups.append([i for i, s in enumerate(scores) if s == value])
    count = math.prod(math.factorial(len(g)) for g in groups)
    assert count <= MAX_ORDERINGS, f"{count} orderings: input too large for the oracle"
    per_group = [list(itertools.permutations(g)) for g in groups]
    rows = [sum(choice, ()) for choice in itertools.product(*per_group)]
    assert len(rows) == count
    out = np.array(rows, dtype=np.int64).reshape(count, len(scores))
    out.flags.writeable = False
    return out


def stable_ordering(scores: Any) -> np.ndarray:
    """Scores descending, tied rows kept in input order (Python's sort is stable)."""
    values = [float(s) for s in np.asarray(scores, dtype=np.float64).ravel()]
    return np.array(sorted(range(len(values)), key=lambda i: -values[i]), dtype=np.int64)


# --------------------------------------------------------------------------------------------
# gains and discounts


def _is_integral(x: float) -> bool:
    return float(x).is_integer()


def gain_values(labels: Any, gain: Any) -> np.ndarray:
    """Gain of every label (float64)."""
    labels = np.asarray(labels, dtype=np.float64)
    if callable(gain):
        return np.asarray(gain(labels.copy()), dtype=np.float64).reshape(labels.shape)
    if isinstance(gain, str):
        if gain == "exponential":
            if not all(_is_integral(x) for x in labels):
                raise ValueError("exponential gain needs integer labels")
            return np.array([2.0**x - 1.0 for x in labels], dtype=np.float64)
        if gain == "linear":
            return labels.copy()
        raise ValueError(f"unknown gain {gain!r}")
    if isinstance(gain, Mapping):
        return np.array(
            [float(gain[int(x)] if _is_integral(x) else gain[x]) for x in labels],
            dtype=np.float64,
        )
    # sequence of per-level weights
    if not all(_is_integral(x) for x in labels):
        raise ValueError("level weights need integer labels")
    weights = list(gain)
    return np.array([float(weights[int(x)]) for x in labels], dtype=np.float64)


def discount_values(n: int, discount: Any, log_base: float) -> np.ndarray:
    """Discount of ranks 1..n (float64)."""
    if n == 0:
        return np.zeros(0)
    if callable(discount):
        ranks = np.arange(1, n + 1, dtype=np.int64)
        return np.asarray(discount(ranks), dtype=np.float64).reshape(n)
    b = float(log_base)
    out = []
    for i in range(1, n + 1):
        if discount == "log":
            d = 1.0 / (math.log(i + 1) / math.log(b))
        elif discount == "jarvelin2002":
            d = 1.0 if i < b else 1.0 / (math.log(i) / math.log(b))
        elif discount == "jarvelin2008":
            d = 1.0 / (1.0 + math.log(i) / math.log(b))
        elif discount == "none":
            d = 1.0
        else:
            raise ValueError(f"unknown discount {discount!r}")
        out.append(d)
    return np.array(out, dtype=np.float64)


# --------------------------------------------------------------------------------------------
# measures on concrete orderings (one row of `ranked` = one ranking of the query)


def _empty_value(empty: Any) -> float:
    if isinstance(empty, str):
        if empty == "skip":
            return math.nan
        if empty == "error":
            raise ValueError("query without relevant documents and empty='error'")
        raise ValueError(f"unknown empty rule {empty!r}")
    return float(empty)


def _cut(k: int | None, n: int) -> tuple[int, int]:
    """(nominal k, number of ranks actually inside the cut-off)."""
    if k is None:
        return n, n
    assert isinstance(k, int) and k >= 1
    return k, min(k, n)


def _measure(metric: str, labels: np.ndarray, ranked: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """Measure for each ordering in ``ranked`` (int (m, n)): shape (m,) or (m, depth)."""
    n = labels.shape[0]
    m = ranked.shape[0]

    if metric in GAIN_METRICS or metric in CURVES or metric in IDEAL_CURVES:
        gains = gain_values(labels, p["gain"])
        ranked_gain = gains[ranked]  # (m, n)
        ideal_gain = np.array(sorted(gains.tolist(), reverse=True), dtype=np.float64)
        uses_discount = metric.startswith(("dcg", "ndcg", "ideal_dcg"))
        if metric in CURVES or metric in IDEAL_CURVES:
            depth = p["depth"]
            assert isinstance(depth, int) and depth >= 1
            span = max(depth, n)
        else:
            span = n
        disc = discount_values(span, p["discount"], p["log_base"]) if uses_discount else None

        def total(g: np.ndarray, top: int) -> np.ndarray:
            """Cumulated (discounted) gain of the first `top` ranks of each row of g."""
            if top == 0:
                return np.zeros(g.shape[0])
            part = g[:, :top]
            if disc is not None:
                part = part * disc[:top]
            return np.array([math.fsum(row) for row in part])

        if metric in GAIN_METRICS:
            _, top = _cut(p["k"], n)
            actual = total(ranked_gain, top)
            if metric in ("cg", "dcg"):
                return actual
            ideal = total(ideal_gain[None, :], top)[0]
            if ideal == 0:
                return np.full(m, _empty_value(p["empty"]))
            return actual / ideal

        depth = p["depth"]
        cols = []
        for j in range(1, depth + 1):
            top = min(j, n)
            if metric in IDEAL_CURVES:
                cols.append(np.full(m, total(ideal_gain[None, :], top)[0]))
                continue
            actual = total(ranked_gain, top)
            if metric in ("cg_curve", "dcg_curve"):
                cols.append(actual)
                continue
            ideal = total(ideal_gain[None, :], top)[0]
            if ideal == 0:
                cols.append(np.full(m, _empty_value(p["empty"])))
            else:
                cols.append(actual / ideal)
        return np.stack(cols, axis=1)

    # binary measures
    rel_row = labels >= float(p["threshold"])
    n_rel = int(rel_row.sum())
    if n_rel == 0:
        return np.full(m, _empty_value(p["empty"]))
    rel = rel_row[ranked]  # (m, n) bool
    k, top = _cut(p["k"], n)
    hits = rel[:, :top].sum(axis=1).astype(np.float64)  # c: relevant in the top k
    if metric == "precision":
        return hits / k
    if metric == "recall":
        return hits / n_rel
    if metric in ("f1", "fbeta"):
        beta = 1.0 if metric == "f1" else float(p["beta"])
        prec = hits / k
        rec = hits / n_rel
        both_zero = (prec == 0) & (rec == 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            f = (1 + beta**2) * prec * rec / (beta**2 * prec + rec)
        return np.where(both_zero, 0.0, f)
    if metric == "average_precision":
        if p["denominator"] == "relevant":
            denom = n_rel
        elif p["denominator"] == "min_k_relevant":
            denom = min(k, n_rel)
        else:
            raise ValueError(f"unknown denominator {p['denominator']!r}")
        # P@i for every rank i, counted only where v_i is relevant and i <= k
        precision_at = np.cumsum(rel, axis=1) / np.arange(1, n + 1)
        return np.where(rel, precision_at, 0.0)[:, :top].sum(axis=1) / denom
    if metric == "reciprocal_rank":
        window = rel[:, :top]
        found = window.any(axis=1)
        first_rank = np.argmax(window, axis=1) + 1  # first True (1-based) when found
        return np.where(found, 1.0 / first_rank, 0.0)
    raise ValueError(f"unknown metric {metric!r}")


def _params(metric: str, params: dict[str, Any]) -> dict[str, Any]:
    if metric not in _DEFAULTS:
        raise ValueError(f"unknown metric {metric!r}")
    unknown = set(params) - set(_DEFAULTS[metric])
    if unknown:
        raise TypeError(f"{metric} takes no parameter(s) {sorted(unknown)}")
    p = dict(_DEFAULTS[metric])
    p.update(params)
    if "depth" in p and p["depth"] is None:
        raise TypeError(f"{metric} needs depth")
    return p


def _column_mean(values: np.ndarray) -> Any:
    if values.ndim == 1:
        return math.fsum(values) / values.shape[0]
    return np.array([math.fsum(values[:, j]) / values.shape[0] for j in range(values.shape[1])])


def oracle(metric: str, labels: Any, scores: Any, **params: Any) -> TieSummary:
    """Brute-force summary of ``metric`` for ONE query (1-D labels and scores)."""
    p = _params(metric, params)
    labels = np.asarray(labels, dtype=np.float64).ravel()
    scores = np.asarray(scores, dtype=np.float64).ravel()
    assert labels.shape == scores.shape and labels.size >= 1
    assert np.all(np.isfinite(scores)) and np.all(labels >= 0)
    if metric in IDEAL_CURVES:
        scores = -np.arange(labels.size, dtype=np.float64)  # the ideal ignores the scores
    all_orders = _orderings(tuple(float(s) for s in scores))
    values = _measure(metric, labels, np.asarray(all_orders), p)
    stable = _measure(metric, labels, stable_ordering(scores)[None, :], p)[0]
    if values.ndim == 1:
        vmax, vmin = float(np.max(values)), float(np.min(values))
    else:
        vmax, vmin = np.max(values, axis=0), np.min(values, axis=0)
    return TieSummary(
        mean=_column_mean(values),
        max=vmax,
        min=vmin,
        stable=stable if values.ndim > 1 else float(stable),
        n_orderings=int(values.shape[0]),
    )


def query_ids(labels: Any, qid: Any) -> np.ndarray:
    """Unique query ids in the order the per-query results use (``np.unique``)."""
    if qid is None:
        return np.zeros(1, dtype=np.int64)
    return np.unique(np.asarray(qid))


def per_query(
    metric: str,
    labels: Any,
    scores: Any,
    qid: Any = None,
    *,
    ties: str = "average",
    **params: Any,
) -> np.ndarray:
    """Oracle value of ``metric`` for every query, aligned with ``np.unique(qid)``.

    Rows of a query keep their input order (that is what ``ties="stable"`` sees). Returns shape
    (n_queries,) for scalar measures and (n_queries, depth) for curves. ``scores`` may be None for
    the ideal curves.
    """
    labels = np.asarray(labels, dtype=np.float64).ravel()
    if scores is None:
        scores = np.zeros(labels.shape[0])
    scores = np.asarray(scores, dtype=np.float64).ravel()
    assert labels.shape == scores.shape
    if qid is None:
        masks = [np.ones(labels.shape[0], dtype=bool)]
    else:
        qid = np.asarray(qid).ravel()
        assert qid.shape == labels.shape
        masks = [qid == q for q in np.unique(qid)]
    out = [oracle(metric, labels[mk], scores[mk], **params).for_ties(ties) for mk in masks]
    return np.array(out, dtype=np.float64)


def per_query_all(
    metric: str, labels: Any, scores: Any, qid: Any = None, **params: Any
) -> dict[str, np.ndarray]:
    """``per_query`` for every tie mode at once (one enumeration per query)."""
    labels = np.asarray(labels, dtype=np.float64).ravel()
    scores = np.asarray(scores, dtype=np.float64).ravel()
    assert labels.shape == scores.shape
    if qid is None:
        masks = [np.ones(labels.shape[0], dtype=bool)]
    else:
        qid = np.asarray(qid).ravel()
        assert qid.shape == labels.shape
        masks = [qid == q for q in np.unique(qid)]
    summaries = [oracle(metric, labels[mk], scores[mk], **params) for mk in masks]
    return {
        ties: np.array([s.for_ties(ties) for s in summaries], dtype=np.float64)
        for ties in TIE_MODES
    }


def weighted_mean(values: np.ndarray, weights: Any = None) -> float:
    """Mean of per-query values, NaN entries (empty="skip") left out."""
    values = np.asarray(values, dtype=np.float64)
    w = np.ones_like(values) if weights is None else np.asarray(weights, dtype=np.float64)
    keep = ~np.isnan(values)
    if not keep.any():
        return math.nan
    return math.fsum(values[keep] * w[keep]) / math.fsum(w[keep])


def rr_first_relevant_group(n: int, r: int, start: int, k: int | None = None) -> float:
    """Closed form of the tie-aware RR contribution of a first relevant group (NOTES.md).

    ``n`` members, ``r`` relevant, ``start`` = number of ranks before the group (t_i). Uses the
    probability that the first relevant member is at group position x, ``f(x-1) - f(x)``, where
    ``f(x)`` = probability that the first x members are all non-relevant.
    """

    def f(x: int) -> float:
        prob = 1.0
        for y in range(1, x + 1):
            prob *= 1.0 - r / (n - y + 1)
        return prob

    last = n if k is None else min(n, k - start)
    return math.fsum((f(x - 1) - f(x)) / (start + x) for x in range(1, last + 1))


__all__ = [
    "BINARY_METRICS",
    "CURVES",
    "GAIN_METRICS",
    "IDEAL_CURVES",
    "MAX_ORDERINGS",
    "SCALAR_METRICS",
    "TIE_MODES",
    "TieSummary",
    "discount_values",
    "gain_values",
    "oracle",
    "orderings",
    "per_query",
    "per_query_all",
    "query_ids",
    "rr_first_relevant_group",
    "stable_ordering",
    "weighted_mean",
]
