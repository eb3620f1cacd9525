"""Validated metric options shared by every adapter (LightGBM, torch, ...)."""

from __future__ import annotations

from typing import Any

from .gains import DiscountLike, GainLike, discount_key, gain_key
from .validation import check_choice, check_empty, check_positive_real, check_threshold

#: AP denominators: R, min(k, R), or the relevant documents found in the top k (torchmetrics)
DENOMINATORS = ("relevant", "min_k_relevant", "found")


class MetricOptions:
    """The core's per-call metric options, validated once when an adapter is built.

    Parameters
    ----------
    gain, discount, log_base, threshold, beta, empty, denominator
        As in :func:`rankmetrics.ndcg`, :func:`rankmetrics.fbeta` and
        :func:`rankmetrics.average_precision`.

    Raises
    ------
    ValueError, TypeError
        Unknown gain/discount names, log_base <= 1, non-numeric threshold, beta <= 0, a bad
        empty rule or denominator.
    """

    def __init__(self, *, gain: GainLike = "exponential", discount: DiscountLike = "log",
                 log_base: float = 2, threshold: float = 1, beta: float = 1.0,
                 empty: float | str = 0.0, denominator: str = "relevant") -> None:
        gain_key(gain)
        self._dkey = discount_key(discount, log_base)
        self._dsrc = (discount, log_base)
        self.gain = gain
        self.discount = discount
        self.log_base = log_base
        self.threshold = check_threshold(threshold)
        self.beta = check_positive_real("beta", beta)
        self.empty = check_empty(empty)
        self.denominator = check_choice("denominator", denominator, DENOMINATORS)

    def dkey(self) -> Any:
        """Hashable identity of the discount (a cache key)."""
        if self._dsrc[0] is not self.discount or self._dsrc[1] is not self.log_base:
            self._dsrc = (self.discount, self.log_base)  # reassigned since: validate again
            self._dkey = discount_key(self.discount, self.log_base)
        return self._dkey
