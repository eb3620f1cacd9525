"""Input checks shared by every public entry point.

Validation happens once, at the boundary; the kernels trust what they get. One test is made
later on the main path: NaN and inf scores are looked for by the compiled one-pass evaluation as
it reads each list (``check_scores(finite=False)``, then ``QueryPlan``), which saves a pass over
the scores; every other path checks them here (:func:`check_finite`).
"""

from __future__ import annotations

import datetime
import decimal
import fractions
import math
import numbers
import os
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

TIES = ("average", "optimistic", "pessimistic", "stable")
_NULS = ("\x00", b"\x00")
_INT_EXACT = 2**53



def all_finite(arr: np.ndarray) -> bool:
    """True when every value of the float array ``arr`` (any shape, float16..float64) is
    finite (no NaN, no inf); raises nothing.

    One reduction instead of a boolean array per row: a NaN or an inf makes the sum NaN or
    inf, and a sum of finite values is finite unless it overflows, so the values are looked at
    one by one only when the sum is not finite."""
    if arr.size == 0:
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.add.reduce(arr, axis=None)):
            return True
    return bool(np.all(np.isfinite(arr)))


def has_masked(x: Any) -> bool:
    """Whether ``x`` is a numpy masked array with masked entries (``np.asarray`` would drop
    the mask and read the hidden values as data)."""
    return isinstance(x, np.ma.MaskedArray) and bool(np.ma.is_masked(x))


def refuse_masked(x: Any, name: str) -> None:
    """Raise ValueError naming ``name`` when ``x`` is a numpy masked array with masked
    entries: ``np.asarray`` would drop the mask and read the hidden values as data."""
    if has_masked(x):
        raise ValueError(f"{name} is a masked array with masked entries; fill them "
                         f"(.filled(...)) or drop their rows first")


def _asarray(x: ArrayLike, name: str) -> np.ndarray:
    if x is None:
        raise TypeError(f"{name} must be array-like, got None")
    refuse_masked(x, name)
    if type(x).__module__.startswith("scipy.sparse"):
        # np.asarray wraps it in a 0-d object array, which read as a "missing value"
        raise TypeError(f"{name} is a scipy sparse {type(x).__name__}; pass a dense array "
                        "(.toarray())")
    try:
        arr = np.asarray(x)
    except Exception as exc:  # pragma: no cover - numpy's own message is kept
        raise TypeError(f"{name} could not be converted to an array: {exc}") from exc
    return arr


def _real_kind_check(arr: np.ndarray, name: str) -> None:
    """Reject dtypes that are not real numbers (complex, strings, dates, void)."""
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(
            f"{name} must be real numbers; got complex dtype {arr.dtype} (take .real or abs() "
            "first if that is what you mean)"
        )
    if kind not in "biufO":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")


def real_host_array(x: ArrayLike, name: str) -> np.ndarray:
    """``x`` as a numpy array of real numbers in native byte order, for a peer library that
    reads the raw buffer (XGBoost's ``DMatrix`` reads a big-endian array's bytes as native
    ones, LightGBM's ``Dataset`` likewise): masked entries, complex, dates, strings and
    records are refused naming ``name``; object arrays of numbers become float64."""
    arr = _asarray(x, name)
    _real_kind_check(arr, name)
    if arr.dtype.kind == "O":
        return _object_to_float(arr, name)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def is_missing(x: Any) -> bool:
    """None, NaN, pandas.NA / NaT and the like (anything not equal to itself); never an array
    or a sequence (a nested value, whose ``!=`` is elementwise)."""
    if x is None:
        return True
    if isinstance(x, (np.ndarray, list, tuple, dict, set)):
        return False
    try:
        return bool(x != x)
    except (TypeError, ValueError):  # pandas.NA: its truth value is ambiguous
        return True


def _object_to_float(arr: np.ndarray, name: str) -> NDArray[np.float64]:
    """float64 of an object array of real numbers; TypeError naming ``name`` otherwise."""
    for t in set(map(type, arr.ravel().tolist())):
        if t is complex or (isinstance(t, type) and issubclass(t, np.complexfloating)):
            raise TypeError(f"{name} must be real numbers; found a complex value")
        if isinstance(t, type) and issubclass(t, (str, bytes)):
            raise TypeError(f"{name} must be numeric; found a {t.__name__} value")
    try:
        return arr.astype(np.float64)
    except OverflowError:
        for x in arr.ravel().tolist():
            as_float64(x, name)  # raises at the first value past float64's range
        raise ValueError(f"{name} holds a number past float64's range") from None
    except (TypeError, ValueError) as exc:
        missing = [x for x in arr.ravel().tolist() if is_missing(x)]
        if missing:
            raise ValueError(
                f"{name} has missing values ({missing[0]!r}); drop or fill them first"
            ) from exc
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}: {exc}") from exc


def negative_labels_error(name: str, smallest: Any) -> ValueError:
    """The error for labels below 0 (``smallest``: the smallest label)."""
    return ValueError(
        f"{name} must be non-negative graded labels; found {smallest:g}. "
        "Map negative judgements (e.g. trec -1) to 0 first."
    )


def check_labels(y_true: ArrayLike, name: str = "y_true", copy: bool = True,
                 compact: bool = False, defer_sign: bool = False) -> NDArray[Any]:
    """Return labels as a new float64 array; reject NaN/inf, negative and non-numeric labels.

    ``copy=False`` (one-call functions, whose plan lives for the call only) keeps an integer or
    float64 array as it is: no widening copy of narrow labels (int8 stays 1 byte per row).
    ``defer_sign=True`` (with ``copy=False``) leaves the sign of signed integer labels, and
    whether float64 holds them exactly (:func:`check_exact_int_labels`), to the caller, who
    must check both before any label is used (``QueryPlan._from_checked`` does, in
    the pass that turns them into gains where it can). ``compact=True`` (a
    :class:`~rankmetrics.QueryPlan`'s own copy) returns a uint8 copy when every label is an
    integer 0..255 (exact, 1 byte per row instead of 8).
    """
    arr = _asarray(y_true, name)
    _real_kind_check(arr, name)
    if (isinstance(y_true, (list, tuple)) and arr.dtype == np.float64 and arr.size
            and (arr.max() >= _INT_EXACT or arr.min() <= -_INT_EXACT)):
        # numpy turns a list mixing ints in [2**63, 2**64) with small ones into float64
        # silently (2**63 + 1 becomes 2**63): look at the ints as given
        check_exact_int_labels(np.asarray(y_true, dtype=object), name)
    if not (defer_sign and not copy and arr.dtype.kind == "i"):
        # deferred with the sign: checked where the labels' range is found anyway
        check_exact_int_labels(arr, name)
    if compact:
        small = _small_int_labels(arr)
        if small is not None:
            return small
    if not copy and (arr.dtype.kind in "iu" or arr.dtype == np.float64):
        if arr.size and arr.dtype.kind == "i" and not defer_sign and arr.min() < 0:
            raise negative_labels_error(name, arr.min())
        if arr.dtype.kind in "iu":
            return arr
    if arr.dtype.kind == "O":
        out = _object_to_float(arr, name)
    elif copy or arr.dtype != np.float64:
        out = np.array(arr, dtype=np.float64, copy=True)
    else:
        out = arr
    if not all_finite(out):
        bad = out[~np.isfinite(out)][0]
        raise ValueError(f"{name} must be finite; found {bad}")
    if out.size and out.min() < 0:
        raise negative_labels_error(name, out.min())
    return out


def check_exact_int_labels(arr: np.ndarray, name: str) -> None:
    """Refuse integer labels that float64 cannot hold exactly.

    Labels are compared as float64 (``threshold``), where 2**63 + 1 would equal 2**63 and a
    document below the threshold would count as relevant. One reduction over 64-bit integer
    labels and long double ones; object arrays (Python ints of any size, Decimal, Fraction)
    are looked at one by one; other dtypes pass (every 8..32-bit integer is exact in float64).

    Parameters
    ----------
    arr : ndarray, shape (n,) or (n_queries, n_docs)
        The labels as :func:`check_labels` reads them (any dtype).
    name : str
        The argument named in the error (``"y_true"``).

    Raises
    ------
    ValueError
        An integer label of 2**53 or more that float64 rounds (2**63 itself passes).
    """
    if arr.size == 0:
        return
    if arr.dtype.kind in "iu" and arr.dtype.itemsize == 8:
        if arr.max() < _INT_EXACT:  # negative labels: refused by the sign check
            return
        big = arr[arr >= _INT_EXACT]
        f = big.astype(np.float64)
        with np.errstate(invalid="ignore"):  # 2**64 (from 2**64 - 1) does not cast back
            exact = (f < 2.0**64 if big.dtype.kind == "u" else f < 2.0**63) & (
                f.astype(big.dtype) == big)
        if not exact.all():
            raise _inexact_label_error(name, big[~exact][0])
    elif arr.dtype.kind == "f" and arr.dtype.itemsize > 8:  # long double: 64-bit mantissa
        with np.errstate(invalid="ignore"):
            big = arr[arr >= _INT_EXACT]
            f = big.astype(np.float64)
            bad = (big == np.floor(big)) & np.isfinite(f) & (f.astype(arr.dtype) != big)
        if bad.any():
            raise _inexact_label_error(name, big[bad][0])
    elif arr.dtype.kind == "O":
        for x in arr.ravel().tolist():
            if isinstance(x, numbers.Integral) and not isinstance(x, bool) and int(x) >= _INT_EXACT:
                try:
                    same = float(x) == x
                except OverflowError:
                    same = True  # past float64's range: _object_to_float names it
                if not same:
                    raise _inexact_label_error(name, x)
            elif isinstance(x, (decimal.Decimal, fractions.Fraction)):
                # whole Decimal/Fraction labels too: Decimal(2**53 + 3) became 2**53 + 4
                try:
                    whole = x.is_finite() and x >= _INT_EXACT and x == int(x) \
                        if isinstance(x, decimal.Decimal) else x >= _INT_EXACT and x == int(x)
                    same = not whole or math.isinf(float(x)) or float(x) == x
                except OverflowError:
                    same = True  # past float64's range: _object_to_float names it
                if not same:
                    raise _inexact_label_error(name, x)


def _inexact_label_error(name: str, value: Any) -> ValueError:
    return ValueError(
        f"{name} has an integer label, {int(value)}, that float64 cannot hold exactly (it would "
        "compare equal to its neighbours, e.g. with a threshold); use labels below 2**53"
    )


def _small_int_labels(arr: np.ndarray) -> NDArray[np.uint8] | None:
    """A uint8 copy of ``arr`` when every value is an integer in 0..255, else None (NaN, inf,
    negative, fractional or larger labels: the float64 path checks and reports them)."""
    if arr.size == 0 or arr.dtype.kind not in "biuf" or arr.dtype.itemsize > 8:
        return None
    if not (arr.min() >= 0 and arr.max() <= 255):
        return None
    small = arr.astype(np.uint8)
    if arr.dtype.kind == "f" and not np.array_equal(small, arr):
        return None
    return small


def _int_range_error(name: str) -> ValueError:
    return ValueError(
        f"{name} has integers of magnitude 2**53 or more that float64 cannot rank exactly; "
        "rescale them first"
    )


def _check_no_collapse(orig: np.ndarray, conv: np.ndarray, name: str) -> None:
    """Raise when two distinct values of ``orig`` become equal in ``conv`` (a false tie).

    O(n log n); only called on the rare inputs whose conversion to float64 is not lossless.
    """
    flat = orig.ravel()
    order = np.argsort(flat, kind="stable")
    a = flat[order]
    b = conv.ravel()[order]
    if np.any((a[1:] != a[:-1]) & (b[1:] == b[:-1])):
        raise ValueError(
            f"{name} has distinct values that float64 cannot tell apart (they would become a "
            f"false tie); rescale or round them to float64 first"
        )


def check_finite(scores: np.ndarray, name: str = "y_score") -> None:
    """Raise ValueError naming ``name`` and the first NaN or inf of the float array ``scores``
    (any shape); nothing when every value is finite."""
    if not all_finite(scores):
        bad = scores[~np.isfinite(scores)][0]
        raise ValueError(f"{name} must be finite (no NaN or inf); found {bad}")


def check_scores(y_score: ArrayLike, name: str = "y_score", finite: bool = True) -> np.ndarray:
    """Return scores in a dtype whose equality is the caller's: float32 or float64.

    float16 widens to float32 and integers to float64 (exact below 2**53), so no two
    distinct input scores collapse into a tie and no tie is split. Python ints (at any size),
    uint64, long double, Decimal and Fraction scores are accepted only when float64 keeps every
    pair of distinct values distinct; complex, string and missing values are rejected.
    ``finite=False`` leaves NaN and inf to the caller, who must check them (:func:`check_finite`)
    before any score is ranked: the compiled one-pass evaluation checks them as it reads each
    list (``QueryPlan``), one pass over the scores fewer.
    """
    arr = _asarray(y_score, name)
    _real_kind_check(arr, name)
    kind = arr.dtype.kind
    if kind == "b":
        return arr.astype(np.float64)
    if kind in "iu":
        if arr.size and (arr.max() >= _INT_EXACT or arr.min() <= -_INT_EXACT):
            raise _int_range_error(name)
        return arr.astype(np.float64)
    if kind == "f":
        if arr.dtype.itemsize > 8:  # long double: keep only if no two values merge
            out = arr.astype(np.float64)
            fin = np.isfinite(arr)
            if not np.array_equal(out[fin], arr[fin]):
                _check_no_collapse(arr, out, name)
        else:
            out = np.asarray(arr, dtype=np.float32 if arr.dtype.itemsize <= 4 else np.float64)
            if (
                not isinstance(y_score, np.ndarray)
                and out.size
                and np.any(np.abs(out) >= _INT_EXACT)
            ):
                # numpy turns a list mixing large Python ints with floats (or ints in
                # [2**63, 2**64) with small ones) into float64 silently: look at the ints
                _check_python_ints(np.asarray(y_score, dtype=object), name)
    else:
        obj = arr
        _check_python_ints(obj, name)
        out = _object_to_float(obj, name)
        if out.size and np.all(np.isfinite(out)):
            try:
                _check_no_collapse(obj, out, name)
            except TypeError as exc:  # values that cannot be ordered
                raise TypeError(f"{name} values cannot be compared: {exc}") from exc
    if finite:
        check_finite(out, name)
    return out


def _check_python_ints(obj: np.ndarray, name: str) -> None:
    """Integers (Python or numpy) in an object array must lie strictly inside +-2**53."""
    for x in obj.ravel().tolist():
        if isinstance(x, numbers.Integral) and not isinstance(x, bool):
            if not -_INT_EXACT < int(x) < _INT_EXACT:
                raise _int_range_error(name)


def flatten_inputs(
    y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None, defer_sign: bool = False,
    defer_finite: bool = False,
) -> tuple[NDArray[np.float64], np.ndarray, np.ndarray | None]:
    """Bring (y_true, y_score, qid) to flat 1-D arrays.

    A 2-D ``(n_queries, n_docs)`` pair (scikit-learn's ``ndcg_score`` layout) becomes one query
    per row. ``defer_sign``: as in :func:`check_labels` (signed integer labels come back with
    their sign unchecked). ``defer_finite``: as ``check_scores(finite=False)`` (NaN and inf
    scores come back unchecked; the caller must check them).
    """
    labels = check_labels(y_true, copy=False, defer_sign=defer_sign)
    scores = check_scores(y_score, finite=not defer_finite)
    if labels.ndim == 2 or scores.ndim == 2:
        if labels.shape != scores.shape:
            raise ValueError(
                "y_true and y_score must have the same shape; "
                f"got {labels.shape} and {scores.shape}"
            )
        if qid is not None:
            raise ValueError("qid must be None when y_true and y_score are 2-D (one query per row)")
        n_q, n_d = labels.shape
        if labels.size == 0:
            raise ValueError("y_true is empty: at least one document is needed")
        q = np.repeat(np.arange(n_q, dtype=np.int64), n_d)
        return labels.ravel(), scores.ravel(), q
    if labels.ndim != 1 or scores.ndim != 1:
        raise ValueError(
            f"y_true and y_score must be 1-D (or 2-D); got {labels.ndim}-D and {scores.ndim}-D"
        )
    if labels.shape[0] != scores.shape[0]:
        raise ValueError(
            "y_true and y_score must have the same length; "
            f"got {labels.shape[0]} and {scores.shape[0]}"
        )
    if labels.shape[0] == 0:
        raise ValueError("y_true is empty: at least one document is needed")
    return labels, scores, None if qid is None else check_qid(qid, labels.shape[0])


def check_qid(qid: ArrayLike, n: int, name: str = "qid") -> np.ndarray:
    """Query ids as a 1-D array whose ``np.unique`` order and equality are the ids' own.

    Integer (any width, signed or unsigned), float, bool, string, bytes and datetime arrays are
    kept as they are. An object array (pandas object/string columns), or a Python list or tuple
    whose ids are not all of one type (numpy would coerce them to one kind), is converted by
    one rule: all strings -> str array; all bytes -> bytes array; all integers
    -> int64 (uint64, or Python ints, beyond int64); integers and floats mixed -> float64,
    grouped by numeric value as Python's ``==`` does (``1`` and ``1.0`` are one query), when
    every integer is exactly a float64; all dates -> datetime64[D]; all datetimes (naive, or
    all timezone-aware), all durations -> kept as objects (Python's order and equality).
    Anything else (strings mixed with numbers, dates with datetimes, other objects) raises
    TypeError, and missing ids (None, NaN, pandas.NA, NaT) raise ValueError.
    """
    q = _asarray(qid, name)
    if (isinstance(qid, (list, tuple)) and q.dtype.kind in "USf"
            and ((types := set(map(type, qid))) and len(types) > 1
                 or (q.dtype.kind == "f" and int in types)
                 or (q.dtype.kind in "US" and any(x[-1:] in _NULS for x in qid)))):
        # numpy turns [1, "1"] into strings, [2**53 + 1, 2.0**53] and [2**63 + 1, 2**63, 0]
        # into floats, and drops the trailing NULs of "a\x00" (then "a"), which merges
        # queries silently; such a list takes the object array's rule instead
        q = np.asarray(qid, dtype=object)
    if q.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {q.shape}")
    if q.shape[0] != n:
        raise ValueError(f"{name} must have one entry per row: got {q.shape[0]} for {n} rows")
    kind = q.dtype.kind
    if kind == "T":  # numpy's variable-width StringDType (may hold a missing-value object)
        q = q.astype(object)
        kind = "O"
    if kind == "O":
        return _object_qid(q, name)
    if kind == "f":
        if not all_finite(q):
            raise ValueError(f"{name} must not contain missing values (NaN) or inf")
    elif kind in "Mm":
        if np.any(np.isnat(q)):
            raise ValueError(f"{name} must not contain missing values (NaT)")
    elif kind not in "biuUS":
        raise TypeError(
            f"{name} must hold integers, floats, strings or bytes; got dtype {q.dtype}"
        )
    return q


def check_id_types(items: Sequence[Any], name: str) -> str:
    """The kind of a list of ids ("str", "bytes", "int", "real"), or a clear error.

    Ids must be all strings, all bytes or all real numbers, none missing (None, NaN,
    pandas.NA, NaT): mixed kinds (``1`` and ``"1"``) cannot be ordered, and turning them into
    strings would merge or split queries silently.
    """
    types = set(map(type, items))
    if all(issubclass(t, str) for t in types):
        return "str"
    if all(issubclass(t, bytes) for t in types):
        return "bytes"
    missing = [x for x in items if is_missing(x)]
    if missing:
        raise ValueError(
            f"{name} has missing values ({missing[0]!r}); every row needs a query id"
        )
    if all(issubclass(t, (numbers.Integral, np.bool_)) for t in types):  # np.bool_: not
        return "int"  # registered as Integral, unlike bool
    if all(issubclass(t, numbers.Real) for t in types):
        return "real"
    shown = ", ".join(sorted(t.__name__ for t in types))
    raise TypeError(
        f"{name} values must be all numbers, all strings, all bytes or all dates (ids of "
        f"different types cannot be ordered or matched); found types {shown}"
    )


def check_string_ids(items: Sequence[Any], name: str) -> None:
    """Ids that will be read as strings (TREC, sessions): none missing, and ``str`` must not
    merge two distinct ids (``1`` and ``"1"``) or split equal ones (``1`` and ``1.0``)."""
    missing = [x for x in items if is_missing(x)]
    if missing:
        raise ValueError(
            f"{name} has missing values ({missing[0]!r}); every row needs a query id"
        )
    types = set(map(type, items))
    if len(types) <= 1 and all(issubclass(t, (str, int, np.integer)) for t in types):
        return  # str() is one-to-one on these (the common case, checked cheaply); not on
        # floats (-0.0, 0.0), tz-aware timestamps or decimals (equal values, other text)
    by_raw: dict[Any, str] = {}
    by_str: dict[str, Any] = {}
    for x in items:
        key = str(x)
        try:
            seen = by_raw.setdefault(x, key)
        except TypeError as exc:  # unhashable
            raise TypeError(f"{name} must be strings or numbers: {exc}") from None
        if seen != key:
            raise ValueError(
                f"{name}: equal ids {x!r} would become the different ids {seen!r} and {key!r}; "
                "give ids of one type"
            )
        other = by_str.setdefault(key, x)
        if other != x:
            raise ValueError(
                f"{name}: {other!r} and {x!r} would both become the id {key!r}; give ids of "
                "one type"
            )


def _time_qid(items: list[Any], name: str) -> np.ndarray | None:
    """Dates, datetimes or durations of one kind as ids ordered and compared as Python (or
    numpy, for its own scalars) orders and compares them; None when ``items`` are not all of
    such a kind. Python dates -> datetime64[D]; datetimes (pandas Timestamps too), all naive
    or all timezone-aware (equal instants are one query) -> the objects themselves;
    ``timedelta`` -> the objects; numpy datetime64 / timedelta64 scalars -> their array."""
    if all(isinstance(x, np.datetime64) for x in items) or all(
            isinstance(x, np.timedelta64) for x in items):
        return np.array(items)
    if all(isinstance(x, datetime.timedelta) for x in items):
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out
    if not all(isinstance(x, datetime.date) for x in items):
        return None
    stamps = [isinstance(x, datetime.datetime) for x in items]
    if not any(stamps):
        return np.array(items, dtype="datetime64[D]")
    if not all(stamps):  # Python neither orders nor equates a date and a datetime
        raise TypeError(f"{name} mixes dates and datetimes; give query ids of one type")
    aware = {x.utcoffset() is not None for x in items}
    if len(aware) > 1:  # Python cannot order them either
        raise TypeError(
            f"{name} mixes timezone-aware and naive datetimes; give query ids of one type"
        )
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _object_qid(q: np.ndarray, name: str) -> np.ndarray:
    if q.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    items = q.tolist()
    missing = [x for x in items if is_missing(x)]
    if missing:  # NaT is a datetime to isinstance
        raise ValueError(
            f"{name} has missing values ({missing[0]!r}); every row needs a query id"
        )
    times = _time_qid(items, name)
    if times is not None:
        return times
    kind = check_id_types(items, name)
    if kind in ("str", "bytes"):
        nul = "\x00" if kind == "str" else b"\x00"
        if any(x.endswith(nul) for x in items):  # numpy's fixed-width U/S drop trailing NULs
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out
        return np.array(items, dtype=str if kind == "str" else bytes)
    if kind == "int":
        ints = [int(x) for x in items]
        for dt in (np.int64, np.uint64):
            info = np.iinfo(dt)
            if info.min <= min(ints) and max(ints) <= info.max:
                return np.array(ints, dtype=dt)
        out = np.empty(len(ints), dtype=object)
        out[:] = ints  # Python ints: ordered and compared exactly
        return out
    f = np.array([float(x) for x in items], dtype=np.float64)
    if not np.all(np.isfinite(f)):
        raise ValueError(f"{name} must not contain inf")
    exact = np.fromiter((a == b for a, b in zip(f.tolist(), items, strict=True)),
                        dtype=bool, count=len(items))
    if not exact.all():
        bad = items[int(np.flatnonzero(~exact)[0])]
        raise TypeError(
            f"{name} mixes integers and floats and {bad!r} is not exactly a float64; "
            "give query ids of one type"
        )
    return f


def check_group_sizes(sizes: ArrayLike, n_rows: int, name: str = "group",
                      rows_of: str = "y_true") -> NDArray[np.int64]:
    """Rows per query (stored query after query) as int64, checked without overflow.

    Every size must be a positive integer no larger than ``n_rows`` and there can be at most
    ``n_rows`` of them, so the int64 sum cannot wrap before it is compared with ``n_rows``.
    """
    arr = _asarray(sizes, name)
    if arr.dtype.kind == "O":
        arr = _object_to_float(arr, name)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of positive integers (query sizes)")
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold positive integers (query sizes); got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and (
        not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))
    ):
        raise ValueError(f"{name} must be positive integers (query sizes)")
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be positive integers (query sizes); found {arr.min()}")
    if arr.size > n_rows or np.any(arr > n_rows):
        big = arr.max()
        raise ValueError(
            f"{name} cannot describe the {n_rows} rows of {rows_of}: {arr.size} sizes, the "
            f"largest {big}"
        )
    out = arr.astype(np.int64)
    total = int(out.sum())  # at most n_rows**2: no wrap for any array that fits in memory
    if total != n_rows:
        raise ValueError(f"{name} add up to {total} but {rows_of} has {n_rows} rows")
    return out


def check_weights(weights: ArrayLike, shape: tuple[int, ...], name: str,
                  per: str = "weight per query") -> NDArray[np.float64]:
    """Finite, non-negative float64 weights of the given shape, errors naming ``name``."""
    arr = _asarray(weights, name)
    _real_kind_check(arr, name)
    w = _object_to_float(arr, name) if arr.dtype.kind == "O" else arr.astype(np.float64)
    if w.shape != shape:
        raise ValueError(f"{name} must have one {per} {shape}; got shape {w.shape}")
    if not all_finite(w):
        raise ValueError(f"{name} must be finite; found {w[~np.isfinite(w)][0]}")
    if w.size and w.min() < 0:
        raise ValueError(f"{name} must be >= 0; found {w.min():g}")
    return w


def check_result_size(n: int, depth: int, name: str = "depth", copies: int = 1,
                      hint: str | None = None) -> None:
    """An (n, depth) float64 result (a curve) that this machine's memory can hold, ``copies``
    times over (the arrays of that shape a computation holds at once); else a ValueError naming
    ``name`` (a huge depth failed with numpy's MemoryError, or worse, was allocated lazily and
    killed the process while filled), ending with ``hint`` (default: the curve's depth rule)."""
    need = 8 * int(n) * int(depth) * int(copies)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not a POSIX system
        total = 1 << 50
    if need > total:
        raise ValueError(
            f"{name}={depth} asks for {_arrays(copies, n, depth)} of {need / 2**30:.3g} GiB, "
            f"more than this machine's {total / 2**30:.3g} GiB of memory; "
            + (hint or "a curve is constant past its list's length, so a depth of at most "
               "the longest list gives every value")
        )


def _arrays(copies: int, n: int, depth: int) -> str:
    if copies == 1:
        return f"a ({n}, {depth}) float64 result"
    return f"{copies} ({n}, {depth}) float64 arrays"


#: The largest cutoff or depth taken (a rank past every list: the kernels hold ranks in int64).
MAX_CUTOFF = 1 << 62

#: beta^2 above which F-beta is computed as recall: (1 + b2) tp / (b2 R + k) differs from tp / R
#: by less than k / b2 relative (below 2**-400 for any k < 2**64), so it rounds to recall bit
#: for bit, where the formula itself overflows to inf / inf
F_AS_RECALL = 2.0**512


def check_k(k: Any, name: str = "k") -> int | None:
    """``None`` (whole list) or a positive int of at most :data:`MAX_CUTOFF` (2**62)."""
    if k is None:
        return None
    return _positive_int(k, name, "a positive int or None", " (None reads the whole list)")


def check_depth(depth: Any, name: str = "depth") -> int:
    """A positive int of at most :data:`MAX_CUTOFF` (2**62), ``None`` refused (a depth, a
    count: there is no whole list to read). Raises TypeError (None, bool, not an integer) or
    ValueError (<= 0, > 2**62), naming ``name``."""
    if depth is None:
        raise TypeError(f"{name} must be a positive int; got None")
    return _positive_int(depth, name, "a positive int", "")


def _positive_int(k: Any, name: str, what: str, whole: str) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{name} must be {what}; got {k!r}")
    if k <= 0:
        raise ValueError(f"{name} must be {what}; got {k}")
    if int(k) > MAX_CUTOFF:
        raise ValueError(f"{name} must be at most 2**62{whole}; got {k}")
    return int(k)


def check_ks(k: Any) -> tuple[int | None, ...]:
    """One cutoff or a sequence of cutoffs."""
    if isinstance(k, Sequence) and not isinstance(k, str):
        if len(k) == 0:
            raise ValueError("k must not be an empty sequence")
        return tuple(check_k(x) for x in k)
    return (check_k(k),)


def check_choice(name: str, value: Any, options: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {value!r}")
    return value


_ASCII_INTEGER = re.compile(r"[+-]?[0-9]+")
_ASCII_SPACE = " \t\n\v\f\r"


def ascii_integer(text: str, *, spaces: bool = True) -> int | None:
    """``text`` as an integer when it is ASCII digits with an optional sign, as C's ``atol``
    reads the whole of it (with ``spaces``, ASCII whitespace around it too), else None.
    Python's ``int()`` would also take ``1_0`` (10) and other scripts' digits (``٢``, ``２``),
    which trec_eval and the LETOR tools read otherwise. Raises nothing."""
    body = text.strip(_ASCII_SPACE) if spaces else text
    return int(body) if _ASCII_INTEGER.fullmatch(body) else None


def check_flag(name: str, value: Any) -> bool:
    """A True/False option (numpy's bool too); anything else, e.g. the truthy string "no", is a
    TypeError naming ``name`` rather than read as its truth value."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def check_ties(ties: Any) -> str:
    """A tie rule of the core; "docno" (trec_eval's order, which needs document ids) is named
    as belonging to rankmetrics.trec and the CLI."""
    if isinstance(ties, str) and ties == "docno":
        raise ValueError(
            f"ties must be one of {', '.join(map(repr, TIES))}; got 'docno', trec_eval's order "
            "by document id, which only rankmetrics.trec, the ir_measures provider and the "
            "CLI (qrels and runs with document ids) offer"
        )
    return check_choice("ties", ties, TIES)


def check_empty(empty: Any) -> float | str:
    """The empty-query rule: a finite float, ``"skip"`` or ``"error"``."""
    if isinstance(empty, str):
        return check_choice("empty", empty, ("skip", "error"))
    if isinstance(empty, bool) or not isinstance(empty, numbers.Real):
        raise TypeError(f"empty must be a finite number, 'skip' or 'error'; got {empty!r}")
    as_float64(empty, "empty")
    if not math.isfinite(empty):
        raise TypeError(f"empty must be a finite number, 'skip' or 'error'; got {empty!r}")
    return float(empty)


def as_float64(value: Any, name: str) -> float:
    """``float(value)`` of a real number; one past float64's range (an int of 1024 bits or
    more, a large Fraction: ``float()`` and ``math.isfinite`` raise OverflowError on it) is a
    ValueError naming ``name`` and the value's size."""
    try:
        return float(value)
    except OverflowError:
        what = (f"an integer of {int(value).bit_length()} bits"
                if isinstance(value, numbers.Integral) else f"{type(value).__name__} of "
                f"magnitude about 2**{_log2_magnitude(value)}")
        raise ValueError(f"{name} must be within float64's range (magnitude at most about "
                         f"1.8e308); got {what}") from None


def _log2_magnitude(value: Any) -> int:
    """About log2 |value| of a rational too large for a float (a Fraction, a Decimal)."""
    try:
        num, den = value.as_integer_ratio()
        return int(abs(num)).bit_length() - int(abs(den)).bit_length()
    except (AttributeError, TypeError, ValueError, OverflowError):
        return 1024


def check_threshold(threshold: Any) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number; got {threshold!r}")
    if not math.isfinite(as_float64(threshold, "threshold")):
        raise ValueError(f"threshold must be finite; got {threshold}")
    t: Any = threshold  # a numbers.Real: int() and abs() of it are fine
    if (isinstance(t, numbers.Integral) or abs(t) >= _INT_EXACT and t == int(t)) \
            and float(t) != t:
        # labels are compared with float(threshold): 2**53 + 1 would become 2**53 (an int, or
        # a whole Fraction or long double)
        raise ValueError(f"threshold must be exactly a float64 (below 2**53 for an integer); "
                         f"got {int(t)}")
    return float(threshold)


def check_positive_real(name: str, value: Any, *, above: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite number; got {value!r}")
    if not math.isfinite(as_float64(value, name)):
        raise TypeError(f"{name} must be a finite number; got {value!r}")
    if value <= above:
        raise ValueError(f"{name} must be > {above:g}; got {value}")
    return float(value)
