"""Readers for TREC qrels and run files, pandas DataFrames and nested dicts.

Files are parsed by pyarrow's multi-threaded CSV reader when every line is separated by single
spaces or single tabs (the common case), by pandas' C parser (``sep=r"\\s+"``) when the
whitespace is irregular, and by a line-by-line reader when a file has comment lines, ragged
trailing fields (trec_eval ignores fields after the sixth of a run line) or a malformed line --
the last reader is the one that names the file and line of an error.
"""

from __future__ import annotations

import gzip
import io
import math
import mmap
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from ..core.validation import check_string_ids

Source = str | os.PathLike | pd.DataFrame | Mapping

QID_COLUMNS = ("qid", "query_id", "q_id", "query", "topic")
DOC_COLUMNS = ("docid", "doc_id", "docno", "doc")
VALUE_COLUMNS = {
    "qrels": ("label", "relevance", "rel", "judgement", "judgment", "score"),
    "run": ("score", "sim", "similarity"),
}
VALUE_NAME = {"qrels": "label", "run": "score"}
#: field positions (0-based) of query id, document id and value, and the field counts accepted
LAYOUT: dict[str, tuple[int, int, int, str]] = {
    "qrels": (0, 2, 3, "4 fields (query iter docno relevance)"),
    "run": (0, 2, 4, "at least 5 fields (query Q0 docno rank score [run-tag])"),
}


def _layout(kind: str) -> tuple[int, int, int, str]:
    return LAYOUT[kind]


def _fields_ok(kind: str, n: int) -> bool:
    return n == 4 if kind == "qrels" else n >= 5


def _read_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data


def _has(data: Any, byte: bytes) -> bool:
    return bool(data.find(byte) >= 0)  # bytes or mmap: memchr speed (``in`` on mmap is slow)


def _simple_delimiter(data: Any) -> str | None:
    """" " or "\t" when one of them is the only whitespace besides newlines (a candidate for
    the fast reader, which then checks that no field is empty), else None."""
    if not len(data) or _has(data, b"#") or _has(data, b"\r"):
        return None
    has_tab = _has(data, b"\t")
    if has_tab and _has(data, b" "):
        return None
    return "\t" if has_tab else " "


def _pyarrow_read(source: Any, kind: str, delimiter: str, n_fields: int) -> pa.Table | None:
    """pyarrow's multi-threaded CSV reader on single-delimited lines (``source``: bytes or a
    path); None when a line does not fit (ragged, empty field, bad number)."""
    qcol, dcol, vcol, _ = _layout(kind)
    if not _fields_ok(kind, n_fields):
        return None
    # every field up to the value column is parsed, so a doubled, leading or trailing
    # delimiter shows up as an empty field (fields after the value are ignored anyway)
    types = {f"f{i}": pa.string() for i in range(vcol)}
    types[f"f{vcol}"] = pa.float64()
    try:
        tb = pa_csv.read_csv(
            pa.BufferReader(source) if isinstance(source, bytes) else str(source),
            read_options=pa_csv.ReadOptions(autogenerate_column_names=True),
            parse_options=pa_csv.ParseOptions(delimiter=delimiter, quote_char=False,
                                              double_quote=False),
            convert_options=pa_csv.ConvertOptions(
                include_columns=list(types), column_types=types,
                strings_can_be_null=False, quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowKeyError):
        return None
    if tb.num_rows == 0 or tb.column(f"f{vcol}").null_count:
        return None
    for i in range(vcol):
        if pc.min(pc.binary_length(tb.column(f"f{i}"))).as_py() == 0:
            return None
    return _finite(pa.table({"qid": tb.column(f"f{qcol}"), "docid": tb.column(f"f{dcol}"),
                             VALUE_NAME[kind]: tb.column(f"f{vcol}")}), kind)


def _pandas_read(data: bytes, kind: str) -> pa.Table | None:
    """pandas' C parser, whitespace-separated fields; None when it does not fit."""
    qcol, dcol, vcol, _ = _layout(kind)
    if _has(data, b"#"):
        return None
    try:
        df = pd.read_csv(
            io.BytesIO(data), sep=r"\s+", header=None, engine="c", quoting=3,
            dtype={qcol: str, dcol: str, vcol: np.float64}, na_filter=False,
        )
    except (ValueError, pd.errors.ParserError, IndexError, KeyError):
        return None
    if not _fields_ok(kind, df.shape[1]) or len(df) == 0:
        return None
    df = df[[qcol, dcol, vcol]].rename(columns={qcol: "qid", dcol: "docid",
                                                vcol: VALUE_NAME[kind]})
    if df.isna().to_numpy().any():
        return None
    return _finite(pa.Table.from_pandas(df, preserve_index=False), kind)


def _finite(tb: pa.Table, kind: str) -> pa.Table | None:
    values = tb.column(VALUE_NAME[kind]).to_numpy()
    return tb if tb.num_rows and np.all(np.isfinite(values)) else None


def _count_fields(data: Any, delimiter: str) -> int:
    end = data.find(b"\n")
    first = data[:] if end < 0 else data[:end]
    return bytes(first).count(delimiter.encode()) + 1


def _slow_read(data: Any, kind: str, name: str) -> pa.Table:
    """Line-by-line parse; raises ValueError naming ``name`` and the line of the first problem."""
    data = bytes(data)
    qcol, dcol, vcol, need = _layout(kind)
    qids: list[str] = []
    docs: list[str] = []
    vals: list[float] = []
    vname = "relevance label" if kind == "qrels" else "score"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad_line = data[: exc.start].count(b"\n") + 1
        raise ValueError(f"{name}, line {bad_line}: not valid UTF-8 text") from None
    for lineno, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if not _fields_ok(kind, len(parts)):
            hint = ""
            if kind == "qrels" and len(parts) >= 5:
                hint = " (is this a run file?)"
            elif kind == "run" and len(parts) == 4:
                hint = " (is this a qrels file?)"
            raise ValueError(
                f"{name}, line {lineno}: a {kind} line needs {need}; got {len(parts)} "
                f"field(s){hint}: {line.strip()!r}"
            )
        try:
            value = float(parts[vcol])
        except ValueError:
            raise ValueError(
                f"{name}, line {lineno}: {vname} {parts[vcol]!r} is not a number: "
                f"{line.strip()!r}"
            ) from None
        if not math.isfinite(value):
            raise ValueError(
                f"{name}, line {lineno}: {vname} must be finite; got {parts[vcol]!r}"
            )
        qids.append(parts[qcol])
        docs.append(parts[dcol])
        vals.append(value)
    if not qids:
        raise ValueError(f"{name}: no {kind} lines found (the file is empty or all comments)")
    return pa.table({
        "qid": pa.array(qids, pa.string()),
        "docid": pa.array(docs, pa.string()),
        VALUE_NAME[kind]: pa.array(vals, pa.float64()),
    })


def _parse(data: bytes, kind: str, name: str) -> pa.Table:
    delimiter = _simple_delimiter(data)
    tb = None
    if delimiter is not None:
        tb = _pyarrow_read(data, kind, delimiter, _count_fields(data, delimiter))
    elif len(data):
        tb = _pandas_read(data, kind)
    return _slow_read(data, kind, name) if tb is None else tb


def read_file(path: str | os.PathLike, kind: str) -> pa.Table:
    """Read a TREC qrels (``kind="qrels"``) or run (``kind="run"``) file into an arrow table.

    A plain file is scanned through a memory map and, when its lines are regular, parsed by
    pyarrow straight from disk (no copy in Python); ``.gz`` files are decompressed first.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{kind} file not found: {p}")
    if p.suffix != ".gz" and p.stat().st_size > 0:
        with open(p, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            delimiter = _simple_delimiter(mm)
            n_fields = _count_fields(mm, delimiter) if delimiter is not None else 0
        if delimiter is not None:
            tb = _pyarrow_read(p, kind, delimiter, n_fields)
            if tb is not None:
                return tb
    return _parse(_read_bytes(p), kind, str(p))


def find_lines(path: str | os.PathLike, kind: str, qid: str, docid: str) -> list[int]:
    """Line numbers of ``path`` holding (qid, docid): used to point at duplicate entries."""
    qcol, dcol, _, _ = _layout(kind)
    out = []
    text = _read_bytes(Path(path)).decode("utf-8", errors="replace")
    for lineno, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if len(parts) > max(qcol, dcol) and parts[qcol] == qid and parts[dcol] == docid:
            out.append(lineno)
    return out


def _column(df: pd.DataFrame, options: tuple[str, ...], what: str, kind: str) -> Any:
    lower = {str(c).lower(): c for c in df.columns}
    for name in options:
        if name in lower:
            return lower[name]
    raise ValueError(
        f"{kind} DataFrame needs a {what} column named one of {', '.join(options)}; "
        f"got columns {list(df.columns)}"
    )


def _string_array(values: Any) -> pa.ChunkedArray:
    try:
        arr = pa.chunked_array(values) if isinstance(values, pd.Series) else None
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
        arr = None  # e.g. Python ints beyond int64: written out as strings below
    if arr is None or not pa.types.is_string(arr.type) and not pa.types.is_large_string(arr.type):
        arr = pa.chunked_array([pa.array(np.asarray(values).astype(str), pa.string())])
    return arr


def _value_array(values: Any, kind: str, where: str) -> np.ndarray:
    vname = VALUE_NAME[kind]
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        bad = next((v for v in values if not _is_number(v)), None)
        raise ValueError(f"{where}: {vname} {bad!r} is not a number") from None
    if out.size and not np.all(np.isfinite(out)):
        i = int(np.flatnonzero(~np.isfinite(out))[0])
        raise ValueError(f"{where}: {vname} must be finite; got {out[i]} (entry {i})")
    return out


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def from_frame(df: pd.DataFrame, kind: str) -> pa.Table:
    """A (qid, docid, label|score) arrow table from a DataFrame with recognisable columns."""
    qc = _column(df, QID_COLUMNS, "query id", kind)
    dc = _column(df, DOC_COLUMNS, "document id", kind)
    vc = _column(df, VALUE_COLUMNS[kind], VALUE_NAME[kind], kind)
    for col, what in ((qc, "query"), (dc, "document")):
        if df[col].isna().any():
            raise ValueError(
                f"{kind} DataFrame column {col!r} has missing {what} ids (row "
                f"{int(np.flatnonzero(df[col].isna().to_numpy())[0])})"
            )
    if df[qc].dtype == object:  # 1 and "1" would both become the query "1"
        check_string_ids(df[qc].tolist(), f"{kind} DataFrame column {qc!r}")
    values = _value_array(df[vc].to_numpy(), kind, f"{kind} DataFrame column {vc!r}")
    if len(df) == 0:
        raise ValueError(f"{kind} DataFrame is empty")
    return pa.table({"qid": _string_array(df[qc]), "docid": _string_array(df[dc]),
                     VALUE_NAME[kind]: pa.array(values, pa.float64())})


def from_mapping(src: Mapping, kind: str) -> pa.Table:
    """A table from the nested ``{qid: {docid: value}}`` layout of pytrec_eval and ranx."""
    qids: list[str] = []
    docs: list[str] = []
    vals: list[Any] = []
    for q, inner in src.items():
        if not isinstance(inner, Mapping):
            raise TypeError(
                f"{kind} dict must map query id -> {{docid: {VALUE_NAME[kind]}}}; query {q!r} "
                f"maps to {type(inner).__name__}"
            )
        qs = str(q)
        for d, v in inner.items():
            qids.append(qs)
            docs.append(str(d))
            vals.append(v)
    if not qids:
        raise ValueError(f"{kind} dict holds no (query, document) entries")
    check_string_ids(list(src.keys()), f"{kind} dict query ids")
    values = _value_array(vals, kind, f"{kind} dict")
    return pa.table({"qid": pa.array(qids, pa.string()), "docid": pa.array(docs, pa.string()),
                     VALUE_NAME[kind]: pa.array(values, pa.float64())})


def to_table(src: Any, kind: str) -> pa.Table:
    """Any accepted source (path, DataFrame, nested dict, arrow table) as an arrow table."""
    if isinstance(src, (str, os.PathLike)):
        return read_file(src, kind)
    if isinstance(src, pd.DataFrame):
        return from_frame(src, kind)
    if isinstance(src, pa.Table):
        return from_frame(src.to_pandas(), kind)
    if isinstance(src, Mapping):
        return from_mapping(src, kind)
    raise TypeError(
        f"{kind} must be a file path, a pandas DataFrame or a dict {{qid: {{docid: "
        f"{VALUE_NAME[kind]}}}}}; got {type(src).__name__}"
    )


def to_frame(tb: pa.Table) -> pd.DataFrame:
    """The arrow table as a DataFrame with str ids and float64 values."""
    df = tb.to_pandas()
    for c in ("qid", "docid"):
        if df[c].dtype == object:
            df[c] = df[c].astype(str)
    return df
