"""Import optional extras in tests: skip locally when missing, fail loudly in CI."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

import pytest


def require(module_name: str) -> ModuleType:
    """Import ``module_name``; skip when it is absent, except under CI where that is a failure."""
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:  # pragma: no cover - depends on environment
        if os.environ.get("CI"):
            pytest.fail(f"{module_name} is required in CI but cannot be imported: {exc}")
        pytest.skip(f"{module_name} not installed")
        raise


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
