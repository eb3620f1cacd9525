"""One analysis from runs to a Table-1-style report and figure (Järvelin & Kekäläinen 2002).

Makes three rankers of increasing quality on generated data (``rankmetrics.datasets``, fixed
seed): least-squares scorers on 3, 8 and all 20 features, scores rounded to one decimal (ties).
Writes the test queries' qrels and the three runs as TREC files (the weakest run lacks one
topic, as real runs sometimes do), then runs the analysis the papers do:

1. ``rankmetrics compare`` on the per-topic avg-pos of the nCG and nDCG vectors (JK 2002
   Table 1, gain 0-1-10-100) and on nDCG@10, with Fisher's randomization test and Friedman's
   test, Holm-corrected; printed as Markdown and written as LaTeX, CSV and JSON;
2. the horizontal reading of the CG curves (rank needed to gain what the ideal gains by 10);
3. the nDCG figure (``rankmetrics plot``), titled with gain, tie rule and topics.

    python examples/analysis_report.py                 # writes to analysis_out/
    python examples/analysis_report.py -o /tmp/jk

Needs the extras ``stats`` (scipy, statsmodels), ``io`` (pandas) and ``plot`` (matplotlib).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from rankmetrics import cli
from rankmetrics.datasets import make_ranking_data

SYSTEMS = {"few": 3, "some": 8, "all": 20}  # features each scorer sees


def write_runs(out: Path) -> tuple[Path, list[Path]]:
    data = make_ranking_data(n_queries=120, min_docs=20, max_docs=60,
                             label_probs=(0.55, 0.25, 0.13, 0.07), random_state=11)
    train, test = data.split(test_size=0.25, random_state=11)
    qrels = out / "qrels.txt"
    with qrels.open("w") as fh:
        for j, (q, y) in enumerate(zip(test.qid, test.y, strict=True)):
            fh.write(f"{q} 0 D{j} {int(y)}\n")
    runs = []
    topics = np.unique(test.qid)
    for name, n_feat in SYSTEMS.items():
        w, *_ = np.linalg.lstsq(train.X[:, :n_feat], train.y.astype(float), rcond=None)
        score = np.round(test.X[:, :n_feat] @ w, 1)
        path = out / f"{name}.run"
        with path.open("w") as fh:
            for q in topics:
                if name == "few" and q == topics[3]:
                    continue  # this run lacks one topic
                rows = np.flatnonzero(test.qid == q)
                for rank, j in enumerate(rows[np.argsort(-score[rows], kind="stable")], 1):
                    fh.write(f"{q} Q0 D{j} {rank} {score[j]} {name}\n")
        runs.append(path)
    return qrels, runs


def run(argv: list[str]) -> None:
    if cli.main(argv) != 0:
        raise SystemExit(f"rankmetrics {argv[0]} failed")


def main(argv: list[str] | None = None) -> Path:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("-o", "--output", default="analysis_out", help="folder for files")
    args = p.parse_args(argv)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    qrels, runs = write_runs(out)
    files = [str(qrels), *map(str, runs)]
    compare = ["compare", *files, "-m", "avg-ncg@1-100", "-m", "avg-ndcg@1-10", "-m",
               "avg-ndcg@1-100", "-m", "nDCG@10", "--gain", "0,1,10,100", "--test",
               "randomization", "--test", "friedman", "--correction", "holm",
               "--n-resamples", "10000", "--seed", "1"]
    print(f"$ rankmetrics {' '.join(compare[:1] + [Path(f).name for f in files] + compare[5:])}"
          " --format markdown")
    run([*compare, "--format", "markdown"])
    for fmt, ext in (("latex", "tex"), ("csv", "csv"), ("json", "json")):
        run([*compare, "--format", fmt, "-o", str(out / f"table1.{ext}")])
    print("\n$ rankmetrics horizontal qrels.txt few.run some.run all.run --at 10 --gain linear")
    run(["horizontal", *files, "--at", "10", "--gain", "linear"])
    fig = out / "ndcg.png"
    print(f"\n$ rankmetrics plot qrels.txt few.run some.run all.run --curve ndcg --gain "
          f"0,1,10,100 -o {fig}")
    run(["plot", *files, "--curve", "ndcg", "--gain", "0,1,10,100", "-o", str(fig)])
    return out


if __name__ == "__main__":
    main()
