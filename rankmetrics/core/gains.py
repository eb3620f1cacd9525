"""Gain functions of labels and discount functions of ranks.

Both are resolved once into a hashable key (for caches) and a vectorised function.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .validation import as_float64, check_positive_real

GainLike = str | Sequence[float] | Mapping[float, float] | Callable[[np.ndarray], Any]
DiscountLike = str | Callable[[np.ndarray], Any]

GAINS = ("exponential", "linear")
DISCOUNTS = ("log", "jarvelin2002", "jarvelin2008", "none")
# 2**l - 1 is an exact float64 integer for l <= 53, and sums of such gains times the built-in
# discounts stay far from overflow (float64 and torch's float32) for any realistic list length;
# at l = 1023 three documents already overflowed to inf (nDCG NaN)
_MAX_EXP_LABEL = 53


def _integer_labels(labels: NDArray[np.float64], why: str) -> None:
    if labels.size and not np.all(labels == np.round(labels)):
        bad = labels[labels != np.round(labels)][0]
        raise ValueError(f"labels must be integers {why}; found {bad:g}")


def _real_number(x: Any, what: str) -> float:
    """A finite-or-not real number given by a user (a gain weight or a mapping key)."""
    if isinstance(x, (str, bytes, complex, np.complexfloating)) or not isinstance(
        x, (numbers.Real, np.number)
    ):
        raise TypeError(f"{what} must be a real number; got {x!r}")
    return as_float64(x, what)


def _label_key(x: Any, what: str) -> float:
    """A mapping's label (key): a real number that float64 holds exactly when it is whole
    (labels are matched as float64: the key 2**53 + 1 would take the label 2**53)."""
    out = _real_number(x, what)
    v: Any = x
    if math.isfinite(out) and abs(out) >= 2.0**53 and v == int(v) and int(out) != int(v):
        raise ValueError(f"{what} {int(v)} is not exactly a float64 (it would match the label "
                         f"{int(out)}); use labels below 2**53")
    return out


def _as_float_array(values: Any, source: str) -> NDArray[np.float64]:
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        try:
            items = [_real_number(x, f"{source} value") for x in arr.ravel().tolist()]
        except TypeError as exc:
            raise TypeError(f"{source} must give real numbers; got dtype {arr.dtype}: {exc}") \
                from None
        return np.array(items, dtype=np.float64).reshape(arr.shape)
    return arr.astype(np.float64)


def _check_gains(gains: Any, n: int, source: str) -> NDArray[np.float64]:
    out = _as_float_array(gains, source)
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
        pairs = sorted((_label_key(a, "gain mapping label (key)"),
                        _real_number(b, "gain mapping weight")) for a, b in gain.items())
        w = np.array([b for _, b in pairs], dtype=np.float64)
        if not pairs:
            raise ValueError("gain mapping must map at least one label to a weight")
        if not np.all(np.isfinite([a for a, _ in pairs])):
            raise ValueError("gain mapping labels (keys) must be finite")
        if not np.all(np.isfinite(w)):
            raise ValueError("gain mapping returned a non-finite gain")
        if w.min() < 0:
            raise ValueError(
                f"gain mapping returned a negative gain ({w.min():g}); gains must be >= 0"
            )
        return ("map", tuple(pairs))
    if callable(gain):
        return ("callable", gain)
    if isinstance(gain, (Sequence, np.ndarray)):
        try:
            levels = _as_float_array(gain, "gain weights").ravel()
        except TypeError as exc:
            raise TypeError(f"gain weights must be a sequence of real numbers: {exc}") from None
        if levels.size == 0 or not np.all(np.isfinite(levels)) or levels.min() < 0:
            raise ValueError("gain weights must be a non-empty sequence of finite numbers >= 0")
        return ("levels", tuple(float(w) for w in levels))
    raise TypeError(f"gain must be a string, sequence, mapping or callable; got {type(gain)}")


def apply_gain(gain: GainLike, labels: NDArray[np.float64]) -> NDArray[np.float64]:
    """Gain of each label (float64, same shape as ``labels``).

    ``"exponential"`` is 2**l - 1 (Burges et al. 2005; LightGBM's default label_gain), defined for
    integer labels 0..53 (exact in float64); ``"linear"`` is l itself (Järvelin & Kekäläinen
    2002, Sec. 2.1); a sequence ``w`` maps integer level l to ``w[l]`` (the paper's 0-1-10-100
    weights); a mapping maps each label value to its weight; a callable receives the float64
    labels.
    """
    key = gain_key(gain)
    is_int = labels.dtype.kind in "iu"  # integer labels (one-call functions keep their dtype)
    if key == "linear":
        return labels.astype(np.float64, copy=True)
    if key == "exponential":
        if not is_int:
            _integer_labels(labels,
                            'with gain="exponential" (2**l - 1); use gain="linear" or weights')
        if labels.size and labels.max() > _MAX_EXP_LABEL:
            raise ValueError(
                f"label {labels.max():g} is too large for gain 2**l - 1 "
                f"(max {_MAX_EXP_LABEL}, where float64 gains stay exact); use gain='linear' "
                "or per-level weights"
            )
        if is_int and labels.size and labels.min() >= 0:
            # integer labels: a table of the few gains, looked up (exp2 per row is slower)
            by_level = np.exp2(np.arange(int(labels.max()) + 1, dtype=np.float64)) - 1.0
            codes: Any = labels  # integer dtype here (the annotation says float64)
            return np.take(by_level, codes)
        out = np.exp2(labels, dtype=np.float64)
        out -= 1.0  # in place: no second temporary the size of the input
        return out
    if is_int and key[0] != "levels":
        labels = labels.astype(np.float64)
    if key[0] == "levels":
        weights = np.asarray(key[1], dtype=np.float64)
        if weights.size == 0 or not np.all(np.isfinite(weights)) or weights.min() < 0:
            raise ValueError("gain weights must be a non-empty sequence of finite numbers >= 0")
        if not is_int:
            _integer_labels(labels, "to index per-level gain weights")
        if labels.size and labels.max() >= weights.size:
            raise ValueError(
                f"label {labels.max():g} has no gain weight: {weights.size} weights given "
                f"(levels 0..{weights.size - 1})"
            )
        return weights[labels if is_int else labels.astype(np.int64)]
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


def compact_gains(gains: NDArray[np.float64]) -> NDArray[Any]:
    """``gains`` as uint8 when every gain is an integer 0..255 (the exponential gain of labels
    up to 8, the linear gain of integer labels up to 255): exact, and 1 byte per row instead
    of 8 for the compiled kernel, which reads each value into float64 arithmetic. Otherwise
    ``gains`` unchanged. Gains are >= 0 (checked by :func:`apply_gain`)."""
    if gains.size == 0 or not gains.max() <= 255:
        return gains
    small = gains.astype(np.uint8)
    return small if np.array_equal(small, gains) else gains


def label_range(labels: NDArray[Any]) -> tuple[Any, Any, bool]:
    """(smallest, largest, whether every value is an integer) of non-empty numeric labels of
    shape (n,), any integer or float dtype; a NaN makes the last False. Raises nothing."""
    whole = labels.dtype.kind != "f" or bool(np.all(labels == np.floor(labels)))
    return labels.min(), labels.max(), whole


def take_table(table: NDArray[Any], labels: NDArray[Any]) -> NDArray[Any]:
    """``table[labels]`` (shape (n,), the table's dtype) for labels of shape (n,) that are
    integer values 0..255 inside the table (checked by the caller with :func:`label_range`)."""
    return table[labels.astype(np.uint8)]


def small_int_gains(gain: GainLike, labels: NDArray[Any],
                    label_range: Callable[[NDArray[Any]], tuple[Any, Any, bool]] = label_range,
                    take: Callable[[NDArray[Any], NDArray[Any]], NDArray[Any]] = take_table,
                    take_ranged: Callable[[NDArray[np.uint8], NDArray[Any]],
                                          tuple[NDArray[np.uint8], Any, Any] | None] | None = None,
                    ) -> NDArray[np.uint8] | None:
    """:func:`compact_gains` of :func:`apply_gain` read from a table of the label levels,
    without a float64 array per row: for labels that are integers 0..255 whose exponential,
    linear or per-level gains are integers 0..255 too. None for anything else (then
    :func:`apply_gain`). The table covers every level up to the largest label, so a label
    :func:`apply_gain` rejects is rejected here with the same message.

    ``labels``: shape (n,), any integer or float dtype; returns uint8 of shape (n,) or None.
    ``label_range`` and ``take``: as :func:`label_range` and :func:`take_table` (the default),
    or the compiled backend's one-pass versions of them. ``take_ranged`` (the compiled
    backend's, for integer labels): the table lookup and the labels' range in one pass, over
    the table of every level whose gain fits (:func:`uint8_table`), with each label clipped
    into it; the lookup is kept when the range lies inside the table, else the two-pass path
    decides."""
    key = gain_key(gain)
    if not (key in GAINS or key[0] == "levels"):
        return None
    if labels.size == 0 or labels.dtype.kind not in "iuf" or labels.dtype.itemsize > 8:
        return None
    if take_ranged is not None and labels.dtype.kind in "iu":
        table = uint8_table(key)
        if table.shape[0]:
            hit = take_ranged(table, labels)
            if hit is not None:
                out, lo, hi = hit
                if lo >= 0 and hi < table.shape[0]:
                    return out
    lo, hi, whole = label_range(labels)
    if not (whole and lo >= 0 and hi <= 255):
        return None
    table = compact_gains(apply_gain(gain, np.arange(int(hi) + 1, dtype=np.float64)))
    if table.dtype != np.uint8:
        return None
    return take(table, labels)


_TABLES: dict[Any, NDArray[np.uint8]] = {}


def uint8_table(key: Any) -> NDArray[np.uint8]:
    """The uint8 gains of levels 0..T-1 for the gain key ``key`` (:func:`gain_key`: an
    exponential, linear or per-level gain), T the first level whose gain is not an integer
    0..255 (at most 256 levels; empty when level 0's is not); cached per key, read-only.
    Raises what :func:`apply_gain` raises for the key (invalid per-level weights)."""
    hit = _TABLES.get(key)
    if hit is None:
        n = 9 if key == "exponential" else 256 if key == "linear" else min(len(key[1]), 256)
        g = apply_gain(key if isinstance(key, str) else list(key[1]),
                       np.arange(n, dtype=np.float64))
        fits = (g == np.floor(g)) & (g <= 255)
        t = n if bool(fits.all()) else int(np.argmin(fits))
        hit = g[:t].astype(np.uint8)
        hit.setflags(write=False)
        if len(_TABLES) >= 64:  # per-level weights are keys too: keep the cache small
            _TABLES.clear()
        _TABLES[key] = hit
    return hit


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
        out = _as_float_array(key[1](np.arange(1, n + 1, dtype=np.int64)), "discount callable")
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


class LevelGains:
    """Gain of the listed label levels; every other label keeps its linear gain (the label).

    ir_measures' and trec_eval's per-measure ``gains={level: gain}`` rule, as a callable gain
    (equal and hashable by its table, so caches keyed by :func:`gain_key` reuse it).

    Examples
    --------
    >>> import numpy as np
    >>> LevelGains({1: 3.0, 2: 9.0})(np.array([0.0, 1.0, 2.0, 4.0]))
    array([0., 3., 9., 4.])
    """

    def __init__(self, table: Mapping[float, float] | Sequence[tuple[float, float]]) -> None:
        items = table.items() if isinstance(table, Mapping) else table
        self.pairs = tuple(sorted((float(a), float(b)) for a, b in items))

    def __call__(self, labels: np.ndarray) -> NDArray[np.float64]:
        out = np.array(labels, dtype=np.float64, copy=True)
        for level, g in self.pairs:
            out[labels == level] = g
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LevelGains) and other.pairs == self.pairs

    def __hash__(self) -> int:
        return hash(("LevelGains", self.pairs))

    def __repr__(self) -> str:
        return f"LevelGains({dict(self.pairs)!r})"
