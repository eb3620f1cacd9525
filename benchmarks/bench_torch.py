"""Tie-aware nDCG@10 on torch tensors: rankmetrics.torch vs torchmetrics and the numpy core.

Run:  python benchmarks/bench_torch.py [--queries 10000] [--repeat 5] [--threads 1]

CPU part, on the reference validation set of ``benchmarks/bench_core.py``
(``rankmetrics.datasets.make_benchmark_scores``: 10 000 queries of 20..220 documents, about
1.2 M rows, about half the documents tied with another of their query) in the flat
``preds, target, indexes`` form, float64, median of ``--repeat`` runs:

* ``rankmetrics.torch.ndcg(preds, target, indexes, k=10)`` (data checks on, and off with
  ``validate=False``);
* torchmetrics ``RetrievalNormalizedDCG(top_k=10)``: ``update`` + ``compute`` (a fresh metric per
  run, as an evaluation epoch does);
* the numpy core ``rankmetrics.ndcg`` from raw arrays, and with a cached ``QueryPlan``.

GPU part, when CUDA is available: a padded batch (B = 4096, L = 256, float32, quantised scores
so that ties occur) -- ``rankmetrics.torch.ndcg(preds, target, k=10)`` against a bare
``torch.sort(preds, dim=1, descending=True)`` of the same tensor, timed with CUDA events.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch

import rankmetrics as rm
from rankmetrics.datasets import make_benchmark_scores
from rankmetrics.torch import ndcg as torch_ndcg


def median_ms(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall-clock and median process CPU time of ``fn`` in ms (CPU time is what the
    call costs when other processes compete for the cores)."""
    fn()  # warm-up
    wall, cpu = [], []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return 1e3 * statistics.median(wall), 1e3 * statistics.median(cpu)


def cuda_median_ms(fn: Callable[[], object], repeat: int) -> float:
    for _ in range(3):  # warm-up (kernels, allocator)
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def cpu_part(args: argparse.Namespace) -> None:
    y, s, q = make_benchmark_scores(n_queries=args.queries)
    preds, target, indexes = torch.from_numpy(s), torch.from_numpy(y), torch.from_numpy(q)
    print(f"CPU: {y.size} rows, {np.unique(q).size} queries, float64 scores, "
          f"torch {torch.__version__}, {torch.get_num_threads()} thread(s), "
          f"{platform.processor() or platform.machine()}")

    ours = torch_ndcg(preds, target, indexes, k=10)
    core = rm.ndcg(y, s, q, k=10)
    print(f"  max |rankmetrics.torch - numpy core| per query: "
          f"{np.max(np.abs(ours.numpy() - core)):.1e}")

    rows: list[tuple[str, tuple[float, float]]] = []
    rows.append(("rankmetrics.torch.ndcg(k=10)",
                 median_ms(lambda: torch_ndcg(preds, target, indexes, k=10), args.repeat)))
    rows.append(("rankmetrics.torch.ndcg(k=10, validate=False)",
                 median_ms(lambda: torch_ndcg(preds, target, indexes, k=10, validate=False),
                           args.repeat)))
    rows.append(("rankmetrics.ndcg (numpy, from raw arrays)",
                 median_ms(lambda: rm.ndcg(y, s, q, k=10), args.repeat)))
    plan = rm.QueryPlan(y, q)
    rows.append(("rankmetrics QueryPlan.ndcg (numpy, cached plan)",
                 median_ms(lambda: plan.ndcg(s, k=10), args.repeat)))
    try:
        from torchmetrics.retrieval import RetrievalNormalizedDCG
    except ImportError:
        print("  torchmetrics not installed: skipped")
    else:
        def run_tm() -> torch.Tensor:
            metric = RetrievalNormalizedDCG(top_k=10)
            metric.update(preds, target, indexes=indexes)
            return metric.compute()

        tm_value = run_tm().item()
        linear = torch_ndcg(preds, target, indexes, k=10, gain="linear").mean().item()
        print(f"  mean nDCG@10: rankmetrics.torch {ours.mean().item():.6f} (numpy core "
              f"{core.mean():.6f}); torchmetrics {tm_value:.6f} uses linear gain: "
              f"rankmetrics.torch gain='linear' {linear:.6f}")
        rows.append(("torchmetrics RetrievalNormalizedDCG(top_k=10)",
                     median_ms(run_tm, max(1, min(args.repeat, 3)))))
    ref_wall, ref_cpu = rows[0][1]
    print(f"  {'method':<48} {'wall ms':>9} {'CPU ms':>9} {'wall/ours':>10} {'CPU/ours':>9}")
    for name, (wall, cpu) in rows:
        print(f"  {name:<48} {wall:9.1f} {cpu:9.1f} {wall / ref_wall:9.1f}x "
              f"{cpu / ref_cpu:8.1f}x")


def gpu_part(args: argparse.Namespace) -> None:
    if not torch.cuda.is_available():
        print("GPU: CUDA not available -- GPU part not measured")
        return
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(0)
    b, length = args.batch, args.length
    preds = torch.round(torch.randn(b, length, device=dev, generator=gen) * 8) / 8  # ties
    target = torch.multinomial(torch.tensor([0.52, 0.31, 0.13, 0.025, 0.015], device=dev),
                               b * length, replacement=True, generator=gen).view(b, length)
    print(f"GPU: {torch.cuda.get_device_name(dev)}, padded B={b}, L={length}, float32")
    sort_ms = cuda_median_ms(lambda: torch.sort(preds, dim=1, descending=True), args.repeat)
    rows = [("torch.sort(preds, dim=1, descending=True)", sort_ms)]
    rows.append(("rankmetrics.torch.ndcg(k=10, validate=False)",
                 cuda_median_ms(lambda: torch_ndcg(preds, target, k=10, validate=False),
                                args.repeat)))
    rows.append(("rankmetrics.torch.ndcg(k=10)",
                 cuda_median_ms(lambda: torch_ndcg(preds, target, k=10), args.repeat)))
    y, s = target.cpu().numpy(), preds.cpu().numpy()
    diff = np.max(np.abs(torch_ndcg(preds, target, k=10).cpu().numpy() - rm.ndcg(y, s, k=10)))
    print(f"  max |cuda - numpy core| per query: {diff:.1e}")
    print(f"  {'method':<48} {'ms':>9} {'vs sort':>9}")
    for name, ms in rows:
        print(f"  {name:<48} {ms:9.3f} {ms / sort_ms:8.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    ap.add_argument("--batch", type=int, default=4096, help="GPU padded batch size B")
    ap.add_argument("--length", type=int, default=256, help="GPU padded list length L")
    ap.add_argument("--skip-cpu", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if not args.skip_cpu:
        cpu_part(args)
    gpu_part(args)


if __name__ == "__main__":
    main()
