"""Write the sample qrels, TREC runs and session runs shipped in ``examples/data``.

The README, the documentation and their tests use these files, so every ``rankmetrics eval``,
``plot`` and ``compare`` command shown there runs as written. They come from LightGBM's own
LambdaRank example data (``examples/lambdarank`` of microsoft/LightGBM, MIT licence; found in
``../shared/data/lightgbm_lambdarank`` beside the checkout):

- ``qrels.txt``: the graded labels (0..4) of ``rank.test``, 50 topics ``q01 .. q50``, documents
  ``d01 ..`` numbered in file order within each topic;
- ``lgb1.run``, ``lgb10.run``, ``lgb100.run``: one LambdaRank model trained on ``rank.train``,
  read after 1, 10 and 100 boosting rounds, scoring every ``rank.test`` document (scores rounded
  to 4 decimals: tree models tie, the 1-round model heavily);
- ``improving.sessions`` and ``worsening.sessions``: session runs (format of
  :func:`rankmetrics.session.read_session_run`). Session ``sNN`` searches topic ``qNN`` with
  1, 2 or 3 queries (``1 + NN % 3``); in ``improving`` the k-th query is answered by the models
  after 1, 10, 100 rounds in that order, in ``worsening`` in the reverse order. Each query
  returns its top 10.

Deterministic (one thread, ``deterministic=True``)::

    python examples/make_sample_runs.py                    # rewrites examples/data/
    python examples/make_sample_runs.py -o /tmp/sample     # somewhere else

Needs the extra ``lightgbm``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import lightgbm as lgb
import numpy as np

from rankmetrics.datasets import load_letor

ROOT = Path(__file__).resolve().parents[1]
LETOR = ROOT.parent / "shared" / "data" / "lightgbm_lambdarank"
ROUNDS = (1, 10, 100)
SESSION_DEPTH = 10
PARAMS = {
    "objective": "lambdarank", "num_leaves": 31, "learning_rate": 0.1, "min_data_in_leaf": 20,
    "num_threads": 1, "seed": 0, "deterministic": True, "force_row_wise": True, "verbose": -1,
}


def _ranked(qid: np.ndarray, score: np.ndarray) -> list[np.ndarray]:
    """Row indices of each topic, best first (score ties kept in file order)."""
    out = []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        out.append(rows[np.argsort(-score[rows], kind="stable")])
    return out


def main(argv: list[str] | None = None) -> Path:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-o", "--output", default=str(ROOT / "examples" / "data"))
    p.add_argument("--letor", default=str(LETOR), help="folder with rank.train/rank.test")
    args = p.parse_args(argv)
    src, out = Path(args.letor), Path(args.output)
    out.mkdir(parents=True, exist_ok=True)

    train = load_letor(src / "rank.train", src / "rank.train.query", n_features=300)
    test = load_letor(src / "rank.test", src / "rank.test.query", n_features=300)
    model = lgb.train(PARAMS, lgb.Dataset(train.X, train.y, group=train.group_sizes),
                      num_boost_round=max(ROUNDS))

    topic = np.array([f"q{q + 1:02d}" for q in test.qid])
    doc = np.empty(test.n_samples, dtype=object)
    for q in np.unique(test.qid):
        rows = np.flatnonzero(test.qid == q)
        doc[rows] = [f"d{i + 1:02d}" for i in range(rows.size)]

    with open(out / "qrels.txt", "w") as f:
        for t, d, label in zip(topic, doc, test.y, strict=True):
            f.write(f"{t} 0 {d} {int(label)}\n")

    ranked = {}
    for r in ROUNDS:
        score = np.round(model.predict(test.X, num_iteration=r), 4)
        ranked[r] = (score, _ranked(test.qid, score))
        with open(out / f"lgb{r}.run", "w") as f:
            for rows in ranked[r][1]:
                for rank, i in enumerate(rows, 1):
                    f.write(f"{topic[i]} Q0 {doc[i]} {rank} {score[i]:.4f} lgb{r}\n")

    for name, order in (("improving", ROUNDS), ("worsening", ROUNDS[::-1])):
        with open(out / f"{name}.sessions", "w") as f:
            f.write("# SESSION QUERY TOPIC DOCNO RANK SCORE TAG\n")
            for t in range(len(np.unique(test.qid))):
                session, n_queries = f"s{t + 1:02d}", 1 + (t + 1) % 3
                for query, r in enumerate(order[:n_queries], 1):
                    score, per_topic = ranked[r]
                    for rank, i in enumerate(per_topic[t][:SESSION_DEPTH], 1):
                        f.write(f"{session} {query} {topic[i]} {doc[i]} {rank} {score[i]:.4f} "
                                f"{name}\n")
    print(f"wrote {out}: qrels.txt, " + ", ".join(f"lgb{r}.run" for r in ROUNDS)
          + ", improving.sessions, worsening.sessions")
    return out


if __name__ == "__main__":
    main()
