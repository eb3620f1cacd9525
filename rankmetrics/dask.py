"""Tie-aware ranking metrics on Dask: evaluation of large data frames and a global eval metric
plus early stopping for ``lightgbm.dask.DaskLGBMRanker``.

Needs the ``dask`` extra (``pip install "rankmetrics[dask]"``: ``dask[dataframe,distributed]``).
This module is an adapter: every per-query value comes from :class:`rankmetrics.QueryPlan`.

:func:`evaluate`
    Per-query values and their mean for a Dask DataFrame of (qid, label, score) rows. Each
    partition must hold whole queries; when queries are spread over partitions the rows are
    shuffled by qid first (Dask's own shuffle), otherwise each partition is evaluated in place.
:func:`make_eval_metric`, :func:`early_stopping`
    ``DaskLGBMRanker.fit(eval_metric=metric, callbacks=[metric.sync, early_stopping(20, metric)])``.
    LightGBM's Dask estimators evaluate every round on each worker's local share of the
    evaluation set (LightGBM issues #4392, #6963), so each worker sees a different value and
    early stopping can fire on one worker and not on the others. Here each worker computes its
    local per-query values with the core and sends only two sums per measure (sum of weighted
    values, sum of weights) through a Dask ``distributed.Queue`` to the first worker, which adds
    them in rank order and sends the totals back: every worker then reports the same global
    mean -- equal to the core on the full evaluation set -- and stops at the same round.
"""

from __future__ import annotations

import math
import re
import threading
import uuid
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import numpy as np
from numpy.typing import ArrayLike

from . import _frames
from .core.gains import DiscountLike, GainLike
from .core.validation import as_float64, check_string_ids, check_ties
from .lightgbm import LIGHTGBM_THRESHOLD, EarlyStopping, EvalMetric
from .measures.grammar import parse_measures

if TYPE_CHECKING:  # pragma: no cover
    import dask.dataframe as dd
    import pandas as pd

    from .xgboost import CustomMetric

__all__ = ["DaskEvalMetric", "DaskEvalResult", "GlobalSync", "XGBoostGlobalMetric",
           "early_stopping", "evaluate", "make_eval_metric", "make_xgboost_metric"]


def _import_dask() -> Any:
    try:
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - depends on environment
        raise ImportError(
            'rankmetrics.dask needs Dask: pip install "rankmetrics[dask]"'
        ) from exc
    return dd


# ---------------------------------------------------------------------------------------------
# evaluate
# ---------------------------------------------------------------------------------------------


@dataclass
class DaskEvalResult:
    """What :func:`evaluate` returns: the shape of :class:`rankmetrics.trec.EvalResult`.

    Attributes
    ----------
    per_query : dask.dataframe.DataFrame
        Indexed by qid, one float64 column per measure (NaN: a query left out by
        ``empty="skip"``). Persisted (it is small: one row per query); ``.compute()`` it to get
        a pandas DataFrame. Rows are in partition order, not globally sorted.
    mean : dict of str to float
        Measure -> mean over queries (NaN left out), weighted by query weight if ``weight``
        was given.
    params : dict
        ``ties``, ``aligned`` (whether partitions held whole queries, so no shuffle ran) and
        the metric options.
    """

    per_query: Any
    mean: dict[str, float]
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def measures(self) -> list[str]:
        """Column names, in order."""
        return list(self.mean)


def _partition_values(pdf: pd.DataFrame, names: list[str], qid: str, label: str, score: str,
                      weight: str | None, ties: str, options: dict[str, Any],
                      partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    part = None if partition_info is None else partition_info.get("number")
    out = _frames.evaluate_frame(pdf, names, qid=qid, label=label, score=score, weight=weight,
                                 ties=ties, options=options, part=part)
    return _by_qid(out, qid)


def _by_qid(out: pd.DataFrame, qid: str) -> pd.DataFrame:
    """``out`` indexed by its qid column, in that column's dtype: pandas 3's ``set_index``
    turns evenly spaced (or no) int8..int32 ids into an int64 RangeIndex, so the index dtype
    varied with the partitioning and differed from the declared meta's."""
    import pandas as pd

    ids = out[qid]
    out = out.drop(columns=qid)
    out.index = pd.Index(ids, name=qid)
    return out


def _partition_ids(ddf: Any, qid: str) -> list[np.ndarray]:
    """The distinct non-null ids of each partition (one pass over the qid column)."""
    import dask

    parts = ddf[qid].to_delayed()
    uniq = dask.compute(*[dask.delayed(lambda s: s.dropna().unique())(p) for p in parts])
    return [np.asarray(u) for u in uniq]


def _duplicates(per_partition: list[np.ndarray]) -> dict[Any, list[int]]:
    """qid -> the partitions holding it, for every qid found in more than one partition (ids
    compared as Python compares them: no conversion that could merge or split them)."""
    import pandas as pd

    if not per_partition:
        return {}
    allq = np.concatenate(per_partition)
    owner = np.repeat(np.arange(len(per_partition)), [len(u) for u in per_partition])
    codes, uniques = pd.factorize(allq)
    order = np.argsort(codes, kind="stable")
    srt = codes[order]
    dup = np.flatnonzero(srt[1:] == srt[:-1])
    out: dict[Any, list[int]] = {}
    for i in dup[:20].tolist():
        q = uniques[srt[i]]
        q = q.item() if isinstance(q, np.generic) else q
        out.setdefault(q, [int(owner[order[i]])])
        out[q].append(int(owner[order[i + 1]]))
    return out


def evaluate(
    ddf: dd.DataFrame,
    measures: str | Iterable[str],
    *,
    qid: str = "qid",
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    ties: str = "average",
    aligned: bool | None = None,
    **options: Any,
) -> DaskEvalResult:
    """Tie-aware measures of a Dask DataFrame of scored rows, per query and on average.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per (query, document): query id, graded label and model score columns.
        ``qid`` may also be the index.
    measures : str or iterable of str
        Names understood by :meth:`rankmetrics.QueryPlan.evaluate` (``"ndcg@10"``, ``"map"``,
        ``"p@5"``, ...); they become the column names.
    qid, label, score : str, default "qid", "label", "score"
        Column names. Labels: non-negative numbers; scores: finite numbers (higher ranks first).
    weight : str, optional
        Column of row weights; a query's weight is the mean of its rows' weights and
        :attr:`DaskEvalResult.mean` is the weighted mean over queries.
    ties : {"average", "optimistic", "pessimistic", "stable"}, default "average"
        Tie rule of the core ("stable": row order within each partition; a ValueError when
        the frame must be shuffled, which loses that order).
    aligned : bool or None, default None
        Whether every query lies in one partition. None: find out (one pass over the qid
        column only) and shuffle by qid only when needed. True: trust it, no shuffle; a query
        found in two partitions is then an error. False: always shuffle by qid.
    **options
        ``gain``, ``discount``, ``log_base``, ``threshold``, ``beta``, ``empty``,
        ``denominator``, ``precision_denominator`` of :meth:`rankmetrics.QueryPlan.evaluate`
        (not ``as_frame``: a TypeError).

    Returns
    -------
    DaskEvalResult
        ``.per_query`` (Dask DataFrame indexed by qid, one column per measure, values in
        [0, 1] for normalised and binary measures) and ``.mean`` (measure -> float).

    Raises
    ------
    ValueError
        A missing column, one present twice or named by two arguments, a qid column named
        like a measure's output; null qids, labels or weights; NaN/null/inf scores; negative
        labels; unknown measures or bad option values (``empty="zero"``); with
        ``aligned=True``, or a qid index whose known divisions were set by hand
        (``from_delayed``), a query split across partitions (the message names the qid and the
        partitions).
    TypeError
        ``ddf`` is not a Dask DataFrame; non-string column names; ``as_frame``; an unknown
        keyword option (``gian="linear"``: :meth:`~rankmetrics.QueryPlan.evaluate`'s
        "unexpected keyword argument"), before any task runs.
    ImportError
        Dask is not installed.

    Notes
    -----
    Each partition (after the shuffle, if any) is evaluated by one
    :meth:`~rankmetrics.QueryPlan.evaluate` call, so values equal the core on the collected
    data; the mean is ``sum_q w_q v_q / sum_q w_q`` over queries with a value, from per-partition
    partial sums. Memory per task is one partition, whatever the size of the whole frame.

    References
    ----------
    McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
    efficiently in the presence of tied scores. ECIR, eq. 3 (tie-averaged DCG).

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from rankmetrics.dask import evaluate
    >>> pdf = pd.DataFrame({"qid": [1, 2, 1, 2, 1, 2], "label": [2, 0, 0, 1, 1, 0],
    ...                     "score": [0.9, 0.3, 0.9, 0.8, 0.1, 0.8]})
    >>> res = evaluate(dd.from_pandas(pdf, npartitions=2), ["ndcg@2", "rr"])
    >>> res.params["aligned"]
    False
    >>> res.per_query.compute().sort_index().round(4)  # doctest: +NORMALIZE_WHITESPACE
         ndcg@2    rr
    qid
    1    0.6738  0.75
    2    0.8155  0.75
    >>> round(res.mean["rr"], 4)
    0.75
    """
    dd_mod = _import_dask()
    if not isinstance(ddf, dd_mod.DataFrame):
        raise TypeError(f"ddf must be a dask.dataframe.DataFrame; got {type(ddf).__name__}")
    names_in = _frames.measure_list(measures)
    check_ties(ties)
    if isinstance(aligned, np.bool_):
        aligned = bool(aligned)
    if aligned is not None and not isinstance(aligned, bool):  # 1 == True, but not "is True"
        raise TypeError(f"aligned must be None, True or False; got {aligned!r}")
    names = _frames.output_names(names_in, ties, options)
    frame = ddf
    qid_is_index = qid not in ddf.columns and ddf.index.name == qid
    by_divisions = False
    if qid_is_index:
        frame = ddf.reset_index()
        if aligned is None and ddf.known_divisions:
            aligned = by_divisions = True  # a sorted index with divisions: each id in one part
    _frames.check_columns(frame.columns, {"qid": qid, "label": label, "score": score,
                                          "weight": weight}, "Dask DataFrame", names)
    cols = [c for c in (qid, label, score, weight) if c is not None]
    frame = frame[cols]
    if frame[qid].dtype == np.float16:  # widened exactly: pandas takes no float16 index
        frame = frame.astype({qid: np.float32})
    swapped = {c: dt.newbyteorder("=") for c in cols
               if isinstance(dt := frame[c].dtype, np.dtype) and not dt.isnative}
    if swapped:  # pandas' hashing, unique and shuffle take native byte order only
        frame = frame.astype(swapped)
    declared = aligned is True
    object_ids = frame[qid].dtype == object
    if aligned is None or object_ids:
        ids = _partition_ids(frame, qid)
        if object_ids and len(ids) > 1:  # each partition checks its own: 1 and 1.0 apart too
            try:
                check_string_ids(np.concatenate(ids).tolist(), "qid")
            except (ValueError, TypeError) as exc:
                raise type(exc)(f"column qid={qid!r} (across partitions): {exc}") from None
        if aligned is None:
            aligned = not _duplicates(ids)
    if not aligned:
        if ties == "stable" or any(m.ties == "stable" for m in parse_measures(names_in)):
            raise ValueError(
                "ties='stable' follows row order, which Dask's shuffle by qid does not keep "
                f"(it runs when a query, column {qid!r}, is split across partitions, or with "
                "aligned=False): repartition so that each query's rows are whole and in order "
                "in one partition, or use another tie rule"
            )
        frame = frame.shuffle(on=qid)
    meta = _frames.evaluate_frame(frame._meta, names, qid=qid, label=label, score=score,
                                  weight=weight, ties=ties, options=options)
    meta = _by_qid(meta, qid)
    values = frame.map_partitions(
        _partition_values, names, qid, label, score, weight, ties, options, meta=meta,
        align_dataframes=False,
    ).persist()
    if declared:
        import dask

        found = dask.compute(*[dask.delayed(lambda d: d.index.to_numpy())(p)
                               for p in values.to_delayed()])
        split = _duplicates(list(found))
        if split:
            q, parts = next(iter(split.items()))
            # divisions that say otherwise were set by hand (from_delayed, from_map): not
            # the caller's aligned=, which was None
            claim = (f"the known divisions of the qid index {qid!r} say each query lies in one "
                     "partition, but" if by_divisions else "aligned=True but")
            fix = "aligned=False" if by_divisions else "aligned=None"
            raise ValueError(
                f"{claim} query {q!r} (column {qid!r}) is split across partitions {parts} "
                f"({len(split)} such queries found); pass {fix} to shuffle by qid"
            )
    sums = values.map_partitions(_frames.partial_sums, names, weight is not None,
                                 meta=_frames.partial_sums(meta, names, weight is not None))
    mean = _frames.means(sums.compute(), names)
    per_query = values[names] if weight is not None else values
    return DaskEvalResult(per_query, mean,
                          {"ties": ties, "aligned": bool(aligned), **options})


# ---------------------------------------------------------------------------------------------
# DaskLGBMRanker: a global eval metric
# ---------------------------------------------------------------------------------------------

# per worker thread: local per-query sums waiting for the round's reduction, and the last
# round reduced, keyed by (token, thread id) so that two trainings in one process stay apart
_PENDING: dict[tuple[str, int], list[tuple[Any, dict[str, tuple[float, float]]]]] = {}
_SYNCED: dict[tuple[str, int], int] = {}
_LOCK = threading.Lock()


def _key(token: str) -> tuple[str, int]:
    return token, threading.get_ident()


class DaskEvalMetric(EvalMetric):
    """:class:`rankmetrics.lightgbm.EvalMetric` whose reported value is global across the
    workers of a Dask training. Build it with :func:`make_eval_metric`.

    Attributes
    ----------
    sync : GlobalSync
        The callback that replaces each worker's local values by the global ones; pass it in
        ``callbacks``.
    names : list of str
        Reported metric names.
    """

    token: str
    sync: GlobalSync

    def __call__(self, y_true: ArrayLike | None, y_pred: ArrayLike,
                 weight: ArrayLike | None = None, group: ArrayLike | None = None
                 ) -> list[tuple[str, float, bool]]:
        """Local values (as :class:`~rankmetrics.lightgbm.EvalMetric`), and the per-query sums
        kept for :attr:`sync`, which turns them into the global values.

        Raises
        ------
        RuntimeError
            A new round began before the previous one was reduced: ``metric.sync`` is missing
            from ``callbacks``.
        """
        per_query, entry = self._per_query(y_true, y_pred, group, weight)
        nq = entry.plan.n_queries
        w = np.ones(nq) if entry.query_weight is None else entry.query_weight
        sums: dict[str, tuple[float, float]] = {}
        for name, v in per_query.items():
            keep = ~np.isnan(v)
            sums[name] = (float(np.dot(v[keep], w[keep])), float(w[keep].sum()))
        with _LOCK:
            pending = _PENDING.setdefault(_key(self.token), [])
            if any(e is entry for e, _ in pending):
                pending.clear()
                raise RuntimeError(
                    "rankmetrics.dask eval metric: the previous round was not reduced across "
                    "workers; pass callbacks=[metric.sync, ...] to DaskLGBMRanker.fit"
                )
            pending.append((entry, sums))
        return [(n, s / t if t > 0 else math.nan, True) for n, (s, t) in sums.items()]


class GlobalSync:
    """LightGBM callback (``order=5``, before logging, recording and early stopping): replaces
    this worker's values of the metric's names with the global ones. Use ``metric.sync``.

    Parameters
    ----------
    token : str
        Links it to its :class:`DaskEvalMetric` (they may be copied separately).
    names : list of str
        The metric's reported names.
    timeout : float
        Seconds to wait for the other workers in each round before raising ``TimeoutError``.
    """

    order: int
    before_iteration: bool

    def __init__(self, token: str, names: Sequence[str], timeout: float) -> None:
        self.order = 5
        self.before_iteration = False
        self.token = token
        self.names = list(names)
        self.timeout = float(timeout)

    def __repr__(self) -> str:
        return f"GlobalSync(names={self.names!r}, timeout={self.timeout})"

    def __call__(self, env: Any) -> None:
        with _LOCK:
            pending = _PENDING.pop(_key(self.token), [])
        results = env.evaluation_result_list
        if results is None:
            results = []
        if any(len(r) != 4 and r[4] is not None for r in results):
            raise ValueError("rankmetrics.dask's global metric works with train / fit, not cv")
        seen: set[tuple[str, str]] = set()
        for r in results:
            if (r[0], r[1]) in seen:
                raise ValueError(
                    f"metric {r[1]!r} is reported twice for {r[0]!r}: a built-in metric has the "
                    "name of ours; give make_eval_metric a prefix (prefix='tie_')"
                )
            seen.add((r[0], r[1]))
        ours = [r[0] for r in results if r[1] == self.names[0]]
        if len(ours) != len(pending):
            raise RuntimeError(
                f"rankmetrics.dask: {len(pending)} evaluation(s) of the metric this round but "
                f"{len(ours)} reported; is the same metric object passed as eval_metric?"
            )
        local: list[list[Any]] = []
        for data_name, (_, sums) in zip(ours, pending, strict=True):
            for n in self.names:
                s, t = sums[n]
                local.append([data_name, n, s, t])
        params = env.params or {}
        n_machines = int(params.get("num_machines", 1) or 1)
        total = local if n_machines <= 1 else self._allreduce(env, local, n_machines)
        index = {(r[0], r[1]): i for i, r in enumerate(results)}
        for data_name, n, s, t in total:
            value = s / t if t > 0 else math.nan
            entry = _result(data_name, n, value)
            i = index.get((data_name, n))
            if i is None:
                results.append(entry)
            else:
                results[i] = entry
        with _LOCK:
            _SYNCED[_key(self.token)] = int(env.iteration)

    def _allreduce(self, env: Any, local: list[list[Any]], n: int) -> list[list[Any]]:
        from distributed import Queue, get_client, get_worker

        machines = str(env.params["machines"]).split(",")
        port = int(env.params["local_listen_port"])
        host = urlparse(get_worker().address).hostname
        mine = [i for i, m in enumerate(machines) if m.rsplit(":", 1) == [host, str(port)]]
        if len(mine) != 1:
            mine = [i for i, m in enumerate(machines) if m.rsplit(":", 1)[-1] == str(port)]
        if len(mine) != 1:
            raise RuntimeError(
                f"rankmetrics.dask: cannot find this worker ({host}:{port}) in LightGBM's "
                f"machines={env.params['machines']!r}"
            )
        rank = mine[0]
        run = f"rankmetrics-{self.token}-{zlib.crc32(','.join(machines).encode()):08x}"
        client = get_client()
        r = int(env.iteration)
        if rank == 0:
            parts: dict[int, list[list[Any]]] = {0: local}
            inbox = Queue(f"{run}-0", client=client)
            while len(parts) < n:
                item = self._get(inbox, r, f"workers {sorted(set(range(n)) - set(parts))}")
                if item[0] != r:
                    continue  # left over from an aborted earlier run
                parts[int(item[1])] = item[2]
            order: list[tuple[str, str]] = []
            acc: dict[tuple[str, str], list[float]] = {}
            for k in range(n):
                for data_name, name, s, t in parts[k]:
                    key = (data_name, name)
                    if key not in acc:
                        order.append(key)
                        acc[key] = [0.0, 0.0]
                    acc[key][0] += s
                    acc[key][1] += t
            total: list[list[Any]] | str = [
                [d, nm, acc[(d, nm)][0], acc[(d, nm)][1]] for d, nm in order]
            error = _renamed_eval_sets(parts)
            if error is not None:
                total = error
            for k in range(1, n):
                Queue(f"{run}-{k}", client=client).put([r, 0, total])
            if isinstance(total, str):
                raise ValueError(total)
            return total
        Queue(f"{run}-0", client=client).put([r, rank, local])
        inbox = Queue(f"{run}-{rank}", client=client)
        while True:
            item = self._get(inbox, r, "worker 0 (the reducer)")
            if item[0] == r:
                if isinstance(item[2], str):
                    raise ValueError(item[2])
                return list(item[2])

    def _get(self, queue: Any, r: int, who: str) -> Any:
        try:
            return queue.get(timeout=self.timeout)
        except (TimeoutError, OSError) as exc:
            raise TimeoutError(
                f"rankmetrics.dask: round {r}: no per-query sums from {who} within "
                f"{self.timeout:g} s (timeout=); a worker failed or stopped early"
            ) from exc


def _renamed_eval_sets(parts: dict[int, list[list[Any]]]) -> str | None:
    """The error when LightGBM's default eval set names cannot be matched across workers.

    Without ``eval_names``, LightGBM's Dask training names a worker's local eval sets
    ``valid_0, valid_1, ...`` by their local position, so on a worker holding no rows of the
    first set the second one is called ``valid_0``; adding the workers' sums by name would then
    merge two different sets. Workers reporting different default-named sets are refused."""
    names = {k: list(dict.fromkeys(e[0] for e in p)) for k, p in parts.items() if p}
    lists = {tuple(v) for v in names.values()}
    if len(lists) <= 1 or not any(re.fullmatch(r"valid_\d+", d) for v in lists for d in v):
        return None
    seen = "; ".join(f"worker {k}: {v}" for k, v in sorted(names.items()))
    return (
        "rankmetrics.dask: the workers hold different evaluation sets under LightGBM's default "
        f"names ({seen}): without eval_names LightGBM numbers each worker's local sets from "
        "valid_0, so one name can mean different sets on different workers; pass "
        "eval_names=[...] to DaskLGBMRanker.fit"
    )


def _result(data_name: str, name: str, value: float) -> Any:
    """One evaluation result as LightGBM builds them (a named EvalResult since 4.7)."""
    try:
        from lightgbm.basic import EvalResult
    except ImportError:  # lightgbm < 4.7: plain tuples
        return (data_name, name, value, True)
    return EvalResult(data_name, name, value, True, None)


class _DaskEarlyStopping(EarlyStopping):
    def __init__(self, token: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.token = token

    def __call__(self, env: Any) -> None:
        with _LOCK:
            synced = _SYNCED.get(_key(self.token))
        if synced != env.iteration:
            raise RuntimeError(
                "rankmetrics.dask.early_stopping: the metric was not reduced across workers "
                "this round; pass callbacks=[metric.sync, early_stopping(...)]"
            )
        super().__call__(env)


def make_eval_metric(
    metrics: str | Iterable[str] = "ndcg",
    k: int | None | Sequence[int | None] = None,
    *,
    ties: str = "average",
    gain: GainLike = "exponential",
    label_gain: Sequence[float] | None = None,
    discount: DiscountLike = "log",
    log_base: float = 2,
    threshold: float = LIGHTGBM_THRESHOLD,
    beta: float = 1.0,
    empty: float | str = 1.0,
    denominator: str = "min_k_relevant",
    query_weight: str = "mean",
    prefix: str = "",
    timeout: float = 120.0,
) -> DaskEvalMetric:
    """A global tie-aware eval metric for ``lightgbm.dask.DaskLGBMRanker``.

    Parameters
    ----------
    metrics, k, ties, gain, label_gain, discount, log_base, threshold, beta, empty, \
denominator, query_weight, prefix
        As in :func:`rankmetrics.lightgbm.make_eval_metric`, with its defaults (LightGBM's
        conventions: ``map@k`` divides by min(k, R), a query without relevant rows scores 1).
    timeout : float, default 120
        Seconds each worker waits for the others' sums in a round (then ``TimeoutError``).

    Returns
    -------
    DaskEvalMetric
        Pass it as ``eval_metric=`` and its ``.sync`` in ``callbacks=``. Every round, each
        worker reports the same value: the (query-weighted) mean over the whole evaluation set,
        equal to :func:`rankmetrics.lightgbm.make_eval_metric` on the collected set.

    Raises
    ------
    ValueError
        As :func:`rankmetrics.lightgbm.make_eval_metric`; ``timeout`` not positive.

    Notes
    -----
    Each worker sends, per evaluation set and measure, ``sum_q w_q v_q`` and ``sum_q w_q`` over
    its queries (DaskLGBMRanker keeps every query within one partition, hence one worker); the
    first worker of LightGBM's ``machines`` list adds them in worker order and sends the totals
    back through ``distributed.Queue`` objects named after the metric and the run.

    Examples
    --------
    >>> from rankmetrics.dask import make_eval_metric, early_stopping
    >>> metric = make_eval_metric("ndcg", k=10, prefix="tie_")
    >>> metric.names, metric.sync.order
    (['tie_ndcg@10'], 5)
    >>> early_stopping(20, metric).metric
    'tie_ndcg@10'
    """
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
            or not math.isfinite(as_float64(timeout, "timeout")) or timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds; got {timeout!r}")
    metric = DaskEvalMetric(metrics, k, ties=ties, gain=gain, label_gain=label_gain,
                            discount=discount, log_base=log_base, threshold=threshold, beta=beta,
                            empty=empty, denominator=denominator, bounds=False,
                            query_weight=query_weight, prefix=prefix)
    metric.token = uuid.uuid4().hex
    metric.sync = GlobalSync(metric.token, metric.names, float(timeout))
    return metric


def early_stopping(stopping_rounds: int, metric: DaskEvalMetric, *, name: str | None = None,
                   data_name: str | None = None, min_delta: float = 0.0,
                   verbose: bool = True) -> EarlyStopping:
    """Early stopping on the global metric: every worker stops at the same round.

    Parameters
    ----------
    stopping_rounds : int
        Stop when the metric has not improved for this many rounds.
    metric : DaskEvalMetric
        From :func:`make_eval_metric`; its ``.sync`` must also be in ``callbacks``.
    name : str, optional
        Which of ``metric.names`` to watch (default the first).
    data_name, min_delta, verbose
        As in :func:`rankmetrics.lightgbm.early_stopping`.

    Returns
    -------
    EarlyStopping
        A LightGBM callback (``order=30``); the model's ``best_iteration_`` and ``best_score_``
        then describe the global metric.

    Raises
    ------
    TypeError
        ``metric`` is not a :class:`DaskEvalMetric`.
    ValueError
        ``name`` is not one of the metric's names; bad ``stopping_rounds`` / ``min_delta``.
    RuntimeError
        During training, when ``metric.sync`` did not run before it in a round.
    """
    if not isinstance(metric, DaskEvalMetric):
        raise TypeError(
            "early_stopping needs the metric from rankmetrics.dask.make_eval_metric; got "
            f"{type(metric).__name__}"
        )
    watched = metric.names[0] if name is None else name
    if watched not in metric.names:
        raise ValueError(f"name={watched!r} is not reported by the metric; names: {metric.names}")
    return _DaskEarlyStopping(metric.token, stopping_rounds, watched, data_name=data_name,
                              min_delta=min_delta, verbose=verbose)


# ---------------------------------------------------------------------------------------------
# xgboost.dask.train: a global custom_metric through XGBoost's own collective
# ---------------------------------------------------------------------------------------------


class XGBoostGlobalMetric:
    """``custom_metric(predt, dmatrix)`` for ``xgboost.dask.train`` whose value is global.

    Build it with :func:`make_xgboost_metric`. Each worker evaluates its local queries
    (``DMatrix`` labels and ``group_ptr``) with the core, then ``xgboost.collective.allreduce``
    sums, per measure, ``sum_q w_q v_q`` and ``sum_q w_q`` over the workers: every worker returns
    the mean over the whole evaluation set, so XGBoost's early stopping agrees everywhere.
    """

    def __init__(self, metric: CustomMetric) -> None:
        self._metric = metric  # XGBoost's rules, as rankmetrics.xgboost applies them
        self.names = metric.names

    def __repr__(self) -> str:
        return f"XGBoostGlobalMetric(names={self.names!r})"

    def __call__(self, predt: ArrayLike, dmatrix: Any) -> list[tuple[str, float]]:
        """Global (query-weighted) means of the metric's names.

        Parameters
        ----------
        predt : ndarray of shape (n_local_rows,)
            This worker's predictions for its part of the evaluation ``DMatrix``.
        dmatrix : xgboost.DMatrix
            The local part, with labels and query groups (``qid=`` / ``group=``).

        Returns
        -------
        list of (str, float)
            ``(name, global mean)`` for every name.

        Raises
        ------
        ValueError
            The DMatrix has no query groups, or labels/scores the core rejects.
        """
        from xgboost import collective

        sums = np.zeros(2 * len(self.names))
        if dmatrix.num_row():
            # the local part read and evaluated as rankmetrics.xgboost's custom metric does
            per_query = self._metric.per_query(predt, dmatrix)
            weight = self._metric.query_weights(dmatrix)
            for i, n in enumerate(self.names):
                v = per_query[n]
                keep = ~np.isnan(v)
                sums[2 * i], sums[2 * i + 1] = np.dot(v[keep], weight[keep]), weight[keep].sum()
        if collective.is_distributed():
            sums = collective.allreduce(sums, collective.Op.SUM)
        return [(n, float(sums[2 * i] / sums[2 * i + 1]) if sums[2 * i + 1] > 0 else math.nan)
                for i, n in enumerate(self.names)]


def make_xgboost_metric(
    metrics: str | Iterable[str] = "ndcg",
    k: int | None | Sequence[int | None] = None,
    *,
    ties: str = "average",
    gain: GainLike = "exponential",
    label_gain: Sequence[float] | None = None,
    discount: DiscountLike = "log",
    log_base: float = 2,
    threshold: float = 1,
    beta: float = 1.0,
    empty: float | str | None = None,
    denominator: str = "min_k_relevant",
    precision_denominator: str = "min_k_size",
    prefix: str = "",
) -> XGBoostGlobalMetric:
    """A global tie-aware ``custom_metric`` for ``xgboost.dask.train`` (ranking objectives).

    Parameters
    ----------
    metrics, k, ties, gain, label_gain, discount, log_base, threshold, beta, empty, \
denominator, precision_denominator, prefix
        As in :func:`rankmetrics.xgboost.make_custom_metric`, with its defaults (XGBoost's
        conventions: ``map@k`` divides by min(k, R), ``pre@k`` by min(k, n); a query without
        relevant rows scores 1, but 0 for precision). XGBoost's per-query weights
        (``DMatrix(weight=...)`` with one weight per group) weight the mean.

    Returns
    -------
    XGBoostGlobalMetric
        Pass it as ``custom_metric=`` to ``xgboost.dask.train`` (for early stopping:
        ``callbacks=[xgboost.callback.EarlyStopping(n, metric_name=..., maximize=True)]``).

    Raises
    ------
    ValueError
        As :func:`rankmetrics.lightgbm.make_eval_metric`.

    Notes
    -----
    ``DaskXGBRanker(eval_metric=...)`` cannot take it: XGBoost's scikit-learn ranker calls a
    callable metric once per query and averages the local queries itself. XGBoost records
    custom metric values in its evaluation log with 6 decimals (``"%f"``).

    Each query must lie within one chunk of the evaluation ``DaskDMatrix``: a ``DMatrix``
    keeps group sizes, not qids, so a query whose rows lie in two chunks is evaluated as two
    queries, with no error (as by XGBoost's own ranking metrics).

    Examples
    --------
    >>> from rankmetrics.dask import make_xgboost_metric
    >>> make_xgboost_metric("ndcg", k=(5, 10)).names
    ['ndcg@5', 'ndcg@10']
    """
    from .xgboost import make_custom_metric

    metric = make_custom_metric(metrics, k, ties=ties, gain=gain, label_gain=label_gain,
                                discount=discount, log_base=log_base, threshold=threshold,
                                beta=beta, empty=empty, denominator=denominator,
                                precision_denominator=precision_denominator, prefix=prefix)
    return XGBoostGlobalMetric(metric)
