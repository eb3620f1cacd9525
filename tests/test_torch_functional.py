"""rankmetrics.torch functional kernels: agreement with the numpy core, layouts, dtypes, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _extras import require
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmetrics as rm

torch = require("torch")
F = require("rankmetrics.torch.functional")

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
METRICS = ["cg", "dcg", "ncg", "ndcg", "precision", "recall", "f1", "fbeta",
           "average_precision", "reciprocal_rank"]
TIES = ["average", "optimistic", "pessimistic", "stable"]
CUTOFFS = [None, 1, 3, 8]
TOL = {torch.float64: dict(rtol=1e-14, atol=1e-12),  # summation order differs
       torch.float32: dict(rtol=1e-5, atol=1e-5)}


def tied_case(seed: int, n_queries: int = 40, max_docs: int = 24, levels: int = 5,
              score_levels: int = 6):
    """Flat labels/scores/qids with many tied scores, rows of the queries interleaved."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs + 1, n_queries)
    qid = np.repeat(rng.permutation(n_queries * 7)[:n_queries], sizes)
    n = qid.size
    y = rng.choice(levels, n, p=np.r_[0.45, np.full(levels - 1, 0.55 / (levels - 1))])
    s = rng.integers(0, score_levels, n) / score_levels + np.repeat(rng.normal(size=n_queries),
                                                                    sizes)
    perm = rng.permutation(n)
    return y[perm], s[perm], qid[perm]


def assert_close(torch_values, core_values, dtype):
    got = torch_values.detach().cpu().to(torch.float64).numpy()
    np.testing.assert_allclose(got, core_values, equal_nan=True, **TOL[dtype])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("ties", TIES)
def test_flat_agrees_with_core(device, dtype, ties):
    y, s, q = tied_case(1)
    s = s.astype(np.float32) if dtype == torch.float32 else s
    preds = torch.tensor(s, dtype=dtype, device=device)
    target = torch.tensor(y, device=device)
    indexes = torch.tensor(q, device=device)
    for name in METRICS:
        for k in CUTOFFS:
            core = getattr(rm, name)(y, s, q, k=k, ties=ties)
            got = getattr(F, name)(preds, target, indexes, k=k, ties=ties)
            assert got.device.type == device and got.dtype == dtype
            assert_close(got, core, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("ties", TIES)
def test_padded_mask_agrees_with_core(device, dtype, ties):
    rng = np.random.default_rng(2)
    b, length = 30, 16
    n = rng.integers(1, length + 1, b)
    mask = np.zeros((b, length), dtype=bool)
    for i in range(b):  # real documents anywhere in the row
        mask[i, rng.permutation(length)[: n[i]]] = True
    y = rng.integers(0, 4, (b, length))
    s = (rng.integers(0, 5, (b, length)) / 4).astype(np.float32 if dtype == torch.float32
                                                     else np.float64)
    qid = np.repeat(np.arange(b), mask.sum(1))
    preds = torch.tensor(np.where(mask, s, np.nan), dtype=dtype, device=device)
    target = torch.tensor(np.where(mask, y, -1), device=device)  # padding junk is ignored
    m = torch.tensor(mask, device=device)
    for name in METRICS:
        for k in CUTOFFS:
            core = getattr(rm, name)(y[mask], s[mask], qid, k=k, ties=ties)
            got = getattr(F, name)(preds, target, mask=m, k=k, ties=ties)
            assert got.shape == (b,)
            assert_close(got, core, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_padded_without_mask_is_one_query_per_row(device):
    y, s = np.array([[3, 2, 0, 1], [0, 1, 1, 0]]), np.array([[1.0, 1.0, 0.5, 0.5], [2, 2, 2, 1]])
    got = F.ndcg(torch.tensor(s, device=device), torch.tensor(y, device=device), k=2)
    np.testing.assert_allclose(got.cpu().numpy(), rm.ndcg(y, s, k=2), atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_ties_in_input_dtype(device, dtype):
    y, s, q = tied_case(3)
    half = torch.tensor(s * 37.0, dtype=dtype, device=device)  # rounding creates extra ties
    as_f32 = half.float().cpu().numpy()  # exact widening: the same ties
    for name in ["ndcg", "average_precision", "reciprocal_rank", "precision"]:
        for ties in ["average", "optimistic"]:
            got = getattr(F, name)(half, torch.tensor(y, device=device),
                                   torch.tensor(q, device=device), k=5, ties=ties)
            assert got.dtype == torch.float32
            assert_close(got, getattr(rm, name)(y, as_f32, q, k=5, ties=ties), torch.float32)


def test_float64_scores_are_not_collapsed_to_float32():
    y = np.array([1, 0])
    s = np.array([1.0, 1.0 + 1e-12])  # equal in float32, distinct in float64
    got = F.precision(torch.tensor(s), torch.tensor(y), k=1)
    assert got.item() == 0.0
    assert F.precision(torch.tensor(s, dtype=torch.float32), torch.tensor(y), k=1).item() == 0.5


@pytest.mark.parametrize(
    "options",
    [
        dict(gain="linear"),
        dict(gain=[0.0, 1.0, 10.0, 100.0, 1000.0]),
        dict(gain=[5.0, 1.0, 0.0, 3.0, 2.0]),  # not monotone in the label
        dict(gain={0: 0.0, 1: 0.5, 2: 2.0, 3: 4.0, 4: 9.0}),
        dict(gain=lambda lab: np.sqrt(lab)),
        dict(discount="jarvelin2002", log_base=3),
        dict(discount="jarvelin2008", log_base=4),
        dict(discount="none"),
        dict(discount=lambda r: 1.0 / r),
        dict(log_base=10),
    ],
)
def test_gain_and_discount_options_agree(options):
    y, s, q = tied_case(4, n_queries=25)
    args = torch.tensor(s), torch.tensor(y), torch.tensor(q)
    for name in ["cg", "dcg", "ncg", "ndcg"]:
        kw = {key: v for key, v in options.items()
              if name in ("dcg", "ndcg") or key == "gain"}
        for k in [None, 4]:
            for ties in ["average", "pessimistic"]:
                core = getattr(rm, name)(y, s, q, k=k, ties=ties, **kw)
                assert_close(getattr(F, name)(*args, k=k, ties=ties, **kw), core, torch.float64)


def test_float_labels_with_linear_gain_and_threshold():
    y, s, q = tied_case(5)
    y = y * 0.75  # non-integer grades
    args = torch.tensor(s), torch.tensor(y), torch.tensor(q)
    assert_close(F.ndcg(*args, k=5, gain="linear"), rm.ndcg(y, s, q, k=5, gain="linear"),
                 torch.float64)
    for name in ["precision", "recall", "average_precision", "reciprocal_rank"]:
        core = getattr(rm, name)(y, s, q, k=6, threshold=1.5)
        assert_close(getattr(F, name)(*args, k=6, threshold=1.5), core, torch.float64)


@pytest.mark.parametrize(("labels", "match"), [
    ([0.5, 0.0, 1.5], r'labels must be integers with gain="exponential".*found 0.5'),
    ([60.0, 0.0, 1.0], r"label 60 is too large for gain 2\*\*l - 1"),
])
def test_a_measures_own_exponential_gain_checks_the_labels_as_the_core(labels, match):
    """nDCG(gain=exponential)@3 under the call's gain="linear" computed 2**0.5 - 1 for a label
    0.5 in torch (the call's gain alone was checked) where the core, and torch with the call's
    gain="exponential", refuse it."""
    from rankmetrics.torch import RankingMetric, RankingMonitor

    s, q = [1.0, 2.0, 3.0], [0, 0, 0]
    name = "nDCG(gain=exponential)@3"
    with pytest.raises(ValueError, match=match):
        rm.QueryPlan(labels, q).evaluate(s, name, gain="linear")
    args = (torch.tensor(s, dtype=torch.float64), torch.tensor(labels), torch.tensor(q))
    with pytest.raises(ValueError, match=match):
        F.evaluate(*args, metrics=[name, "AP"], gain="linear")
    monitor = RankingMonitor([name], gain="linear")
    with pytest.raises(ValueError, match=match):
        monitor.update(*args)
    metric = RankingMetric([name], gain="linear")
    with pytest.raises(ValueError, match=match):
        metric.update(*args)
        metric.compute()
    # the linear measure beside it still takes such labels
    out = F.evaluate(*args, metrics=["nDCG(gain=linear)@3"], gain="exponential")
    assert_close(out["nDCG(gain=linear)@3"],
                 rm.QueryPlan(labels, q).evaluate(s, "nDCG@3", gain="linear")["nDCG@3"],
                 torch.float64)


@pytest.mark.parametrize("empty", [0.0, 1.0, "skip"])
def test_empty_rule_beta_and_denominator(empty):
    y, s, q = tied_case(6)
    y[q == q[0]] = 0  # at least one query without relevant documents
    args = torch.tensor(s), torch.tensor(y), torch.tensor(q)
    for name in ["ncg", "ndcg", "precision", "recall", "f1", "average_precision",
                 "reciprocal_rank"]:
        core = getattr(rm, name)(y, s, q, k=3, empty=empty)
        got = getattr(F, name)(*args, k=3, empty=empty)
        assert_close(got, core, torch.float64)
        assert torch.isnan(got).any().item() == (empty == "skip")
    assert_close(F.fbeta(*args, beta=0.5, k=4), rm.fbeta(y, s, q, beta=0.5, k=4), torch.float64)
    assert_close(F.average_precision(*args, k=4, denominator="min_k_relevant"),
                 rm.average_precision(y, s, q, k=4, denominator="min_k_relevant"),
                 torch.float64)


def test_empty_error_names_the_queries():
    y = torch.tensor([0, 0, 1, 0])
    with pytest.raises(ValueError, match=r"undefined for queries without relevant documents "
                                         r"\(queries \[4\]\)"):
        F.ndcg(torch.tensor([1.0, 2.0, 3.0, 4.0]), y, torch.tensor([4, 4, 9, 9]), empty="error")
    with pytest.raises(ValueError, match=r"reciprocal rank is undefined.*\[0\]"):
        F.reciprocal_rank(torch.zeros(2, 2), torch.tensor([[0, 0], [1, 0]]), empty="error")


def test_evaluate_shares_one_ranking_and_matches_plan():
    y, s, q = tied_case(7)
    names = ["ndcg@10", "ndcg@3", "dcg", "p@5", "r@5", "f1@5", "map", "ap@4", "mrr", "rr@2",
             "ncg@4", "cg"]
    for ties in TIES:
        core = rm.QueryPlan(y, q).evaluate(s, names, ties=ties)
        got = F.evaluate(torch.tensor(s), torch.tensor(y), torch.tensor(q), metrics=names,
                         ties=ties)
        assert list(got) == names
        for name in names:
            assert_close(got[name], core[name], torch.float64)


def test_skewed_query_lengths_use_length_blocks():
    rng = np.random.default_rng(8)
    sizes = np.r_[rng.integers(1, 4, 300), [500, 70]]  # padding to 500 would waste >2x
    q = np.repeat(np.arange(sizes.size), sizes)
    y = rng.integers(0, 3, q.size)
    s = rng.integers(0, 8, q.size).astype(np.float64)
    perm = rng.permutation(q.size)
    y, s, q = y[perm], s[perm], q[perm]
    layout = F.prepare(torch.tensor(s), torch.tensor(y), torch.tensor(q))
    assert len(layout.blocks) > 1
    for ties in TIES:
        got = F.evaluate(torch.tensor(s), torch.tensor(y), torch.tensor(q),
                         metrics=["ndcg@10", "map", "rr"], ties=ties)
        core = rm.QueryPlan(y, q).evaluate(s, ["ndcg@10", "map", "rr"], ties=ties)
        for name, v in got.items():
            assert_close(v, core[name], torch.float64)


def test_large_labels_fall_back_from_level_counts():
    y = np.array([70, 3, 0, 65, 1])
    s = np.array([0.1, 0.9, 0.9, 0.3, 0.2])
    got = F.ndcg(torch.tensor(s), torch.tensor(y), k=2, gain="linear")
    assert_close(got, rm.ndcg(y, s, k=2, gain="linear"), torch.float64)


def test_single_query_integer_and_bool_scores():
    y = np.array([2, 0, 1, 1, 0])
    for s in [np.array([3, 3, 1, 0, 0]), np.array([True, True, False, True, False])]:
        got = F.ndcg(torch.tensor(s), torch.tensor(y), k=3)
        assert got.dtype == torch.float64 and got.shape == (1,)
        assert_close(got, rm.ndcg(y, s, k=3), torch.float64)


def test_lists_accepted_and_bool_target():
    got = F.precision([0.3, 0.3, 0.1], [True, False, True], k=2)
    assert_close(got, rm.precision([1, 0, 1], [0.3, 0.3, 0.1], k=2), torch.float64)


def test_reversed_numpy_arrays_accepted():
    """A reversed numpy array (``a[::-1]``, negative strides, which torch cannot share) was a
    TypeError for preds, indexes and mask, in the functions, RankingMetric and pad_slates;
    the numpy core takes them."""
    rmt = require("rankmetrics.torch")
    rng = np.random.default_rng(3)
    s = rng.integers(0, 4, 30) / 4.0
    y = rng.integers(0, 3, 30)
    q = np.sort(rng.integers(0, 5, 30))
    want = F.ndcg(s[::-1].copy(), y[::-1].copy(), q[::-1].copy(), k=3)
    assert torch.equal(F.ndcg(s[::-1], y[::-1], q[::-1], k=3), want)
    assert_close(want, rm.ndcg(y[::-1], s[::-1], q[::-1], k=3), torch.float64)
    p, t, m = rmt.pad_slates(s[::-1], y[::-1], q[::-1])
    assert torch.equal(F.ndcg(p.numpy()[:, ::-1], t.numpy()[:, ::-1], mask=m.numpy()[:, ::-1],
                              k=3), F.ndcg(p.flip(1), t.flip(1), mask=m.flip(1), k=3))
    require("torchmetrics")
    metric = rmt.RankingMetric("ndcg@3")
    metric.update(s[::-1], y[::-1], q[::-1])
    assert metric.compute().item() == pytest.approx(want.mean().item(), abs=1e-12)


def test_masked_numpy_indexes_and_mask_are_refused():
    """A numpy masked array as indexes (or as the padded mask) lost its mask in
    ``np.asarray``: the hidden ids were read as data (indexes [1, --, 2] evaluated as [1, 1,
    2], silently), while masked preds and target were refused. Now every argument is refused
    the same way, naming it; a mask with nothing masked reads as the plain array."""
    rmt = require("rankmetrics.torch")
    s = np.array([0.5, 0.2, 0.9, 0.1, 0.3, 0.3])
    y = np.array([3, 0, 1, 2, 0, 1])
    q = np.array([1, 1, 1, 2, 2, 2])
    hidden = np.ma.array(q, mask=[0, 1, 0, 0, 0, 0])
    with pytest.raises(ValueError, match=r"^indexes is a masked array with masked entries"):
        F.ndcg(s, y, hidden)
    pad = np.ma.array(np.ones((2, 3), dtype=bool), mask=[[0, 1, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match=r"^mask is a masked array with masked entries"):
        F.ndcg(s.reshape(2, 3), y.reshape(2, 3), mask=pad)
    require("torchmetrics")
    metric = rmt.RankingMetric("ndcg")
    with pytest.raises(ValueError, match=r"^indexes is a masked array with masked entries"):
        metric.update(s, y, hidden)
    assert torch.equal(F.ndcg(s, y, np.ma.array(q)), F.ndcg(s, y, q))


def test_missing_host_indexes_are_named_missing():
    """pandas' nullable Int64 ids with NA read as float64 NaN in ``np.asarray``: the error said
    "indexes must be an integer tensor; got torch.float64", for ids that are integers. Now it
    says that they have missing values; the same ids without NA evaluate as int64 ones."""
    pd = require("pandas")
    s = np.array([0.3, 0.2, 0.1])
    y = np.array([1, 0, 1])
    for ids in (pd.array([1, pd.NA, 2], dtype="Int64"), pd.Series([1, None, 2], dtype="Int64"),
                [1.0, float("nan"), 2.0]):
        with pytest.raises(ValueError, match=r"^indexes has missing values"):
            F.ndcg(s, y, ids)
    full = pd.array([1, 2, 2], dtype="Int64")
    assert torch.equal(F.ndcg(s, y, full), F.ndcg(s, y, np.array([1, 2, 2])))


def test_no_gradients_and_grad_modes():
    preds = torch.tensor([0.5, 0.5, 0.2], requires_grad=True)
    target = torch.tensor([1, 0, 1])
    out = F.ndcg(preds, target)
    assert not out.requires_grad
    with torch.no_grad():
        assert torch.equal(F.ndcg(preds, target), out)
    with torch.inference_mode():
        assert torch.equal(F.ndcg(preds, target), out)


def test_sparse_nested_and_meta_tensors_are_named_errors():
    """Sparse (COO/CSR) or nested preds, target, indexes or mask crashed inside torch
    (NotImplementedError "Could not run 'aten::aminmax' ... 'SparseCPU' backend", RuntimeError
    "NestedTensorImpl doesn't support sizes"), as did meta tensors in pad_slates, in the
    split-query guard of RankingMonitor / spanning=True (aten::_unique2) and a meta loss; each
    is now an error naming the argument."""
    rmt = require("rankmetrics.torch")
    p, t, q = torch.tensor([0.5, 0.0, 0.2]), torch.tensor([1, 0, 1]), torch.tensor([0, 1, 1])
    p2, t2, m2 = p[None], t[None], torch.tensor([[True, False, True]])
    sparse = r"is a sparse tensor \(torch.sparse_coo\); pass a dense one"
    for call, match in [
        (lambda: F.ndcg(p.to_sparse(), t), "preds " + sparse),
        (lambda: F.ndcg(p, t.to_sparse()), "target " + sparse),
        (lambda: F.ndcg(p, t, q.to_sparse()), "indexes " + sparse),
        (lambda: F.ndcg(p2.to_sparse(), t2), "preds " + sparse),
        (lambda: F.ndcg(p2, t2, mask=m2.to_sparse()), "mask " + sparse),
        (lambda: rmt.pad_slates(p.to_sparse(), t, q), "preds " + sparse),
        (lambda: rmt.RankingMonitor("ndcg").update(p.to_sparse(), t), "preds " + sparse),
    ]:
        with pytest.raises(TypeError, match=match):
            call()
    nested = torch.nested.nested_tensor([p, p[:2]], layout=torch.jagged)
    for call in [lambda: F.ndcg(nested, nested), lambda: rmt.pad_slates(nested, nested, q)]:
        with pytest.raises(TypeError, match=r"preds is a nested tensor; pad it"):
            call()
    meta = r"is on the meta device \(a shape without data\)"
    mp, mq = torch.empty(3, device="meta"), torch.zeros(3, dtype=torch.long, device="meta")
    for call, match in [
        (lambda: rmt.pad_slates(mp, mp, mq), "preds " + meta),
        (lambda: rmt.pad_slates(p, t, mq), "indexes " + meta),
        (lambda: rmt.pad_slates(p, mp, q), "target " + meta),
        (lambda: rmt.RankingMonitor("ndcg").update(p, t, mq), "indexes " + meta),
        (lambda: rmt.RankingMonitor("ndcg", spanning=True).update(mp, mp, mq), "preds " + meta),
        (lambda: rmt.RankingMonitor("ndcg").update(p, t, loss=mp), "loss " + meta),
        (lambda: rmt.RankingMonitor("ndcg", device="meta"), "device is the meta device"),
    ]:
        with pytest.raises(ValueError, match=match):
            call()


def test_int64_labels_float64_would_round_are_refused_as_in_the_core():
    """int64 (or uint64) labels of 2**53 or more that float64 rounds were scored silently
    (dcg of [2**53 + 1, 0] with linear gain: 2**53, the core: ValueError); now the core's
    error, padding under the mask aside, and exact large labels (2**62) still pass."""
    s = torch.tensor([0.3, 0.2])
    msg = r"target has an integer label, 9007199254740993, that float64 cannot hold exactly"
    with pytest.raises(ValueError, match=r"y_true has an integer label, 9007199254740993"):
        rm.dcg([2**53 + 1, 0], s.numpy(), gain="linear")
    for target in (torch.tensor([2**53 + 1, 0]), torch.tensor([2**53 + 1, 0]).to(torch.uint64),
                   [2**53 + 1, 0]):
        with pytest.raises(ValueError, match=msg):
            F.dcg(s, target, gain="linear")
    with pytest.raises(ValueError, match=msg):
        F.precision(s, torch.tensor([0, 2**53 + 1]), torch.tensor([4, 9]))
    with pytest.raises(ValueError, match=r"9223372036854775807, that float64"):
        F.dcg(s, torch.tensor([2**63 - 1, 0]), gain="linear")
    padded = torch.tensor([[2**53 + 1, 1]])
    assert F.precision(s[None], padded, mask=torch.tensor([[False, True]])).item() == 1.0
    assert_close(F.dcg(s, torch.tensor([2**62, 0]), gain="linear"),
                 rm.dcg([2**62, 0], s.numpy(), gain="linear"), torch.float64)


def test_gain_sums_that_overflow_float64_raise_the_core_error():
    """Finite labels whose gain x discount sums overflow float64 gave NaN (ndcg, dcg, cg,
    nCG, graded RBP, gains= weights) where the core raises; RankingMetric then left such a
    query out of its mean as if skipped (mean 1.0 over [[1e308, 1e308], [1, 0]] instead of an
    error). Now the core's ValueError; sums that stay finite are unchanged."""
    msg = r"the gain x discount sums overflow float64 \(inf\)"
    s = torch.tensor([0.3, 0.3, 0.1, 0.5], dtype=torch.float64)
    y = torch.tensor([1e308, 1e308, 1e308, 0.0], dtype=torch.float64)
    with pytest.raises(ValueError, match=msg):
        rm.ndcg(y.numpy(), s.numpy(), gain="linear")
    for ties in ("average", "stable"):  # (optimistic: rank 1 holds the 0, the sums fit)
        for name in ("cg", "dcg", "ncg", "ndcg", "RBP(p=0.5)"):
            with pytest.raises(ValueError, match=msg):
                F.evaluate(s, y, metrics=[name], gain="linear", ties=ties)
        with pytest.raises(ValueError, match=msg):
            F.ndcg(s, torch.tensor([1, 2, 1, 0]), gain={0: 0.0, 1: 1e308, 2: 1e308}, ties=ties)
    with pytest.raises(ValueError, match=r"sums overflow torch.float32 \(inf\), the dtype of the "
                                         r"sums of torch.float32 scores; pass float64 preds"):
        F.ndcg(s.float(), torch.tensor([1e38, 1e38, 3e38, 0.0]), gain="linear")  # was NaN
    for name in ("ndcg@1", "dcg@1"):  # the top document has label 0: nothing overflows
        assert F.evaluate(s, y, metrics=[name], gain="linear")[name].item() == 0.0
    big = torch.tensor([1e306, 0.0, 2e306], dtype=torch.float64)
    assert_close(F.dcg(s[:3], big, gain="linear"), rm.dcg(big.numpy(), s[:3].numpy(),
                                                          gain="linear"), torch.float64)
    rmt = require("rankmetrics.torch")
    require("torchmetrics")
    metric = rmt.RankingMetric("ndcg", gain="linear")
    with pytest.raises(ValueError, match=msg):
        metric.update(torch.tensor([[0.3, 0.3], [0.1, 0.2]], dtype=torch.float64),
                      torch.tensor([[1e308, 1e308], [1.0, 0.0]], dtype=torch.float64))


def test_validate_false_gives_the_same_values():
    y, s, q = tied_case(9)
    args = torch.tensor(s), torch.tensor(y), torch.tensor(q)
    for name in ["ndcg", "average_precision"]:
        a = getattr(F, name)(*args, k=5)
        b = getattr(F, name)(*args, k=5, validate=False)
        assert torch.equal(a, b)


def test_output_order_follows_sorted_indexes():
    got = F.precision(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1, 0, 1]),
                      torch.tensor([30, -5, 7]), k=1)
    assert got.tolist() == [0.0, 1.0, 1.0]  # queries -5, 7, 30


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 2)),
                  min_size=1, max_size=30),
    k=st.one_of(st.none(), st.integers(1, 6)),
    ties=st.sampled_from(TIES),
)
def test_hypothesis_agreement(data, k, ties):
    y = np.array([d[0] for d in data])
    s = np.array([d[1] for d in data], dtype=np.float64)
    q = np.array([d[2] for d in data])
    got = F.evaluate(torch.tensor(s), torch.tensor(y), torch.tensor(q), ties=ties,
                     metrics=[f"{m}@{k}" if k else m for m in ["ndcg", "ap", "rr", "p", "f1"]])
    core = rm.QueryPlan(y, q).evaluate(s, list(got), ties=ties)
    for name, v in got.items():
        assert_close(v, core[name], torch.float64)


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: F.ndcg(torch.ones(3), torch.ones(4)), ValueError,
         r"preds and target must have the same shape; got \(3,\) and \(4,\)"),
        (lambda: F.ndcg(torch.ones(2, 2, 2), torch.ones(2, 2, 2)), ValueError, r"got 3-D"),
        (lambda: F.ndcg(torch.ones(0), torch.ones(0)), ValueError, r"preds is empty"),
        (lambda: F.ndcg(torch.tensor([1.0, math.nan]), torch.ones(2)), ValueError,
         r"preds must be finite \(no NaN or inf\); found nan"),
        (lambda: F.ndcg(torch.tensor([1.0, math.inf]), torch.ones(2)), ValueError,
         r"preds must be finite"),
        (lambda: F.ndcg(torch.ones(2), torch.tensor([1.0, -1.0])), ValueError,
         r"target must be non-negative graded labels; found -1"),
        (lambda: F.ndcg(torch.ones(2), torch.tensor([1.0, math.nan])), ValueError,
         r"target must be finite; found nan"),
        (lambda: F.ndcg(torch.ones(2), torch.tensor([1.5, 1.0])), ValueError,
         r'labels must be integers with gain="exponential".*found 1.5'),
        (lambda: F.ndcg(torch.ones(2), torch.tensor([1024, 1])), ValueError,
         r"label 1024 is too large for gain 2\*\*l - 1"),
        (lambda: F.ndcg(torch.ones(2), torch.tensor([3, 1]), gain=[0, 1]), ValueError,
         r"label 3 has no gain weight: 2 weights given \(levels 0..1\)"),
        (lambda: F.ndcg(torch.ones(2), torch.tensor([3, 1]), gain={1: 1.0}), ValueError,
         r"gain mapping has no weight for label\(s\) \[3.0\]"),
        (lambda: F.ndcg(torch.ones(2), torch.tensor([3, 1]), gain="squared"), ValueError,
         r"gain must be one of 'exponential', 'linear'"),
        (lambda: F.ndcg(torch.ones(2), torch.ones(2), discount="log3"), ValueError,
         r"discount must be one of"),
        (lambda: F.ndcg(torch.ones(2), torch.ones(2), log_base=1), ValueError,
         r"log_base must be > 1"),
        (lambda: F.ndcg(torch.ones(2), torch.ones(2), ties="random"), ValueError,
         r"ties must be one of 'average', 'optimistic', 'pessimistic', 'stable'; got 'random'"),
        (lambda: F.ndcg(torch.ones(2), torch.ones(2), k=0), ValueError,
         r"k must be a positive int or None; got 0"),
        (lambda: F.ndcg(torch.ones(2), torch.ones(2), k=2.5), TypeError,
         r"k must be a positive int or None; got 2.5"),
        (lambda: F.ndcg(torch.ones(2), torch.ones(2), empty="drop"), ValueError,
         r"empty must be one of 'skip', 'error'; got 'drop'"),
        (lambda: F.fbeta(torch.ones(2), torch.ones(2), beta=0), ValueError, r"beta must be > 0"),
        (lambda: F.average_precision(torch.ones(2), torch.ones(2), denominator="k"), ValueError,
         r"denominator must be one of 'relevant', 'min_k_relevant', 'found'; got 'k'"),
        (lambda: F.ndcg(torch.ones(2), torch.ones(2), torch.tensor([0.0, 1.0])), TypeError,
         r"indexes must be an integer tensor \(e.g. torch.long\); got torch.float32"),
        (lambda: F.ndcg(torch.ones(2), torch.ones(2), torch.tensor([0, 1, 1])), ValueError,
         r"indexes must have one entry per row \(2,\); got shape \(3,\)"),
        (lambda: F.ndcg(torch.ones(2, 2), torch.ones(2, 2), torch.tensor([0, 1])), ValueError,
         r"indexes is for flat \(N,\) input"),
        (lambda: F.ndcg(torch.ones(2), torch.ones(2), mask=torch.ones(2, dtype=torch.bool)),
         ValueError, r"mask is for padded \(B, L\) input"),
        (lambda: F.ndcg(torch.ones(2, 2), torch.ones(2, 2), mask=torch.ones(2, 2)), TypeError,
         r"mask must be a bool tensor \(True = real document\); got torch.float32"),
        (lambda: F.ndcg(torch.ones(2, 2), torch.ones(2, 2),
                        mask=torch.ones(2, 3, dtype=torch.bool)), ValueError,
         r"mask must have the shape of preds \(2, 2\); got \(2, 3\)"),
        (lambda: F.ndcg(torch.ones(2), torch.tensor([1 + 1j, 0j])), TypeError,
         r"target must be numeric, got dtype torch.complex64"),
        (lambda: F.ndcg(torch.tensor([2**60, 1]), torch.ones(2)), ValueError,
         r"preds has integers of magnitude 2\*\*53 or more"),
        (lambda: F.ndcg(None, torch.ones(2)), TypeError, r"preds must be a tensor, got None"),
        (lambda: F.evaluate(torch.ones(2), torch.ones(2), metrics=["ndcg@10", "hits@3"]),
         ValueError, r"unknown measure 'hits@3'"),
        (lambda: F.evaluate(torch.ones(2), torch.ones(2), metrics=[]), ValueError,
         r"metrics must name at least one measure"),
        (lambda: F.ndcg(torch.ones(2), torch.ones(2), gain=lambda lab: -lab), ValueError,
         r"gain callable returned a negative gain"),
    ],
)
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_gain_weight_errors():
    with pytest.raises(ValueError, match=r"gain weights must be a non-empty sequence"):
        F.ndcg(torch.ones(2), torch.ones(2), gain=[])
    with pytest.raises(ValueError, match=r"gain mapping returned a negative gain"):
        F.ndcg(torch.ones(2), torch.ones(2), gain={1: -1.0})


def test_options_are_validated_once_per_value_and_type():
    a = F.cached_options(threshold=1, empty=0.0)
    assert F.cached_options(empty=0.0, threshold=1) is a  # keyword order does not matter
    b = F.cached_options(threshold=1.0, empty=0.0)  # equal value, another type: its own entry
    assert b is not a and b.threshold == a.threshold
    for _ in range(2):  # an invalid value is rejected every time (errors are not cached)
        with pytest.raises(ValueError, match="beta"):
            F.cached_options(beta=0)
    weights = [0.0, 1.0, 3.0]  # unhashable: validated each call, not cached
    c = F.cached_options(gain=weights)
    assert c is not F.cached_options(gain=weights) and c.gain == weights


def test_measure_names_are_parsed_once_and_bad_names_fail_every_time():
    first = F.parse_names(["ndcg@10", "P@5"])
    again = F.parse_names(("ndcg@10", "P@5"))
    assert [p.name for p in first] == ["ndcg@10", "P@5"]
    assert first == again and F.parse_names("ndcg@10")[0] is F.parse_names("ndcg@10")[0]
    first.append(first[0])  # the caller's list is its own
    assert len(F.parse_names(["ndcg@10", "P@5"])) == 2
    for _ in range(2):
        with pytest.raises(ValueError):
            F.parse_names("nDCG@0")


def test_discount_key_follows_a_reassigned_discount():
    opt = rm.core.options.MetricOptions(discount="log", log_base=2)
    assert opt.dkey() == ("log", 2.0)
    opt.discount = "none"
    assert opt.dkey() == ("none",)
    opt.discount, opt.log_base = "jarvelin2002", 10
    assert opt.dkey() == ("jarvelin2002", 10.0)


def test_unchecked_padded_call_leaves_inputs_alone():
    """validate=False on padded input skips detach/convert for tensors that need no gradient:
    the inputs stay as they were, and a tensor that needs one is not tracked."""
    preds = torch.tensor([[0.5, 0.5, 0.1], [0.2, 0.9, 0.9]], requires_grad=True)
    target = torch.tensor([[2, 0, 1], [0, 1, 3]], dtype=torch.int32)
    before = preds.detach().clone(), target.clone()
    got = F.ndcg(preds, target, k=2, validate=False)
    assert not got.requires_grad and got.dtype == torch.float32
    assert torch.equal(preds.detach(), before[0]) and torch.equal(target, before[1])
    assert target.dtype == torch.int32
    want = F.ndcg(preds.detach(), target.to(torch.float64), k=2)
    assert torch.equal(got, want)
