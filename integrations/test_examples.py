"""The runnable examples a user copies (the LightGBM one is the README's main job) still run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _extras import require

ROOT = Path(__file__).resolve().parents[1]


def _run(script: str, *args: str, timeout: int = 300) -> str:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *args],
        capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.parametrize("script", ["lightgbm_early_stopping.py"])
def test_main_job_example_runs(script):
    require("lightgbm")
    out = _run(script)
    assert "best iteration (tie-aware)" in out
    assert "tie-aware" in out and "LightGBM ndcg@10" in out
    file_line = next(line for line in out.splitlines() if "file order:" in line)
    shuffled_line = next(line for line in out.splitlines() if "shuffled:" in line)
    # ours is identical under the shuffle; LightGBM's row-order value is not
    ours_file, ours_shuffled = file_line.split("tie-aware")[1], shuffled_line.split("tie-aware")[1]
    lgb_file = file_line.split("tie-aware")[0].split()[-1]
    lgb_shuffled = shuffled_line.split("tie-aware")[0].split()[-1]
    assert ours_file == ours_shuffled
    assert lgb_file != lgb_shuffled


def test_sklearn_example_runs():
    require("sklearn")
    require("lightgbm")
    out = _run("sklearn_model_selection.py")
    assert "±" in out or "+/-" in out


@pytest.mark.parametrize("letor", [False, True], ids=["generated", "letor"])
def test_xgboost_example_runs(letor, shared_data):
    require("xgboost")
    require("sklearn")
    args = ["--rounds", "40", "--stopping-rounds", "5", "--every", "10"]
    if letor:
        folder = shared_data / "lightgbm_lambdarank"
        args += ["--train", str(folder / "rank.train"), "--valid", str(folder / "rank.test")]
    else:
        args += ["--n-queries", "150"]
    out = _run("xgboost_early_stopping.py", *args)
    assert "best iteration (tie-aware)" in out
    assert "XGBoost ndcg@10" in out and "tie-aware" in out
    assert out.count("best iteration") == 3  # all three routes stopped and reported


def test_dask_lightgbm_example_runs():
    require("lightgbm")
    require("distributed")
    out = _run("dask_lightgbm_early_stopping.py", "--train-queries", "120",
               "--valid-queries", "80", "--rounds", "40", "--stopping-rounds", "5")
    assert "global tie-aware nDCG@10" in out and "LightGBM ndcg@10 worker 0" in out
    assert "(matches: True)" in out
    best = next(line for line in out.splitlines() if line.startswith("best iteration"))
    assert "of" in best


def test_spark_model_selection_example_runs():
    """The command the README and the distributed guide show, as they show it (so
    test_docs_commands.py does not run it again: a Spark cross-validation is CI's slowest
    example)."""
    require("pyspark")
    require("xgboost")
    out = _run("spark_model_selection.py", timeout=600)
    assert "best parameters" in out and "(matches: True)" in out
