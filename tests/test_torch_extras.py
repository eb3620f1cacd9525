"""torch stays optional; the example and the benchmark run (small sizes)."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from _extras import require

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_core_import_does_not_import_torch():
    out = run_python("import sys, rankmetrics, rankmetrics.datasets; "
                     "print('torch' in sys.modules)")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_missing_torch_names_the_extra():
    out = run_python("import sys; sys.modules['torch'] = None; import rankmetrics.torch")
    assert out.returncode != 0
    assert "ImportError: rankmetrics.torch needs PyTorch" in out.stderr
    assert "pip install 'rankmetrics[torch]'" in out.stderr


def test_missing_torchmetrics_names_the_extra():
    require("torch")
    out = run_python("import sys; sys.modules['torchmetrics'] = None\n"
                     "import rankmetrics.torch as rt\n"
                     "rt.RankingMonitor('ndcg@10')\n"
                     "rt.RankingMetric")
    assert out.returncode != 0
    assert "pip install 'rankmetrics[torchmetrics]'" in out.stderr


def test_example_trains_and_reports_ties(capsys):
    require("torch")
    module = runpy.run_path(str(ROOT / "examples" / "torch_training_monitor.py"))
    assert module["main"](["--queries", "120", "--epochs", "3", "--patience", "2"]) == 0
    out = capsys.readouterr().out
    assert "valid queries with tied top-10 scores" in out
    assert "best validation nDCG@10" in out


def test_benchmark_runs_small(monkeypatch, capsys):
    require("torch")
    module = runpy.run_path(str(ROOT / "benchmarks" / "bench_torch.py"))
    monkeypatch.setattr(sys, "argv", ["bench_torch.py", "--queries", "50", "--repeat", "1"])
    module["main"]()
    out = capsys.readouterr().out
    assert "max |rankmetrics.torch - numpy core| per query: 0.0e+00" in out
    assert "torchmetrics RetrievalNormalizedDCG(top_k=10)" in out


@pytest.mark.parametrize("name", ["cg", "ndcg", "average_precision", "reciprocal_rank"])
def test_public_names_mirror_the_core(name):
    require("torch")
    import inspect

    import rankmetrics
    import rankmetrics.torch as rt

    core = inspect.signature(getattr(rankmetrics, name)).parameters
    ours = inspect.signature(getattr(rt, name)).parameters
    shared = [p for p in core if p not in ("y_true", "y_score", "qid")]
    assert all(p in ours for p in shared)
