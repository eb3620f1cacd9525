"""Draw the figure of the guide's "Why ties matter" page and print its numbers.

The 1-round LambdaRank run of ``examples/data`` gives many documents of a topic the same score.
An evaluator that keeps input order inside ties (LightGBM, XGBoost: ``ties="stable"``) then
reports a number that depends on how the rows happen to be ordered. The script shuffles the rows
of every topic ``--shuffles`` times, scores each order with ``ties="stable"``, and draws the
spread of mean nDCG@10 against the exact tie-averaged value (``ties="average"``, the mean over
all orderings) and the best and worst orderings (``"optimistic"``/``"pessimistic"``)::

    python examples/plot_why_ties.py                       # writes docs/_static/why_ties.png
    python examples/plot_why_ties.py -o /tmp/ties.png --shuffles 200

Needs the extras ``io`` and ``plot``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import rankmetrics as rm
from rankmetrics.trec import read_qrels, read_run

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "data"


def main(argv: list[str] | None = None) -> Path:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-o", "--output", default=str(ROOT / "docs" / "_static" / "why_ties.png"))
    p.add_argument("--run", default=str(DATA / "lgb1.run"))
    p.add_argument("--qrels", default=str(DATA / "qrels.txt"))
    p.add_argument("--shuffles", type=int, default=1000)
    p.add_argument("-k", type=int, default=10)
    args = p.parse_args(argv)

    run = read_run(args.run).merge(read_qrels(args.qrels), on=["qid", "docid"], how="left")
    y = run["label"].fillna(0).clip(lower=0).to_numpy()
    score, qid = run["score"].to_numpy(), run["qid"].to_numpy()

    def mean_ndcg(ties: str, order: np.ndarray | None = None) -> float:
        o = np.arange(y.size) if order is None else order
        return rm.ndcg_score(y[o], score[o], qid[o], k=args.k, ties=ties)

    rng = np.random.default_rng(0)
    shuffled = np.array([mean_ndcg("stable", rng.permutation(y.size))
                         for _ in range(args.shuffles)])
    exact = {t: mean_ndcg(t) for t in ("pessimistic", "average", "optimistic")}
    file_order = mean_ndcg("stable")
    tied = sum(np.unique(score[qid == q]).size < (qid == q).sum() for q in np.unique(qid))

    name = Path(args.run).name
    print(f"{name}: {np.unique(qid).size} topics, {tied} with tied scores")
    print(f"mean nDCG@{args.k}, input order kept inside ties (file order): {file_order:.4f}")
    print(f"  over {args.shuffles} row shuffles: min {shuffled.min():.4f}, "
          f"max {shuffled.max():.4f}, std {shuffled.std():.4f}")
    print("  exact: " + ", ".join(f"{t} {v:.4f}" for t, v in exact.items()))

    fig = Figure(figsize=(7.2, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.hist(shuffled, bins=40, color="0.75", edgecolor="0.55",
            label=f'ties="stable" after {args.shuffles} row shuffles')
    styles = {"pessimistic": ("tab:red", ":"), "average": ("tab:blue", "-"),
              "optimistic": ("tab:green", ":")}
    for t, v in exact.items():
        color, ls = styles[t]
        ax.axvline(v, color=color, linestyle=ls, linewidth=2, label=f'ties="{t}": {v:.4f}')
    ax.set_xlabel(f"mean nDCG@{args.k} over {np.unique(qid).size} topics")
    ax.set_ylabel("row orders")
    ax.set_title(f"{name} (LambdaRank, 1 round): one model, one test set, many nDCG@{args.k}s",
                 fontsize="medium")
    ax.legend(fontsize="small", loc="upper left")
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return out


if __name__ == "__main__":
    main()
