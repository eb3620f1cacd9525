"""Public per-query ranking metrics, their means, and the Järvelin–Kekäläinen gain vectors.

Every function validates its inputs, builds a :class:`~rankmetrics.QueryPlan` and calls the
shared kernel; for repeated evaluation of new scores against the same labels, build the plan once
and call its methods instead.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .gains import DiscountLike, GainLike
from .plan import QueryPlan, weighted_mean
from .validation import check_flag, flatten_inputs

Values = NDArray[np.float64]
F = TypeVar("F", bound=Callable[..., Any])

_PARAMS = {
    "inputs": """y_true : array-like of shape (n_rows,) or (n_queries, n_docs)
        Graded relevance labels: non-negative numbers (int, float or bool). 2-D input means one
        query per row (scikit-learn's layout), and then ``qid`` must be None.
    y_score : array-like of the shape of ``y_true``
        Finite model scores (float16/32/64, int, bool); a higher score ranks first. Ties are
        detected in the scores' own dtype.
    qid : array-like of shape (n_rows,), optional
        Query id of each row (ints or strings); rows of a query need not be contiguous. None: all
        rows are one query.""",
    "k": """k : int >= 1, optional
        Cutoff: only ranks 1..k count. None (default) is the whole list.""",
    "gain": """gain : {"exponential", "linear"}, sequence, mapping or callable
        Default "exponential".
        Gain of a label l: "exponential" is 2**l - 1 (integer labels 0..53); "linear" is l;
        a sequence w gives w[l] for integer levels (e.g. ``[0, 1, 10, 100]``, JK 2002's weights);
        a mapping {label: weight}; a callable maps a float64 label array to gains >= 0.""",
    "discount": """discount : {"log", "jarvelin2002", "jarvelin2008", "none"} or callable
        Default "log".
        Discount of rank i: "log" 1/log_b(i+1) (LightGBM, scikit-learn); "jarvelin2002" 1 for
        i < b and 1/log_b(i) from rank b on (JK 2002, eq. 2); "jarvelin2008" 1/(1 + log_b i)
        (Järvelin et al. 2008, appendix eq. 2); "none"; or a callable of 1-based int ranks.
    log_base : float > 1, default 2
        The base b of the logarithm.""",
    "ties": """ties : {"average", "optimistic", "pessimistic", "stable"}, default "average"
        "average": the exact mean over every ordering of tied scores (McSherry & Najork 2008);
        "optimistic"/"pessimistic": the best/worst such ordering (bounds; for callable
        discounts only when non-increasing); "stable": input order within ties, as LightGBM and
        XGBoost do.""",
    "threshold": """threshold : float, default 1
        A document is relevant when its label is >= threshold.""",
    "empty": """empty : float, "skip" or "error", default 0.0
        Value of a query that has no relevant document (for nDCG/nCG: whose ideal gain up to k is
        zero). 1.0 is the LightGBM/XGBoost convention; "skip" gives NaN for that query (left out of
        ``*_score`` means); "error" raises ValueError.""",
    "raises": """Raises
    ------
    ValueError
        Mismatched lengths, empty input, NaN/inf scores, negative labels, non-integer labels with
        exponential gain or level weights, labels too large for 2**l, k <= 0, unknown names of
        gain/discount/ties, or an empty query when ``empty="error"``.
    TypeError
        Non-numeric input or a cutoff that is not an int.""",
    "returns": """Returns
    -------
    ndarray of float64, shape (n_queries,)
        One value per query, in the order of ``np.unique(qid)``.""",
}


def _doc(text: str) -> Callable[[F], F]:
    def deco(fn: F) -> F:
        fn.__doc__ = text.format(**_PARAMS)
        return fn

    return deco


def _plan(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None):
    # the sign of integer labels is checked in the plan's pass over them (their gains), NaN
    # and inf scores as the plan reads them (QueryPlan._scores, or the compiled kernel)
    labels, scores, q = flatten_inputs(y_true, y_score, qid, defer_sign=True, defer_finite=True)
    plan = QueryPlan._from_checked(labels, q, sign_pending=labels.dtype.kind == "i")
    plan._checked = scores  # validated: the plan does not check them again
    plan._checked_finite = False
    return plan, scores


@_doc("""Cumulated gain at k per query (Järvelin & Kekäläinen 2002, eq. 1), tie-averaged.

    CG@k = sum of the gains of ranks 1..k. CG is order-independent within the top k, so ties only
    matter for the tie group that straddles rank k.

    Parameters
    ----------
    {inputs}
    {k}
    {gain}
    {ties}

    {returns}
        Units of gain, in [0, sum of the query's gains].

    {raises}

    Examples
    --------
    >>> from rankmetrics import cg
    >>> cg([3, 2, 0], [0.9, 0.5, 0.5], k=2, gain="linear")
    array([4.])
    """)
def cg(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
       k: int | None = None, gain: GainLike = "exponential", ties: str = "average") -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.cg(scores, k=k, gain=gain, ties=ties)


@_doc("""Discounted cumulated gain at k per query, exact under tied scores.

    DCG@k = sum_(i<=k) G(l_i) D(i) (JK 2002, eq. 2). With ties="average", every position of a
    tie group gets the group's mean gain (McSherry & Najork 2008, Sec. 2.6), which equals the mean
    of DCG over all orderings of the tied documents.

    Parameters
    ----------
    {inputs}
    {k}
    {gain}
    {discount}
    {ties}

    {returns}
        Units of gain, >= 0.

    {raises}

    Examples
    --------
    >>> from rankmetrics import dcg
    >>> dcg([2, 0, 0], [1.0, 1.0, 1.0], k=1)   # three tied documents: mean of 3, 0, 0
    array([1.])
    """)
def dcg(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
        k: int | None = None, gain: GainLike = "exponential", discount: DiscountLike = "log",
        log_base: float = 2, ties: str = "average") -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.dcg(scores, k=k, gain=gain, discount=discount, log_base=log_base, ties=ties)


@_doc("""Normalised cumulated gain at k per query: CG@k / ideal CG@k (JK 2002, eq. 5).

    The ideal vector is built from every row of the query (the recall base), not only the top k.

    Parameters
    ----------
    {inputs}
    {k}
    {gain}
    {ties}
    {empty}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> from rankmetrics import ncg
    >>> ncg([0, 3, 1], [0.9, 0.1, 0.5], k=2, gain="linear")
    array([0.25])
    """)
def ncg(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
        k: int | None = None, gain: GainLike = "exponential", ties: str = "average",
        empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.ncg(scores, k=k, gain=gain, ties=ties, empty=empty)


@_doc("""Normalised discounted cumulated gain at k per query, exact under tied scores.

    nDCG@k = DCG@k / DCG@k(ideal), the ideal ranking sorting every row of the query by gain
    (JK 2002, eq. 4-5; McSherry & Najork 2008, Sec. 2.6: ties do not affect the ideal).

    Parameters
    ----------
    {inputs}
    {k}
    {gain}
    {discount}
    {ties}
    {empty}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> from rankmetrics import ndcg
    >>> ndcg([2, 0, 0], [1.0, 1.0, 1.0], k=1).round(4)   # LightGBM says 1.0 or 0.0 by row order
    array([0.3333])
    >>> ndcg([[3, 2, 0], [0, 1, 1]], [[0.1, 0.2, 0.3], [0.5, 0.5, 0.4]]).round(4)
    array([0.6064, 0.8066])
    """)
def ndcg(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
         k: int | None = None, gain: GainLike = "exponential", discount: DiscountLike = "log",
         log_base: float = 2, ties: str = "average", empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.ndcg(scores, k=k, gain=gain, discount=discount, log_base=log_base, ties=ties,
                     empty=empty)


@_doc("""Precision at k per query: expected relevant documents in the top k, divided by k.

    Tie-aware form (McSherry & Najork 2008, Sec. 2.1): (R_c + (k - t_c) r_c / n_c) / k. The
    divisor is k even when the list is shorter (as trec_eval). k=None uses the list length.

    Parameters
    ----------
    {inputs}
    {k}
    {threshold}
    {ties}
    {empty}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> from rankmetrics import precision
    >>> precision([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.5], k=2)   # 1 + 1/3 relevant in the top 2
    array([0.66666667])
    """)
def precision(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
              k: int | None = None, threshold: float = 1, ties: str = "average",
              empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.precision(scores, k=k, threshold=threshold, ties=ties, empty=empty)


@_doc("""Recall at k per query: expected relevant documents in the top k over all relevant ones.

    McSherry & Najork 2008, Sec. 2.2. The recall base R is every relevant row of the query.

    Parameters
    ----------
    {inputs}
    {k}
    {threshold}
    {ties}
    {empty}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> from rankmetrics import recall
    >>> recall([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.5], k=2).round(4)
    array([0.6667])
    """)
def recall(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
           k: int | None = None, threshold: float = 1, ties: str = "average",
           empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.recall(scores, k=k, threshold=threshold, ties=ties, empty=empty)


@_doc("""F-beta at k per query: (1 + beta^2) c / (beta^2 R + k).

    c is the (expected) number of relevant documents in the top k and R the number of relevant
    documents of the query. F-beta is linear in c, so averaging over tied orderings is exact
    (McSherry & Najork 2008, Sec. 2.3, for beta = 1).

    Parameters
    ----------
    {inputs}
    beta : float > 0, default 1.0
        Weight of recall relative to precision.
    {k}
    {threshold}
    {ties}
    {empty}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> from rankmetrics import fbeta
    >>> fbeta([1, 0, 1], [3, 2, 1], k=1, beta=2.0).round(4)
    array([0.5556])
    """)
def fbeta(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
          beta: float = 1.0, k: int | None = None, threshold: float = 1, ties: str = "average",
          empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.fbeta(scores, beta=beta, k=k, threshold=threshold, ties=ties, empty=empty)


@_doc("""F1 at k per query: 2 c / (R + k) (McSherry & Najork 2008, Sec. 2.3).

    Parameters
    ----------
    {inputs}
    {k}
    {threshold}
    {ties}
    {empty}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> from rankmetrics import f1
    >>> f1([1, 0, 1], [3, 2, 1], k=2)
    array([0.5])
    """)
def f1(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
       k: int | None = None, threshold: float = 1, ties: str = "average",
       empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.f1(scores, k=k, threshold=threshold, ties=ties, empty=empty)


@_doc("""Average precision (at k) per query, exact under tied scores.

    AP@k = (1/d) sum_(j<=k) rel_j P@j. With ties="average" each position j of tie group i adds
    (r_i/n_i) (R_i + 1 + (j - t_i - 1)(r_i - 1)/(n_i - 1)) / j (McSherry & Najork 2008, Sec. 2.4;
    the fraction is 0 for a group of one).

    Parameters
    ----------
    {inputs}
    {k}
    {threshold}
    {ties}
    {empty}
    denominator : {{"relevant", "min_k_relevant", "found"}}, default "relevant"
        d = R, the relevant documents of the query (trec_eval, McSherry & Najork), min(k, R)
        (the lecture slides' AP@k), or "found": the relevant documents in the top k
        (torchmetrics' ``retrieval_average_precision(..., top_k=k)``, 0 when none is found).
        Under ties d is then random too; the value is the exact E[sum / d], conditioning on
        how many relevant documents of the tie group at rank k fall inside (hypergeometric;
        see :mod:`rankmetrics.core.found`), and "optimistic"/"pessimistic" give the exact
        maximum/minimum over orderings.

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> from rankmetrics import average_precision
    >>> average_precision([1, 0, 1], [3, 2, 1]).round(4)          # (1/1 + 2/3) / 2
    array([0.8333])
    >>> average_precision([1, 1, 0], [1, 1, 1]).round(4)   # mean of 1, 0.8333 and 0.5833
    array([0.8056])
    """)
def average_precision(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
                      k: int | None = None, threshold: float = 1, ties: str = "average",
                      empty: float | str = 0.0, denominator: str = "relevant") -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.average_precision(scores, k=k, threshold=threshold, ties=ties, empty=empty,
                                  denominator=denominator)


@_doc("""Reciprocal rank (at k) per query: 1 / rank of the first relevant document, 0 if none.

    With ties, the expectation over orderings of the first tie group that holds a relevant
    document: sum over its positions x of P(first relevant at x) / rank, with P(first relevant at
    x) = f(x - 1) - f(x), f(x) the chance that the first x are non-relevant (McSherry & Najork
    2008, Sec. 2.5; their printed final formula uses f where the difference is meant).

    Parameters
    ----------
    {inputs}
    {k}
    {threshold}
    {ties}
    {empty}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> from rankmetrics import reciprocal_rank
    >>> reciprocal_rank([1, 1, 0], [2, 2, 2]).round(4)   # 2/3 * 1 + 1/3 * 1/2
    array([0.8333])
    """)
def reciprocal_rank(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
                    k: int | None = None, threshold: float = 1, ties: str = "average",
                    empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.reciprocal_rank(scores, k=k, threshold=threshold, ties=ties, empty=empty)


@_doc("""R-precision per query: expected relevant documents in ranks 1..R, divided by R.

    R is the number of relevant documents of the query (labels >= threshold). With
    ties="average" the expected count at rank R comes from the kernel's prefix sums of the
    tie-group mean relevance, which is exact (McSherry & Najork 2008, Sec. 2.1, at k = R);
    trec_eval's ``Rprec``.

    Parameters
    ----------
    {inputs}
    {threshold}
    {ties}
    {empty}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> from rankmetrics import r_precision
    >>> r_precision([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1])   # R = 2: 1 + 1/2 relevant in the top 2
    array([0.75])
    """)
def r_precision(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
                threshold: float = 1, ties: str = "average",
                empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.r_precision(scores, threshold=threshold, ties=ties, empty=empty)


@_doc("""Success at k per query: 1 if a relevant document is within the top k, else 0.

    With ties, the probability over tied orderings that one is: the reciprocal-rank terms
    P(first relevant at rank i) / i of McSherry & Najork (2008, Sec. 2.5) times i, summed to k.
    trec_eval's ``success_k`` (ir_measures ``Success@k``).

    Parameters
    ----------
    {inputs}
    {k}
    {threshold}
    {ties}
    {empty}

    {returns}
        In [0, 1].

    {raises}

    Examples
    --------
    >>> from rankmetrics import success
    >>> success([0, 1, 0], [0.9, 0.5, 0.5], k=2)   # the relevant one is 2nd or 3rd
    array([0.5])
    """)
def success(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
            k: int | None = None, threshold: float = 1, ties: str = "average",
            empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.success(scores, k=k, threshold=threshold, ties=ties, empty=empty)


@_doc("""Expected reciprocal rank (at k) per query (Chapelle, Metzler, Zhang & Grinspan 2009),
    exact under tied scores.

    A user scans the ranking and stops at rank r with the stop probability R_r of the document
    there, R = (2**g - 1) / 2**max_grade for a label (grade) g; ERR is the expected reciprocal
    of the stopping rank.

    Parameters
    ----------
    {inputs}
    {k}
    max_grade : float > 0, default 4
        g_max of the stop probability; labels are the grades g, in [0, max_grade]. 4 is
        gdeval's ``$MAX_JUDGMENT``, the evaluator behind ir_measures' ``ERR@k`` (TREC Web
        track), so the default gives its number.
    ties : {{"average", "optimistic", "pessimistic", "stable"}}, default "average"
        "average": the exact mean over every ordering of tied scores: within a tie group the
        probability of stopping at its j-th position is ebar_(j-1) - ebar_j, the difference of
        adjacent elementary symmetric means of the group's continue probabilities 1 - R
        (derived in :mod:`rankmetrics.core.err`, checked by brute force);
        "optimistic"/"pessimistic": larger/smaller stop probability first inside every tie
        group (the best/worst ordering, by an exchange argument); "stable": input order.
    {empty}

    Returns
    -------
    ndarray of float64, shape (n_queries,)
        One value per query, in the order of ``np.unique(qid)``; in [0, 1].

    Raises
    ------
    ValueError
        As the other measures, and a label above ``max_grade`` (its stop probability would
        exceed 1; gdeval rejects labels above 4 too) or ``max_grade <= 0``.
    TypeError
        Non-numeric input or a cutoff that is not an int.

    Notes
    -----
    ERR@k = sum_(r <= k) R_r / r * prod_(i < r) (1 - R_i) (Chapelle et al. 2009, eq. 4, with the
    stop probability of their Sec. 4). gdeval (and so ir_measures) orders tied scores by
    document id descending; pass ``ties="stable"`` on rows in that order to reproduce it.

    References
    ----------
    O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected reciprocal rank for graded
    relevance", CIKM 2009, eq. 4.

    Examples
    --------
    >>> from rankmetrics import err
    >>> err([4, 0, 2], [0.9, 0.5, 0.1]).round(4)        # 15/16 + (1/16)(3/16)/3
    array([0.9414])
    >>> err([1, 0], [0.5, 0.5], max_grade=1)            # R = 1/2 at rank 1 or 2: (1/2 + 1/4) / 2
    array([0.375])
    """)
def err(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
        k: int | None = None, max_grade: float = 4, ties: str = "average",
        empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.err(scores, k=k, max_grade=max_grade, ties=ties, empty=empty)


@_doc("""Rank-biased precision (at k) per query (Moffat & Zobel 2008), exact under tied scores.

    RBP = (1 - p) sum_i r_i p**(i - 1): a user goes on from rank i to rank i + 1 with
    probability p (the persistence); 1 / (1 - p) is the expected number of ranks seen.

    Parameters
    ----------
    {inputs}
    p : float in (0, 1), default 0.8
        The persistence (ir_measures' and trectools' default).
    {k}
    threshold : float, optional
        Binary RBP: r_i = 1 when the label is >= threshold. None (default): graded RBP with
        r_i = the label itself, as ir_measures' ``RBP`` (trectools) and ranx's ``rbp`` compute
        it -- with labels above 1 RBP can exceed 1; Moffat & Zobel's r_i is in [0, 1].
    {ties}
    {empty}

    Returns
    -------
    ndarray of float64, shape (n_queries,)
        One value per query, in the order of ``np.unique(qid)``; in [0, 1] for labels in
        [0, 1], below max label otherwise.

    {raises}

    Notes
    -----
    A geometric discount on a gain: with ties="average" every position of a tie group carries
    the group's mean r (McSherry & Najork 2008), times (1 - p) p**(i - 1). The residual (the
    RBP weight unjudged documents and the unranked tail could add) needs qrels: it is the
    measure ``RBP_residual`` of :func:`rankmetrics.trec.evaluate`.

    References
    ----------
    A. Moffat and J. Zobel, "Rank-biased precision for measurement of retrieval
    effectiveness", ACM TOIS 27(1), 2008 (the definition of RBP and of its residual).

    Examples
    --------
    >>> from rankmetrics import rbp
    >>> rbp([1, 0, 1, 1, 0], [5, 4, 3, 2, 1]).round(4)   # 0.2 (1 + 0.8**2 + 0.8**3)
    array([0.4304])
    >>> rbp([1, 0], [1, 1], p=0.5)                       # 0.5 * (1 + 0.5) / 2
    array([0.375])
    """)
def rbp(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
        p: float = 0.8, k: int | None = None, threshold: float | None = None,
        ties: str = "average", empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.rbp(scores, p=p, k=k, threshold=threshold, ties=ties, empty=empty)


# ------------------------------------------------------------------------------- means
_SCORE_DOC = """Mean of :func:`{name}` over queries (scikit-learn style), a float.

    Parameters
    ----------
    y_true, y_score, qid
        As in :func:`{name}`.
    query_weight : array-like of shape (n_queries,), optional
        Non-negative weight of each query, in the order of ``np.unique(qid)``.
    **kwargs
        Every keyword of :func:`{name}` ({keywords}).

    Returns
    -------
    float
        The weighted mean over queries; queries with NaN (``empty="skip"``) are left out. NaN with
        a warning when no query remains.

    Raises
    ------
    ValueError, TypeError
        As :func:`{name}`, and for a ``query_weight`` of the wrong shape or with negative values.
    """


_SKLEARN_NOTE = """
    Notes
    -----
    ``{score}`` is scikit-learn's name and gives scikit-learn's number by default: linear gain
    (the label itself), as ``sklearn.metrics.{score}`` (with ``ignore_ties=False``, its
    tie-averaged form), so on scikit-learn's 2-D layout the two agree. Every other keyword
    keeps :func:`{name}`'s default; pass ``gain="exponential"`` for 2**l - 1 (LightGBM's gain,
    the default of :func:`{name}`). ``sample_weight`` is scikit-learn's spelling of
    ``query_weight`` (one weight per row of the 2-D layout, i.e. per query).
    ``ignore_ties=False`` (scikit-learn's default) is ``ties="average"``, scikit-learn's
    tie-averaged form; ``ignore_ties=True`` is ``ties="stable"`` (row order within ties, where
    scikit-learn's order of tied scores is its sort's; equal without ties). A ValueError here,
    where ``sklearn.metrics.dcg_score`` gives a number: negative labels (graded relevance is
    >= 0; scikit-learn's ``ndcg_score`` refuses them too) and ``log_base`` <= 1 (its
    ``dcg_score`` takes any base > 0; its ``ndcg_score`` has no ``log_base``).
"""


def _two_d_columns(y_true: ArrayLike) -> int:
    """Columns of a 2-D ``y_true`` (2 for any other input: ragged nested lists are left to
    the measure, whose conversion error names ``y_true``)."""
    try:
        shape = np.shape(y_true)
    except ValueError:  # ragged nested lists: numpy cannot give them a shape
        return 2
    return int(shape[1]) if len(shape) == 2 else 2


def _mean_form(fn: Callable[..., Values], *, defaults: dict[str, Any] | None = None,
               name: str | None = None) -> Callable[..., float]:
    preset = dict(defaults or {})

    def score(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
              query_weight: ArrayLike | None = None, **kwargs: Any) -> float:
        weight_name = "query_weight"
        if preset and "sample_weight" in kwargs:
            if query_weight is not None:
                raise TypeError("pass query_weight or sample_weight, not both")
            query_weight = kwargs.pop("sample_weight")
            weight_name = "sample_weight"
        if preset and "ignore_ties" in kwargs:  # scikit-learn's switch
            ignore = kwargs.pop("ignore_ties")
            ignore = check_flag("ignore_ties", ignore)
            if "ties" in kwargs:
                raise TypeError("pass ties or ignore_ties, not both")
            kwargs["ties"] = "stable" if ignore else "average"
        if preset and qid is None and _two_d_columns(y_true) <= 1:
            # scikit-learn's ndcg_score and dcg_score refuse this layout
            raise ValueError(
                f"y_true: computing {fn.__name__.upper()} is only meaningful when there is more "
                f"than 1 document per row of the 2-D layout; got shape {np.shape(y_true)} (as "
                f"sklearn.metrics.{score.__name__}; for queries of one document pass flat "
                "input with qid)"
            )
        values = fn(y_true, y_score, qid, **{**preset, **kwargs})
        return weighted_mean(values, query_weight, values.shape[0], weight_name)

    score.__name__ = score.__qualname__ = name or f"{fn.__name__}_score"
    keywords = ", ".join(n for n, p in inspect.signature(fn).parameters.items()
                         if p.kind is inspect.Parameter.KEYWORD_ONLY)
    doc = _SCORE_DOC.format(name=fn.__name__, keywords=keywords)
    if preset:
        doc += _SKLEARN_NOTE.format(score=score.__name__, name=fn.__name__)
    score.__doc__ = doc
    score.__module__ = __name__
    return score


cg_score = _mean_form(cg)
dcg_score = _mean_form(dcg, defaults={"gain": "linear"})
ncg_score = _mean_form(ncg)
ndcg_score = _mean_form(ndcg, defaults={"gain": "linear"})
reciprocal_rank_score = _mean_form(reciprocal_rank)
r_precision_score = _mean_form(r_precision)
success_score = _mean_form(success)
err_score = _mean_form(err)
rbp_score = _mean_form(rbp)
# scikit-learn's precision_score, recall_score, f1_score, fbeta_score and
# average_precision_score are classification metrics: ours are spelled mean_*.
mean_precision_score = _mean_form(precision, name="mean_precision_score")
mean_recall_score = _mean_form(recall, name="mean_recall_score")
mean_f1_score = _mean_form(f1, name="mean_f1_score")
mean_fbeta_score = _mean_form(fbeta, name="mean_fbeta_score")
mean_average_precision_score = _mean_form(average_precision,
                                          name="mean_average_precision_score")
_NEW = {f.__name__: f for f in (mean_precision_score, mean_recall_score, mean_f1_score,
                                mean_fbeta_score, mean_average_precision_score)}
#: old name -> new name (the old names warn FutureWarning and give the same number)
RENAMED = {"precision_score": "mean_precision_score", "recall_score": "mean_recall_score",
           "f1_score": "mean_f1_score", "fbeta_score": "mean_fbeta_score",
           "average_precision_score": "mean_average_precision_score"}


def _old(old: str) -> Callable[..., float]:
    new = RENAMED[old]
    target = _NEW[new]

    def alias(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None,
              **kwargs: Any) -> float:
        warnings.warn(
            f"rankmetrics.{old} is the mean of a ranking measure over queries, not "
            f"scikit-learn's classification metric of that name; it is now spelled "
            f"rankmetrics.{new} (the old name keeps working and gives the same number)",
            FutureWarning, stacklevel=2)
        return target(y_true, y_score, qid, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = (
        f"Old name of :func:`{new}` (same number); warns FutureWarning.\n\n"
        f"    scikit-learn's ``{old}`` is a classification metric; this one is the mean over\n"
        "    queries of a ranking measure, hence the new name.\n\n"
        "    Returns\n    -------\n    float\n\n"
        "    Raises\n    ------\n    ValueError, TypeError\n"
        f"        As :func:`{new}`.\n"
    )
    alias.__module__ = __name__
    return alias


precision_score = _old("precision_score")
recall_score = _old("recall_score")
f1_score = _old("f1_score")
fbeta_score = _old("fbeta_score")
average_precision_score = _old("average_precision_score")


# ------------------------------------------------------------------------------- curves
_CURVE_DOC = """{title} per query at every rank 1..depth (Järvelin & Kekäläinen 2002, {eq}).

    Column i - 1 holds the expected (tie-averaged, with ties="average") cumulated value at rank i;
    past the end of a short list the vector stays flat.{extra}

    Parameters
    ----------
    {{inputs}}
    depth : int >= 1
        Length of the vectors.
    {{gain}}{disc}
    {{ties}}{empty}

    Returns
    -------
    ndarray of float64, shape (n_queries, depth)
        Rows in the order of ``np.unique(qid)``.

    {{raises}}
    """


def _curve_doc(title: str, eq: str, extra: str = "", disc: bool = False, empty: bool = False):
    text = _CURVE_DOC.format(
        title=title, eq=eq, extra=extra, disc="\n    {discount}" if disc else "",
        empty="\n    {empty}" if empty else "",
    )
    return _doc(text)


@_curve_doc("Cumulated gain vector", "eq. 1")
def cg_curve(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
             depth: int, gain: GainLike = "exponential", ties: str = "average") -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.cg_curve(scores, depth=depth, gain=gain, ties=ties)


@_curve_doc("Discounted cumulated gain vector", "eq. 2", disc=True)
def dcg_curve(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
              depth: int, gain: GainLike = "exponential", discount: DiscountLike = "log",
              log_base: float = 2, ties: str = "average") -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.dcg_curve(scores, depth=depth, gain=gain, discount=discount, log_base=log_base,
                          ties=ties)


@_curve_doc("Normalised CG vector", "eq. 5", " Divided rank by rank by the ideal CG vector of the "
            "query's recall base (eq. 4).", empty=True)
def ncg_curve(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
              depth: int, gain: GainLike = "exponential", ties: str = "average",
              empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.ncg_curve(scores, depth=depth, gain=gain, ties=ties, empty=empty)


@_curve_doc("Normalised DCG vector", "eq. 5", " Divided rank by rank by the ideal DCG vector of "
            "the query's recall base (eq. 4).", disc=True, empty=True)
def ndcg_curve(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
               depth: int, gain: GainLike = "exponential", discount: DiscountLike = "log",
               log_base: float = 2, ties: str = "average", empty: float | str = 0.0) -> Values:
    plan, scores = _plan(y_true, y_score, qid)
    return plan.ndcg_curve(scores, depth=depth, gain=gain, discount=discount, log_base=log_base,
                           ties=ties, empty=empty)


def ideal_cg_curve(y_true: ArrayLike, qid: ArrayLike | None = None, *, depth: int,
                   gain: GainLike = "exponential") -> Values:
    """Ideal CG vector per query: gains of all rows sorted descending, cumulated (JK 2002, eq. 4).

    Parameters
    ----------
    y_true, qid
        As in :func:`cg_curve`.
    depth : int >= 1
    gain
        As in :func:`cg_curve`.

    Returns
    -------
    ndarray of float64, shape (n_queries, depth)

    Raises
    ------
    ValueError, TypeError
        As :func:`cg_curve`.

    Examples
    --------
    >>> from rankmetrics import ideal_cg_curve
    >>> ideal_cg_curve([0, 2, 1], depth=4, gain="linear")
    array([[2., 3., 3., 3.]])
    """
    return QueryPlan(y_true, qid).ideal_cg_curve(depth=depth, gain=gain)


def ideal_dcg_curve(y_true: ArrayLike, qid: ArrayLike | None = None, *, depth: int,
                    gain: GainLike = "exponential", discount: DiscountLike = "log",
                    log_base: float = 2) -> Values:
    """Ideal DCG vector per query (JK 2002, eq. 4 with eq. 2's discount).

    Parameters
    ----------
    y_true, qid
        As in :func:`dcg_curve`.
    depth : int >= 1
    gain, discount, log_base
        As in :func:`dcg_curve`.

    Returns
    -------
    ndarray of float64, shape (n_queries, depth)

    Raises
    ------
    ValueError, TypeError
        As :func:`dcg_curve`.

    Examples
    --------
    >>> from rankmetrics import ideal_dcg_curve
    >>> ideal_dcg_curve([0, 1, 1], depth=2, gain="linear", discount="jarvelin2002")
    array([[1., 2.]])
    """
    return QueryPlan(y_true, qid).ideal_dcg_curve(depth=depth, gain=gain, discount=discount,
                                                  log_base=log_base)
