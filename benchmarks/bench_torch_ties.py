"""Torch metrics on padded batches whose scores all tie (early training rounds) vs distinct.

Run:  python benchmarks/bench_torch_ties.py [--repeat 7] [--shapes 1024x200,64x1000]

For each B x L shape, labels uniform on 0..4 (seed 0), times ``rankmetrics.torch.functional``
ERR@10, nDCG@10, ERR and nDCG (whole list) with every score equal and with distinct scores
(standard normal), one thread, on the CPU; medians of ``--repeat`` calls after one untimed
call, wall clock, in ms, and the load average. Tie-averaged ERR builds each tie group's
elementary symmetric means one member at a time (``torch/_kernel.err_contributions``, bit for
bit the numpy kernel's order), so its time grows with the longest tie group.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch

from rankmetrics.torch import functional as F


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--shapes", default="1024x200,64x1000")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    calls = {"ERR@10": (F.err, 10), "nDCG@10": (F.ndcg, 10), "ERR": (F.err, None),
             "nDCG": (F.ndcg, None)}
    print(f"torch {torch.__version__}, 1 thread, median of {args.repeat} calls, ms; "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print("| B x L | scores | " + " | ".join(calls) + " |")
    print("|---|---|" + "---:|" * len(calls))
    for shape in args.shapes.split(","):
        b, length = (int(x) for x in shape.lower().split("x"))
        target = torch.randint(0, 5, (b, length))
        for kind, preds in (("all tied", torch.zeros(b, length)),
                            ("distinct", torch.randn(b, length))):
            cells = []
            for fn, k in calls.values():
                fn(preds, target, k=k)
                times = []
                for _ in range(args.repeat):
                    t = time.perf_counter()
                    fn(preds, target, k=k)
                    times.append(time.perf_counter() - t)
                cells.append(f"{1e3 * statistics.median(times):.1f}")
            print(f"| {b} x {length} | {kind} | " + " | ".join(cells) + " |")
    print(f"\n(load average {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
