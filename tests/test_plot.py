"""Curves and plots: the plotted data equal the computed vectors; files are written."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm
from rankmetrics.plot import (
    RECALL_LEVELS,
    gain_curves,
    interpolated_precision,
    query_position_curves,
    session_average,
)
from rankmetrics.session import session_dcg

RNG = np.random.default_rng(11)
N_Q, N_D = 12, 15
QID = np.repeat(np.arange(N_Q), N_D)
Y = RNG.choice(4, size=N_Q * N_D, p=[0.55, 0.25, 0.15, 0.05])
S1 = np.round(Y + RNG.normal(0, 1.2, Y.size), 1)  # rounding: ties
S2 = np.round(RNG.normal(0, 1, Y.size), 1)
SCORES = {"good": S1, "random": S2}


def _lines(fig):
    (ax,) = fig.axes
    return {ln.get_label(): ln for ln in ax.get_lines() if not ln.get_label().startswith("_")}


# ------------------------------------------------------------------------------- vectors
@pytest.mark.parametrize("curve", ["cg", "dcg", "ncg", "ndcg"])
def test_gain_curves_are_the_average_core_curves(curve):
    vecs, ideal = gain_curves(Y, SCORES, QID, curve=curve, depth=20, gain=[0, 1, 10, 100])
    fn = getattr(rm, f"{curve}_curve")
    for name, s in SCORES.items():
        assert vecs[name] == pytest.approx(fn(Y, s, QID, depth=20, gain=[0, 1, 10, 100])
                                           .mean(axis=0))
    if curve in ("cg", "dcg"):
        ifn = getattr(rm, f"ideal_{curve}_curve")
        assert ideal == pytest.approx(ifn(Y, QID, depth=20, gain=[0, 1, 10, 100]).mean(axis=0))
    else:
        assert ideal.tolist() == [1.0] * 20


def test_jk2002_average_normalises_the_average_vectors():
    vecs, _ = gain_curves(Y, SCORES, QID, curve="ndcg", depth=10, average="ideal")
    raw = rm.dcg_curve(Y, S1, QID, depth=10).mean(axis=0)
    ideal = rm.ideal_dcg_curve(Y, QID, depth=10).mean(axis=0)
    assert vecs["good"] == pytest.approx(raw / ideal)
    assert vecs["good"] == pytest.approx(rm.average_normalised(
        rm.dcg_curve(Y, S1, QID, depth=10), rm.ideal_dcg_curve(Y, QID, depth=10),
        per_query=False))


def test_gain_curves_empty_queries():
    y = np.array([0, 0, 1, 2])
    q = np.array([0, 0, 1, 1])
    s = {"a": np.array([1.0, 2.0, 1.0, 2.0])}
    zero, _ = gain_curves(y, s, q, curve="ndcg", depth=2)
    skip, _ = gain_curves(y, s, q, curve="ndcg", depth=2, empty="skip")
    assert zero["a"] == pytest.approx(skip["a"] / 2)
    with pytest.raises(ValueError, match="curve must be one of"):
        gain_curves(y, s, q, curve="map")
    with pytest.raises(ValueError, match="average must be one of"):
        gain_curves(y, s, q, average="mean")
    with pytest.raises(ValueError, match="at least one system"):
        gain_curves(y, {}, q)


def test_gain_curves_of_averages_give_empty_when_no_query_has_a_relevant_document():
    # average="ideal" divided the average vector by the all-0 average ideal with norm_vect's
    # default empty: 0.0 per rank for empty=1.0 (per_query and average_normalised: 1.0)
    y, q, s = np.zeros(4), np.array([0, 0, 1, 1]), {"a": np.array([1.0, 2.0, 1.0, 2.0])}
    for average in ("per_query", "ideal"):
        got, _ = gain_curves(y, s, q, curve="ndcg", depth=2, average=average, empty=1.0)
        assert got["a"].tolist() == [1.0, 1.0]
    assert rm.average_normalised(np.zeros((2, 2)), np.zeros((2, 2)), per_query=False,
                                 empty=1.0).tolist() == [1.0, 1.0]


def _iprec_bruteforce(labels, order, n_rel, rule):
    rel = np.asarray(labels)[order] >= 1
    c = np.cumsum(rel)
    p = c / np.arange(1, len(rel) + 1)
    out = []
    for lvl in RECALL_LEVELS:
        # trec_eval 10: lround(level * R) relevant documents; textbook: recall >= level
        ok = c >= int(math.floor(lvl * n_rel + 0.5)) if rule == "trec" else c / n_rel >= lvl
        out.append(p[np.argmax(ok):].max() if ok.any() else 0.0)
    return np.array(out)


@pytest.mark.parametrize("rule", ["trec", "recall"])
def test_interpolated_precision_without_ties_by_brute_force(rule):
    y = RNG.integers(0, 3, 70)
    s = RNG.permutation(70).astype(float)
    q = np.repeat(np.arange(7), 10)
    got = interpolated_precision(y, s, q, rule=rule, ties="stable")
    for j in range(7):
        rows = np.flatnonzero(q == j)
        order = rows[np.argsort(-s[rows])] - rows[0]
        n_rel = (y[rows] >= 1).sum()
        expect = _iprec_bruteforce(y[rows], order, n_rel, rule) if n_rel else np.zeros(11)
        assert got[j] == pytest.approx(expect)


def test_interpolated_precision_tie_modes_and_recall_base():
    y = [1, 0, 0, 1]
    s = [2.0, 1.0, 1.0, 1.0]
    from functools import partial

    interpolated = partial(interpolated_precision, rule="recall")
    # stable: input order [1, 0, 0, 1]: P at the relevant ranks 1 and 4: 1, 0.5
    assert interpolated(y, s, ties="stable")[0] == pytest.approx(
        [1] * 6 + [0.5] * 5)
    assert interpolated(y, s, ties="optimistic")[0] == pytest.approx([1.0] * 11)
    assert interpolated(y, s, ties="pessimistic")[0] == pytest.approx(
        [1] * 6 + [0.5] * 5)
    # average: the maximum of averages is not the average over orderings, so it raises as
    # rankmetrics.trec.evaluate does for IPrec / 11pt_avg
    with pytest.raises(ValueError, match="no exact tie-averaged form"):
        interpolated(y, s)
    # a recall base of 4 relevant (two never retrieved): recall never passes 0.5
    got = interpolated(y, s, ties="stable", n_relevant=[4])[0]
    assert got == pytest.approx([1, 1, 1, 0.5, 0.5, 0.5, 0, 0, 0, 0, 0])
    assert np.isnan(interpolated([0, 0], [1, 2], empty="skip", ties="stable")).all()
    with pytest.raises(ValueError, match="n_relevant must have one count per query"):
        interpolated(y, s, n_relevant=[1, 2], ties="stable")
    with pytest.raises(ValueError, match="n_relevant is smaller"):
        interpolated(y, s, n_relevant=[1], ties="stable")
    with pytest.raises(ValueError, match="undefined for queries without relevant"):
        interpolated([0, 0], [1, 2], empty="error", ties="stable")


# ------------------------------------------------------------------------------- figures
@pytest.mark.parametrize("curve", ["cg", "dcg", "ncg", "ndcg"])
def test_plotted_lines_equal_the_vectors(curve, tmp_path):
    require("matplotlib")
    from rankmetrics.plot import plot_gain_curves

    path = tmp_path / f"{curve}.png"
    fig = plot_gain_curves(Y, SCORES, QID, curve=curve, depth=30, gain="linear",
                           title=curve, path=path)
    vecs, ideal = gain_curves(Y, SCORES, QID, curve=curve, depth=30, gain="linear")
    lines = _lines(fig)
    for name, v in vecs.items():
        assert lines[name].get_ydata() == pytest.approx(v)
        assert list(lines[name].get_xdata()) == list(range(1, 31))
    if curve in ("cg", "dcg"):
        assert lines["ideal"].get_ydata() == pytest.approx(ideal)
    else:
        assert "ideal" not in lines
    assert path.stat().st_size > 1000 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert fig.axes[0].get_title() == curve


def test_plot_curves_averages_2d_input_and_draws_into_given_axes():
    require("matplotlib")
    from matplotlib.figure import Figure

    from rankmetrics.plot import plot_curves

    per_q = rm.dcg_curve(Y, S1, QID, depth=5)
    fig = Figure()
    ax = fig.add_subplot()
    out = plot_curves({"s1": per_q}, ideal=rm.ideal_dcg_curve(Y, QID, depth=5), ax=ax)
    assert out is fig
    lines = _lines(fig)
    assert lines["s1"].get_ydata() == pytest.approx(per_q.mean(axis=0))
    with pytest.raises(ValueError, match="same depth"):
        plot_curves({"a": [1, 2], "b": [1, 2, 3]})
    with pytest.raises(ValueError, match="at least one system"):
        plot_curves({})
    # 1 and "1" were both named "1": one of the two lines was dropped without a word
    with pytest.raises(ValueError, match="system name '1' is given twice"):
        plot_curves({1: [1.0, 2.0], "1": [2.0, 3.0]})
    # numpy's cast drew text "1" as 1 and dates as day counts, and failed on pandas.NA with
    # float()'s message naming nothing; now as avg_vect: TypeError naming the input, NA is NaN
    from rankmetrics.plot import plot_precision_recall_points

    with pytest.raises(TypeError, match="vectors must be numeric"):
        plot_curves({"a": ["1", "2"]})
    with pytest.raises(TypeError, match="ideal must be numeric"):
        plot_curves({"a": [1.0, 2.0]}, ideal=np.array(["2020-01-01", "2020-01-02"],
                                                       dtype="datetime64[D]"))
    with pytest.raises(TypeError, match="recall of 'a' must be numeric"):
        plot_precision_recall_points({"a": (["0.5", "1"], [1.0, 1.0])})
    import pandas as pd

    drawn = _lines(plot_curves({"a": [1.0, pd.NA]}))["a"].get_ydata()
    assert drawn[0] == 1.0 and np.isnan(drawn[1])


def test_precision_recall_plot(tmp_path):
    require("matplotlib")
    from rankmetrics.plot import plot_precision_recall

    curves = {k: interpolated_precision(Y, s, QID, ties="stable") for k, s in SCORES.items()}
    fig = plot_precision_recall(curves, path=tmp_path / "pr.png")
    lines = _lines(fig)
    for k, v in curves.items():
        assert lines[k].get_ydata() == pytest.approx(v.mean(axis=0))
        assert lines[k].get_xdata() == pytest.approx(RECALL_LEVELS)
    assert (tmp_path / "pr.png").exists()
    with pytest.raises(ValueError, match="must have 11 points"):
        plot_precision_recall({"x": [0.5, 0.4]})


# ------------------------------------------------------------------------------ sessions
def _sessions(seed):
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(6):
        for q in range(1, rng.integers(1, 5) + 1):
            for d in rng.choice(20, size=rng.integers(0, 6), replace=False):
                rows.append((f"s{s}", q, f"d{d}", rng.integers(0, 4), rng.normal()))
    sess, qn, doc, y, sc = map(np.array, zip(*rows, strict=True))
    ideal = {f"s{s}": np.arange(20) % 4 for s in range(6)}
    return session_dcg(y, sc, sess, qn, doc=doc, ideal_labels=ideal, depth=5,
                       gain=[0, 1, 10, 100])


def test_session_average_and_query_positions():
    r = _sessions(1)
    w = r.curve.shape[1] + 5
    vec, ideal = session_average(r, w)
    assert vec == pytest.approx(r.extended(w).mean(axis=0))
    nv, ones = session_average(r, w, normalised=True)
    assert nv == pytest.approx(r.extended(w, normalised=True).mean(axis=0))
    assert ones.tolist() == [1.0] * w
    jk, _ = session_average(r, w, normalised=True, average="ideal")
    assert jk == pytest.approx(r.extended(w).mean(axis=0) / ideal)
    sub, _ = session_average(r, w, min_queries=3)
    assert sub == pytest.approx(r.extended(w)[r.n_queries >= 3].mean(axis=0))
    with pytest.raises(ValueError, match="no session has at least 99 queries"):
        session_average(r, w, min_queries=99)
    last, non_last = query_position_curves(r)
    lq = np.array([r.query_curves[i, n - 1] for i, n in enumerate(r.n_queries)])
    assert last == pytest.approx(lq.mean(axis=0))
    earlier = [r.query_curves[i, j] for i, n in enumerate(r.n_queries) for j in range(n - 1)]
    assert non_last == pytest.approx(np.mean(earlier, axis=0))


@pytest.mark.parametrize("normalised", [False, True])
def test_session_plot_lines(normalised, tmp_path):
    require("matplotlib")
    from rankmetrics.plot import plot_query_position_curves, plot_session_curves

    res = {"S1": _sessions(1), "S2": _sessions(2)}
    w = max(r.curve.shape[1] for r in res.values())
    fig = plot_session_curves(res, normalised=normalised, min_queries=2, show_ideal=True,
                              path=tmp_path / "s.png")
    lines = _lines(fig)
    for name, r in res.items():
        vec, ideal = session_average(r, w, normalised=normalised)
        assert lines[name].get_ydata() == pytest.approx(vec)
        sub, _ = session_average(r, w, normalised=normalised, min_queries=2)
        assert lines[f"{name} (>= 2 queries)"].get_ydata() == pytest.approx(sub)
        assert (f"{name} ideal" in lines) == (not normalised)
    assert (tmp_path / "s.png").stat().st_size > 1000
    # Fig. 4: individual sessions of one system
    fig4 = plot_session_curves(res["S1"], individual=True, width=w + 5)
    lines4 = _lines(fig4)
    assert set(lines4) == set(res["S1"].sessions.tolist())
    assert lines4["s0"].get_ydata() == pytest.approx(res["S1"].extended(w + 5)[0])
    with pytest.raises(ValueError, match="individual=True draws the sessions of one system"):
        plot_session_curves(res, individual=True)
    with pytest.raises(ValueError, match="width must be >= the longest session vector"):
        plot_session_curves(res, width=1)
    fig1 = plot_query_position_curves(res)
    l1 = _lines(fig1)
    assert l1["S1 last query"].get_ydata() == pytest.approx(query_position_curves(res["S1"])[0])


def test_run_labels_drop_extensions_unless_ambiguous():
    from rankmetrics.stats import run_labels

    assert run_labels(["a/bm25.run", "b/dense.run"]) == ["bm25", "dense"]
    assert run_labels(["x/r.test", "y/r.trunc"]) == ["r.test", "r.trunc"]
    assert run_labels(["x/r.run", "y/r.run", object()]) == ["r.run", "r.run#2", "run3"]


def test_precision_recall_points_plot(tmp_path):
    require("matplotlib")
    from rankmetrics.analysis.pr import precision_recall_points
    from rankmetrics.plot import plot_precision_recall_points

    r, p = precision_recall_points([1, 0, 1, 0, 0, 1], [6, 5, 4, 3, 2, 1])
    fig = plot_precision_recall_points({"A": (r[0], p[0])}, path=tmp_path / "pr.png")
    (line,) = fig.axes[0].get_lines()
    assert line.get_xdata() == pytest.approx([1 / 3, 1 / 3, 2 / 3, 2 / 3, 2 / 3, 1])
    assert line.get_ydata() == pytest.approx([1, 1 / 2, 2 / 3, 1 / 2, 2 / 5, 1 / 2])
    with pytest.raises(ValueError, match="recall and precision must be 1-D of one shape"):
        plot_precision_recall_points({"A": (r[0], p[0][:3])})


def _tied_orders(s):
    """Every order of the rows consistent with the scores (ties permuted)."""
    import itertools

    s = np.asarray(s)
    groups = [np.flatnonzero(s == v) for v in sorted(set(s.tolist()), reverse=True)]
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield np.concatenate([np.array(c, dtype=int) for c in combo])


@pytest.mark.parametrize("rule", ["trec", "recall"])
@pytest.mark.parametrize("seed", range(6))
def test_expected_interpolated_precision_equals_mean_over_tie_orders(seed, rule):
    from rankmetrics.analysis.pr import expected_interpolated_precision

    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 9))
    y = rng.integers(0, 2, n)
    y[0] = 1
    s = rng.integers(0, 3, n).astype(float)  # heavy ties
    extra = int(rng.integers(0, 2))  # some relevant documents never retrieved
    n_rel = int(y.sum()) + extra
    brute = np.mean([_iprec_bruteforce(y, o, n_rel, rule) for o in _tied_orders(s)], axis=0)
    got = expected_interpolated_precision(y, s, rule=rule, n_relevant=[n_rel])[0]
    assert got == pytest.approx(brute, abs=1e-12)
    # without ties it is the plain interpolated precision
    t = rng.permutation(n).astype(float)
    assert expected_interpolated_precision(y, t, rule=rule)[0] == pytest.approx(
        interpolated_precision(y, t, ties="stable", rule=rule)[0])


def test_expected_interpolated_precision_multi_query_and_errors():
    from rankmetrics.analysis.pr import expected_interpolated_precision

    got = expected_interpolated_precision([1, 0, 0, 0, 0], [1, 1, 1, 2, 1], [0, 0, 0, 1, 1])
    assert got[0] == pytest.approx([11 / 18] * 11) and got[1] == pytest.approx([0] * 11)
    with pytest.raises(ValueError, match="levels must be numbers in"):
        expected_interpolated_precision([1, 0], [1, 1], levels=[1.5])


def test_plot_path_without_extension_is_refused(tmp_path):
    """path="curves" and "curves." were saved as curves.png (matplotlib appends its default
    format), not where asked; the CLI's -o "y." printed "wrote y." for a file y.png."""
    require("matplotlib")
    from rankmetrics.plot import plot_curves

    for name in ("curves", "curves."):
        with pytest.raises(ValueError, match="needs an image file name with its extension"):
            plot_curves({"a": [1.0, 0.5]}, path=tmp_path / name)
    assert not list(tmp_path.iterdir())
    plot_curves({"a": [1.0, 0.5]}, path=tmp_path / "curves.svg")
    assert [p.name for p in tmp_path.iterdir()] == ["curves.svg"]


def test_system_mappings_that_are_not_mappings_are_a_type_error():
    """gain_curves / plot_gain_curves (``scores``), plot_curves (``vectors``),
    plot_precision_recall (``curves``) and plot_precision_recall_points (``points``) take a
    mapping {system name: ...}; a list or tuple raised AttributeError "no attribute 'values'"
    ('items'), an array or DataFrame numpy's/pandas' "truth value ... is ambiguous"
    (ValueError naming nothing). Now TypeError naming the argument; an empty mapping is still
    the ValueError it was."""
    require("matplotlib")
    pd = require("pandas")
    from rankmetrics.plot import (
        plot_curves,
        plot_gain_curves,
        plot_precision_recall,
        plot_precision_recall_points,
    )

    y, q = [1, 0, 2, 0], [1, 1, 2, 2]
    row = [0.1, 0.2, 0.3, 0.4]
    calls = {
        "scores": lambda v: gain_curves(y, v, q, depth=3),
        "vectors": lambda v: plot_curves(v),
        "curves": lambda v: plot_precision_recall(v),
        "points": lambda v: plot_precision_recall_points(v),
    }
    calls["scores "] = lambda v: plot_gain_curves(y, v, q, depth=3)
    for name, fn in calls.items():
        for bad in ([row], (row,), np.array([row]), pd.DataFrame({"A": row})):
            with pytest.raises(TypeError, match=rf"{name.strip()} must be a mapping \{{system"):
                fn(bad)
        with pytest.raises(ValueError, match=rf"{name.strip()} must hold at least one"):
            fn({})


def test_session_arguments_that_are_not_session_results_are_a_type_error():
    """session_average / query_position_curves (``result``) and plot_session_curves /
    plot_query_position_curves (``results``) given a list of SessionDCG, or a mapping to None,
    raised AttributeError "'list' object has no attribute 'curve'"; session_average read
    ``normalised="no"`` as True. Now TypeError naming the argument."""
    require("matplotlib")
    from rankmetrics.plot import plot_query_position_curves, plot_session_curves

    r = session_dcg([2, 1, 0, 1, 1], [0.9, 0.5, 0.4, 0.3, 0.2], [1, 1, 1, 1, 2],
                    [1, 1, 2, 2, 1], doc=["a", "b", "c", "a", "b"], depth=2)
    for fn, name in ((lambda v: session_average(v, 4), "result"),
                     (query_position_curves, "result"),
                     (plot_session_curves, "results"),
                     (plot_query_position_curves, "results")):
        with pytest.raises(TypeError, match=f"{name} must be a SessionDCG .*; got list"):
            fn([r])
    with pytest.raises(TypeError, match=r"results\['A'\] must be a SessionDCG .*NoneType"):
        plot_session_curves({"A": None})
    for average in ("per_session", "ideal"):
        with pytest.raises(TypeError, match="normalised must be True or False; got 'no'"):
            session_average(r, 4, normalised="no", average=average)
    # the drawing switches took any value by its truth ("no" drew the sessions one by one)
    for flag in ("individual", "show_ideal"):
        with pytest.raises(TypeError, match=f"{flag} must be True or False; got 'no'"):
            plot_session_curves(r, **{flag: "no"})
    from rankmetrics.plot import plot_gain_curves, plot_trec_curves

    with pytest.raises(TypeError, match="show_ideal must be True or False; got None"):
        plot_gain_curves([2, 0, 1], {"A": [3, 2, 1]}, curve="cg", show_ideal=None)
    with pytest.raises(TypeError, match="show_ideal must be True or False; got 0"):
        plot_trec_curves("no-qrels", ["no-run"], show_ideal=0)
