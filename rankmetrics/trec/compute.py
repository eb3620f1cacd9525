"""Per-query values of the TREC measures, on top of the core ranking kernel.

The retrieved documents of every query are ranked once by :class:`~rankmetrics.QueryPlan`
(with the qrels as its ``recall_base``); every measure is then a prefix sum of the kernel read at
an *effective cutoff* ``c = min(k, M)`` (``M`` = ``max_depth``, trec_eval's ``-M``), while the
denominators keep their own definition (``k`` for P@k, R and the ideal DCG at ``k`` from the
recall base). With ``ties="average"`` a tie group straddling ``c`` is handled exactly by the
kernel (McSherry & Najork 2008), so ``-M`` needs no arbitrary truncation order either.

Only this module touches the kernel's private helpers (``QueryPlan._ideal_at``, ``_discount``
and ``_max_width``; ``_metrics.at_cutoffs`` and ``cumulative``), all in the class under "core
adapter"; ``tests/test_trec_eval.py`` checks the result against the public
``QueryPlan(..., recall_base=...).evaluate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core import contributions as _metrics
from ..core import err as _err
from ..core import found as _found
from ..core.gains import DiscountLike, GainLike, apply_gain, discount_key
from ..core.kernel import padded
from ..core.plan import QueryPlan, _check_finite_sums
from ..core.validation import F_AS_RECALL
from ..measures.grammar import COUNT_KINDS, RECALL_LEVELS, Measure
from .judged import bpref as _bpref
from .match import Matched, docno_scores

Values = NDArray[np.float64]
Cut = int | None
#: evaluations with at least this many retrieved rows may compute their kernel sums in threads
PARALLEL_ROWS = 200_000


# ------------------------------------------------------------------------------ core adapter
class _Core:
    """The kernel calls of one evaluation, with caches keyed by (kind, values, cutoff)."""

    def __init__(self, m: Matched, ties: str, depth: Cut) -> None:
        self.ties = "stable" if ties == "docno" else ties
        self.plan = QueryPlan(m.run_labels, qid=m.run_qidx)
        # the qrels as the recall base, without the check that it holds the run's labels: they
        # were read from it (duplicates refused)
        self.plan._set_recall_base((m.base_labels, m.base_qidx))
        # docno order compares the scores as trec_eval did (C floats before version 10)
        scores = docno_scores(m) if ties == "docno" else m.run_scores
        self.ranking = self.plan._rank(scores, depth, self.ties)  # our own scores: no copy
        self.width = int(self.plan.sizes.max())
        self._sums: dict[Any, Values] = {}

    @property
    def queries(self) -> NDArray[np.int64]:
        """Evaluated-query index of each plan query."""
        return np.asarray(self.plan.qids, dtype=np.int64)

    def relevance(self, t: float) -> Values:
        """Per-row 0/1 relevance plus the padding 0 (the plan's cached vector)."""
        return self.plan._relevance(t)[0]

    def gains(self, gain: GainLike) -> Values:
        """Per-row gains plus the padding 0 (the plan's cached vector)."""
        return self.plan._gain_ext(gain)

    def discount(self, discount: DiscountLike | None, log_base: float) -> Values:
        if discount is None:
            return np.ones(self.plan._max_width)
        return self.plan._discount(discount, log_base)

    def sums(self, kind: str, values: Values, vkey: Any, ks: Sequence[Cut],
             disc: Values | None = None, dkey: Any = None) -> Values:
        """Kernel prefix sums at each cutoff: shape (len(ks), n_plan_queries), cached."""
        todo = [k for k in dict.fromkeys(ks) if (kind, vkey, dkey, k) not in self._sums]
        if todo:
            vals = _metrics.at_cutoffs(self.ranking, self.plan.n_queries, kind, values,
                                       self.ties, todo, disc)
            if kind == "gain":  # as the core: overflowed sums (inf, or NaN from inf - inf)
                _check_finite_sums(vals)
            for k, row in zip(todo, vals, strict=True):
                self._sums[(kind, vkey, dkey, k)] = row
        return np.stack([self._sums[(kind, vkey, dkey, k)] for k in ks])

    def ideal(self, gain: GainLike, discount: DiscountLike | None, log_base: float,
              ks: Sequence[Cut]) -> Values:
        """Ideal DCG (CG when ``discount`` is None) of the recall base at each cutoff."""
        disc = self.discount(discount, log_base)
        dkey = ("none",) if discount is None else discount_key(discount, log_base)
        return self.plan._ideal_at(gain, disc, dkey, list(ks))

    def ext(self, values: Values) -> Values:
        """Per-row values as the kernel reads them (the numpy kernel: with the padding 0)."""
        return padded(values, 0.0) if self.plan._backend == "numpy" else values

    def prefix(self, values: Values, width: Cut):
        """Yield (plan query indices, expected relevant documents in ranks 1..i, (qb, w))."""
        for rb, cum in _metrics.cumulative(self.ranking, "rel", values, self.ties, width):
            yield rb.queries, cum


def _gain_id(gain: GainLike) -> Any:
    from ..core.gains import gain_key

    return gain_key(gain)


# ------------------------------------------------------------------------------ measures
def trec_gain(gain: GainLike, labels: NDArray[np.float64]) -> GainLike:
    """A mapping gain completed for every label present: unlisted levels keep their linear gain
    (trec_eval's ``-m ndcg.L=G`` rule). Other gain specifications are returned unchanged."""
    if isinstance(gain, dict) or (hasattr(gain, "items") and not isinstance(gain, str)):
        table = {float(a): float(b) for a, b in gain.items()}  # type: ignore[union-attr]
        for level in np.unique(labels).tolist():
            table.setdefault(float(level), float(level))
        return table
    return gain


def measure_gain(m: Measure, gain: GainLike, discount: DiscountLike,
                 log_base: float) -> tuple[GainLike, DiscountLike | None, float]:
    """(gain, discount, log base) of gain measure ``m``: the call's options with the overrides
    written in the measure (``gains=`` / ``gain=``, ``discount=``, ``b=``); discount None for
    CG and nCG."""
    g: GainLike = dict(m.gains) if m.gains is not None else (m.gain or gain)
    d = None if m.kind in ("cg", "ncg") else (m.discount or discount)
    return g, d, float(m.log_base or log_base)


def depth_needed(measures: Sequence[Measure], max_depth: Cut) -> Cut:
    """The deepest rank any measure reads (None: the whole list)."""
    if max_depth is not None:
        return max_depth
    cut_only = ("ndcg", "dcg", "cg", "ncg", "p", "r", "f", "ap", "rr", "success", "numrel",
                "err", "rbp", "rbp_residual", "judged")
    # (SetF, Rprec and the others without a cutoff read the whole list)
    if all(m.kind in cut_only and (m.k is not None or m.kind == "numrel") for m in measures):
        ks = [m.k for m in measures if m.k is not None]
        return max(ks) if ks else 1
    return None


class _Evaluation:
    """Per-query values of the measures of one evaluation (arrays over evaluated queries)."""

    def __init__(self, matched: Matched, measures: Sequence[Measure], ties: str,
                 max_depth: Cut) -> None:
        self.m = matched
        self.n = int(matched.qids.shape[0])
        self.max_depth = max_depth
        self.core = (_Core(matched, ties, depth_needed(measures, max_depth))
                     if matched.run_qidx.size else None)
        self.pq = self.core.queries if self.core is not None else np.zeros(0, dtype=np.int64)
        self.n_ret = np.zeros(self.n)
        if self.core is not None:
            sizes = self.core.plan.sizes.astype(np.float64)
            self.n_ret[self.pq] = sizes if max_depth is None else np.minimum(sizes, max_depth)
        self.all_labels = np.concatenate([matched.base_labels, matched.run_labels])
        self._R: dict[float, Values] = {}

    def cut(self, k: Cut) -> Cut:
        """Effective cutoff min(k, M)."""
        if self.max_depth is None:
            return k
        return self.max_depth if k is None else min(k, self.max_depth)

    def n_relevant(self, t: float) -> Values:
        """R: judged documents with label >= t, per evaluated query."""
        if t not in self._R:
            self._R[t] = np.bincount(self.m.base_qidx, weights=self.m.base_labels >= t,
                                     minlength=self.n).astype(np.float64)
        return self._R[t]

    def scatter(self, plan_values: Values) -> Values:
        out = np.zeros(self.n)
        out[self.pq] = plan_values
        return out

    def _requests(self, measures: Sequence[Measure], gain: GainLike, discount: DiscountLike,
                  log_base: float, threshold: float) -> dict[Any, tuple[Any, ...]]:
        """The kernel sums the measures will ask for, grouped into one call per values array."""
        assert self.core is not None
        core = self.core
        groups: dict[Any, tuple[Any, ...]] = {}

        def add(kind: str, values: Values, vkey: Any, k: Cut, disc: Values | None,
                dkey: Any) -> None:
            key = (kind, vkey, dkey)
            cuts = groups[key][2] if key in groups else []
            groups[key] = (kind, values, [*cuts, self.cut(k)], disc, vkey, dkey)

        for m in measures:
            t = threshold if m.rel is None else m.rel
            if m.kind in ("ndcg", "dcg", "cg", "ncg"):
                g0, spec, lb = measure_gain(m, gain, discount, log_base)
                g = trec_gain(g0, self.all_labels)
                dkey = ("none",) if spec is None else discount_key(spec, lb)
                add("gain", core.gains(g), _gain_id(g), m.k, core.discount(spec, lb), dkey)
            elif m.kind in ("p", "r", "f", "setf", "numrelret", "ap", "rr", "success"):
                kind = {"ap": "ap", "rr": "rr", "success": "rr"}.get(m.kind, "rel")
                k = None if m.kind in ("numrelret", "setf") else m.k
                ranks = np.arange(1, core.width + 1, dtype=np.float64)
                disc, dkey = (ranks, ("ranks",)) if m.kind == "success" else (None, None)
                add(kind, core.relevance(t), ("rel", t), k, disc, dkey)
        return groups

    def warm(self, measures: Sequence[Measure], gain: GainLike, discount: DiscountLike,
             log_base: float, threshold: float, threads: int) -> None:
        """Compute the kernel sums of large evaluations in up to ``threads`` threads (the
        kernels release the GIL), one per values array; the measures then read them from the
        cache. Nothing happens with one thread."""
        if threads < 2 or self.core is None or self.core.plan.n_rows < PARALLEL_ROWS:
            return
        groups = self._requests(measures, gain, discount, log_base, threshold)
        if len(groups) < 2:
            return
        core = self.core
        with ThreadPoolExecutor(max_workers=min(threads, len(groups))) as pool:
            jobs = [pool.submit(core.sums, kind, values, vkey, cuts, disc, dkey)
                    for kind, values, cuts, disc, vkey, dkey in groups.values()]
            for job in jobs:
                job.result()

    def rel_sum(self, kind: str, t: float, k: Cut, disc: Values | None = None,
                dkey: Any = None) -> Values:
        """Kernel sum ("rel", "ap" or "rr") of the binary relevance at cutoff ``cut(k)``."""
        if self.core is None:
            return np.zeros(self.n)
        rel = self.core.relevance(t)
        return self.scatter(self.core.sums(kind, rel, ("rel", t), [self.cut(k)], disc, dkey)[0])

    def gain_measure(self, m: Measure, gain: GainLike, discount: DiscountLike,
                     log_base: float) -> tuple[Values, NDArray[np.bool_]]:
        g0, disc_spec, log_base = measure_gain(m, gain, discount, log_base)
        g = trec_gain(g0, self.all_labels)
        num = np.zeros(self.n)
        ideal = np.zeros(self.n)
        if self.core is not None:
            d = self.core.discount(disc_spec, log_base)
            dkey = ("none",) if disc_spec is None else discount_key(disc_spec, log_base)
            num[self.pq] = self.core.sums("gain", self.core.gains(g), _gain_id(g),
                                          [self.cut(m.k)], d, dkey)[0]
            if m.kind in ("ndcg", "ncg"):
                ideal[self.pq] = self.core.ideal(g, disc_spec, log_base, [m.k])[0]
        if m.kind in ("dcg", "cg"):
            return num, np.zeros(self.n, dtype=bool)
        missing = np.ones(self.n, dtype=bool)
        missing[self.pq] = False
        if missing.any():  # queries the run misses (-c): empty iff no judged gain > 0
            gmax = np.zeros(self.n)
            np.maximum.at(gmax, self.m.base_qidx, apply_gain(g, self.m.base_labels))
            ideal[missing] = gmax[missing]
        zero = ideal <= 0
        return np.divide(num, ideal, out=np.zeros(self.n), where=~zero), zero

    def _grades(self, m: Measure, labels: Values) -> Values:
        """ERR's grades / graded RBP's r of ``labels``: the label, or the ``gains=`` table
        (unlisted levels keep their label)."""
        if m.gains is None:
            return labels
        return apply_gain(trec_gain(dict(m.gains), self.all_labels), labels)

    def err_measure(self, m: Measure) -> tuple[Values, NDArray[np.bool_]]:
        """ERR (Chapelle et al. 2009, eq. 4); empty: no judged document with a grade > 0."""
        top = 4.0 if m.max_grade is None else float(m.max_grade)
        base = self._grades(m, self.m.base_labels)
        run = self._grades(m, self.m.run_labels)
        worst = max(float(base.max(initial=0.0)), float(run.max(initial=0.0)))
        if worst > top:
            # name the qrels label, and the grade gains= made of it
            labels = np.concatenate([self.m.base_labels, self.m.run_labels])
            label = float(labels[np.argmax(np.concatenate([base, run]))])
            made = "" if m.gains is None else f" (gains= makes label {label:g} grade {worst:g})"
            raise ValueError(
                f"{m.name}: the qrels hold grade {worst:g} > max_grade={top:g}{made} (its stop "
                "probability (2**g - 1) / 2**max_grade would exceed 1; gdeval rejects such "
                "qrels too); pass e.g. ERR(max_grade=...)"
            )
        positive = np.bincount(self.m.base_qidx, weights=base > 0, minlength=self.n) > 0
        if self.core is None:
            return np.zeros(self.n), ~positive
        stop = padded(_err.stop_probabilities(run, top), 0.0)
        vals = _err.err_at_cutoffs(self.core.ranking, self.core.plan.n_queries, stop,
                                   self.core.ties, [self.cut(m.k)])[0]
        return self.scatter(vals), ~positive

    def _rbp_discount(self, p: float) -> Values:
        assert self.core is not None
        return (1.0 - p) * np.power(p, np.arange(self.core.plan._max_width, dtype=np.float64))

    def rbp_measure(self, m: Measure) -> tuple[Values, NDArray[np.bool_]]:
        """RBP (Moffat & Zobel 2008): binary with ``rel=``, else graded (the label or
        ``gains=``), as trectools / ir_measures; empty: no relevant (r > 0) judged document."""
        p = 0.8 if m.p is None else float(m.p)
        if m.rel is not None:
            empty = self.n_relevant(m.rel) == 0
            if self.core is None:
                return np.zeros(self.n), empty
            kind, values, vkey = "rel", self.core.relevance(m.rel), ("rel", m.rel)
        else:
            base = self._grades(m, self.m.base_labels)
            empty = ~(np.bincount(self.m.base_qidx, weights=base > 0, minlength=self.n) > 0)
            if self.core is None:
                return np.zeros(self.n), empty
            g = "linear" if m.gains is None else trec_gain(dict(m.gains), self.all_labels)
            kind, values, vkey = "gain", self.core.gains(g), _gain_id(g)
        vals = self.core.sums(kind, values, vkey, [self.cut(m.k)], self._rbp_discount(p),
                              ("rbp", p))[0]
        return self.scatter(vals), empty

    def rbp_residual(self, m: Measure) -> Values:
        """RBP's residual: the RBP weight (1 - p) p**(i - 1) of every unjudged retrieved rank
        (tie-averaged: the tie group's mean unjudged share) plus the tail p**min(n, k) past the
        list (n retrieved documents; every unevaluated rank could be relevant)."""
        p = 0.8 if m.p is None else float(m.p)
        c = self.cut(m.k)
        depth = self.n_ret if c is None else np.minimum(self.n_ret, c)
        out = np.power(p, depth)
        if self.core is not None:
            assert self.m.run_in_qrels is not None
            unjudged = self.core.ext((~self.m.run_in_qrels).astype(np.float64))
            out[self.pq] += self.core.sums("gain", unjudged, ("unjudged",), [c],
                                           self._rbp_discount(p), ("rbp", p))[0]
        return out
    def judged_at(self, m: Measure) -> Values:
        """Judged@k: expected documents with a qrels entry in the top min(k, M), divided by
        min(k, retrieved) as ir_measures' ``judged`` provider does (the whole list without k)."""
        out = np.zeros(self.n)
        if self.core is None or self.m.run_in_qrels is None:
            return out
        vals = self.m.run_in_qrels.astype(np.float64)
        if self.core.plan._backend == "numpy":
            vals = np.append(vals, 0.0)  # the numpy kernel's padding sentinel
        num = self.scatter(self.core.sums("rel", vals, ("judged",), [self.cut(m.k)])[0])
        denom = self.n_ret if m.k is None else np.minimum(float(m.k), self.n_ret)
        return np.divide(num, denom, out=out, where=denom > 0)

    def ap_found(self, t: float, k: Cut) -> Values:
        """AP at cut(k) over the relevant documents found there (torchmetrics' AP@k), exact
        under ties (:mod:`rankmetrics.core.found`)."""
        if self.core is None:
            return np.zeros(self.n)
        core = self.core
        rel = core.relevance(t)
        cut = self.cut(k)
        sums = core.sums("ap", rel, ("rel", t), [cut])
        vals = _found.ap_found(core.ranking, core.plan.n_queries, rel, core.ties, [cut], sums)
        return self.scatter(vals[0])

    def binary_measure(self, m: Measure, t: float, beta: float) -> Values:
        R = self.n_relevant(t)
        safe_r = np.where(R == 0, 1.0, R)
        k_or_ret = np.full(self.n, float(m.k)) if m.k is not None else self.n_ret
        if m.kind == "p":
            return np.divide(self.rel_sum("rel", t, m.k), k_or_ret, out=np.zeros(self.n),
                             where=k_or_ret > 0)
        if m.kind == "r":
            return self.rel_sum("rel", t, m.k) / safe_r
        if m.kind == "setf":  # trec_eval's set_F.x weighs with x itself: (1 + x) P R / (x P + R)
            x = 1.0 if m.beta is None else m.beta
            found = self.rel_sum("rel", t, None)
            hit = found > 0  # then R > 0 and n_ret > 0
            # trec_eval's operations in its order (m_set_F.c), so that a value on a printed
            # decimal's midpoint rounds as its does (set_F_2.0 0.6563, not 0.6562)
            p_set = np.divide(found, self.n_ret, out=np.zeros(self.n), where=hit)
            r_set = np.divide(found, R, out=np.zeros(self.n), where=hit)
            return np.divide((x + 1.0) * p_set * r_set, x * p_set + r_set,
                             out=np.zeros(self.n), where=hit)
        if m.kind == "f":
            b = beta if m.beta is None else m.beta
            b2 = b * b  # inf past the float range, where ** raises OverflowError
            if b2 > F_AS_RECALL:
                return self.rel_sum("rel", t, m.k) / safe_r
            denom = b2 * R + k_or_ret
            return np.divide((1.0 + b2) * self.rel_sum("rel", t, m.k), denom,
                             out=np.zeros(self.n), where=denom > 0)
        if m.kind == "ap" and m.denominator == "found":
            return self.ap_found(t, m.k)
        if m.kind == "ap" and m.denominator == "min_k_relevant":
            return self.rel_sum("ap", t, m.k) / np.maximum(np.minimum(k_or_ret, safe_r), 1.0)
        if m.kind == "ap":
            return self.rel_sum("ap", t, m.k) / safe_r
        if m.kind == "rr":
            return self.rel_sum("rr", t, m.k)
        if m.kind == "success":
            # the rr terms are P(first relevant at rank i) / i; times i they sum to
            # P(a relevant document within the cutoff), exact under tie averaging
            width = self.core.width if self.core is not None else 0
            ranks = np.arange(1, width + 1, dtype=np.float64)
            return self.rel_sum("rr", t, m.k, ranks, ("ranks",))
        if m.kind == "numrelret":
            return self.rel_sum("rel", t, None)
        rel = self.core.relevance(t) if self.core is not None else None
        if m.kind == "rprec":
            return _rprec(self.core, rel, R, self.max_depth, self.n)
        if m.kind == "iprec":
            levels = [float(m.level or 0.0)]
        else:  # 11pt
            levels = list(m.levels or RECALL_LEVELS)
        vals = _iprec(self.core, rel, R, self.max_depth, self.n, levels, m.rule)
        # m_11pt_avg.c adds the levels from the last one down, then divides by their number
        return np.cumsum(vals[::-1], axis=0)[-1] / len(levels)


def compute(
    measures: Sequence[Measure],
    matched: Matched,
    *,
    ties: str,
    gain: GainLike,
    discount: DiscountLike,
    log_base: float,
    threshold: float,
    max_depth: Cut,
    beta: float,
    threads: int = 1,
) -> tuple[dict[str, Values], dict[str, NDArray[np.bool_]]]:
    """Raw per-query values of every measure and, per measure, the mask of *empty* queries
    (no relevant document; for nDCG/nCG an ideal gain of 0 up to the cutoff). With
    ``threads`` > 1 the kernel sums of large evaluations run in that many threads."""
    ev = _Evaluation(matched, measures, ties, max_depth)
    ev.warm(measures, gain, discount, log_base, threshold, threads)
    values: dict[str, Values] = {}
    empty: dict[str, NDArray[np.bool_]] = {}
    never = np.zeros(ev.n, dtype=bool)
    for m in measures:
        t = threshold if m.rel is None else m.rel
        if m.kind in ("ndcg", "dcg", "cg", "ncg"):
            values[m.name], empty[m.name] = ev.gain_measure(m, gain, discount, log_base)
        elif m.kind == "numret":
            values[m.name], empty[m.name] = ev.n_ret.copy(), never
        elif m.kind == "numrel":
            values[m.name], empty[m.name] = ev.n_relevant(t).copy(), never
        elif m.kind == "numrelret":
            values[m.name], empty[m.name] = ev.binary_measure(m, t, beta), never
        elif m.kind == "err":
            values[m.name], empty[m.name] = ev.err_measure(m)
        elif m.kind == "rbp":
            values[m.name], empty[m.name] = ev.rbp_measure(m)
        elif m.kind == "rbp_residual":
            values[m.name], empty[m.name] = ev.rbp_residual(m), never
        elif m.kind == "judged":
            values[m.name], empty[m.name] = ev.judged_at(m), never
        elif m.kind == "bpref":
            values[m.name] = _bpref(matched, ties, t, ev.n_relevant(t), max_depth)
            empty[m.name] = ev.n_relevant(t) == 0
        else:
            values[m.name] = ev.binary_measure(m, t, beta)
            empty[m.name] = ev.n_relevant(t) == 0
    return values, empty


def _rprec(core: _Core | None, rel: Values | None, R: Values, max_depth: Cut,
           n_eval: int) -> Values:
    """Expected relevant documents in ranks 1..R (capped at -M and the list) / R."""
    out = np.zeros(n_eval)
    if core is None or rel is None:
        return out
    for qs, cum in core.prefix(rel, max_depth):
        ev = core.queries[qs]
        r = R[ev].astype(np.int64)
        col = np.minimum(r, cum.shape[1]) - 1
        ok = r > 0
        out[ev[ok]] = cum[np.flatnonzero(ok), col[ok]] / r[ok]
    return out


def level_counts(level: float, R: Values, rule: str) -> NDArray[np.int64]:
    """Relevant documents a query must have retrieved to reach recall ``level``.

    ``"trec"``: ``lround(level * R)`` (trec_eval 10.0); ``"trec9"``: ``(long)(level * R + 0.9)``
    (trec_eval 9.x and pytrec_eval); ``"recall"``: the least j with ``j / R >= level`` (the
    textbook definition, the slides' "AP alternative 2").
    """
    v = level * R
    if rule == "trec":
        j = np.floor(v)
        j = j + (v - j >= 0.5)  # lround: halves away from zero
    elif rule == "trec9":
        j = np.floor(v + 0.9)
    else:
        j = np.ceil(v)
        safe = np.where(R > 0, R, 1.0)
        j = np.where((j >= 1) & ((j - 1) / safe >= level), j - 1, j)
        j = np.where(j / safe < level, j + 1, j)
    return j.astype(np.int64)


def _iprec(core: _Core | None, rel: Values | None, R: Values, max_depth: Cut, n_eval: int,
           levels: Sequence[float], rule: str) -> Values:
    """Interpolated precision at each recall level: the maximum precision at or below the rank
    where the query reaches the level's count of relevant documents (0 when it never does);
    shape (len(levels), n_eval)."""
    out = np.zeros((len(levels), n_eval))
    if core is None or rel is None:
        return out
    for qs, cum in core.prefix(rel, max_depth):
        ev = core.queries[qs]
        r = R[ev]
        ok = r > 0
        if not ok.any():
            continue
        cum, ev, r = cum[ok], ev[ok], r[ok]
        prec = cum / np.arange(1, cum.shape[1] + 1, dtype=np.float64)
        best_after = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]
        rows = np.arange(cum.shape[0])
        for j, level in enumerate(levels):
            need = level_counts(level, r, rule)
            hit = cum >= need[:, None] - 1e-9
            first = hit.argmax(axis=1)
            out[j, ev] = np.where(hit[rows, first], best_after[rows, first], 0.0)
    return out


def count_kind(m: Measure) -> bool:
    """Count measures are summed over queries (trec_eval's "all" row), the others averaged."""
    return m.kind in COUNT_KINDS
