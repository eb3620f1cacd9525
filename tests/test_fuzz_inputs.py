"""Fuzzing the input boundary of every public entry point (issue #17, "Exact at the edges").

Hypothesis draws small tie-heavy ranking problems (1-4 queries of 1-5 rows, labels 0..3, scores
from four values) and then *encodes* them the way real data arrives: every integer width signed
and unsigned, float16/32/64, bool, object, str/bytes ids, pandas nullable and categorical
arrays, Python ints beyond int64, far-apart/negative/unsorted/non-contiguous query ids, and
read-only, strided, byte-swapped and memory-mapped arrays. Sometimes one defect is injected
(a NaN or inf score, a missing or mixed-type query id, a negative or complex label, an integer
score beyond 2**53, a wrong length, ...).

Every case must end in one of two ways:

* the brute-force value (tests/oracle.py: the mean over all orderings of tied scores), with
  per-query values in ``np.unique(qid)`` order; or
* a ValueError/TypeError whose message names the offending argument,

and it must leave every input unchanged. Settings are bounded and derandomised (CI runs the
same examples every time); ``RANKMETRICS_FUZZ_EXAMPLES`` scales the search up locally. The
whole module takes about 30-60 s on two loaded cores.
"""

from __future__ import annotations

import copy
import datetime
import math
import os
from dataclasses import dataclass, field
from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
from _extras import require
from hypothesis import HealthCheck, given, settings
from oracle import oracle

import rankmetrics as rm

pd = require("pandas")

_SCALE = float(os.environ.get("RANKMETRICS_FUZZ_EXAMPLES", "1"))


def _settings(n: int) -> settings:
    return settings(
        max_examples=max(1, int(n * _SCALE)),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


A = 6148914691236517205  # far-apart int64 ids whose differences wrap

_PLUS2 = datetime.timezone(datetime.timedelta(hours=2))

# Each qid encoding: distinct ids (sorted order == np.unique order) and how to build the array.
QID_POOLS: dict[str, list[Any]] = {
    "int8": [-128, -1, 0, 127],
    "int16": [-32768, -7, 3, 32767],
    "int32": [-(2**31), -1, 10, 2**31 - 1],
    "int64": [-(2**63), -A - 1, A, 2**63 - 1],
    "uint8": [0, 1, 254, 255],
    "uint16": [0, 2, 65534, 65535],
    "uint32": [0, 7, 2**31, 2**32 - 1],
    "uint64": [0, 5, 2**63, 2**64 - 1],
    "float16": [-1.5, 0.0, 2.25, 1024.0],
    "float32": [-1e30, -0.5, 3.0, 1e30],
    "float64": [-1e300, -0.0, 1.5, 1e300],
    "bool": [False, True],
    "str": ["10", "2", "a", "b"],
    "bytes": [b"10", b"2", b"a", b"b"],
    "object_int": [-3, 2, 10, 2**70],  # Python ints, one beyond int64
    "object_real": [-1.0, 1, 2.5, 3],  # ints and floats: grouped by value
    "object_str": ["10", "2", "q", "z"],
    # ids differing only by trailing NULs, which numpy's fixed-width strings would drop
    "object_str_nul": ["a", "a\x00", "a\x00\x00", "b"],
    "object_bytes_nul": [b"a", b"a\x00", b"a\x00\x00", b"b"],
    "pd_Int64": [-5, 0, 3, 9],
    "pd_string": ["a", "b", "c", "d"],
    "categorical": ["x", "y", "z", "zz"],
    "datetime64": [np.datetime64("2020-01-01"), np.datetime64("2021-06-01"),
                   np.datetime64("2022-01-01"), np.datetime64("2030-12-31")],
    # Python objects of time (lists / object arrays): ordered and compared as Python does
    "object_date": [datetime.date(1999, 12, 31), datetime.date(2020, 1, 1),
                    datetime.date(2020, 1, 2), datetime.date(2031, 5, 5)],
    "object_datetime_tz": [datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc),
                           datetime.datetime(2020, 1, 1, 3, tzinfo=_PLUS2),  # 01:00 UTC
                           datetime.datetime(2020, 1, 1, 2, tzinfo=datetime.timezone.utc),
                           datetime.datetime(2021, 1, 1, tzinfo=_PLUS2)],
    "object_timedelta": [datetime.timedelta(-1), datetime.timedelta(0),
                         datetime.timedelta(seconds=1), datetime.timedelta(days=400)],
}
NUMERIC_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float16", "float32", "float64"]
LABEL_ENCODINGS = NUMERIC_DTYPES + ["bool", "list", "object", "pd_Int64", "pd_Float64",
                                    "categorical"]
SCORE_ENCODINGS = NUMERIC_DTYPES + ["bool", "list", "object", "pd_Float64", "big_python_int",
                                    "offset_2_52"]
LAYOUTS = ["plain", "readonly", "strided", "byteswapped", "memmap", "series"]
FAULTS = {
    "none": None,
    "score_nan": "y_score",
    "score_inf": "y_score",
    "score_complex": "y_score",
    "score_beyond_2_53": "y_score",
    "score_str": "y_score",
    "label_negative": "y_true",
    "label_nan": "y_true",
    "label_complex": "y_true",
    "label_duration": "y_true",
    "label_str": "y_true",
    "qid_none": "qid",
    "qid_nan": "qid",
    "qid_pd_na": "qid",
    "qid_mixed": "qid",
    "qid_short": "qid",
    "score_short": "y_score",
    "score_masked": "y_score",
    "label_masked": "y_true",
    "qid_masked": "qid",
}


@dataclass
class Case:
    """One drawn problem: logical values plus their encoded forms."""

    labels: np.ndarray  # int64 0..3, the logical labels
    scores: np.ndarray  # float64, the logical scores
    logical: np.ndarray  # int64 logical query of each row
    qid_ids: list[Any]  # id of logical query j
    y_true: Any = None
    y_score: Any = None
    qid: Any = None
    fault: str = "none"
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def bad_arg(self) -> str | None:
        return FAULTS[self.fault]

    def expected_order(self) -> list[int]:
        """Logical queries in the order of the sorted distinct ids."""
        used = sorted(set(self.logical.tolist()))
        return sorted(used, key=lambda j: _sort_key(self.qid_ids[j]))

    def oracle(self, metric: str, **params: Any) -> np.ndarray:
        out = []
        for j in self.expected_order():
            m = self.logical == j
            out.append(oracle(metric, self.labels[m], self.scores[m], **params).mean)
        return np.array(out, dtype=np.float64)


def _sort_key(x: Any) -> Any:
    return x


def _layout(arr: np.ndarray, layout: str, tmpdir: Any) -> Any:
    if arr.dtype.kind == "O" or layout == "plain":
        return arr
    if layout == "readonly":
        out = arr.copy()
        out.setflags(write=False)
        return out
    if layout == "strided":
        wide = np.repeat(arr, 2)
        return wide[::2]
    if layout == "byteswapped":
        if arr.dtype.itemsize == 1 or arr.dtype.kind in "USb":
            return arr
        return arr.astype(arr.dtype.newbyteorder())
    if layout == "memmap":
        if arr.dtype.kind in "USM" or arr.size == 0:
            return arr
        path = os.path.join(tmpdir, f"mm_{np.random.default_rng().integers(1 << 62)}.bin")
        mm = np.memmap(path, dtype=arr.dtype, mode="w+", shape=arr.shape)
        mm[:] = arr
        mm.flush()
        return np.memmap(path, dtype=arr.dtype, mode="r", shape=arr.shape)
    if layout == "series":
        return pd.Series(arr)
    raise AssertionError(layout)


def _encode_qid(case: Case, enc: str) -> Any:
    ids = [case.qid_ids[j] for j in case.logical.tolist()]
    if enc in NUMERIC_DTYPES or enc == "bool":
        return np.array(ids, dtype=enc)
    if enc == "str":
        return np.array(ids, dtype=str)
    if enc == "bytes":
        return np.array(ids, dtype=bytes)
    if enc.startswith("object"):
        out = np.empty(len(ids), dtype=object)
        out[:] = ids
        return out
    if enc == "pd_Int64":
        return pd.array(ids, dtype="Int64")
    if enc == "pd_string":
        return pd.array(ids, dtype="string")
    if enc == "categorical":
        return pd.Categorical(ids)
    if enc == "datetime64":
        return np.array(ids, dtype="datetime64[D]")
    raise AssertionError(enc)


def _encode_labels(labels: np.ndarray, enc: str) -> Any:
    if enc == "bool":
        return labels.astype(bool)
    if enc in NUMERIC_DTYPES:
        return labels.astype(enc)
    if enc == "list":
        return labels.tolist()
    if enc == "object":
        return np.array(labels.tolist(), dtype=object)
    if enc == "pd_Int64":
        return pd.array(labels.tolist(), dtype="Int64")
    if enc == "pd_Float64":
        return pd.array(labels.astype(float).tolist(), dtype="Float64")
    if enc == "categorical":
        return pd.Categorical(labels.tolist())
    raise AssertionError(enc)


def _encode_scores(scores: np.ndarray, enc: str) -> Any:
    # logical scores are small integers 0..3 (ties by construction): exact in every dtype
    if enc == "bool":
        return scores.astype(bool)
    if enc in NUMERIC_DTYPES:
        return scores.astype(enc)
    if enc == "list":
        return scores.tolist()
    if enc == "object":
        return np.array([int(x) for x in scores], dtype=object)
    if enc == "pd_Float64":
        return pd.array(scores.tolist(), dtype="Float64")
    if enc == "big_python_int":  # beyond int64 and far beyond 2**53: must raise
        return [int(x) + 2**70 for x in scores]
    if enc == "offset_2_52":  # large but exact: same ranking as the logical scores
        return (scores.astype(np.int64) + 2**52 - 8).astype(np.int64)
    raise AssertionError(enc)


@st.composite
def problems(draw: Any, *, qid_encodings: list[str] | None = None,
             faults: list[str] | None = None, grouped: bool = False) -> Case:
    n_q = draw(st.integers(1, 4))
    qenc = draw(st.sampled_from(qid_encodings or list(QID_POOLS)))
    pool = QID_POOLS[qenc]
    n_q = min(n_q, len(pool))
    ids = draw(st.permutations(pool))[:n_q]  # logical query j -> id (unsorted on purpose)
    sizes = draw(st.lists(st.integers(1, 5), min_size=n_q, max_size=n_q))
    logical = np.repeat(np.arange(n_q), sizes)
    if not grouped and draw(st.booleans()):
        logical = logical[np.array(draw(st.permutations(range(logical.size))))]
    n = logical.size
    labels = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), np.int64)
    scores = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), np.float64)
    lenc = draw(st.sampled_from(LABEL_ENCODINGS))
    senc = draw(st.sampled_from(SCORE_ENCODINGS))
    if lenc == "bool":
        labels = np.minimum(labels, 1)
    if senc == "bool":
        scores = np.minimum(scores, 1)
    case = Case(labels, scores, logical, list(ids))
    case.y_true = _encode_labels(labels, lenc)
    case.y_score = _encode_scores(scores, senc)
    case.qid = _encode_qid(case, qenc)
    case.notes = {"qid": qenc, "labels": lenc, "scores": senc}
    choices = faults if faults is not None else list(FAULTS)
    defects = [f for f in choices if f != "none"]
    if "none" in choices and defects and draw(st.booleans()):
        fault = "none"  # half of the cases are clean: their values are checked
    else:
        fault = draw(st.sampled_from(defects or choices))
    if senc == "big_python_int" and fault == "none":
        fault = "score_beyond_2_53"
    if senc == "big_python_int" and FAULTS[fault] != "y_score":
        # a second defect: keep the score one (the first checked argument may differ)
        case.y_score = _encode_scores(scores, "list")
    _inject(case, fault)
    case.notes["layout_y"] = draw(st.sampled_from(LAYOUTS))
    case.notes["layout_s"] = draw(st.sampled_from(LAYOUTS))
    case.notes["layout_q"] = draw(st.sampled_from(LAYOUTS))
    return case


def _inject(case: Case, fault: str) -> None:
    case.fault = fault
    n = case.labels.size
    if fault == "none":
        return
    if fault.startswith("score_"):
        s = np.asarray(case.scores, dtype=np.float64).tolist()
        if fault == "score_nan":
            s[0] = math.nan
            case.y_score = np.array(s)
        elif fault == "score_inf":
            s[-1] = -math.inf
            case.y_score = np.array(s, dtype=np.float32)
        elif fault == "score_complex":
            case.y_score = np.array(s) + 1j
        elif fault == "score_beyond_2_53":
            case.y_score = np.array(s, dtype=np.int64) + 2**53
        elif fault == "score_str":
            case.y_score = np.array([str(x) for x in s])
        elif fault == "score_short":
            case.y_score = np.array(s[:-1]) if n > 1 else np.array([], dtype=float)
        elif fault == "score_masked":  # a hidden value that np.asarray would read
            case.y_score = np.ma.masked_array(s, mask=np.arange(n) == n - 1)
        return
    if fault.startswith("label_"):
        y = case.labels.astype(np.float64)
        if fault == "label_negative":
            y[-1] = -1
            case.y_true = y.astype(np.int32)
        elif fault == "label_nan":
            y[0] = math.nan
            case.y_true = y
        elif fault == "label_complex":
            case.y_true = y.astype(np.complex128)
        elif fault == "label_duration":
            case.y_true = y.astype("timedelta64[s]")
        elif fault == "label_str":
            case.y_true = np.array([str(int(v)) for v in y])
        elif fault == "label_masked":
            case.y_true = np.ma.masked_array(y.astype(np.int64), mask=np.arange(n) == 0)
        return
    q = [case.qid_ids[j] for j in case.logical.tolist()]
    out = np.empty(n, dtype=object)
    if fault == "qid_none":
        out[:] = q
        out[-1] = None
        case.qid = out
    elif fault == "qid_nan":
        case.qid = np.array([float(i) for i in case.logical.tolist()])
        case.qid[0] = math.nan
    elif fault == "qid_pd_na":
        case.qid = pd.array([int(i) for i in case.logical.tolist()], dtype="Int64")
        case.qid[-1] = pd.NA
    elif fault == "qid_mixed":
        if n == 1:  # one row cannot mix types: a string beside an int, and one id too many
            case.fault = "qid_short"
            case.qid = np.array([0, "0"], dtype=object)
            return
        out[:] = [int(i) for i in case.logical.tolist()]
        out[0] = str(out[0])
        case.qid = out
    elif fault == "qid_short":
        case.qid = np.zeros(n + 1, dtype=np.int64)
    elif fault == "qid_masked":
        case.qid = np.ma.masked_array(case.logical.copy(), mask=np.arange(n) == n - 1)


def _laid_out(case: Case, tmpdir: Any) -> tuple[Any, Any, Any]:
    def lay(x: Any, key: str) -> Any:
        if isinstance(x, np.ndarray) and not isinstance(x, (np.memmap, np.ma.MaskedArray)):
            return _layout(x, case.notes[key], tmpdir)
        return x

    return lay(case.y_true, "layout_y"), lay(case.y_score, "layout_s"), lay(case.qid, "layout_q")


def _snapshot(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return (np.array(x, copy=True), x.dtype, x.flags.writeable)
    if isinstance(x, pd.Series):
        return x.copy(deep=True)
    return copy.deepcopy(x)


def _unchanged(before: Any, after: Any) -> bool:
    if isinstance(after, np.ndarray):
        arr, dtype, writeable = before
        if after.dtype != dtype or after.flags.writeable != writeable:
            return False
        if after.dtype.kind == "O":
            return [repr(v) for v in arr.tolist()] == [repr(v) for v in after.tolist()]
        return bool(np.array_equal(arr, after, equal_nan=after.dtype.kind in "fc"))
    if isinstance(after, pd.Series):
        return bool(before.equals(after))
    if isinstance(after, (pd.Categorical, pd.api.extensions.ExtensionArray)):
        return bool(pd.Series(before).equals(pd.Series(after)))
    return repr(before) == repr(after)


def _run(case: Case, call: Any, names: dict[str, str] | None = None,
         tmpdir: Any = None) -> Any:
    """Call ``call(y_true, y_score, qid)``; check the outcome kind and that inputs are intact.

    Returns the call's result, or None when it raised the expected error. ``names`` maps
    the core argument names to the entry point's own (e.g. y_score -> preds).
    """
    names = names or {}
    y, s, q = _laid_out(case, tmpdir)
    before = [_snapshot(v) for v in (y, s, q)]
    try:
        out = call(y, s, q)
    except (ValueError, TypeError) as exc:
        bad = case.bad_arg
        assert bad is not None, f"unexpected {type(exc).__name__}: {exc} ({case.notes})"
        want = names.get(bad, bad)
        assert want in str(exc), f"{want!r} not named in {exc!r} ({case.fault}, {case.notes})"
        out = None
    else:
        assert case.bad_arg is None, f"{case.fault} was accepted ({case.notes})"
    for b, a in zip(before, (y, s, q), strict=True):
        assert _unchanged(b, a), f"an input was modified ({case.notes})"
    return out


@pytest.fixture(scope="module")
def tmpdir(tmp_path_factory: Any) -> str:
    return str(tmp_path_factory.mktemp("fuzz_mmap"))


# ----------------------------------------------------------------------------- core API
@_settings(150)
@given(case=problems(), k=st.sampled_from([None, 1, 3]))
def test_fuzz_core_functions(case: Case, k: int | None, tmpdir: str) -> None:
    out = _run(case, lambda y, s, q: (
        rm.ndcg(y, s, q, k=k),
        rm.average_precision(y, s, q),
        rm.reciprocal_rank(y, s, q, k=k),
        rm.precision(y, s, q, k=2),
        rm.ndcg_score(y, s, q, k=k, gain="exponential"),
    ), tmpdir=tmpdir)
    if out is None:
        return
    nd, ap, rr, p2, mean = out
    np.testing.assert_allclose(nd, case.oracle("ndcg", k=k), atol=1e-12)
    np.testing.assert_allclose(ap, case.oracle("average_precision"), atol=1e-12)
    np.testing.assert_allclose(rr, case.oracle("reciprocal_rank", k=k), atol=1e-12)
    np.testing.assert_allclose(p2, case.oracle("precision", k=2), atol=1e-12)
    assert mean == pytest.approx(float(np.mean(case.oracle("ndcg", k=k))), abs=1e-12)


TIME_QIDS = ["datetime64", "object_date", "object_datetime_tz", "object_timedelta"]


@_settings(40)
@given(case=problems(qid_encodings=TIME_QIDS), k=st.sampled_from([None, 1, 3]))
def test_fuzz_time_qids(case: Case, k: int | None, tmpdir: str) -> None:
    """Dates, tz-aware datetimes (equal instants in other zones are others here: the pool's
    ids are distinct instants) and durations as query ids, through every layout: the
    oracle's values in the ids' own order, inputs untouched, clear errors for the faults."""
    out = _run(case, lambda y, s, q: (rm.ndcg(y, s, q, k=k), rm.QueryPlan(y, q).qids),
               tmpdir=tmpdir)
    if out is None:
        return
    nd, qids = out
    np.testing.assert_allclose(nd, case.oracle("ndcg", k=k), atol=1e-12)
    assert len(qids) == len(case.expected_order())


def _per_query(case: Case, fn: Any) -> np.ndarray:
    """``fn(labels, scores)`` of every query of the clean float64 form, in the expected order."""
    out = []
    for j in case.expected_order():
        m = case.logical == j
        out.append(fn(case.labels[m].astype(np.float64), case.scores[m].astype(np.float64))[0])
    return np.array(out, dtype=np.float64)


@_settings(80)
@given(case=problems(), k=st.sampled_from([None, 1, 3]))
def test_fuzz_err_rbp_ap_found(case: Case, k: int | None, tmpdir: str) -> None:
    """The measures added for IR parity (ERR, RBP, AP over the relevant found in the top k)
    take every fuzzed encoding through the shared validation and give the clean input's value
    (itself checked by brute force in tests/test_err_rbp.py and tests/test_ap_found.py)."""
    out = _run(case, lambda y, s, q: (
        rm.err(y, s, q, k=k),
        rm.rbp(y, s, q, k=k, p=0.7),
        rm.average_precision(y, s, q, k=3, denominator="found"),
    ), tmpdir=tmpdir)
    if out is None:
        return
    err, rbp, apf = out
    np.testing.assert_allclose(err, _per_query(case, lambda y, s: rm.err(y, s, k=k)),
                               rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(rbp, _per_query(case, lambda y, s: rm.rbp(y, s, k=k, p=0.7)),
                               rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(apf, _per_query(case, lambda y, s: rm.average_precision(
        y, s, k=3, denominator="found")), rtol=1e-13, atol=1e-15)


@_settings(80)
@given(case=problems())
def test_fuzz_query_plan(case: Case, tmpdir: str) -> None:
    def call(y: Any, s: Any, q: Any) -> Any:
        plan = rm.QueryPlan(y, q)
        # the ids come back as np.unique would give them, one per distinct query
        assert plan.n_queries == len(set(case.logical.tolist()))
        return plan.evaluate(s, ["ndcg@2", "map", "mrr", "dcg"])

    out = _run(case, call, tmpdir=tmpdir)
    if out is None:
        return
    np.testing.assert_allclose(out["ndcg@2"], case.oracle("ndcg", k=2), atol=1e-12)
    np.testing.assert_allclose(out["map"], case.oracle("average_precision"), atol=1e-12)
    np.testing.assert_allclose(out["mrr"], case.oracle("reciprocal_rank"), atol=1e-12)
    np.testing.assert_allclose(out["dcg"], case.oracle("dcg"), rtol=1e-12, atol=1e-12)


@_settings(40)
@given(case=problems(faults=["none"]))
def test_fuzz_query_weight_order(case: Case, tmpdir: str) -> None:
    """query_weight follows np.unique(qid): weight 1 on one query gives that query's value."""
    order = case.expected_order()
    if case.notes["scores"] == "big_python_int":
        return
    for pos in range(len(order)):
        w = np.zeros(len(order))
        w[pos] = 1.0
        out = _run(case, lambda y, s, q, w=w: rm.ndcg_score(y, s, q, k=3, gain="exponential",
                                                            query_weight=w),
                   tmpdir=tmpdir)
        assert out == pytest.approx(case.oracle("ndcg", k=3)[pos], abs=1e-12)


# ------------------------------------------------------------------------------ LightGBM
@_settings(60)
@given(case=problems(qid_encodings=["int64"], grouped=True,
                     faults=["none", "score_nan", "score_inf", "score_beyond_2_53",
                             "score_complex", "label_negative", "label_nan", "label_str"]),
       group_enc=st.sampled_from(["int32", "int64", "uint64", "float64", "list"]),
       weighted=st.booleans())
def test_fuzz_lightgbm_eval_metric(case: Case, group_enc: str, weighted: bool,
                                   tmpdir: str) -> None:
    require("lightgbm")
    from rankmetrics.lightgbm import make_eval_metric

    sizes = np.bincount(case.logical)  # grouped: logical query j holds rows of block j
    group = sizes.tolist() if group_enc == "list" else sizes.astype(group_enc)
    weight = np.repeat(np.arange(1.0, sizes.size + 1.0), sizes) if weighted else None
    metric = make_eval_metric(["ndcg@3", "map"], empty=0.0)
    names = {"y_score": "y_pred"}
    out = _run(case, lambda y, s, q: metric(y, s, weight, group), names, tmpdir)
    if out is None:
        return
    # group order is row order: logical 0, 1, ... (not the order of the ids)
    per = {}
    for metric_name, params in [("ndcg", {"k": 3}), ("average_precision", {})]:
        vals = np.array([oracle(metric_name, case.labels[case.logical == j],
                                case.scores[case.logical == j], **params).mean
                         for j in range(sizes.size)])
        w = np.arange(1.0, sizes.size + 1.0) if weighted else np.ones(sizes.size)
        per[metric_name] = float(np.dot(vals, w) / w.sum())
    assert out[0][1] == pytest.approx(per["ndcg"], abs=1e-12)
    assert out[1][1] == pytest.approx(per["average_precision"], abs=1e-12)


def _assert_mean_ndcg2(case: Case, value: float) -> None:
    """``value`` is the mean over the case's queries of the brute-force tie-aware nDCG@2
    (empty queries 1, the boosting libraries' rule); to 1e-6: the hosts keep float32 labels."""
    sizes = np.bincount(case.logical)
    vals = [oracle("ndcg", case.labels[case.logical == j], case.scores[case.logical == j],
                   k=2, empty=1.0).mean for j in range(sizes.size)]
    assert value == pytest.approx(float(np.mean(vals)), abs=1e-6)


@_settings(30)
@given(case=problems(qid_encodings=["int64"], grouped=True,
                     faults=["none", "score_nan", "score_inf", "label_negative"]))
def test_fuzz_lightgbm_feval_dataset(case: Case, tmpdir: str) -> None:
    lgb = require("lightgbm")
    from rankmetrics.lightgbm import make_feval

    sizes = np.bincount(case.logical)
    feval = make_feval("ndcg", k=2)
    labels_ok = case.fault != "label_negative"

    def call(y: Any, s: Any, q: Any) -> Any:
        lab = np.asarray(y, dtype=np.float64) if labels_ok else np.asarray(y)
        ds = lgb.Dataset(np.zeros((lab.shape[0], 1)), label=lab, group=sizes,
                         params={"verbose": -1}, free_raw_data=False).construct()
        return feval(s, ds)

    out = _run(case, call, {"y_score": "preds", "y_true": "label"}, tmpdir)
    if out is not None:
        _assert_mean_ndcg2(case, out[0][1])


@_settings(30)
@given(case=problems(qid_encodings=["int64"], grouped=True,
                     faults=["none", "score_nan", "score_inf"]))
def test_fuzz_xgboost_custom_metric(case: Case, tmpdir: str) -> None:
    # every score dtype and layout reaches XGBoost's custom_metric(predt, dmatrix) as predt:
    # the right value, or an error naming predt
    xgb = require("xgboost")
    from rankmetrics.xgboost import make_custom_metric

    sizes = np.bincount(case.logical)
    metric = make_custom_metric("ndcg", k=2)

    def call(y: Any, s: Any, q: Any) -> Any:
        lab = np.asarray(y, dtype=np.float64)
        d = xgb.DMatrix(np.zeros((lab.shape[0], 1)), label=lab,
                        qid=np.repeat(np.arange(sizes.size), sizes))
        return metric(s, d)

    out = _run(case, call, {"y_score": "predt"}, tmpdir)
    if out is not None:
        _assert_mean_ndcg2(case, out[0][1])


@_settings(30)
@given(case=problems(qid_encodings=["int64"], grouped=True,
                     faults=["none", "score_nan", "score_inf", "label_negative", "label_nan"]))
def test_fuzz_xgboost_eval_metric(case: Case, tmpdir: str) -> None:
    # XGBRanker(eval_metric=...) calls f(y_true, y_score) on one query's rows: every label
    # and score dtype and layout gives the value of the rows as one list, or an error naming
    # the bad argument
    require("xgboost")
    from rankmetrics.xgboost import make_eval_metric

    metric = make_eval_metric("ndcg", k=2)
    out = _run(case, lambda y, s, q: metric(y, s), tmpdir=tmpdir)
    if out is None:
        return
    # all rows are one list (up to 20: too many orderings for the brute force): the core's
    # value on the clean arrays, which the brute-force tests check
    want = rm.ndcg(case.labels, case.scores, np.zeros(case.labels.size), k=2, empty=1.0)[0]
    assert out == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("group", [
    np.array([2**63 - 1, 2**63 - 1, 5]),
    np.array([2**64 - 1, 4], dtype=np.uint64),
    np.array([3.5]),
    np.array([0, 3]),
    np.array([-1, 4]),
    np.array([1, 1, 1, 1]),
    np.array([np.nan, 3.0]),
    np.array(["1", "2"]),
    np.array([[3]]),
])
def test_fuzz_lightgbm_group_sizes(group):
    require("lightgbm")
    from rankmetrics.lightgbm import make_eval_metric

    before = group.copy()
    with pytest.raises((ValueError, TypeError), match="group"):
        make_eval_metric("ndcg")([1, 0, 1], [0.1, 0.2, 0.3], None, group)
    np.testing.assert_array_equal(group, before)


# ------------------------------------------------------------------------------- sklearn
@_settings(40)
@given(case=problems(qid_encodings=["int64", "uint32", "uint64", "str", "object_int",
                                    "object_real", "pd_string", "categorical", "float32"],
                     faults=["none", "qid_none", "qid_mixed", "qid_nan", "label_negative",
                             "label_nan"]))
def test_fuzz_sklearn_scorer(case: Case, tmpdir: str) -> None:
    require("sklearn")
    import sklearn
    from sklearn.base import BaseEstimator, RegressorMixin

    from rankmetrics.sklearn import make_ranking_scorer

    class Fixed(RegressorMixin, BaseEstimator):
        """Predicts the drawn scores for rows 0..n-1 (X holds the row number)."""

        def fit(self, X: Any, y: Any) -> Fixed:
            return self

        def predict(self, X: Any) -> np.ndarray:
            return case.scores[np.asarray(X, dtype=np.int64)[:, 0]]

    if case.notes["scores"] == "big_python_int":
        return
    X = np.arange(case.labels.size)[:, None]
    scorer = make_ranking_scorer("ndcg@3", gain="exponential")
    est = Fixed().fit(X, case.labels)
    with sklearn.config_context(enable_metadata_routing=True), _no_warning_check():
        out = _run(case, lambda y, s, q: scorer(est, X, y, qid=q), tmpdir=tmpdir)
    if out is None:
        return
    assert out == pytest.approx(float(np.mean(case.oracle("ndcg", k=3))), abs=1e-12)


class _no_warning_check:
    """Single-row queries warn (RankingCVWarning); that is expected here."""

    def __enter__(self) -> None:
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc: Any) -> None:
        self._cm.__exit__(*exc)


# --------------------------------------------------------------------------------- torch
TORCH_INDEX_DTYPES = ["int8", "int16", "int32", "int64", "uint8"]


@_settings(60)
@given(case=problems(qid_encodings=TORCH_INDEX_DTYPES + ["uint16", "uint32", "uint64"],
                     faults=["none", "score_nan", "score_inf", "score_beyond_2_53",
                             "label_negative", "label_nan", "qid_short", "score_short"]),
       as_tensor=st.booleans())
def test_fuzz_torch_functional(case: Case, as_tensor: bool, tmpdir: str) -> None:
    torch = require("torch")
    rmt = require("rankmetrics.torch")
    if case.notes["scores"] == "big_python_int":
        return

    def conv(x: Any) -> Any:
        if not as_tensor or isinstance(x, list):
            return x
        arr = np.asarray(x)
        if arr.dtype.kind not in "biuf":
            return x
        return torch.from_numpy(np.array(arr, dtype=arr.dtype.newbyteorder("="), copy=True))

    def call(y: Any, s: Any, q: Any) -> Any:
        return (rmt.ndcg(conv(s), conv(y), conv(q), k=3),
                rmt.average_precision(conv(s), conv(y), conv(q)))

    names = {"y_score": "preds", "y_true": "target", "qid": "indexes"}
    out = _run(case, call, names, tmpdir)
    if out is None:
        return
    np.testing.assert_allclose(out[0].double().numpy(), case.oracle("ndcg", k=3), atol=1e-6)
    np.testing.assert_allclose(out[1].double().numpy(), case.oracle("average_precision"),
                               atol=1e-6)


@_settings(30)
@given(case=problems(qid_encodings=["int64"], grouped=True, faults=["none"]),
       per_batch=st.integers(1, 3))
def test_fuzz_torch_monitor_and_metric(case: Case, per_batch: int) -> None:
    torch = require("torch")
    require("torchmetrics")
    rmt = require("rankmetrics.torch")
    if case.notes["scores"] in ("big_python_int",):
        return
    ids = np.array([case.qid_ids[j] for j in case.logical.tolist()], dtype=np.int64)
    s = torch.tensor(case.scores)
    y = torch.tensor(case.labels)
    q = torch.tensor(ids)
    before = (s.clone(), y.clone(), q.clone())
    want = float(np.mean(case.oracle("ndcg", k=2)))
    n_q = int(case.logical.max()) + 1
    starts = np.r_[np.flatnonzero(np.r_[True, np.diff(case.logical) != 0]), case.logical.size]
    mon = rmt.RankingMonitor("ndcg@2")
    met = rmt.RankingMetric("ndcg@2")
    for a in range(0, n_q, per_batch):
        lo, hi = starts[a], starts[min(a + per_batch, n_q)]
        mon.update(s[lo:hi], y[lo:hi], q[lo:hi])
        met.update(s[lo:hi], y[lo:hi], q[lo:hi])
    assert mon.compute()["ndcg@2"] == pytest.approx(want, abs=1e-12)
    assert float(met.compute()) == pytest.approx(want, abs=1e-12)
    # batches cut inside a query: the whole-query monitor refuses, spanning=True is exact
    # (every other batch's labels as float64, its ids as int32: a held-back query joins the
    # next batch in the promoted dtypes)
    span = rmt.RankingMonitor("ndcg@2", spanning=True)
    span_metric = rmt.RankingMetric("ndcg@2", spanning=True)
    for i, lo in enumerate(range(0, case.logical.size, 2)):
        yb = y[lo:lo + 2].double() if i % 2 else y[lo:lo + 2]
        qb = q[lo:lo + 2].int() if i % 2 and int(q.abs().max()) < 2**31 else q[lo:lo + 2]
        span.update(s[lo:lo + 2], yb, qb)
        span_metric.update(s[lo:lo + 2], yb, qb)
    assert span.compute()["ndcg@2"] == pytest.approx(want, abs=1e-12)
    assert float(span_metric.compute()) == pytest.approx(want, abs=1e-12)
    if np.any(np.diff(case.logical[1::2]) == 0) or np.any(case.logical[1:-1:2]
                                                          == case.logical[2::2]):
        cut = rmt.RankingMonitor("ndcg@2")
        with pytest.raises(ValueError, match="indexes"):
            for lo in range(0, case.logical.size, 2):
                cut.update(s[lo:lo + 2], y[lo:lo + 2], q[lo:lo + 2])
    for b, a in zip(before, (s, y, q), strict=True):
        assert torch.equal(b, a)


# ---------------------------------------------------------------------------------- TREC
@_settings(40)
@given(case=problems(qid_encodings=["str", "int64", "object_int", "object_str"],
                     faults=["none", "qid_none", "label_complex", "label_duration"]),
       as_frame=st.booleans(), judged_only=st.booleans(), threads=st.sampled_from([None, 1, 2]))
def test_fuzz_trec_evaluate(case: Case, as_frame: bool, judged_only: bool,
                            threads: int | None) -> None:
    """Also qrels labels the core refuses (complex, durations), which were read as numbers."""
    from rankmetrics import trec

    if case.notes["scores"] == "big_python_int":
        return
    if case.fault == "qid_short":
        return  # a wrong-length id column has no dict or frame form
    ids = list(case.qid.tolist()) if hasattr(case.qid, "tolist") else list(case.qid)
    docs = [f"d{i}" for i in range(case.labels.size)]
    labels: Any = case.labels
    if case.fault == "label_complex":
        labels = case.labels.astype(np.complex128) + 1j
    elif case.fault == "label_duration":
        labels = case.labels.astype("timedelta64[s]")
    if as_frame:
        col = np.empty(len(ids), dtype=object)
        col[:] = ids
        qrels: Any = pd.DataFrame({"qid": col, "docid": docs, "label": labels})
        run: Any = pd.DataFrame({"qid": col.copy(), "docid": docs, "score": case.scores})
    else:
        qrels, run = {}, {}
        for qq, d, lab, sc in zip(ids, docs, list(labels), case.scores.tolist(),
                                  strict=True):
            qrels.setdefault(qq, {})[d] = lab
            run.setdefault(qq, {})[d] = sc
    before = (copy.deepcopy(qrels), copy.deepcopy(run))
    bad = case.bad_arg
    try:
        # every retrieved document is judged here, so judged_only must change nothing
        res = trec.evaluate(qrels, run, ["nDCG", "AP"], gain="linear", judged_only=judged_only,
                            threads=threads)
    except (ValueError, TypeError) as exc:
        assert bad in ("qid", "y_true"), f"unexpected {exc!r}"
        if bad == "qid":
            assert "query id" in str(exc) or "qid" in str(exc)
        else:
            assert "label" in str(exc) and "real numbers" in str(exc), exc
        return
    assert bad is None, f"{case.fault} accepted"
    for j in sorted(set(case.logical.tolist())):
        m = case.logical == j
        key = str(case.qid_ids[j])
        nd = oracle("ndcg", case.labels[m], case.scores[m], gain="linear", empty=0.0).mean
        if case.labels[m].max() == 0:
            continue  # trec_eval's rules for queries without a relevant document differ
        assert res.per_query.loc[key, "nDCG"] == pytest.approx(nd, abs=1e-12)
        ap = oracle("average_precision", case.labels[m], case.scores[m]).mean
        assert res.per_query.loc[key, "AP"] == pytest.approx(ap, abs=1e-12)
    if as_frame:
        assert before[0].equals(qrels) and before[1].equals(run)
    else:
        assert before == (qrels, run)


@pytest.mark.parametrize("kind", ["dict", "frame"])
@pytest.mark.parametrize("ids", [[1, "1"], [1.0, 1], [None, "a"], [float("nan"), "a"]])
def test_fuzz_trec_ids_read_as_strings(kind, ids):
    """TREC ids are strings: mixed types are fine unless str() merges or splits them."""
    from rankmetrics import trec

    if kind == "dict":
        qrels: Any = {}
        for i, q in enumerate(ids):
            qrels.setdefault(q, {})[f"d{i}"] = 1
        if len(qrels) == 1 and ids[0] == ids[1] and not isinstance(ids[0], str):
            return  # 1.0 and 1 are one dict key already
    else:
        col = np.empty(len(ids), dtype=object)
        col[:] = ids
        qrels = pd.DataFrame({"qid": col, "docid": ["a", "b"], "label": [1, 1]})
    run = {"1": {"d0": 1.0, "a": 1.0}}
    before = copy.deepcopy(qrels)
    with pytest.raises(ValueError, match="qid|query ids"):
        trec.evaluate(qrels, run, ["AP"])
    assert before.equals(qrels) if kind == "frame" else before == qrels


def _spelled(text: str, how: str) -> Any:
    """The id ``text`` (integral) as a Python object of kind ``how``."""
    return {"str": text, "int": int(text), "float": float(text), "bytes": text.encode()}[how]


def _id_rows(data: Any, tmp_path_factory: Any) -> tuple[list[tuple[str, str, int, float]],
                                                       Any, Any]:
    """1-4 queries (ids 1, 8, 15, 22) of 1-5 judged and scored documents: the rows (query
    text, docid, label, score) and the qrels and run written as TREC files."""
    n_q = data.draw(st.integers(1, 4), label="queries")
    rows = []
    for qi in range(n_q):
        for d in range(data.draw(st.integers(1, 5), label="docs")):
            rows.append((str(7 * qi + 1), f"d{d}", data.draw(st.integers(0, 3), label="label"),
                         data.draw(st.sampled_from([0.0, 0.25, 0.5, 1.0]), label="score")))
    folder = tmp_path_factory.mktemp("ids")
    qf, rf = folder / "qrels", folder / "run"
    qf.write_text("".join(f"{q} 0 {d} {lab}\n" for q, d, lab, _ in rows))
    rf.write_text("".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, _, s) in enumerate(rows)))
    return rows, qf, rf


def _id_dicts(rows: list[tuple[str, str, int, float]], q_how: str, r_how: str
              ) -> tuple[dict[Any, dict[str, int]], dict[Any, dict[str, float]]]:
    """``_id_rows``' rows as pytrec_eval-style dicts, query ids spelt ``q_how`` / ``r_how``."""
    qrels: dict[Any, dict[str, int]] = {}
    run: dict[Any, dict[str, float]] = {}
    for q, d, lab, sc in rows:
        qrels.setdefault(_spelled(q, q_how), {})[d] = lab
        run.setdefault(_spelled(q, r_how), {})[d] = sc
    return qrels, run


@_settings(30)
@given(data=st.data(), form=st.sampled_from(["dict", "records", "categorical"]),
       q_how=st.sampled_from(["str", "int", "float", "bytes"]),
       r_how=st.sampled_from(["str", "int", "float", "bytes"]))
def test_fuzz_trec_in_memory_ids_follow_the_file_rule(data: Any, form: str, q_how: str,
                                                      r_how: str, tmp_path_factory: Any) -> None:
    """Query ids of dicts (pytrec_eval, ranx), ir_measures-style records and categorical
    columns, spelt as str, int, integral float or bytes on either side, give the numbers of the
    same ids written in TREC files (7.0 is "7", bytes are decoded), or a ValueError naming the
    ids; the inputs are left as they were."""
    import collections

    require("pyarrow")
    from rankmetrics import trec

    if form == "categorical" and "bytes" in (q_how, r_how):
        q_how = r_how = "str"  # pandas categories of bytes are not a TREC id column
    rows, qf, rf = _id_rows(data, tmp_path_factory)
    want = trec.evaluate(str(qf), str(rf), ["nDCG@3", "AP"]).per_query
    qrels: Any
    run: Any
    if form == "dict":
        qrels, run = _id_dicts(rows, q_how, r_how)
    elif form == "records":
        qrel_t = collections.namedtuple("qrel_t", "query_id doc_id relevance")
        doc_t = collections.namedtuple("doc_t", "query_id doc_id score")
        qrels = [qrel_t(_spelled(q, q_how), d, lab) for q, d, lab, _ in rows]
        run = [doc_t(_spelled(q, r_how), d, s) for q, d, _, s in rows]
    else:
        import pandas as pd

        qrels = pd.DataFrame({"qid": pd.Categorical([_spelled(q, q_how) for q, *_ in rows]),
                              "docid": [d for _, d, _, _ in rows],
                              "label": [lab for _, _, lab, _ in rows]})
        run = pd.DataFrame({"qid": pd.Categorical([_spelled(q, r_how) for q, *_ in rows]),
                            "docid": [d for _, d, _, _ in rows],
                            "score": [s for *_, s in rows]})
    before = (copy.deepcopy(qrels), copy.deepcopy(run))
    got = trec.evaluate(qrels, run, ["nDCG@3", "AP"]).per_query
    assert list(got.index) == list(want.index)
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    if form == "categorical":
        assert before[0].equals(qrels) and before[1].equals(run)
    else:
        assert before == (qrels, run)


@_settings(20)
@given(data=st.data(), form=st.sampled_from(["dict", "frame"]),
       q_how=st.sampled_from(["str", "int", "float"]),
       r_how=st.sampled_from(["str", "int", "float"]))
def test_fuzz_ir_measures_provider_ids_follow_the_file_rule(data: Any, form: str, q_how: str,
                                                            r_how: str,
                                                            tmp_path_factory: Any) -> None:
    """The ir_measures provider's input path: query ids of dicts and of ir_measures frames
    (query_id / doc_id columns), spelt as str, int or integral float on either side, give the
    per-query numbers of the same ids written in TREC files (a float column's 7.0 is "7"),
    and the inputs are left as they were."""
    irm = require("ir_measures")
    from rankmetrics import trec
    from rankmetrics.ir_measures import provider

    rows, qf, rf = _id_rows(data, tmp_path_factory)
    measures = [irm.AP, irm.nDCG @ 3]
    want = trec.evaluate(str(qf), str(rf), ["AP", "nDCG@3"]).per_query
    qrels: Any
    run: Any
    if form == "dict":
        qrels, run = _id_dicts(rows, q_how, r_how)
    else:
        qrels = pd.DataFrame({"query_id": [_spelled(q, q_how) for q, *_ in rows],
                              "doc_id": [d for _, d, _, _ in rows],
                              "relevance": [lab for _, _, lab, _ in rows]})
        run = pd.DataFrame({"query_id": [_spelled(q, r_how) for q, *_ in rows],
                            "doc_id": [d for _, d, _, _ in rows],
                            "score": [s for *_, s in rows]})
    before = (copy.deepcopy(qrels), copy.deepcopy(run))
    got = {(m.query_id, str(m.measure)): m.value
           for m in provider().iter_calc(measures, qrels, run)}
    for qid, row in want.iterrows():
        assert got[(str(qid), "AP")] == row["AP"]
        assert got[(str(qid), "nDCG@3")] == row["nDCG@3"]
    assert len(got) == 2 * len(want)
    if form == "frame":
        assert before[0].equals(qrels) and before[1].equals(run)
    else:
        assert before == (qrels, run)


@pytest.mark.parametrize("bad", [None, float("nan"), "mixed"])
def test_fuzz_session_frame_ids(bad):
    from rankmetrics.session import read_session_run

    sess: list[Any] = ["s1", "s1", "s2"]
    if bad == "mixed":
        sess = ["1", 1, "2"]
    else:
        sess[1] = bad
    frame = pd.DataFrame({"session": sess, "query": [1, 1, 1], "docid": ["a", "b", "c"],
                          "score": [1.0, 0.5, 0.2]})
    before = frame.copy(deep=True)
    with pytest.raises((ValueError, TypeError), match="session"):
        read_session_run(frame)
    assert before.equals(frame)


# ----------------------------------------------------------------------------------- CLI
@_settings(12)
@given(case=problems(qid_encodings=["int64", "str"], faults=["none"]),
       ext=st.sampled_from([".txt", ".tsv"]))
def test_fuzz_cli_eval(case: Case, ext: str, tmp_path_factory: Any) -> None:
    """TREC files, also headerless ``.tsv`` ones (MS MARCO's layout) read as TREC text."""
    from rankmetrics.cli import main

    if case.notes["scores"] == "big_python_int":
        return
    folder = tmp_path_factory.mktemp("cli")
    qrels, run = folder / f"qrels{ext}", folder / f"run{ext}"
    sep = "\t" if ext == ".tsv" else " "
    names = [str(case.qid_ids[j]) for j in case.logical.tolist()]
    with open(qrels, "w") as f:
        for i, (qq, lab) in enumerate(zip(names, case.labels.tolist(), strict=True)):
            f.write(sep.join([qq, "0", f"d{i}", str(lab)]) + "\n")
    with open(run, "w") as f:
        for i, (qq, sc) in enumerate(zip(names, case.scores.tolist(), strict=True)):
            f.write(sep.join([qq, "Q0", f"d{i}", str(i + 1), repr(sc), "r"]) + "\n")
    import contextlib
    import io
    import json

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["eval", str(qrels), str(run), "-m", "AP", "-q", "--format", "json",
                     "--digits", "12"])
    assert code == 0
    per_query = json.loads(buf.getvalue())["per_query"]
    for j in sorted(set(case.logical.tolist())):
        m = case.logical == j
        ap = oracle("average_precision", case.labels[m], case.scores[m]).mean
        assert per_query[str(case.qid_ids[j])]["AP"] == pytest.approx(ap, abs=1e-9)
