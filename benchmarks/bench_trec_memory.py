"""Peak memory of reading (and evaluating) a large TREC run, on every reader path.

Run:  python benchmarks/bench_trec_memory.py [--mb 500] [--paths clean,comment,mixed,ragged]
      [--evaluate] [--dir DIR]

Writes a run of about ``--mb`` megabytes (ClueWeb-like document ids, 1 000 documents per query,
scores with 6 decimals) in four layouts, each reaching a different reader path of
``rankmetrics.trec``:

* ``clean``: single spaces (pyarrow's CSV reader);
* ``comment``: the same with a comment line on top (comment lines are removed from each block
  and the block still goes to pyarrow; earlier versions sent the whole file to the
  pure-Python reader);
* ``mixed``: a tab and spaces between fields (pandas' C parser);
* ``ragged``: every other line has extra trailing fields (the line-by-line reader).

Each case runs in a fresh process that resets the kernel's peak-RSS mark
(``/proc/self/clear_refs``) after its imports, reads the file with ``rankmetrics.trec.read_run``'s
table reader (``rankmetrics.trec.io.read_file``) and prints the peak resident memory above the
baseline, as a multiple of the file size and of the parsed columns (the arrow table's bytes)
and in bytes per run line. With ``--evaluate`` it also times ``rankmetrics.trec.evaluate``
(nDCG@10, AP) against qrels of every tenth document. Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CHILD = r"""
import gc, sys, time

def status(key):
    with open("/proc/self/status") as f:
        return next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith(key + ":"))

from rankmetrics.trec import evaluate
from rankmetrics.trec import io as trec_io
mode, run, qrels = sys.argv[1], sys.argv[2], sys.argv[3]
gc.collect()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
base = status("VmRSS")
t0 = time.perf_counter()
if mode == "read":
    cols = trec_io.read_file(run, "run").nbytes
    peak, secs = status("VmHWM") - base, time.perf_counter() - t0
else:
    evaluate(qrels, run, ["nDCG@10", "AP"])
    peak, secs = status("VmHWM") - base, time.perf_counter() - t0
    cols = trec_io.read_file(run, "run").nbytes  # the columns evaluate read, measured after
print(peak, cols, secs)
"""


def write_run(path: Path, megabytes: float, layout: str, seed: int = 0) -> int:
    """Write about ``megabytes`` MB of run lines; returns the number of lines."""
    line_bytes = 52
    n = int(megabytes * 1e6 / line_bytes)
    rng = np.random.default_rng(seed)
    with path.open("w") as f:
        if layout == "comment":
            f.write("# a comment line\n")
        for start in range(0, n, 200_000):
            m = min(200_000, n - start)
            idx = np.arange(start, start + m)
            q = (idx // 1000).astype(str)
            d = np.char.add("clueweb09-en0000-", rng.integers(0, 10**8, m).astype(str))
            d = np.char.add(np.char.add(d, "-"), idx.astype(str))
            s = rng.random(m).round(6).astype(str)
            r = (idx % 1000 + 1).astype(str)
            sep = " \t " if layout == "mixed" else " "
            tail = [" x y" if (layout == "ragged" and i % 2) else "" for i in range(m)]
            f.write("".join(f"{a}{sep}Q0{sep}{b}{sep}{c}{sep}{e}{sep}tag{t}\n" for a, b, c, e, t in
                            zip(q.tolist(), d.tolist(), r.tolist(), s.tolist(), tail,
                                strict=True)))
    return n


def write_qrels(run: Path, qrels: Path) -> None:
    with run.open() as src, qrels.open("w") as out:
        for i, line in enumerate(src):
            if i % 10 == 0 and not line.startswith("#"):
                parts = line.split()
                out.write(f"{parts[0]} 0 {parts[2]} {i % 3}\n")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=500.0, help="run size in MB (default 500)")
    ap.add_argument("--paths", default="clean,comment,mixed,ragged")
    ap.add_argument("--evaluate", action="store_true", help="also evaluate (clean layout)")
    ap.add_argument("--dir", default=None, help="folder for the files (default: temp)")
    args = ap.parse_args(argv)
    if not sys.platform.startswith("linux"):
        sys.exit("needs Linux (/proc/self/status, /proc/self/clear_refs)")
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}, "
          f"load average {os.getloadavg()[0]:.2f} (other jobs share this machine)")
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        folder = Path(tmp)
        print(f"{'layout':<10}{'file MB':>9}{'lines':>12}{'columns MB':>12}{'peak MB':>10}"
              f"{'x file':>8}{'x columns':>11}{'B/line':>8}{'seconds':>9}")
        env = dict(os.environ)
        for layout in args.paths.split(","):
            run = folder / f"{layout}.run"
            n = write_run(run, args.mb, layout)
            size = run.stat().st_size
            cases = [("read", layout)]
            if args.evaluate and layout == "clean":
                qrels = folder / "qrels"
                write_qrels(run, qrels)
                cases.append(("evaluate", "clean+eval"))
            for mode, label in cases:
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, mode, str(run), str(folder / "qrels")],
                    capture_output=True, text=True, env=env, check=True)
                peak, cols, secs = out.stdout.split()
                p, c = int(peak), int(cols)
                print(f"{label:<10}{size / 1e6:>9.0f}{n:>12,}{c / 1e6:>12.0f}{p / 1e6:>10.0f}"
                      f"{p / size:>8.2f}{p / c:>11.2f}{p / n:>8.0f}{float(secs):>9.1f}", flush=True)
            run.unlink()
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
    t = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"measured {t}")


if __name__ == "__main__":
    main()
