"""Root pytest configuration: under CI no test may skip.

CI (``CI=true``) installs every extra and puts ../shared/data beside the checkout, so a test that
skips there hides a failure. Tests needing an extra go through ``tests/_extras.py`` (``require``,
``fail_missing``), which fail and never skip; the hooks below turn any other skip -- a
``pytest.mark.skipif``, an ``importorskip`` (in a test or at module level), a library's
``unittest.SkipTest``, a doctest ``+SKIP`` -- and any ``xfail`` into a failure as well, and
no module is left out of collection under CI.
"""

from __future__ import annotations

import importlib.util
import os

import pytest


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


# Modules that import an optional dependency at the top are not collected for doctests where it
# is missing, outside CI only: CI installs every extra, so there a missing one is a collection
# error, not a module silently left out.
collect_ignore = ["rankmetrics/torch/_triton.py"] if (
    importlib.util.find_spec("triton") is None and not _in_ci()) else []


def fail_under_ci(report) -> None:
    """Under CI, turn a skipped or expected-failure report (a ``pytest.TestReport`` of any
    phase or a ``pytest.CollectReport``) into a failure naming why it would have skipped;
    outside CI, or for any other outcome, leave it as it is."""
    if not (report.skipped and _in_ci()):
        return
    if hasattr(report, "wasxfail"):
        reason = report.wasxfail
        del report.wasxfail
        report.outcome = "failed"
        report.longrepr = f"xfail under CI, which hides a failure: {reason}"
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
    report.outcome = "failed"
    report.longrepr = f"skipped under CI, which hides a failure: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """A whole module skipped at collection (a module-level ``importorskip`` or
    ``pytest.skip(allow_module_level=True)``) fails under CI like a skipped test."""
    outcome = yield
    fail_under_ci(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CI a skipped test (any way it skips: a mark, ``pytest.skip``, a library's
    ``unittest.SkipTest``, in its setup, call or teardown) and an expected failure (``xfail``,
    which hides a failure just the same) are reported as failures."""
    outcome = yield
    fail_under_ci(outcome.get_result())
