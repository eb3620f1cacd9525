"""RankingMonitor: running means equal the core, merging, spanning queries, distributed sums."""

from __future__ import annotations

import math
import os
import sys
import warnings

import numpy as np
import pytest
from _extras import require

import rankmetrics as rm

torch = require("torch")
rmt = require("rankmetrics.torch")
RankingMonitor = rmt.RankingMonitor

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
NAMES = ["ndcg@10", "ndcg@3", "map", "p@5", "mrr"]


def grouped_case(seed: int, n_queries: int = 60):
    """Rows grouped by query (ids ascending), many tied scores."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, n_queries)
    q = np.repeat(np.arange(n_queries) * 3 + 1, sizes)
    y = rng.choice(4, q.size, p=[0.5, 0.3, 0.15, 0.05])
    s = rng.integers(0, 6, q.size) / 6.0
    return y, s, q, sizes


def core_means(y, s, q, names, **kw):
    per = rm.QueryPlan(y, q).evaluate(s, names, **kw)
    return {n: float(np.nanmean(v)) if not np.all(np.isnan(v)) else math.nan
            for n, v in per.items()}


def query_batches(q, sizes, per_batch):
    """Row slices holding whole queries, ``per_batch`` queries each."""
    ends = np.cumsum(sizes)
    starts = ends - sizes
    for i in range(0, sizes.size, per_batch):
        yield slice(starts[i], ends[min(i + per_batch, sizes.size) - 1])


@pytest.mark.parametrize("device", DEVICES)
def test_monitor_equals_core_means_with_bounds(device):
    y, s, q, sizes = grouped_case(0)
    mon = RankingMonitor(NAMES, bounds=True)
    for sl in query_batches(q, sizes, 7):
        mon.update(torch.tensor(s[sl], device=device), torch.tensor(y[sl], device=device),
                   torch.tensor(q[sl], device=device))
    out = mon.compute()
    assert mon.state.device.type == device
    for ties, suffix in [("average", ""), ("pessimistic", "_min"), ("optimistic", "_max")]:
        for name, value in core_means(y, s, q, NAMES, ties=ties).items():
            assert out[name + suffix] == pytest.approx(value, abs=1e-12)
    assert out["queries"] == sizes.size
    for name in NAMES:
        assert out[name + "_min"] <= out[name] <= out[name + "_max"]
    assert "loss" not in out


def test_padded_batches_loss_and_tie_counts():
    rng = np.random.default_rng(1)
    mon = RankingMonitor(["ndcg@5", "rr"], prefix="val_")
    all_y, all_s, all_q, losses = [], [], [], []
    tied5 = 0
    for batch in range(4):
        b, length = 8, 12
        mask = np.arange(length)[None, :] < rng.integers(1, length + 1, b)[:, None]
        y = rng.integers(0, 3, (b, length))
        s = rng.integers(0, 4, (b, length)).astype(np.float32)
        loss = torch.tensor(rng.random(), dtype=torch.float32)
        mon.update(torch.tensor(s), torch.tensor(y), mask=torch.tensor(mask), loss=loss)
        losses.append(loss.item())
        all_y.append(y[mask])
        all_s.append(s[mask])
        all_q.append(np.repeat(np.arange(b) + 100 * batch, mask.sum(1)))
        for i in range(b):
            top = np.sort(s[i][mask[i]])[::-1]
            kth = top[min(5, top.size) - 1]
            tied5 += int(np.sum(s[i][mask[i]] == kth) > 1 or np.any(np.diff(top[:5]) == 0))
    out = mon.compute()
    y, s, q = np.concatenate(all_y), np.concatenate(all_s), np.concatenate(all_q)
    for name, value in core_means(y, s, q, ["ndcg@5", "rr"]).items():
        assert out["val_" + name] == pytest.approx(value, abs=1e-6)
    assert out["val_loss"] == pytest.approx(np.mean(losses))
    assert out["val_queries"] == 32
    assert out["val_tied@5"] == tied5
    assert set(out) == {"val_loss", "val_ndcg@5", "val_rr", "val_queries", "val_tied@5",
                        "val_tied"}


def test_vector_loss_counts_every_item_and_reset():
    mon = RankingMonitor("ndcg")
    mon.update(torch.ones(3), torch.tensor([1, 0, 0]), loss=torch.tensor([1.0, 2.0]))
    mon.update(torch.ones(2), torch.tensor([1, 1]), loss=4.0)
    out = mon.compute()
    assert out["loss"] == pytest.approx(7.0 / 3.0)
    assert out["queries"] == 2
    mon.reset()
    assert mon.state.abs().sum().item() == 0
    with pytest.warns(UserWarning, match=r"ndcg: no query could be scored \(no query was seen"):
        assert math.isnan(mon.compute()["ndcg"])


def test_empty_skip_counts_per_metric():
    y = np.array([0, 0, 1, 0, 2, 1])
    s = np.array([0.1, 0.2, 0.3, 0.3, 0.9, 0.1])
    q = np.array([1, 1, 2, 2, 3, 3])
    mon = RankingMonitor(["ndcg@2", "map"], empty="skip")
    mon.update(torch.tensor(s), torch.tensor(y), torch.tensor(q))
    out = mon.compute()
    ref = core_means(y, s, q, ["ndcg@2", "map"], empty="skip")
    assert out["ndcg@2"] == pytest.approx(ref["ndcg@2"], abs=1e-12)
    assert out["map"] == pytest.approx(ref["map"], abs=1e-12)
    assert mon.state[mon.state_names.index("map:count")].item() == 2


def test_every_query_skipped_warns_as_the_core_does():
    """With empty="skip" and no query holding a relevant document, compute() returned NaN
    and said nothing; the core's mean warns "no query could be scored". Now both do, and a
    query that is scored keeps the metric silent."""
    from rankmetrics.torch import RankingMetric

    y, s, q = np.array([0, 0, 0]), np.array([0.1, 0.2, 0.3]), np.array([1, 1, 2])
    with pytest.warns(UserWarning, match="no query could be scored"):
        rm.ndcg_score(y, s, q, k=2, empty="skip")
    for metric in (RankingMetric("ndcg@2", empty="skip"),
                   RankingMonitor(["ndcg@2", "map"], empty="skip")):
        metric.update(torch.tensor(s), torch.tensor(y), torch.tensor(q))
        with pytest.warns(UserWarning) as record:
            out = metric.compute()
        said = sorted(str(w.message) for w in record)
        names = ["map", "ndcg@2"] if isinstance(metric, RankingMonitor) else ["ndcg@2"]
        assert said == [f"{n}: no query could be scored (all 2 queries were skipped "
                        "(empty='skip')); nan" for n in names]
        assert math.isnan(float(out if torch.is_tensor(out) else out["ndcg@2"]))
    ok = RankingMetric("ndcg@2", empty="skip")
    ok.update(torch.tensor(s), torch.tensor([1, 0, 0]), torch.tensor(q))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ok.compute().item() == pytest.approx(0.6309297535714575)


def test_merge_equals_one_monitor():
    y, s, q, sizes = grouped_case(2)
    whole = RankingMonitor(NAMES, bounds=True)
    parts = [RankingMonitor(NAMES, bounds=True) for _ in range(3)]
    for i, sl in enumerate(query_batches(q, sizes, 5)):
        args = torch.tensor(s[sl]), torch.tensor(y[sl]), torch.tensor(q[sl])
        whole.update(*args, loss=float(i))
        parts[i % 3].update(*args, loss=float(i))
    merged = parts[0].merge(parts[1]).merge(parts[2])
    a, b = whole.compute(), merged.compute()
    assert a.keys() == b.keys()
    for key in a:
        assert b[key] == pytest.approx(a[key], abs=1e-12)
    summed = parts[0].state  # merge added the others into it
    assert torch.allclose(summed, whole.state, atol=1e-9, rtol=0)


def test_spanning_queries_equal_whole_queries():
    y, s, q, sizes = grouped_case(3)
    whole = RankingMonitor(NAMES, bounds=True)
    for sl in query_batches(q, sizes, 6):
        whole.update(torch.tensor(s[sl]), torch.tensor(y[sl]), torch.tensor(q[sl]))
    span = RankingMonitor(NAMES, bounds=True, spanning=True)
    rng = np.random.default_rng(3)
    cuts = np.sort(rng.choice(np.arange(1, q.size), 40, replace=False))
    largest_held = 0
    for sl in np.split(np.arange(q.size), cuts):
        span.update(torch.tensor(s[sl]), torch.tensor(y[sl]), torch.tensor(q[sl]))
        assert span._held is not None
        largest_held = max(largest_held, span._held[0].numel())
    assert largest_held <= sizes.max()  # bounded: one query's rows at most
    a, b = whole.compute(), span.compute()
    for key in a:
        assert b[key] == pytest.approx(a[key], abs=1e-12)
    span.flush()
    assert span._held is None and span.compute() == b


def test_spanning_merge_of_held_rows():
    y, s, q, sizes = grouped_case(4, n_queries=10)
    ref = core_means(y, s, q, ["ndcg@5"])
    half = int(np.cumsum(sizes)[4])  # each monitor gets a stream of whole queries
    m1 = RankingMonitor("ndcg@5", spanning=True)
    m2 = RankingMonitor("ndcg@5", spanning=True)
    for lo, hi, mon in [(0, half, m1), (half, q.size, m2)]:
        mid = (lo + hi) // 2  # batches that cut a query
        for a, b in [(lo, mid), (mid, hi)]:
            mon.update(torch.tensor(s[a:b]), torch.tensor(y[a:b]), torch.tensor(q[a:b]))
    assert m1._held is not None and m2._held is not None
    merged = m1.merge(m2)
    assert merged._held is not None and merged._held[0].numel() == sizes[4] + sizes[-1]
    assert merged.compute()["ndcg@5"] == pytest.approx(ref["ndcg@5"], abs=1e-12)


def test_monitor_errors():
    with pytest.raises(ValueError, match=r"unknown measure 'ndgc@10'"):
        RankingMonitor("ndgc@10")
    with pytest.raises(ValueError, match=r"measure .* is given twice"):
        RankingMonitor(["map", "map"])
    with pytest.raises(ValueError, match=r"ties must be one of"):
        RankingMonitor(ties="mean")
    with pytest.raises(ValueError, match=r"can only merge a RankingMonitor with the same"):
        RankingMonitor("map").merge(RankingMonitor("mrr"))
    with pytest.raises(ValueError, match=r"spanning=True needs flat preds, target and indexes"):
        RankingMonitor(spanning=True).update(torch.ones(3), torch.ones(3),
                                             torch.tensor([[0, 0, 1]]))


def _dist_worker(rank, world, path, chunks, expected):
    torch.set_num_threads(1)
    dist = torch.distributed
    dist.init_process_group("gloo", init_method=f"file://{path}", rank=rank, world_size=world)
    try:
        mon = RankingMonitor(NAMES, bounds=True, spanning=True)
        for s, y, q in chunks[rank]:
            mon.update(torch.tensor(s), torch.tensor(y), torch.tensor(q), loss=1.0)
        mon.flush()
        dist.all_reduce(mon.state)
        out = mon.compute()
        for key, value in expected.items():
            assert abs(out[key] - value) < 1e-12, (key, out[key], value)
        metric = rmt.RankingMetric(NAMES, bounds=True, spanning=True)
        for s, y, q in chunks[rank]:
            metric.update(torch.tensor(s), torch.tensor(y), torch.tensor(q))
        got = metric.compute()  # syncs: sums all-reduced, held rows gathered
        for key, value in expected.items():
            assert abs(got[key].item() - value) < 1e-12, (key, got[key], value)
    finally:
        dist.destroy_process_group()


def test_all_reduce_of_monitor_state(tmp_path):
    # two gloo workers, forked on Linux (quick), spawned elsewhere (no fork there): it runs,
    # never skips, on every platform
    require("torchmetrics")
    y, s, q, sizes = grouped_case(5, n_queries=30)
    expected = core_means(y, s, q, NAMES)
    for ties, suffix in [("pessimistic", "_min"), ("optimistic", "_max")]:
        expected.update({k + suffix: v for k, v in core_means(y, s, q, NAMES, ties=ties).items()})
    # two workers, each a stream of whole queries cut into batches that split queries, and a
    # third that gets no batch (torchmetrics sends its empty held-back ids as float32, which
    # made the others' ids floats: 2**30 + 1 and 2**30 + 3 became one query); ids past 2**24
    ids = 2 * q.astype(np.int64) + 2**30 + 1
    cut = int(np.cumsum(sizes)[14])
    streams = [(0, cut), (cut, q.size)]
    chunks = []
    for lo, hi in streams:
        bounds = np.linspace(lo, hi, 4).astype(int)
        pairs = zip(bounds[:-1], bounds[1:], strict=True)
        chunks.append([(s[a:b], y[a:b], ids[a:b]) for a, b in pairs if b > a])
    chunks.append([])
    torch.multiprocessing.start_processes(
        _dist_worker, args=(3, os.fspath(tmp_path / "store"), chunks, expected), nprocs=3,
        start_method="fork" if sys.platform == "linux" else "spawn",
    )


@pytest.mark.parametrize("ties", ["average", "pessimistic", "optimistic"])
def test_bounds_stay_bounds_when_a_measure_has_its_own_ties(ties):
    """Under ties="pessimistic" (or "optimistic") the bound equal to the main mode was read
    from the measure's own-ties value: _min 1.0 where the pessimistic nDCG@1 is 0.0."""
    s = torch.tensor([1.0, 1.0, 1.0, 0.0], dtype=torch.float64)
    for labels in ([2, 0, 0, 1], [0, 0, 2, 1]):
        y = torch.tensor(labels)
        want = {m: float(rm.ndcg(np.array(labels), s.numpy(), k=1, ties=m)[0])
                for m in ("stable", "pessimistic", "optimistic")}
        mon = RankingMonitor(["nDCG(ties=stable)@1"], bounds=True, ties=ties)
        mon.update(s, y)
        out = mon.compute()
        metric = rmt.RankingMetric(["nDCG(ties=stable)@1"], bounds=True, ties=ties)
        metric.update(s, y)
        got = {k: float(v) for k, v in metric.compute().items()}
        for res in (out, got):
            assert res["nDCG(ties=stable)@1"] == want["stable"]
            assert res["nDCG(ties=stable)@1_min"] == want["pessimistic"]
            assert res["nDCG(ties=stable)@1_max"] == want["optimistic"]


def test_refused_loss_leaves_the_batch_out():
    """A loss float() could not read was refused after the batch's metrics were added: the
    monitor counted its queries without its loss, and the same batch given again with a
    valid loss was refused as a query spread over batches. A complex loss lost its
    imaginary part with only a torch warning."""
    p, t, i = torch.tensor([0.3, 0.2, 0.5]), torch.tensor([0, 1, 1]), torch.tensor([0, 0, 1])
    for bad in ("bad", [0.5, 0.2], torch.tensor([1 + 2j])):
        mon = RankingMonitor("ndcg@2")
        with pytest.raises(TypeError, match="loss must be a real number"):
            mon.update(p, t, i, loss=bad)
        with pytest.warns(UserWarning, match="no query was seen"):
            assert mon.compute()["queries"] == 0.0
        mon.update(p, t, i, loss=torch.tensor([0.5, 1.5]))
        out = mon.compute()
        assert out["queries"] == 2.0 and out["loss"] == 1.0


def test_copies_keep_their_own_sums_and_split_guard():
    """copy.copy of a RankingMonitor shared its running sums (added to in place, zeroed by
    reset) and, for it and RankingMetric, the split guard: updating or resetting the copy
    changed the original's means (12 queries became 24), and the original then refused its
    next batch as a split query. Each copy (copy, deepcopy, pickle) is now independent."""
    import copy
    import pickle

    def batch(i):
        g = torch.Generator().manual_seed(i)
        return (torch.rand(40, generator=g), torch.randint(0, 3, (40,), generator=g),
                torch.arange(40) // 10 + 4 * i)

    copies = [copy.copy, copy.deepcopy, lambda o: pickle.loads(pickle.dumps(o))]
    for cls in (RankingMonitor, rmt.RankingMetric):
        for make_copy in copies:
            m = cls(["ndcg@5", "map"])
            m.update(*batch(0))
            ref = str(m.compute())
            c = make_copy(m)
            c.update(*batch(1))
            assert str(m.compute()) == ref
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the reset copy has no query: NaN, warned
                c.reset()
                c.compute()
            assert str(m.compute()) == ref
            m.update(*batch(1))  # the copy's batch 1 is not the original's previous batch
            both = cls(["ndcg@5", "map"])
            both.update(*batch(0))
            both.update(*batch(1))
            assert str(m.compute()) == str(both.compute())
