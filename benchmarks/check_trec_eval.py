"""Differential check of ``rankmetrics eval`` against a trec_eval binary on random files.

Run:  python benchmarks/check_trec_eval.py --trec-eval PATH [--cases 400] [--seed 0] [--keep DIR]

Needs a trec_eval build (not a test: CI has no trec_eval binary and cannot fetch its source):
``git clone https://github.com/usnistgov/trec_eval && make -C trec_eval`` (tag v10.0 is what
``../shared/data/trec_eval`` was written with). Each case is a random qrels file (1-6 topics,
labels -1..3, judged documents never retrieved) and run (scores with ties, written in several
number formats, some equal in single precision only, lines shuffled), evaluated with ``-q``,
``-m all_trec`` (even cases) or random
``-m`` options with parameters (odd cases: ``P.5,20``, ``ndcg_cut``, ``success``,
``iprec_at_recall``, ``11pt_avg`` levels, ``set_F.0.5``, an integer ``ndcg.1=3,2=9`` gain map, ...),
and a random choice of
``-c``, ``-l 2|3``, ``-M 1|3|10`` and ``-J`` by trec_eval and by ``rankmetrics eval --ties docno
--gain linear --format trec``; every line rankmetrics prints must be trec_eval's line, in
trec_eval's order.

Differences on purpose are not counted (the trec guide lists them): trec_eval's ``-nan``
(``-J`` leaving a query no retrieved document: IPrec/11pt_avg 0 / 0; rankmetrics gives 0 and
warns), and the cases trec_eval itself refuses (10.0 exits with "result qid ... not found in
qrels" when a qrels topic has no run line and ``-c`` is not given, and "Can't calculate
measure" for a topic whose only judgements are negative); those are counted and printed.
Exit status 1 when a line differs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from rankmetrics.cli import main as cli_main


def make_case(seed: int) -> tuple[str, str, list[str]]:
    """(qrels text, run text, trec_eval flags) of one random case."""
    rng = random.Random(seed)
    qids = rng.sample(["1", "2", "10", "301", "q7", "01", "A", "b"], rng.randint(1, 6))
    qrels: list[str] = []
    run: list[str] = []
    number = rng.choice(["{:.3f}", "{:.1f}", "{:g}", "{:.2e}", "{}", "{:.12g}"])
    for q in qids:
        docs = list(dict.fromkeys(f"d{rng.randint(0, 60)}" for _ in range(rng.randint(1, 25))))
        if rng.random() < 0.9:
            qrels += [f"{q} 0 {d} {rng.choice([-1, 0, 0, 1, 1, 2, 3])}" for d in docs
                      if rng.random() < 0.6]
            qrels += [f"{q} 0 u{j} {rng.choice([0, 1, 2])}" for j in range(rng.randint(0, 3))]
        if rng.random() < 0.85:
            pool = [round(rng.uniform(-2, 5), rng.choice([0, 1, 2])) for _ in range(4)]
            if number == "{:.12g}":  # equal as C floats, not as doubles (trec_eval 10's)
                pool += [pool[0] + 1e-8, pool[0] + 2e-8]
            for i, d in enumerate(docs):
                if rng.random() < 0.8:
                    s = rng.choice(pool) if rng.random() < 0.5 else rng.uniform(-2, 5)
                    run.append(f"{q} Q0 {d} {i} {number.format(s)} tag")
    qrels = qrels or [f"{qids[0]} 0 dx 1"]
    run = run or [f"{qids[0]} Q0 dx 1 1.0 tag"]
    if rng.random() < 0.6:  # most cases give every qrels topic a run line (see the docstring)
        have = {line.split()[0] for line in run}
        for line in qrels:
            q = line.split()[0]
            if q not in have:
                run.append(f"{q} Q0 zz 1 0.5 tag")
                have.add(q)
    rng.shuffle(run)
    flags: list[str] = []
    if rng.random() < 0.4:
        flags.append("-c")
    if rng.random() < 0.3:
        flags += ["-l", str(rng.choice([2, 3]))]
    if rng.random() < 0.3:
        flags += ["-M", str(rng.choice([1, 3, 10]))]
    if rng.random() < 0.2:
        flags.append("-J")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n", flags


def make_measures(seed: int) -> list[str]:
    """``-m`` options with parameters (one per measure, as trec_eval keeps only the first of
    several; integer gains, as trec_eval misorders gains less than 1 apart)."""
    rng = random.Random(seed * 7 + 1)
    a, b = sorted(rng.sample(range(1, 30), 2))
    x, y = sorted(rng.sample([0.0, 0.1, 0.25, 0.3, 0.5, 0.75, 0.9, 1.0], 2))
    pool = [f"P.{a},{b}", f"recall.{a}", f"ndcg_cut.{a},{b}", f"map_cut.{a}",
            f"success.{a},{b}", f"iprec_at_recall.{x},{y}", f"11pt_avg.{x},{y}",
            f"set_F.{rng.choice([0.5, 1.0, 2.0])}", "Rprec", "bpref", "recip_rank",
            "num_rel_ret", "map", "set_P", "set_recall", "num_ret",
            rng.choice(["ndcg", f"ndcg.1={rng.choice([2, 3])},2={rng.choice([5, 9])}"])]
    return ["all_trec"] if seed % 2 == 0 else rng.sample(pool, rng.randint(1, 8))


def trec_eval_lines(binary: str, qrels: Path, run: Path, flags: list[str],
                    measures: list[str]) -> tuple[list[str] | None, str]:
    ms = [x for m in measures for x in ("-m", m)]
    out = subprocess.run([binary, "-q", *ms, *flags, str(qrels), str(run)],
                         capture_output=True, text=True, check=False)
    return (None if out.returncode else out.stdout.splitlines()), out.stderr.strip()


def our_lines(qrels: Path, run: Path, flags: list[str], measures: list[str]
              ) -> tuple[list[str] | None, str]:
    ms = [x for m in measures for x in ("-m", m)]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = cli_main(["eval", str(qrels), str(run), "-q", *ms, "--ties", "docno",
                         "--gain", "linear", "--format", "trec", *flags])
    return (None if code else out.getvalue().splitlines()), err.getvalue().strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trec-eval", required=True, help="path of a trec_eval binary")
    ap.add_argument("--cases", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", default=None, help="folder for the files of differing cases")
    args = ap.parse_args(argv)
    version = subprocess.run([args.trec_eval, "-v"], capture_output=True, text=True,
                             check=False)
    print((version.stdout or version.stderr).strip())
    counts = {"same": 0, "differ": 0, "trec_eval refused": 0, "nan lines skipped": 0}
    with tempfile.TemporaryDirectory() as tmp:
        keep = Path(args.keep) if args.keep else Path(tmp)
        keep.mkdir(parents=True, exist_ok=True)
        for seed in range(args.seed, args.seed + args.cases):
            qrels_text, run_text, flags = make_case(seed)
            qp, rp = keep / f"qrels.{seed}", keep / f"run.{seed}"
            qp.write_text(qrels_text)
            rp.write_text(run_text)
            measures = make_measures(seed)
            theirs, their_err = trec_eval_lines(args.trec_eval, qp, rp, flags, measures)
            if theirs is None:
                counts["trec_eval refused"] += 1
                continue
            ours, our_err = our_lines(qp, rp, flags, measures)
            if ours is None:
                counts["differ"] += 1
                print(f"case {seed} {flags} {measures}: rankmetrics refused: {our_err}")
                continue
            nan = {line.split()[0] for line in theirs if "nan" in line}
            counts["nan lines skipped"] += sum("nan" in line for line in theirs)
            ours = [line for line in ours if line.split()[0] not in nan]
            names = {line.split()[0] for line in ours}
            theirs = [line for line in theirs if line.split()[0] in names]
            if ours == theirs:
                counts["same"] += 1
                qp.unlink()
                rp.unlink()
                continue
            counts["differ"] += 1
            only_theirs = sorted(set(theirs) - set(ours))[:3]
            only_ours = sorted(set(ours) - set(theirs))[:3]
            print(f"case {seed} {flags} {measures}: trec_eval only {only_theirs}, rankmetrics only "
                  f"{only_ours}{' (same lines, other order)' if not only_ours else ''}")
    print(", ".join(f"{k}: {v}" for k, v in counts.items()))
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
