"""QueryPlan: the label-only half of every metric, computed once and reused for many score vectors.

Modelled on LightGBM's ``DCGCalculator`` Init/Eval split: what depends only on labels and query
ids (query layout, label gains, relevance, recall base, ideal DCG per cutoff, discount tables) is
built here and cached; :meth:`QueryPlan.rank` and the metric methods only order new scores.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NoReturn

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..measures.grammar import Measure, parse_measure, parse_measures
from . import backend as _backend
from . import contributions as _metrics
from . import err as _err
from . import found as _found
from . import kernel as _kernel
from .gains import (
    DiscountLike,
    GainLike,
    apply_gain,
    compact_gains,
    discount_key,
    discount_table,
    gain_key,
    small_int_gains,
)
from .options import DENOMINATORS
from .validation import (
    F_AS_RECALL,
    all_finite,
    check_choice,
    check_depth,
    check_empty,
    check_exact_int_labels,
    check_finite,
    check_flag,
    check_group_sizes,
    check_k,
    check_labels,
    check_positive_real,
    check_qid,
    check_result_size,
    check_scores,
    check_threshold,
    check_ties,
    check_weights,
    negative_labels_error,
)

Cutoff = int | None
Values = NDArray[np.float64]

#: Precision denominators: k (the cutoff), or min(k, query size) as XGBoost's ``pre@k``.
PRECISION_DENOMINATORS = ("k", "min_k_size")

METRICS = ("cg", "dcg", "ncg", "ndcg", "precision", "recall", "f1", "fbeta", "ap", "rr",
           "rprec", "success", "err", "rbp")
#: measure kind of the grammar -> core metric
_CORE_OF = {"ndcg": "ndcg", "dcg": "dcg", "ncg": "ncg", "cg": "cg", "p": "precision",
            "r": "recall", "f": "fbeta", "setf": "fbeta", "ap": "ap", "rr": "rr",
            "rprec": "rprec", "success": "success", "err": "err", "rbp": "rbp"}
_GAIN_BASES = ("cg", "dcg", "ncg", "ndcg")
#: gdeval's $MAX_JUDGMENT: ERR's stop probability is (2**g - 1) / 2**4 by default
_ERR_MAX_GRADE = 4.0
#: ir_measures' (and trectools') default RBP persistence
_RBP_P = 0.8


def core_metric(m: Measure) -> str:
    """The core metric computing measure ``m``; ValueError for measures only the TREC layer
    computes (interpolated precision, document counts)."""
    base = _CORE_OF.get(m.kind)
    if base is None:
        raise ValueError(
            f"{m.name!r} is computed only by rankmetrics.trec.evaluate (and the rankmetrics eval "
            "command): it needs a run and qrels, not per-row scores and labels"
        )
    return base


def parse_metric(name: str | Measure) -> tuple[str, Cutoff]:
    """``"ndcg@10"`` -> ``("ndcg", 10)``; ``"MAP"`` -> ``("ap", None)`` (kept for old code).

    The name is parsed by the one measure grammar (:mod:`rankmetrics.measures.grammar`);
    :func:`rankmetrics.measures.parse_measure` gives the parameters as well.

    Parameters
    ----------
    name : str or Measure
        One measure name (case-insensitive), e.g. ``"ndcg@10"``, ``"nDCG@10"``, ``"P.5"``.

    Returns
    -------
    (base, k) : tuple of str and int or None
        The core metric (one of :data:`METRICS`) and its cutoff (None: whole list).

    Raises
    ------
    ValueError
        Unknown metric name (with the closest names), a bad cutoff, a name of several
        measures, or a measure only the TREC layer computes.
    TypeError
        ``name`` is neither a string nor a measure object.
    """
    found = parse_measure(name)
    if len(found) != 1:
        raise ValueError(f"{name!r} names {len(found)} measures; give one")
    m = found[0]
    base = core_metric(m)
    if base == "fbeta" and m.kind == "f" and m.beta == 1.0:
        base = "f1"
    return base, m.k


def _named(discount: Any) -> Any:
    """A discount given by the caller: None, which the kernel reads as "no discount", is
    refused (``"none"`` is that discount's name)."""
    if discount is None:
        raise TypeError('discount must be a string or a callable of ranks; got None (no '
                        'discount is "none")')
    return discount


class QueryPlan:
    """Label-side state of ranking metrics for one set of queries, reusable across score vectors.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_queries, n_docs)
        Graded relevance labels, non-negative (int, float or bool). A 2-D array means one query
        per row (scikit-learn's ``ndcg_score`` layout); then ``qid`` must be None.
    qid : array-like of shape (n_rows,), optional
        Query id of every row (ints or strings; rows of one query need not be contiguous).
        None means all rows form one query.
    recall_base : tuple (labels, qid) of array-likes of shape (n_judged,), optional
        Every judged document of each query, retrieved or not (IR evaluation against qrels). When
        given, the ideal vector (JK 2002, eq. 4) and the number of relevant documents R come from
        it instead of from the ranked rows; ids absent from ``qid`` are ignored and a query with no
        judged document has an empty recall base. Labels follow the rules of ``y_true``, and
        must be the same judgements: a query's base holds at least as many labels of at least
        v as its ranked rows, for every positive label v of the rows.

    Attributes
    ----------
    n_rows : int
    n_queries : int
    qids : ndarray of shape (n_queries,)
        The distinct query ids, sorted (``np.unique(qid)``); per-query outputs follow this order.
    sizes : ndarray of int64, shape (n_queries,)
        Documents per query.

    Raises
    ------
    ValueError
        Empty input, NaN/inf or negative labels, ``qid`` of the wrong length; a recall base
        holding fewer labels of at least v than some query's ranked rows (nDCG, recall and AP
        would exceed 1).

    Examples
    --------
    >>> import numpy as np
    >>> from rankmetrics import QueryPlan
    >>> plan = QueryPlan([2, 0, 1, 0, 1], qid=[7, 7, 7, 9, 9])
    >>> plan.ndcg([0.5, 0.5, 0.1, 0.3, 0.9], k=2).round(4)
    array([0.6738, 1.    ])
    """

    _max_width: int
    _base_layout: Any  # the recall base's layout (the plan's own unless recall_base is given)

    def __init__(
        self,
        y_true: ArrayLike,
        qid: ArrayLike | None = None,
        *,
        recall_base: tuple[ArrayLike, ArrayLike] | None = None,
    ) -> None:
        labels = check_labels(y_true, compact=True)
        self._backend = _backend.get_backend()
        self._shape2d: tuple[int, ...] | None = None
        if labels.ndim == 2:
            if qid is not None:
                raise ValueError("qid must be None when y_true is 2-D (one query per row)")
            self._shape2d = labels.shape
            labels = labels.ravel()
            qids: np.ndarray = np.arange(self._shape2d[0])
            sizes = np.full(self._shape2d[0], self._shape2d[1], dtype=np.int64)
            layout = self._layout_from_sizes(sizes)
        elif labels.ndim == 1:
            if labels.shape[0] == 0:
                raise ValueError("y_true is empty: at least one document is needed")
            if qid is None:
                qids = np.zeros(1, dtype=np.int64)
                layout = self._layout_from_sizes(np.array([labels.shape[0]], dtype=np.int64))
            elif self._backend == "numba":
                qids, layout = _backend.group_rows(check_qid(qid, labels.shape[0]),
                                                   _index_queries)
            else:
                qids, qidx = _index_queries(check_qid(qid, labels.shape[0]))
                layout = _kernel.build_layout(qidx, int(qids.shape[0]))
                del qidx
        else:
            raise ValueError(f"y_true must be 1-D or 2-D; got {labels.ndim}-D")
        if labels.shape[0] == 0:
            raise ValueError("y_true is empty: at least one document is needed")
        self._init(labels, qids, layout)
        if recall_base is not None:
            self._set_recall_base(recall_base)
            self._check_base_holds_rows()

    @classmethod
    def _from_checked(cls, labels: Values, qid: np.ndarray | None,
                      sign_pending: bool = False) -> QueryPlan:
        """Plan over labels and qids already validated (by ``flatten_inputs``): 1-D, same length,
        non-empty. Skips the second validation (and copy) of the one-call functions.
        ``sign_pending``: the labels' sign is not checked yet (signed integers): it is checked
        on first use of the labels (:attr:`labels`), or by the pass that makes their uint8
        gains (:meth:`_gain_ext`), which finds the smallest label anyway."""
        plan = cls.__new__(cls)
        plan._shape2d = None
        plan._backend = _backend.get_backend()
        if qid is None:
            qids: np.ndarray = np.zeros(1, dtype=np.int64)
            layout = plan._layout_from_sizes(np.array([labels.shape[0]], dtype=np.int64))
        elif plan._backend == "numba":
            qids, layout = _backend.group_rows(qid, _index_queries)
        else:
            qids, qidx = _index_queries(qid)
            layout = _kernel.build_layout(qidx, int(qids.shape[0]))
            del qidx
        plan._init(labels, qids, layout)
        plan._sign_pending = sign_pending
        return plan

    def _set_recall_base(self, recall_base: tuple[ArrayLike, ArrayLike]) -> None:
        if not isinstance(recall_base, tuple) or len(recall_base) != 2:
            raise TypeError("recall_base must be a tuple (labels, qid)")
        labels = check_labels(recall_base[0], "recall_base labels", compact=True)
        if labels.ndim != 1:
            raise ValueError("recall_base labels must be 1-D")
        q = check_qid(recall_base[1], labels.shape[0], "recall_base qid")
        if q.shape[0] == 0:  # np.asarray([]) is float64: an empty base has no id type
            q = q.astype(self.qids.dtype)
        kinds = {self.qids.dtype.kind, q.dtype.kind}
        if len(kinds) > 1 and kinds != {"i", "u"}:
            raise TypeError(
                f"recall_base qid dtype {q.dtype} does not match the ranked rows' qid dtype "
                f"{self.qids.dtype}"
            )
        inside = np.ones(q.shape[0], dtype=bool)
        if q.dtype != self.qids.dtype and kinds <= {"i", "u"}:
            # signed vs unsigned 64-bit ids would be compared as float64 (merging ids that
            # differ beyond 2**53): cast exactly; ids outside the plan's range match nothing
            info = np.iinfo(self.qids.dtype)
            inside = (q >= info.min) & (q <= info.max)
            q = np.where(inside, q, 0).astype(self.qids.dtype)
        pos = np.searchsorted(self.qids, q)
        pos = np.minimum(pos, self.n_queries - 1)
        keep = (self.qids[pos] == q) & inside
        self._base_labels = labels[keep]
        base_qidx = pos[keep].astype(np.int64)
        if self._backend == "numba":
            self._base_layout = _backend.from_index(base_qidx, self.n_queries)
        else:
            self._base_layout = _kernel.build_layout(base_qidx, self.n_queries)
        self._max_width = max(self._max_width, _max_size(self._base_layout))
        self._disc.clear()
        self._graded_none.clear()

    def _check_base_holds_rows(self) -> None:
        """Raise ValueError naming ``recall_base`` when a query's ranked rows hold more labels of
        at least v than its recall base, for some positive label v of the rows: the base is
        every judged document with its label, so it holds them all; with fewer, the ideal vector
        falls below what a ranking reaches and R below the relevant rows ranked, and nDCG,
        recall and AP exceed 1. Checked at every distinct positive label of the rows (at most
        :data:`_BASE_LEVELS` of them, evenly spread, smallest and largest included, when there
        are more). [time] two passes over the rows and the base per label checked."""
        labels = self.labels
        levels = np.unique(labels[labels > 0])
        if levels.shape[0] > _BASE_LEVELS:
            levels = levels[np.linspace(0, levels.shape[0] - 1, _BASE_LEVELS).round().astype(
                np.int64)]
        for t in levels.tolist():
            have = self._counts_at(self.layout, labels, t)
            held = self._counts_at(self._base_layout, self._base_labels, t)
            bad = np.flatnonzero(have > held)
            if bad.shape[0]:
                q = int(bad[0])
                name = self.qids[q].item()
                raise ValueError(
                    f"recall_base: query {name!r} ranks {int(have[q])} documents with a "
                    f"label of at least {t:g} but its recall base holds {int(held[q])}; the "
                    "recall base must hold every judged document of the query, retrieved or not, "
                    "with the labels of y_true (else nDCG, recall and AP exceed 1)")

    def _counts_at(self, layout: Any, labels: NDArray[Any], t: float) -> Values:
        """(n_queries,) rows with a label of at least ``t`` per query of ``layout``."""
        if self._backend == "numba":
            return _backend.segment_sums(layout, (labels >= t).view(np.uint8))
        ext = _kernel.padded((labels >= t).astype(np.float64), 0.0)
        out = np.zeros(self.n_queries)
        for b in layout.buckets:
            out[b.queries] = np.take(ext, b.rows).sum(axis=1)
        return out

    def _layout_from_sizes(self, sizes: NDArray[np.int64]) -> Any:
        """Layout of contiguous queries of the given sizes, in order (no per-row index)."""
        if self._backend == "numba":
            return _backend.from_sizes(sizes)
        qidx = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
        return _kernel.build_layout(qidx, int(sizes.shape[0]))

    @property
    def labels(self) -> Values:
        """The labels, shape (n_rows,) (raises ValueError on first use when a one-call
        function's signed integer labels hold a negative value, or one float64 cannot hold)."""
        if self._sign_pending:
            self._check_sign(self._labels.min())
            check_exact_int_labels(self._labels, "y_true")
        return self._labels

    @labels.setter
    def labels(self, value: Values) -> None:
        self._labels = value
        self._sign_pending = False

    def _check_sign(self, smallest: Any) -> None:
        if smallest < 0:
            raise negative_labels_error("y_true", smallest)
        self._sign_pending = False

    def _init(self, labels: Values, qids: np.ndarray, layout: Any) -> None:
        self.labels = labels
        self.qids = qids
        self._checked: np.ndarray | None = None  # scores flatten_inputs validated for this plan
        self._checked_finite = True  # False: _checked not yet looked at for NaN and inf
        self.layout: Any = layout  # kernel.Layout (numpy) or backend.SegLayout (numba)
        self.n_rows = int(labels.shape[0])
        self.n_queries = int(qids.shape[0])
        self._max_width = _max_size(self.layout)
        self._gains: dict[Any, NDArray[Any]] = {}
        self._rel: dict[float, tuple[NDArray[Any], Values]] = {}
        self._disc: dict[Any, Values] = {}
        self._ideal_cache: dict[Any, Values] = {}
        self._graded_none: dict[Any, NDArray[np.bool_]] = {}
        self._base_labels = labels
        self._base_layout = self.layout

    @property
    def sizes(self) -> NDArray[np.int64]:
        """(n_queries,) int64 documents per query, in the order of :attr:`qids`."""
        return self.layout.sizes

    def __getstate__(self) -> dict[str, Any]:
        # caches are rebuilt on demand; they may be keyed by an unpicklable callable (a lambda)
        state = self.__dict__.copy()
        for name in ("_gains", "_rel", "_disc", "_ideal_cache", "_graded_none"):
            state[name] = {}
        state["_checked"] = None
        state["_checked_finite"] = True
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "labels" in state:  # pickled before labels became a property
            state["_labels"] = state.pop("labels")
        state.pop("sizes", None)  # pickled before sizes became a property (the layout's)
        state.setdefault("_checked_finite", True)
        state.setdefault("_sign_pending", False)
        state.setdefault("_graded_none", {})  # pickled before the cache
        self.__dict__.update(state)

    def __repr__(self) -> str:
        lo, hi = int(self.sizes.min()), int(self.sizes.max())
        docs = f"{lo}" if lo == hi else f"{lo}..{hi}"
        base = ", recall_base=True" if self._base_layout is not self.layout else ""
        return (f"QueryPlan(n_queries={self.n_queries}, n_rows={self.n_rows}, "
                f"docs_per_query={docs}{base})")

    @classmethod
    def from_group_sizes(cls, y_true: ArrayLike, group_sizes: ArrayLike) -> QueryPlan:
        """Plan for rows stored query after query, given the size of each query (LightGBM's
        ``group``). Query ids are then 0..n_queries-1.

        Raises
        ------
        ValueError
            Sizes that are not positive integers or do not add up to the number of rows; any
            label error of :class:`QueryPlan`.
        TypeError
            Sizes that are not numbers (text, ...); labels that are not numbers.
        """
        labels = check_labels(y_true, compact=True)
        if labels.ndim != 1:
            raise ValueError(f"y_true must be 1-D with group_sizes; got {labels.ndim}-D")
        sizes = check_group_sizes(group_sizes, labels.shape[0], "group_sizes")
        plan = cls.__new__(cls)
        plan._shape2d = None
        plan._backend = _backend.get_backend()
        plan._init(labels, np.arange(sizes.size, dtype=np.int64), plan._layout_from_sizes(sizes))
        return plan

    # ----------------------------------------------------------------- cached label-side state
    def _gain_ext(self, gain: GainLike) -> NDArray[Any]:
        key = gain_key(gain)
        hit = self._gains.get(key)
        if hit is None:
            if self._backend == "numpy":  # the numba kernel needs no padding sentinel
                hit = _kernel.padded(apply_gain(gain, self.labels), 0.0)
            else:  # small integer gains: 1 byte per row, read exactly by the compiled kernel
                if self._sign_pending:  # uint8 gains only come from labels >= 0
                    hit = small_int_gains(gain, self._labels, _backend.label_range,
                                          _backend.take_table, _backend.take_ranged)
                    if hit is not None:
                        self._sign_pending = False
                if hit is None:
                    hit = self._compact_gains(gain, self.labels)
            self._gains[key] = hit
        return hit

    def _relevance(self, threshold: float) -> tuple[NDArray[Any], Values]:
        """(per-row 0/1 relevance with the padding 0, relevant documents per query R)."""
        t = check_threshold(threshold)
        hit = self._rel.get(t)
        if hit is not None:
            return hit
        if self._backend == "numba":  # [mem] 0/1 as uint8: 1 byte per row
            rel_ext = (self.labels >= t).view(np.uint8)
            if self._base_layout is self.layout:
                n_rel = _backend.segment_sums(self.layout, rel_ext)
            else:
                n_rel = _backend.segment_sums(
                    self._base_layout, (self._base_labels >= t).view(np.uint8))
            self._rel[t] = (rel_ext, n_rel)
            return rel_ext, n_rel
        rel = (self.labels >= t).astype(np.float64)
        rel_ext = _kernel.padded(rel, 0.0)
        if self._base_layout is self.layout:
            base_ext = rel_ext
        else:
            base_ext = _kernel.padded((self._base_labels >= t).astype(np.float64), 0.0)
        n_rel = np.zeros(self.n_queries)
        for b in self._base_layout.buckets:
            n_rel[b.queries] = np.take(base_ext, b.rows).sum(axis=1)
        out = (rel_ext, n_rel)
        self._rel[t] = out
        return out

    def _discount(self, discount: DiscountLike, log_base: float,
                  width: int | None = None) -> Values:
        """Discounts of ranks 1..width (default: the longest list), cached; may be longer."""
        return self._discount_by_key(discount_key(discount, log_base), width)

    def _discount_by_key(self, key: Any, width: int | None = None) -> Values:
        need = self._max_width if width is None else min(width, self._max_width)
        hit = self._disc.get(key)
        if hit is None or hit.shape[0] < need:
            hit = discount_table(key, need)
            self._disc[key] = hit
        return hit

    def _ideal_sorted(self, gain: GainLike) -> Iterator[Values]:
        """Per bucket, each query's gains sorted descending: the ideal vector (JK 2002, eq. 4).

        Generated bucket by bucket and not kept (its summaries are cached instead), so the plan
        holds no padded copy of the labels.
        """
        if self._base_layout is self.layout:
            g = self._gain_ext(gain)
        else:
            g = _kernel.padded(apply_gain(gain, self._base_labels), 0.0)
        for b in self._base_layout.buckets:
            srt = np.sort(np.take(g, b.rows), axis=1)
            yield srt[:, ::-1]

    def _base_gains(self, gain: GainLike) -> NDArray[Any]:
        if self._base_layout is self.layout:
            return self._gain_ext(gain)
        return self._compact_gains(gain, self._base_labels)

    @staticmethod
    def _compact_gains(gain: GainLike, labels: NDArray[Any]) -> NDArray[Any]:
        """The gains of ``labels`` for the compiled kernel: uint8 when exact (a table lookup
        for small integer labels, in compiled passes), else float64."""
        hit = small_int_gains(gain, labels, _backend.label_range, _backend.take_table,
                              _backend.take_ranged)
        return compact_gains(apply_gain(gain, labels)) if hit is None else hit

    def _ideal_at(self, gain: GainLike, disc: Values, dkey: Any, ks: Sequence[Cutoff]) -> Values:
        """Ideal DCG (or CG) at each cutoff: shape (len(ks), n_queries), cached per cutoff.

        Cached rows are checked for overflow once and kept read-only; one cutoff's result is
        a view of its cached row (no copy per call). Raises ValueError when a sum overflows.
        """
        gk = gain_key(gain)
        if self._backend == "numba":
            todo = [k for k in dict.fromkeys(ks) if (gk, dkey, k) not in self._ideal_cache]
            if todo:
                with np.errstate(over="ignore", invalid="ignore"):
                    vals = _backend.ideal_at(self._base_layout, self._base_gains(gain), disc,
                                             todo)
                for k, row in zip(todo, vals, strict=True):
                    self._cache_ideal((gk, dkey, k), row)
        for k in dict.fromkeys(ks):
            ck = (gk, dkey, k)
            if ck not in self._ideal_cache:
                hit = np.zeros(self.n_queries)
                ideals = self._ideal_sorted(gain)
                with np.errstate(over="ignore", invalid="ignore"):
                    for b, ideal in zip(self._base_layout.buckets, ideals, strict=True):
                        w = ideal.shape[1] if k is None else min(k, ideal.shape[1])
                        hit[b.queries] = ideal[:, :w] @ disc[:w]
                self._cache_ideal(ck, hit)
        if len(ks) == 1:
            return self._ideal_cache[(gk, dkey, ks[0])][None, :]
        return np.stack([self._ideal_cache[(gk, dkey, k)] for k in ks])

    def _cache_ideal(self, key: Any, row: Values) -> None:
        """Keep one cutoff's ideal sums, float64 of shape (n_queries,), contiguous and
        read-only under ``key`` (gain, discount, k); ValueError when a sum overflowed."""
        row = np.ascontiguousarray(row)
        _check_finite_sums(row)
        row.setflags(write=False)
        self._ideal_cache[key] = row

    # ----------------------------------------------------------------------------- ranking
    def rank(
        self, y_score: ArrayLike, *, depth: int | None = None, ties: str = "average"
    ) -> _kernel.Ranking:
        """Order ``y_score`` within every query once, for reuse by several metric calls.

        Parameters
        ----------
        y_score : array-like of shape (n_rows,) (or the 2-D shape of ``y_true``)
            Finite model scores; higher ranks first.
        depth : int, optional
            Only ranks 1..depth will be read (cutoff metrics): an O(n) per-query selection
            replaces the full sort. None keeps the whole list.
        ties : {"average", "optimistic", "pessimistic", "stable"}
            "stable" fixes input order within ties; the other modes keep tie groups.

        Returns
        -------
        Ranking
            Pass it as ``y_score`` to any metric method of this plan.

        Raises
        ------
        ValueError
            Wrong length, NaN or inf scores, depth <= 0, unknown ``ties``.
        TypeError
            ``depth`` not an int (a float, a string, a bool); scores that are not numbers.
        """
        return self._rank(y_score, depth, ties, keep=True)

    def _rank(self, y_score: ArrayLike, depth: int | None, ties: str,
              keep: bool = False) -> _kernel.Ranking:
        """:meth:`rank`; ``keep``: the Ranking outlives the call (the public method), so the
        compiled backend's Ranking, which reads its scores again, gets its own copy of them
        when they are the caller's memory (a reused score buffer changed every boosting
        round would change the Ranking's numbers silently)."""
        check_ties(ties)
        depth = check_k(depth, "depth")
        scores = self._scores(y_score)
        if (keep and self._backend == "numba"
                and (scores is y_score or not scores.flags.owndata)):
            scores = scores.copy()
        if self._backend == "numba":
            ranking: _kernel.Ranking = _backend.rank(self.layout, scores, depth, ties)
        else:
            ranking = _kernel.rank(self.layout, scores, depth, ties)
        ranking.owner = self  # type: ignore[attr-defined]
        return ranking

    def _scores(self, y_score: ArrayLike, finite: bool = True) -> np.ndarray:
        """Validated 1-D scores, one per row; ``finite=False``: NaN and inf not looked for yet
        (then only for :meth:`_fused`, which finds them)."""
        # the one-call functions' scores (flatten_inputs checked them); None is never those
        if y_score is not None and y_score is self._checked:
            scores = y_score
            if finite and not self._checked_finite:
                check_finite(scores)
                self._checked_finite = True
        else:
            scores = check_scores(y_score, finite=finite)
        if self._shape2d is not None and scores.ndim == 2:
            if scores.shape != self._shape2d:
                raise ValueError(
                    f"y_score must have the shape of y_true {self._shape2d}; got {scores.shape}"
                )
            scores = scores.ravel()
        if scores.ndim != 1 or scores.shape[0] != self.n_rows:
            raise ValueError(
                f"y_score must have one score per row ({self.n_rows}); got shape {scores.shape}"
            )
        return scores

    # ------------------------------------------------------------------ one fused pass
    def _fusable(self, y_score: Any) -> bool:
        return self._backend == "numba" and not isinstance(y_score, _kernel.Ranking)

    def _fused(self, scores: np.ndarray, ties: str,
               fams: list[tuple[str, Any, Any, tuple[Cutoff, ...]]],
               fam_ties: list[str] | None = None) -> list[Values] | None:
        """Sums of every family ``(kind, values, discount key or None, ks)`` with each query
        ranked once by the compiled kernel, or None when they cannot share one pass (the
        scores not read: a caller then ranks ``y_score`` through :meth:`_ranking`, which
        validates it in full). ``scores``: from ``_scores(y_score, finite=False)``; unless
        they were checked for NaN and inf already, the kernel looks for them as it reads each
        list and a ValueError is raised (:func:`.check_finite`)."""
        dkeys = {f[2] for f in fams if f[2] is not None and f[2] != "rank"}
        if len(dkeys) > 1:
            return None
        ks_all = [k for f in fams if f[2] is not None and f[2] != "rank" for k in f[3]]
        need = None if any(k is None for k in ks_all) else max((k for k in ks_all
                                                                if k is not None), default=1)
        width = self._max_width if need is None else min(need, self._max_width)
        disc = self._discount_by_key(next(iter(dkeys)), width) if dkeys else None
        families = [_backend.Family(kind, values, 2 if dk == "rank" else 0 if dk is None else 1,
                                    ks, None if fam_ties is None else fam_ties[f])
                    for f, (kind, values, dk, ks) in enumerate(fams)]
        with np.errstate(over="ignore", invalid="ignore"):
            return _backend.evaluate_fused(
                self.layout, scores, ties, families, disc,
                check=scores is not self._checked or not self._checked_finite)

    def _gain_family(self, gain: GainLike, discount: DiscountLike | None, log_base: float,
                     ks: tuple[Cutoff, ...]) -> tuple[str, Any, Any, tuple[Cutoff, ...]]:
        dk = None if discount is None else discount_key(discount, log_base)
        return ("gain", self._gain_ext(gain), dk, ks)

    def _binary_family(self, kind: str, threshold: float, ks: tuple[Cutoff, ...],
                       denominator: str = "relevant"
                       ) -> tuple[str, Any, Any, tuple[Cutoff, ...]] | None:
        """None for what needs a written-out ranking: R-precision (a cutoff per query) and
        AP with the "found" denominator (read from the ranking by ``core.found``)."""
        kind = {"f1": "fbeta"}.get(kind, kind)
        if kind == "rprec" or (kind == "ap" and denominator == "found"):
            return None
        rel = self._relevance(threshold)[0]
        if kind == "success":
            return ("rr", rel, "rank", ks)
        return ("ap" if kind == "ap" else "rr" if kind == "rr" else "rel", rel, None, ks)

    def _ranking(self, y_score: Any, ks: Sequence[Cutoff], ties: str) -> _kernel.Ranking:
        check_ties(ties)
        need = None if any(k is None for k in ks) else max(k for k in ks if k is not None)
        if isinstance(y_score, _kernel.Ranking):
            if getattr(y_score, "owner", None) is not self:
                raise ValueError("this Ranking was made by another QueryPlan")
            if (y_score.ties == "stable") != (ties == "stable"):
                raise ValueError(
                    f"this Ranking was made with ties={y_score.ties!r}; rank again for "
                    f"ties={ties!r}"
                )
            if y_score.depth is not None and (need is None or need > y_score.depth):
                raise ValueError(
                    f"this Ranking keeps only the top {y_score.depth} ranks; cutoff {need} needs "
                    "a deeper one (plan.rank(y_score, depth=None))"
                )
            return y_score
        return self._rank(y_score, need, ties)

    # ---------------------------------------------------------------------- empty queries
    def _finish(self, values: Values, empty_mask: NDArray[np.bool_], empty: Any, what: str,
                curve: bool = False):
        """Apply the empty rule where ``empty_mask`` is set (in place; ``values`` float64 and
        the bool mask of the same shape: (n_queries,), (n_cutoffs, n_queries), or
        (n_queries, depth) when ``curve``): NaN for "skip", the number for a number. Raises
        ValueError naming up to five such queries' qids for "error" (:meth:`_empty_error`)."""
        rule = check_empty(empty)
        if not empty_mask.any():
            return values
        if rule == "error":
            per_query = empty_mask if values.ndim == 1 else empty_mask.any(axis=1 if curve else 0)
            self._empty_error(np.asarray(per_query), what)
        values[empty_mask] = np.nan if rule == "skip" else rule
        return values

    def _empty_error(self, per_query: NDArray[np.bool_], what: str) -> NoReturn:
        """Raise the ValueError of ``empty="error"``: ``what`` is undefined for the queries
        flagged in ``per_query`` (bool, shape (n_queries,)), naming the first five qids (in
        the plan's query order): no relevant document, so the measure's denominator (the
        ideal of nDCG/nCG, Järvelin & Kekäläinen 2002; the recall base R of AP, recall, ...)
        is 0."""
        bad = self.qids[np.flatnonzero(per_query)][:5]
        raise ValueError(
            f"{what} is undefined for queries without relevant documents (qid {bad.tolist()}); "
            "pass empty=0.0, 1.0 or 'skip'"
        )

    def _normalise(self, vals: Values, ideal: Values, empty: Any, curve: bool = False
                   ) -> Values:
        """vals / ideal in place; where the ideal is 0 the query is empty (JK 2002, eq. 5).
        ValueError when a value of ``vals`` overflowed (:func:`_check_finite_sums`).
        ``curve``: (n_queries, depth) arrays, else (n_queries,) or (n_cutoffs, n_queries)."""
        rule = check_empty(empty)
        if (self._backend == "numba" and vals.flags.c_contiguous and ideal.flags.c_contiguous
                and vals.shape == ideal.shape):
            # one compiled pass: divide, put the empty rule's value where the ideal is 0, and
            # look for overflowed sums (no pass of their own)
            fill = np.nan if rule == "skip" else 0.0 if rule == "error" else float(rule)
            n_zero, bad = _backend.divide_ideal(vals.reshape(-1), ideal.reshape(-1), fill)
            if bad:
                raise _overflow_error()
            if n_zero and rule == "error":
                self._finish(vals, ideal <= 0, rule, "nDCG/nCG", curve)  # raises, naming qids
            return vals
        _check_finite_sums(vals)
        zero = ideal <= 0
        with np.errstate(divide="ignore", invalid="ignore"):  # those quotients are replaced
            np.divide(vals, ideal, out=vals)  # (a masked divide is several times slower)
        if zero.any():
            vals[zero] = 0.0
        return self._finish(vals, zero, empty, "nDCG/nCG", curve)

    # --------------------------------------------------------------------------- metrics
    def _gain_metric(self, y_score, ks, gain, discount, log_base, ties, normalize, empty,
                     sums=None):
        """``sums``: the contributions' sums at ``ks`` when already computed (one fused pass)."""
        if sums is None and self._fusable(y_score):
            check_ties(ties)
            scores = self._scores(y_score, finite=False)
            res = self._fused(scores, ties, [self._gain_family(gain, discount, log_base,
                                                                tuple(ks))])
            sums = None if res is None else res[0]
        need = None if any(k is None for k in ks) else max(k for k in ks if k is not None)
        width = self._max_width if need is None else min(need, self._max_width)
        if discount is None:
            disc, dkey = np.ones(width), ("none",)
        else:
            disc = self._discount(discount, log_base, width)
            dkey = discount_key(discount, log_base)
        with np.errstate(over="ignore", invalid="ignore"):  # reported below, with the cause
            if sums is None:
                ranking = self._ranking(y_score, ks, ties)
                g = self._gain_ext(gain)
                vals = _metrics.at_cutoffs(ranking, self.n_queries, "gain", g, ties, ks,
                                           None if discount is None else disc)
                del ranking  # freed before the ideal's work buffer exists
            else:
                vals = sums
            if not normalize:
                _check_finite_sums(vals)
                return vals
            ideal = self._ideal_at(gain, disc, dkey, ks)  # checked when cached
        return self._normalise(vals, ideal, empty)  # checks vals

    def _binary_metric(self, y_score, ks, kind, threshold, ties, empty, beta=1.0,
                       denominator="relevant", precision_denominator="k", sums=None):
        kind = {"f1": "fbeta"}.get(kind, kind)
        fam = None
        if sums is None and self._fusable(y_score):
            fam = self._binary_family(kind, threshold, tuple(ks), denominator)
        if fam is not None:
            check_ties(ties)
            scores = self._scores(y_score, finite=False)
            res = self._fused(scores, ties, [fam])
            sums = None if res is None else res[0]
        rel_ext, n_rel = self._relevance(threshold)
        if sums is not None:
            pass
        elif kind == "rprec":
            ranking = self._ranking(y_score, ks, ties)
            # one row per requested name (Rprec has no cutoff: the rows are equal)
            sums = np.repeat(self._rel_at_r(ranking, rel_ext, n_rel, ties)[None, :], len(ks),
                             axis=0)
        elif kind == "success":
            ranking = self._ranking(y_score, ks, ties)
            # the rr terms are P(first relevant at rank i) / i: times i they sum to
            # P(a relevant document within k), exact under tie averaging
            ranks = np.arange(1, self._max_width + 1, dtype=np.float64)
            sums = _metrics.at_cutoffs(ranking, self.n_queries, "rr", rel_ext, ties, ks, ranks)
        else:
            ranking = self._ranking(y_score, ks, ties)
            sums = _metrics.at_cutoffs(
                ranking, self.n_queries, "ap" if kind == "ap" else "rr" if kind == "rr" else "rel",
                rel_ext, ties, ks,
            )
        # [mem] the sums are this call's own (n_ks, n_queries) array, divided in place by
        # per-query denominators made only for the measures that read them; a query without
        # relevant documents divides by 0 here and gets the empty rule's value in _finish
        if kind == "ap" and denominator == "found":  # torchmetrics' AP@k: exact, not E/E
            out = _found.ap_found(ranking, self.n_queries, rel_ext, ties, ks, sums)
        elif kind in ("precision", "recall", "fbeta", "ap", "rprec"):
            if kind == "fbeta" and beta * beta <= F_AS_RECALL:
                sums *= 1.0 + beta * beta  # (1 + beta^2) x sums / (beta^2 R + k), in that order
            with np.errstate(divide="ignore", invalid="ignore"):
                for j, k in enumerate(ks):
                    np.divide(sums[j], self._denominator(kind, k, n_rel, beta, denominator,
                                                         precision_denominator), out=sums[j])
            out = sums
        else:
            out = sums
        empty_mask = np.broadcast_to(n_rel[None, :] == 0, out.shape)
        names = {"precision": "precision", "recall": "recall", "fbeta": "F-measure",
                 "ap": "average precision", "rr": "reciprocal rank", "rprec": "R-precision",
                 "success": "success"}
        return self._finish(out, empty_mask, empty, names[kind])

    def _denominator(self, kind: str, k: int | None, n_rel: Values, beta: float,
                     denominator: str, precision_denominator: str) -> NDArray[Any] | float:
        """Per-query denominator of a binary measure's sums at cutoff k (None: the whole list,
        whose length is the query's size): k for P@k (a float; min(k, size) for XGBoost's
        pre@k), R for recall, R-precision and AP (trec_eval's recall, Rprec and map; the
        tie-averaged AP sums of McSherry & Najork 2008, sec. 3, over R), min(k, R) for AP@k
        over min(k, R), beta^2 R + k for F (F_beta = (1 + beta^2) P R / (beta^2 P + R) with
        P = sums / k and R's recall = sums / R). ``n_rel``: (n_queries,) float64 relevant
        documents R. Returns a float or an (n_queries,) array (``n_rel`` or :attr:`sizes` themselves
        where they are the denominator: read, never written); raises nothing (R = 0 divides
        to NaN or inf, replaced by the empty rule)."""
        if (kind in ("recall", "rprec") or (kind == "ap" and denominator == "relevant")
                or (kind == "fbeta" and beta * beta > F_AS_RECALL)):
            return n_rel
        if kind == "precision" and k is not None and precision_denominator != "min_k_size":
            return float(k)  # [mem] a scalar: the same quotients, no array per query
        k_eff: NDArray[Any] = self.sizes if k is None else np.full(self.n_queries, float(k))
        if kind == "precision":
            if precision_denominator == "min_k_size":  # XGBoost's pre@k, TF-Ranking
                return np.minimum(k_eff, self.sizes)
            return k_eff
        if kind == "fbeta":
            return np.add(beta * beta * n_rel, k_eff)
        return np.minimum(k_eff, n_rel)  # AP@k over min(k, R)

    def _rel_at_r(self, ranking: _kernel.Ranking, rel_ext: Values, n_rel: Values,
                  ties: str) -> Values:
        """Expected relevant documents in ranks 1..R per query (R = its relevant documents)."""
        out = np.zeros(self.n_queries)
        for rb, cum in _metrics.cumulative(ranking, "rel", rel_ext, ties, None):
            r = n_rel[rb.queries].astype(np.int64)
            ok = np.flatnonzero(r > 0)
            if ok.size == 0 or cum.shape[1] == 0:
                continue
            col = np.minimum(r[ok], cum.shape[1]) - 1
            out[rb.queries[ok]] = cum[ok, col]
        return out

    def _label_table(self, gains: Any) -> GainLike:
        """A ``{label: value}`` mapping completed with the identity for unlisted levels (the
        ``gains=`` rule of the measure language), or "linear" when none is given."""
        if gains is None:
            return "linear"
        if not isinstance(gains, Mapping) and not isinstance(gains, tuple):
            raise TypeError(f"gains must be a mapping {{label: value}}; got {gains!r}")
        table = {float(v): float(v)
                 for v in np.unique(np.concatenate([self.labels, self._base_labels])).tolist()}
        for a, b in (gains.items() if isinstance(gains, Mapping) else gains):
            b = float(b)
            if not math.isfinite(b) or b < 0:
                raise ValueError(f"gains must map labels to finite values >= 0; got {b!r}")
            table[float(a)] = b
        return table

    def _per_query_any(self, positive_rows: NDArray[np.bool_],
                       positive_base: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Whether each query's recall base has a row marked in ``positive_*``."""
        if self._backend == "numba":
            if self._base_layout is self.layout:
                return _backend.segment_sums(self.layout, positive_rows.astype(np.float64)) > 0
            return _backend.segment_sums(self._base_layout,
                                         positive_base.astype(np.float64)) > 0
        ext = _kernel.padded((positive_rows if self._base_layout is self.layout
                              else positive_base).astype(np.float64), 0.0)
        out = np.zeros(self.n_queries, dtype=bool)
        for b in self._base_layout.buckets:
            out[b.queries] = np.take(ext, b.rows).sum(axis=1) > 0
        return out

    def _graded_empty(self, table: Any) -> NDArray[np.bool_]:
        """(n_queries,) queries whose recall base has no row of positive grade under ``table``
        (:meth:`_label_table`: "linear", the label itself, or a {label: grade} mapping): ERR's
        and graded RBP's queries without a relevant document. Label-side, cached per table
        (n_queries bools each); the linear grades are the labels themselves (no copy)."""
        key = table if isinstance(table, str) else tuple(sorted(dict(table).items()))
        hit = self._graded_none.get(key)
        if hit is None:
            grade = (lambda v: v) if table == "linear" else (lambda v: apply_gain(table, v))
            g = grade(self.labels)
            gb = g if self._base_layout is self.layout else grade(self._base_labels)
            hit = self._graded_none[key] = ~self._per_query_any(g > 0, gb > 0)
        return hit

    def _err_metric(self, y_score, ks, max_grade, gains, ties, empty):
        top = check_positive_real("max_grade", max_grade)
        table = self._label_table(gains)
        grade = (lambda v: v) if table == "linear" else (lambda v: apply_gain(table, v))
        grades = grade(self.labels)  # [mem] linear: the labels themselves, no float64 copy
        base = grades if self._base_layout is self.layout else grade(self._base_labels)
        if grades.size and float(grades.max()) > top:
            raise ValueError(
                f"ERR: a grade {float(grades.max()):g} exceeds max_grade={top:g} (the stop "
                "probability (2**g - 1) / 2**max_grade would exceed 1); pass "
                "max_grade >= the largest label (gdeval rejects labels above 4)"
            )
        # [mem] the grades go before the ranking is made: one float64 per row (the stop
        # probabilities) next to it, no padded copy for the compiled kernel
        del base
        none = self._graded_empty(table)
        stop = _err.stop_probabilities(grades, top)
        del grades
        if self._backend == "numpy":
            stop = _kernel.padded(stop, 0.0)
        ranking = self._ranking(y_score, ks, ties)
        vals = _err.err_at_cutoffs(ranking, self.n_queries, stop, ties, list(ks))
        return self._finish(vals, np.broadcast_to(none[None, :], vals.shape), empty, "ERR")

    def _rbp_metric(self, y_score, ks, p, threshold, gains, ties, empty):
        p = check_positive_real("p", p)
        if not p < 1.0:
            raise ValueError(f"p (RBP persistence) must be in (0, 1); got {p!r}")
        if threshold is not None and gains is not None:
            raise ValueError("RBP takes rel= (binary) or gains= (graded), not both")
        if threshold is None:
            table = self._label_table(gains)
            none = self._graded_empty(table)  # [mem] before the ranking
        ranking = self._ranking(y_score, ks, ties)
        need = None if any(k is None for k in ks) else max(k for k in ks if k is not None)
        width = self._max_width if need is None else min(need, self._max_width)
        disc = (1.0 - p) * np.power(p, np.arange(width, dtype=np.float64))
        if threshold is not None:
            values, n_rel = self._relevance(threshold)
            vals = _metrics.at_cutoffs(ranking, self.n_queries, "rel", values, ties, ks, disc)
            none = n_rel == 0
        else:
            values = self._gain_ext(table)
            with np.errstate(over="ignore", invalid="ignore"):  # reported below, with the cause
                vals = _metrics.at_cutoffs(ranking, self.n_queries, "gain", values, ties, ks,
                                           disc)
            _check_finite_sums(vals)  # graded gains (the labels themselves) may overflow
        return self._finish(vals, np.broadcast_to(none[None, :], vals.shape), empty, "RBP")

    def err(self, y_score, *, k: Cutoff = None, max_grade: float = 4, ties: str = "average",
            empty: float | str = 0.0) -> Values:
        """Expected reciprocal rank (at k) per query. See :func:`rankmetrics.err`."""
        return self._err_metric(y_score, (check_k(k),), max_grade, None, ties, empty)[0]

    def rbp(self, y_score, *, p: float = 0.8, k: Cutoff = None, threshold: float | None = None,
            ties: str = "average", empty: float | str = 0.0) -> Values:
        """Rank-biased precision (at k) per query. See :func:`rankmetrics.rbp`."""
        return self._rbp_metric(y_score, (check_k(k),), p, threshold, None, ties, empty)[0]

    def cg(self, y_score, *, k: Cutoff = None, gain: GainLike = "exponential",
           ties: str = "average") -> Values:
        """Cumulated gain at k per query (JK 2002, eq. 1). See :func:`rankmetrics.cg`."""
        return self._gain_metric(y_score, (check_k(k),), gain, None, 2.0, ties, False, 0.0)[0]

    def dcg(self, y_score, *, k: Cutoff = None, gain: GainLike = "exponential",
            discount: DiscountLike = "log", log_base: float = 2, ties: str = "average") -> Values:
        """Discounted cumulated gain at k per query. See :func:`rankmetrics.dcg`."""
        return self._gain_metric(y_score, (check_k(k),), gain, _named(discount), log_base, ties,
                                 False, 0.0)[0]

    def ncg(self, y_score, *, k: Cutoff = None, gain: GainLike = "exponential",
            ties: str = "average", empty: float | str = 0.0) -> Values:
        """Normalised cumulated gain at k per query. See :func:`rankmetrics.ncg`."""
        return self._gain_metric(y_score, (check_k(k),), gain, None, 2.0, ties, True, empty)[0]

    def ndcg(self, y_score, *, k: Cutoff = None, gain: GainLike = "exponential",
             discount: DiscountLike = "log", log_base: float = 2, ties: str = "average",
             empty: float | str = 0.0) -> Values:
        """Normalised DCG at k per query. See :func:`rankmetrics.ndcg`."""
        return self._gain_metric(y_score, (check_k(k),), gain, _named(discount), log_base, ties,
                                 True, empty)[0]

    def precision(self, y_score, *, k: Cutoff = None, threshold: float = 1,
                  ties: str = "average", empty: float | str = 0.0,
                  denominator: str = "k") -> Values:
        """Precision at k per query. See :func:`rankmetrics.precision`.

        ``denominator="k"`` (default) divides the relevant count in the top k by k;
        ``"min_k_size"`` by ``min(k, n_q)``, the query's list length when it is shorter
        than k (XGBoost's ``pre@k``).
        """
        check_choice("denominator", denominator, PRECISION_DENOMINATORS)
        return self._binary_metric(y_score, (check_k(k),), "precision", threshold, ties, empty,
                                   precision_denominator=denominator)[0]

    def recall(self, y_score, *, k: Cutoff = None, threshold: float = 1,
               ties: str = "average", empty: float | str = 0.0) -> Values:
        """Recall at k per query. See :func:`rankmetrics.recall`."""
        return self._binary_metric(y_score, (check_k(k),), "recall", threshold, ties, empty)[0]

    def fbeta(self, y_score, *, beta: float = 1.0, k: Cutoff = None, threshold: float = 1,
              ties: str = "average", empty: float | str = 0.0) -> Values:
        """F-beta at k per query. See :func:`rankmetrics.fbeta`."""
        beta = check_positive_real("beta", beta)
        return self._binary_metric(y_score, (check_k(k),), "fbeta", threshold, ties, empty,
                                   beta=beta)[0]

    def f1(self, y_score, *, k: Cutoff = None, threshold: float = 1, ties: str = "average",
           empty: float | str = 0.0) -> Values:
        """F1 at k per query. See :func:`rankmetrics.f1`."""
        return self.fbeta(y_score, beta=1.0, k=k, threshold=threshold, ties=ties, empty=empty)

    def average_precision(self, y_score, *, k: Cutoff = None, threshold: float = 1,
                          ties: str = "average", empty: float | str = 0.0,
                          denominator: str = "relevant") -> Values:
        """Average precision (at k) per query. See :func:`rankmetrics.average_precision`."""
        check_choice("denominator", denominator, DENOMINATORS)
        return self._binary_metric(y_score, (check_k(k),), "ap", threshold, ties, empty,
                                   denominator=denominator)[0]

    def reciprocal_rank(self, y_score, *, k: Cutoff = None, threshold: float = 1,
                        ties: str = "average", empty: float | str = 0.0) -> Values:
        """Reciprocal rank (at k) per query. See :func:`rankmetrics.reciprocal_rank`."""
        return self._binary_metric(y_score, (check_k(k),), "rr", threshold, ties, empty)[0]

    def r_precision(self, y_score, *, threshold: float = 1, ties: str = "average",
                    empty: float | str = 0.0) -> Values:
        """R-precision per query. See :func:`rankmetrics.r_precision`."""
        return self._binary_metric(y_score, (None,), "rprec", threshold, ties, empty)[0]

    def success(self, y_score, *, k: Cutoff = None, threshold: float = 1,
                ties: str = "average", empty: float | str = 0.0) -> Values:
        """Success at k per query. See :func:`rankmetrics.success`."""
        return self._binary_metric(y_score, (check_k(k),), "success", threshold, ties, empty)[0]

    # ---------------------------------------------------------------------------- curves
    def _curve(self, y_score, depth, gain, discount, log_base, ties, normalize, empty):
        depth = check_depth(depth)
        check_result_size(self.n_queries, depth)
        g = self._gain_ext(gain)  # before the ranking's buffers exist
        ranking = self._ranking(y_score, (depth,), ties)
        disc = np.ones(depth) if discount is None else self._discount(discount, log_base, depth)
        with np.errstate(over="ignore", invalid="ignore"):  # reported below, with the cause
            vals = _metrics.curve(ranking, self.n_queries, "gain", g, ties, depth, disc)
            del ranking  # freed before the ideal curve exists
            if not normalize or self._backend == "numba":
                _check_finite_sums(vals)
            if not normalize:
                return vals
            if self._backend == "numba":
                return self._normalise_blocks(vals, gain, disc, depth, empty)
            ideal = self._ideal_curve(gain, disc, depth)
        _check_finite_sums(ideal)
        return self._normalise(vals, ideal, empty, curve=True)  # checks vals

    def _normalise_blocks(self, vals: Values, gain: GainLike, disc: Values, depth: int,
                          empty: Any) -> Values:
        """:meth:`_normalise` of a curve with the ideal curve made block by block of queries
        (compiled backend): no second (n_queries, depth) array and no per-value mask, only one
        flag per query. Queries are the base layout's segments (one each); each block is
        divided by the compiled pass :meth:`_normalise` makes (``vals`` were checked)."""
        rule = check_empty(empty)
        fill = np.nan if rule == "skip" else 0.0 if rule == "error" else float(rule)
        lay = self._base_layout
        gains = self._base_gains(gain)
        empty_q = np.zeros(vals.shape[0], dtype=bool)  # [mem] 1 byte per query
        n_seg = lay.offsets.shape[0] - 1
        in_order = lay.seg_slots.shape[0] == 0 or bool(
            np.array_equal(lay.seg_slots, np.arange(n_seg)))
        step = max(64, max(4096, self.n_rows >> 3) // depth)  # ~1 byte per row, or 64 queries
        for a in range(0, n_seg, step):
            b = min(n_seg, a + step)
            qs: Any = slice(a, b) if in_order else lay.seg_slots[a:b]
            sub = _backend.SegLayout(lay.n_rows, b - a, None, lay.offsets[a: b + 1],
                                     lay.order, _backend._IN_ORDER)
            with np.errstate(over="ignore", invalid="ignore"):
                ideal = _backend.ideal_curve(sub, gains, disc, depth)
            _check_finite_sums(ideal)
            part = vals[qs]  # a C-contiguous view when in order, else a copy
            n_zero, _ = _backend.divide_ideal(part.reshape(-1), ideal.reshape(-1), fill)
            if n_zero:
                empty_q[qs] = (ideal <= 0).any(axis=1)
            if not in_order:
                vals[qs] = part
            del ideal, part  # one block alive at a time
        if rule == "error" and empty_q.any():
            self._empty_error(empty_q, "nDCG/nCG")
        return vals

    def _ideal_curve(self, gain: GainLike, disc: Values, depth: int) -> Values:
        if self._backend == "numba":
            return _backend.ideal_curve(self._base_layout, self._base_gains(gain), disc, depth)
        out = np.zeros((self.n_queries, depth))
        for b, ideal in zip(self._base_layout.buckets, self._ideal_sorted(gain), strict=True):
            w = min(depth, ideal.shape[1])
            if w == 0:
                continue
            cum = np.cumsum(ideal[:, :w] * disc[:w], axis=1)
            out[b.queries, :w] = cum
            out[b.queries, w:] = cum[:, -1:]
        return out

    def cg_curve(self, y_score, *, depth: int, gain: GainLike = "exponential",
                 ties: str = "average") -> Values:
        """CG vector per query, shape (n_queries, depth). See :func:`rankmetrics.cg_curve`."""
        return self._curve(y_score, depth, gain, None, 2.0, ties, False, 0.0)

    def dcg_curve(self, y_score, *, depth: int, gain: GainLike = "exponential",
                  discount: DiscountLike = "log", log_base: float = 2,
                  ties: str = "average") -> Values:
        """DCG vector per query, shape (n_queries, depth). See :func:`rankmetrics.dcg_curve`."""
        return self._curve(y_score, depth, gain, _named(discount), log_base, ties, False, 0.0)

    def ncg_curve(self, y_score, *, depth: int, gain: GainLike = "exponential",
                  ties: str = "average", empty: float | str = 0.0) -> Values:
        """nCG vector per query, shape (n_queries, depth). See :func:`rankmetrics.ncg_curve`."""
        return self._curve(y_score, depth, gain, None, 2.0, ties, True, empty)

    def ndcg_curve(self, y_score, *, depth: int, gain: GainLike = "exponential",
                   discount: DiscountLike = "log", log_base: float = 2, ties: str = "average",
                   empty: float | str = 0.0) -> Values:
        """nDCG vector per query, shape (n_queries, depth). See :func:`rankmetrics.ndcg_curve`."""
        return self._curve(y_score, depth, gain, _named(discount), log_base, ties, True, empty)

    def ideal_cg_curve(self, *, depth: int, gain: GainLike = "exponential") -> Values:
        """Ideal CG vector per query (JK 2002, eq. 4), shape (n_queries, depth)."""
        d = check_depth(depth)
        check_result_size(self.n_queries, d)
        return self._ideal_curve(gain, np.ones(d), d)

    def ideal_dcg_curve(self, *, depth: int, gain: GainLike = "exponential",
                        discount: DiscountLike = "log", log_base: float = 2) -> Values:
        """Ideal DCG vector per query (JK 2002, eq. 4), shape (n_queries, depth)."""
        d = check_depth(depth)
        check_result_size(self.n_queries, d)
        return self._ideal_curve(gain, self._discount(discount, log_base, d), d)

    # ------------------------------------------------------------------- many at once
    def evaluate(
        self,
        y_score: Any,
        metrics: str | Measure | Iterable[str | Measure],
        *,
        ties: str = "average",
        gain: GainLike = "exponential",
        discount: DiscountLike = "log",
        log_base: float = 2,
        threshold: float = 1,
        beta: float = 1.0,
        empty: float | str = 0.0,
        denominator: str = "relevant",
        precision_denominator: str = "k",
        as_frame: bool = False,
    ) -> Any:
        """Several measures on one ranking of ``y_score`` (scores are ordered once).

        Parameters
        ----------
        y_score : array-like of shape (n_rows,), or a Ranking from :meth:`rank`
        metrics : str, measure object, or iterable of them
            Names of the measure language (:mod:`rankmetrics.measures`), case-insensitive:
            ``"nDCG@10"``, ``"nDCG(gains={0: 0, 1: 1, 2: 3})@10"``, ``"P(rel=2)@5"``,
            ``"R@100"``, ``"AP"``, ``"AP@100"``, ``"RR"``, ``"Rprec"``, ``"Success@10"``,
            ``"SetF(beta=0.5)"``, trec_eval names (``"ndcg_cut.10"``, ``"P_5"``,
            ``"recip_rank"``) and LightGBM-style names (``"ndcg@10"``, ``"map"``, ``"mrr"``);
            or objects such as ``rankmetrics.measures.nDCG@10``. Parameters in a name
            (``rel=``, ``gains=``, ``beta=``, ``ties=``, ``gain=``, ``discount=``, ``b=``,
            ``empty=``, ``denominator=``) override the keyword options for that measure.
        ties, gain, discount, log_base, threshold, beta, empty, denominator
            As in the per-metric functions; shared by all measures of the call
            (``denominator`` is average precision's). ERR and RBP read none of ``gain``,
            ``discount``, ``log_base``, ``threshold``: their grades come from their own
            parameters (``max_grade=``, ``gains=``; binary RBP is ``RBP(rel=2)``), so
            ``threshold=2`` leaves ``RBP`` graded, ir_measures' RBP; SetF reads its own
            ``beta=`` only.
        precision_denominator : {"k", "min_k_size"}, default "k"
            Precision's ``denominator`` (see :meth:`precision`); per measure
            ``P(denominator=min_k_size)@k`` is not parsed, use this keyword.
        as_frame : bool, default False
            Return a pandas DataFrame (index ``qid``, one column per measure) instead of a dict
            (pandas is imported only then).

        Returns
        -------
        dict or pandas.DataFrame
            Measure name as given (a measure object: its printed name) -> per-query values,
            shape (n_queries,), float64, queries in :attr:`qids` order.

        Raises
        ------
        ValueError
            Unknown measure names (with the closest names), bad cutoffs or parameters, a
            measure name given twice, measures only the TREC layer computes (IPrec, 11pt_avg,
            NumRet, ...), or any input error of the metrics.
        TypeError
            A name that is neither a string nor a measure object; ``as_frame`` not True or
            False.

        Examples
        --------
        >>> from rankmetrics import QueryPlan
        >>> plan = QueryPlan([2, 0, 1, 0, 1], qid=[7, 7, 7, 9, 9])
        >>> out = plan.evaluate([0.5, 0.5, 0.1, 0.3, 0.9], ["nDCG@2", "P(rel=2)@1", "Rprec"])
        >>> {name: v.round(4).tolist() for name, v in out.items()}
        {'nDCG@2': [0.6738, 1.0], 'P(rel=2)@1': [0.5, 0.0], 'Rprec': [0.5, 1.0]}
        """
        measures = parse_measures(metrics)
        check_ties(ties)
        check_empty(empty)
        check_choice("denominator", denominator, DENOMINATORS)
        check_choice("precision_denominator", precision_denominator, PRECISION_DENOMINATORS)
        beta = check_positive_real("beta", beta)
        check_flag("as_frame", as_frame)
        specs = [(m, core_metric(m)) for m in measures]
        by_ties: dict[str, list[int]] = {}
        for i, (m, _) in enumerate(specs):
            by_ties.setdefault(m.ties or ties, []).append(i)
        out: dict[str, Values] = {}
        plans: list[tuple[str, list[int], dict[Any, list[int]], dict[Any, dict[str, Any]]]] = []
        for t, idx in by_ties.items():
            check_ties(t)
            groups: dict[Any, list[int]] = {}
            opts: dict[Any, dict[str, Any]] = {}
            for i in idx:
                m, base = specs[i]
                key: tuple[Any, ...]
                if base in ("err", "rbp"):
                    key = (base, m.max_grade, m.p, m.rel, m.gains,
                           repr(check_empty(empty if m.empty is None else m.empty)))
                    groups.setdefault(key, []).append(i)
                    opts[key] = {"empty": empty if m.empty is None else m.empty}
                    continue
                o = self._options(m, base, gain, discount, log_base, threshold, beta, empty,
                                  denominator)
                key = (base, gain_key(o["gain"]),
                       None if o["discount"] is None else discount_key(o["discount"],
                                                                       o["log_base"]),
                       o["threshold"], o["beta"], repr(o["empty"]), o["denominator"])
                groups.setdefault(key, []).append(i)
                opts[key] = o
            plans.append((t, idx, groups, opts))
        sums: dict[Any, Values] = {}
        scores = self._scores(y_score, finite=False) if self._fusable(y_score) else None
        if scores is not None:  # every measure of every tie rule from one pass over the queries
            fams: list[Any] = []
            fam_ties: list[str] = []
            for t, _, groups, opts in plans:
                for key, members in groups.items():
                    base, o = key[0], opts[key]
                    cut = tuple(specs[i][0].k for i in members)
                    if base in ("err", "rbp"):  # not in the one-pass kernel: ranked below
                        fams.append(None)
                    elif base in _GAIN_BASES:
                        fams.append(self._gain_family(o["gain"], o["discount"], o["log_base"],
                                                      cut))
                    else:
                        fams.append(self._binary_family(base, o["threshold"], cut,
                                                        o["denominator"]))
                    fam_ties.append(t)
            if all(f is not None for f in fams):
                res = self._fused(scores, ties, fams, fam_ties)
                if res is not None:
                    keys = [(t, key) for t, _, groups, _ in plans for key in groups]
                    sums = dict(zip(keys, res, strict=True))
        for t, idx, groups, opts in plans:
            ks = [None if specs[i][1] == "rprec" else specs[i][0].k for i in idx]
            ranking = None if sums else self._ranking(y_score if scores is None else scores,
                                                      ks, t)
            for key, members in groups.items():
                base, o = key[0], opts[key]
                cut = tuple(specs[i][0].k for i in members)
                if base == "err":
                    m0 = specs[members[0]][0]
                    vals = self._err_metric(ranking, cut, _ERR_MAX_GRADE if m0.max_grade is None
                                            else m0.max_grade, m0.gains, t, o["empty"])
                elif base == "rbp":
                    m0 = specs[members[0]][0]
                    vals = self._rbp_metric(ranking, cut, _RBP_P if m0.p is None else m0.p,
                                            m0.rel, m0.gains, t, o["empty"])
                elif base in _GAIN_BASES:
                    vals = self._gain_metric(ranking, cut, o["gain"], o["discount"],
                                             o["log_base"], t, base in ("ncg", "ndcg"),
                                             o["empty"], sums=sums.get((t, key)))
                else:
                    vals = self._binary_metric(ranking, cut, base, o["threshold"], t, o["empty"],
                                               beta=o["beta"], denominator=o["denominator"],
                                               precision_denominator=precision_denominator,
                                               sums=sums.get((t, key)))
                for j, i in enumerate(members):
                    out[specs[i][0].name] = vals[j]
        result = {m.name: out[m.name] for m in measures}
        if not as_frame:
            return result
        import pandas as pd

        index = pd.Index(self.qids, name="qid")
        return pd.DataFrame(result, index=index)

    def _options(self, m: Measure, base: str, gain: GainLike, discount: DiscountLike,
                 log_base: float, threshold: float, beta: float, empty: Any,
                 denominator: str) -> dict[str, Any]:
        """The call's options with the overrides written in measure ``m``."""
        g: GainLike = gain if m.gain is None else m.gain
        if m.gains is not None:  # listed levels; the others keep their linear gain
            levels = np.unique(np.concatenate([self.labels, self._base_labels]))
            table = {float(v): float(v) for v in levels.tolist()}
            table.update(dict(m.gains))
            g = table
        disc: DiscountLike | None = discount if m.discount is None else m.discount
        if base in ("cg", "ncg"):
            disc = None
        b = beta
        if m.kind == "setf":  # trec_eval's set_F.x: (1 + x) P R / (x P + R), i.e. beta^2 = x
            b = math.sqrt(1.0 if m.beta is None else m.beta)
        elif m.beta is not None:
            b = m.beta
        return {"gain": g, "discount": disc,
                "log_base": log_base if m.log_base is None else m.log_base,
                "threshold": threshold if m.rel is None else m.rel,
                "beta": b, "empty": check_empty(empty if m.empty is None else m.empty),
                "denominator": denominator if m.denominator is None else m.denominator}


#: most positive labels at which :meth:`QueryPlan._check_base_holds_rows` compares counts
_BASE_LEVELS = 64


def _max_size(layout: Any) -> int:
    """The longest query's rows of a layout of either backend (0 for none)."""
    if isinstance(layout, _backend.SegLayout):
        return layout.max_size
    return int(layout.sizes.max(initial=0))


def _check_finite_sums(values: Values) -> None:
    """Gains and discounts are each finite; their sums may still overflow float64."""
    if not all_finite(values):
        raise _overflow_error()


def _overflow_error() -> ValueError:
    """The ValueError for gain x discount sums that overflowed float64 (NaN or inf)."""
    return ValueError(
        "the gain x discount sums overflow float64 (inf); scale the gain weights or the "
        "discount values down (nDCG does not change when gains are scaled)"
    )


def _index_queries(qid: np.ndarray) -> tuple[np.ndarray, NDArray[np.int64]]:
    """Sorted distinct ids and each row's index into them; O(n) when ids are already sorted.

    The sortedness test compares neighbours (no differences: they wrap for unsigned and far
    apart int64 ids), so the result is ``np.unique``'s for every dtype.
    """
    n = qid.shape[0]
    if n > 1:
        head, tail = qid[:-1], qid[1:]
        if bool(np.all(tail >= head)):
            new = np.empty(n, dtype=bool)
            new[0] = True
            np.not_equal(tail, head, out=new[1:])
            qidx = np.cumsum(new, dtype=np.int64) - 1
            return qid[new], qidx
    qids, inv = np.unique(qid, return_inverse=True)
    return qids, inv.ravel().astype(np.int64)


def query_weights_of_rows(weight: ArrayLike, qidx: NDArray[np.int64], sizes: NDArray[np.int64],
                          name: str = "sample_weight") -> NDArray[np.float64]:
    """Row weights as query weights: each query weighs the mean of its rows' weights
    (LightGBM's ``Metadata`` rule; the LightGBM adapter's ``query_weight="mean"``).

    ``weight`` (n_rows,) finite and >= 0 (checked, errors naming ``name``); ``qidx`` (n_rows,)
    each row's query in 0..n_queries-1; ``sizes`` (n_queries,) rows per query, all >= 1.
    Returns float64 of shape (n_queries,)."""
    w = check_weights(weight, (qidx.shape[0],), name, per="weight per row")
    return np.bincount(qidx, weights=w, minlength=sizes.shape[0]) / sizes


def warn_weighted_empty_ndcg(plan: QueryPlan, query_weight: ArrayLike, metrics: Sequence[str],
                             gain: Any, empty: Any, host: str, checked: Any) -> None:
    """Warn (UserWarning, once per plan in ``checked``, a WeakSet) when a host's own weighted
    nDCG gives another number than ours: with query weights, LightGBM and XGBoost add 1 for a
    query whose ideal DCG is 0, unweighted, to a sum they divide by the total weight (their
    value can exceed 1); the adapters weight every query alike. The two agree when the weights
    of those queries sum to their count (all 1, say). Only when an nDCG metric is asked for
    with ``empty`` 1.0 (found by one nDCG@1 pass over zero scores, once per plan)."""
    if plan in checked or empty != 1.0 or not any(
            parse_metric(m)[0] == "ndcg" for m in metrics):
        return
    checked.add(plan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        none = np.isnan(plan.ndcg(np.zeros(plan.n_rows), k=1, gain=gain, empty="skip"))
    w = np.asarray(query_weight, dtype=np.float64)[none]
    if none.any() and float(w.sum()) != float(w.size):
        warnings.warn(
            f"{int(none.sum())} of {plan.n_queries} queries have no relevant document: "
            f"{host}'s own weighted ndcg adds 1.0 for each of them without its weight (and "
            "divides by the total weight, so its value can exceed 1); rankmetrics weights them "
            f"like every other query, so its ndcg differs from {host}'s built-in one on these "
            "weights", UserWarning, stacklevel=4,
        )


def weighted_mean(values: Values, query_weight: ArrayLike | None, n_queries: int,
                  name: str = "query_weight") -> float:
    """Mean of per-query values, NaN (skipped) queries left out; optional per-query weights
    (errors name them ``name``)."""
    if query_weight is None:
        w = np.ones(n_queries)
    else:
        w = check_weights(query_weight, (n_queries,), name)
        top = float(w.max()) if w.size else 0.0
        if top > 1e150 or 0.0 < top < 1e-150:  # weights whose sums overflow or go subnormal
            w = w / top  # the mean is the same for weights scaled alike
    keep = ~np.isnan(values)
    total = w[keep].sum()
    if not keep.any() or total == 0:
        warnings.warn("no query could be scored (all skipped or zero weight); returning nan",
                      UserWarning, stacklevel=3)
        return float("nan")
    return float(np.dot(values[keep], w[keep]) / total)
