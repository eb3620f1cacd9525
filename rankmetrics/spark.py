"""Tie-aware ranking metrics on Spark: :func:`evaluate` and a Spark ML :class:`RankingEvaluator`.

Needs the ``spark`` extra (``pip install "rankmetrics[spark]"``: pyspark and Java 17).
Spark ML's own ``RankingEvaluator`` takes arrays of predicted document ids, so ties are broken
before it sees them, and it has no query-id column. Here rows of (qid, label, score) are
repartitioned by qid and each partition's queries are evaluated by one
:meth:`rankmetrics.QueryPlan.evaluate` call (``mapInPandas``): no metric math in this module.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _frames
from .core.validation import TIES, check_ties
from .measures.grammar import parse_measures

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["RankingEvaluator", "SparkEvalResult", "evaluate"]  # noqa: F822 (lazy, see end)


def _import_pyspark() -> Any:
    try:
        import pyspark.sql
    except ImportError as exc:  # pragma: no cover - depends on environment
        raise ImportError('rankmetrics.spark needs pyspark: pip install "rankmetrics[spark]"') \
            from exc
    return pyspark.sql


@dataclass
class SparkEvalResult:
    """What :func:`evaluate` returns: the shape of :class:`rankmetrics.trec.EvalResult`.

    Attributes
    ----------
    per_query : pyspark.sql.DataFrame
        Column ``qid`` (the qid column's name) then one double column per measure (NaN: a
        query left out by ``empty="skip"``); persisted, one row per query.
    mean : dict of str to float
        Measure -> mean over queries (NaN left out), weighted if ``weight`` was given.
    params : dict
        ``ties`` and the metric options.
    """

    per_query: Any
    mean: dict[str, float]
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def measures(self) -> list[str]:
        """Column names, in order."""
        return list(self.mean)


def _column(name: str) -> Any:
    """The column named exactly ``name``: quoted, since Spark reads a bare ``a.b`` as field
    ``b`` of a struct ``a``."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


#: how a worker's ValueError / TypeError travels inside Spark's PythonException: its class
#: and its message as hex (a message may hold any text, newlines included)
_TAG = "[rankmetrics-error {} {}]"
_TAG_RE = re.compile(r"\[rankmetrics-error (ValueError|TypeError) ([0-9a-f]*)\]")


def _tagged(exc: ValueError | TypeError) -> ValueError | TypeError:
    """``exc`` again, its message followed by :data:`_TAG` (read back by :func:`_worker_error`)."""
    kind = "TypeError" if isinstance(exc, TypeError) else "ValueError"
    text = str(exc)
    return type(exc)(f"{text}\n{_TAG.format(kind, text.encode('utf-8').hex())}")


def _worker_error(exc: BaseException) -> ValueError | TypeError | None:
    """The ValueError / TypeError a Python worker raised (:func:`_tagged`), rebuilt on the
    driver from the wrapper Spark raises there (``PythonException``, ``Py4JJavaError``); None
    for any other failure."""
    found = _TAG_RE.search(str(exc))
    if found is None:
        return None
    text = bytes.fromhex(found.group(2)).decode("utf-8", "replace")
    return TypeError(text) if found.group(1) == "TypeError" else ValueError(text)


def _spark_schema(df: Any, qid: str, names: list[str], weighted: bool) -> Any:
    from pyspark.sql.types import DoubleType, StructField, StructType

    fields = [StructField(qid, df.schema[qid].dataType, False)]
    fields += [StructField(n, DoubleType(), True) for n in names]
    if weighted:
        fields.append(StructField(_frames.WEIGHT, DoubleType(), False))
    return StructType(fields)


def evaluate(
    df: Any,
    measures: str | Iterable[str],
    *,
    qid: str = "qid",
    label: str = "label",
    score: str = "prediction",
    weight: str | None = None,
    ties: str = "average",
    num_partitions: int | None = None,
    **options: Any,
) -> SparkEvalResult:
    """Tie-aware measures of a Spark DataFrame of scored rows, per query and on average.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        One row per (query, document) with query id, graded label and score columns (a
        ranker's ``transform`` output).
    measures : str or iterable of str
        Names understood by :meth:`rankmetrics.QueryPlan.evaluate` (``"ndcg@10"``, ``"map"``,
        ``"p@5"``, ...); they become the column names.
    qid, label, score : str, default "qid", "label", "prediction"
        Column names (Spark ML's ``predictionCol`` default for the score).
    weight : str, optional
        Column of row weights; a query's weight is the mean of its rows' weights and ``.mean``
        is the weighted mean over queries.
    ties : {"average", "optimistic", "pessimistic"}, default "average"
        Tie rule of the core; not ``"stable"`` (row order, which the repartition by qid
        does not keep: a ValueError).
    num_partitions : int, optional
        Partitions of the repartition by qid (default ``spark.sql.shuffle.partitions``). Each
        partition is evaluated in one Python worker, so it must fit that worker's memory.
    **options
        ``gain``, ``discount``, ``log_base``, ``threshold``, ``beta``, ``empty``,
        ``denominator``, ``precision_denominator`` of :meth:`rankmetrics.QueryPlan.evaluate`
        (not ``as_frame``: a TypeError).

    Returns
    -------
    SparkEvalResult
        ``.per_query`` (Spark DataFrame: qid + one column per measure) and ``.mean``.

    Raises
    ------
    ValueError
        A missing column, one present twice (or beside one named alike but for case, the
        same column to Spark unless ``spark.sql.caseSensitive``), one named by two arguments,
        a qid column named like a measure's output (ignoring case, as Spark does unless
        ``spark.sql.caseSensitive``), measures whose names differ only in case; null qids,
        labels or weights; NaN/null/inf scores; negative labels; unknown measures; bad option
        values; ``ties="stable"`` (the call's or a measure's own); ``num_partitions`` below 1.
        Errors found on the executors (naming the column and the partition) are raised on
        the driver as themselves, not as Spark's ``PythonException`` wrapper.
    TypeError
        ``df`` is not a Spark DataFrame; ``num_partitions`` is not an int; ``as_frame`` or
        another keyword that is not an option of :meth:`rankmetrics.QueryPlan.evaluate`; text
        labels, scores or weights (found on the executors, raised as above).
    ImportError
        pyspark is not installed.

    Notes
    -----
    Rows are repartitioned by qid (every query in one partition), then ``mapInPandas`` gathers
    each partition's Arrow batches into one pandas frame and evaluates its queries with one
    core call. The mean is ``sum_q w_q v_q / sum_q w_q`` over queries with a value.

    References
    ----------
    McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
    efficiently in the presence of tied scores. ECIR, eq. 3.
    """
    sql = _import_pyspark()
    if not isinstance(df, sql.DataFrame):
        raise TypeError(f"df must be a pyspark.sql.DataFrame; got {type(df).__name__}")
    names_in = _frames.measure_list(measures)
    check_ties(ties)
    _refuse_stable(names_in, ties)
    names = _frames.output_names(names_in, ties, options)
    ignore_case = str(df.sparkSession.conf.get("spark.sql.caseSensitive", "false")).lower() \
        != "true"
    _frames.check_columns(df.columns, {"qid": qid, "label": label, "score": score,
                                       "weight": weight}, "Spark DataFrame", names,
                          ignore_case=ignore_case)
    if ignore_case:
        _frames.check_case_collisions(qid, names, "Spark (spark.sql.caseSensitive=false)")
    if num_partitions is not None:
        if isinstance(num_partitions, (bool, np.bool_)) or not isinstance(num_partitions,
                                                                          (int, np.integer)):
            raise TypeError(f"num_partitions must be a positive int; got {num_partitions!r}")
        if num_partitions < 1:
            raise ValueError(f"num_partitions must be a positive int; got {num_partitions}")
        num_partitions = int(num_partitions)  # Spark takes a Python int
    from pyspark.sql import functions as F

    cols = [c for c in (qid, label, score, weight) if c is not None]
    # plain aliases on the Spark side (mapInPandas reads its input columns by unquoted name:
    # "a.b" or a backtick would not parse); the given names again in pandas
    inner = [f"_rm{i}" for i in range(len(cols))]
    data = df.select(*[_column(c).alias(a) for c, a in zip(cols, inner, strict=True)])
    data = (data.repartition(num_partitions, inner[0]) if num_partitions
            else data.repartition(inner[0]))
    weighted = weight is not None

    def per_partition(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        import pandas as pd
        from pyspark import TaskContext

        frames = list(batches)
        if not frames:
            return
        pdf = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        pdf.columns = cols
        ctx = TaskContext.get()
        part = None if ctx is None else ctx.partitionId()
        try:
            out = _frames.evaluate_frame(pdf, names, qid=qid, label=label, score=score,
                                         weight=weight, ties=ties, options=options, part=part)
        except (ValueError, TypeError) as exc:
            raise _tagged(exc) from None  # the driver raises it again, without Spark's wrapper
        yield out

    values = data.mapInPandas(per_partition, _spark_schema(df, qid, names, weighted)).persist()
    w = F.col(_frames.WEIGHT) if weighted else F.lit(1.0)
    aggs = []
    for i, n in enumerate(names):
        c = _column(n)
        ok = c.isNotNull() & ~F.isnan(c)
        aggs += [F.sum(F.when(ok, c * w)).alias(f"s{i}"), F.sum(F.when(ok, w)).alias(f"w{i}")]
    try:
        row = values.agg(*aggs).collect()[0].asDict()
    except Exception as exc:  # Spark's wrapper of a worker's error (its class varies by version)
        err = _worker_error(exc)
        if err is None:
            raise
        values.unpersist()
        raise err from None
    import pandas as pd

    sums = pd.DataFrame([{k: (0.0 if v is None else float(v)) for k, v in row.items()}])
    mean = _frames.means(sums, names)
    per_query = values.drop(_frames.WEIGHT) if weighted else values
    return SparkEvalResult(per_query, mean, {"ties": ties, **options})


# ---------------------------------------------------------------------------------------------
# Spark ML evaluator
# ---------------------------------------------------------------------------------------------


def _refuse_stable(names: Iterable[str], ties: str) -> None:
    """ValueError for ``ties="stable"`` (the call's or a measure's own): it follows row order,
    which the repartition by qid does not keep, so the value would change from run to run."""
    if ties == "stable" or any(m.ties == "stable" for m in parse_measures(list(names))):
        raise ValueError(
            "ties='stable' follows row order, which Spark's repartition by qid does not keep "
            "(the same rows can come back in another order, and the value with them): use "
            "another tie rule, or break the ties in the score column"
        )


def _one_measure(name: str, ties: str) -> str:
    """``name`` checked to be one measure: a trec_eval family (``"ndcg_cut"``, ``"success"``)
    names several, and an evaluator reports one number (ValueError naming ``metricName``)."""
    out = _frames.output_names([name], ties, {})
    if len(out) != 1:
        raise ValueError(
            f"metricName={name!r} names {len(out)} measures ({', '.join(out)}); an evaluator "
            "reports one number: name one of them"
        )
    return out[0]


def _evaluator_base() -> tuple[type, ...]:
    _import_pyspark()
    from pyspark.ml.evaluation import Evaluator
    from pyspark.ml.param.shared import HasLabelCol, HasPredictionCol, HasWeightCol
    from pyspark.ml.util import DefaultParamsReadable, DefaultParamsWritable

    return (Evaluator, HasLabelCol, HasPredictionCol, HasWeightCol, DefaultParamsReadable,
            DefaultParamsWritable)


def _make_evaluator_class() -> type:
    from pyspark import keyword_only
    from pyspark.ml.param import Param, Params, TypeConverters

    bases = _evaluator_base()

    class RankingEvaluator(*bases):  # type: ignore[misc]
        """Spark ML evaluator of a tie-aware ranking measure per query, averaged over queries.

        Usable wherever Spark ML takes an ``Evaluator`` (``CrossValidator``,
        ``TrainValidationSplit``): :meth:`evaluate` returns the (weighted) mean over queries of
        :func:`rankmetrics.spark.evaluate`.

        Parameters
        ----------
        metricName : str, default "ndcg@10"
            A measure name of :meth:`rankmetrics.QueryPlan.evaluate` (``"ndcg@10"``, ``"map"``,
            ``"p@5"``, ``"rr"``, ...).
        qidCol, labelCol, predictionCol : str, default "qid", "label", "prediction"
        weightCol : str, optional
            Row weights; a query's weight is the mean of its rows' weights.
        ties : {"average", "optimistic", "pessimistic"}, default "average"
            Not ``"stable"``, as in :func:`rankmetrics.spark.evaluate`.

        Raises
        ------
        ValueError
            An unknown measure or tie rule, ``"stable"`` (the tie rule or a measure's own), or
            a ``metricName`` naming several measures (a trec_eval family such as
            ``"ndcg_cut"``), when set; any error of
            :func:`rankmetrics.spark.evaluate` (when evaluating).

        Examples
        --------
        >>> from rankmetrics.spark import RankingEvaluator
        >>> ev = RankingEvaluator(metricName="map", qidCol="query")
        >>> ev.getMetricName(), ev.getQidCol(), ev.isLargerBetter()
        ('map', 'query', True)
        """

        metricName = Param(Params._dummy(), "metricName",
                           "tie-aware measure name, e.g. ndcg@10, map, p@5",
                           typeConverter=TypeConverters.toString)
        qidCol = Param(Params._dummy(), "qidCol", "query id column name",
                       typeConverter=TypeConverters.toString)
        ties = Param(Params._dummy(), "ties", f"tie rule: one of {', '.join(TIES)}",
                     typeConverter=TypeConverters.toString)

        @keyword_only
        def __init__(self, *, metricName: str = "ndcg@10", qidCol: str = "qid",
                     labelCol: str = "label", predictionCol: str = "prediction",
                     weightCol: str | None = None, ties: str = "average") -> None:
            super().__init__()
            self._setDefault(metricName="ndcg@10", qidCol="qid", labelCol="label",
                             predictionCol="prediction", ties="average")
            kwargs = self._input_kwargs
            self.setParams(**kwargs)

        @keyword_only
        def setParams(self, *, metricName: str = "ndcg@10", qidCol: str = "qid",
                      labelCol: str = "label", predictionCol: str = "prediction",
                      weightCol: str | None = None, ties: str = "average") -> Any:
            """Set any of the parameters (keyword arguments only)."""
            kwargs = {k: v for k, v in self._input_kwargs.items() if v is not None}
            if "metricName" in kwargs:
                _one_measure(kwargs["metricName"], kwargs.get("ties", "average"))
            if "ties" in kwargs:
                check_ties(kwargs["ties"])
            ties = kwargs.get("ties", self.getOrDefault(self.ties))
            _refuse_stable([kwargs.get("metricName", self.getOrDefault(self.metricName))], ties)
            return self._set(**kwargs)

        def setMetricName(self, value: str) -> Any:
            """Set ``metricName`` (validated)."""
            return self.setParams(metricName=value)

        def getMetricName(self) -> str:
            """The measure name."""
            return str(self.getOrDefault(self.metricName))

        def setQidCol(self, value: str) -> Any:
            """Set ``qidCol``."""
            return self._set(qidCol=value)

        def getQidCol(self) -> str:
            """The query id column."""
            return str(self.getOrDefault(self.qidCol))

        def setTies(self, value: str) -> Any:
            """Set ``ties`` (validated)."""
            return self.setParams(ties=value)

        def getTies(self) -> str:
            """The tie rule."""
            return str(self.getOrDefault(self.ties))

        def setLabelCol(self, value: str) -> Any:
            """Set ``labelCol``."""
            return self._set(labelCol=value)

        def setPredictionCol(self, value: str) -> Any:
            """Set ``predictionCol``."""
            return self._set(predictionCol=value)

        def setWeightCol(self, value: str) -> Any:
            """Set ``weightCol``."""
            return self._set(weightCol=value)

        def _evaluate(self, dataset: Any) -> float:
            weight = self.getOrDefault(self.weightCol) if self.isDefined(self.weightCol) \
                else None
            name = self.getMetricName()
            _one_measure(name, self.getTies())  # a param map may set it unchecked
            res = evaluate(dataset, [name], qid=self.getQidCol(), label=self.getLabelCol(),
                           score=self.getPredictionCol(), weight=weight or None,
                           ties=self.getTies())
            res.per_query.unpersist()
            return float(next(iter(res.mean.values())))

        def isLargerBetter(self) -> bool:
            """Whether the measure grows with ranking quality (the measure grammar's
            ``higher_is_better``; true of every measure of the core: gains, P/R/F, AP, RR)."""
            name = self.getMetricName()
            _one_measure(name, self.getTies())
            return _frames.higher_is_better(name)

    RankingEvaluator.__module__ = __name__
    RankingEvaluator.__qualname__ = "RankingEvaluator"
    return RankingEvaluator


_CLASS: type | None = None


def __getattr__(name: str) -> Any:
    # the class derives from pyspark's Evaluator, so it is built on first use (lazy import)
    global _CLASS
    if name == "RankingEvaluator":
        if _CLASS is None:
            _CLASS = _make_evaluator_class()
        return _CLASS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
