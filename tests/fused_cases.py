"""Cases for the fused Triton kernel of tie-averaged CG/DCG/nCG/nDCG (rankmetrics.torch._triton).

Run by ``tests/test_torch_fused.py``: in that process on a CUDA device (the compiled kernel),
else in a fresh process with ``TRITON_INTERPRET=1`` (Triton's interpreter runs the same kernel
code on CPU tensors; it must be set before triton is imported, hence the separate process).
Every value is compared with the numpy core and with the eager torch kernel, and a spy on the
kernel's entry point shows which path ran.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from _extras import require
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmetrics as rm

torch = require("torch")
CUDA = torch.cuda.is_available()
F = require("rankmetrics.torch.functional")
K = require("rankmetrics.torch._kernel")
T = require("rankmetrics.torch._triton")

DEVICE = "cuda" if CUDA else "cpu"
GAIN_METRICS = ["cg", "dcg", "ncg", "ndcg"]
TOL = {torch.float64: dict(rtol=1e-14, atol=1e-12), torch.float32: dict(rtol=1e-5, atol=1e-5)}


@pytest.fixture(autouse=True)
def _compiled_or_interpreted():
    if not CUDA and os.environ.get("TRITON_INTERPRET") != "1":
        pytest.fail("these cases need a CUDA device or TRITON_INTERPRET=1 set before triton is "
                    "imported: run tests/test_torch_fused.py")


@pytest.fixture
def calls(monkeypatch):
    """Counts launches of the fused kernel's entry point."""
    seen = []
    real = T.gain_sums

    def spy(*args, **kwargs):
        seen.append(args[0].shape)
        return real(*args, **kwargs)

    monkeypatch.setattr(T, "gain_sums", spy)
    return seen


def _run(kernel, monkeypatch, fn, *args, **kwargs):
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", kernel)
    return fn(*args, **kwargs).detach().cpu().to(torch.float64).numpy()


def _padded_case(seed, b=7, length=13, levels=5, score_levels=3, masked=True):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, levels, (b, length))
    s = rng.integers(0, score_levels, (b, length)) / score_levels
    mask = rng.random((b, length)) < 0.8 if masked else np.ones((b, length), bool)
    if masked:
        mask[0] = False  # an empty row
        mask[1, 1:], mask[1, 0] = False, True  # a one-document row
    s[2] = 0.5  # an all-tied row
    return y, s, mask


def _core_flat(y, s, mask):
    qid = np.repeat(np.arange(y.shape[0])[:, None], y.shape[1], axis=1)
    return y[mask], s[mask], qid[mask]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("masked", [True, False])
def test_padded_agrees_with_core_and_eager(monkeypatch, calls, dtype, masked):
    y, s, mask = _padded_case(1, masked=masked)
    preds = torch.tensor(s, dtype=dtype, device=DEVICE)
    target = torch.tensor(y, device=DEVICE)
    m = torch.tensor(mask, device=DEVICE) if masked else None
    yf, sf, qf = _core_flat(y, s.astype(np.float32) if dtype == torch.float32 else s, mask)
    names = [m if k is None else f"{m}@{k}" for m in GAIN_METRICS for k in (None, 1, 3, 13, 20)]
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    fused = F.evaluate(preds, target, mask=m, metrics=names)
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "torch")
    eager = F.evaluate(preds, target, mask=m, metrics=names)
    core = rm.QueryPlan(yf, qf).evaluate(sf, names)
    skip = 1 if masked else 0  # the empty row has no document: the core has no query for it
    for name in names:
        np.testing.assert_allclose(fused[name].cpu().numpy()[skip:], core[name], **TOL[dtype])
        np.testing.assert_allclose(fused[name].cpu().numpy(), eager[name].cpu().numpy(),
                                   **TOL[dtype])
    assert len(calls) == 2  # the fused path ran (CG/nCG, DCG/nDCG), only under "triton"


def test_flat_input_and_every_option(monkeypatch, calls):
    rng = np.random.default_rng(2)
    sizes = rng.integers(1, 30, 12)
    q = np.repeat(rng.permutation(1000)[:12], sizes)
    y = rng.integers(0, 5, q.size)
    s = rng.integers(0, 4, q.size) / 4.0
    perm = rng.permutation(q.size)
    y, s, q = y[perm], s[perm], q[perm]
    args = (torch.tensor(s, device=DEVICE), torch.tensor(y, device=DEVICE),
            torch.tensor(q, device=DEVICE))
    # each way a gain or discount reaches the kernel: gains from labels in the kernel (padded
    # input only), gains given (levels, a non-monotone list, a callable), prefix tables
    options = [dict(), dict(gain="linear"), dict(gain=[5.0, 1.0, 0.0, 3.0, 2.0]),
               dict(gain=lambda lab: np.sqrt(lab)), dict(discount="jarvelin2002", log_base=3),
               dict(discount="none"), dict(discount=lambda r: 1.0 / r)]
    plan = rm.QueryPlan(y, q)
    names = [m if k is None else f"{m}@{k}" for m in GAIN_METRICS for k in (None, 1, 4, 40)]
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    for opt in options:
        got = F.evaluate(*args, metrics=names, **opt)
        core = plan.evaluate(s, names, **opt)
        for name in names:
            np.testing.assert_allclose(got[name].cpu().numpy(), core[name],
                                       **TOL[torch.float64])
    assert len(calls) == len(options) * 2  # one launch for CG/nCG, one for DCG/nDCG


@pytest.mark.parametrize("empty", [0.0, 1.0, 0.25, "skip"])
def test_empty_rule(monkeypatch, empty):
    y, s, mask = _padded_case(3)
    y[3] = 0  # a row with documents but no relevant one
    preds, target = torch.tensor(s, device=DEVICE), torch.tensor(y, device=DEVICE)
    m = torch.tensor(mask, device=DEVICE)
    for name in ["ndcg", "ncg"]:
        fused = _run("triton", monkeypatch, getattr(F, name), preds, target, mask=m, k=5,
                     empty=empty)
        eager = _run("torch", monkeypatch, getattr(F, name), preds, target, mask=m, k=5,
                     empty=empty)
        np.testing.assert_allclose(fused, eager, equal_nan=True, **TOL[torch.float64])
        want = np.nan if empty == "skip" else empty
        np.testing.assert_equal(fused[[0, 3]], [want, want])


def test_empty_error_names_the_queries(monkeypatch):
    y, s, mask = _padded_case(4)
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    with pytest.raises(ValueError, match=r"queries \[0"):
        F.ndcg(torch.tensor(s, device=DEVICE), torch.tensor(y, device=DEVICE),
               mask=torch.tensor(mask, device=DEVICE), k=3, empty="error")


def test_overflowing_gain_sums_raise_the_core_error(monkeypatch):
    """Labels whose gain x discount sums overflow float64 gave ndcg 0.0, cg inf and ncg NaN
    from the fused kernel (the core: ValueError); now the core's error, whether the data
    checks were left to the kernel (every measure fused) or ran first (with AP)."""
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    s = torch.tensor([[0.3, 0.3, 0.1, 0.5]], dtype=torch.float64, device=DEVICE)
    y = torch.tensor([[1e308, 1e308, 1e308, 0.0]], dtype=torch.float64, device=DEVICE)
    msg = r"the gain x discount sums overflow float64 \(inf\)"
    with pytest.raises(ValueError, match=msg):
        rm.ndcg(y.cpu().numpy(), s.cpu().numpy(), gain="linear")
    for metrics in (["ndcg"], ["cg"], ["ncg"], ["ndcg@3", "ap"]):
        with pytest.raises(ValueError, match=msg):
            F.evaluate(s, y, metrics=metrics, gain="linear")
    with pytest.raises(ValueError, match=r"overflow torch.float32 \(inf\)"):
        F.ndcg(s.float(), torch.tensor([[1e38, 1e38, 3e38, 0.0]], device=DEVICE), gain="linear")
    big = torch.tensor([[1e300, 0.0, 2e300, 0.0]], dtype=torch.float64, device=DEVICE)
    got = F.evaluate(s, big, metrics=["ndcg", "dcg"], gain="linear")
    for name in ("ndcg", "dcg"):
        want = getattr(rm, name)(big.cpu().numpy(), s.cpu().numpy(), gain="linear")
        np.testing.assert_allclose(got[name].cpu().numpy(), want, **TOL[torch.float64])


def test_many_cutoffs_in_one_call(monkeypatch, calls):
    """More cutoffs than one launch takes (4): several launches, concatenated in order."""
    y, s, mask = _padded_case(5, b=9, length=17)
    yf, sf, qf = _core_flat(y, s, mask)
    names = [f"ndcg@{k}" for k in (1, 2, 3, 5, 8, 13)] + ["ndcg", "dcg@4", "cg@3"]
    args = (torch.tensor(s, device=DEVICE), torch.tensor(y, device=DEVICE))
    m = torch.tensor(mask, device=DEVICE)
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    got = F.evaluate(*args, mask=m, metrics=names)
    core = rm.QueryPlan(yf, qf).evaluate(sf, names)
    for name in names:
        np.testing.assert_allclose(got[name].cpu().numpy()[1:], core[name],
                                   **TOL[torch.float64])
    assert len(calls) == 3  # ndcg at 7 cutoffs (two launches), dcg@4, cg@3


def test_dispatch_rules(monkeypatch, calls):
    monkeypatch.setattr(K, "FUSED_MAX_LENGTH", 12)  # the rule, on rows the interpreter runs fast
    y, s, _ = _padded_case(6, b=3, length=13, masked=False)
    preds, target = torch.tensor(s, device=DEVICE), torch.tensor(y, device=DEVICE)
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    F.ndcg(preds, target, k=5)  # rows longer than the kernel takes: eager
    F.ndcg(preds[:, :8], target[:, :8], k=5, ties="pessimistic")  # not tie-averaged: eager
    F.precision(preds[:, :8], target[:, :8], k=5)  # not a gain measure: eager
    assert calls == []
    F.ndcg(preds[:, :12], target[:, :12], k=5)
    assert len(calls) == 1
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "torch")
    F.ndcg(preds[:, :8], target[:, :8], k=5)
    assert len(calls) == 1
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "gpu")
    with pytest.raises(ValueError, match="RANKMETRICS_TORCH_KERNEL"):
        F.ndcg(preds[:, :8], target[:, :8], k=5)
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "auto")
    F.ndcg(preds[:, :8], target[:, :8], k=5)
    assert len(calls) == (2 if CUDA else 1)  # auto: the fused kernel on CUDA only


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16])
def test_negative_scores_signed_zeros_and_extremes(monkeypatch, dtype):
    """-0.0 ties 0.0 (as in the core); negative and huge scores order as numbers."""
    big = 6e4 if dtype == torch.float16 else 1e30
    values = np.array([-2.5, -0.0, 0.0, big, -big, 3.0, -2.5, 0.0])
    rng = np.random.default_rng(8)
    s = rng.choice(values, (6, 11))
    y = rng.integers(0, 4, (6, 11))
    names = ["ndcg@1", "ndcg@3", "ndcg", "dcg@5", "cg@2"]
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    got = F.evaluate(torch.tensor(s, dtype=dtype, device=DEVICE), torch.tensor(y, device=DEVICE),
                     metrics=names)
    qf = np.repeat(np.arange(6), 11)
    core = rm.QueryPlan(y.reshape(-1), qf).evaluate(s.reshape(-1), names)
    tol = TOL[torch.float64 if dtype == torch.float64 else torch.float32]
    for name in names:
        np.testing.assert_allclose(got[name].cpu().to(torch.float64).numpy(), core[name], **tol)


def test_auto_falls_back_to_eager_when_the_kernel_fails(monkeypatch):
    """Under "auto" a Triton failure (no compiler, an unsupported device, ...) warns once and
    the eager kernel answers; under "triton" it is raised."""
    def broken(*args, **kwargs):
        raise RuntimeError("no ptxas here")

    monkeypatch.setattr(T, "gain_sums", broken)
    monkeypatch.setattr(K, "_fused_device", lambda device: True)
    monkeypatch.setattr(K, "_FUSED_FAILED", [])
    y, s, mask = _padded_case(9)
    args = (torch.tensor(s, device=DEVICE), torch.tensor(y, device=DEVICE))
    m = torch.tensor(mask, device=DEVICE)
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    with pytest.raises(RuntimeError, match="no ptxas"):
        F.ndcg(*args, mask=m, k=3)
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "auto")
    with pytest.warns(RuntimeWarning, match="fused Triton kernel failed"):
        got = F.ndcg(*args, mask=m, k=3).cpu().numpy()
    yf, sf, qf = _core_flat(y, s, mask)
    np.testing.assert_allclose(got[1:], rm.ndcg(yf, sf, qf, k=3), **TOL[torch.float64])
    assert len(K._FUSED_FAILED) == 1
    F.ndcg(*args, mask=m, k=3)  # not tried again: no second warning
    assert len(K._FUSED_FAILED) == 1  # the fused kernel is no longer tried


def test_forced_triton_on_cpu_tensors_needs_the_interpreter(monkeypatch):
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    y, s, _ = _padded_case(10, masked=False)
    with pytest.raises(ValueError, match="TRITON_INTERPRET=1"):
        F.ndcg(torch.tensor(s), torch.tensor(y), k=3)  # CPU tensors, whatever DEVICE is


LABEL_DTYPES = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool,
                torch.float16, torch.float32, torch.float64] + \
    [getattr(torch, n) for n in ("uint16", "uint32", "uint64") if hasattr(torch, n)]


@pytest.mark.parametrize("label_dtype", LABEL_DTYPES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_unchecked_padded_labels_of_every_dtype(monkeypatch, calls, label_dtype, dtype):
    """validate=False on a padded batch hands the labels to the kernel in their own dtype
    (those of T.LABEL_DTYPES; others converted to float64 first): the core's values, in
    the compute dtype, for linear and exponential gain."""
    y, s, _ = _padded_case(11, masked=False, levels=2 if label_dtype == torch.bool else 5)
    preds = torch.tensor(s, dtype=dtype, device=DEVICE)
    target = torch.tensor(y, device=DEVICE).to(label_dtype)
    yf, sf, qf = _core_flat(y, s.astype(np.float32) if dtype == torch.float32 else s,
                            np.ones(y.shape, bool))
    seen = []
    inner = T.gain_sums
    monkeypatch.setattr(T, "gain_sums", lambda *a, **kw: seen.append(a[1].dtype) or inner(*a, **kw))
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    for gain in ("exponential", "linear"):
        got = F.ndcg(preds, target, k=5, gain=gain, validate=False)
        assert got.dtype == dtype and got.device.type == torch.device(DEVICE).type
        want = rm.QueryPlan(yf, qf).ndcg(sf, k=5, gain=gain)
        np.testing.assert_allclose(got.cpu().numpy(), want, **TOL[dtype])
        dcg = F.dcg(preds, target, k=5, gain=gain, validate=False)
        want = rm.QueryPlan(yf, qf).dcg(sf, k=5, gain=gain)
        np.testing.assert_allclose(dcg.cpu().numpy(), want, **TOL[dtype])
    assert len(calls) == 4
    # read as they are, else converted to float64 first (uint16/32/64: int64 from the start)
    widened = torch.int64 if label_dtype in F._UNSIGNED_WIDE else label_dtype
    assert seen == [widened if widened in T.LABEL_DTYPES else torch.float64] * 4


def test_inputs_are_not_mutated(monkeypatch):
    y, s, mask = _padded_case(7)
    preds, target = torch.tensor(s, device=DEVICE), torch.tensor(y, device=DEVICE)
    m = torch.tensor(mask, device=DEVICE)
    before = preds.clone(), target.clone(), m.clone()
    _run("triton", monkeypatch, F.ndcg, preds, target, mask=m, k=4)
    for a, b in zip((preds, target, m), before, strict=True):
        assert torch.equal(a, b)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 5), st.integers(1, 24), st.integers(1, 4), st.integers(1, 5),
    st.one_of(st.none(), st.integers(1, 30)), st.integers(0, 2**32 - 1),
)
def test_fused_equals_core_on_random_padded_batches(b, length, score_levels, levels, k, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, levels, (b, length))
    s = rng.integers(0, score_levels, (b, length)).astype(np.float64)
    mask = rng.random((b, length)) < 0.85
    mask[:, 0] = True  # no empty row: the core returns one value per query it sees
    yf, sf, qf = _core_flat(y, s, mask)
    old = os.environ.get("RANKMETRICS_TORCH_KERNEL")
    os.environ["RANKMETRICS_TORCH_KERNEL"] = "triton"
    try:
        got = F.evaluate(torch.tensor(s, device=DEVICE), torch.tensor(y, device=DEVICE),
                         mask=torch.tensor(mask, device=DEVICE),
                         metrics=[m if k is None else f"{m}@{k}" for m in GAIN_METRICS])
    finally:
        if old is None:
            del os.environ["RANKMETRICS_TORCH_KERNEL"]
        else:
            os.environ["RANKMETRICS_TORCH_KERNEL"] = old
    core = rm.QueryPlan(yf, qf).evaluate(sf, list(got))
    for name, v in got.items():
        np.testing.assert_allclose(v.cpu().numpy(), core[name], **TOL[torch.float64])


def _spy_checks(monkeypatch):
    """Counts the host-side data checks (F._check_data) and records whether each kernel launch
    was asked to check the data."""
    host, launches = [], []
    check_data, inner = F._check_data, T.gain_sums
    monkeypatch.setattr(F, "_check_data", lambda *a, **kw: host.append(1) or check_data(*a, **kw))
    monkeypatch.setattr(T, "gain_sums", lambda *a, **kw: launches.append(
        (a[8] if len(a) > 8 else kw.get("checks")) is not None) or inner(*a, **kw))
    return host, launches


@pytest.mark.parametrize("masked", [False, True])
def test_checks_left_to_the_kernel_on_clean_data(monkeypatch, masked):
    """validate=True on a padded batch: the kernel checks the data as it reads it; the host
    checks never run on clean data, and the values are those of the host-checked path."""
    y, s, mask = _padded_case(21, masked=masked)
    preds, target = torch.tensor(s, device=DEVICE), torch.tensor(y, device=DEVICE)
    m = torch.tensor(mask, device=DEVICE) if masked else None
    names = [f"ndcg@{k}" for k in (1, 2, 3, 5, 8, 13)]  # one call, two launches (4 cutoffs each)
    host, launches = _spy_checks(monkeypatch)
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    got = F.evaluate(preds, target, mask=m, metrics=names)
    assert host == [] and launches == [True]
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "torch")
    want = F.evaluate(preds, target, mask=m, metrics=names)
    assert len(host) == 1
    for name in names:
        np.testing.assert_allclose(got[name].cpu().numpy(), want[name].cpu().numpy(),
                                   **TOL[torch.float64])


#: torch ops a checked fused call may run besides the kernel: allocations (the flag's zeroing
#: included), views, and the one read of the flags
_HOST_ONLY = {"aten.empty.memory_format", "aten.empty_strided.default", "aten.zeros.default",
              "aten.zero_.default", "aten.select.int", "aten.view.default",
              "aten._local_scalar_dense.default"}


@pytest.mark.parametrize("names", [["ndcg@10"], ["ncg@3", "dcg", "cg@5"]])
def test_checked_fused_call_launches_nothing_of_its_own(monkeypatch, names):
    """validate=True, every measure fused: the data checks and the overflow check of the sums
    are the kernel's flags, read once. The overflow check once ran on the host's side
    (sixteen small launches per call, 0.56 ms against 0.26 ms unchecked on an H200)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Ops(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.seen, self.inside = [], False

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if not self.inside:  # (the interpreter's own work is the kernel's)
                self.seen.append(str(func))
            return func(*args, **(kwargs or {}))

    y, s, _ = _padded_case(23, b=3, length=9, masked=False)  # (the interpreter: few rows)
    preds, target = torch.tensor(s, device=DEVICE), torch.tensor(y, device=DEVICE)
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    F.evaluate(preds, target, metrics=names)  # compiled, options parsed and cached
    ops, kernel = Ops(), T._gain_sums_kernel

    class Launch:
        def __getitem__(self, grid):
            def run(*args, **kwargs):
                ops.seen.append("kernel")
                ops.inside = True
                try:
                    return kernel[grid](*args, **kwargs)
                finally:
                    ops.inside = False
            return run

    monkeypatch.setattr(T, "_gain_sums_kernel", Launch())
    with ops:
        F.evaluate(preds, target, metrics=names)
    launches = [op for op in ops.seen if op not in _HOST_ONLY]
    assert launches and set(launches) == {"kernel"}, ops.seen
    assert ops.seen.count("aten._local_scalar_dense.default") == 1, ops.seen


BAD = [  # (name, spoilt array, position, value, gain, the host checks' message)
    ("nan score", "s", (3, 4), np.nan, "exponential", "preds must be finite"),
    ("inf score", "s", (0, 0), -np.inf, "linear", "preds must be finite"),
    ("negative label", "y", (5, 2), -1.0, "linear", "non-negative"),
    ("nan label", "y", (6, 12), np.nan, "exponential", "target must be finite"),
    ("inf label", "y", (1, 0), np.inf, "linear", "target must be finite"),
    ("fractional label", "y", (2, 3), 1.5, "exponential", "integers"),
    ("label 54", "y", (4, 7), 54.0, "exponential", "too large"),
]


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_checks_left_to_the_kernel_raise_the_host_errors(monkeypatch, case, masked):
    """Each defect in a real document raises the host checks' own error (the kernel flags it,
    then the host checks name it); the same defect in padding is ignored."""
    _, which, pos, value, gain, message = case
    y, s, mask = _padded_case(22, masked=masked)
    y = y.astype(np.float64)
    (s if which == "s" else y)[pos] = value
    preds, target = torch.tensor(s, device=DEVICE), torch.tensor(y, device=DEVICE)
    m = torch.tensor(mask, device=DEVICE) if masked else None
    host, launches = _spy_checks(monkeypatch)
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "triton")
    if mask[pos]:
        with pytest.raises(ValueError, match=message):
            F.ndcg(preds, target, mask=m, k=5, gain=gain)
        assert launches == [True] and host == [1]
    else:  # the defect sits in padding: no error, no host check
        got = F.ndcg(preds, target, mask=m, k=5, gain=gain)
        assert launches == [True] and host == [] and bool(torch.isfinite(got).all())
    monkeypatch.setenv("RANKMETRICS_TORCH_KERNEL", "torch")
    with pytest.raises(ValueError, match=message):  # the eager path: the same error
        F.ndcg(preds, target, k=5, gain=gain)


DEFECTS = {  # defect -> (spoilt array, value, label dtypes that can hold it)
    "nan score": ("s", np.nan, None), "inf score": ("s", np.inf, None),
    "negative label": ("y", -1, ("int8", "int64", "float32", "float64")),
    "nan label": ("y", np.nan, ("float32", "float64")),
    "fractional label": ("y", 1.5, ("float32", "float64")),
    "label 54": ("y", 54, ("int8", "uint8", "int64", "float32", "float64")),
}


@settings(max_examples=15, deadline=None)
@given(
    st.integers(1, 4), st.integers(1, 12),
    st.sampled_from([torch.float16, torch.float32, torch.float64]),
    st.sampled_from(["int8", "uint8", "int64", "float32", "float64", "bool"]), st.booleans(),
    st.sampled_from([None, *DEFECTS]), st.sampled_from(["linear", "exponential"]),
    st.integers(0, 2**32 - 1),
)
def test_kernel_checks_agree_with_the_host_checks(b, length, score_dtype, label_dtype, masked,
                                                  defect, gain, seed):
    """Random padded batches of every score and label dtype, with or without a mask, clean or
    with one defect at a random place: the call whose data the kernel checks (validate=True,
    the fused kernel) raises the error the host-checked eager call raises, or gives its values."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2 if label_dtype == "bool" else 4, (b, length)).astype(np.float64)
    s = rng.integers(0, 3, (b, length)) / 4
    mask = rng.random((b, length)) < 0.8
    mask[:, 0] = True
    if defect is not None and (DEFECTS[defect][2] is None or label_dtype in DEFECTS[defect][2]):
        which, value, _ = DEFECTS[defect]
        (s if which == "s" else y)[rng.integers(b), rng.integers(length)] = value
    preds = torch.tensor(s, device=DEVICE).to(score_dtype)
    target = torch.tensor(y, device=DEVICE).to(getattr(torch, label_dtype))
    m = torch.tensor(mask, device=DEVICE) if masked else None
    old = os.environ.get("RANKMETRICS_TORCH_KERNEL")
    outcome = {}
    try:
        for kernel in ("triton", "torch"):
            os.environ["RANKMETRICS_TORCH_KERNEL"] = kernel
            try:
                got = F.ndcg(preds, target, mask=m, k=3, gain=gain)
                outcome[kernel] = got.cpu().to(torch.float64).numpy()
            except ValueError as exc:
                outcome[kernel] = str(exc)
    finally:
        if old is None:
            del os.environ["RANKMETRICS_TORCH_KERNEL"]
        else:
            os.environ["RANKMETRICS_TORCH_KERNEL"] = old
    fused, eager = outcome["triton"], outcome["torch"]
    assert type(fused) is type(eager), (fused, eager)
    if isinstance(eager, str):
        assert fused == eager
    else:
        tol = TOL[torch.float64 if score_dtype == torch.float64 else torch.float32]
        np.testing.assert_allclose(fused, eager, **tol)
