"""Shared state under threads: caches read by one call while another fills them.

A thread switch can fall between any two lines of pure Python; these tests force one at
each line in turn (``sys.settrace``), running the other call at that point, so the
interleaving is deterministic rather than left to the scheduler.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from rankmetrics.core import backend as _backend


def _interleave(code: Any, writer: Callable[[], Any], reader: Callable[[], Any], at: int
                ) -> tuple[Any, list[Any], int]:
    """Run ``writer``; at the ``at``-th line it executes in ``code``, run ``reader`` (as a
    thread switched to there would). Returns the writer's result, the reader's, and the
    number of lines the writer ran in ``code``."""
    seen = [0]
    got: list[Any] = []

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            seen[0] += 1
            if seen[0] == at:
                sys.settrace(None)
                try:
                    got.append(reader())
                finally:
                    sys.settrace(outer)
        return local

    def outer(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code is code else None

    sys.settrace(outer)
    try:
        out = writer()
    finally:
        sys.settrace(None)
    return out, got, seen[0]


def test_remembered_nonzero_count_read_while_another_call_stores_it() -> None:
    # whole-list AP on one shared plan from two threads: the second read the count of the
    # first's half-stored entry (KeyError) when the array and its count were two dicts
    values = (np.arange(300) % 3).astype(np.float64)
    want = int(np.count_nonzero(values))
    others = [np.ones(5 + i) for i in range(70)]  # enough to make the cache drop its entries
    code = _backend._nonzero_of.__code__
    for reader in (lambda: _backend._nonzero_of(values),
                   lambda: [_backend._nonzero_of(o) for o in others][0]):
        for warm in (False, True):
            at = 1
            while True:
                _backend._NONZERO_OF.clear()
                if warm:
                    _backend._nonzero_of(values)
                out, got, lines = _interleave(code, lambda: _backend._nonzero_of(values),
                                              reader, at)
                assert out == want
                assert got and got[0] in (want, 5)
                if at >= lines:
                    break
                at += 1
