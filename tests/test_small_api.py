"""Things a user meets first: --version, short reprs, one argument order, flat-to-slate padding."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm
from rankmetrics.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "data"


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"rankmetrics {rm.__version__}"


def test_queryplan_and_ranking_reprs_are_short():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(500), 40)
    y = rng.integers(0, 5, qid.size)
    plan = rm.QueryPlan(y, qid)
    assert repr(plan) == "QueryPlan(n_queries=500, n_rows=20000, docs_per_query=40)"
    scores = np.round(rng.random(qid.size), 1)  # 10 levels over 40 documents: every query ties
    r = plan.rank(scores, depth=10)
    assert repr(r) == "Ranking(n_queries=500, depth=10, ties='average', queries_with_ties=500)"
    r = plan.rank(rng.random(qid.size))
    assert repr(r) == "Ranking(n_queries=500, depth=None, ties='average', queries_with_ties=0)"
    assert "stable" in repr(plan.rank(scores, ties="stable"))
    small = rm.QueryPlan([1, 0, 2], [5, 5, 6], recall_base=([1, 1, 2], [5, 5, 6]))
    assert repr(small) == "QueryPlan(n_queries=2, n_rows=3, docs_per_query=1..2, recall_base=True)"


def test_evalresult_repr():
    require("pandas")
    from rankmetrics.trec import evaluate

    res = evaluate(SAMPLE / "qrels.txt", SAMPLE / "lgb10.run", ["nDCG@10", "P@5", "NumRet"])
    text = repr(res)
    assert text.startswith("EvalResult(50 queries, ties='average': nDCG@10=0.")
    assert "NumRet=768" in text and len(text) < 200
    many = evaluate(SAMPLE / "qrels.txt", SAMPLE / "lgb10.run", [f"P@{k}" for k in range(1, 10)])
    assert repr(many).endswith("... (9 measures))")


def test_evaluate_sessions_argument_order(tmp_path):
    pd = require("pandas")
    from rankmetrics.session import evaluate_sessions

    qrels, run = SAMPLE / "qrels.txt", SAMPLE / "improving.sessions"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = evaluate_sessions(qrels, run, depth=5)
    # the old order still works, with a warning that names the new one
    with pytest.warns(DeprecationWarning, match=r"evaluate_sessions\(qrels, run\)"):
        old = evaluate_sessions(run, qrels, depth=5)
    np.testing.assert_array_equal(new.curve, old.curve)
    frame = pd.read_csv(run, sep=" ", comment="#", header=None,
                        names=["session", "query", "topic", "docid", "rank", "score", "tag"])
    qdict = {}
    for line in qrels.read_text().splitlines():
        q, _, d, label = line.split()
        qdict.setdefault(q, {})[d] = int(label)
    with pytest.warns(DeprecationWarning):
        old_df = evaluate_sessions(frame, qdict, depth=5)
    np.testing.assert_array_equal(old_df.curve, new.curve)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(evaluate_sessions(qdict, frame, depth=5).curve, new.curve)
    # a TREC run passed where the session run belongs is a clear error, not a silent swap
    with pytest.raises(ValueError, match="QUERY and RANK must be integers"):
        evaluate_sessions(qrels, SAMPLE / "lgb10.run")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pad_slates_matches_flat_path(dtype):
    torch = require("torch")
    from rankmetrics.torch import evaluate, pad_slates

    rng = np.random.default_rng(3)
    n = 400
    indexes = torch.as_tensor(rng.integers(0, 37, n))  # unsorted, non-contiguous queries
    preds = torch.as_tensor(np.round(rng.random(n), 1), dtype=getattr(torch, dtype))
    target = torch.as_tensor(rng.integers(0, 4, n))
    p, t, m = pad_slates(preds, target, indexes)
    uniq, counts = torch.unique(indexes, return_counts=True)
    assert p.shape == t.shape == m.shape == (uniq.numel(), int(counts.max()))
    assert m.sum(1).tolist() == counts.tolist()
    assert p.dtype == preds.dtype and t.dtype == target.dtype and m.dtype == torch.bool
    # rows keep their input order inside a query
    for b, q in enumerate(uniq.tolist()):
        assert torch.equal(p[b][m[b]], preds[indexes == q])
        assert torch.equal(t[b][m[b]], target[indexes == q])
    names = ["ndcg@10", "map", "p@5", "mrr", "dcg"]
    for ties in ("average", "pessimistic", "stable"):
        flat = evaluate(preds, target, indexes, metrics=names, ties=ties)
        padded = evaluate(p, t, mask=m, metrics=names, ties=ties)
        for name in names:
            torch.testing.assert_close(padded[name], flat[name], rtol=0, atol=1e-6)


def test_pad_slates_errors():
    torch = require("torch")
    from rankmetrics.torch import pad_slates

    with pytest.raises(ValueError, match="same length"):
        pad_slates(torch.zeros(3), torch.zeros(2), torch.zeros(3, dtype=torch.long))
    with pytest.raises(ValueError, match="indexes must be 1-D"):
        pad_slates(torch.zeros(3), torch.zeros(3), torch.zeros(3, 1, dtype=torch.long))
    with pytest.raises(TypeError, match="indexes must be an integer tensor"):
        pad_slates(torch.zeros(3), torch.zeros(3), torch.zeros(3))
    with pytest.raises(ValueError, match="empty"):
        pad_slates(torch.zeros(0), torch.zeros(0), torch.zeros(0, dtype=torch.long))
    preds = torch.tensor([1.0, 2.0, 3.0])
    before = preds.clone()
    pad_slates(preds, [1, 0, 1], [0, 1, 0], pad_value=-1.0)
    assert torch.equal(preds, before)


def test_pr_plot_shows_its_1_0_ticks():
    require("matplotlib")
    from rankmetrics.plot import plot_precision_recall

    fig = plot_precision_recall({"A": np.linspace(1.0, 0.5, 11)})
    ax = fig.axes[0]
    fig.canvas.draw()
    for ticks, (lo, hi) in ((ax.get_xticks(), ax.get_xlim()), (ax.get_yticks(), ax.get_ylim())):
        assert 1.0 in ticks and lo <= 0.0 and hi > 1.0
    assert "1.0" in [t.get_text() for t in ax.get_xticklabels()]
    assert "1.0" in [t.get_text() for t in ax.get_yticklabels()]
    # the 1.0 x tick label lies inside the figure, not clipped at its edge
    label = next(t for t in ax.get_xticklabels() if t.get_text() == "1.0")
    box = label.get_window_extent()
    assert box.x1 <= fig.bbox.x1
