"""Tests for rankmetrics.datasets (synthetic generators and the LETOR loader)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rankmetrics.datasets import (
    RankingData,
    load_letor,
    make_benchmark_scores,
    make_ranking_data,
)


def tied_fraction(y_score: np.ndarray, qid: np.ndarray) -> float:
    """Share of rows whose score equals that of another row of the same query."""
    order = np.lexsort((y_score, qid))
    s, q = y_score[order], qid[order]
    same = (s[1:] == s[:-1]) & (q[1:] == q[:-1])
    tied = np.zeros(len(s), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    return float(tied.mean())


def pairwise_accuracy(y: np.ndarray, score: np.ndarray, qid: np.ndarray) -> float:
    """Fraction of same-query pairs with different labels ordered correctly (ties count 1/2)."""
    good = 0.0
    total = 0
    for q in np.unique(qid):
        m = qid == q
        dy = np.sign(y[m][:, None] - y[m][None, :])
        ds = np.sign(score[m][:, None] - score[m][None, :])
        pairs = dy > 0
        total += int(pairs.sum())
        good += float((ds[pairs] > 0).sum() + 0.5 * (ds[pairs] == 0).sum())
    return good / total


# ---------------------------------------------------------------------------------------------
# make_ranking_data
# ---------------------------------------------------------------------------------------------


def test_ranking_data_shapes_and_dtypes() -> None:
    d = make_ranking_data(n_queries=30, min_docs=3, max_docs=9, n_features=7, n_discrete=3)
    n = len(d.y)
    assert d.X.shape == (n, 7) and d.X.dtype == np.float64
    assert d.y.shape == (n,) and d.y.dtype == np.int64
    assert d.qid.shape == (n,) and d.qid.dtype == np.int64
    assert d.group_sizes.dtype == np.int64 and d.group_sizes.shape == (30,)
    assert d.n_queries == 30 and d.n_samples == n == len(d) and d.n_features == 7
    assert d.group_sizes.sum() == n
    assert d.group_sizes.min() >= 3 and d.group_sizes.max() <= 9
    # rows grouped by query, ascending, ids 0..n_queries-1, sizes aligned with np.unique
    assert np.all(np.diff(d.qid) >= 0)
    uq, counts = np.unique(d.qid, return_counts=True)
    np.testing.assert_array_equal(uq, np.arange(30))
    np.testing.assert_array_equal(counts, d.group_sizes)
    assert set(np.unique(d.y).tolist()) <= {0, 1, 2, 3, 4}
    assert np.all(np.isfinite(d.X))


def test_ranking_data_list_lengths_cover_range() -> None:
    d = make_ranking_data(n_queries=400, min_docs=2, max_docs=6, n_features=2, n_discrete=1)
    assert set(d.group_sizes.tolist()) == {2, 3, 4, 5, 6}
    one = make_ranking_data(n_queries=5, min_docs=4, max_docs=4)
    np.testing.assert_array_equal(one.group_sizes, [4] * 5)


def test_ranking_data_deterministic() -> None:
    a = make_ranking_data(n_queries=40, random_state=7)
    b = make_ranking_data(n_queries=40, random_state=7)
    c = make_ranking_data(n_queries=40, random_state=8)
    for name in ("X", "y", "qid"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.X.shape != c.X.shape or not np.array_equal(a.X, c.X)
    assert not np.array_equal(a.group_sizes, c.group_sizes) or not np.array_equal(a.y, c.y)
    gen = make_ranking_data(n_queries=40, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(gen.X, a.X)


def test_ranking_data_label_proportions() -> None:
    d = make_ranking_data(n_queries=1500, min_docs=10, max_docs=60, random_state=3)
    props = np.bincount(d.y, minlength=5) / len(d.y)
    np.testing.assert_allclose(props, [0.52, 0.31, 0.13, 0.025, 0.015], atol=2e-3)
    custom = make_ranking_data(n_queries=500, label_probs=[0.5, 0.0, 0.5], random_state=1)
    props = np.bincount(custom.y, minlength=3) / len(custom.y)
    np.testing.assert_allclose(props, [0.5, 0.0, 0.5], atol=2e-3)


def test_ranking_data_discrete_and_continuous_features() -> None:
    d = make_ranking_data(n_queries=300, n_features=12, n_discrete=5, random_state=0)
    n_distinct = [len(np.unique(col)) for col in d.X.T]
    assert all(k <= 11 for k in n_distinct[:5]), n_distinct
    assert min(n_distinct[:5]) == 2  # a binary flag
    assert all(k > 0.9 * len(d.y) for k in n_distinct[5:]), n_distinct
    # discrete columns hold integers or one-decimal values
    disc = d.X[:, :5]
    np.testing.assert_array_equal(np.round(disc, 1), disc)
    # a linear scorer on the discrete features gives within-query ties
    score = d.X[:, :5] @ np.arange(1.0, 6.0)
    assert tied_fraction(score, d.qid) > 0.05
    all_cont = make_ranking_data(n_queries=5, n_features=3, n_discrete=0)
    assert all(len(np.unique(c)) == len(all_cont.y) for c in all_cont.X.T)
    all_disc = make_ranking_data(n_queries=50, n_features=4, n_discrete=4, noise=0.0)
    assert all(len(np.unique(c)) <= 11 for c in all_disc.X.T)


def test_ranking_data_is_learnable() -> None:
    d = make_ranking_data(n_queries=300, random_state=5)
    train, test = d.split(test_size=0.3, random_state=0)
    design = np.c_[train.X, np.ones(len(train.y))]
    coef, *_ = np.linalg.lstsq(design, train.y.astype(np.float64), rcond=None)
    pred = np.c_[test.X, np.ones(len(test.y))] @ coef
    assert np.corrcoef(pred, test.y)[0, 1] > 0.3
    assert pairwise_accuracy(test.y, pred, test.qid) > 0.65
    # more noise -> weaker but still positive signal; no noise -> much stronger
    noisy = make_ranking_data(n_queries=300, noise=3.0, random_state=5)
    clean = make_ranking_data(n_queries=300, noise=0.0, random_state=5)
    r = []
    for data in (noisy, clean):
        design = np.c_[data.X, np.ones(len(data.y))]
        coef, *_ = np.linalg.lstsq(design, data.y.astype(np.float64), rcond=None)
        r.append(np.corrcoef(design @ coef, data.y)[0, 1])
    assert 0.0 < r[0] < r[1]


def test_split_by_whole_queries() -> None:
    d = make_ranking_data(n_queries=40, random_state=2)
    train, test = d.split(test_size=0.25, random_state=0)
    assert isinstance(train, RankingData) and isinstance(test, RankingData)
    assert test.n_queries == 10 and train.n_queries == 30
    assert len(train.y) + len(test.y) == len(d.y)
    assert not set(train.qid.tolist()) & set(test.qid.tolist())
    # whole queries: each query keeps all its rows, in original order
    for part in (train, test):
        for q, size in zip(np.unique(part.qid), part.group_sizes, strict=True):
            m = d.qid == q
            assert size == m.sum()
            np.testing.assert_array_equal(part.X[part.qid == q], d.X[m])
            np.testing.assert_array_equal(part.y[part.qid == q], d.y[m])
    # deterministic, seed-dependent, int test_size
    again = d.split(test_size=0.25, random_state=0)[1]
    np.testing.assert_array_equal(again.qid, test.qid)
    other = d.split(test_size=0.25, random_state=1)[1]
    assert not np.array_equal(np.unique(other.qid), np.unique(test.qid))
    assert d.split(test_size=3)[1].n_queries == 3
    tiny_train, tiny_test = make_ranking_data(n_queries=2).split(test_size=0.01)
    assert tiny_train.n_queries == tiny_test.n_queries == 1


def test_ranking_data_container_validation() -> None:
    d = RankingData(X=[[1.0], [2.0], [3.0]], y=[0, 1, 0], qid=[5, 5, 9])  # type: ignore[arg-type]
    assert d.X.dtype == np.float64 and d.y.dtype == np.int64 and d.qid.dtype == np.int64
    np.testing.assert_array_equal(d.group_sizes, [2, 1])
    with pytest.raises(AttributeError):
        d.y = np.zeros(3)  # type: ignore[misc]
    with pytest.raises(ValueError, match="qid must be non-decreasing"):
        RankingData(X=np.zeros((3, 1)), y=np.zeros(3), qid=np.array([1, 0, 1]))
    with pytest.raises(ValueError, match="y must have shape"):
        RankingData(X=np.zeros((3, 1)), y=np.zeros(2), qid=np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="y must hold finite labels >= 0"):
        RankingData(X=np.zeros((2, 1)), y=np.array([0, -1]), qid=np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="X must be 2-D"):
        RankingData(X=np.zeros(3), y=np.zeros(3), qid=np.zeros(3, dtype=int))
    # text features were numpy's "could not convert string to float" or parsed as numbers
    for text in ([["a"]], np.array([["1"]]), np.array([["a"]], dtype=object),
                 np.array(["2020-01-01"], dtype="M8[D]").reshape(1, 1)):
        with pytest.raises(TypeError, match="X must be numeric"):
            RankingData(X=text, y=[0], qid=[0])  # type: ignore[arg-type]
    assert np.isnan(RankingData(X=[[None]], y=[0], qid=[0]).X[0, 0])  # type: ignore[arg-type]


def test_load_letor_ids_past_int64_name_the_file_and_line(tmp_path: Path) -> None:
    """sklearn's parser raised OverflowError on a qid or feature index past int64."""
    for line in ("1 qid:99999999999999999999 1:0.5", "1 qid:1 99999999999999999999:0.5",
                 "1 qid:-99999999999999999999 1:0.5"):
        path = tmp_path / "big.txt"
        path.write_text("0 qid:1 1:0.5 # 99999999999999999999 in a comment\n" + line + "\n")
        field = line.split()[2 if line.split()[2].startswith("9") else 1]
        with pytest.raises(ValueError, match=rf"big.txt' line 2: '{field}' holds an integer "
                                             r"outside int64"):
            load_letor(path)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_queries": 0}, ValueError, r"n_queries must be an integer >= 1, got 0"),
        ({"n_queries": 2.5}, TypeError, r"n_queries .* got 2\.5"),
        ({"n_queries": True}, TypeError, r"n_queries .* got True"),
        ({"min_docs": 0}, ValueError, r"min_docs must be an integer >= 1, got 0"),
        (
            {"min_docs": 10, "max_docs": 5},
            ValueError,
            r"max_docs must be >= min_docs \(10\), got 5",
        ),
        ({"n_features": 0}, ValueError, r"n_features must be an integer >= 1, got 0"),
        ({"n_discrete": -1}, ValueError, r"n_discrete must be an integer >= 0, got -1"),
        ({"n_features": 3, "n_discrete": 4}, ValueError, r"n_discrete must be <= n_features"),
        ({"label_probs": (0.5, 0.6)}, ValueError, r"label_probs must sum to 1 .* 1\.1"),
        ({"label_probs": (1.2, -0.2)}, ValueError, r"label_probs must be .*non-negative"),
        ({"label_probs": (1.0,)}, ValueError, r"label_probs must be .*at least 2"),
        ({"label_probs": "abc"}, ValueError, r"label_probs"),
        ({"noise": -1.0}, ValueError, r"noise must be in \[0, inf\), got -1\.0"),
        ({"noise": float("nan")}, ValueError, r"noise must be in"),
        ({"n_features": 2**40}, ValueError,  # numpy's MemoryError before
         r"n_queries x max_docs x n_features \(200 x 40 x 1099511627776\) may exceed"),
    ],
)
def test_make_ranking_data_argument_errors(
    kwargs: dict[str, object], exc: type[Exception], match: str
) -> None:
    with pytest.raises(exc, match=match):
        make_ranking_data(**kwargs)  # type: ignore[arg-type]


def test_label_probs_tolerance() -> None:
    d = make_ranking_data(n_queries=5, label_probs=(0.5, 0.5 + 5e-7))
    assert set(np.unique(d.y).tolist()) <= {0, 1}


@pytest.mark.parametrize(
    ("test_size", "match"),
    [(0.0, r"test_size must be in \(0, 1\), got 0\.0"), (1.0, "test_size"), (10, r"\[1, 9\]")],
)
def test_split_errors(test_size: float, match: str) -> None:
    d = make_ranking_data(n_queries=10)
    with pytest.raises(ValueError, match=match):
        d.split(test_size=test_size)


def test_split_needs_two_queries() -> None:
    with pytest.raises(ValueError, match="at least 2 queries, got n_queries=1"):
        make_ranking_data(n_queries=1).split()


# ---------------------------------------------------------------------------------------------
# make_benchmark_scores
# ---------------------------------------------------------------------------------------------


def test_benchmark_default_size_and_ties() -> None:
    # no wall-clock assertion: speed is shown by benchmarks/, never by a timed unit test
    y, s, q = make_benchmark_scores()
    assert y.dtype == np.int64 and s.dtype == np.float64 and q.dtype == np.int64
    assert y.shape == s.shape == q.shape
    assert 1_100_000 < len(y) < 1_300_000
    assert np.all(np.isfinite(s))
    assert 0.45 <= tied_fraction(s, q) <= 0.55
    sizes = np.bincount(q)
    assert len(sizes) == 10_000 and sizes.min() >= 20 and sizes.max() <= 220
    assert np.all(np.diff(q) >= 0)
    props = np.bincount(y, minlength=5) / len(y)
    np.testing.assert_allclose(props, [0.52, 0.31, 0.13, 0.025, 0.015], atol=3e-3)
    # the score is informative about the label
    assert np.corrcoef(y, s)[0, 1] > 0.3
    # tie groups mix labels (otherwise ties would not matter for the metrics)
    order = np.lexsort((s, q))
    same = (s[order][1:] == s[order][:-1]) & (q[order][1:] == q[order][:-1])
    assert np.any(same & (y[order][1:] != y[order][:-1]))


@pytest.mark.parametrize("tie_fraction", [0.0, 0.1, 0.3, 0.8, 0.95])
def test_benchmark_tie_fraction_tracks_target(tie_fraction: float) -> None:
    y, s, q = make_benchmark_scores(n_queries=800, tie_fraction=tie_fraction, random_state=4)
    assert abs(tied_fraction(s, q) - tie_fraction) < 0.02


def test_benchmark_deterministic() -> None:
    a = make_benchmark_scores(n_queries=300, random_state=11)
    b = make_benchmark_scores(n_queries=300, random_state=11)
    c = make_benchmark_scores(n_queries=300, random_state=12)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    assert len(a[0]) != len(c[0]) or not np.array_equal(a[1], c[1])


def test_benchmark_small_lists() -> None:
    y, s, q = make_benchmark_scores(n_queries=50, min_docs=1, max_docs=1)
    assert len(y) == 50 and tied_fraction(s, q) == 0.0
    y, s, q = make_benchmark_scores(n_queries=3000, min_docs=2, max_docs=2, tie_fraction=0.4)
    assert abs(tied_fraction(s, q) - 0.4) < 0.03


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_queries": 0}, ValueError, r"n_queries must be an integer >= 1, got 0"),
        ({"min_docs": 0}, ValueError, r"min_docs must be an integer >= 1, got 0"),
        ({"min_docs": 5, "max_docs": 4}, ValueError, r"max_docs must be >= min_docs \(5\), got 4"),
        ({"tie_fraction": 1.0}, ValueError, r"tie_fraction must be in \[0, 1\), got 1\.0"),
        ({"tie_fraction": -0.1}, ValueError, r"tie_fraction must be in \[0, 1\), got -0\.1"),
        ({"tie_fraction": "0.5"}, TypeError, r"tie_fraction must be a real number, got '0\.5'"),
    ],
)
def test_make_benchmark_scores_argument_errors(
    kwargs: dict[str, object], exc: type[Exception], match: str
) -> None:
    with pytest.raises(exc, match=match):
        make_benchmark_scores(**kwargs)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# load_letor
# ---------------------------------------------------------------------------------------------


def test_load_letor_lightgbm_example(shared_data: Path) -> None:
    folder = shared_data / "lightgbm_lambdarank"
    train = load_letor(folder / "rank.train", folder / "rank.train.query", n_features=300)
    test = load_letor(str(folder / "rank.test"), str(folder / "rank.test.query"), n_features=300)
    assert train.X.shape == (3005, 300) and test.X.shape == (768, 300)
    assert train.n_queries == 201 and test.n_queries == 50
    assert train.X.dtype == np.float64 and train.y.dtype == np.int64
    assert train.qid.dtype == np.int64
    assert set(np.unique(train.y).tolist()) == {0, 1, 2, 3, 4}
    sizes = np.loadtxt(folder / "rank.train.query", dtype=np.int64)
    np.testing.assert_array_equal(train.group_sizes, sizes)
    assert train.group_sizes.min() == 1 and train.group_sizes.max() == 27
    assert test.group_sizes.min() == 6 and test.group_sizes.max() == 24
    # first row: label 0, feature 10 (1-based) = 0.89 -> column 9
    assert train.y[0] == 0 and train.X[0, 9] == 0.89 and train.X[0, 0] == 0.0
    # without n_features the 1-based indices 1..300 also give 300 columns
    assert load_letor(folder / "rank.test", folder / "rank.test.query").n_features == 300
    # the file has no qid: fields
    with pytest.raises(ValueError, match="no qid: fields; pass query_path"):
        load_letor(folder / "rank.test")
    with pytest.raises(ValueError, match=r"sum to 3005 .* has 768 rows"):
        load_letor(folder / "rank.test", folder / "rank.train.query")


def test_load_letor_qid_in_file(tmp_path: Path) -> None:
    path = tmp_path / "letor.txt"
    path.write_text(
        "2 qid:10 1:0.1 2:0.2 # doc a\n"
        "0 qid:10 1:0.3 2:0.4\n"
        "1 qid:4 1:0.5\n"
        "0.5 qid:4 2:0.6\n"
        "1 qid:10 1:0.7\n"
    )
    d = load_letor(path)
    # stably sorted by qid
    np.testing.assert_array_equal(d.qid, [4, 4, 10, 10, 10])
    np.testing.assert_array_equal(d.group_sizes, [2, 3])
    assert d.y.dtype == np.float64  # a non-integral label
    np.testing.assert_array_equal(d.y, [1.0, 0.5, 2.0, 0.0, 1.0])
    np.testing.assert_array_equal(d.X[:, 0], [0.5, 0.0, 0.1, 0.3, 0.7])
    wide = load_letor(path, n_features=5)
    assert wide.X.shape == (5, 5)


def test_load_letor_query_file_errors(tmp_path: Path) -> None:
    data = tmp_path / "d.txt"
    data.write_text("1 1:1\n0 1:2\n0 2:1\n")
    good = tmp_path / "good.query"
    good.write_text("2\n\n1\n")
    assert load_letor(data, good).group_sizes.tolist() == [2, 1]
    bad = tmp_path / "bad.query"
    bad.write_text("2\nx\n")
    with pytest.raises(ValueError, match=r"line 2: expected one integer group size .*'x'"):
        load_letor(data, bad)
    zero = tmp_path / "zero.query"
    zero.write_text("3\n0\n")
    with pytest.raises(ValueError, match=r"group sizes must be >= 1 and < 2\*\*63, got 0"):
        load_letor(data, zero)
    huge = tmp_path / "huge.query"
    huge.write_text("3\n99999999999999999999\n")  # OverflowError in np.asarray before
    with pytest.raises(ValueError, match=r"huge.query' line 2: group sizes must be >= 1 and < "):
        load_letor(data, huge)
    short = tmp_path / "short.query"
    short.write_text("2\n")
    with pytest.raises(ValueError, match=r"sum to 2 but data_path .* has 3 rows"):
        load_letor(data, short)
    with pytest.raises(ValueError, match=r"n_features must be an integer >= 1, got 0"):
        load_letor(data, good, n_features=0)


def test_load_letor_query_file_read_as_the_data_file(tmp_path: Path) -> None:
    """The data file skipped a UTF-8 byte-order mark and was decompressed by its suffix; the
    group-size file refused a mark ("got '\\ufeff2'") and died in a UnicodeDecodeError when
    gzip-compressed. Both are now read as the data file is."""
    import bz2
    import gzip

    data = tmp_path / "d.txt"
    data.write_text("1 1:1\n0 1:2\n0 2:1\n")
    bom = tmp_path / "bom.query"
    bom.write_bytes(b"\xef\xbb\xbf2\r\n1\r\n")
    assert load_letor(data, bom).group_sizes.tolist() == [2, 1]
    gz = tmp_path / "d.query.gz"
    with gzip.open(gz, "wb") as fh:
        fh.write(b"2\n1\n")
    assert load_letor(data, gz).group_sizes.tolist() == [2, 1]
    bz = tmp_path / "d.query.bz2"
    with bz2.open(bz, "wb") as fh:
        fh.write(b"1\n2\n")
    assert load_letor(data, bz).group_sizes.tolist() == [1, 2]
    binary = tmp_path / "bin.query"
    binary.write_bytes(b"2\n\xff\xfe\n")
    with pytest.raises(ValueError, match=r"bin.query' line 2: expected one integer group size"):
        load_letor(data, binary)


def test_load_letor_without_sklearn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("sklearn"):
            raise ImportError("no sklearn")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match=r'pip install "rankmetrics\[sklearn\]"'):
        load_letor(tmp_path / "missing.txt")


def test_generator_and_container_bounds_name_their_argument():
    """A huge max_docs died in numpy ("array is too big"), a bad random_state with numpy's
    message, and uint64 ids from 2**63 wrapped to negative int64 (or made a sorted input
    "not non-decreasing")."""
    with pytest.raises(ValueError, match=r"n_queries x max_docs \(10 x 1000000000000\)"):
        make_benchmark_scores(10, max_docs=10**12)
    with pytest.raises(ValueError, match="n_queries x max_docs"):
        make_ranking_data(n_queries=10**6, max_docs=10**4)
    for bad, err in ((-1, ValueError), (1.5, TypeError), ("x", TypeError)):
        with pytest.raises(err, match="random_state must be None, a non-negative int"):
            make_benchmark_scores(10, random_state=bad)
    x, y = np.zeros((3, 1)), np.array([1, 0, 1])
    with pytest.raises(ValueError, match="qid is stored as int64; got 9223372036854775809"):
        RankingData(X=x, y=y, qid=np.array([1, 2**63, 2**63 + 1], dtype=np.uint64))
    ok = RankingData(X=x, y=y, qid=np.array([1, 2, 2**63 - 1], dtype=np.uint64))
    assert ok.qid.tolist() == [1, 2, 2**63 - 1]


def test_letor_and_container_messages_say_what_is_wrong(tmp_path):
    """Labels of 1e30 wrapped through int64 and were called "not finite"; a file with qid:
    on some rows was said to have none; a complex X lost its imaginary part silently."""
    big = tmp_path / "big.svm"
    big.write_text("1e30 qid:1 1:0.5\n0 qid:1 1:0.2\n")
    d = load_letor(big)
    assert d.y.dtype == np.float64 and d.y.tolist() == [1e30, 0.0]
    part = tmp_path / "part.svm"
    part.write_text("1 qid:1 1:0.5\n0 1:0.2\n2 qid:2 1:0.1\n")
    with pytest.raises(ValueError, match="has qid: fields on 2 of its 3 rows"):
        load_letor(part)
    with pytest.raises(TypeError, match="X must be real"):
        RankingData(X=np.zeros((2, 1)) + 1j, y=[0, 1], qid=[0, 0])
    with pytest.raises(ValueError, match="y is stored as int64; got the label 9223372036854775808"):
        RankingData(X=np.zeros((2, 1)), y=np.array([0, 2**63], np.uint64), qid=[0, 0])


def test_load_letor_bad_lines_name_the_file_and_line(tmp_path: Path) -> None:
    """scikit-learn's parser errors named neither file nor line, a UTF-8 byte-order mark was
    read as part of the first label, and a feature index past 2**31 was called past int64."""
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf2 qid:1 1:0.5\n0 qid:1 2:1\n")
    assert load_letor(bom).y.tolist() == [2, 0]
    cases = [("1 qid:1 1:0.5\n0 qid:1 foo\n", r"line 2: field 'foo' is not index:value"),
             ("x qid:1 1:3\n", r"line 1: label 'x' is not a number"),
             ("# c\n1 qid:1 3:5 1:1\n", r"line 2: '1:1': feature indices must be increasing"),
             ("1 qid:1 -1:5\n", r"line 1: '-1:5': feature indices must be >= 0"),
             ("1 qid:1.5 1:5\n", r"line 1: 'qid:1.5': the qid must be an integer"),
             ("1 qid:1 3000000000:1\n", r"line 1: '3000000000:1': feature indices must be < "
                                        r"2\*\*31"),
             ("1 qid:1 1:5\n\n-1 qid:1 1:2\n", r"line 3: labels must be finite and >= 0; "
                                               r"got -1\.0")]
    for text, match in cases:
        path = tmp_path / "bad.txt"
        path.write_text(text)
        with pytest.raises(ValueError, match=r"data_path '.*bad.txt' " + match):
            load_letor(path)


def test_load_letor_group_sizes_summing_past_int64(tmp_path: Path) -> None:
    """Group sizes whose int64 sum wraps to the row count (2**63-1, 2**63-1, 5 -> 3) passed
    the sum check and crashed the interpreter in np.repeat (segmentation fault); now the
    exact sum is compared (a ValueError). Run in a child process, so the crash cannot take
    the test session with it."""
    import subprocess
    import sys

    data = tmp_path / "d.txt"
    data.write_text("1 1:1\n0 1:2\n0 2:1\n")
    query = tmp_path / "wrap.query"
    query.write_text(f"{2**63 - 1}\n{2**63 - 1}\n5\n")
    code = ("from rankmetrics.datasets import load_letor\n"
            "try:\n"
            f"    load_letor({str(data)!r}, {str(query)!r})\n"
            "except ValueError as exc:\n"
            "    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"sum to {2 * (2**63 - 1) + 5} but data_path" in done.stdout


def test_load_letor_bad_line_named_when_only_python_text_rules_would_accept_it(
        tmp_path: Path) -> None:
    """scikit-learn splits lines on ASCII whitespace and parses bytes; the search for the bad
    line split decoded text (on NBSP, U+001C, U+0085, U+2028 too) and took full-width digits,
    so it found no fault and the message named no line ("data_path '...': could not convert
    string to float: b'1\\xc2\\xa0qid:1'"); a "qidx:5" field, a qid to scikit-learn, was blamed
    on an earlier line. Each message names the line scikit-learn refused now."""
    import re

    cases = [(b"0 qid:1 1:1\n1\xc2\xa0qid:1 1:1\n", r"line 2: label '1\xa0qid:1' is not a"),
             (b"0 qid:1 1:1\n1 qid:1\x1c1:1\n", r"line 2: 'qid:1\x1c1:1': the qid must be"),
             (b"0 qid:1 1:1\n1 qid:1 1:1\xe2\x80\xa82:1\n",
              r"line 2: '1:1\u20282:1': the feature value is not a number"),
             (b"0 qid:1 \xef\xbc\x91:1\n", "line 1: '\uff11:1': the feature index must be"),
             (b"1 qidx:5 1:1\n0 qid:1 2:1 1:1\n", r"line 2: '1:1': feature indices must be "
                                                  r"increasing")]
    for data, shown in cases:  # the messages show repr()s: the escapes literally
        path = tmp_path / "ws.txt"
        path.write_bytes(data)
        with pytest.raises(ValueError, match=r"data_path '.*ws.txt' " + re.escape(shown)):
            load_letor(path)


def test_load_letor_bad_compressed_files_are_named(tmp_path: Path) -> None:
    """A .gz that is not gzip, a cut-short .gz and a .bz2 that is not bz2 raised gzip's / bz2's
    errors ("Not a gzipped file (b'1 ')", "Compressed file ended before ...", "Invalid data
    stream"), naming neither the file nor whether it was data_path or query_path; now the
    same exception classes with the argument and the path in front."""
    import gzip

    plain = tmp_path / "d.txt"
    plain.write_text("1 1:1\n")
    fake_gz = tmp_path / "fake.txt.gz"
    fake_gz.write_text("1 qid:1 1:1\n")
    whole = gzip.compress(b"1 qid:1 1:1\n" * 1000)
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    fake_bz2 = tmp_path / "fake.txt.bz2"
    fake_bz2.write_text("1 qid:1 1:1\n")
    query = tmp_path / "q.query.gz"
    query.write_text("1\n")
    with pytest.raises(gzip.BadGzipFile, match=r"^data_path '.*fake.txt.gz': Not a gzipped"):
        load_letor(fake_gz)
    with pytest.raises(EOFError, match=r"^data_path '.*cut.txt.gz': Compressed file ended"):
        load_letor(cut)
    with pytest.raises(OSError, match=r"^data_path '.*fake.txt.bz2': Invalid data stream"):
        load_letor(fake_bz2)
    with pytest.raises(gzip.BadGzipFile, match=r"^query_path '.*q.query.gz': Not a gzipped"):
        load_letor(plain, query)
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        load_letor(tmp_path / "missing.txt")


def test_load_letor_group_sizes_are_ascii_integers(tmp_path: Path) -> None:
    """Python's int() read a group size "1_0" as 10 and a full-width "２" as 2 (LightGBM's and
    RankLib's readers take neither); now such a line is refused with its number, and sizes
    with spaces, tabs and CRLF around them still read."""
    data = tmp_path / "d.txt"
    data.write_text("".join(f"{i % 2} 1:{i}\n" for i in range(12)))
    query = tmp_path / "g.query"
    for text, line in (("2\n1_0\n", 2), ("10\n\uff12\n", 2), ("+-3\n", 1)):
        query.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=f"line {line}: expected one integer group size"):
            load_letor(data, query)
    query.write_bytes(b" 2\t\r\n+10 \r\n")
    assert np.bincount(load_letor(data, query).qid).tolist() == [2, 10]
