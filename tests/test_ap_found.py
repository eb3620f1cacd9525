"""AP@k over the relevant documents found in the top k (``denominator="found"``).

Exact under ties: the mean over every ordering of tied scores (brute force), the max/min for
optimistic/pessimistic, in both kernels (numpy == numba bit for bit), torch, the TREC layer and
the measure language; torchmetrics' ``retrieval_average_precision(top_k=k)`` and
``RetrievalMAP(top_k=k)`` on tie-free positive scores (torchmetrics sorts with ``topk``, whose
order of tied scores is unspecified, treats scores <= 0 as not retrieved, and sums in float32).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from _extras import require
from oracle import orderings

import rankmetrics as rm


def found_ap(labels_in_rank_order, k):
    """Exact AP@k over the found relevant documents of one ranked list (0 if none)."""
    hits, total = 0, Fraction(0)
    for i, lab in enumerate(labels_in_rank_order[:k], 1):
        if lab:
            hits += 1
            total += Fraction(hits, i)
    return total / hits if hits else Fraction(0)


def brute(y, s, k):
    vals = [found_ap([y[i] for i in order], k) for order in orderings(s)]
    return float(sum(vals) / len(vals)), float(max(vals)), float(min(vals))


def _with(name):
    class _Ctx:
        def __enter__(self):
            self.prev = rm.get_backend()
            rm.set_backend(name)

        def __exit__(self, *exc):
            rm.set_backend(self.prev)

    return _Ctx()


def _cases(n_cases, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n_cases:
        n = int(rng.integers(1, 8))
        y = rng.integers(0, 2, n)
        s = rng.integers(0, 3, n).astype(float)
        if rng.random() < 0.3:
            s[:] = 1.0
        k = int(rng.integers(1, n + 2))
        out.append((y, s, k))
    return out


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_tie_modes_are_mean_max_min_over_orderings(backend):
    if backend == "numba" and not rm.core.backend.available():
        require("numba")
    with _with(backend):
        for y, s, k in _cases(150, 0):
            if y.sum() == 0:
                continue
            mean, best, worst = brute(list(y), list(s), k)
            for ties, want in (("average", mean), ("optimistic", best),
                               ("pessimistic", worst)):
                got = rm.average_precision(y, s, k=k, ties=ties, denominator="found")[0]
                assert got == pytest.approx(want, abs=1e-12), (y, s, k, ties)
            stable = [i for i in np.argsort(-s, kind="stable")]
            got = rm.average_precision(y, s, k=k, ties="stable", denominator="found")[0]
            assert got == pytest.approx(float(found_ap([y[i] for i in stable], k)), abs=1e-12)


def test_a_large_straddling_group_against_enumeration_of_j():
    """40 tied documents (9 relevant) below 3 others, k = 17: the hypergeometric sum against
    an independent computation, enumerating the relevant slot subsets by their count j."""
    from math import comb

    y = np.array([1, 0, 1] + [1] * 9 + [0] * 31)
    s = np.array([3.0, 2.0, 2.5] + [1.0] * 40)
    k, a, n, r, ra = 17, 3, 40, 9, 2
    slots = k - a
    above = Fraction(1, 1) + Fraction(2, 2)  # ranks 1 (a: 1/1) and 2 (c, score 2.5: 2/2)
    total = Fraction(0)
    for j in range(0, min(r, slots) + 1):
        p_j = Fraction(comb(r, j) * comb(n - r, slots - j), comb(n, slots))
        # E[sum of precisions of the group's j relevant documents | j]
        own = sum(Fraction(j, slots) * (ra + 1 + Fraction((p - 1) * (j - 1), max(slots - 1, 1)))
                  / (a + p) for p in range(1, slots + 1))
        total += p_j * (above + own) / (ra + j)
    for backend in ("numpy", "numba"):
        with _with(backend):
            got = rm.average_precision(y, s, k=k, denominator="found")[0]
            assert got == pytest.approx(float(total), abs=1e-12)


def test_numpy_and_numba_agree_bit_for_bit():
    rng = np.random.default_rng(1)
    n = 5000
    q = np.sort(rng.integers(0, 300, n))
    y = rng.integers(0, 3, n)
    s = rng.integers(0, 6, n).astype(float)
    names = ["AP(denominator=found)@5", "AP(denominator=found)@20", "AP(denominator=found)",
             "AP(denominator=found, ties=optimistic)@7",
             "AP(denominator=found, ties=pessimistic)@7", "AP(denominator=found, ties=stable)@7"]
    got = {}
    for backend in ("numpy", "numba"):
        with _with(backend):
            got[backend] = rm.QueryPlan(y, qid=q).evaluate(s, names)
    for name in names:
        assert np.array_equal(got["numpy"][name], got["numba"][name]), name


def test_worked_example_and_conventions():
    # relevant at ranks 1 and 3 of the top 3: (1/1 + 2/3) / 2, whatever R is
    y, s = [1, 0, 1, 1, 1], [5.0, 4.0, 3.0, 2.0, 1.0]
    assert rm.average_precision(y, s, k=3, denominator="found")[0] == pytest.approx(5 / 6)
    assert rm.average_precision(y, s, k=3)[0] == pytest.approx(5 / 12)
    # nothing relevant in the top k: 0 (torchmetrics), not empty
    assert rm.average_precision([0, 1], [2.0, 1.0], k=1, denominator="found")[0] == 0.0
    # no relevant document at all: the empty rule
    assert np.isnan(rm.average_precision([0, 0], [2.0, 1.0], k=1, denominator="found",
                                         empty="skip")[0])
    # tied pair at k = 1, one relevant: AP is 1 or 0 with probability 1/2 (E[sum]/E[d] is 1)
    assert rm.average_precision([1, 0], [1.0, 1.0], k=1, denominator="found")[0] == 0.5
    with pytest.raises(ValueError, match="denominator must be one of"):
        rm.average_precision([1], [1.0], denominator="founds")
    with pytest.raises(ValueError, match="'relevant', 'min_k_relevant' or 'found'"):
        rm.QueryPlan([1], qid=[0]).evaluate([1.0], ["AP(denominator=foo)@3"])


def test_torch_matches_the_core():
    torch = require("torch")
    from rankmetrics.torch import average_precision, evaluate

    rng = np.random.default_rng(2)
    n = 2000
    q = np.sort(rng.integers(0, 80, n))
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 5, n).astype(float)
    for ties in ("average", "optimistic", "pessimistic", "stable"):
        for k in (1, 3, 10, None):
            core = rm.average_precision(y, s, q, k=k, ties=ties, denominator="found")
            got = average_precision(torch.tensor(s), torch.tensor(y), torch.tensor(q), k=k,
                                    ties=ties, denominator="found").numpy()
            np.testing.assert_allclose(got, core, rtol=0, atol=1e-12, err_msg=f"{ties} {k}")
    S = torch.tensor(rng.integers(0, 3, (6, 9)).astype(float))
    Y = torch.tensor(rng.integers(0, 2, (6, 9)))
    out = evaluate(S, Y, metrics=["AP(denominator=found)@4"])["AP(denominator=found)@4"]
    want = rm.average_precision(Y.numpy().ravel(), S.numpy().ravel(), np.repeat(np.arange(6), 9),
                                k=4, denominator="found")
    np.testing.assert_allclose(out.numpy(), want, rtol=0, atol=1e-12)


def test_agrees_with_torchmetrics_on_tie_free_positive_scores():
    torch = require("torch")
    tm = require("torchmetrics")
    from torchmetrics.functional.retrieval import retrieval_average_precision

    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(1, 30))
        s = rng.permutation(n) + 1.0  # distinct and > 0
        y = rng.integers(0, 2, n)
        for k in (1, 3, 10, None):
            theirs = float(retrieval_average_precision(torch.tensor(s), torch.tensor(y),
                                                       top_k=k))
            ours = rm.average_precision(y, s, k=k, denominator="found", ties="stable",
                                        empty=0.0)[0]
            # torchmetrics sums its precisions in float32
            assert ours == pytest.approx(theirs, abs=1e-6), (y, s, k)
    q = np.repeat(np.arange(20), 12)
    s = np.concatenate([rng.permutation(12) + 1.0 for _ in range(20)])
    y = rng.integers(0, 2, q.size)
    metric = tm.retrieval.RetrievalMAP(top_k=5)
    metric.update(torch.tensor(s), torch.tensor(y), indexes=torch.tensor(q))
    ours = rm.average_precision(y, s, q, k=5, denominator="found", empty=0.0).mean()
    assert ours == pytest.approx(float(metric.compute()), abs=1e-6)


def test_trec_layer_and_measure_language():
    from rankmetrics.trec import evaluate

    qrels = {"q": {"a": 1, "b": 1, "c": 0, "d": 1, "z": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 2.0, "x": 2.0, "d": 1.0}}
    res = evaluate(qrels, run, ["AP(denominator=found)@3", "AP(denominator=min_k_relevant)@3",
                                "AP(denominator=found)"]).per_query.loc["q"]
    y = np.array([1, 1, 0, 0, 1])  # retrieved labels in run order (x unjudged)
    s = np.array([3.0, 2.0, 2.0, 2.0, 1.0])
    assert res["AP(denominator=found)@3"] == pytest.approx(
        rm.average_precision(y, s, k=3, denominator="found")[0], abs=1e-12)
    assert res["AP(denominator=found)"] == pytest.approx(
        rm.average_precision(y, s, denominator="found")[0], abs=1e-12)
    # min(k, R) with R = 4 from the qrels (z judged, not retrieved)
    ap_sum = rm.average_precision(y, s, k=3)[0] * 3  # the core's R here is 3
    assert res["AP(denominator=min_k_relevant)@3"] == pytest.approx(ap_sum / 3, abs=1e-12)
