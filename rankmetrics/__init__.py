"""rankmetrics: exact tie-aware ranking metrics for learning to rank and IR evaluation.

Per-query functions return one float64 value per query (in ``np.unique(qid)`` order); the
``*_score`` forms return the mean (``ndcg_score``/``dcg_score`` with scikit-learn's linear gain by
default; the means of precision, recall, F and AP are spelled ``mean_*_score``, because
scikit-learn's ``precision_score`` etc. are classification metrics); the ``*_curve`` forms the
Järvelin–Kekäläinen gain vectors.
:class:`QueryPlan` caches the label-side work for repeated evaluation of new scores.
"""

from .analysis.vectors import average_normalised, avg_pos, avg_vect, norm_vect
from .core.backend import get_backend, set_backend
from .core.functions import (
    average_precision,
    average_precision_score,
    cg,
    cg_curve,
    cg_score,
    dcg,
    dcg_curve,
    dcg_score,
    err,
    err_score,
    f1,
    f1_score,
    fbeta,
    fbeta_score,
    ideal_cg_curve,
    ideal_dcg_curve,
    mean_average_precision_score,
    mean_f1_score,
    mean_fbeta_score,
    mean_precision_score,
    mean_recall_score,
    ncg,
    ncg_curve,
    ncg_score,
    ndcg,
    ndcg_curve,
    ndcg_score,
    precision,
    precision_score,
    r_precision,
    r_precision_score,
    rbp,
    rbp_score,
    recall,
    recall_score,
    reciprocal_rank,
    reciprocal_rank_score,
    success,
    success_score,
)
from .core.plan import QueryPlan, parse_metric

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    """Lazy attributes: ``rankmetrics.evaluate`` imports pandas/pyarrow only when used."""
    if name == "evaluate":
        from .trec import evaluate

        return evaluate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "QueryPlan",
    "evaluate",
    "get_backend",
    "set_backend",
    "parse_metric",
    "average_precision",
    "average_precision_score",
    "cg",
    "cg_curve",
    "cg_score",
    "dcg",
    "dcg_curve",
    "dcg_score",
    "err",
    "err_score",
    "f1",
    "f1_score",
    "fbeta",
    "fbeta_score",
    "ideal_cg_curve",
    "ideal_dcg_curve",
    "mean_average_precision_score",
    "mean_f1_score",
    "mean_fbeta_score",
    "mean_precision_score",
    "mean_recall_score",
    "ncg",
    "ncg_curve",
    "ncg_score",
    "ndcg",
    "ndcg_curve",
    "ndcg_score",
    "precision",
    "precision_score",
    "r_precision",
    "r_precision_score",
    "rbp",
    "rbp_score",
    "recall",
    "recall_score",
    "reciprocal_rank",
    "reciprocal_rank_score",
    "success",
    "success_score",
    "average_normalised",
    "avg_pos",
    "avg_vect",
    "norm_vect",
]
