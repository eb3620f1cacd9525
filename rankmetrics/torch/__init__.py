"""PyTorch integration: tie-aware ranking metrics on tensors and a training-loop monitor.

Needs the optional extra ``rankmetrics[torch]`` (PyTorch); :class:`RankingMetric` also needs
torchmetrics (``rankmetrics[torchmetrics]``) and is imported only when first used.

* :mod:`rankmetrics.torch.functional` -- :func:`cg`, :func:`dcg`, :func:`ncg`, :func:`ndcg`,
  :func:`precision`, :func:`recall`, :func:`f1`, :func:`fbeta`, :func:`average_precision`,
  :func:`reciprocal_rank`, :func:`r_precision`, :func:`success`, :func:`err`,
  :func:`rbp` and :func:`evaluate`:
  per-query values for flat ``(N,)`` input with ``indexes`` or padded ``(B, L)`` input with
  ``mask``, on the input's device.
* :func:`pad_slates` -- flat rows with ``indexes`` into padded ``(B, L)`` slates and a mask.
* :class:`RankingMonitor` -- running means (loss, metrics, tie bounds) for a training loop, with
  sum-reducible state for ``torch.distributed.all_reduce``.
* :class:`RankingMetric` -- the same as a ``torchmetrics.Metric`` (Lightning ``self.log``).
"""

from __future__ import annotations

from typing import Any

try:
    import torch as _torch  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "rankmetrics.torch needs PyTorch; install the extra: pip install 'rankmetrics[torch]'"
    ) from exc

from .functional import (
    average_precision,
    cg,
    dcg,
    err,
    evaluate,
    f1,
    fbeta,
    ncg,
    ndcg,
    precision,
    r_precision,
    rbp,
    recall,
    reciprocal_rank,
    success,
)
from .monitor import RankingMonitor
from .slates import pad_slates

__all__ = [
    "average_precision",
    "cg",
    "dcg",
    "err",
    "evaluate",
    "f1",
    "fbeta",
    "ncg",
    "ndcg",
    "precision",
    "r_precision",
    "rbp",
    "recall",
    "reciprocal_rank",
    "success",
    "pad_slates",
    "RankingMonitor",
    "RankingMetric",
]


def __getattr__(name: str) -> Any:
    if name == "RankingMetric":
        from .metric import RankingMetric

        return RankingMetric
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
