"""Under CI (``CI=true``) no test and no test module may skip (root ``conftest.py``,
``tests/_extras.py``); outside CI they skip as usual. Each case runs pytest in a fresh process
on a small test file (their bodies: ``_skip_cases.py``), with the root conftest loaded as a
plugin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _extras import call_unskipped
from _skip_cases import CASES, library_check_that_skips

ROOT = Path(__file__).resolve().parents[1]


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
    body, outside_word = CASES[case]
    under_ci = _run(tmp_path, body, "true")
    assert under_ci.returncode != 0, under_ci.stdout
    summary = under_ci.stdout.splitlines()[-1]
    assert "skipped" not in summary and "xfailed" not in summary, under_ci.stdout
    assert "failed" in summary or "error" in summary, under_ci.stdout
    outside = _run(tmp_path, body, "")
    assert outside.returncode in (0, 5), outside.stdout + outside.stderr  # 5: none collected
    assert outside_word in outside.stdout.splitlines()[-1], outside.stdout


def test_a_library_check_that_skips_fails_the_test() -> None:
    # how test_sklearn.py runs scikit-learn's estimator checks: a check skipped is not made
    with pytest.raises(pytest.fail.Exception, match="scikit-learn's check_x skipped, so it was "
                       "not checked: not applicable"):
        call_unskipped("scikit-learn's check_x", library_check_that_skips)
    assert call_unskipped("a check", lambda a, b: a + b, 1, 2) == 3
    with pytest.raises(ValueError, match="kept"):  # other errors pass through unchanged
        call_unskipped("a check", lambda: (_ for _ in ()).throw(ValueError("kept")))


# the two tests of the suite that depend on the platform (Linux's /proc, the fork start
# method) measure or start their workers another way elsewhere: run on a platform made to
# look like another one, each runs and passes, under CI and outside it (no skip path).
GUARDED = ["tests/test_trec_readers.py::"
           "test_reading_memory_is_bounded_by_the_parsed_columns[pyarrow]",
           "tests/test_torch_monitor.py::test_all_reduce_of_monitor_state"]

OTHER_PLATFORM = """import pytest


class _OtherSys:
    \"\"\"The test module's ``sys`` with another ``platform`` (the rest is the real one's:
    libraries go on reading the real platform).\"\"\"

    platform = "darwin"

    def __init__(self, real):
        self._real = real

    def __getattr__(self, name):
        return getattr(self._real, name)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    mod = item.module
    real = mod.sys
    mod.sys = _OtherSys(real)
    try:
        yield
    finally:
        mod.sys = real
"""


@pytest.mark.parametrize("test_id", GUARDED, ids=["trec readers", "torch monitor"])
def test_platform_dependent_tests_run_on_another_platform(tmp_path: Path, test_id: str) -> None:
    (tmp_path / "other_platform.py").write_text(OTHER_PLATFORM)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
           "CI": "true"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:xdist", "-p", "other_platform", test_id],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    last = run.stdout.splitlines()[-1] if run.stdout else ""
    assert run.returncode == 0 and "1 passed" in last, run.stdout[-3000:] + run.stderr[-2000:]
