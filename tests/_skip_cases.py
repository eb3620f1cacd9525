"""Bodies of the small test files that ``test_ci_skips.py`` runs in a child pytest: each
skips (or expects a failure) in one of the ways a test can, and the word pytest's summary
prints for it outside CI. Under CI (``CI=true``) every one must fail instead (root
``conftest.py``, ``_extras.py``). Data, not tests: nothing here is collected."""

from __future__ import annotations

# a test file that skips (or expects a failure), and its outcome outside CI
CASES: dict[str, tuple[str, str]] = {
    "module-level importorskip": ("import pytest\n"
                                  "pytest.importorskip('rankmetrics_no_such_module')\n"
                                  "def test_x():\n    pass\n", "skipped"),
    "module-level require": ("from _extras import require\n"
                             "require('rankmetrics_no_such_module')\n"
                             "def test_x():\n    pass\n", "skipped"),
    "skipif mark": ("import pytest\n"
                    "@pytest.mark.skipif(True, reason='always')\n"
                    "def test_x():\n    pass\n", "skipped"),
    "skip_or_fail in a test": ("from _extras import skip_or_fail\n"
                               "def test_x():\n    skip_or_fail('a reason')\n", "skipped"),
    # what scikit-learn's estimator checks raise to skip
    "a library's unittest.SkipTest": ("import unittest\n"
                                      "def test_x():\n"
                                      "    raise unittest.SkipTest('not applicable')\n",
                                      "skipped"),
    # pytest's own skip of a test parametrized over nothing (e.g. data files not found)
    "empty parameter set": ("import pytest\n"
                            "@pytest.mark.parametrize('x', [])\n"
                            "def test_x(x):\n    pass\n", "skipped"),
    "skip in a fixture": ("import pytest\n"
                          "@pytest.fixture\n"
                          "def needs():\n    pytest.skip('not here')\n"
                          "def test_x(needs):\n    pass\n", "skipped"),
    "xfail mark": ("import pytest\n"
                   "@pytest.mark.xfail(reason='known')\n"
                   "def test_x():\n    assert False\n", "xfailed"),
}


def library_check_that_skips() -> None:
    """A library check that skips the way scikit-learn's estimator checks do."""
    import unittest

    raise unittest.SkipTest("not applicable")
