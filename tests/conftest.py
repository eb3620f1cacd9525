from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _extras import require, shared_data_dir  # noqa: E402


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return shared_data_dir()


@pytest.fixture(params=["numba", "numpy"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each test twice: on the compiled kernel and on the numpy reference backend."""
    import rankmetrics as rm

    if request.param == "numba":
        require("numba")  # a failure, never a skip, when the compiled kernel is missing
    old = rm.get_backend()
    rm.set_backend(request.param)
    yield request.param
    rm.set_backend(old)
