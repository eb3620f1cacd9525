"""RankingMetric (torchmetrics.Metric): update/compute/reset/forward equal the numpy core."""

from __future__ import annotations

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm

torch = require("torch")
torchmetrics = require("torchmetrics")
rmt = require("rankmetrics.torch")
RankingMetric = rmt.RankingMetric

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def case(seed: int, n_queries: int = 40):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, n_queries)
    q = np.repeat(np.arange(n_queries), sizes)
    y = rng.choice(4, q.size, p=[0.5, 0.3, 0.15, 0.05])
    s = rng.integers(0, 5, q.size) / 5.0
    return y, s, q, sizes


def batches(sizes, per_batch):
    ends = np.cumsum(sizes)
    starts = ends - sizes
    for i in range(0, sizes.size, per_batch):
        yield slice(starts[i], ends[min(i + per_batch, sizes.size) - 1])


def mean(values):
    return float(np.nanmean(values))


@pytest.mark.parametrize("device", DEVICES)
def test_single_metric_update_compute_reset(device):
    y, s, q, sizes = case(0)
    metric = RankingMetric("ndcg@10").to(device)
    assert isinstance(metric, torchmetrics.Metric)
    for sl in batches(sizes, 6):
        metric.update(torch.tensor(s[sl], device=device), torch.tensor(y[sl], device=device),
                      indexes=torch.tensor(q[sl], device=device))
    value = metric.compute()
    assert value.ndim == 0 and value.device.type == device  # what Lightning's self.log needs
    assert value.item() == pytest.approx(mean(rm.ndcg(y, s, q, k=10)), abs=1e-12)
    metric.reset()
    assert metric.state.abs().sum().item() == 0


def test_dict_output_bounds_and_forward():
    y, s, q, sizes = case(1)
    names = ["ndcg@5", "map", "p@3"]
    metric = RankingMetric(names, bounds=True, count_ties=True)
    first = None
    for sl in batches(sizes, 8):
        out = metric(torch.tensor(s[sl]), torch.tensor(y[sl]), torch.tensor(q[sl]))
        if first is None:
            first = (sl, out)
    sl, out = first
    batch_ref = rm.QueryPlan(y[sl], q[sl]).evaluate(s[sl], names)
    for name in names:  # forward returns the value of the batch alone
        assert out[name].item() == pytest.approx(mean(batch_ref[name]), abs=1e-12)
    total = metric.compute()
    plan = rm.QueryPlan(y, q)
    for ties, suffix in [("average", ""), ("pessimistic", "_min"), ("optimistic", "_max")]:
        ref = plan.evaluate(s, names, ties=ties)
        for name in names:
            assert total[name + suffix].item() == pytest.approx(mean(ref[name]), abs=1e-12)
    assert total["queries"].item() == sizes.size
    assert {"tied@5", "tied@3", "tied"} <= set(total)


def test_padded_input_and_options():
    rng = np.random.default_rng(2)
    b, length = 16, 10
    mask = np.arange(length)[None, :] < rng.integers(1, length + 1, b)[:, None]
    y = rng.integers(0, 3, (b, length))
    s = rng.integers(0, 4, (b, length)).astype(np.float64)
    metric = RankingMetric("ndcg@3", gain="linear", discount="jarvelin2008", log_base=3,
                           ties="pessimistic", empty="skip")
    metric.update(torch.tensor(s), torch.tensor(y), mask=torch.tensor(mask))
    qid = np.repeat(np.arange(b), mask.sum(1))
    ref = rm.ndcg(y[mask], s[mask], qid, k=3, gain="linear", discount="jarvelin2008",
                  log_base=3, ties="pessimistic", empty="skip")
    assert metric.compute().item() == pytest.approx(mean(ref), abs=1e-12)


def test_spanning_batches_and_forward():
    y, s, q, sizes = case(3)
    metric = RankingMetric(["ndcg@10", "mrr"], spanning=True)
    cuts = np.sort(np.random.default_rng(3).choice(np.arange(1, q.size), 25, replace=False))
    for sl in np.split(np.arange(q.size), cuts):
        metric(torch.tensor(s[sl]), torch.tensor(y[sl]), torch.tensor(q[sl]))
    out = metric.compute()
    assert out["ndcg@10"].item() == pytest.approx(mean(rm.ndcg(y, s, q, k=10)), abs=1e-12)
    assert out["mrr"].item() == pytest.approx(mean(rm.reciprocal_rank(y, s, q)), abs=1e-12)
    metric.reset()
    assert metric.held_preds == []


@pytest.mark.parametrize("cls", ["metric", "monitor"])
def test_spanning_held_rows_keep_their_dtypes(cls):
    """A held-back query joins the next batch in the promoted dtype of both: its float scores
    were cast to an int batch's (0.9 and 0.1 became a tie at 0), its fractional labels
    truncated, float64 scores 1 + 1e-12 apart rounded to one float32. An empty batch of the
    stream changes nothing (RankingMetric raised IndexError)."""
    def make():
        if cls == "metric":
            return RankingMetric(["ndcg@1", "ndcg"], spanning=True, gain="linear")
        return rmt.RankingMonitor(["ndcg@1", "ndcg"], spanning=True, gain="linear",
                                  count_ties=False)

    def value(m):
        out = m.compute()
        return {k: float(out[k]) for k in ("ndcg@1", "ndcg")}

    empty = (torch.zeros(0), torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.long))
    cases = [  # (first batch, second batch): one query each, held back across the two
        ((torch.tensor([0.9, 0.1]), torch.tensor([0, 1])),
         (torch.tensor([3, 2]), torch.tensor([1, 0]))),
        ((torch.tensor([0.9, 0.1]), torch.tensor([0.5, 1.5])),
         (torch.tensor([0.3, 0.8]), torch.tensor([2, 0]))),
        ((torch.tensor([1.0, 1.0 + 1e-12], dtype=torch.float64), torch.tensor([0, 1])),
         (torch.tensor([0.25, 0.5]), torch.tensor([1, 0]))),
    ]
    for (p1, t1), (p2, t2) in cases:
        m = make()
        m.update(p1, t1, torch.tensor([7, 7]))
        m.update(*empty)
        m.update(p2, t2, torch.tensor([9, 9]))
        y = np.r_[t1.numpy(), t2.numpy()].astype(np.float64)
        s = np.r_[p1.numpy().astype(np.float64), p2.numpy().astype(np.float64)]
        q = np.array([7, 7, 9, 9])
        want = rm.QueryPlan(y, q).evaluate(s, ["ndcg@1", "ndcg"], gain="linear")
        got = value(m)
        for key in got:  # float32 labels are summed in float32 by the monitor (1e-8 here)
            assert got[key] == pytest.approx(float(np.mean(want[key])), abs=1e-6), key


def test_monitor_fed_under_inference_mode_resets_outside_it():
    """Lightning validates under torch.inference_mode(): the monitor's state made by its first
    update there was an inference tensor, and the next epoch's reset() (outside) raised
    RuntimeError."""
    mon = rmt.RankingMonitor("ndcg@2")
    for _ in range(2):
        mon.reset()
        with torch.inference_mode():
            mon.update(torch.tensor([0.2, 0.9]), torch.tensor([0, 1]), loss=0.5)
        assert mon.compute()["ndcg@2"] == 1.0
    mon.update(torch.tensor([0.9, 0.2]), torch.tensor([0, 1]))
    assert mon.compute()["queries"] == 2.0


@pytest.mark.parametrize("spanning", [False, True])
@pytest.mark.parametrize("step", ["forward", "reset"])
def test_metric_fed_under_inference_mode_updates_outside_it(spanning, step):
    """A forward() or reset() under torch.inference_mode() (Lightning's validation) made the
    sum state an inference tensor; the next update() outside that mode raised RuntimeError
    ("Inplace update to inference tensor outside InferenceMode"), where torchmetrics'
    RetrievalNormalizedDCG carries on. Now the update adds out of place."""
    p = torch.tensor([3.0, 2.0, 1.0, 3.0, 2.0, 1.0])
    t = torch.tensor([0, 1, 1, 1, 0, 0])
    idx = torch.tensor([0, 0, 0, 1, 1, 1])
    metric = RankingMetric("ndcg(gain=linear)@2", spanning=spanning)
    with torch.inference_mode():
        if step == "forward":
            metric(p, t, indexes=idx)
        else:
            metric.update(p, t, indexes=idx)
            metric.reset()
    metric.update(p, t, indexes=idx + 5)
    peer = torchmetrics.retrieval.RetrievalNormalizedDCG(top_k=2)
    for i in ([idx, idx + 5] if step == "forward" else [idx + 5]):
        peer.update(p, t, indexes=i)
    assert float(metric.compute()) == pytest.approx(float(peer.compute()), abs=1e-6)


def test_pad_slates_pad_value_a_dtype_cannot_hold():
    """-inf (a natural score padding), NaN or a fraction with integer or bool labels: that
    tensor's padding is 0 (it raised "value cannot be converted to type int64_t")."""
    preds, target, idx = torch.tensor([0.9, 0.2, 0.5]), torch.tensor([0, 1, 2]), torch.tensor(
        [1, 1, 2])
    for pad in (float("-inf"), float("nan"), 0.5, -1.0):
        for tgt in (target, target.to(torch.uint8), target > 0, target.double()):
            p, t, m = rmt.pad_slates(preds, tgt, idx, pad_value=pad)
            assert t.dtype == tgt.dtype and not m[1, 1]
            fits = tgt.dtype.is_floating_point or pad == -1.0 and tgt.dtype == torch.int64
            want = pad if fits else 0
            assert (torch.isnan(p[1, 1]) if pad != pad else p[1, 1].item() == pad)
            assert (torch.isnan(t[1, 1]) if pad != pad and fits else t[1, 1].item() == want)
            assert torch.equal(rmt.ndcg(p, t, mask=m), rmt.ndcg(preds, tgt, idx))


def test_pad_slates_keeps_float64_host_scores():
    """Python float lists became float32 slates (torch.as_tensor's default dtype): 0.1 and
    0.100000001 tied, nDCG 0.816 from the slates where the flat call gives 1.0."""
    preds, target, idx = [0.1, 0.100000001, 0.05], [0, 1, 0], [3, 3, 3]
    p, t, m = rmt.pad_slates(preds, target, idx)
    assert p.dtype == torch.float64 and t.dtype == torch.int64
    assert torch.equal(rmt.ndcg(p, t, mask=m), rmt.ndcg(preds, target, idx))
    assert rmt.ndcg(p, t, mask=m).item() == 1.0


def test_pad_slates_pad_value_checked():
    """None or text failed in torch.full with its own message, 2**70 with OverflowError (torch
    reads a Python int as int64 even for a float tensor); an int stays exact for int labels."""
    preds, target, idx = torch.tensor([0.9, 0.2, 0.5]), torch.tensor([0, 1, 2]), torch.tensor(
        [1, 1, 2])
    for bad in (None, "x", True):
        with pytest.raises(TypeError, match=r"pad_value must be a real number"):
            rmt.pad_slates(preds, target, idx, pad_value=bad)
    with pytest.raises(ValueError, match=r"pad_value must be within float64's range"):
        rmt.pad_slates(preds, target, idx, pad_value=2**2000)
    p, t, m = rmt.pad_slates(preds, target, idx, pad_value=2**70)
    assert p[1, 1].item() == float(2**70) and t[1, 1].item() == 0 and not m[1, 1]
    p, t, m = rmt.pad_slates(preds, target, idx, pad_value=2**62 + 1)
    assert t[1, 1].item() == 2**62 + 1
    p, t, m = rmt.pad_slates(preds, target, idx, pad_value=torch.tensor(-1.0))
    assert p[1, 1].item() == -1.0 and t[1, 1].item() == -1
    # finite, past a float tensor's range: torch.full's RuntimeError before
    for pad, dtype in ((1e39, torch.float32), (1e5, torch.float16)):
        with pytest.raises(ValueError, match=rf"pad_value .* is past the range of {dtype}"):
            rmt.pad_slates(preds.to(dtype), target, idx, pad_value=pad)
    assert torch.isinf(rmt.pad_slates(preds.half(), target, idx, pad_value=-float("inf"))[0][1, 1])


def test_metric_errors():
    with pytest.raises(ValueError, match=r"unknown measure 'ndcg10'"):
        RankingMetric("ndcg10")
    metric = RankingMetric("map")
    with pytest.raises(ValueError, match=r"preds and target must have the same shape"):
        metric.update(torch.ones(3), torch.ones(2), torch.zeros(3, dtype=torch.long))


@pytest.mark.parametrize("cls", ["metric", "monitor"])
@pytest.mark.parametrize("spanning", [False, True])
def test_query_rows_spread_over_batches_raise(cls, spanning):
    """Rows of one query in two batches, not at their boundary (a data loader shuffling rows):
    each part was scored as a whole query, a silent wrong mean (0.9077 here, where
    torchmetrics' RetrievalNormalizedDCG, which keeps every row, gives 0.9732). Now a
    ValueError naming the index; whole queries with distinct indexes, and a stream whose
    query continues at the start of the next batch (spanning=True), still go through."""
    def make(validate=True):
        if cls == "metric":
            return RankingMetric("ndcg", gain="linear", spanning=spanning, validate=validate)
        return rmt.RankingMonitor("ndcg", gain="linear", spanning=spanning,
                                  validate=validate, count_ties=False)

    f64, tt = torch.float64, torch.tensor
    b1 = (tt([.9, .8, .7, .6], dtype=f64), tt([0, 1, 1, 0]), tt([0, 0, 1, 1]))
    b2 = (tt([.5, .4, .95], dtype=f64), tt([1, 0, 1]), tt([2, 2, 0]))
    m = make()
    m.update(*b1[:2], indexes=b1[2])
    with pytest.raises(ValueError, match=r"indexes: index 0 of this batch .*(previous batch|"
                                         r"already scored)"):
        m.update(*b2[:2], indexes=b2[2])
    # whole queries, distinct indexes: the core's number
    b3 = (torch.tensor([.5, .4], dtype=torch.float64), torch.tensor([1, 0]), torch.tensor([2, 2]))
    m = make()
    for p, t, i in (b1, b3):
        m.update(p, t, indexes=i)
    s, y, q = (torch.cat([a, b]).numpy() for a, b in zip(b1, b3, strict=True))
    got = m.compute()
    got = float(got if cls == "metric" else got["ndcg"])
    assert got == pytest.approx(mean(rm.ndcg(y, s, q, gain="linear")), abs=1e-12)
    # validate=False trusts the batching (per-batch numbering: each batch's queries whole)
    m = make(validate=False)
    m.update(*b1[:2], indexes=b1[2])
    m.update(*b3[:2], indexes=b3[2] - 2)
    if spanning:  # a query continuing at the start of the next batch is one query
        m = make()
        m.update(torch.tensor([.9, .8, .7], dtype=torch.float64), torch.tensor([0, 1, 1]),
                 indexes=torch.tensor([0, 0, 1]))
        m.update(tt([.6, .5], dtype=f64), tt([0, 1]), indexes=tt([1, 2]))
        out = m.compute()
        got = float(out if cls == "metric" else out["ndcg"])
        want = rm.ndcg(np.array([0, 1, 1, 0, 1]), np.array([.9, .8, .7, .6, .5]),
                       np.array([0, 0, 1, 1, 2]), gain="linear")
        assert got == pytest.approx(mean(want), abs=1e-12)


def test_narrow_and_unusual_dtypes_found_by_a_probe():
    """float8 scores crashed in torch.aminmax (NotImplementedError) where float16 widens
    exactly; pad_slates crashed in index_put on uint16/32/64 and float8; RankingMetric with
    spanning=True cast held-back int64 scores >= 2**53 to float64 (a false tie: MRR 0.75 for
    1.0) where every other path refuses them; set_dtype(torch.bfloat16) rounded the state
    (2928 queries counted of 3000)."""
    y = torch.tensor([1, 0, 2])
    exact = torch.tensor([0.5, 0.25, 1.0])
    f8 = [d for d in (getattr(torch, n, None) for n in (
        "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
        "float8_e8m0fnu")) if d is not None]
    assert f8
    for dt in f8:
        p = exact.to(dt)
        assert torch.equal(rmt.ndcg(p, y), rmt.ndcg(exact, y))
        mon = rmt.RankingMonitor("ndcg")
        mon.update(p[None], y[None])
        assert mon.compute()["ndcg"] == pytest.approx(rmt.ndcg(exact, y).item())
    q = torch.tensor([1, 5, 1, 5])
    yy = torch.tensor([0, 1, 1, 0])
    for dt in (torch.uint16, torch.uint32, torch.uint64, *f8):
        p = torch.tensor([8.0, 2.0, 4.0, 1.0]).to(dt)
        for pad in (0.0, -float("inf")):
            sp, st, m = rmt.pad_slates(p, yy.to(dt) if not dt.is_floating_point else yy, q,
                                       pad_value=pad)
            assert sp.dtype == dt and sp.shape == (2, 2) and bool(m.all())
            assert torch.equal(rmt.ndcg(sp, st, mask=m), rmt.ndcg(p, yy, q))
    big = torch.tensor([2**53, 2**53 + 1])
    metric = rmt.RankingMetric("mrr", spanning=True)
    with pytest.raises(ValueError, match="magnitude 2\\*\\*53 or more"):
        metric.update(big, torch.tensor([0, 1]), indexes=torch.tensor([1, 1]))
    counted = rmt.RankingMetric("p@1", count_ties=True)
    with pytest.warns(UserWarning, match=r"keeps its state in float64 .* is ignored"):
        assert counted.set_dtype(torch.bfloat16) is counted
    gen = torch.Generator().manual_seed(0)
    preds, target = torch.rand(3000, 4, generator=gen), torch.randint(0, 2, (3000, 4),
                                                                      generator=gen)
    for i in range(0, 3000, 100):
        counted.update(preds[i:i + 100], target[i:i + 100])
    out = counted.compute()
    assert counted.state.dtype == torch.float64 and out["queries"].item() == 3000
    assert out["p@1"].item() == pytest.approx(
        target.gather(1, preds.argmax(1, keepdim=True)).double().mean().item(), abs=1e-12)


def test_merge_state_refuses_other_metrics_or_options():
    """merge_state added the sums of any metric whose state had the same shape: ndcg@10 into
    ndcg@5 gave a mix, spanning=True into False lost the held-back query."""
    def filled(*args, **kw):
        m = rmt.RankingMetric(*args, **kw)
        m.update(torch.tensor([0.3, 0.2, 0.1, 0.5]), torch.tensor([0, 1, 1, 0]),
                 torch.tensor([1, 1, 1, 2]))
        return m

    a = filled("ndcg@5")
    for other in (filled("ndcg@10"), filled("ndcg@5", empty="skip"),
                  filled("ndcg@5", spanning=True), filled(["ndcg@5", "mrr"])):
        with pytest.raises(ValueError, match="merge_state: the incoming RankingMetric"):
            a.merge_state(other)
    with pytest.raises(ValueError, match="merge_state: the incoming state"):
        a.merge_state({"state": torch.zeros(5, dtype=torch.float64)})
    before = float(a.compute())
    a.merge_state(filled("ndcg@5"))  # the same configuration still merges
    assert float(a.compute()) == pytest.approx(before)
    assert float(a.state[0]) == 4  # queries: 2 + 2


def test_err_and_rbp_options_take_the_cores_checks():
    s, y = torch.tensor([0.9, 0.5, 0.1], dtype=torch.float64), torch.tensor([0, 1, 2])
    for call in (lambda: rmt.err(s, y, max_grade=True), lambda: rmt.err(s, y, max_grade="3"),
                 lambda: rmt.rbp(s, y, threshold=True), lambda: rmt.rbp(s, y, threshold="1")):
        with pytest.raises(TypeError, match="must be a"):
            call()
    got = rmt.rbp(s, y, p=np.float32(0.5))
    assert float(got[0]) == pytest.approx(float(rm.rbp(y.numpy(), s.numpy(), p=0.5)[0]))
    with pytest.raises(ValueError, match="threshold must be > 0 for the torch rbp"):
        rmt.rbp(s, y, threshold=0)
    with pytest.raises(TypeError, match="indexes is required"):
        rmt.pad_slates(s, y, None)
    with pytest.raises(TypeError, match="preds must be a tensor or array of numbers"):
        rmt.pad_slates(["a", "b"], [1, 0], [5, 5])


def test_metric_collection_keeps_configurations_apart():
    """torchmetrics' MetricCollection groups metrics whose states are equal after the first
    batch: nDCG@10 and nDCG@20 (or exponential and linear gain) on lists of 5 shared the
    first metric's sums from then on (0.6063 for both; nDCG@20 is 0.6837)."""
    from torchmetrics import MetricCollection

    g = torch.Generator().manual_seed(0)
    p1, y1 = torch.rand(4, 5, generator=g), torch.randint(0, 2, (4, 5), generator=g)
    p2, y2 = torch.rand(4, 30, generator=g), torch.randint(0, 2, (4, 30), generator=g)
    configs = {"ndcg10": dict(metrics="ndcg@10"), "ndcg20": dict(metrics="ndcg@20"),
               "linear": dict(metrics="ndcg@10", gain="linear")}
    col = MetricCollection({k: rmt.RankingMetric(**v) for k, v in configs.items()})
    col.update(p1, y1)
    col.update(p2, y2)
    got = col.compute()
    for name, kw in configs.items():
        alone = rmt.RankingMetric(**kw)
        alone.update(p1, y1)
        alone.update(p2, y2)
        assert got[name].item() == alone.compute().item(), name
    twin = MetricCollection({"a": rmt.RankingMetric("ndcg@10"), "b": rmt.RankingMetric("ndcg@10")})
    twin.update(p1, y1)
    twin.update(p2, y2)  # one configuration may share: the same sums
    assert twin.compute()["a"].item() == twin.compute()["b"].item() == got["ndcg10"].item()


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
@pytest.mark.parametrize("spanning", [False, True])
def test_unsigned_indexes_across_updates(dtype, spanning):
    """The split-query checks used torch.isin, which has no unsigned kernel: the second update
    with uint16/32/64 indexes raised NotImplementedError; a query split across batches is
    still found."""
    dt = getattr(torch, dtype)
    p, y = torch.tensor([0.9, 0.8]), torch.tensor([1, 0])
    for make in (lambda: rmt.RankingMetric("ndcg", spanning=spanning),
                 lambda: rmt.RankingMonitor("ndcg", spanning=spanning)):
        m = make()
        m.update(p, y, indexes=torch.tensor([0, 0], dtype=dt))
        m.update(p, y, indexes=torch.tensor([1, 1], dtype=dt))
        out = m.compute()
        assert float(out if isinstance(out, torch.Tensor) else out["ndcg"]) == 1.0
        # a query resumed after another was scored (spanning), or spread over batches
        again = [0, 0] if spanning else [2, 1]
        with pytest.raises(ValueError, match=f"index {again[-1]} "):
            m.update(p, y, indexes=torch.tensor(again, dtype=dt))


def test_to_dtype_keeps_the_float64_state():
    """Module.to(dtype) cast the sums (bfloat16 counted 2928 of 3000 queries; compute returned
    bfloat16) where set_dtype refuses to; the state follows the device only."""
    g = torch.Generator().manual_seed(1)
    p, t, i = torch.rand(3000, generator=g), torch.randint(0, 3, (3000,), generator=g), \
        torch.arange(3000)
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        m = rmt.RankingMetric("ndcg@5", count_ties=True)
        m.to(dtype)
        assert m.state.dtype == torch.float64
        for a in range(0, 3000, 100):
            m.update(p[a:a + 100], t[a:a + 100], indexes=i[a:a + 100])
        out = m.compute()
        assert out["queries"].item() == 3000 and out["ndcg@5"].dtype == torch.float64
        m.reset()
        assert m.state.dtype == torch.float64


@pytest.mark.parametrize("kind", ["metric", "monitor"])
def test_refused_spanning_update_leaves_the_state_as_it_was(kind):
    """A spanning update refused (NaN scores, a bad shape) had already replaced the held query
    and the scored ids: the held query was lost and marked scored, so the corrected batch was
    refused too (metric: 0.8155 for 0.8770; monitor: 0.6309 over 1 query)."""
    P = torch.tensor([.9, .8, .7, .6, .5, .4], dtype=torch.float64)  # held rows are float64
    Y = torch.tensor([0, 1, 1, 0, 1, 0])
    Ix = torch.tensor([0, 0, 1, 1, 2, 2])
    ref = rmt.RankingMetric("ndcg")
    ref.update(P, Y, indexes=Ix)
    m = rmt.RankingMetric("ndcg", spanning=True) if kind == "metric" else \
        rmt.RankingMonitor("ndcg", spanning=True)
    m.update(P[:3], Y[:3], indexes=Ix[:3])  # query 1 held back
    with pytest.raises(ValueError, match="finite"):
        m.update(torch.tensor([float("nan"), .5, .4], dtype=torch.float64), Y[3:],
                 indexes=Ix[3:])
    with pytest.raises(ValueError, match="one shape"):
        m.update(P[3:5], Y[3:], indexes=Ix[3:])
    m.update(P[3:], Y[3:], indexes=Ix[3:])
    out = m.compute()
    got = out if isinstance(out, torch.Tensor) else out["ndcg"]
    assert float(got) == ref.compute().item()
    # held rows a later batch would refuse are refused with the batch that brings them
    m2 = rmt.RankingMetric("ndcg", spanning=True) if kind == "metric" else \
        rmt.RankingMonitor("ndcg", spanning=True)
    with pytest.raises(ValueError, match="finite"):
        m2.update(torch.tensor([.9, .8, float("nan")], dtype=torch.float64), Y[:3],
                  indexes=Ix[:3])
    m2.update(P[:3], Y[:3], indexes=Ix[:3])
    m2.update(P[3:], Y[3:], indexes=Ix[3:])
    out = m2.compute()
    assert float(out if isinstance(out, torch.Tensor) else out["ndcg"]) == ref.compute().item()


def test_merge_state_dict_refuses_another_spanning():
    """A state dict of a spanning metric merged into a plain one dropped its held rows (0.6309
    for 0.8155); the other way round no held rows could come in."""
    a = rmt.RankingMetric("ndcg", spanning=True)
    a.persistent(True)
    a.update(torch.tensor([.9, .8, .7]), torch.tensor([0, 1, 1]), indexes=torch.tensor([0, 0, 1]))
    with pytest.raises(ValueError, match="spanning=True; this one has spanning=False"):
        rmt.RankingMetric("ndcg").merge_state(a.state_dict())
    b = rmt.RankingMetric("ndcg")
    b.persistent(True)
    b.update(torch.tensor([.9, .8]), torch.tensor([0, 1]), indexes=torch.tensor([0, 0]))
    with pytest.raises(ValueError, match="spanning=False; this one has spanning=True"):
        rmt.RankingMetric("ndcg", spanning=True).merge_state(b.state_dict())
    c = rmt.RankingMetric("ndcg", spanning=True)
    c.merge_state(a.state_dict())
    assert c.compute().item() == a.compute().item()
    d = rmt.RankingMetric("ndcg")
    d.merge_state({"state": b.state})  # a bare dict of the sums still merges
    assert d.compute().item() == b.compute().item()


@pytest.mark.parametrize("cls", ["metric", "monitor"])
def test_spanning_host_rows_take_the_cores_checks(cls):
    """spanning=True converted lists with numpy alone: 2**64 - 1 and 2**64 - 2 became one
    float64 (a false tie: nDCG 0.807 where the order gives 1.0) and Decimals or None a raw
    TypeError, where the same rows with spanning=False (and the functions) are refused with
    the core's ValueError."""
    def make(spanning):
        if cls == "metric":
            return RankingMetric("ndcg@5", spanning=spanning)
        return rmt.RankingMonitor("ndcg@5", spanning=spanning)

    from decimal import Decimal

    rows = [
        ([2**64 - 1, 2**64 - 2, 5], "magnitude 2"),
        ([Decimal("0.1"), Decimal("0.1000000000000000001"), Decimal(0)], "false tie"),
        ([0.5, None, 0.1], "finite"),
    ]
    for preds, match in rows:
        for spanning in (False, True):
            m = make(spanning)
            with pytest.raises(ValueError, match=match):
                m.update(preds, [1, 0, 1], [0, 0, 0])
    m = make(True)
    with pytest.raises(ValueError, match="non-negative"):
        m.update([0.5, 0.2], [1, -1], [0, 0])
    m.update([0.5, 0.2, 0.1], [0, 1, 0], [0, 0, 0])
    out = m.compute()
    value = float(out if cls == "metric" else out["ndcg@5"])
    want = rm.QueryPlan([0, 1, 0]).evaluate([0.5, 0.2, 0.1], "ndcg@5")["ndcg@5"]
    assert value == pytest.approx(float(np.mean(want)), abs=1e-12)


@pytest.mark.parametrize("cls", ["metric", "monitor"])
def test_spanning_refuses_a_mask_with_flat_rows(cls):
    """spanning=True dropped a mask given with flat rows whenever the whole batch was the
    held-back query (nDCG@2 0.631 from rows the mask marked as padding); spanning=False
    refuses it. Now both raise, and the refused batch is not added."""
    for spanning in (False, True):
        m = (RankingMetric("ndcg@2", spanning=spanning) if cls == "metric"
             else rmt.RankingMonitor("ndcg@2", spanning=spanning))
        with pytest.raises(ValueError, match="mask is for padded"):
            m.update(torch.tensor([0.5, 0.2]), torch.tensor([0, 1]), torch.tensor([0, 0]),
                     mask=torch.tensor([True, False]))
        m.update(torch.tensor([0.5, 0.2]), torch.tensor([1, 0]), torch.tensor([0, 0]))
        out = m.compute()
        assert float(out if cls == "metric" else out["ndcg@2"]) == 1.0


@pytest.mark.parametrize("cls", ["metric", "monitor", "forward"])
@pytest.mark.parametrize("metrics, options", [("ndcg@3", {"empty": "error"}),
                                              (["map", "RBP(empty=error)"], {})])
def test_spanning_empty_error_waits_for_the_whole_query(cls, metrics, options):
    """With spanning=True and empty="error" the held-back part of a query was refused when it
    had no relevant document yet, though its relevant document came with the next batch
    (ValueError where the whole query gives 1.0); forward() ("forward") raised the same way
    for its batch value, after the running state had been updated (the batch value now
    scores that part 0.0). A query that ends without one is still refused."""
    def make():
        return (rmt.RankingMonitor(metrics, spanning=True, count_ties=False, **options)
                if cls == "monitor" else RankingMetric(metrics, spanning=True, **options))

    def feed(m):
        return m if cls == "forward" else m.update

    p = torch.tensor([0.3, 0.2, 0.5, 0.4, 0.9], dtype=torch.float64)
    t = torch.tensor([1, 0, 0, 0, 1])
    i = torch.tensor([0, 0, 1, 1, 1])
    m = make()
    feed(m)(p[:4], t[:4], i[:4])
    feed(m)(p[4:], t[4:], i[4:])
    out = m.compute()
    names = [metrics] if isinstance(metrics, str) else metrics
    want = rm.QueryPlan(t.numpy(), i.numpy()).evaluate(p.numpy(), names, **options)
    for name in names:
        got = out if isinstance(out, torch.Tensor) else out[name]
        assert float(got) == pytest.approx(float(np.mean(want[name])), abs=1e-12)
    m = make()
    feed(m)(p[:4], t[:4], i[:4])
    with pytest.raises(ValueError, match=r"undefined for queries without relevant.*\[1\]"):
        feed(m)(p[4:], t[4:] * 0, i[4:] + 1)


@pytest.mark.parametrize("spanning", [False, True])
def test_forward_dist_sync_on_step_gathers_the_batch_value(spanning):
    """dist_sync_on_step=True (passed to torchmetrics.Metric): torchmetrics' forward returns
    the batch value over every process's batch. With spanning=True, forward() gave this
    process's alone (0.5 where the two processes' batches give 1/3). The other process is
    simulated by the gather function."""
    p = torch.tensor([0.3, 0.2, 0.5, 0.4, 0.9, 0.1], dtype=torch.float64)
    t = torch.tensor([1, 0, 0, 1, 0, 1])
    i = torch.tensor([0, 0, 1, 1, 2, 2])
    name = "ndcg(gain=linear)@1"
    theirs = RankingMetric(name, spanning=spanning)._spec.batch_state(p[4:], t[4:], i[4:], None)

    def gather(x, group=None):  # the sums state is the one of their shape
        return [x, theirs.to(x)] if x.shape == theirs.shape else [x]

    m = RankingMetric(name, spanning=spanning, dist_sync_on_step=True, dist_sync_fn=gather,
                      distributed_available_fn=lambda: True)
    peer = torchmetrics.retrieval.RetrievalNormalizedDCG(top_k=1)
    peer.update(p, t, indexes=i)
    assert float(m(p[:4], t[:4], indexes=i[:4])) == pytest.approx(float(peer.compute()))


def test_forward_refusing_a_batch_keeps_the_earlier_batches():
    """torchmetrics' forward() resets the state, updates with the batch and adds the saved
    state back: a batch refused by update() (NaN scores) lost every earlier batch (MRR 0.75
    became NaN, "no query was seen") and left the forward's sync flags set. Now the refused
    batch leaves the state as it was, as update() and spanning=True do."""
    p = torch.tensor([0.3, 0.2, 0.5, 0.4])
    t = torch.tensor([1, 0, 0, 1])
    i = torch.tensor([0, 0, 1, 1])
    metric = RankingMetric("mrr")
    metric.update(p, t, indexes=i)
    with pytest.raises(ValueError, match="finite"):
        metric(torch.tensor([float("nan"), 1.0]), torch.tensor([1, 0]),
               indexes=torch.tensor([5, 5]))
    assert float(metric.compute()) == 0.75
    assert float(metric(p[:2], t[:2], indexes=i[:2] + 5)) == 1.0
    assert float(metric.compute()) == pytest.approx(2.5 / 3)
