"""Documented input rules that the code did not honour (docs probe 48c)."""

from __future__ import annotations

import numpy as np
import pytest

import rankmetrics as rm


@pytest.fixture(params=["numba", "numpy"])
def backend(request):
    old = rm.get_backend()
    rm.set_backend(request.param)
    yield request.param
    rm.set_backend(old)


@pytest.mark.parametrize("wrap", [list, tuple], ids=["list", "tuple"])
def test_python_int_qids_beyond_int64_mixed_with_small_ones_stay_distinct(backend, wrap):
    # README: qids are "ints of any size kept exact". numpy reads [2**63 + 1, 2**63, 0] as
    # float64, where 2**63 + 1 == 2**63: two queries were merged into one
    ids = [2**63 + 1, 2**63 + 1, 2**63, 2**63, 0, 0]
    y, s = [1, 0, 0, 1, 1, 0], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    expected = np.array([rm.ndcg(y[i:i + 2], s[i:i + 2])[0] for i in (4, 2, 0)])  # unique order
    np.testing.assert_array_equal(rm.ndcg(y, s, wrap(ids)), expected)
    assert rm.QueryPlan(y, wrap(ids)).n_queries == 3


@pytest.mark.parametrize("wrap", [list, tuple], ids=["list", "tuple"])
def test_python_int_labels_beyond_int64_mixed_with_small_ones_are_refused(backend, wrap):
    # README: integer labels must be exactly float64 values, else ValueError. The list
    # [2**63 + 1, 1] became float64 [2**63, 1] and was scored as if the label were 2**63
    s = [0.1, 0.2]
    for call in (lambda: rm.precision(wrap([2**63 + 1, 1]), s),
                 lambda: rm.QueryPlan(wrap([2**63 + 1, 1])),
                 lambda: rm.ndcg(wrap([2**63 + 1, 1]), s, gain="linear")):
        with pytest.raises(ValueError, match="y_true has an integer label, 9223372036854775809"):
            call()
    # a label float64 holds exactly still passes, and is compared exactly
    np.testing.assert_array_equal(rm.precision(wrap([2**63, 1]), s, k=1, threshold=2**63), [0.0])
    np.testing.assert_array_equal(rm.precision(wrap([2**63, 1]), [0.2, 0.1], k=1,
                                               threshold=2**63), [1.0])
