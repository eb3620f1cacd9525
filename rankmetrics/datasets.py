"""Synthetic learning-to-rank data and a LETOR / svmlight loader.

Three entry points:

* :func:`make_ranking_data` -- a small learnable learning-to-rank problem (features, graded
  labels 0..4, query ids) whose discrete features make tree models and linear scorers
  produce tied scores;
* :func:`make_benchmark_scores` -- a large validation set of labels and *scores* (no features)
  with a controlled fraction of tied scores, used to benchmark the metrics;
* :func:`load_letor` -- read an svmlight/LETOR file (with LightGBM's ``.query`` group-size file
  or ``qid:`` fields) into a :class:`RankingData`.

Only :func:`load_letor` needs scikit-learn (the ``sklearn`` extra); the rest is numpy only.
"""

from __future__ import annotations

import bz2
import gzip
import io
import math
import numbers
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .core.validation import as_float64, ascii_integer

__all__ = ["RankingData", "make_ranking_data", "make_benchmark_scores", "load_letor"]

#: Default label distribution (levels 0..4): mostly irrelevant, few highly relevant documents,
#: roughly the skew of MSLR-WEB / Yahoo! LTR.
DEFAULT_LABEL_PROBS: tuple[float, ...] = (0.52, 0.31, 0.13, 0.025, 0.015)

SeedLike = int | np.integer | np.random.SeedSequence | np.random.Generator | None


# ---------------------------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------------------------


def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_doc_range(min_docs: object, max_docs: object) -> tuple[int, int]:
    lo = _check_int("min_docs", min_docs, 1)
    hi = _check_int("max_docs", max_docs, 1)
    if hi < lo:
        raise ValueError(f"max_docs must be >= min_docs ({lo}), got {hi!r}")
    return lo, hi


def _check_label_probs(label_probs: Sequence[float] | np.ndarray) -> np.ndarray:
    try:
        p = np.asarray(label_probs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"label_probs must be a 1-D sequence of probabilities, got {label_probs!r}"
        ) from exc
    if p.ndim != 1 or p.size < 2:
        raise ValueError(
            f"label_probs must be a 1-D sequence of at least 2 probabilities, got {label_probs!r}"
        )
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"label_probs must be finite and non-negative, got {label_probs!r}")
    total = float(p.sum())
    if abs(total - 1.0) > 1e-6:
        raise ValueError(f"label_probs must sum to 1 (within 1e-6), got sum {total!r}")
    return p / total


def _check_real(name: str, value: object, lo: float, hi: float, *, hi_open: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    v = as_float64(value, name)
    ok = math.isfinite(v) and v >= lo and (v < hi if hi_open else v <= hi)
    if not ok:
        bracket = ")" if hi_open else "]"
        raise ValueError(f"{name} must be in [{lo:g}, {hi:g}{bracket}, got {value!r}")
    return v


#: the most rows a generator makes (n_queries x max_docs bounds them): 8 GiB per float64 array
MAX_ROWS = 1 << 30


def _list_sizes(rng: np.random.Generator, n_queries: int, lo: int, hi: int) -> np.ndarray:
    if n_queries * hi > MAX_ROWS:
        raise ValueError(f"n_queries x max_docs ({n_queries} x {hi}) may exceed {MAX_ROWS:,} "
                         "rows, the most a generator makes; lower n_queries or max_docs")
    return rng.integers(lo, hi + 1, size=n_queries, dtype=np.int64)


def _fits_int64(values: np.ndarray, name: str, what: str = "") -> None:
    """Refuse uint64 values that the int64 storage would wrap to negative numbers."""
    if values.dtype == np.uint64 and values.size and values.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} is stored as int64; got {what}{values.max()} (2**63 or more)")


def _rng(random_state: object) -> np.random.Generator:
    """numpy's generator of ``random_state``, its refusal naming the argument."""
    try:
        return np.random.default_rng(random_state)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"random_state must be None, a non-negative int, a numpy Generator or "
                        f"SeedSequence; got {random_state!r} ({exc})") from None


# ---------------------------------------------------------------------------------------------
# container
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RankingData:
    """A learning-to-rank data set: features, graded labels and query ids.

    Rows are grouped by query with query ids ascending, so ``group_sizes`` lists the number of
    rows of each query in row order (the form LightGBM's ``group=`` and XGBoost's ``group``
    expect), aligned with ``np.unique(qid)``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64
        Feature matrix.
    y : ndarray of shape (n_samples,), int64 for integer or bool labels, float64 for float ones
        Graded relevance labels, ``>= 0``; float labels stay float64 even when whole numbers
        (:func:`load_letor` stores whole-number labels as int64).
    qid : ndarray of shape (n_samples,), int64
        Query id of each row; non-decreasing (rows grouped by query, ascending).

    Attributes
    ----------
    group_sizes : ndarray of shape (n_queries,), int64
        Rows per query, in row order.
    n_queries : int
        Number of distinct queries.
    n_samples : int
        Number of rows.
    n_features : int
        Number of feature columns.

    Raises
    ------
    ValueError
        If the shapes disagree, the labels are not numbers, negative, non-finite or (uint64)
        past int64, or ``qid`` is not integers, not non-decreasing or does not fit int64.
    TypeError
        If ``X`` is complex or not numeric (text, dates; None in an object array is NaN, a
        missing feature value).

    Examples
    --------
    >>> import numpy as np
    >>> from rankmetrics.datasets import RankingData
    >>> d = RankingData(X=np.zeros((5, 2)), y=np.array([0, 1, 2, 0, 1]),
    ...                 qid=np.array([3, 3, 3, 7, 7]))
    >>> d.group_sizes.tolist(), d.n_queries
    ([3, 2], 2)
    """

    X: np.ndarray
    y: np.ndarray
    qid: np.ndarray

    def __post_init__(self) -> None:
        x0 = np.asarray(self.X)
        if x0.dtype.kind == "c":  # float64 would drop the imaginary part
            raise TypeError("X must be real; got a complex array")
        if x0.dtype.kind in "USVMm":  # numpy would parse text as numbers, or fail
            raise TypeError(f"X must be numeric; got dtype {x0.dtype}")
        try:
            X = np.asarray(x0, dtype=np.float64)
        except (TypeError, ValueError) as exc:  # an object array holding text or other objects
            raise TypeError(f"X must be numeric; got {exc}") from None
        y = np.asarray(self.y)
        qid = np.asarray(self.qid)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
        n = X.shape[0]
        if y.shape != (n,):
            raise ValueError(f"y must have shape ({n},) to match X, got shape {y.shape}")
        if qid.shape != (n,):
            raise ValueError(f"qid must have shape ({n},) to match X, got shape {qid.shape}")
        if y.dtype.kind not in "biuf":
            raise ValueError(f"y must be numeric, got dtype {y.dtype}")
        _fits_int64(y, "y", "the label ")
        y = y.astype(np.float64 if y.dtype.kind == "f" else np.int64, copy=False)
        if y.size and (not np.all(np.isfinite(y)) or np.min(y) < 0):
            raise ValueError("y must hold finite labels >= 0")
        if qid.dtype.kind not in "biu":
            raise ValueError(f"qid must hold integers, got dtype {qid.dtype}")
        _fits_int64(qid, "qid")
        qid = qid.astype(np.int64, copy=False)
        if n > 1 and np.any(qid[1:] < qid[:-1]):
            raise ValueError("qid must be non-decreasing (rows grouped by query, ascending)")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "qid", qid)

    @property
    def group_sizes(self) -> np.ndarray:
        """Rows per query in row order, int64 array of shape (n_queries,)."""
        if self.qid.size == 0:
            return np.zeros(0, dtype=np.int64)
        starts = np.flatnonzero(np.r_[True, self.qid[1:] != self.qid[:-1]])
        return np.diff(np.r_[starts, self.qid.size]).astype(np.int64)

    @property
    def n_queries(self) -> int:
        """Number of distinct queries."""
        if self.qid.size == 0:
            return 0
        return int(np.count_nonzero(self.qid[1:] != self.qid[:-1])) + 1

    @property
    def n_samples(self) -> int:
        """Number of rows."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return int(self.X.shape[1])

    def __len__(self) -> int:
        return self.n_samples

    def __repr__(self) -> str:
        return (
            f"RankingData(n_samples={self.n_samples}, n_features={self.n_features}, "
            f"n_queries={self.n_queries})"
        )

    def split(
        self, test_size: float = 0.25, random_state: SeedLike = 0
    ) -> tuple[RankingData, RankingData]:
        """Split into train and test sets by whole queries.

        Parameters
        ----------
        test_size : float in (0, 1) or int >= 1, default 0.25
            Fraction of the queries (rounded up) or number of queries that go to the test set.
            Both parts get at least one query.
        random_state : int, numpy Generator or None, default 0
            Seed for the choice of test queries.

        Returns
        -------
        train, test : RankingData
            Row subsets keeping the original row order and query ids; every query lies wholly
            in one of them.

        Raises
        ------
        ValueError
            If ``test_size`` is out of range or there are fewer than 2 queries.

        Examples
        --------
        >>> from rankmetrics.datasets import make_ranking_data
        >>> data = make_ranking_data(n_queries=8, random_state=1)
        >>> train, test = data.split(test_size=0.25, random_state=0)
        >>> train.n_queries, test.n_queries
        (6, 2)
        >>> set(train.qid.tolist()) & set(test.qid.tolist())
        set()
        """
        nq = self.n_queries
        if nq < 2:
            raise ValueError(f"split needs at least 2 queries, got n_queries={nq}")
        if isinstance(test_size, bool) or not isinstance(test_size, numbers.Real):
            raise TypeError(f"test_size must be a float in (0, 1) or an int, got {test_size!r}")
        if isinstance(test_size, numbers.Integral):
            n_test = int(test_size)
            if not 1 <= n_test <= nq - 1:
                raise ValueError(
                    f"test_size as a query count must be in [1, {nq - 1}], got {test_size!r}"
                )
        else:
            frac = as_float64(test_size, "test_size")
            if not (math.isfinite(frac) and 0.0 < frac < 1.0):
                raise ValueError(f"test_size must be in (0, 1), got {test_size!r}")
            n_test = min(max(math.ceil(frac * nq - 1e-9), 1), nq - 1)
        rng = _rng(random_state)
        is_test_query = np.zeros(nq, dtype=bool)
        is_test_query[rng.choice(nq, size=n_test, replace=False)] = True
        row_test = np.repeat(is_test_query, self.group_sizes)
        train = RankingData(X=self.X[~row_test], y=self.y[~row_test], qid=self.qid[~row_test])
        test = RankingData(X=self.X[row_test], y=self.y[row_test], qid=self.qid[row_test])
        return train, test


# ---------------------------------------------------------------------------------------------
# make_ranking_data
# ---------------------------------------------------------------------------------------------


def _discrete_features(rng: np.random.Generator, n: int, n_discrete: int) -> np.ndarray:
    """Columns cycling through: count, binary flag, 1-decimal value, 5-level ordinal."""
    out = np.empty((n, n_discrete), dtype=np.float64)
    for j in range(n_discrete):
        kind = j % 4
        if kind == 0:  # small integer count (e.g. number of query-term matches)
            out[:, j] = np.minimum(rng.poisson(rng.uniform(0.5, 3.0), size=n), 10)
        elif kind == 1:  # binary flag
            out[:, j] = rng.random(n) < rng.uniform(0.1, 0.5)
        elif kind == 2:  # a score in [0, 1] stored with one decimal
            out[:, j] = np.round(rng.beta(2.0, 2.0, size=n), 1)
        else:  # ordinal level 0..4
            out[:, j] = rng.integers(0, 5, size=n)
    return out


def _labels_from_latent(latent: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Labels 0..len(probs)-1 by rank of ``latent``, with counts matching ``probs``."""
    n = latent.size
    cum = np.round(np.cumsum(probs)[:-1] * n).astype(np.int64)
    order = np.argsort(latent, kind="stable")
    y = np.empty(n, dtype=np.int64)
    y[order] = np.searchsorted(cum, np.arange(n), side="right")
    return y


def make_ranking_data(
    n_queries: int = 200,
    *,
    min_docs: int = 5,
    max_docs: int = 40,
    n_features: int = 20,
    n_discrete: int = 10,
    label_probs: Sequence[float] | np.ndarray = DEFAULT_LABEL_PROBS,
    noise: float = 1.0,
    random_state: SeedLike = 0,
) -> RankingData:
    """Generate a learnable synthetic learning-to-rank data set.

    Each query gets a list length drawn uniformly from ``[min_docs, max_docs]``. Features are
    drawn per document: the first ``n_discrete`` columns are discrete (small integer counts,
    binary flags, values in [0, 1] rounded to one decimal, 5-level ordinals, in turn), so that
    tree models and linear scorers give tied scores; the other columns are continuous (normal,
    with a per-query shift). A latent relevance ``standardised(X) @ w + query effect +
    noise * N(0, 1)`` is cut at its quantiles so that the label counts match ``label_probs``
    (exactly, up to rounding), hence a model of the features ranks better than chance.

    Parameters
    ----------
    n_queries : int, default 200
        Number of queries, ``>= 1``.
    min_docs, max_docs : int, default 5 and 40
        Bounds (inclusive) of the list length, ``1 <= min_docs <= max_docs``.
    n_features : int, default 20
        Number of feature columns, ``>= 1``.
    n_discrete : int, default 10
        How many of them are discrete, ``0 <= n_discrete <= n_features``.
    label_probs : sequence of float, default (0.52, 0.31, 0.13, 0.025, 0.015)
        Proportion of each label level ``0 .. len(label_probs) - 1``; non-negative, summing to
        1 within 1e-6.
    noise : float, default 1.0
        Standard deviation of the latent noise (``>= 0``); the feature signal has unit variance
        and the query effect standard deviation 0.5.
    random_state : int, numpy Generator, SeedSequence or None, default 0
        Seed; the same integer always gives the same data.

    Returns
    -------
    RankingData
        ``X`` (n_samples, n_features) float64, ``y`` (n_samples,) int64 labels,
        ``qid`` (n_samples,) int64 equal to ``0 .. n_queries - 1``, rows grouped by query.

    Raises
    ------
    ValueError
        If an argument is out of range (the message names it and the bad value), or
        ``n_queries * max_docs * n_features`` exceeds :data:`MAX_ROWS` (2**30: 8 GiB of X).
    TypeError
        If an integer argument is not an integer.

    Examples
    --------
    >>> from rankmetrics.datasets import make_ranking_data
    >>> data = make_ranking_data(n_queries=50, random_state=0)
    >>> data.X.shape[1], data.X.dtype, data.y.dtype, data.n_queries
    (20, dtype('float64'), dtype('int64'), 50)
    >>> bool(5 <= data.group_sizes.min() and data.group_sizes.max() <= 40)
    True
    >>> int(data.group_sizes.sum()) == len(data.y)
    True
    """
    nq = _check_int("n_queries", n_queries, 1)
    lo, hi = _check_doc_range(min_docs, max_docs)
    nf = _check_int("n_features", n_features, 1)
    nd = _check_int("n_discrete", n_discrete, 0)
    if nd > nf:
        raise ValueError(f"n_discrete must be <= n_features ({nf}), got {n_discrete!r}")
    probs = _check_label_probs(label_probs)
    sigma = _check_real("noise", noise, 0.0, math.inf, hi_open=True)
    rng = _rng(random_state)
    if nq * hi * nf > MAX_ROWS:  # X is float64 (rows, n_features): the rows' bound in cells
        raise ValueError(f"n_queries x max_docs x n_features ({nq} x {hi} x {nf}) may exceed "
                         f"{MAX_ROWS:,} feature values (8 GiB of X), the most a generator "
                         "makes; lower one of them")

    sizes = _list_sizes(rng, nq, lo, hi)
    n = int(sizes.sum())
    qid = np.repeat(np.arange(nq, dtype=np.int64), sizes)

    X = np.empty((n, nf), dtype=np.float64)
    X[:, :nd] = _discrete_features(rng, n, nd)
    n_cont = nf - nd
    if n_cont:
        query_shift = rng.normal(0.0, 0.5, size=(nq, n_cont))
        X[:, nd:] = rng.standard_normal((n, n_cont)) + query_shift[qid]

    # latent relevance: a random linear function of the standardised features
    w = rng.standard_normal(nf)
    w /= np.linalg.norm(w)
    std = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)
    latent = Z @ w + rng.normal(0.0, 0.5, size=nq)[qid]
    if sigma > 0:
        latent += sigma * rng.standard_normal(n)
    y = _labels_from_latent(latent, probs)
    return RankingData(X=X, y=y, qid=qid)


# ---------------------------------------------------------------------------------------------
# make_benchmark_scores
# ---------------------------------------------------------------------------------------------


def _merge_probability(sizes: np.ndarray, tie_fraction: float) -> np.ndarray:
    """Per-query probability of merging a document with its predecessor in score order.

    With merge probability ``p``, an interior document of a list of ``m`` is tied with
    probability ``1 - (1 - p)**2`` and the two end documents with probability ``p``; the
    expected tied fraction is ``((m - 2) (2p - p**2) + 2p) / m``. Solving for ``tie_fraction``
    gives the root below (``p = t`` for ``m == 2``; ``m == 1`` cannot tie).
    """
    m = sizes.astype(np.float64)
    t = tie_fraction
    p = np.full(m.shape, t)
    big = m > 2
    mb = m[big]
    a = mb - 2.0
    b = mb - 1.0
    p[big] = (b - np.sqrt(b * b - a * t * mb)) / a
    return np.clip(p, 0.0, 1.0)


def make_benchmark_scores(
    n_queries: int = 10_000,
    *,
    min_docs: int = 20,
    max_docs: int = 220,
    tie_fraction: float = 0.5,
    random_state: SeedLike = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Generate the reference validation set of labels, tied scores and query ids.

    List lengths are uniform on ``[min_docs, max_docs]`` (about 1.2 M rows by default).
    Labels follow (0.52, 0.31, 0.13, 0.025, 0.015) on levels 0..4. A score is
    ``label + query offset + N(0, 1)``; then, walking each query in score order, a document is
    snapped onto the score of its predecessor with a per-query probability chosen so that the
    expected share of documents whose score equals that of another document of the same query
    is ``tie_fraction`` (tie groups of 2, 3, ... documents of mixed labels, as a quantised
    model output gives). Fully vectorised: about 0.3 s for the default size.

    Parameters
    ----------
    n_queries : int, default 10_000
        Number of queries, ``>= 1``.
    min_docs, max_docs : int, default 20 and 220
        Bounds (inclusive) of the list length, ``1 <= min_docs <= max_docs``.
    tie_fraction : float, default 0.5
        Target fraction of documents sharing their score with another document of their
        query, ``0 <= tie_fraction < 1``.
    random_state : int, numpy Generator, SeedSequence or None, default 0
        Seed; the same integer always gives the same arrays.

    Returns
    -------
    y_true : ndarray of shape (n_samples,), int64
        Labels 0..4.
    y_score : ndarray of shape (n_samples,), float64
        Finite scores with the ties described above.
    qid : ndarray of shape (n_samples,), int64
        Query ids ``0 .. n_queries - 1``, rows grouped by query (ascending); within a query
        rows are in random order with respect to the score.

    Raises
    ------
    ValueError
        If an argument is out of range (the message names it and the bad value).
    TypeError
        If an integer argument is not an integer.

    Examples
    --------
    >>> import numpy as np
    >>> from rankmetrics.datasets import make_benchmark_scores
    >>> y, s, q = make_benchmark_scores(n_queries=200, random_state=0)
    >>> y.dtype, s.dtype, q.dtype, y.shape == s.shape == q.shape
    (dtype('int64'), dtype('float64'), dtype('int64'), True)
    >>> order = np.lexsort((s, q))
    >>> same = (s[order][1:] == s[order][:-1]) & (q[order][1:] == q[order][:-1])
    >>> tied = np.zeros(len(s), dtype=bool)
    >>> tied[1:] |= same
    >>> tied[:-1] |= same
    >>> bool(0.45 < tied.mean() < 0.55)
    True
    """
    nq = _check_int("n_queries", n_queries, 1)
    lo, hi = _check_doc_range(min_docs, max_docs)
    t = _check_real("tie_fraction", tie_fraction, 0.0, 1.0, hi_open=True)
    rng = _rng(random_state)

    sizes = _list_sizes(rng, nq, lo, hi)
    n = int(sizes.sum())
    qid = np.repeat(np.arange(nq, dtype=np.int64), sizes)
    cdf = np.cumsum(np.asarray(DEFAULT_LABEL_PROBS))
    y = np.searchsorted(cdf[:-1], rng.random(n), side="right").astype(np.int64)
    raw = y + rng.normal(0.0, 0.5, size=nq)[qid] + rng.standard_normal(n)

    # queries are contiguous, so sorting raw + a per-query offset beyond the score range
    # sorts by (qid, raw) in one argsort
    span = float(raw.max() - raw.min()) + 1.0
    order = np.argsort(raw + span * qid, kind="stable")
    sorted_raw = raw[order]
    starts = np.zeros(nq, dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    merge = rng.random(n) < np.repeat(_merge_probability(sizes, t), sizes)
    merge[starts] = False  # the first document of a query starts a new group
    group_first = np.flatnonzero(~merge)
    group_of = np.cumsum(~merge) - 1
    score = np.empty(n, dtype=np.float64)
    score[order] = sorted_raw[group_first][group_of]
    return y, score, qid


# ---------------------------------------------------------------------------------------------
# load_letor
# ---------------------------------------------------------------------------------------------


def _read_group_sizes(query_path: str | os.PathLike[str]) -> np.ndarray:
    sizes: list[int] = []
    # read as the data file is: decompressed by suffix, a leading UTF-8 byte-order mark skipped
    with _open_svmlight(query_path) as fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM):]
            text = raw.strip(b" \t\r\n\v\f").decode("utf-8", "replace")
            if not text:
                continue
            size = ascii_integer(text)  # int() would read "1_0" as 10, "２" as 2
            if size is None:
                raise ValueError(
                    f"query_path {os.fspath(query_path)!r} line {lineno}: expected one integer "
                    f"group size per line, got {text!r}"
                )
            if not 1 <= size <= _MAX_INT64:
                raise ValueError(
                    f"query_path {os.fspath(query_path)!r} line {lineno}: group sizes must be "
                    f">= 1 and < 2**63, got {size}"
                )
            sizes.append(size)
    return np.asarray(sizes, dtype=np.int64)


_MAX_INT64 = 2**63 - 1
_MAX_INT32 = 2**31 - 1


_BOM = b"\xef\xbb\xbf"


def _open_svmlight(data_path: str | os.PathLike[str]) -> Any:
    """The file as scikit-learn reads it: decompressed by its ``.gz`` / ``.bz2`` suffix."""
    name = os.fsdecode(data_path)
    if name.endswith(".gz"):
        return gzip.open(name, "rb")
    if name.endswith(".bz2"):
        return bz2.open(name, "rb")
    return open(name, "rb")


def _svmlight_source(data_path: str | os.PathLike[str]) -> str | io.BytesIO:
    """What to hand to scikit-learn's parser: the path, or the text after a UTF-8 byte-order
    mark (which the parser would take for part of the first label)."""
    with _open_svmlight(data_path) as fh:
        if fh.read(len(_BOM)) != _BOM:
            return os.fsdecode(data_path)
        return io.BytesIO(fh.read())


def _int_field(text: bytes) -> int | None:
    """``int(text)`` as scikit-learn's parser takes it (bytes: ASCII digits, ``+``/``-``,
    ``_`` separators), or None."""
    try:
        return int(text)
    except ValueError:
        return None


def _shown(field: bytes) -> str:
    return field.decode("utf-8", "replace")


def _line_fault(fields: list[bytes]) -> str | None:
    """Why scikit-learn's svmlight parser refuses a line (its rules, on the same bytes: it
    splits on ASCII whitespace and parses numbers from bytes), or None."""
    try:
        float(fields[0])
    except ValueError:
        return f"label {_shown(fields[0])!r} is not a number"
    prev = -1
    for k, raw in enumerate(fields[1:]):
        field = _shown(raw)
        idx, sep, val = raw.partition(b":")
        if not sep:
            return f"field {field!r} is not index:value"
        if k == 0 and raw.startswith(b"qid"):  # scikit-learn's test: any name from "qid"
            qid = _int_field(val)
            if qid is None:
                return f"{field!r}: the qid must be an integer"
            if not -_MAX_INT64 - 1 <= qid <= _MAX_INT64:
                return f"{field!r} holds an integer outside int64 (qids are int64)"
            continue
        i = _int_field(idx)
        if i is None:
            return f"{field!r}: the feature index must be an integer"
        if not -_MAX_INT64 - 1 <= i <= _MAX_INT64:
            return (f"{field!r} holds an integer outside int64 (qids and feature indices are "
                    "int64)")
        if i < 0:
            return f"{field!r}: feature indices must be >= 0"
        if i > _MAX_INT32:  # scikit-learn's parser holds them as C ints
            return f"{field!r}: feature indices must be < 2**31 (scikit-learn's parser)"
        try:
            float(val)
        except ValueError:
            return f"{field!r}: the feature value is not a number"
        if i <= prev:
            return f"{field!r}: feature indices must be increasing (sorted, no duplicates)"
        prev = i
    return None


def _svmlight_error(data_path: str | os.PathLike[str], exc: BaseException) -> str:
    """The message for a file scikit-learn's parser refused, naming the first bad line (the
    file is read again: this is the error path)."""
    where = f"data_path {os.fsdecode(data_path)!r}"
    with _open_svmlight(data_path) as fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM):]
            line = raw.split(b"#", 1)[0]
            fields = line.split()  # bytes: ASCII whitespace only, as scikit-learn splits
            fault = _line_fault(fields) if fields else None
            if fault is not None:
                return f"{where} line {lineno}: {fault}: {_shown(line).strip()!r}"
    return f"{where}: {exc}"


def _unreadable(arg: str, path: str | os.PathLike[str], exc: BaseException) -> BaseException:
    """A decompression error (a ``.gz`` / ``.bz2`` file that is not one, or is cut short:
    gzip's ``BadGzipFile``, ``EOFError``, bz2's ``OSError``) again, naming the file, which
    its own message does not; errors that name their file (FileNotFoundError) as they are."""
    if getattr(exc, "filename", None) is not None:
        return exc
    return type(exc)(f"{arg} {os.fsdecode(path)!r}: {exc}")


def _row_line(data_path: str | os.PathLike[str], row: int) -> int:
    """The line number of data row ``row`` (0-based; blank and comment lines hold none)."""
    with _open_svmlight(data_path) as fh:
        seen = -1
        for lineno, raw in enumerate(fh, start=1):
            if lineno == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM):]
            if raw.split(b"#", 1)[0].strip():
                seen += 1
                if seen == row:
                    return lineno
    return row + 1


def load_letor(
    data_path: str | os.PathLike[str],
    query_path: str | os.PathLike[str] | None = None,
    *,
    n_features: int | None = None,
) -> RankingData:
    """Read an svmlight / LETOR ranking file into a :class:`RankingData`.

    Rows look like ``label [qid:Q] idx:val idx:val ...``. Query membership comes from
    ``query_path`` (LightGBM's ``.query`` / ``.group`` format: one group size per line, in row
    order) when given, otherwise from the ``qid:`` fields of the data file. Feature indices are
    read with scikit-learn's ``zero_based="auto"`` rule (1-based files such as LETOR / MSLR map
    index 1 to column 0).

    Parameters
    ----------
    data_path : str or path-like
        The svmlight / LETOR data file (``.gz`` / ``.bz2`` decompressed by suffix).
    query_path : str or path-like, optional
        Group-size file; its sizes must sum to the number of rows. When given, ``qid`` is
        ``0 .. n_groups - 1`` in file order and any ``qid:`` fields are ignored. Read as the
        data file is: ``.gz`` / ``.bz2`` decompressed by suffix, a leading UTF-8 byte-order
        mark skipped.
    n_features : int, optional
        Number of feature columns; pass it so that a train and a test file agree when the
        highest feature index differs between them (300 for LightGBM's lambdarank example).
        By default, inferred from the file.

    Returns
    -------
    RankingData
        ``X`` dense (n_samples, n_features) float64, ``y`` (n_samples,) int64 when every label
        is integral (float64 otherwise), ``qid`` (n_samples,) int64. With ``qid:`` fields,
        rows are stably sorted by qid when the file does not already list them grouped in
        ascending order.

    Raises
    ------
    ImportError
        If scikit-learn is not installed.
    ValueError
        If the group sizes do not sum to the number of rows or are not positive integers,
        if the file has no ``qid:`` fields and no ``query_path`` is given, if labels are
        negative or not finite, or if a line does not parse (the message names the file and
        the line). A leading UTF-8 byte-order mark is skipped.
    OSError, EOFError
        If a file cannot be read (the operating system's error), or a ``.gz`` / ``.bz2`` file
        is not one (``gzip.BadGzipFile``, ``OSError``) or is cut short (``EOFError``); the
        message names the argument and the file.

    Examples
    --------
    >>> import os, tempfile
    >>> from rankmetrics.datasets import load_letor
    >>> tmp = tempfile.mkdtemp()
    >>> data_file = os.path.join(tmp, "toy.txt")
    >>> with open(data_file, "w") as fh:
    ...     _ = fh.write("2 1:0.5 3:1\\n0 2:0.25\\n1 1:1\\n1 3:0.5\\n0 2:1\\n")
    >>> with open(data_file + ".query", "w") as fh:
    ...     _ = fh.write("3\\n2\\n")
    >>> d = load_letor(data_file, data_file + ".query")
    >>> d.X.shape, d.y.tolist(), d.qid.tolist(), d.group_sizes.tolist()
    ((5, 3), [2, 0, 1, 1, 0], [0, 0, 0, 1, 1], [3, 2])
    """
    try:
        from sklearn.datasets import load_svmlight_file
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            'load_letor needs scikit-learn: pip install "rankmetrics[sklearn]"'
        ) from exc

    if n_features is not None:
        _check_int("n_features", n_features, 1)
    try:
        X_sparse, y_raw, qid_raw = load_svmlight_file(
            _svmlight_source(data_path), n_features=n_features, dtype=np.float64,
            query_id=True,
        )
    except (OverflowError, ValueError) as exc:  # the parser names neither file nor line
        raise ValueError(_svmlight_error(data_path, exc)) from None
    except (EOFError, OSError) as exc:
        raise _unreadable("data_path", data_path, exc) from exc
    X = np.asarray(X_sparse.toarray(), dtype=np.float64)
    y_f = np.asarray(y_raw, dtype=np.float64)
    n = X.shape[0]
    # whole labels as int64 when they fit (1e30 stays a float: int64 would wrap it)
    whole = np.all(y_f == np.round(y_f)) and (y_f.size == 0 or np.abs(y_f).max() < 2.0**63)
    y: np.ndarray = y_f.astype(np.int64) if whole else y_f
    bad = np.flatnonzero(~(np.isfinite(y_f) & (y_f >= 0)))
    if bad.size:
        raise ValueError(
            f"data_path {os.fsdecode(data_path)!r} line {_row_line(data_path, int(bad[0]))}: "
            f"labels must be finite and >= 0; got {float(y_f[bad[0]])!r}"
        )

    if query_path is not None:
        try:
            sizes = _read_group_sizes(query_path)
        except (EOFError, OSError) as exc:
            raise _unreadable("query_path", query_path, exc) from exc
        total = sum(int(s) for s in sizes)  # exact: an int64 sum can wrap to the row count
        if total != n:
            raise ValueError(
                f"group sizes in query_path {os.fspath(query_path)!r} sum to {total}"
                f" but data_path {os.fspath(data_path)!r} has {n} rows"
            )
        qid = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
        return RankingData(X=X, y=y, qid=qid)

    qid = np.asarray(qid_raw, dtype=np.int64)
    if qid.shape != (n,):
        some = f"qid: fields on {qid.shape[0]} of its {n} rows" if qid.shape[0] else \
            "no qid: fields"
        raise ValueError(
            f"data_path {os.fspath(data_path)!r} has {some}; pass query_path "
            "(a group-size file, one size per line)"
        )
    if n > 1 and np.any(qid[1:] < qid[:-1]):
        order = np.argsort(qid, kind="stable")
        X, y, qid = X[order], y[order], qid[order]
    return RankingData(X=X, y=y, qid=qid)
