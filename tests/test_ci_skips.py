"""Under CI (``CI=true``) no test and no test module may skip (root ``conftest.py``,
``tests/_extras.py``); outside CI they skip as usual. Each case runs pytest in a fresh process
on a small test file, with the root conftest loaded as a plugin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CASES = {
    "module-level importorskip": "import pytest\n"
                                 "pytest.importorskip('rankmetrics_no_such_module')\n"
                                 "def test_x():\n    pass\n",
    "module-level require": "from _extras import require\n"
                            "require('rankmetrics_no_such_module')\n"
                            "def test_x():\n    pass\n",
    "skipif mark": "import pytest\n"
                   "@pytest.mark.skipif(True, reason='always')\n"
                   "def test_x():\n    pass\n",
    "skip_or_fail in a test": "from _extras import skip_or_fail\n"
                              "def test_x():\n    skip_or_fail('a reason')\n",
}


def _run(tmp_path: Path, body: str, ci: str) -> subprocess.CompletedProcess[str]:
    test = tmp_path / "test_case.py"
    test.write_text(body)
    env = {**os.environ, "CI": ci,
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-p", "conftest", "--rootdir", str(tmp_path),
                           str(test)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("case", list(CASES))
def test_a_skip_fails_under_ci_and_skips_outside(tmp_path: Path, case: str) -> None:
    under_ci = _run(tmp_path, CASES[case], "true")
    assert under_ci.returncode != 0, under_ci.stdout
    assert "skipped" not in under_ci.stdout.splitlines()[-1], under_ci.stdout
    outside = _run(tmp_path, CASES[case], "")
    assert outside.returncode in (0, 5), outside.stdout + outside.stderr  # 5: none collected
    assert "skipped" in outside.stdout.splitlines()[-1], outside.stdout
