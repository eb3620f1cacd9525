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
from _extras import require

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


def test_lightgbm_early_stopping_shared_by_two_trainings_at_once() -> None:
    # one callback object in two trainings that run at once (GridSearchCV's threading backend
    # passes the same fit params to every fit): their rounds interleave, and each must stop
    # on its own scores (the second's falling scores were compared with the first's best)
    lgb = require("lightgbm")
    from rankmetrics.lightgbm import early_stopping

    rng = np.random.default_rng(0)
    ds = lgb.Dataset(rng.normal(size=(40, 2)), rng.integers(0, 2, 40), group=[10] * 4)
    models = [lgb.Booster({"objective": "lambdarank", "verbose": -1}, ds) for _ in range(2)]
    curves = [[0.5, 0.6, 0.7, 0.8, 0.9, 0.95], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]]
    es = early_stopping(2, metric="m", verbose=False)
    stopped: dict[int, int] = {}
    for it in range(6):
        for t, (model, curve) in enumerate(zip(models, curves, strict=True)):
            if t in stopped:
                continue
            env = lgb.callback.CallbackEnv(
                model=model, params={}, iteration=it, begin_iteration=0, end_iteration=6,
                evaluation_result_list=[("valid_0", "m", curve[it], True)])
            try:
                es(env)
            except lgb.callback.EarlyStopException as stop:
                stopped[t] = stop.best_iteration
    assert stopped == {0: 5, 1: 0}  # rising: the last round; falling: the first
