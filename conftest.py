"""Root pytest configuration: under CI no test may skip.

CI (``CI=true``) installs every extra and puts ../shared/data beside the checkout, so a test that
skips there hides a failure. Tests skip through ``tests/_extras.py`` (``require``,
``skip_or_fail``), which already fail under CI; the hooks below turn any other skip -- a
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


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """A whole module skipped at collection (a module-level ``importorskip`` or
    ``pytest.skip(allow_module_level=True)``) fails under CI like a skipped test."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and _in_ci():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, which hides a failure: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CI a skipped test (any way it skips: a mark, ``pytest.skip``, a library's
    ``unittest.SkipTest``) and an expected failure (``xfail``, which hides a failure just the
    same) are reported as failures."""
    outcome = yield
    report = outcome.get_result()
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


# The suite meets four versions of the compiled fused pass (float32 or float64 scores, times
# uint8 or float64 gains), about 2-2.5 minutes of compiling each from a fresh cache. Under CI,
# with pytest-xdist's two workers, each worker compiles two of them first, so that the workers
# compile different versions at the same time (numba's cache on disk then serves every later
# call, in either worker) instead of whichever versions their first tests meet, the same ones
# possibly in both. Outside CI nothing is compiled ahead (a developer running a few tests pays
# only for what they call).
_FIRST_COMPILED = {"gw0": (("float64", "exponential"), ("float32", "table")),
                   "gw1": (("float32", "exponential"), ("float64", "table"))}


@pytest.fixture(scope="session", autouse=True)
def _compile_in_halves_under_ci(request):
    # the xdist worker itself (a pytest child process a test starts inherits its environment
    # variables, not its ``workerinput``)
    worker = getattr(request.config, "workerinput", None)
    if worker is None or worker.get("workercount") != 2 or not _in_ci() \
            or importlib.util.find_spec("numba") is None:
        return
    halves = _FIRST_COMPILED.get(worker.get("workerid", ""))
    if halves is None:
        return
    import numpy as np

    import rankmetrics as rm

    if rm.get_backend() != "numba":
        return
    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(50), 40)  # lists longer than the counted ones: the sorted walk too
    y = rng.integers(0, 4, q.size)
    s = rng.random(q.size)
    for dtype, gain in halves:
        rm.QueryPlan(y, q).evaluate(s.astype(dtype), ["ndcg@10", "map"],
                                    gain=[0.0, 1.5, 2.5, 3.5] if gain == "table" else gain)
