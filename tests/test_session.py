"""Session DCG (Järvelin et al. 2008): hand-computed sessions, brute force over tie orderings."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from _extras import require
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmetrics as rm
from rankmetrics.session import evaluate_sessions, query_discount, read_session_run, session_dcg

D2 = [1.0, 0.5, 1 / (1 + math.log2(3))]  # jarvelin2008 discount, b = 2, ranks 1..3
QD4 = [1.0, 1 / 1.5, 1 / (1 + math.log(3, 4))]  # query discount, bq = 4, positions 1..3


def approx(x):
    return pytest.approx(np.asarray(x, dtype=float), abs=1e-12, rel=1e-12)


# ------------------------------------------------------------------------- single query
def test_paper_appendix_example_b4_corrected():
    # Järvelin et al. 2008 appendix: G' = <3,2,3,0,0,1,2,2,3,0>, b = 4. The printed vector has two
    # slips (NOTES.md); the formula gives these values.
    g = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    r = session_dcg(g, -np.arange(10.0), ["s"] * 10, [1] * 10, doc=list("abcdefghij"),
                    depth=10, gain="linear", log_base=4)
    expect = [3, 4.33, 6.01, 6.01, 6.01, 6.44, 7.28, 8.08, 9.24, 9.24]
    assert r.curve[0] == pytest.approx(expect, abs=0.005)


@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic", "stable"])
@pytest.mark.parametrize("depth", [1, 3, 8])
def test_single_query_session_is_dcg_curve_jarvelin2008(ties, depth):
    rng = np.random.default_rng(depth)
    y = rng.integers(0, 4, size=8)
    s = rng.integers(0, 3, size=8).astype(float)  # many ties
    r = session_dcg(y, s, np.zeros(8), np.ones(8), ideal_labels={0: y}, depth=depth, ties=ties)
    dc = rm.dcg_curve(y, s, depth=depth, discount="jarvelin2008", ties=ties)
    ideal = rm.ideal_dcg_curve(y, depth=depth, discount="jarvelin2008")
    assert r.curve == approx(dc)
    assert r.ideal == approx(ideal)
    assert r.normalised == approx(rm.ndcg_curve(y, s, depth=depth, discount="jarvelin2008",
                                                ties=ties))
    assert r.final_gain == approx(rm.dcg(y, s, k=depth, discount="jarvelin2008", ties=ties))
    assert r.query_gain[:, 0] == approx(r.final_gain)


def test_query_discount_values():
    assert query_discount(3, 4) == approx(QD4)
    assert query_discount(3, 2) == approx([1, 0.5, 1 / (1 + math.log2(3))])
    with pytest.raises(ValueError, match="query_log_base must be > 1"):
        query_discount(3, 1.0)
    # numpy's MemoryError "Unable to allocate 14.6 TiB" naming nothing (or, allocated lazily,
    # a process killed while filling it): now a ValueError naming n_queries
    with pytest.raises(ValueError, match=r"n_queries=2000000000000 asks for .* memory"):
        query_discount(2 * 10**12)


# --------------------------------------------------------------------------- two queries
def _two_query(pad, **kw):
    # q1 returns [a(3), b(0)] (a short list), q2 returns [c(1), d(2), a(3)]; X = 3, linear gain.
    return session_dcg([3, 0, 1, 2, 3], [2, 1, 3, 2, 1], ["s"] * 5, [1, 1, 2, 2, 2],
                       doc=list("abcda"), ideal_labels={"s": [3, 2, 1, 0, 1]}, depth=3,
                       gain="linear", pad=pad, **kw)


def test_two_queries_padded_by_hand():
    r = _two_query(True)
    q2 = np.array([1, 1 + 2 * D2[1], 1 + 2 * D2[1] + 3 * D2[2]]) * QD4[1]
    assert r.curve[0] == approx([3, 3, 3, *(3 + q2)])
    i1 = np.array([3, 3 + 2 * D2[1], 3 + 2 * D2[1] + 1 * D2[2]])
    assert r.ideal[0] == approx([*i1, *(i1[-1] + QD4[1] * i1)])
    assert r.normalised[0] == approx(r.curve[0] / r.ideal[0])
    assert r.lengths.tolist() == [6] and r.n_queries.tolist() == [2]
    assert r.query_gain[0] == approx([3, q2[-1]])
    assert r.final_gain == approx([3 + q2[-1]])
    assert r.average_gain() == approx([np.mean(r.curve[0])])
    assert r.query_curves[0, 1] == approx(q2)


def test_two_queries_unpadded_by_hand():
    r = _two_query(False)
    q2 = np.array([1, 1 + 2 * D2[1], 1 + 2 * D2[1] + 3 * D2[2]]) * QD4[1]
    assert r.curve[0] == approx([3, 3, *(3 + q2)])
    # the ideal copy of query 1 is cut to the list's 2 positions: [3, 4]
    assert r.ideal[0] == approx([3, 4, *(4 + QD4[1] * np.array([3, 4, 4 + D2[2]]))])
    assert r.lengths.tolist() == [5]
    assert r.normalised[0] == approx([1, 0.75, *((3 + q2) / (4 + QD4[1] * np.array(
        [3, 4, 4 + D2[2]])))])


def test_empty_list_between_queries():
    # queries 1 and 3 returned documents; query 2 returned nothing (a missing sequence number)
    kw = dict(doc=["a", "b"], ideal_labels={"s": [2, 1]}, depth=2, gain="linear")
    r = session_dcg([1, 2], [1.0, 1.0], ["s", "s"], [1, 3], **kw)
    q3 = 2 * QD4[2]
    assert r.curve[0] == approx([1, 1, 1, 1, 1 + q3, 1 + q3])
    assert r.n_queries.tolist() == [3]
    assert r.query_gain[0] == approx([1, 0, q3])
    i1 = np.array([2, 2.5])
    assert r.ideal[0] == approx([*i1, *(2.5 + QD4[1] * i1), *(2.5 + QD4[1] * 2.5 + QD4[2] * i1)])
    u = session_dcg([1, 2], [1.0, 1.0], ["s", "s"], [1, 3], pad=False, **kw)
    assert u.curve[0] == approx([1, 1 + q3])
    assert u.ideal[0] == approx([2, 2 + QD4[2] * 2])
    assert u.lengths.tolist() == [2]


# ------------------------------------------------------------------------- three queries
def test_three_queries_bq2_by_hand():
    r = session_dcg([1, 0, 2], [1, 1, 1], ["s"] * 3, [1, 2, 3], doc=["a", "b", "c"],
                    ideal_labels={"s": [2, 1, 0]}, depth=1, gain="linear", query_log_base=2)
    qd = [1, 0.5, 1 / (1 + math.log2(3))]
    assert r.curve[0] == approx([1, 1, 1 + 2 * qd[2]])
    assert r.ideal[0] == approx([2, 3, 3 + 2 * qd[2]])
    assert r.normalised[0] == approx(np.array([1, 1, 1 + 2 * qd[2]]) / [2, 3, 3 + 2 * qd[2]])
    assert r.final_gain == approx([1 + 2 * qd[2]])
    assert r.average_gain() == approx([(1 + 1 + 1 + 2 * qd[2]) / 3])
    assert r.query_gain[0] == approx([1, 0, 2 * qd[2]])


def test_three_queries_weights_0_1_10_100():
    # the paper's weights; X = 2, b = 2, bq = 4
    r = session_dcg([3, 1, 2, 0, 3], [5, 4, 5, 4, 5], ["s"] * 5, [1, 1, 2, 2, 3],
                    doc=["a", "b", "c", "d", "a"], ideal_labels={"s": [3, 2, 1, 0]}, depth=2,
                    gain=[0, 1, 10, 100])
    q = [100 + 1 * 0.5, 10 + 0, 100]
    tot = np.cumsum([q[0], q[1] * QD4[1], q[2] * QD4[2]])
    assert r.curve[0] == approx([100, tot[0], tot[0] + 10 * QD4[1], tot[1],
                                 tot[1] + 100 * QD4[2], tot[2]])
    first = session_dcg([3, 1, 2, 0, 3], [5, 4, 5, 4, 5], ["s"] * 5, [1, 1, 2, 2, 3],
                        doc=["a", "b", "c", "d", "a"], ideal_labels={"s": [3, 2, 1, 0]},
                        depth=2, gain=[0, 1, 10, 100], duplicates="first")
    assert first.curve[0] == approx([100, tot[0], tot[0] + 10 * QD4[1], tot[1], tot[1],
                                     tot[1]])
    assert first.ideal[0] == approx(r.ideal[0])  # the ideal ignores duplicates (paper)


# ---------------------------------------------------------------------------- duplicates
def test_duplicates_all_vs_first_by_hand():
    args = ([2, 1, 2, 1], [2, 1, 2, 1], ["s"] * 4, [1, 1, 2, 2])
    kw = dict(doc=["a", "b", "a", "c"], depth=2, gain="linear")
    every = session_dcg(*args, **kw)
    first = session_dcg(*args, duplicates="first", **kw)
    assert every.curve[0] == approx([2, 2.5, 2.5 + QD4[1] * 2, 2.5 + QD4[1] * 2.5])
    assert first.curve[0] == approx([2, 2.5, 2.5, 2.5 + QD4[1] * 0.5])
    # ideal from the distinct documents of the session: a(2), b(1), c(1)
    assert every.ideal[0, :2] == approx([2, 2.5])


def test_duplicate_below_depth_was_not_seen():
    # a is at rank 2 of query 1, outside the top X = 1: the searcher never saw it
    args = ([1, 2, 2], [2, 1, 1], ["s"] * 3, [1, 1, 2])
    kw = dict(doc=["b", "a", "a"], depth=1, gain="linear")
    assert session_dcg(*args, duplicates="first", **kw).curve == approx(
        session_dcg(*args, **kw).curve)
    assert session_dcg(*args, **kw).curve[0] == approx([1, 1 + 2 * QD4[1]])


def test_duplicates_first_under_ties():
    # query 1: a and b tie for rank 1 of X = 1, so a was seen with probability 1/2
    args = ([2, 0, 2], [1, 1, 1], ["s"] * 3, [1, 1, 2])
    kw = dict(doc=["a", "b", "a"], depth=1, gain="linear")
    assert session_dcg(*args, **kw).curve[0] == approx([1, 1 + 2 * QD4[1]])
    assert session_dcg(*args, duplicates="first", **kw).curve[0] == approx(
        [1, 1 + 0.5 * 2 * QD4[1]])
    # stable: input order puts a first, so it was seen
    assert session_dcg(*args, duplicates="first", ties="stable", **kw).curve[0] == approx([2, 2])


# --------------------------------------------------------------------- several sessions
def test_sessions_of_different_lengths_are_held_flat():
    y = [1, 1, 1, 1]
    r = session_dcg(y, [1, 1, 1, 1], ["long", "long", "long", "short"], [1, 2, 3, 1],
                    doc=list("abca"), depth=1, gain="linear")
    assert r.sessions.tolist() == ["long", "short"]
    assert r.curve.shape == (2, 3)
    assert r.curve[1] == approx([1, 1, 1])
    assert r.ideal[1] == approx([1, 1, 1])
    assert r.curve[0] == approx(np.cumsum(QD4))
    assert np.isnan(r.query_gain[1, 1:]).all() and np.isnan(r.query_curves[1, 1:]).all()
    assert r.lengths.tolist() == [3, 1]
    assert r.average_gain() == approx([np.mean(np.cumsum(QD4)), 1])
    assert r.extended(5)[1] == approx([1] * 5)
    with pytest.raises(ValueError, match="width must be >= the vectors' width 3"):
        r.extended(2)
    frame = r.to_frame()
    assert frame.loc["long", "n_queries"] == 3
    assert frame["final_normalised"].tolist() == approx([1, 1])


def test_session_order_and_row_order_do_not_matter():
    rng = np.random.default_rng(3)
    n = 40
    y = rng.integers(0, 3, n)
    s = rng.integers(0, 3, n).astype(float)
    sess = rng.integers(0, 4, n)
    q = rng.integers(1, 4, n)
    doc = np.array([f"d{i}" for i in range(n)])
    a = session_dcg(y, s, sess, q, doc=doc, depth=3)
    p = rng.permutation(n)
    b = session_dcg(y[p], s[p], sess[p], q[p], doc=doc[p], depth=3)
    assert a.curve == approx(b.curve) and a.normalised == approx(b.normalised)


# ------------------------------------------------------------------------- empty topics
def test_empty_rule_for_sessions_without_relevant_documents():
    args = ([0, 1], [1, 1], ["none", "some"], [1, 1])
    kw = dict(doc=["a", "b"], depth=2, gain="linear")
    assert session_dcg(*args, **kw).normalised[0] == approx([0, 0])
    assert session_dcg(*args, empty=1.0, **kw).normalised[0] == approx([1, 1])
    assert np.isnan(session_dcg(*args, empty="skip", **kw).normalised[0]).all()
    assert session_dcg(*args, empty="skip", **kw).normalised[1] == approx([1, 1])
    with pytest.raises(ValueError, match=r"sessions \['none'\] have no relevant document"):
        session_dcg(*args, empty="error", **kw)


# -------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        (dict(duplicates="first", doc=None, ideal_labels={"s": [1]}), ValueError,
         "duplicates='first' needs doc="),
        (dict(duplicates="first", ties="optimistic"), ValueError,
         "duplicates='first' is defined for ties='average' or 'stable'"),
        (dict(duplicates="once"), ValueError, "duplicates must be one of 'all', 'first'"),
        (dict(query_log_base=1), ValueError, "query_log_base must be > 1"),
        (dict(depth=0), ValueError, "depth must be a positive int"),
        (dict(depth=2.5), TypeError, "depth must be a positive int"),
        (dict(doc=None), ValueError, "pass ideal_labels="),
        (dict(ideal_labels={"t": [1]}), ValueError, "ideal_labels has no recall base for "
         "session 's'"),
        (dict(ideal_labels={"s": [-1]}), ValueError, "must be non-negative"),
        (dict(ties="random"), ValueError, "ties must be one of"),
        (dict(pad="yes"), TypeError, "pad must be True or False"),
    ],
)
def test_argument_errors(kwargs, exc, match):
    base = dict(doc=["a", "b"])
    base.update(kwargs)
    with pytest.raises(exc, match=match):
        session_dcg([1, 0], [1, 0], ["s", "s"], [1, 2], **base)


@pytest.mark.parametrize(
    ("query", "exc", "match"),
    [
        ([0, 1], ValueError, "query sequence numbers must be >= 1"),
        ([1.5, 1], ValueError, "must be integers; found 1.5"),
        (["1", "2"], TypeError, "query must hold integer sequence numbers"),
        ([1], ValueError, "one sequence number per row"),
        ([1, 10**6], ValueError, "is too large"),
        # a missing number (NaN, pd.NA of an Int64 column) was a TypeError "got dtype float64"
        ([1, float("nan")], ValueError, "must be finite integers \\(none missing\\); found nan"),
    ],
)
def test_query_number_errors(query, exc, match):
    with pytest.raises(exc, match=match):
        session_dcg([1, 0], [1, 0], ["s", "s"], query, doc=["a", "b"])


def test_query_numbers_in_an_object_array():
    # Python ints in an object array (a pandas object column) were refused: "got dtype object"
    want = session_dcg([1, 0], [1, 0], ["s", "s"], [1, 2], doc=["a", "b"])
    for q in (np.array([1, 2], dtype=object), np.array([1, 2.0], dtype=object)):
        got = session_dcg([1, 0], [1, 0], ["s", "s"], q, doc=["a", "b"])
        np.testing.assert_array_equal(got.curve, want.curve)
    for bad in (np.array([1, None], dtype=object), np.array([True, 1], dtype=object),
                np.array(["1", 2], dtype=object)):
        with pytest.raises(TypeError, match="query must hold integer sequence numbers"):
            session_dcg([1, 0], [1, 0], ["s", "s"], bad, doc=["a", "b"])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.uint8, np.uint64, np.int8])
def test_query_numbers_of_every_numeric_dtype(dtype):
    # float16 query numbers were compared with the bound 100 000, which float16 cannot hold:
    # a RuntimeWarning (overflow in cast), an error under warnings-as-errors
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = session_dcg([1, 0, 2], [1, 0, 1], ["s", "s", "s"], np.array([1, 1, 2], dtype=dtype),
                        doc=["a", "b", "c"], depth=2, gain="linear")
    ref = session_dcg([1, 0, 2], [1, 0, 1], ["s", "s", "s"], [1, 1, 2], doc=["a", "b", "c"],
                      depth=2, gain="linear")
    np.testing.assert_array_equal(r.curve, ref.curve)


def test_input_errors():
    with pytest.raises(ValueError, match="a document appears twice in the list of session 's', "
                       "query 1"):
        session_dcg([1, 0], [1, 0], ["s", "s"], [1, 1], doc=["a", "a"])
    with pytest.raises(ValueError, match="same length"):
        session_dcg([1, 0], [1], ["s", "s"], [1, 1], doc=["a", "b"])
    with pytest.raises(ValueError, match="y_true is empty"):
        session_dcg([], [], [], [], doc=[])
    with pytest.raises(ValueError, match="finite"):
        session_dcg([1], [np.nan], ["s"], [1], doc=["a"])
    with pytest.raises(ValueError, match="session must have one entry per row"):
        session_dcg([1, 0], [1, 0], ["s"], [1, 1], doc=["a", "b"])


# ------------------------------------------------------------------ brute-force oracle
def _oracle(lists, x, pad, duplicates, gains, b=2.0, bq=4.0):
    """Concatenated session vector of one fixed ordering: lists = {q: [(doc, label), ...]}."""
    m = max(lists)
    seen: set[str] = set()
    out: list[float] = []
    total = 0.0
    for q in range(1, m + 1):
        lst = lists.get(q, [])
        qd = 1 / (1 + math.log(q, bq))
        n_pos = x if pad else min(len(lst), x)
        for j in range(1, n_pos + 1):
            if j <= len(lst):
                d, lab = lst[j - 1]
                if duplicates == "all" or d not in seen:
                    total += gains[lab] / (1 + math.log(j, b)) * qd
            out.append(total)
        seen.update(d for d, _ in lst[:x])
    return out


def _orderings(rows):
    """Every ordering of rows [(doc, label, score)] that respects descending scores."""
    rows = sorted(rows, key=lambda r: -r[2])
    groups = [list(g) for _, g in itertools.groupby(rows, key=lambda r: r[2])]
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [(d, lab) for grp in combo for d, lab, _ in grp]


session_rows = st.lists(
    st.tuples(st.integers(1, 3), st.sampled_from("abcd"), st.integers(0, 2), st.integers(0, 2)),
    min_size=1, max_size=7,
)


@settings(max_examples=60, deadline=None)
@given(rows=session_rows, x=st.integers(1, 3), pad=st.booleans(),
       duplicates=st.sampled_from(["all", "first"]))
def test_tie_average_equals_mean_over_orderings(rows, x, pad, duplicates):
    # one row per (query, doc)
    uniq = {(q, d): (lab, sc) for q, d, lab, sc in rows}
    qs = sorted({q for q, _ in uniq})
    per_q = {q: [(d, lab, sc) for (qq, d), (lab, sc) in uniq.items() if qq == q] for q in qs}
    gains = [0.0, 1.0, 3.0]
    combos = itertools.product(*(list(_orderings(per_q[q])) for q in qs))
    vecs = [_oracle(dict(zip(qs, c, strict=True)), x, pad, duplicates, gains) for c in combos]
    keys = list(uniq)
    r = session_dcg([uniq[k][0] for k in keys], [uniq[k][1] for k in keys], ["s"] * len(keys),
                    [k[0] for k in keys], doc=[k[1] for k in keys], depth=x, gain=gains,
                    pad=pad, duplicates=duplicates, ideal_labels={"s": [2, 1]})
    expect = np.mean(vecs, axis=0)
    width = len(expect)
    assert r.lengths[0] == width
    assert r.curve[0, :width] == pytest.approx(expect, abs=1e-9)
    if duplicates == "all":
        for ties, fn in (("optimistic", np.max), ("pessimistic", np.min)):
            rb = session_dcg([uniq[k][0] for k in keys], [uniq[k][1] for k in keys],
                             ["s"] * len(keys), [k[0] for k in keys], doc=[k[1] for k in keys],
                             depth=x, gain=gains, pad=pad, ties=ties, ideal_labels={"s": [2]})
            assert rb.curve[0, :width] == pytest.approx(fn(vecs, axis=0), abs=1e-9)


# ------------------------------------------------------------------------- file format
SESSION_RUN = """\
# session query topic docno rank score tag
s1 1 T1 a 1 3.0 sys
s1 1 T1 b 2 2.0 sys
s1 2 T1 c 1 5.0 sys
s1 2 T1 a 2 4.0 sys
s2 1 T2 x 1 1.0 sys
"""


def test_read_session_run_and_evaluate(tmp_path):
    pd = require("pandas")
    path = tmp_path / "sessions.run"
    path.write_text(SESSION_RUN)
    frame = read_session_run(path)
    assert frame.columns.tolist() == ["session", "query", "topic", "docid", "rank", "score"]
    assert frame["query"].tolist() == [1, 1, 2, 2, 1]
    qrels = pd.DataFrame({"qid": ["T1", "T1", "T1", "T2", "T2"],
                          "docid": ["a", "c", "z", "y", "x"], "label": [2, 1, 3, 1, -1]})
    r = evaluate_sessions(qrels, path, depth=2, gain="linear")
    direct = session_dcg([2, 0, 1, 2, 0], [3, 2, 5, 4, 1], ["s1"] * 4 + ["s2"],
                         [1, 1, 2, 2, 1], doc=list("abcax"),
                         ideal_labels={"s1": [2, 1, 3], "s2": [1, 0]}, depth=2, gain="linear")
    assert r.sessions.tolist() == ["s1", "s2"]
    assert r.curve == approx(direct.curve)
    assert r.ideal == approx(direct.ideal)
    # a DataFrame run without a topic column: topic = session id
    df = frame.drop(columns=["topic", "rank"]).assign(session=["T1"] * 4 + ["T2"])
    r2 = evaluate_sessions(qrels, df, depth=2, gain="linear")
    assert r2.curve == approx(direct.curve)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("s1 1 T1 a 1\n", r"line 1: expected 'SESSION QUERY TOPIC DOCNO RANK SCORE \[TAG\]'"),
        ("s1 x T1 a 1 2.0\n", "line 1: QUERY and RANK must be integers"),
        # a TREC run given where a session run is expected: say so
        ("q1 Q0 d1 1 0.5 tag\n", r"got 'Q0', '0.5' \(is this a TREC run\?"),
        ("\ns1 1 T1 a 1 high\n", "line 2: SCORE must be a number"),
        ("s1 0 T1 a 1 2.0\n", "line 1: QUERY must be >= 1"),
        ("s1 1 T1 a 1 nan\n", "line 1: SCORE must be finite"),
        ("# nothing\n", "no session run lines"),
        # CR-only line ends (old Mac) made one line of 12 fields, read as the first row with
        # the rest taken as its tag: query 2 was dropped silently (the TREC readers refuse it)
        ("s1 1 T1 a 1 2.0\rs1 2 T1 b 1 1.0\n", r"line 1: a carriage return \(CR\) inside"),
        # int() reads "1_0" as query 10 (parse_number refuses it for scores)
        ("s1 1_0 T1 a 1 2.0\n", "line 1: QUERY and RANK must be integers; got '1_0'"),
    ],
)
def test_read_session_run_errors(tmp_path, text, match):
    require("pandas")
    path = tmp_path / "bad.run"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        read_session_run(path)


def test_session_run_file_with_a_document_twice_in_a_list_names_its_lines(tmp_path):
    # the error came from session_dcg and named neither the file nor its lines
    require("pandas")
    path = tmp_path / "dup.run"
    path.write_text("# header\ns1 1 T1 a 1 2.0\ns1 2 T1 b 1 1.0\ns1 2 T1 b 2 0.5\n")
    with pytest.raises(ValueError, match=r"dup\.run, lines 3, 4: document 'b' appears twice "
                                         r"in the list of session 's1', query 2"):
        read_session_run(path)
    # across queries of a session it is a repeat (duplicates=), not an error
    path.write_text("s1 1 T1 a 1 2.0\ns1 2 T1 a 1 1.0\n")
    assert read_session_run(path)["docid"].tolist() == ["a", "a"]


def test_session_run_dataframe_scores_pass_the_core_check():
    # to_numpy(float64) merged int64 scores above 2**53 into a tie (sDCG 3.0, not 3.5, with
    # exponential gain), dropped a complex score's imaginary part and read "3" as 3.0;
    # read_run refuses all three
    pd = require("pandas")
    qrels = pd.DataFrame({"qid": ["t"] * 3, "docid": ["a", "b", "c"], "label": [2, 1, 0]})
    run = pd.DataFrame({"session": ["s"] * 3, "query": [1, 1, 2], "topic": ["t"] * 3,
                        "docid": ["a", "b", "c"], "score": [3.0, 2.0, 5.0]})
    assert evaluate_sessions(qrels, run, gain="linear").final_gain == approx([2.5])
    big = run.assign(score=np.array([2**62 + 1, 2**62, 2**62], dtype=np.int64))
    with pytest.raises(ValueError, match=r"column 'score' has integers of magnitude 2\*\*53"):
        evaluate_sessions(qrels, big)
    with pytest.raises(TypeError, match="column 'score' must be real numbers"):
        read_session_run(run.assign(score=run["score"].astype(complex)))
    with pytest.raises(TypeError, match="column 'score' must be numeric"):
        read_session_run(run.assign(score=["3", "2", "5"]))


def test_session_run_dataframe_with_a_missing_query_number():
    pd = require("pandas")
    run = pd.DataFrame({"session": ["s", "s"], "query": pd.array([1, None], dtype="Int64"),
                        "docid": ["a", "b"], "score": [1.0, 0.5]})
    with pytest.raises(ValueError, match=r"none missing\); found nan"):
        read_session_run(run)


def test_qrels_dataframe_ids_are_read_as_read_qrels_reads_them():
    # a qrels DataFrame with qid/docid/label columns skipped read_qrels: astype(str) made the
    # float id 7.0 "7.0", so no session topic (7 -> "7") matched ("no session's topic has a
    # qrels line"), and a missing label was reported as "ideal_labels['s'] must be finite"
    pd = require("pandas")
    run = pd.DataFrame({"session": ["s", "s"], "query": [1, 1], "topic": [7, 7],
                        "docid": [1, 2], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"qid": [7.0, 7.0], "docid": [1.0, 2.0], "label": [1, 0]})
    assert evaluate_sessions(qrels, run).final_gain == approx([1.0])
    na = pd.DataFrame({"qid": ["7", "7"], "docid": ["1", "2"],
                       "label": pd.array([1, None], dtype="Int64")})
    with pytest.raises(ValueError, match="qrels DataFrame column 'label'"):
        evaluate_sessions(na, run)


def test_session_run_dataframe_rank_is_int64_as_documented():
    # the rank column was returned as given (strings, floats, NaN); the result's rank is int64
    pd = require("pandas")
    run = pd.DataFrame({"session": ["s", "s"], "query": [1, 1], "docid": ["a", "b"],
                        "score": [1.0, 0.5], "rank": [1.0, 2.0]})
    assert read_session_run(run)["rank"].dtype == np.int64
    with pytest.raises(TypeError, match="column 'rank' must hold integers"):
        read_session_run(run.assign(rank=["x", "y"]))
    with pytest.raises(ValueError, match="column 'rank' must hold finite integers"):
        read_session_run(run.assign(rank=pd.array([1, None], dtype="Int64")))


def test_session_with_two_topics_is_rejected():
    pd = require("pandas")
    run = pd.DataFrame({"session": ["s", "s"], "query": [1, 2], "topic": ["A", "B"],
                        "docid": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["A"], "docid": ["a"], "label": [1]})
    with pytest.raises(ValueError, match="session 's' is judged against several topics"):
        evaluate_sessions(qrels, run)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['score'\]"):
        read_session_run(run.drop(columns=["score"]))


# ------------------------------------------------------------ last / best query gain
def test_last_and_best_query_gain_by_hand():
    # gains 1, 0, 2 at queries 1..3 (depth 1, bq = 2); the ideal's top gain is 2 each time
    r = session_dcg([1, 0, 2, 1], [1, 1, 1, 1], ["s", "s", "s", "t"], [1, 2, 3, 1],
                    doc=["a", "b", "c", "a"], ideal_labels={"s": [2, 1, 0], "t": [1]}, depth=1,
                    gain="linear", query_log_base=2)
    qd = [1, 0.5, 1 / (1 + math.log2(3))]
    assert r.last_query_gain() == approx([2 * qd[2], 1])
    assert r.best_query_gain() == approx([1, 1])  # query 1 (gain 1) beats 2 * 0.387
    # normalised by the ideal at the same position: 1/2, 0, 1 -> last 1, best 1; t: 1
    assert r.last_query_gain(normalised=True) == approx([1, 1])
    frame = r.to_frame()
    assert frame["best_query_normalised"].tolist() == approx([1, 1])
    # a session whose last query is worse than an earlier one
    w = session_dcg([2, 0], [1, 1], ["s", "s"], [1, 2], doc=["a", "b"],
                    ideal_labels={"s": [2, 1]}, depth=1, gain="linear")
    assert w.last_query_gain() == approx([0]) and w.best_query_gain() == approx([2])
    assert w.best_query_gain(normalised=True) == approx([1])


@pytest.mark.parametrize("empty", [0.0, 1.0, 0.5, "skip"])
def test_last_and_best_normalised_gain_follow_the_empty_rule(empty):
    # empty=1.0 gave final_normalised 1.0 but last/best normalised 0.0 for a session
    # whose recall base has no gain
    r = session_dcg([0, 0, 1], [1, 0, 1], ["s", "s", "t"], [1, 2, 1], doc=["a", "b", "a"],
                    ideal_labels={"s": [0, 0], "t": [1]}, empty=empty)
    want = np.nan if empty == "skip" else empty
    for got in (r.final_normalised, r.last_query_gain(normalised=True),
                r.best_query_gain(normalised=True), r.average_gain(normalised=True)):
        np.testing.assert_array_equal(got, [want, 1.0])
    frame = r.to_frame()
    np.testing.assert_array_equal(frame["last_query_normalised"], [want, 1.0])


def test_session_and_doc_errors_name_their_argument():
    # they were reported as "qid ..." (session_dcg has no qid argument)
    with pytest.raises(ValueError, match="session must have one entry per row"):
        session_dcg([1, 0, 1], [3, 2, 1], ["s", "s"], [1, 1, 1])
    with pytest.raises(ValueError, match="doc must have one entry per row"):
        session_dcg([1, 0, 1], [3, 2, 1], ["s", "s", "s"], [1, 1, 1], doc=["a", "b"])
    with pytest.raises(TypeError, match="session values must be all numbers"):
        session_dcg([1, 0, 1], [3, 2, 1], np.array(["s", 1, "s"], dtype=object), [1, 1, 1])


def test_sessions_of_topics_without_qrels_are_left_out_as_trec_evaluate_does():
    # a session whose topic has no qrels line (a typo, an unjudged topic) was scored 0 and,
    # in compare --session, paired as a zero; trec.evaluate ignores such run queries
    pd = require("pandas")
    run = pd.DataFrame({"session": ["s", "s", "t", "u"], "query": [1, 2, 1, 1],
                        "topic": ["A", "A", "B", "Z"], "docid": ["a", "b", "a", "c"],
                        "score": [1.0, 1.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["A", "A", "B"], "docid": ["a", "b", "x"],
                          "label": [1, 2, 0]})
    got = evaluate_sessions(qrels, run)
    assert got.sessions.tolist() == ["s", "t"]  # u's topic Z has no qrels line
    alone = evaluate_sessions(qrels, run[run["session"] != "u"])
    np.testing.assert_array_equal(got.normalised, alone.normalised)
    assert got.normalised[1].max() == 0.0  # B is judged, nothing relevant: the empty rule
    with pytest.raises(ValueError, match="no session's topic has a qrels line"):
        evaluate_sessions(qrels, run[run["session"] == "u"])


def test_evaluate_sessions_gain_mapping_keeps_left_out_levels(tmp_path):
    """A partial {level: gain} mapping keeps the other levels' labels, as trec.evaluate reads
    one (the core refused: "gain mapping has no weight for label(s)")."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("T1 0 D1 3\nT1 0 D2 1\nT1 0 D3 -1\n")
    run = tmp_path / "s.run"
    run.write_text("u1 1 T1 D1 1 3.0\nu1 1 T1 D2 2 2.0\nu1 2 T1 D3 1 1.0\nu1 2 T1 D9 2 0.5\n")
    part = evaluate_sessions(qrels, run, depth=2, gain={3: 7}).to_frame()
    full = evaluate_sessions(qrels, run, depth=2, gain=[0, 1, 2, 7]).to_frame()
    assert part.equals(full)
    with pytest.raises(TypeError):
        evaluate_sessions(qrels, run, depth=2, gain={"a": 1})


@pytest.mark.parametrize("col", ["topic", "docid"])
def test_session_frame_float_ids_follow_the_qrels_rule(col) -> None:
    """A session run DataFrame's float64 (or object float) topic or docid column gave the id
    "7.0" where the qrels (a DataFrame, a file) give "7": nothing matched, session DCG 0
    (or no topic found) instead of the string ids' value; a categorical with categories 7 and
    "7" merged two ids into "7" silently."""
    pd = require("pandas")
    qrels = pd.DataFrame({"qid": ["7", "7", "8"], "docno": ["1", "2", "1"], "label": [1, 0, 2]})
    ids = {"topic": [7, 7, 8], "docid": [2, 1, 1]}
    run = pd.DataFrame({"session": ["s", "s", "t"], "query": [1, 1, 1],
                        **{k: list(map(str, v)) for k, v in ids.items()},
                        "score": [2.0, 1.0, 1.0]})
    want = evaluate_sessions(qrels, run).normalised
    floats = [float(x) for x in ids[col]]
    for c in (np.array(floats), pd.Series(floats, dtype=object), pd.Categorical(floats)):
        got = evaluate_sessions(qrels, run.assign(**{col: c})).normalised
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match=rf"column '{col}': 7 and '7' would both become"):
        evaluate_sessions(qrels, run.assign(**{col: pd.Categorical([7, "7", 8])}))
