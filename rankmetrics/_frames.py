"""Shared pandas-level glue of the Dask and Spark adapters (no metric math: QueryPlan does it).

Both engines hand the adapters one pandas DataFrame per partition holding whole queries; this
module checks its columns, runs :meth:`rankmetrics.QueryPlan.evaluate` on it and returns one row
per query, and turns per-query values into the partial sums of a (weighted) mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .core.gains import gain_key
from .core.plan import QueryPlan, query_weights_of_rows
from .core.validation import check_string_ids, check_ties
from .measures.grammar import measure_items

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: name of the per-query weight column added next to the measures (dropped from results)
WEIGHT = "__rankmetrics_weight__"


def measure_list(measures: str | Iterable[str]) -> list[str]:
    """The user's measure names as a list (a single string or measure object is one measure:
    the grammar's :func:`~rankmetrics.measures.grammar.measure_items`)."""
    names = measure_items(measures, "measures")
    if not names:
        raise ValueError("measures must name at least one measure, e.g. ['ndcg@10', 'map']")
    return names


def output_names(measures: Sequence[str], ties: str, options: dict[str, Any]) -> list[str]:
    """Column names :meth:`QueryPlan.evaluate` gives for ``measures`` (validated now, on the
    driver, on a two-document query, so bad names or options fail before any job runs).
    ``as_frame`` is refused (TypeError): a frame indexed by qid, put beside each partition's
    rows, would misalign every value."""
    if "as_frame" in options:
        raise TypeError("as_frame is not an option here: the per-query values are already a "
                        "data frame, one column per measure; drop as_frame")
    check_ties(ties)
    labels = np.array([1.0, 0.0])
    gain = options.get("gain")
    if isinstance(gain, Mapping):  # a gains table need only cover the data's labels, which
        # may not be the probe's 1 and 0 ({0: 0, 2: 3}): probe with one of its own labels
        key = gain_key(gain)
        own = [a for a, _ in key[1] if a >= 0]
        if own:
            labels = np.full(2, own[0])
    probe = QueryPlan(labels, np.zeros(2, dtype=np.int64))
    out = probe.evaluate(np.array([1.0, 0.0]), list(measures), ties=ties, **options)
    return [str(n) for n in out]


def higher_is_better(name: str) -> bool:
    """The measure grammar's direction flag when it has one; every measure of the core grows
    with ranking quality, so True otherwise."""
    from .measures import grammar

    try:
        parsed = grammar.parse_measures([name])
    except (ValueError, TypeError):
        return True  # a name only QueryPlan.evaluate knows (validated by the caller)
    flags = [getattr(m, "higher_is_better", True) for m in parsed]
    return all(bool(f() if callable(f) else f) for f in flags)


def check_columns(columns: Iterable[Any], wanted: dict[str, str | None], what: str,
                  outputs: Sequence[str] = (), ignore_case: bool = False) -> None:
    """ValueError naming the argument and the column: missing, present more than once, named
    by two arguments (qid, label, score and weight each need their own column), or a qid
    column named like a measure's output column or :data:`WEIGHT` (the per-query result holds
    the qid column beside them). TypeError for a name that is not a string (None too, but for
    ``weight``). ``ignore_case``: for an engine that ignores case in column names (Spark by
    default), columns that differ from a named one only in case count as the same name."""
    given = list(columns)
    have = [c for c in given if isinstance(c, str)]  # a name given here is a str: not 0 for "0"
    role: dict[str, str] = {}
    for arg, col in wanted.items():
        if col is None and arg == "weight":  # the one optional column
            continue
        if not isinstance(col, str):
            raise TypeError(f"{arg} must be a column name (str); got {col!r}")
        if col not in have:
            hint = ("; a column whose name is not a string cannot be named: rename it"
                    if any(str(c) == col for c in given) else "")
            raise ValueError(
                f"{arg}={col!r}: no such column in the {what}; columns are {given}{hint}"
            )
        if have.count(col) > 1:
            raise ValueError(f"{arg}={col!r}: the {what} has {have.count(col)} columns named "
                             f"{col!r}; rename all but one")
        same = [h for h in have if h.lower() == col.lower()] if ignore_case else [col]
        if len(same) > 1:
            raise ValueError(f"{arg}={col!r}: the {what} has columns {same}, one "
                             "name to an engine whose column names ignore case; rename all but "
                             "one")
        if col in role:
            raise ValueError(f"{role[col]}={col!r} and {arg}={col!r} name the same column; "
                             f"each needs its own (copy the column under another name)")
        role[col] = arg
    qid = wanted.get("qid")
    if qid is not None and (qid in outputs or qid == WEIGHT):
        taken = "the per-query weight's" if qid == WEIGHT else f"the measure {qid!r}'s"
        raise ValueError(f"qid={qid!r} is also {taken} output column; rename the qid column")


def check_case_collisions(qid: str | None, outputs: Sequence[str], engine: str) -> None:
    """For an engine whose column names are case-insensitive (Spark by default): output
    columns (the measures' names) that differ only in case, or a qid column named like one of
    them, are a ValueError naming the argument (the engine would stop at them with an
    ambiguous reference, after the whole job has run)."""
    seen: dict[str, str] = {}
    for name in (*outputs, WEIGHT):
        low = name.lower()
        if low in seen and name != WEIGHT:
            raise ValueError(
                f"measures {seen[low]!r} and {name!r} give output columns that {engine}, whose "
                "column names ignore case, cannot tell apart; ask for one of them")
        seen.setdefault(low, name)
    if qid is not None and qid.lower() in seen:
        raise ValueError(
            f"qid={qid!r} is also the output column {seen[qid.lower()]!r} to {engine}, whose "
            "column names ignore case; rename the qid column")


def _where(part: Any) -> str:
    return "" if part is None else f" in partition {part}"


def _check_not_null(pdf: pd.DataFrame, col: str, role: str, qid: str, part: Any) -> None:
    s = pdf[col]
    bad = s.isna().to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        v = pdf[qid].iloc[row]
        # the id as the user wrote it (5, 'q5'), not numpy's repr (np.int64(5))
        at = "" if role == "qid" else f" (qid {v.item() if isinstance(v, np.generic) else v!r})"
        kind = "NaN/null" if role == "score" else "null"
        raise ValueError(
            f"column {col!r} ({role}) has {int(bad.sum())} {kind} value(s){_where(part)}{at}; "
            f"drop or fill them before evaluating"
        )


def _qid_array(s: pd.Series, part: Any = None) -> np.ndarray:
    """Query ids of a partition: numeric as they are, others as strings (the same type in
    every partition); ids of mixed types must not merge (``1``, ``"1"``) or split (``1``,
    ``1.0``) in that conversion (ValueError naming the partition)."""
    if s.dtype.kind in "iuf":
        return s.to_numpy()
    if s.dtype.kind == "O" or str(s.dtype) == "category":
        try:
            check_string_ids(s.tolist(), "qid")
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"column qid={s.name!r}{_where(part)}: {exc}") from None
    import pandas as pd

    ids = s.astype(str).to_numpy(dtype=object)
    if any(x.endswith("\x00") for x in pd.unique(ids)):
        return ids  # numpy's fixed-width strings would drop the trailing NULs: "a" == "a\0"
    return ids.astype(str)


def evaluate_frame(
    pdf: pd.DataFrame,
    names: Sequence[str],
    *,
    qid: str,
    label: str,
    score: str,
    weight: str | None,
    ties: str,
    options: dict[str, Any],
    part: Any = None,
) -> pd.DataFrame:
    """Per-query values of the whole queries in ``pdf``: columns ``qid``, every measure and,
    with ``weight``, the query weight (mean of its rows' weights) in :data:`WEIGHT`."""
    import pandas as pd

    cols = [qid, *names] + ([WEIGHT] if weight is not None else [])
    if len(pdf) == 0:
        empty = {c: pd.Series([], dtype="float64") for c in cols}
        empty[qid] = pdf[qid].iloc[:0] if qid in pdf else pd.Series([], dtype="int64")
        return pd.DataFrame(empty, columns=cols)
    _check_not_null(pdf, qid, "qid", qid, part)
    _check_not_null(pdf, label, "label", qid, part)
    _check_not_null(pdf, score, "score", qid, part)
    if weight is not None:
        _check_not_null(pdf, weight, "weight", qid, part)
    q = _qid_array(pdf[qid], part)
    try:
        plan = QueryPlan(pdf[label].to_numpy(), q)  # the core's label rule (no text)
        values = plan.evaluate(pdf[score].to_numpy(), list(names), ties=ties, **options)
    except (ValueError, TypeError) as exc:
        raise type(exc)(
            f"columns label={label!r}, score={score!r}{_where(part)}: {exc}"
        ) from exc
    col = pdf[qid]
    if col.dtype.kind in "iuf":
        ids = pd.Series(plan.qids).astype(col.dtype)
    else:  # grouped as strings: each query's first id as given (the column's dtype, as the
        # declared Dask meta and Spark schema say; a tz-aware timestamp is no string to Arrow)
        _, first = np.unique(q, return_index=True)
        ids = col.iloc[first].reset_index(drop=True)
    out = pd.DataFrame({qid: ids})
    for n in names:
        out[n] = values[n]
    if weight is not None:
        qids, inv = np.unique(q, return_inverse=True)
        assert np.array_equal(qids, plan.qids)
        try:
            out[WEIGHT] = query_weights_of_rows(pdf[weight].to_numpy(),
                                                inv.ravel().astype(np.int64), plan.sizes,
                                                f"column {weight!r} (weight)")
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{exc}{_where(part)}") from None
    return out


def partial_sums(values: pd.DataFrame, names: Sequence[str], weighted: bool) -> pd.DataFrame:
    """One row: for every measure ``sum(w * v)`` and ``sum(w)`` over its non-NaN queries."""
    import pandas as pd

    w = values[WEIGHT].to_numpy(dtype=np.float64) if weighted else np.ones(len(values))
    row: dict[str, float] = {}
    for i, n in enumerate(names):
        v = values[n].to_numpy(dtype=np.float64)
        keep = ~np.isnan(v)
        row[f"s{i}"] = float(np.dot(v[keep], w[keep]))
        row[f"w{i}"] = float(w[keep].sum())
    return pd.DataFrame([row], columns=[f"{c}{i}" for i in range(len(names)) for c in "sw"])


def means(sums: pd.DataFrame, names: Sequence[str]) -> dict[str, float]:
    """Combine :func:`partial_sums` rows into measure -> mean (NaN when nothing was scored)."""
    import warnings

    out: dict[str, float] = {}
    for i, n in enumerate(names):
        s, w = float(sums[f"s{i}"].sum()), float(sums[f"w{i}"].sum())
        if w == 0:
            warnings.warn(f"{n}: no query could be scored (all skipped or zero weight); nan",
                          UserWarning, stacklevel=3)
            out[n] = float("nan")
        else:
            out[n] = s / w
    return out
