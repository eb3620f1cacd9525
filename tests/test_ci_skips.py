"""Under CI (``CI=true``) no test and no test module may skip (root ``conftest.py``,
``tests/_extras.py``); outside CI they skip as usual. Each case runs pytest in a fresh process
on a small test file, with the root conftest loaded as a plugin. The files' bodies are data in
``tests/ci_skip_cases/*.txt`` (not Python modules of the suite: nothing there is collected or
imported here); the first line of each names the case and what pytest reports outside CI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _extras import call_unskipped

ROOT = Path(__file__).resolve().parents[1]
CASE_DIR = Path(__file__).resolve().parent / "ci_skip_cases"
#: a test file that skips (or expects a failure) in one of the ways a test can -> the word
#: pytest's summary prints for it outside CI
OUTSIDE = {"module_level_importorskip": "skipped", "module_level_require": "skipped",
           "skipif_mark": "skipped", "skip_or_fail_in_a_test": "skipped",
           "a_library_s_unittest_skiptest": "skipped",  # how scikit-learn's checks skip
           "empty_parameter_set": "skipped",  # a parametrization over nothing (no data found)
           "skip_in_a_fixture": "skipped", "xfail_mark": "xfailed"}


def _body(name: str) -> str:
    return (CASE_DIR / f"{name}.txt").read_text(encoding="utf-8")


def _run(tmp_path: Path, body: str, ci: str) -> subprocess.CompletedProcess[str]:
    test = tmp_path / "test_case.py"
    test.write_text(body)
    env = {**os.environ, "CI": ci,
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-p", "conftest", "--rootdir", str(tmp_path),
                           str(test)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_every_case_file_is_run() -> None:
    # a case file added without an entry here would never run
    assert {p.stem for p in CASE_DIR.glob("*.txt")} == set(OUTSIDE) | {
        "library_check_that_skips"}


@pytest.mark.parametrize("case", sorted(OUTSIDE))
def test_a_skip_fails_under_ci_and_skips_outside(tmp_path: Path, case: str) -> None:
    body, outside_word = _body(case), OUTSIDE[case]
    assert f"outside CI pytest reports: {outside_word}" in body.splitlines()[0]
    under_ci = _run(tmp_path, body, "true")
    assert under_ci.returncode != 0, under_ci.stdout
    summary = under_ci.stdout.splitlines()[-1]
    assert "skipped" not in summary and "xfailed" not in summary, under_ci.stdout
    assert "failed" in summary or "error" in summary, under_ci.stdout
    outside = _run(tmp_path, body, "")
    assert outside.returncode in (0, 5), outside.stdout + outside.stderr  # 5: none collected
    assert outside_word in outside.stdout.splitlines()[-1], outside.stdout


@pytest.mark.parametrize("ci", ["true", ""])
def test_a_library_check_that_skips_fails_the_test(tmp_path: Path, ci: str) -> None:
    # how test_sklearn.py runs scikit-learn's estimator checks: a check skipped is not made,
    # so the test fails, in CI and outside it
    run = _run(tmp_path, _body("library_check_that_skips"), ci)
    assert run.returncode == 1, run.stdout
    assert "1 failed" in run.stdout.splitlines()[-1], run.stdout
    assert "scikit-learn's check_x skipped, so it was not checked: not applicable" in run.stdout


def test_call_unskipped_passes_results_and_other_errors_through() -> None:
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
