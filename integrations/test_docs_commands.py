"""The slow part of the docs test: the commands ``python examples/...`` and
``python benchmarks/... --quick`` shown in README.md and docs/, and the sample data's script.

Rules and the fast part: tests/_docblocks.py and tests/test_docs_blocks.py. Each command runs
as written in a scratch copy of examples/ and benchmarks/ (beside ../shared), so files it
writes never land in the checkout.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _docblocks import (  # noqa: E402
    ROOT,
    doc_commands,
    output_matches,
    python_env,
    scratch,
)
from _extras import require  # noqa: E402

# run with these exact arguments by integrations/test_examples.py already
COVERED = {("examples/lightgbm_early_stopping.py",), ("examples/sklearn_model_selection.py",),
           ("examples/spark_model_selection.py",)}
# a command shown in several places (README.md and a docs page) runs once; the output each
# place shows is checked against that run
_PLACES: dict[tuple[str, ...], list[tuple[str, str | None]]] = {}
for _where, _cmd, _expected in doc_commands(("example", "benchmark")):
    if tuple(_cmd[1:]) not in COVERED and (_cmd[1].startswith("examples/") or "--quick" in _cmd):
        _PLACES.setdefault(tuple(_cmd), []).append((_where, _expected))
COMMANDS = [(places, list(cmd)) for cmd, places in _PLACES.items()]


def test_covered_commands_are_run_elsewhere():
    text = (ROOT / "integrations" / "test_examples.py").read_text()
    for (script,) in COVERED:
        assert Path(script).name in text


def test_each_documented_command_runs_once():
    """Every place a command is shown stays checked, by one run of it."""
    places = [(w, tuple(c)) for w, c, _ in doc_commands(("example", "benchmark"))
              if tuple(c[1:]) not in COVERED and (c[1].startswith("examples/") or "--quick" in c)]
    assert len({c for _, c in places}) == len(COMMANDS)
    assert sorted(places) == sorted((w, tuple(c)) for ps, c in COMMANDS for w, _ in ps)


@pytest.mark.parametrize(("places", "cmd"), COMMANDS, ids=[" ".join(c) for _, c in COMMANDS])
def test_doc_command_runs(places, cmd, tmp_path):
    require("lightgbm")
    require("matplotlib")
    repo = scratch(tmp_path)
    proc = subprocess.run([sys.executable, *cmd[1:]], cwd=repo, env=python_env(),
                          capture_output=True, text=True, timeout=600)
    where = ", ".join(w for w, _ in places)
    assert proc.returncode == 0, f"{where}: {' '.join(cmd)} failed:\n{proc.stderr[-3000:]}"
    for place, expected in places:
        if expected is not None:
            assert output_matches(expected, proc.stdout), (
                f"{place}: the printed output changed; regenerate the block from\n{proc.stdout}")


def test_sample_runs_are_reproducible(tmp_path):
    """examples/data is exactly what examples/make_sample_runs.py writes."""
    require("lightgbm")
    out = tmp_path / "sample"
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "make_sample_runs.py"),
                           "-o", str(out)], env=python_env(), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    shipped = ROOT / "examples" / "data"
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(p.name for p in shipped.iterdir() if p.name != "README.md")
    for name in names:
        assert (out / name).read_text() == (shipped / name).read_text(), name
