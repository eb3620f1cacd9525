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

GPU part, when CUDA is available: padded batches (B = 4096, L = 256 first, then ``--shapes``;
float32, quantised scores so that ties occur) -- ``rankmetrics.torch.ndcg(preds, target, k=10)``
(the fused Triton kernel where it applies) and the eager torch kernel
(``RANKMETRICS_TORCH_KERNEL=torch``) and the fused kernel's launch alone on prepared tensors,
against a bare ``torch.sort(preds, dim=1, descending=True)`` of the same tensor: the contenders
take turns, each call timed with CUDA events (wall) and on the host (the time it takes to
return), with each call's kernel count and device ("busy") time from torch.profiler; then the
flat reference set moved to the GPU, with torchmetrics on it (one call: about 10 s).
``--skip-flat`` leaves the flat part out. ``benchmarks/gpu_checks.sh`` runs this part, then
the torch tests on CUDA.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch

import rankmetrics as rm
from rankmetrics.datasets import make_benchmark_scores
from rankmetrics.torch import _kernel
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


def cuda_median_ms(fn: Callable[[], object], repeat: int, warmup: int = 3) -> float:
    for _ in range(warmup):  # kernels, allocator
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


def cuda_interleaved_ms(fns: list[Callable[[], object]],
                        repeat: int) -> list[tuple[float, float, float]]:
    """Per function: median wall ms (CUDA events around one call, the device idle before it),
    median host ms (the time the call takes to return, i.e. to enqueue its work) and the
    spread of the wall times (max / min); the functions take turns, ``repeat`` rounds."""
    for fn in fns:
        for _ in range(3):  # warm-up (kernels, allocator)
            fn()
    torch.cuda.synchronize()
    wall: list[list[float]] = [[] for _ in fns]
    host: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            t0 = time.perf_counter()
            fn()
            host[i].append(1e3 * (time.perf_counter() - t0))
            end.record()
            torch.cuda.synchronize()
            wall[i].append(start.elapsed_time(end))
    return [(statistics.median(w), statistics.median(h), max(w) / min(w))
            for w, h in zip(wall, host, strict=True)]


def _busy_ms(fn: Callable[[], object]) -> tuple[float, int]:
    """Device time of the kernels one call of ``fn`` launches (ms) and their number, from
    ``torch.profiler``; wall time above it is launch and host overhead."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == DeviceType.CUDA]
    return sum(e.time_range.elapsed_us() for e in kernels) / 1e3, len(kernels)


def _kernel_env(mode: str, fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` run with ``RANKMETRICS_TORCH_KERNEL=mode`` ("torch": the eager kernel)."""
    def run() -> object:
        old = os.environ.get("RANKMETRICS_TORCH_KERNEL")
        os.environ["RANKMETRICS_TORCH_KERNEL"] = mode
        try:
            return fn()
        finally:
            if old is None:
                del os.environ["RANKMETRICS_TORCH_KERNEL"]
            else:
                os.environ["RANKMETRICS_TORCH_KERNEL"] = old
    return run


def _padded_batch(b: int, length: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(seed)
    preds = torch.round(torch.randn(b, length, device=dev, generator=gen) * 8) / 8  # ties
    target = torch.multinomial(torch.tensor([0.52, 0.31, 0.13, 0.025, 0.015], device=dev),
                               b * length, replacement=True, generator=gen).view(b, length)
    return preds, target


def gpu_part(args: argparse.Namespace) -> None:
    if not torch.cuda.is_available():
        print("GPU: CUDA not available -- GPU part not measured")
        return
    dev = torch.device("cuda")
    print(f"GPU: {torch.cuda.get_device_name(dev)}, torch {torch.__version__}, float32 scores "
          f"quantised to 1/8 (ties), CUDA-event medians of {args.repeat} runs")
    print("  ms = wall (CUDA events; the contenders take turns); host = time for the call to "
          "return (enqueue); spread = max/min wall;\n  busy = device time of the kernels one "
          "call launches (torch.profiler); wall above it is host and launch overhead")
    print(f"  {'padded batch':<14} {'method':<46} {'ms':>8} {'vs sort':>8} {'host ms':>8} "
          f"{'spread':>7} {'busy ms':>8} {'kernels':>8}")
    shapes = [(args.batch, args.length)] + [
        tuple(int(v) for v in shape.split("x")) for shape in args.shapes.split(",") if shape]
    preds, target = _padded_batch(args.batch, args.length, seed=1)
    t0 = time.perf_counter()
    try:
        torch_ndcg(preds, target, k=10)
        torch.cuda.synchronize()
        print(f"  first call, B={args.batch} L={args.length}: {time.perf_counter() - t0:.2f} s "
              "(includes the fused kernel's Triton compile, or its load from Triton's cache)")
        for b, length in shapes:
            _gpu_padded(b, length, args)
        if not args.skip_flat:
            _gpu_flat(args)
    except Exception as exc:  # noqa: BLE001 - the GPU part stops; say why
        print(f"  GPU part failed: {exc!r}"[:3000])


def _gpu_padded(b: int, length: int, args: argparse.Namespace) -> None:
    preds, target = _padded_batch(b, length, seed=b + length)
    contenders: list[tuple[str, Callable[[], object]]] = [
        ("torch.sort(preds, dim=1, descending=True)",
         lambda: torch.sort(preds, dim=1, descending=True)),
        ("rankmetrics.torch.ndcg(k=10, validate=False)",
         lambda: torch_ndcg(preds, target, k=10, validate=False)),
        ("rankmetrics.torch.ndcg(k=10)", lambda: torch_ndcg(preds, target, k=10)),
        ("  eager kernel (RANKMETRICS_TORCH_KERNEL=torch)",
         _kernel_env("torch", lambda: torch_ndcg(preds, target, k=10, validate=False))),
    ]
    if length > _kernel.FUSED_MAX_LENGTH:
        contenders.append(("  fused kernel (forced past FUSED_MAX_LENGTH)",
                           _kernel_env("triton", lambda: _forced_fused(preds, target))))
    elif _kernel.fused_wanted(_kernel.padded_layout(preds, target, None, preds.dtype,
                                                    None).blocks[0][1]):
        from rankmetrics.core.gains import discount_key
        from rankmetrics.torch import _triton

        dkey = discount_key("log", 2)
        prefix = _triton.prefix_discounts(dkey, _kernel.table_length(dkey, length), preds.device)

        def launch_alone() -> object:
            return _triton.gain_sums(preds, target, None, prefix, [10],
                                     _triton.GAIN_EXPONENTIAL, 0.0, preds.dtype)
        contenders.append(("  its Triton kernel's launch alone (gain_sums)", launch_alone))
    ok = []
    for name, fn in contenders:
        try:
            fn()
            ok.append((name, fn))
        except Exception as exc:  # noqa: BLE001 - report and go on with the other rows
            print(f"  {b:>6} x {length:<5} {name:<46} failed: {exc!r}"[:2000])
    timed = cuda_interleaved_ms([fn for _, fn in ok], args.repeat)
    sort_ms = timed[0][0]
    for (name, fn), (ms, host, spread) in zip(ok, timed, strict=True):
        busy, n_kernels = _busy_ms(fn)
        print(f"  {b:>6} x {length:<5} {name:<46} {ms:8.3f} {ms / sort_ms:7.2f}x {host:8.3f} "
              f"{spread:6.2f}x {busy:8.3f} {n_kernels:8d}")
    y, s = target.cpu().numpy(), preds.cpu().numpy()
    diff = np.max(np.abs(torch_ndcg(preds, target, k=10).cpu().numpy()
                         - rm.ndcg(y, s, k=10)))
    print(f"  {b:>6} x {length:<5} max |cuda - numpy core| per query: {diff:.1e}")
    if args.profile:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            torch_ndcg(preds, target, k=10, validate=False)
            torch.cuda.synchronize()
        with open(args.profile, "a") as fh:
            fh.write(f"padded {b} x {length}, ndcg(k=10, validate=False)\n")
            fh.write(prof.key_averages().table(sort_by="self_cuda_time_total",
                                               row_limit=40) + "\n")



def _forced_fused(preds: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """The fused kernel on rows longer than it is used for (to measure where it stops paying)."""
    limit = _kernel.FUSED_MAX_LENGTH
    _kernel.FUSED_MAX_LENGTH = preds.shape[1]
    try:
        return torch_ndcg(preds, target, k=10, validate=False)
    finally:
        _kernel.FUSED_MAX_LENGTH = limit


def _gpu_flat(args: argparse.Namespace) -> None:
    """Flat (preds, target, indexes) input on the GPU: the reference set of the CPU part."""
    dev = torch.device("cuda")
    y, s, q = make_benchmark_scores(n_queries=args.queries)
    preds, target, indexes = (torch.from_numpy(s).to(dev), torch.from_numpy(y).to(dev),
                              torch.from_numpy(q).to(dev))
    print(f"  flat: {y.size} rows, {np.unique(q).size} queries, float64 scores")
    diff = np.max(np.abs(torch_ndcg(preds, target, indexes, k=10).cpu().numpy()
                         - rm.ndcg(y, s, q, k=10)))
    print(f"  flat: max |cuda - numpy core| per query: {diff:.1e}")
    flat: list[tuple[str, Callable[[], object]]] = [
        ("torch.sort(preds) (flat)", lambda: torch.sort(preds, descending=True)),
        ("rankmetrics.torch.ndcg(indexes, k=10)",
         lambda: torch_ndcg(preds, target, indexes, k=10)),
        ("rankmetrics.torch.ndcg(indexes, k=10, validate=False)",
         lambda: torch_ndcg(preds, target, indexes, k=10, validate=False)),
        ("  eager kernel (RANKMETRICS_TORCH_KERNEL=torch)",
         _kernel_env("torch", lambda: torch_ndcg(preds, target, indexes, k=10))),
    ]
    try:
        from torchmetrics.retrieval import RetrievalNormalizedDCG
    except ImportError:
        print("  torchmetrics not installed: its GPU row skipped")
    else:
        def run_tm() -> torch.Tensor:
            metric = RetrievalNormalizedDCG(top_k=10).to(dev)
            metric.update(preds, target, indexes=indexes)
            return metric.compute()

        flat.append(("torchmetrics RetrievalNormalizedDCG(top_k=10)", run_tm))
    sort_ms = 0.0
    for name, fn in flat:
        slow = "torchmetrics" in name  # about 14 s a call: one timed call, no warm-up
        ms = cuda_median_ms(fn, 1 if slow else args.repeat, warmup=0 if slow else 3)
        sort_ms = sort_ms or ms
        print(f"  {'flat':<14} {name:<46} {ms:8.3f} {ms / sort_ms:7.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    ap.add_argument("--batch", type=int, default=4096, help="GPU padded batch size B")
    ap.add_argument("--length", type=int, default=256, help="GPU padded list length L")
    ap.add_argument("--shapes", default="512x256,16384x256,4096x64,4096x1024,2048x2048",
                    help="further GPU padded shapes BxL, comma-separated")
    ap.add_argument("--profile", default="", help="append torch.profiler tables to this file")
    ap.add_argument("--skip-cpu", action="store_true")
    ap.add_argument("--skip-flat", action="store_true", help="GPU: padded batches only")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if not args.skip_cpu:
        cpu_part(args)
    gpu_part(args)


if __name__ == "__main__":
    main()
