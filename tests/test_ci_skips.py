"""Under CI (``CI=true``) no test and no test module may skip (root ``conftest.py``); a
missing extra or data file fails, in CI and outside it (``tests/_extras.py``: the suite itself
has no skip call).

The root conftest's :func:`fail_under_ci` turns a skipped or expected-failure report into a
failure under CI: it is tested here on the reports pytest makes for every way a test skips (a
mark or a fixture in setup, a library's skip exception in the call, a module skipped at
collection, an xfail), built directly, so that no file of the suite skips in order to test it.
A few cases run pytest end to end in a fresh process on a small test file (the root conftest
loaded as a plugin): the ``_extras`` helpers (which fail, never skip), a parametrization over
nothing, and an
xfail mark (turned into a failure by the hook). Their bodies are data in
``tests/ci_skip_cases/*.txt``; the first line of each names the case and what pytest reports
outside CI."""

from __future__ import annotations

import importlib.util
import inspect
import os
import subprocess
import sys
import unittest
from pathlib import Path
from types import ModuleType

import pytest
from _extras import call_unskipped

ROOT = Path(__file__).resolve().parents[1]
CASE_DIR = Path(__file__).resolve().parent / "ci_skip_cases"
#: a test file that skips, expects a failure or misses an extra -> the word pytest's summary
#: prints outside CI (a missing extra fails there too: "error" at collection, else "failed")
OUTSIDE = {"module_level_require": "error", "fail_missing_in_a_test": "failed",
           "empty_parameter_set": "skipped",  # a parametrization over nothing (no data found)
           "xfail_mark": "xfailed"}


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
    assert {p.stem for p in CASE_DIR.glob("*.txt")} == set(OUTSIDE)


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
    if outside_word in ("skipped", "xfailed"):  # pytest's own skips: CI's hook alone fails them
        assert outside.returncode in (0, 5), outside.stdout + outside.stderr  # 5: none collected
    else:  # the _extras helpers fail outside CI too, saying how to install what is missing
        assert outside.returncode != 0 and "pip install" in outside.stdout, outside.stdout
    assert outside_word in outside.stdout.splitlines()[-1], outside.stdout


def _root_conftest() -> ModuleType:
    # imported under its own name: tests/conftest.py is the "conftest" of this directory
    spec = importlib.util.spec_from_file_location("rankmetrics_root_conftest",
                                                  ROOT / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _test_report(when: str, outcome: str = "skipped", **extra: object) -> pytest.TestReport:
    longrepr = ("test_case.py", 3, "Skipped: the reason") if outcome == "skipped" else None
    return pytest.TestReport("test_case.py::test_x", ("test_case.py", 3, "test_x"), {},
                             outcome, longrepr, when, **extra)


# the reports pytest makes: a skip mark or a skip in a fixture in the setup phase, a skip call
# or a library's skip exception in the call phase, a fixture's finaliser in teardown
SKIPPED = {f"test {when}": lambda when=when: _test_report(when)
           for when in ("setup", "call", "teardown")}
SKIPPED["module at collection"] = lambda: pytest.CollectReport(
    "test_case.py", "skipped", ("test_case.py", 3, "Skipped: the reason"), [])


@pytest.mark.parametrize("make", list(SKIPPED.values()), ids=list(SKIPPED))
def test_fail_under_ci_turns_a_skipped_report_into_a_failure(monkeypatch, make) -> None:
    fail_under_ci = _root_conftest().fail_under_ci
    monkeypatch.setenv("CI", "true")
    report = make()
    fail_under_ci(report)
    assert report.failed and not report.skipped
    assert report.longrepr == "skipped under CI, which hides a failure: Skipped: the reason"
    for ci in ("", "false", "0"):  # outside CI a skip stays a skip
        monkeypatch.setenv("CI", ci)
        report = make()
        fail_under_ci(report)
        assert report.skipped, ci


def test_fail_under_ci_turns_an_xfail_into_a_failure(monkeypatch) -> None:
    fail_under_ci = _root_conftest().fail_under_ci
    monkeypatch.setenv("CI", "true")
    report = _test_report("call")
    report.wasxfail = "known"
    fail_under_ci(report)
    assert report.failed and not hasattr(report, "wasxfail")
    assert report.longrepr == "xfail under CI, which hides a failure: known"


def test_fail_under_ci_leaves_other_outcomes(monkeypatch) -> None:
    fail_under_ci = _root_conftest().fail_under_ci
    monkeypatch.setenv("CI", "true")
    for outcome in ("passed", "failed"):
        report = _test_report("call", outcome)
        fail_under_ci(report)
        assert report.outcome == outcome


def test_call_unskipped_fails_a_check_the_library_skipped() -> None:
    # how test_sklearn.py runs scikit-learn's estimator checks, which skip by raising
    # unittest's skip exception: a check skipped is a check not made, so the test fails, in
    # CI and outside it. The conversion is driven with a stand-in exception type (so that no
    # test here raises a skip), and the default type is checked to be unittest's; anything
    # else escaping call_unskipped fails this test too.
    class LibrarySkip(Exception):
        pass

    def check() -> None:
        raise LibrarySkip("not applicable")

    default = inspect.signature(call_unskipped).parameters["skip_type"].default
    assert default is unittest.SkipTest
    try:
        call_unskipped("scikit-learn's check_x", check, skip_type=LibrarySkip)
    except pytest.fail.Exception as exc:
        assert "scikit-learn's check_x skipped, so it was not checked: not applicable" in str(exc)
    except BaseException as exc:  # noqa: BLE001 - the stand-in itself must not escape
        pytest.fail(f"call_unskipped let {exc!r} through")
    else:
        pytest.fail("call_unskipped returned instead of failing")


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


def test_a_parametrization_over_nothing_fails_at_collection(pytestconfig) -> None:
    """Tests parametrized over what collection finds (doc blocks, commands, data files) would
    skip if it found nothing; the project's pytest configuration makes that a collection
    failure instead, in CI and outside it."""
    assert pytestconfig.getini("empty_parameter_set_mark") == "fail_at_collect"
