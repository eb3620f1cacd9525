"""Root pytest configuration: under CI no test may skip.

CI (``CI=true``) installs every extra and puts ../shared/data beside the checkout, so a test that
skips there hides a failure. Tests skip through ``tests/_extras.py`` (``require``,
``skip_or_fail``), which already fail under CI; this hook turns any other skip -- a
``pytest.mark.skipif``, an ``importorskip``, a doctest ``+SKIP`` -- into a failure as well.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

# Modules that import an optional dependency at the top are not collected for doctests where it
# is missing (CI installs every extra, so there they are).
collect_ignore = ["rankmetrics/torch/_triton.py"] if importlib.util.find_spec("triton") is None \
    else []


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail") and _in_ci():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, which hides a failure: {reason}"
