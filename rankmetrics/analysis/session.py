"""Session-based DCG (Järvelin, Price, Delcambre & Nielsen 2008) for multiple-query sessions.

A *session* is an ordered sequence of queries issued for one topic; each query returns a ranked
list judged against the session's topic. The session-based discounted vector of the q-th query is

    sDCG(q) = (1 + log_bq q)^-1 * DCG_q                                   (2008, eq. 1)

where ``DCG_q`` is the ordinary DCG vector of that query's list. With the paper's document
discount (appendix eq. 2) rank j of every list is discounted by 1 / (1 + log_b j), which is the
core's ``discount="jarvelin2008"``. The *concatenated session vector* joins the top-X of every
query's sDCG vector in query order and keeps cumulating across the session (Sec. 3.3, Fig. 2-4);
the *ideal session vector* repeats the top-X of the single-query ideal vector once per query, each
copy discounted by its query position; normalised vectors divide the two component by component.

The array API is :func:`session_dcg`; :func:`evaluate_sessions` takes a session run (a
:class:`pandas.DataFrame` or a file in the format of :func:`read_session_run`) and TREC qrels.
Only numpy is needed for the array API; pandas is imported lazily.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..core.gains import DiscountLike, GainLike, apply_gain, gain_key
from ..core.plan import QueryPlan
from ..core.validation import (
    check_choice,
    check_depth,
    check_empty,
    check_flag,
    check_k,
    check_labels,
    check_positive_real,
    check_qid,
    check_result_size,
    check_scores,
    check_string_ids,
    check_ties,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

Values = NDArray[np.float64]

__all__ = [
    "SessionDCG",
    "session_dcg",
    "evaluate_sessions",
    "read_session_run",
    "query_discount",
    "sessions_by_length",
]

_MAX_QUERY_NO = 100_000
#: (n_sessions * max_queries, depth) float64 arrays session_dcg holds at once (at most)
_SESSION_COPIES = 12
_DUPLICATES = ("all", "first")


def query_discount(n_queries: int, query_log_base: float = 4.0) -> Values:
    """Query-position discounts (1 + log_bq q)^-1, q = 1..n_queries (Järvelin et al. 2008, eq. 1).

    Parameters
    ----------
    n_queries : int >= 1
    query_log_base : float > 1, default 4
        bq: small values model an impatient searcher, large ones a patient one.

    Returns
    -------
    ndarray of float64, shape (n_queries,)
        In (0, 1]; the first query is not discounted.

    Raises
    ------
    ValueError, TypeError
        ``n_queries`` not a positive int or ``query_log_base`` <= 1; ``n_queries`` too large
        for this machine's memory (ValueError).

    Examples
    --------
    >>> query_discount(4, 4).round(4)
    array([1.    , 0.6667, 0.5579, 0.5   ])
    """
    n = check_depth(n_queries, "n_queries")
    bq = check_positive_real("query_log_base", query_log_base, above=1.0)
    # numpy's MemoryError, or a lazily allocated array filled until the process was killed
    check_result_size(1, n, "n_queries", copies=2, hint="one discount per query position")
    q = np.arange(1, n + 1, dtype=np.float64)
    return 1.0 / (1.0 + np.log(q) / math.log(bq))


@dataclass(frozen=True)
class SessionDCG:
    """Session vectors and their summaries, one row per session (sorted session ids).

    Attributes
    ----------
    sessions : ndarray of shape (n_sessions,)
        Distinct session ids, sorted; every per-session array follows this order.
    n_queries : ndarray of int64, shape (n_sessions,)
        Queries in each session: its highest query sequence number.
    lengths : ndarray of int64, shape (n_sessions,)
        Positions of each session's concatenated vector: ``n_queries * depth`` with padding,
        the sum of ``min(list length, depth)`` without.
    curve : ndarray of float64, shape (n_sessions, width)
        Concatenated, cumulated sDCG vector; ``width = lengths.max()``; after a session's last
        position the value stays flat (the searcher stopped; 2008, Sec. 3.3).
    ideal : ndarray of float64, shape (n_sessions, width)
        Ideal session vector, built and held flat the same way.
    normalised : ndarray of float64, shape (n_sessions, width)
        ``curve / ideal`` component by component (norm-vect, 2008 appendix eq. 5); sessions whose
        topic has no relevant document get the ``empty`` rule (NaN rows for ``"skip"``).
    query_curves : ndarray of float64, shape (n_sessions, max_queries, depth)
        sDCG(q) vector of each query position (discounted by rank and by query position, not
        cumulated across queries); NaN for positions after the session's last query.
    query_gain : ndarray of float64, shape (n_sessions, max_queries)
        Per-query-position gain: sDCG(q) of the query's top-``depth`` (its counted positions
        without padding); NaN after the session's last query.
    ideal_query_gain : ndarray of float64, shape (n_sessions, max_queries)
        The same for the ideal session.
    depth : int
        X, the number of top documents of each query that are concatenated.
    query_log_base : float
    pad : bool
    duplicates : str
    """

    sessions: np.ndarray
    n_queries: NDArray[np.int64]
    lengths: NDArray[np.int64]
    curve: Values
    ideal: Values
    normalised: Values
    query_curves: Values
    query_gain: Values
    ideal_query_gain: Values
    depth: int
    query_log_base: float
    pad: bool
    duplicates: str

    @property
    def n_sessions(self) -> int:
        """Number of sessions."""
        return int(self.sessions.shape[0])

    @property
    def final_gain(self) -> Values:
        """Final concatenated gain of each session (its last cumulated value), (n_sessions,)."""
        return self.curve[:, -1].copy()

    @property
    def final_normalised(self) -> Values:
        """Final normalised concatenated gain, shape (n_sessions,), in [0, 1]."""
        return self.normalised[:, -1].copy()

    def average_gain(self, *, normalised: bool = False) -> Values:
        """Average gain of each session: avg-pos(V, length) over its own positions (JK 2002, eq. 6).

        Parameters
        ----------
        normalised : bool, default False
            Average the normalised vector instead of the raw one.

        Returns
        -------
        ndarray of float64, shape (n_sessions,)
            NaN for a session without positions (every list empty and ``pad=False``).

        Raises
        ------
        TypeError
            ``normalised`` not True or False.
        """
        v = self.normalised if check_flag("normalised", normalised) else self.curve
        cols = np.arange(v.shape[1])[None, :]
        inside = cols < self.lengths[:, None]
        total = np.where(inside, v, 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.lengths > 0, total / np.maximum(self.lengths, 1), np.nan)

    def _query_values(self, normalised: bool) -> Values:
        if not check_flag("normalised", normalised):
            return self.query_gain
        ideal = self.ideal_query_gain
        # a session without gain takes the empty rule's value (NaN for "skip"), as its
        # normalised vector does; empty=1.0 gave nsdcg 1.0 but last/best-nsdcg 0.0
        no_gain = (self.ideal[:, -1] <= 0)[:, None]
        fill = self.normalised[:, -1:]
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(ideal > 0, self.query_gain / np.where(ideal > 0, ideal, 1.0),
                           np.where(no_gain, fill, 0.0))
        return np.where(np.isnan(self.query_gain), np.nan, out)

    def last_query_gain(self, *, normalised: bool = False) -> Values:
        """sDCG(q) gain of each session's last query (2008, Sec. 5: "the sDCG gain of the ... last
        query"), shape (n_sessions,).

        Parameters
        ----------
        normalised : bool, default False
            Divide by the ideal session's gain at the same query position (the query-position
            discount cancels: the last query's nDCG@depth). A session whose recall base has
            no gain takes the ``empty`` rule's value, as its normalised vector does.

        Raises
        ------
        TypeError
            ``normalised`` not True or False.
        """
        v = self._query_values(normalised)
        return v[np.arange(self.n_sessions), self.n_queries - 1].copy()

    def best_query_gain(self, *, normalised: bool = False) -> Values:
        """Highest sDCG(q) gain over each session's queries (2008, Sec. 5: "the best ...
        query"), shape (n_sessions,); ``normalised`` as in :meth:`last_query_gain`."""
        v = self._query_values(normalised)
        out = np.full(self.n_sessions, np.nan)
        has = ~np.all(np.isnan(v), axis=1)
        out[has] = np.nanmax(v[has], axis=1)
        return out

    def extended(self, width: int, *, normalised: bool = False) -> Values:
        """The concatenated vectors held flat up to ``width`` positions, shape (n_sessions, width).

        Use it to put sessions (or systems) with different lengths on one axis, as the 2008
        paper does up to Q11 in Fig. 2.

        Raises
        ------
        TypeError
            ``width`` not an int; ``normalised`` not True or False.
        ValueError
            ``width`` smaller than the current width, above 2**62, or too large for this
            machine's memory.
        """
        v = self.normalised if check_flag("normalised", normalised) else self.curve
        return _hold(v, width)

    def to_frame(self) -> pd.DataFrame:
        """Per-session summaries as a DataFrame indexed by session id (needs pandas).

        Columns: ``n_queries``, ``length``, ``final_gain``, ``final_normalised``,
        ``average_gain``, ``average_normalised``, ``last_query_gain``,
        ``last_query_normalised``, ``best_query_gain``, ``best_query_normalised``.
        """
        import pandas as pd

        return pd.DataFrame(
            {
                "n_queries": self.n_queries,
                "length": self.lengths,
                "final_gain": self.final_gain,
                "final_normalised": self.final_normalised,
                "average_gain": self.average_gain(),
                "average_normalised": self.average_gain(normalised=True),
                "last_query_gain": self.last_query_gain(),
                "last_query_normalised": self.last_query_gain(normalised=True),
                "best_query_gain": self.best_query_gain(),
                "best_query_normalised": self.best_query_gain(normalised=True),
            },
            index=pd.Index(self.sessions, name="session"),
        )


#: the longest session :func:`sessions_by_length` tabulates (one column per length)
_MAX_SESSION = 100_000


def sessions_by_length(results: Any, *, max_queries: int | None = None) -> pd.DataFrame:
    """Number of sessions issuing exactly 1, 2, ... queries, and queries per session (2008 Table 2).

    Parameters
    ----------
    results : SessionDCG, array-like of int, or mapping {system: SessionDCG or array-like}
        Session results (their ``n_queries``) or per-session query counts directly.
    max_queries : int, optional
        Last column (default: the longest session over all systems).

    Returns
    -------
    pandas.DataFrame
        One row per system; columns 1..max_queries (session counts), then ``"sessions"`` (N)
        and ``"avg_queries"`` (the "Avg per Session" column).

    Raises
    ------
    ValueError
        No system, two systems whose names are equal as strings (``1`` and ``"1"``), query
        counts below 1 or above 100 000, a system without sessions, ``max_queries`` below 1, or
        a session longer than ``max_queries``.
    TypeError
        ``max_queries`` not an int, or complex query counts.

    References
    ----------
    Järvelin, K., Price, S. L., Delcambre, L. M. L., Nielsen, M. L. (2008). Discounted
    cumulated gain based evaluation of multiple-query IR sessions. ECIR, Table 2.

    Examples
    --------
    >>> t = sessions_by_length({"S": [1, 1, 2, 4]})
    >>> t.loc["S"].tolist()
    [2.0, 1.0, 0.0, 1.0, 4.0, 2.0]
    """
    import pandas as pd

    items = results.items() if isinstance(results, Mapping) else [("sessions", results)]
    if not items:
        raise ValueError("results holds no system")
    max_queries = check_k(max_queries, "max_queries")
    from .stats import _system_names

    counts = {}
    for label, (name, r) in zip(_system_names(k for k, _ in items), items, strict=True):
        n = np.asarray(r.n_queries if isinstance(r, SessionDCG) else r)
        if n.dtype.kind == "c":  # int() would drop the imaginary part
            raise TypeError(f"system {name!r}: query counts must be real integers; got complex "
                            f"dtype {n.dtype}")
        if n.ndim != 1 or n.size == 0 or not np.issubdtype(n.dtype, np.number) \
                or np.any(n < 1) or np.any(n != np.round(n)):
            raise ValueError(f"system {name!r}: query counts must be a non-empty 1-D array of "
                             "integers >= 1")
        if np.any(n > _MAX_SESSION):  # one column per length: bounded
            raise ValueError(f"system {name!r}: a session of {n.max()} queries; the table has "
                             f"a column per length and takes at most {_MAX_SESSION:,}")
        counts[label] = n.astype(np.int64)
    longest = max(int(n.max()) for n in counts.values())
    width = longest if max_queries is None else int(max_queries)
    if width > _MAX_SESSION:
        raise ValueError(f"max_queries must be at most {_MAX_SESSION:,} (a column per length); "
                         f"got {max_queries}")
    if width < longest:
        raise ValueError(f"max_queries={max_queries} but a session has {longest} queries")
    rows = {name: [*np.bincount(n, minlength=width + 1)[1:].astype(float), float(n.size),
                   float(n.mean())] for name, n in counts.items()}
    return pd.DataFrame.from_dict(rows, orient="index",
                                  columns=[*range(1, width + 1), "sessions", "avg_queries"])


def _hold(v: Values, width: int) -> Values:
    width = check_depth(width, "width")
    if width < v.shape[1]:
        raise ValueError(f"width must be >= the vectors' width {v.shape[1]}; got {width}")
    if width == v.shape[1]:
        return v.copy()
    check_result_size(v.shape[0], width, "width", copies=2)  # the tail and the result
    tail = np.repeat(v[:, -1:], width - v.shape[1], axis=1)
    return np.concatenate([v, tail], axis=1)


def _query_numbers(query: ArrayLike, n: int) -> NDArray[np.int64]:
    q = np.asarray(query)
    if q.ndim != 1 or q.shape[0] != n:
        raise ValueError(f"query must be 1-D with one sequence number per row ({n}); got {q.shape}")
    if q.dtype.kind == "O" and all(  # Python numbers in an object array (a pandas object column)
            isinstance(v, (int, float, np.integer, np.floating))
            and not isinstance(v, (bool, np.bool_)) for v in q.tolist()):
        numeric = np.asarray(q.tolist())
        if numeric.dtype.kind in "iuf":  # Python ints past int64 stay object: refused below
            q = numeric
    if q.dtype.kind not in "iuf":
        raise TypeError(f"query must hold integer sequence numbers 1, 2, ...; got dtype {q.dtype}")
    if q.dtype.kind == "f" and not np.all(np.isfinite(q)):  # NaN: a missing number (pd.NA)
        bad = q[~np.isfinite(q)][0]
        raise ValueError(f"query sequence numbers must be finite integers (none missing); found "
                         f"{bad}")
    if q.dtype.kind == "f" and np.any(q != np.round(q)):
        bad = q[q != np.round(q)][0]
        raise ValueError(f"query sequence numbers must be integers; found {bad:g}")
    # Python numbers: a float16 array compared with 100 000 would overflow the bound's cast
    lo, hi = q.min().item(), q.max().item()
    if lo < 1:
        raise ValueError(f"query sequence numbers must be >= 1 (the first query is 1); found "
                         f"{lo:g}")
    if hi > _MAX_QUERY_NO:
        raise ValueError(f"query sequence number {hi:g} is too large (max {_MAX_QUERY_NO}); "
                         "number the queries of a session 1, 2, 3, ...")
    return q.astype(np.int64)


def _tie_groups(inst: NDArray[np.int64], scores: np.ndarray, ties: str
                ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Per row: 0-based rank of its tie group's first position in its list, the group's size.

    With ``ties="stable"`` every row is its own group (input order breaks ties). Also returns the
    sort order (by list, descending score, then row)."""
    n = inst.shape[0]
    rows = np.arange(n)
    order = np.lexsort((rows, -scores, inst))
    s_inst = inst[order]
    s_score = scores[order]
    new_list = np.ones(n, dtype=bool)
    new_list[1:] = s_inst[1:] != s_inst[:-1]
    if ties == "stable":
        new_group = np.ones(n, dtype=bool)
    else:
        new_group = new_list.copy()
        new_group[1:] |= s_score[1:] != s_score[:-1]
    list_start = np.maximum.accumulate(np.where(new_list, rows, 0))
    group_id = np.cumsum(new_group) - 1
    group_first = np.flatnonzero(new_group)
    group_size = np.diff(np.append(group_first, n))
    start = np.empty(n, dtype=np.int64)
    size = np.empty(n, dtype=np.int64)
    start[order] = group_first[group_id] - list_start
    size[order] = group_size[group_id]
    return start, size, order


def _first_time_factor(sidx: NDArray[np.int64], didx: NDArray[np.int64], qno: NDArray[np.int64],
                       p_seen: Values) -> Values:
    """Probability that a row's document was not among the top X of an earlier query.

    Lists are ordered independently, so for the rows of one (session, document) in query order
    the factor is the product of (1 - p) over the earlier rows (an exclusive segmented product).
    """
    n = sidx.shape[0]
    order = np.lexsort((qno, didx, sidx))
    s, d = sidx[order], didx[order]
    new = np.ones(n, dtype=bool)
    new[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
    keep = 1.0 - p_seen[order]
    zero = keep <= 0.0
    logs = np.log(np.where(zero, 1.0, keep))
    cum_log = np.cumsum(logs) - logs  # exclusive
    nz = zero.astype(np.int64)
    cum_zero: NDArray[np.int64] = np.cumsum(nz) - nz
    seg = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    excl_log = cum_log - cum_log[first][seg]
    excl_zero: NDArray[np.int64] = cum_zero - cum_zero[first][seg]
    factor = np.where(excl_zero > 0, 0.0, np.exp(excl_log))
    # exact 1 for first occurrences (no rounding through exp/log)
    factor[new] = 1.0
    out = np.empty(n)
    out[order] = factor
    return out


def _lookup(mapping: Mapping[Any, Any], key: Any) -> Any:
    item = key.item() if isinstance(key, np.generic) else key
    if item in mapping:
        return mapping[item]
    if str(item) in mapping:
        return mapping[str(item)]
    raise ValueError(f"ideal_labels has no recall base for session {item!r}")


def _recall_base(ideal_labels: Mapping[Any, ArrayLike], session: Any) -> Values:
    """The checked 1-D labels of one session's recall base."""
    item = session.item() if isinstance(session, np.generic) else session
    name = f"ideal_labels[{item!r}]"
    labels = check_labels(_lookup(ideal_labels, session), name)
    if labels.ndim != 1:  # a 2-D array would be flattened into one recall base silently
        raise ValueError(f"{name} must be 1-D (the labels of the session's recall base); got "
                         f"shape {labels.shape}")
    return labels


def session_dcg(
    y_true: ArrayLike,
    y_score: ArrayLike,
    session: ArrayLike,
    query: ArrayLike,
    *,
    doc: ArrayLike | None = None,
    ideal_labels: Mapping[Any, ArrayLike] | None = None,
    depth: int = 10,
    gain: GainLike = "exponential",
    discount: DiscountLike = "jarvelin2008",
    log_base: float = 2,
    query_log_base: float = 4,
    pad: bool = True,
    duplicates: str = "all",
    ties: str = "average",
    empty: float | str = 0.0,
) -> SessionDCG:
    """Session-based DCG vectors of multiple-query sessions (Järvelin et al. 2008), tie-aware.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Graded label of each retrieved document, judged against its session's topic (>= 0).
    y_score : array-like of shape (n_rows,)
        Finite score of each row within its query's list; higher ranks first. To evaluate a
        logged ranking, pass ``-rank``.
    session : array-like of shape (n_rows,)
        Session id of each row (ints or strings).
    query : array-like of int, shape (n_rows,)
        Sequence number of the row's query within its session: 1, 2, 3, ... A number missing
        below a session's highest one is a query that returned nothing (an empty list).
    doc : array-like of shape (n_rows,), optional
        Document id of each row. Needed for ``duplicates="first"`` and, when ``ideal_labels`` is
        None, to find the distinct documents of a session. A document may appear once per list.
    ideal_labels : mapping {session id: array-like of labels}, optional
        The recall base of each session's topic: the labels of every judged document (JK 2002,
        eq. 4; the ideal vector "has the relevance scores of the recall base in descending order",
        2008 appendix). Sessions of one topic may share an array. None: the distinct documents
        retrieved in the session (by ``doc``).
    depth : int >= 1, default 10
        X, the top documents of every query that are scanned and concatenated (paper: 10).
    gain : {"exponential", "linear"}, sequence, mapping or callable, default "exponential"
        As in :func:`rankmetrics.dcg`. The paper weighs levels 0-3 as ``[0, 1, 10, 100]``.
    discount : str or callable, default "jarvelin2008"
        Rank discount within a list; "jarvelin2008" is 1 / (1 + log_b j) (2008 appendix eq. 2),
        which discounts every rank. Any discount of :func:`rankmetrics.dcg` is accepted.
    log_base : float > 1, default 2
        b, the base of the rank discount (paper: 2).
    query_log_base : float > 1, default 4
        bq, the base of the query-position discount (paper: 4).
    pad : bool, default True
        Every query occupies ``depth`` positions of the session vector, a short or empty list
        padded with zero gains (the paper's choice, Sec. 4). False: a list occupies only its
        ``min(length, depth)`` positions and empty lists none.
    duplicates : {"all", "first"}, default "all"
        "all": a document gains every time it is returned (the paper's choice, Sec. 3.3).
        "first": only the first time it appears within the top ``depth`` of a query of the
        session; later appearances gain 0 (under tied scores, the probability that it was not
        seen before weighs its gain).
    ties : {"average", "optimistic", "pessimistic", "stable"}, default "average"
        Tie rule within each list (see :func:`rankmetrics.dcg`). With ``duplicates="first"`` only
        "average" (exact: lists are ordered independently) and "stable" are defined.
    empty : float, "skip" or "error", default 0.0
        Normalised value for a session whose recall base has no gain (ideal vector all zero).

    Returns
    -------
    SessionDCG
        Concatenated, ideal and normalised session vectors of shape (n_sessions, width), the
        per-query sDCG vectors and gains, and the summaries ``final_gain``, ``average_gain()``
        and ``query_gain``.

    Raises
    ------
    ValueError
        Mismatched lengths, empty input, negative labels, non-finite scores, query numbers < 1 or
        non-integer or missing (NaN), a document twice in one list, ``query_log_base <= 1``, unknown
        ``duplicates``, ``duplicates="first"`` without ``doc`` or with optimistic/pessimistic
        ties, neither ``doc`` nor ``ideal_labels``, a session missing from ``ideal_labels`` or
        whose recall base there is not 1-D, a ``depth`` whose session vectors (about 12 arrays
        of n_sessions * max_queries * depth floats) exceed this machine's memory, or an empty
        session when ``empty="error"``.
    TypeError
        Non-numeric labels/scores/query numbers (``ideal_labels`` included: the message names
        the session) or a non-int ``depth``.

    Notes
    -----
    For the list of query position q of a session (1-based), with DCG_q its DCG vector at ranks
    1..X,

        sDCG(q) = DCG_q / (1 + log_bq q)                          (Järvelin et al. 2008, eq. 1)

    and the concatenated vector is, at rank j of query q,
    ``sum_(q' < q) sDCG(q')[X] + sDCG(q)[j]``. The ideal session vector replaces every DCG_q by
    the ideal DCG vector of the topic's recall base (top X; without padding, its first
    ``min(length, X)`` components), so the ideal of a session of n queries is the single-query
    ideal "concatenated n times", each copy discounted by formula (1) (Sec. 3.3). After the last
    query of a session both vectors stay flat.

    A single-query session is exactly ``rankmetrics.dcg_curve(..., depth=X,
    discount="jarvelin2008")``, its ideal ``rankmetrics.ideal_dcg_curve`` of the recall base,
    since the first query is not discounted (1 + log_bq 1 = 1).

    Ties: with ``ties="average"`` every vector component is the exact mean over all orderings of
    tied scores in every list (McSherry & Najork 2008). With ``duplicates="first"`` a row's gain is
    multiplied by the probability that its document was not in the top X of any earlier list of
    the session (for a tie group straddling X with n members at ranks t+1..t+n, each member is in
    the top X with probability (X - t) / n); lists are ordered independently, so the expectation
    stays exact. Ideal vectors ignore duplicates, as in the paper.

    References
    ----------
    Järvelin, K., Price, S. L., Delcambre, L. M. L., Nielsen, M. L. (2008). Discounted cumulated
    gain based evaluation of multiple-query IR sessions. ECIR 2008, LNCS 4956, 4-15. Eq. 1,
    Sec. 3.3 and 4, appendix eq. 1-5.

    Examples
    --------
    Two queries of one session, linear gains, b = 2, bq = 4, X = 2:

    >>> from rankmetrics.session import session_dcg
    >>> r = session_dcg([2, 0, 1, 2], [2, 1, 2, 1], ["s", "s", "s", "s"], [1, 1, 2, 2],
    ...                 doc=["a", "b", "c", "a"], depth=2, gain="linear")
    >>> r.curve.round(4)
    array([[2.    , 2.    , 2.6667, 3.3333]])
    >>> r.ideal.round(4)
    array([[2.    , 2.5   , 3.8333, 4.1667]])
    """
    labels = check_labels(y_true)
    scores = check_scores(y_score)
    if labels.ndim != 1 or scores.ndim != 1:
        raise ValueError("y_true and y_score must be 1-D (one row per retrieved document)")
    n = labels.shape[0]
    if scores.shape[0] != n:
        raise ValueError(f"y_true and y_score must have the same length; got {n} and "
                         f"{scores.shape[0]}")
    if n == 0:
        raise ValueError("y_true is empty: at least one retrieved document is needed")
    sess = check_qid(session, n, "session")
    qno = _query_numbers(query, n)
    if depth is None:
        raise TypeError("depth must be a positive int (X, e.g. 10)")
    try:
        x = check_k(depth, "depth")
    except (TypeError, ValueError) as exc:  # check_k's message also offers None
        raise type(exc)(f"depth must be a positive int (X, e.g. 10); got {depth!r}") from None
    assert x is not None
    bq = check_positive_real("query_log_base", query_log_base, above=1.0)
    check_choice("duplicates", duplicates, _DUPLICATES)
    check_ties(ties)
    rule = check_empty(empty)
    pad = check_flag("pad", pad)
    if duplicates == "first":
        if doc is None:
            raise ValueError("duplicates='first' needs doc= (the document id of every row)")
        if ties not in ("average", "stable"):
            raise ValueError(
                f"duplicates='first' is defined for ties='average' or 'stable'; got ties={ties!r}"
            )
    if doc is None and ideal_labels is None:
        raise ValueError(
            "pass ideal_labels= (the recall base of each session's topic) or doc= (document ids, "
            "to build the ideal from the distinct documents of each session)"
        )

    sess_ids, sidx = np.unique(sess, return_inverse=True)
    sidx = sidx.ravel().astype(np.int64)
    n_s = int(sess_ids.shape[0])
    m_q = int(qno.max())
    # before any curve is built: at the peak (the ideal's _concatenate) curves, c, s_vec,
    # i_vec and curve are held with _concatenate's seg, pos, out and its three fancy-index
    # temporaries, 11 (n_s * m_q, depth) arrays, plus boolean masks: 12. A depth that no
    # single array fits keeps the one-array message (the core curves give it too).
    # the rows are every session padded to the longest one's queries: name both, not only
    # the depth (a smaller depth cannot help a few very long sessions among many short ones)
    shape_hint = (f"its rows are {n_s} session(s) x {m_q} queries (every session padded to "
                  "the longest one's): evaluate sessions of very different lengths apart, or "
                  "lower depth")
    check_result_size(n_s * m_q, x, hint=shape_hint)
    check_result_size(n_s * m_q, x, copies=_SESSION_COPIES, hint=shape_hint)
    key = sidx * (m_q + 1) + qno
    inst_keys, iidx = np.unique(key, return_inverse=True)
    iidx = iidx.ravel().astype(np.int64)
    inst_s = inst_keys // (m_q + 1)
    inst_q = inst_keys % (m_q + 1)

    didx: NDArray[np.int64] | None = None
    if doc is not None:
        d = check_qid(doc, n, "doc")
        _, didx_raw = np.unique(d, return_inverse=True)
        didx = didx_raw.ravel().astype(np.int64)
        pair = np.unique(iidx * (int(didx.max()) + 1) + didx, return_counts=True)
        if np.any(pair[1] > 1):
            bad = int(np.flatnonzero(pair[1] > 1)[0])
            i_bad = int(pair[0][bad] // (int(didx.max()) + 1))
            where = f"session {sess_ids[inst_s[i_bad]].item()!r}, query {int(inst_q[i_bad])}"
            raise ValueError(
                f"a document appears twice in the list of {where}; each list may hold a "
                "document once"
            )

    gains = apply_gain(gain, labels)
    if duplicates == "first":
        assert didx is not None
        start, size, _ = _tie_groups(iidx, scores, ties)
        p_seen = np.clip((x - start) / size, 0.0, 1.0)
        gains = gains * _first_time_factor(sidx, didx, qno, p_seen)

    plan = QueryPlan(gains, qid=iidx)
    curves = plan.dcg_curve(scores, depth=x, gain="linear", discount=discount,
                            log_base=log_base, ties=ties)

    # recall base -> ideal DCG vector of every session, shape (n_s, X)
    if ideal_labels is not None:
        parts = [_recall_base(ideal_labels, s) for s in sess_ids]
        rb_labels = np.concatenate(parts) if parts else np.zeros(0)
        rb_sess = np.repeat(np.arange(n_s), [p.shape[0] for p in parts])
    else:
        assert didx is not None
        pair_key = sidx * (int(didx.max()) + 1) + didx
        uniq, inv = np.unique(pair_key, return_inverse=True)
        rb_labels = np.zeros(uniq.shape[0])
        np.maximum.at(rb_labels, inv.ravel(), labels)
        rb_sess = uniq // (int(didx.max()) + 1)
    ideal1 = np.zeros((n_s, x))
    if rb_labels.shape[0]:
        ip = QueryPlan(rb_labels, qid=rb_sess)
        ideal1[ip.qids.astype(np.int64)] = ip.ideal_dcg_curve(
            depth=x, gain=gain, discount=discount, log_base=log_base)

    # dense (session, query position, rank) tensors
    n_per = np.zeros(n_s, dtype=np.int64)
    np.maximum.at(n_per, inst_s, inst_q)
    active = np.arange(1, m_q + 1)[None, :] <= n_per[:, None]  # (n_s, m_q)
    c = np.zeros((n_s, m_q, x))
    c[inst_s, inst_q - 1] = curves
    if pad:
        lens = np.where(active, x, 0).astype(np.int64)
    else:
        lens = np.zeros((n_s, m_q), dtype=np.int64)
        lens[inst_s, inst_q - 1] = np.minimum(plan.sizes, x)
    qd = query_discount(m_q, bq)
    s_vec = c * qd[None, :, None]
    i_vec = ideal1[:, None, :] * qd[None, :, None] * active[:, :, None]

    def totals(v: Values) -> Values:
        at = np.take_along_axis(v, np.maximum(lens - 1, 0)[:, :, None], axis=2)[:, :, 0]
        return np.where(lens > 0, at, 0.0)

    q_tot = totals(s_vec)
    i_tot = totals(i_vec)
    width = max(int(lens.sum(axis=1).max()), 1)
    curve = _concatenate(s_vec, q_tot, lens, width)
    ideal = _concatenate(i_vec, i_tot, lens, width)

    no_gain = ideal[:, -1] <= 0
    if rule == "error" and no_gain.any():
        raise ValueError(
            f"sessions {sess_ids[no_gain][:5].tolist()} have no relevant document in their recall "
            "base, so their normalised vectors are undefined; pass empty=0.0, 1.0 or 'skip'"
        )
    fill = np.nan if rule == "skip" else float(rule) if rule != "error" else 0.0
    normalised = np.full(curve.shape, fill)
    np.divide(curve, ideal, out=normalised, where=ideal > 0)
    normalised[no_gain] = fill

    nan_q = ~active
    query_curves = s_vec.copy()
    query_curves[nan_q] = np.nan
    query_gain = np.where(nan_q, np.nan, q_tot)
    ideal_query_gain = np.where(nan_q, np.nan, i_tot)
    return SessionDCG(
        sessions=sess_ids,
        n_queries=n_per,
        lengths=lens.sum(axis=1),
        curve=curve,
        ideal=ideal,
        normalised=normalised,
        query_curves=query_curves,
        query_gain=query_gain,
        ideal_query_gain=ideal_query_gain,
        depth=x,
        query_log_base=bq,
        pad=bool(pad),
        duplicates=duplicates,
    )


def _concatenate(v: Values, totals: Values, lens: NDArray[np.int64], width: int) -> Values:
    """Concatenate the first ``lens[s, q]`` components of every query's vector, cumulating the
    totals of earlier queries, and hold the last value flat up to ``width``."""
    n_s, m_q, x = v.shape
    offsets = np.cumsum(totals, axis=1) - totals
    seg = v + offsets[:, :, None]
    mask = np.arange(x)[None, None, :] < lens[:, :, None]
    flat_mask = mask.reshape(n_s, m_q * x)
    pos = np.cumsum(flat_mask, axis=1) - 1
    out = np.zeros((n_s, width))
    rows = np.broadcast_to(np.arange(n_s)[:, None], flat_mask.shape)
    out[rows[flat_mask], pos[flat_mask]] = seg.reshape(n_s, m_q * x)[flat_mask]
    total = lens.sum(axis=1)
    final = totals.sum(axis=1)
    return np.where(np.arange(width)[None, :] < total[:, None], out, final[:, None])


# ------------------------------------------------------------------------------------ files
_RUN_COLUMNS = ("session", "query", "topic", "docid", "rank", "score")


def read_session_run(src: str | os.PathLike[str] | pd.DataFrame) -> pd.DataFrame:
    """Read a session run: one retrieved document per line, TREC-like.

    Format (whitespace-separated; blank lines and lines starting with ``#`` are skipped)::

        SESSION  QUERY  TOPIC  DOCNO  RANK  SCORE  [TAG]
        s01      1      D      doc17  1     12.5   sys1
        s01      1      D      doc03  2     11.0   sys1
        s01      2      D      doc17  1     9.75   sys1

    ``SESSION`` is the session id, ``QUERY`` the query's sequence number in the session (1, 2,
    ...; a missing number is a query that returned nothing), ``TOPIC`` the qrels topic the session
    is judged against (several sessions may share one), ``DOCNO`` the document, ``RANK`` the rank
    shown (kept, not used), ``SCORE`` the score that orders the list (higher first; equal scores
    are ties; for a logged ranking without scores write ``-RANK``). ``TAG`` is ignored.

    Parameters
    ----------
    src : path or DataFrame
        A file (UTF-8; a byte-order mark at its start is dropped; gzip, bzip2 and xz files are
        decompressed, recognised by their first bytes), or a DataFrame with at least the columns
        ``session, query, docid, score`` (``topic`` defaults to ``session``; ``rank`` is
        optional), which is validated and copied.

    Returns
    -------
    pandas.DataFrame
        Columns ``session`` (str), ``query`` (int64), ``topic`` (str), ``docid`` (str), ``rank``
        (int64, -1 when absent), ``score`` (float64).

    Raises
    ------
    ValueError
        A line with fewer than 6 fields, a carriage return inside a line (CR-only line ends),
        a non-integer query number or rank (``1_0`` too), a query number < 1, a document twice
        in one query's list (naming its lines),
        a non-numeric or non-finite score, text that is not UTF-8 (the message names file and
        line), truncated or corrupt compressed data (naming the file), or missing DataFrame
        columns, or DataFrame integer scores of magnitude 2**53 or more (float64 would tie them).
    TypeError
        DataFrame scores that are not real numbers (strings, complex), or ranks that are not
        integers (a missing or fractional rank is a ValueError).
    OSError
        The file does not exist (FileNotFoundError), is a directory (IsADirectoryError) or
        cannot be read; the message names it.
    """
    import pandas as pd

    if isinstance(src, pd.DataFrame):
        missing = [c for c in ("session", "query", "docid", "score") if c not in src.columns]
        if missing:
            raise ValueError(f"session run DataFrame lacks column(s) {missing}; needs session, "
                             "query, docid, score (topic and rank optional)")
        from ..trec.io import _frame_ids, _plain

        for col in ("session", "topic", "docid"):
            # None/NaN would become the ids 'None'/'nan', and 1 and '1' one id
            if col in src.columns and (_plain(src[col]).dtype == object
                                       or src[col].isna().any()):
                check_string_ids(src[col].tolist(), f"session run DataFrame column {col!r}")

        def text(col: str) -> np.ndarray:
            # the qrels' rule (7.0 is "7"): str made "7.0", which matched no judgement
            return _frame_ids(src[col], "session run DataFrame", f"{col!r}").to_numpy(
                zero_copy_only=False)

        out = pd.DataFrame({
            "session": text("session"),
            "query": src["query"].to_numpy(),
            "topic": text("topic" if "topic" in src.columns else "session"),
            "docid": text("docid"),
            "rank": _frame_ranks(src["rank"]) if "rank" in src.columns else -1,
            # the core's check: to_numpy(float64) dropped a complex score's imaginary part,
            # read "3" as 3.0 and merged int64 scores above 2**53 into ties
            "score": check_scores(src["score"], "session run DataFrame column 'score'",
                                  finite=False).astype(np.float64),
        })
        _query_numbers(out["query"].to_numpy(), len(out))
        out["query"] = out["query"].astype(np.int64)
        if not np.all(np.isfinite(out["score"].to_numpy())):
            raise ValueError("session run scores must be finite")
        return out
    return _read_session_file(src)


def _frame_ranks(col: pd.Series) -> NDArray[np.int64]:
    """A DataFrame's ``rank`` column as int64 (the file reader's type); it was returned as given
    (strings, floats, NaN) although the result's ``rank`` is documented as int64."""
    r = col.to_numpy()
    if r.dtype.kind == "b" or r.dtype.kind not in "iuf":
        raise TypeError(f"session run DataFrame column 'rank' must hold integers; got dtype "
                        f"{col.dtype}")
    if r.dtype.kind == "f" and (not np.all(np.isfinite(r)) or np.any(r != np.round(r))
                                or np.any(np.abs(r) >= 2.0**63)):
        raise ValueError("session run DataFrame column 'rank' must hold finite integers (none "
                         "missing)")
    if r.dtype.kind == "u" and r.size and r.max() > np.iinfo(np.int64).max:
        raise ValueError("session run DataFrame column 'rank' has values above 2**63 - 1")
    return r.astype(np.int64)


def _read_session_file(src: str | os.PathLike[str]) -> pd.DataFrame:
    """The file reader of :func:`read_session_run`: blocks of lines (bounded memory), the UTF-8
    byte-order mark dropped, compressed files opened by their magic bytes, as the TREC readers
    do."""
    import pandas as pd

    from ..trec import io as trec_io

    p = trec_io._check_path(src, "session run")
    comp = trec_io.compression_of(p, trec_io._sniff(p))
    parts: list[dict[str, Any]] = []
    for block, line0 in trec_io.iter_chunks(p, comp):
        cols = _session_block(block, str(p), line0)
        if cols is not None:
            parts.append(cols)
    if not parts:
        raise ValueError(f"{p}: no session run lines (the file is empty or all comments)")
    out = pd.DataFrame({
        c: (np.concatenate([b[c] for b in parts]) if c in ("query", "rank", "score")
            else pd.Series(np.concatenate([b[c] for b in parts]), dtype=object).astype(str))
        for c in _RUN_COLUMNS
    })
    # session_dcg refuses a document twice in one list, but cannot name the file's lines
    twice = out.duplicated(["session", "query", "docid"], keep=False).to_numpy()
    if twice.any():
        lines = np.concatenate([b["line"] for b in parts])
        row = out.iloc[int(np.flatnonzero(twice)[0])]
        same = np.flatnonzero(twice & (out["session"] == row["session"]).to_numpy()
                              & (out["query"] == row["query"]).to_numpy()
                              & (out["docid"] == row["docid"]).to_numpy())
        raise ValueError(
            f"{p}, lines {', '.join(str(int(n)) for n in lines[same][:5])}: document "
            f"{row['docid']!r} appears twice in the list of session {row['session']!r}, query "
            f"{int(row['query'])}; each list may hold a document once")
    return out


def _session_block(data: bytes, name: str, line0: int) -> dict[str, Any] | None:
    from ..trec.io import decode_field, parse_number

    cols: dict[str, list[Any]] = {c: [] for c in _RUN_COLUMNS}
    line_nos: list[int] = []
    for lineno, raw in enumerate(data.split(b"\n"), line0):
        f = raw.split()
        if not f or f[0].startswith(b"#"):
            continue
        where = f"{name}, line {lineno}"
        s = raw.strip().decode("utf-8", errors="replace")  # shown in messages only
        if raw.rstrip(b"\r").find(b"\r") >= 0:  # CR alone ends lines on old Macs
            raise ValueError(f"{where}: a carriage return (CR) inside the line; lines must end "
                             f"with LF or CRLF (convert CR line ends): {s!r}")
        if len(f) < 6:
            raise ValueError(f"{where}: expected 'SESSION QUERY TOPIC DOCNO RANK SCORE [TAG]',"
                             f" got {len(f)} field(s): {s!r}")
        try:
            if b"_" in f[1] or b"_" in f[4]:  # int() reads "1_0" as 10
                raise ValueError
            qn, rk = int(f[1]), int(f[4])
        except ValueError:
            hint = (" (is this a TREC run? a session run's lines are 'SESSION QUERY TOPIC "
                    "DOCNO RANK SCORE [TAG]')" if f[1].upper() == b"Q0" else "")
            raise ValueError(f"{where}: QUERY and RANK must be integers; got "
                             f"{f[1].decode(errors='replace')!r}, "
                             f"{f[4].decode(errors='replace')!r}{hint}") from None
        sc = parse_number(f[5])
        if sc is None:
            raise ValueError(f"{where}: SCORE must be a number; got "
                             f"{f[5].decode(errors='replace')!r}")
        if qn < 1:
            raise ValueError(f"{where}: QUERY must be >= 1 (sequence number); got {qn}")
        if not math.isfinite(sc):
            raise ValueError(f"{where}: SCORE must be finite; got {f[5].decode()!r}")
        ids = [decode_field(f[i], where) for i in (0, 2, 3)]  # the tag may hold any bytes
        for c, v in zip(_RUN_COLUMNS, (ids[0], qn, ids[1], ids[2], rk, sc), strict=True):
            cols[c].append(v)
        line_nos.append(lineno)
    if not cols["session"]:
        return None
    return {
        "session": np.asarray(cols["session"], dtype=object),
        "query": np.asarray(cols["query"], dtype=np.int64),
        "topic": np.asarray(cols["topic"], dtype=object),
        "docid": np.asarray(cols["docid"], dtype=object),
        "rank": np.asarray(cols["rank"], dtype=np.int64),
        "score": np.asarray(cols["score"], dtype=np.float64),
        "line": np.asarray(line_nos, dtype=np.int64),
    }


def _qrels_frame(qrels: Any) -> pd.DataFrame:
    """qrels as DataFrame[qid, docid, label] through :func:`rankmetrics.trec.read_qrels`."""
    import pandas as pd

    from ..trec import read_qrels
    from ..trec.match import refuse_duplicates

    # a DataFrame too: astype(str) made the float id 7.0 "7.0", which matched no session run
    # topic ("7", the run's and read_qrels' rule), and a missing label surfaced as
    # "ideal_labels['s'] must be finite"
    frame = read_qrels(qrels)

    out = pd.DataFrame({
        "qid": frame["qid"].astype(str).to_numpy(),
        "docid": frame["docid"].astype(str).to_numpy(),
        "label": frame["label"].to_numpy(dtype=np.float64),
    })
    refuse_duplicates(out, "qrels", qrels)
    out["label"] = np.clip(out["label"].to_numpy(), 0.0, None)
    return out.drop_duplicates(["qid", "docid"])


def _input_kind(src: Any) -> str | None:
    """"run" for what looks like a session run, "qrels" for qrels, None when unsure."""
    if isinstance(src, Mapping):
        return "qrels"
    columns = getattr(src, "columns", None)
    if columns is not None:
        return "run" if "session" in columns else "qrels"
    if not isinstance(src, (str, os.PathLike)):
        return None
    path = os.fspath(src)
    try:
        if path.endswith(".gz"):
            import gzip

            fh: Any = gzip.open(path, "rt", encoding="utf-8")
        else:
            fh = open(path, encoding="utf-8")
        with fh:
            for _, line in zip(range(1000), fh, strict=False):
                s = line.strip()
                if s and not s.startswith("#"):
                    return "run" if len(s.split()) >= 6 else "qrels"
    except (OSError, UnicodeDecodeError, EOFError):
        return None
    return None


def evaluate_sessions(
    qrels: Any,
    run: str | os.PathLike[str] | pd.DataFrame,
    *,
    depth: int = 10,
    gain: GainLike = "exponential",
    discount: DiscountLike = "jarvelin2008",
    log_base: float = 2,
    query_log_base: float = 4,
    pad: bool = True,
    duplicates: str = "all",
    ties: str = "average",
    empty: float | str = 0.0,
) -> SessionDCG:
    """Session DCG of a session run against TREC qrels (see :func:`session_dcg`).

    The argument order is the one of :func:`rankmetrics.trec.evaluate`: qrels first, then the
    run. The old order ``evaluate_sessions(run, qrels)`` (rankmetrics 0.1) is recognised when the
    first argument is a session run (a file whose lines have 6 or 7 fields, or a DataFrame with
    a ``session`` column) and the second is not: the call then works as before and emits a
    :class:`DeprecationWarning` naming the new order.

    Parameters
    ----------
    qrels : path, DataFrame or mapping
        Judgments per topic, anything :func:`rankmetrics.trec.read_qrels` accepts (or a
        DataFrame with columns ``qid, docid, label``). Unjudged documents have label 0; negative
        labels (TREC's -1) count as 0. A session's recall base is every judged document of its
        topic. Sessions whose topic has no qrels line are left out (as
        :func:`rankmetrics.trec.evaluate` leaves out run queries absent from the qrels); a
        topic whose lines all have label 0 is kept and takes the ``empty`` rule.
    run : path or DataFrame
        A session run (format in :func:`read_session_run`), or a DataFrame with columns
        ``session, query, docid, score`` and optionally ``topic`` (default: the session id).
    depth, gain, discount, log_base, query_log_base, pad, duplicates, ties, empty
        As in :func:`session_dcg`; a ``gain`` mapping may leave levels out, which keep their
        label as the gain (as :func:`rankmetrics.trec.evaluate` reads one).

    Returns
    -------
    SessionDCG

    Raises
    ------
    ValueError, OSError
        Unreadable or malformed files, no session whose topic has a qrels line, or any error
        of :func:`session_dcg`.
    """
    import pandas as pd

    if _input_kind(qrels) == "run" and _input_kind(run) != "run":
        import warnings

        warnings.warn(
            "evaluate_sessions(run, qrels) is deprecated: the order is now "
            "evaluate_sessions(qrels, run), as in rankmetrics.trec.evaluate(qrels, run); "
            "swap the first two arguments",
            DeprecationWarning, stacklevel=2,
        )
        qrels, run = run, qrels
    if isinstance(gain, Mapping):
        gain_key(gain)  # the core's check of the mapping, before any file is read
    frame = read_session_run(run)
    judged = _qrels_frame(qrels)
    if isinstance(gain, Mapping):  # as rankmetrics.trec.evaluate: levels left out keep l
        # (the core's session_dcg refused them: "gain mapping has no weight for label(s)")
        levels = np.unique(judged["label"].to_numpy(dtype=np.float64)).tolist()
        gain = {**{lv: lv for lv in [*levels, 0.0]}, **{float(k): v for k, v in gain.items()}}
    by_topic = {t: g["label"].to_numpy() for t, g in judged.groupby("qid", sort=False)}
    none = np.zeros(0)
    pairs = frame[["session", "topic"]].drop_duplicates()
    if pairs["session"].duplicated().any():
        bad = pairs.loc[pairs["session"].duplicated(), "session"].iloc[0]
        raise ValueError(f"session {bad!r} is judged against several topics; a session has one")
    # sessions of topics without any qrels line are not evaluated, as trec.evaluate (and
    # trec_eval) ignore run queries absent from the qrels: not scored 0 and paired in a test
    frame = frame[frame["topic"].isin(list(by_topic)).to_numpy()]
    pairs = pairs[pairs["topic"].isin(list(by_topic)).to_numpy()]
    if frame.shape[0] == 0:
        where = f"{run}: " if isinstance(run, (str, os.PathLike)) else ""
        raise ValueError(f"{where}no session's topic has a qrels line: nothing to evaluate (are "
                         "the topic ids of the run and the qrels spelt alike?)")
    merged = frame.merge(judged.rename(columns={"qid": "topic"}), on=["topic", "docid"],
                         how="left")
    labels = merged["label"].fillna(0.0).to_numpy(dtype=np.float64)
    topic_of = pd.Series(pairs["topic"].to_numpy(), index=pairs["session"].to_numpy())
    ideal = {s: by_topic.get(t, none) for s, t in topic_of.items()}
    return session_dcg(
        labels, merged["score"].to_numpy(), merged["session"].to_numpy(),
        merged["query"].to_numpy(), doc=merged["docid"].to_numpy(), ideal_labels=ideal,
        depth=depth, gain=gain, discount=discount, log_base=log_base,
        query_log_base=query_log_base, pad=pad, duplicates=duplicates, ties=ties, empty=empty,
    )
