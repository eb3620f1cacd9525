from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _extras import shared_data_dir  # noqa: E402


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return shared_data_dir()
