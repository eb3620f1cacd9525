"""Gain functions of labels and discount functions of ranks.

Both are resolved once into a hashable key (for caches) and a vectorised function.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .validation import check_positive_real

GainLike = str | Sequence[float] | Mapping[float, float] | Callable[[np.ndarray], Any]
DiscountLike = str | Callable[[np.ndarray], Any]

GAINS = ("exponential", "linear")
DISCOUNTS = ("log", "jarvelin2002", "jarvelin2008", "none")
_MAX_EXP_LABEL = 1023  # 2**1024 overflows float64


def _integer_labels(labels: NDArray[np.float64], why: str) -> None:
    if labels.size and not np.all(labels == np.round(labels)):
        bad = labels[labels != np.round(labels)][0]
        raise ValueError(f"labels must be integers {why}; found {bad:g}")


def _check_gains(gains: Any, n: int, source: str) -> NDArray[np.float64]:
    out = np.asarray(gains, dtype=np.float64)
    if out.shape != (n,):
        raise ValueError(f"{source} must return one gain per label (shape ({n},)); got {out.shape}")
    if n and not np.all(np.isfinite(out)):
        raise ValueError(f"{source} returned a non-finite gain")
    if n and out.min() < 0:
        raise ValueError(f"{source} returned a negative gain ({out.min():g}); gains must be >= 0")
    return out


def gain_key(gain: GainLike) -> Any:
    """A hashable identity for a gain specification (used as a cache key)."""
    if isinstance(gain, str):
        if gain not in GAINS:
            raise ValueError(
                f"gain must be one of {', '.join(map(repr, GAINS))}, a sequence of per-level "
                f"weights, a mapping or a callable; got {gain!r}"
            )
        return gain
    if isinstance(gain, Mapping):
        return ("map", tuple(sorted((float(a), float(b)) for a, b in gain.items())))
    if callable(gain):
        return ("callable", gain)
    if isinstance(gain, (Sequence, np.ndarray)):
        return ("levels", tuple(float(w) for w in np.asarray(gain, dtype=np.float64).ravel()))
    raise TypeError(f"gain must be a string, sequence, mapping or callable; got {type(gain)}")


def apply_gain(gain: GainLike, labels: NDArray[np.float64]) -> NDArray[np.float64]:
    """Gain of each label (float64, same shape as ``labels``).

    ``"exponential"`` is 2**l - 1 (Burges et al. 2005; LightGBM's default label_gain), defined for
    integer labels 0..1023; ``"linear"`` is l itself (Järvelin & Kekäläinen 2002, Sec. 2.1); a
    sequence ``w`` maps integer level l to ``w[l]`` (the paper's 0-1-10-100 weights); a mapping
    maps each label value to its weight; a callable receives the float64 labels.
    """
    key = gain_key(gain)
    if key == "linear":
        return labels.astype(np.float64, copy=True)
    if key == "exponential":
        _integer_labels(labels, 'with gain="exponential" (2**l - 1); use gain="linear" or weights')
        if labels.size and labels.max() > _MAX_EXP_LABEL:
            raise ValueError(
                f"label {labels.max():g} is too large for gain 2**l - 1 in float64 "
                f"(max {_MAX_EXP_LABEL}); use gain='linear' or per-level weights"
            )
        out = np.exp2(labels)
        out -= 1.0  # in place: no second temporary the size of the input
        return out
    if key[0] == "levels":
        weights = np.asarray(key[1], dtype=np.float64)
        if weights.size == 0 or not np.all(np.isfinite(weights)) or weights.min() < 0:
            raise ValueError("gain weights must be a non-empty sequence of finite numbers >= 0")
        _integer_labels(labels, "to index per-level gain weights")
        if labels.size and labels.max() >= weights.size:
            raise ValueError(
                f"label {labels.max():g} has no gain weight: {weights.size} weights given "
                f"(levels 0..{weights.size - 1})"
            )
        return weights[labels.astype(np.int64)]
    if key[0] == "map":
        table = dict(key[1])
        uniq, inv = np.unique(labels, return_inverse=True)
        missing = [u for u in uniq.tolist() if u not in table]
        if missing:
            raise ValueError(f"gain mapping has no weight for label(s) {missing[:5]}")
        vals = np.array([table[u] for u in uniq.tolist()], dtype=np.float64)
        return _check_gains(vals[inv.ravel()].reshape(labels.shape), labels.size, "gain mapping")
    fn = key[1]
    return _check_gains(fn(labels.copy()), labels.size, "gain callable")


def discount_key(discount: DiscountLike, log_base: float) -> Any:
    if isinstance(discount, str):
        if discount not in DISCOUNTS:
            raise ValueError(
                f"discount must be one of {', '.join(map(repr, DISCOUNTS))} or a callable; "
                f"got {discount!r}"
            )
        if discount == "none":
            return ("none",)
        return (discount, check_positive_real("log_base", log_base, above=1.0))
    if callable(discount):
        return ("callable", discount)
    raise TypeError(f"discount must be a string or a callable of ranks; got {type(discount)}")


def discount_table(key: Any, n: int) -> NDArray[np.float64]:
    """Discounts of ranks 1..n (float64, shape (n,)).

    ``"log"``: 1 / log_b(i + 1) (Burges et al. 2005; LightGBM, scikit-learn).
    ``"jarvelin2002"``: 1 for i < b and 1 / log_b(i) for i >= b (Järvelin & Kekäläinen 2002,
    TOIS eq. 2, the version that does not boost ranks below the base).
    ``"jarvelin2008"``: 1 / (1 + log_b i) (Järvelin et al. 2008, appendix eq. 2).
    """
    name = key[0]
    if name == "none":
        return np.ones(n)
    if name == "callable":
        out = np.asarray(key[1](np.arange(1, n + 1, dtype=np.int64)), dtype=np.float64)
        if out.shape != (n,):
            raise ValueError(f"discount callable must return shape ({n},); got {out.shape}")
        if n and (not np.all(np.isfinite(out)) or out.min() < 0):
            raise ValueError("discount callable must return finite discounts >= 0")
        return out
    lb = math.log(key[1])
    out = np.arange(1, n + 1, dtype=np.float64)  # ranks; computed in place (one n-array)
    if name == "log":
        np.log1p(out, out=out)
        np.divide(lb, out, out=out)
        return out
    if name == "jarvelin2002":
        first_far = min(n, max(0, math.ceil(key[1]) - 1))  # ranks >= base
        far = out[first_far:]
        np.log(far, out=far)
        np.divide(lb, far, out=far)
        out[:first_far] = 1.0
        return out
    np.log(out, out=out)  # jarvelin2008: 1 / (1 + log_b i)
    out /= lb
    out += 1.0
    np.divide(1.0, out, out=out)
    return out
