"""Import optional extras in tests: a missing one fails the test, in CI and outside it."""

from __future__ import annotations

import importlib
import os
import unittest
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


def in_ci() -> bool:
    """Whether the tests run under CI (``CI`` set and not "0"/"false")."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def fail_missing(reason: str) -> None:
    """Fail the calling test (or module, at its top) naming ``reason``: a test whose extra or
    data is missing is a check not made, so it never skips -- under CI, which installs every
    extra and has ../shared/data beside the checkout, nor outside it (the README's test
    command installs them all)."""
    where = ("CI does not allow" if in_ci()
             else "install the extras: pip install -e '.[dev]' 'torch==2.13.0'")
    pytest.fail(f"cannot run ({where}): {reason}", pytrace=False)


def require(module_name: str) -> ModuleType:
    """Import ``module_name``; a failure (never a skip) when it is absent."""
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:  # pragma: no cover - depends on environment
        fail_missing(f"{module_name} not installed ({exc})")
        raise


def call_unskipped(what: str, fn: Callable[..., Any], *args: Any,
                   skip_type: type[BaseException] = unittest.SkipTest) -> Any:
    """``fn(*args)``; a ``skip_type`` it raises (default ``unittest.SkipTest``: how a library's
    own checks skip, e.g. scikit-learn's estimator checks) fails the test naming ``what``, in
    CI and outside it: a check the library skipped is a check not made. Other exceptions pass
    through. (``skip_type`` lets the conversion be tested without any test raising a skip.)"""
    try:
        return fn(*args)
    except skip_type as exc:
        pytest.fail(f"{what} skipped, so it was not checked: {exc}")


def shared_data_dir() -> Path:
    """Locate ``../shared/data`` beside the checkout; fail (never skip) when it is missing."""
    env = os.environ.get("RANKMETRICS_SHARED_DATA")
    path = Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"
    if not path.is_dir():
        pytest.fail(
            f"shared conformance data not found at {path}; put ../shared beside the checkout "
            "or set RANKMETRICS_SHARED_DATA"
        )
    return path
