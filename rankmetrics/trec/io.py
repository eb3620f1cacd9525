"""Readers and writers for qrels and runs: TREC text, JSON, parquet, CSV/TSV, in-memory objects.

TREC text is read as a stream of blocks of at most :data:`CHUNK_BYTES` bytes (cut at a line
end), so the peak memory is the parsed columns plus a few blocks whatever the file holds; an
uncompressed file is memory-mapped one block at a time and searched and parsed in place (no copy
of its bytes unless a block needs cleaning), and line numbers are counted only when an error
names one (:func:`line_at` reads the file again). Each block goes to the first of three
parsers that accepts it -- pyarrow's CSV reader (single spaces or single tabs; comment lines and
CRLF line ends are removed first), pandas' C parser (any run of spaces and tabs), or a
line-by-line reader (anything else: ragged trailing fields, other ASCII
whitespace) that is also the one naming the file and line of an error. The three accept the same
lines and give the same values: fields are split at ASCII whitespace, a line whose first field
starts with ``#`` is a comment, a value is a decimal number as ``strtod`` reads it (no ``_``
separators, no non-ASCII digits), ids are UTF-8 text, and a UTF-8 byte-order mark at the start of
a file is dropped before any parser sees the bytes.

Text starting with a UTF-16 or UTF-32 byte-order mark, and zstd, zip or lz4 data, are errors
naming the encoding or compression (:func:`_check_text_start`).

Compressed files (gzip, bzip2, xz) are recognised by their magic bytes and their extension; the
format (TREC text, JSON, parquet, CSV, TSV) by the extension under the compression suffix and,
for unknown extensions, by the content (``PAR1`` at both ends is parquet, a leading ``{`` and
a key JSON; a TREC file whose first query id starts ``PAR1``, ``{`` or ``BZh`` stays TREC).
"""

from __future__ import annotations

import bz2
import contextvars
import gzip
import io
import json
import lzma
import math
import mmap
import os
import re
import shutil
import stat
import tempfile
import warnings
import zlib
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import IO, Any, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from ..core.validation import check_scores, check_string_ids, refuse_masked

Source = str | os.PathLike | pd.DataFrame | Mapping

QID_COLUMNS = ("qid", "query_id", "q_id", "query", "topic")
#: "docno" first: a PyTerrier frame holds both its external id (docno, the qrels') and its
#: internal integer "docid"
DOC_COLUMNS = ("docno", "docid", "doc_id", "doc")
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
#: bytes of TREC text parsed at a time (a block is cut at the last line end inside it)
CHUNK_BYTES = 16 << 20
#: characters of a line or field shown in an error message (a file without LF line ends is
#: one line: the message would hold all of it)
SHOWN_CHARS = 200
#: file formats by extension; compression suffixes are looked through
EXTENSIONS = {".parquet": "parquet", ".pq": "parquet", ".json": "json", ".csv": "csv",
              ".tsv": "tsv"}
FORMATS = ("trec", "json", "parquet", "csv", "tsv")
_COMPRESSION = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}
_MAGIC = {"gzip": b"\x1f\x8b", "bzip2": b"BZh", "xz": b"\xfd7zXZ\x00"}
#: bzip2's magic in full: "BZh", a block-size digit, then a block or end-of-stream marker (so
#: a TREC file whose first query id starts with "BZh" is not taken for bzip2)
_BZIP2 = re.compile(rb"BZh[1-9](\x31\x41\x59\x26\x53\x59|\x17\x72\x45\x38\x50\x90)", re.S)
#: the start of a JSON object: "{", whitespace, then a key or "}"
_JSON_START = re.compile(rb"\{\s*[\"}]")
_BOM = b"\xef\xbb\xbf"
#: byte-order marks of the text encodings read as bytes that are not UTF-8 (UTF-32 first: its
#: little-endian mark starts with UTF-16's)
_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
              (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))
#: magic bytes of compressions that are not read (none can start UTF-8 text)
_OTHER_MAGIC = ((b"\x28\xb5\x2f\xfd", "zstd", "zstd -d"), (b"PK\x03\x04", "zip", "unzip"),
                (b"\x04\x22\x4d\x18", "lz4", "lz4 -d"))
#: whether pyarrow's CSV reader may use its thread pool (``read_file(..., threads=1)`` clears it)
_USE_THREADS: contextvars.ContextVar[bool] = contextvars.ContextVar("use_threads", default=True)
_COMMENT = re.compile(rb"(?m)^[ \t]*#[^\n]*(?:\n|\Z)")
_EXPONENT = re.compile(rb"[eE]")
_LEADING_INT = re.compile(rb"[+-]?\d*")  # what C's atol reads of a field
_NUMBER = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)",
                     re.IGNORECASE)


def _layout(kind: str) -> tuple[int, int, int, str]:
    return LAYOUT[kind]


def _fields_ok(kind: str, n: int) -> bool:
    return n == 4 if kind == "qrels" else n >= 5


# ------------------------------------------------------------------------- opening files
def _check_path(path: str | os.PathLike, kind: str) -> Path:
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(f"{kind} path is a directory, not a file: {p}")
    if not p.exists():
        raise FileNotFoundError(f"{kind} file not found: {p}")
    return p


def _sniff(p: Path) -> bytes:
    try:
        with open(p, "rb") as f:
            return f.read(64)
    except OSError as exc:
        raise OSError(f"{p}: cannot be read ({exc.strerror or exc})") from None


def compression_of(p: Path, head: bytes) -> str | None:
    """"gzip", "bzip2", "xz" or None, from the magic bytes; a compression extension on a file
    without them is an error naming the file."""
    for name, magic in _MAGIC.items():
        if head.startswith(magic) and (name != "bzip2" or _BZIP2.match(head)):
            return name
    ext = _COMPRESSION.get(p.suffix.lower())
    if ext is not None and head:
        raise ValueError(
            f"{p}: not a {ext} file (the name ends in {p.suffix} but the data does not start "
            f"with {ext}'s magic bytes; rename it if it is plain text)"
        )
    return None


def detect_format(path: str | os.PathLike, kind: str = "run") -> tuple[str, str | None, str]:
    """(format, compression, why) of a file: format one of :data:`FORMATS`.

    The extension under a compression suffix decides (``run.parquet``, ``qrels.json.gz``); an
    unknown extension is read by content: ``PAR1`` at both ends is parquet, ``{`` followed by
    a key (or ``}``) JSON, anything else TREC text.
    """
    p = _check_path(path, kind)
    head = _sniff(p)
    comp = compression_of(p, head)
    name = p.name.lower()
    for suffix in _COMPRESSION:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    ext = os.path.splitext(name)[1]
    if ext in EXTENSIONS:
        return EXTENSIONS[ext], comp, f"the extension {ext}"
    if comp is None and head.startswith(b"PAR1") and _ends_with_par1(p):
        return "parquet", comp, "its first and last bytes 'PAR1'"
    start = head.lstrip(_BOM).lstrip()
    if comp is None and _JSON_START.match(start):
        return "json", comp, "its first characters '{' and a key"
    return "trec", comp, "its content (TREC text: no known extension)"


def _ends_with_par1(p: Path) -> bool:
    """Parquet files end with their magic too; a TREC line starting ``PAR1`` does not."""
    try:
        with open(p, "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() < 12:
                return False
            f.seek(-4, os.SEEK_END)
            return f.read(4) == b"PAR1"
    except OSError as exc:
        raise OSError(f"{p}: cannot be read ({exc.strerror or exc})") from None


def _open(p: Path, comp: str | None) -> IO[bytes]:
    if comp == "gzip":
        return cast(IO[bytes], gzip.open(p, "rb"))
    if comp == "bzip2":
        return bz2.open(p, "rb")
    if comp == "xz":
        return lzma.open(p, "rb")
    return open(p, "rb")


def _read_error(p: Path, comp: str | None, exc: BaseException) -> ValueError | OSError:
    if isinstance(exc, EOFError):
        return ValueError(f"{p}: the {comp} data is truncated (the file ends before the end of "
                          "the compressed stream; was the download or copy interrupted?)")
    if isinstance(exc, (gzip.BadGzipFile, zlib.error, lzma.LZMAError)) or (
            comp is not None and isinstance(exc, OSError) and not exc.errno):
        return ValueError(f"{p}: corrupt {comp} data ({exc})")
    if isinstance(exc, OSError):
        return OSError(f"{p}: cannot be read ({exc.strerror or exc})")
    raise exc  # pragma: no cover - only the types above are passed


def _stream_blocks(p: Path, comp: str | None, size: int | None = None
                   ) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines of a (decompressed) file and the offset of their first byte in
    the decompressed data.

    The UTF-8 byte-order mark at the start of the file is dropped; errors of reading or
    decompressing name the file.
    """
    size = size or CHUNK_BYTES
    offset = 0
    rest = b""
    first = True
    try:
        with _open(p, comp) as f:
            while True:
                block = f.read(max(size, len(_BOM)) if first else size)
                if not block:
                    break
                if first:
                    first = False
                    if block.startswith(_BOM):
                        block = block[len(_BOM):]
                        offset = len(_BOM)
                cut = block.rfind(b"\n") + 1
                if cut == 0:  # no line end yet: keep reading
                    rest += block
                    continue
                # one copy of the block at most: the carried-over start plus its whole lines
                if cut == len(block):
                    out = b"".join((rest, block)) if rest else block
                else:
                    out = b"".join((rest, memoryview(block)[:cut]))
                rest = block[cut:]
                del block
                yield out, offset
                offset += len(out)
    except (EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
        raise _read_error(p, comp, exc) from None
    if rest:
        yield rest, offset


def iter_chunks(p: Path, comp: str | None, size: int | None = None) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines of a (decompressed) file and the line number of their first line.

    The UTF-8 byte-order mark at the start of the file is dropped; errors of reading or
    decompressing name the file.
    """
    line = 1
    for out, _ in _stream_blocks(p, comp, size):
        yield out, line
        # numpy counts a block's line ends about 5x faster than bytes.count
        line += int(np.count_nonzero(np.frombuffer(out, np.uint8) == 10))


def line_at(p: Path, comp: str | None, offset: int) -> int:
    """The line number (from 1) of the byte at ``offset`` of the decompressed file: read again
    only when an error names a line, so that reading needs no line count."""
    line = 1
    for out, start in _stream_blocks(p, comp):
        if start >= offset:
            break
        line += out.count(b"\n", 0, offset - start)
    return line


class _Mapped:
    """Bytes ``start:end`` of a memory-mapped file: searched in place, handed to pyarrow
    without a copy; ``bytes(view)`` copies them for the parsers that need bytes."""

    def __init__(self, mm: mmap.mmap, start: int, end: int) -> None:
        self.mm, self.start, self.end = mm, start, end

    def __len__(self) -> int:
        return self.end - self.start

    def find(self, sub: bytes) -> int:
        at = self.mm.find(sub, self.start, self.end)
        return at - self.start if at >= 0 else -1

    def __bytes__(self) -> bytes:
        return self.mm[self.start:self.end]

    def first_line(self) -> bytes:
        end = self.find(b"\n")
        return self.mm[self.start:self.end if end < 0 else self.start + end]

    def buffer(self) -> pa.Buffer:
        return pa.py_buffer(self.mm).slice(self.start, len(self))


def _mapped_blocks(p: Path, size: int | None = None) -> Iterator[tuple[_Mapped, int]]:
    """Blocks of whole lines of an uncompressed file, each its own read-only memory map (so that
    at most one block of the file is resident at a time), and the offset of their first byte.
    The UTF-8 byte-order mark at the start is skipped."""
    size = size or CHUNK_BYTES
    gran = mmap.ALLOCATIONGRANULARITY
    with open(p, "rb") as f:
        total = os.fstat(f.fileno()).st_size
        at = 0
        while at < total:
            base = at - at % gran
            want = size
            while True:  # a line longer than the block: map more
                length = min(at - base + want, total - base)
                mm = mmap.mmap(f.fileno(), length, access=mmap.ACCESS_READ, offset=base)
                start = at - base
                if at == 0 and mm[:len(_BOM)] == _BOM:
                    start = len(_BOM)
                end = mm.rfind(b"\n", start) + 1 if base + length < total else length
                if end > 0:
                    break
                mm.close()
                want *= 2
            try:
                yield _Mapped(mm, start, end), base + start
            finally:
                try:
                    mm.close()
                except BufferError:  # pyarrow's thread pool still holds the buffer for a
                    pass  # moment: the map goes with the last reference to it
            at = base + end


def _blocks(p: Path, comp: str | None) -> Iterator[tuple[bytes | _Mapped, int]]:
    """:func:`_stream_blocks`, or memory-mapped blocks for an uncompressed regular file (no copy
    of the file's bytes on the fast path)."""
    if comp is None and p.is_file() and p.stat().st_size > 0:
        try:
            yield from _mapped_blocks(p)
        except OSError as exc:
            raise _read_error(p, comp, exc) from None
        return
    yield from _stream_blocks(p, comp)


# ------------------------------------------------------------------ TREC text: three parsers
def _simple_delimiter(data: bytes | _Mapped) -> str | None:
    """" " or "\t" when one of them is the only whitespace besides line ends (a candidate for
    pyarrow, which then checks that no field is empty), else None."""
    if not data or data.find(b"\x0b") >= 0 or data.find(b"\x0c") >= 0:
        return None
    has_tab = data.find(b"\t") >= 0
    if has_tab and data.find(b" ") >= 0:
        return None
    return "\t" if has_tab else " "


def _count_fields(data: bytes | _Mapped, delimiter: str) -> int:
    if isinstance(data, _Mapped):
        line = data.first_line()
    else:
        end = data.find(b"\n")
        line = data if end < 0 else data[:end]
    return line.count(delimiter.encode()) + 1


def _pyarrow_read(data: bytes | _Mapped, kind: str) -> pa.Table | None:
    """pyarrow's CSV reader on single-delimited lines; None when a line does not fit (ragged,
    empty field, bad number, not UTF-8)."""
    delimiter = _simple_delimiter(data)
    if delimiter is None or not _fields_ok(kind, _count_fields(data, delimiter)):
        return None
    qcol, dcol, vcol, _ = _layout(kind)
    # every field up to the value column is parsed, so that a doubled, leading or trailing
    # delimiter shows up as an empty field (fields after the value are ignored anyway); the
    # fields not used are read as bytes, as the other parsers ignore their encoding
    types = {f"f{i}": pa.binary() for i in range(vcol)}
    # qrels labels as text first (dictionary-encoded: a qrels holds few distinct labels, so
    # the checks and the cast read those few): one written with an exponent goes to the line
    # reader
    value_type = pa.dictionary(pa.int32(), pa.string()) if kind == "qrels" else pa.float64()
    types.update({f"f{qcol}": pa.string(), f"f{dcol}": pa.string(), f"f{vcol}": value_type})
    try:
        tb = pa_csv.read_csv(
            pa.BufferReader(data.buffer() if isinstance(data, _Mapped) else data),
            read_options=pa_csv.ReadOptions(autogenerate_column_names=True,
                                            use_threads=_USE_THREADS.get()),
            parse_options=pa_csv.ParseOptions(delimiter=delimiter, quote_char=False,
                                              double_quote=False, escape_char=False),
            convert_options=pa_csv.ConvertOptions(
                include_columns=list(types), column_types=types, null_values=[],
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
    values = tb.column(f"f{vcol}")
    if kind == "qrels":
        chunks = []
        for chunk in values.chunks:
            words = chunk.dictionary
            if pc.any(pc.match_substring(words, "e", ignore_case=True)).as_py():
                return None
            try:
                as_float = pc.cast(words, pa.float64())
            except pa.ArrowInvalid:
                return None
            chunks.append(pc.take(as_float, chunk.indices))
        values = pa.chunked_array(chunks, pa.float64())
    return _finite(pa.table({"qid": tb.column(f"f{qcol}"), "docid": tb.column(f"f{dcol}"),
                             VALUE_NAME[kind]: values}), kind)


def _pandas_read(data: bytes, kind: str) -> pa.Table | None:
    """pandas' C parser, fields separated by runs of spaces and tabs; None when it does not
    fit."""
    qcol, dcol, vcol, _ = _layout(kind)
    if data.find(b"\x0b") >= 0 or data.find(b"\x0c") >= 0 or not data or data.isspace():
        return None
    try:
        df = pd.read_csv(
            io.BytesIO(data), sep=r"\s+", header=None, engine="c", quoting=3,
            dtype={qcol: str, dcol: str, vcol: str if kind == "qrels" else np.float64},
            na_filter=False, encoding="utf-8", encoding_errors="strict",
        )
        if kind == "qrels":  # a label written with an exponent goes to the line reader
            if df[vcol].str.contains("[eE]").any():
                return None
            # pyarrow's cast, as the fast reader: float() would take "1_0" and other digits
            df[vcol] = pc.cast(pa.array(df[vcol].to_numpy(), pa.string()),
                               pa.float64()).to_numpy()
    except Exception:  # any refusal of the C parser sends the block to the line reader
        return None
    if not _fields_ok(kind, df.shape[1]) or len(df) == 0:
        return None
    df = df[[qcol, dcol, vcol]]
    if df.isna().to_numpy().any():
        return None
    return _finite(pa.table({"qid": pa.array(df[qcol].to_numpy(), pa.string()),
                             "docid": pa.array(df[dcol].to_numpy(), pa.string()),
                             VALUE_NAME[kind]: pa.array(df[vcol].to_numpy(), pa.float64())}),
                   kind)


def _finite(tb: pa.Table, kind: str) -> pa.Table | None:
    values = tb.column(VALUE_NAME[kind]).to_numpy()
    return tb if tb.num_rows and np.all(np.isfinite(values)) else None


def parse_number(field: bytes) -> float | None:
    """The float of a decimal number field (as pyarrow and strtod read it), else None."""
    if _NUMBER.fullmatch(field) is None:
        return None
    return float(field)


def decode_field(field: bytes, where: str) -> str:
    """A field as str; ValueError naming ``where`` when it is not UTF-8."""
    try:
        return field.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{where}: not valid UTF-8 text: {field[:SHOWN_CHARS]!r}") from None


def _line_read(data: bytes, kind: str, name: str, line0: int | Callable[[], int]
               ) -> pa.Table | None:
    """Line-by-line parse; raises ValueError naming ``name`` and the line of the first problem
    (``line0``: the number of the block's first line, or a function giving it, called only
    then); None when the block holds only comments and blank lines."""
    qcol, dcol, vcol, need = _layout(kind)
    qids: list[str] = []
    docs: list[str] = []
    vals: list[float] = []
    vname = "relevance label" if kind == "qrels" else "score"
    exponent: list[tuple[int, bytes]] = []  # qrels labels written with one (trec_eval: atol)

    def at(i: int) -> str:
        return f"{name}, line {(line0() if callable(line0) else line0) + i}"

    for i, raw in enumerate(data.split(b"\n")):
        parts = raw.split()
        if not parts or parts[0].startswith(b"#"):
            continue
        if raw.rstrip(b"\r").find(b"\r") >= 0:  # CR alone ends lines on old Macs
            raise ValueError(f"{at(i)}: a carriage return (CR) inside the line; lines must end "
                             f"with LF or CRLF (convert CR line ends): {_shown(raw)!r}")
        if not _fields_ok(kind, len(parts)):
            hint = ""
            if kind == "qrels" and len(parts) >= 5:
                hint = " (is this a run file?)"
            elif kind == "run" and len(parts) == 4:
                hint = " (is this a qrels file?)"
            raise ValueError(f"{at(i)}: a {kind} line needs {need}; got {len(parts)} field(s)"
                             f"{hint or _nul_hint(raw)}: {_shown(raw)!r}")
        value = parse_number(parts[vcol])
        if value is None:
            raise ValueError(
                f"{at(i)}: {vname} {_shown(parts[vcol])!r} is not a number{_nul_hint(raw)}: "
                f"{_shown(raw)!r}"
            )
        if not math.isfinite(value):
            raise ValueError(
                f"{at(i)}: {vname} must be finite; got {_shown(parts[vcol])!r}"
            )
        if kind == "qrels" and _EXPONENT.search(parts[vcol]) is not None:
            exponent.append((i, parts[vcol]))
        try:  # other fields may hold any bytes
            q, d = parts[qcol].decode("utf-8"), parts[dcol].decode("utf-8")
        except UnicodeDecodeError:
            q, d = decode_field(parts[qcol], at(i)), decode_field(parts[dcol], at(i))
        qids.append(q)
        docs.append(d)
        vals.append(value)
    if exponent:
        i, text = exponent[0]
        lead = _LEADING_INT.match(text).group()  # type: ignore[union-attr]  # matches ""
        as_atol = int(lead) if lead.strip(b"+-") else 0
        warnings.warn(
            f"{at(i)}: {len(exponent)} relevance label(s) from here on (up to "
            f"{CHUNK_BYTES >> 20} MiB of the file) are written with an exponent (the first: "
            f"{text.decode()!r}); rankmetrics reads {text.decode()!r} as "
            f"{float(text)!r}, while trec_eval reads labels with atol (as {as_atol}) and "
            "pytrec_eval takes integers; write labels as integers to get the same numbers",
            UserWarning, stacklevel=2,
        )
    if not qids:
        return None
    return pa.table({
        "qid": pa.array(qids, pa.string()),
        "docid": pa.array(docs, pa.string()),
        VALUE_NAME[kind]: pa.array(vals, pa.float64()),
    })


def _shown(raw: bytes) -> str:
    """A line or field as shown in error messages: at most :data:`SHOWN_CHARS` characters."""
    text = raw[:4 * SHOWN_CHARS].strip().decode("utf-8", errors="replace")
    if len(text) > SHOWN_CHARS or len(raw) > 4 * SHOWN_CHARS:
        text = text[:SHOWN_CHARS] + f"... ({len(raw)} bytes)"
    return text


def _nul_hint(raw: bytes) -> str:
    """A hint for a line holding NUL bytes: UTF-16 or UTF-32 text without a byte-order mark,
    or not text at all."""
    if raw.find(b"\x00") < 0:
        return ""
    return (" (the line holds NUL bytes: is the file UTF-16 or UTF-32 text, or not text? "
            "qrels and runs are read as UTF-8)")


#: the parsers in the order tried; tests force each one by dropping the others
PARSERS: dict[str, Any] = {"pyarrow": _pyarrow_read, "pandas": _pandas_read}


def _clean(data: bytes) -> bytes:
    """CRLF to LF and comment lines dropped: what lets the fast parsers take a block."""
    if data.find(b"\r") >= 0:
        data = data.replace(b"\r\n", b"\n")
    if data.find(b"#") >= 0:
        data = _COMMENT.sub(b"", data)
    return data


def parse_block(data: bytes | _Mapped, kind: str, name: str,
                line0: int | Callable[[], int] = 1) -> pa.Table | None:
    """Rows of a block of whole TREC lines (None: only comments or blank lines); ``line0`` is
    the number of its first line, or a function giving it (called only to name a line in an
    error)."""
    tried = None
    if isinstance(data, _Mapped):
        # the common case, read in place: no CR, no comment, pyarrow takes it
        fast = PARSERS.get("pyarrow")
        if fast is not None and data.find(b"\r") < 0 and data.find(b"#") < 0:
            tb = fast(data, kind)
            if tb is not None:
                return tb
            tried = fast  # the bytes need no cleaning: pyarrow would refuse them again
        data = bytes(data)
    cleaned = _clean(data)
    if cleaned.find(b"\r") < 0:  # a lone CR is whitespace only to the line reader
        for parser in PARSERS.values():
            if parser is tried:
                continue
            tb = parser(cleaned, kind)
            if tb is not None:
                return tb
    del cleaned
    return _line_read(data, kind, name, line0)


def _read_trec(p: Path, comp: str | None, kind: str) -> pa.Table:
    tables = [tb for block, start in _blocks(p, comp)
              if (tb := parse_block(block, kind, str(p), partial(line_at, p, comp, start)))
              is not None]
    pa.default_memory_pool().release_unused()  # the blocks' parse buffers, back to the system
    if not tables:
        raise ValueError(f"{p}: no {kind} lines found (the file is empty or all comments)")
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


# ------------------------------------------------------------------------ other formats
def _read_all(p: Path, comp: str | None) -> bytes:
    return b"".join(block for block, _ in _stream_blocks(p, comp))


def _read_other(p: Path, comp: str | None, fmt: str, why: str, kind: str) -> pa.Table:
    where = f"{p} (read as {fmt}, detected from {why})"
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            src: Any = pa.BufferReader(_read_all(p, comp)) if comp else str(p)
            return from_arrow(pq.read_table(src, use_threads=_USE_THREADS.get()), kind, where)
        if fmt == "json":
            obj = json.loads(_read_all(p, comp), object_pairs_hook=_unique_keys)
            if not isinstance(obj, Mapping):
                raise ValueError(f"expected an object {{qid: {{docid: {VALUE_NAME[kind]}}}}}; "
                                 f"got a JSON {type(obj).__name__}")
            return from_mapping(obj, kind, where)
        return _read_delimited(_read_all(p, comp), "," if fmt == "csv" else "\t", kind, where)
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        raise ValueError(msg if msg.startswith(where) else f"{where}: {msg}") from None
    except (pa.ArrowException, OSError) as exc:
        if isinstance(exc, OSError) and str(p) in str(exc):
            raise
        raise ValueError(f"{where}: {exc}") from None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's members; a key given twice is an error (``json`` keeps the last)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key!r} appears twice in one JSON object (a query or a "
                             "document given twice; JSON readers would keep only the last)")
        out[key] = value
    return out


def _json_text(tb: pa.Table, kind: str, vname: str) -> bytes:
    """The nested ``{qid: {docid: value}}`` JSON of a table; a (query, document) given twice
    is a ValueError (one JSON object cannot hold both)."""
    out: dict[str, dict[str, Any]] = {}
    values = tb.column(vname).to_numpy()
    integral = kind == "qrels" and bool(
        np.all((values == np.round(values)) & (np.abs(values) < 2.0**53)))
    for q, d, v in zip(tb.column("qid").to_pylist(), tb.column("docid").to_pylist(),
                       values.tolist(), strict=True):
        inner = out.setdefault(q, {})
        if d in inner:
            raise ValueError(f"document {d!r} of query {q!r} is given twice; JSON holds one "
                             f"{vname} per document (write TREC text, CSV, TSV or parquet)")
        inner[d] = int(v) if integral else v
    return json.dumps(out).encode("utf-8")


def _read_delimited(data: bytes, delimiter: str, kind: str, where: str) -> pa.Table:
    """CSV/TSV with a header naming the columns; id columns are read as text ("007" stays)."""
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    names = pa_csv.read_csv(pa.BufferReader(data.split(b"\n", 1)[0] + b"\n"),
                            parse_options=pa_csv.ParseOptions(delimiter=delimiter)).column_names
    qc = _pick(names, QID_COLUMNS, "query id", kind, where)
    dc = _pick(names, DOC_COLUMNS, "document id", kind, where)
    vc = _pick(names, VALUE_COLUMNS[kind], VALUE_NAME[kind], kind, where)
    tb = pa_csv.read_csv(
        pa.BufferReader(data), parse_options=pa_csv.ParseOptions(delimiter=delimiter),
        read_options=pa_csv.ReadOptions(use_threads=_USE_THREADS.get()),
        convert_options=pa_csv.ConvertOptions(
            include_columns=[qc, dc, vc], column_types={qc: pa.string(), dc: pa.string()},
            strings_can_be_null=False),
    )
    return from_arrow(tb, kind, where)


def read_file(path: str | os.PathLike, kind: str, *, threads: int | None = None) -> pa.Table:
    """Read a qrels (``kind="qrels"``) or run (``kind="run"``) file into an arrow table with
    columns qid (string), docid (string), label|score (float64), in file order.

    ``threads=1`` keeps pyarrow's CSV reader on the calling thread; None or more let it use
    pyarrow's thread pool (``pyarrow.cpu_count()`` threads).

    Raises
    ------
    FileNotFoundError, IsADirectoryError
        No file at ``path``.
    ValueError
        Malformed content (file and line named), corrupt or truncated compressed data, or a
        file that does not parse as its detected format (format and how it was detected named).
    """
    p = _check_path(path, kind)
    if not _regular(p):  # a pipe (<(...), /dev/stdin, a FIFO) can be read once only
        return _read_copy(p, kind, threads)
    fmt, comp, why = detect_format(p, kind)
    if fmt in ("trec", "csv", "tsv"):
        _check_text_start(p, comp)
    token = _USE_THREADS.set(threads is None or threads > 1)
    try:
        if fmt == "trec" or (fmt in ("csv", "tsv") and _headerless_trec(p, comp, kind)):
            return _read_trec(p, comp, kind)
        return _read_other(p, comp, fmt, why, kind)
    finally:
        _USE_THREADS.reset(token)


def _check_text_start(p: Path, comp: str | None) -> None:
    """A ValueError naming the file when its (decompressed) text starts as UTF-16 or UTF-32 or
    as a compression that is not read: their bytes would otherwise reach the UTF-8 readers and
    fail with an error about a field of NUL bytes or binary garbage (JSON is read in any of the
    three encodings by ``json``)."""
    try:
        with _open(p, comp) as f:
            head = f.read(4)
    except (OSError, EOFError, zlib.error, lzma.LZMAError):
        return  # the reader reports it
    for mark, enc in _WIDE_BOMS:
        if head.startswith(mark):
            raise ValueError(f"{p}: the file is {enc} text (it starts with {enc}'s byte-order "
                             f"mark {mark.hex(' ')}); qrels and runs are read as UTF-8: convert "
                             f"it (iconv -f {enc} -t UTF-8)")
    for magic, name, tool in _OTHER_MAGIC:
        if head.startswith(magic):
            raise ValueError(f"{p}: the data is {name}-compressed, which is not read (gzip, "
                             f"bzip2 and xz are); decompress it first ({tool})")


def _headerless_trec(p: Path, comp: str | None, kind: str) -> bool:
    """A ``.tsv``/``.csv`` file that is TREC text without a header (MS MARCO's
    ``qrels.dev.tsv``: ``qid<TAB>0<TAB>docid<TAB>label``), as trec_eval reads any file: its
    first line that is not blank or a ``#`` comment (a comment is TREC text's, not a table's)
    names no column of ours and splits on whitespace as the TREC reader reads a line: 4 fields
    and a number last (qrels), at least 5 and a number 5th (run)."""
    try:
        with _open(p, comp) as f:
            for _ in range(1000):
                line = f.readline(1 << 16).lstrip(_BOM)
                if not line or (line.strip() and not line.lstrip().startswith(b"#")):
                    break
                if line.lstrip().startswith(b"#"):
                    return True
    except (OSError, EOFError, ValueError, lzma.LZMAError):
        return False  # the table reader reports it
    fields = line.decode("utf-8", "replace").split()
    if len(fields) != 4 if kind == "qrels" else len(fields) < 5:
        return False
    # a header names its value column; a data line holds a number there (a docno such as
    # "doc" elsewhere on the line is data, as trec_eval reads it)
    try:
        float(fields[3 if kind == "qrels" else 4])
    except ValueError:
        return False
    return True


def _regular(p: Path) -> bool:
    """A regular file, which can be opened again (the readers sniff, then read)."""
    try:
        return stat.S_ISREG(p.stat().st_mode)
    except OSError:
        return True  # the readers report the error with the file named


def copy_stream(src: IO[bytes], path: str | os.PathLike) -> None:
    """Write a stream (a pipe, stdin) to ``path`` in 1 MiB blocks: memory bounded by one
    block, whatever the stream's length. OSError as raised."""
    with open(path, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)


def _read_copy(p: Path, kind: str, threads: int | None) -> pa.Table:
    """Read a pipe through a temporary copy (:func:`copy_stream`), errors naming the pipe."""
    with tempfile.TemporaryDirectory(prefix="rankmetrics-") as tmp:
        copy = Path(tmp) / p.name
        try:
            with open(p, "rb") as src:
                copy_stream(src, copy)
        except OSError as exc:
            raise _read_error(p, None, exc) from None
        try:
            return read_file(copy, kind, threads=threads)
        except ValueError as exc:
            raise ValueError(str(exc).replace(str(copy), str(p))) from None


def find_lines(path: str | os.PathLike, kind: str, qid: str, docid: str) -> list[int]:
    """Line numbers of a TREC file holding (qid, docid): used to point at duplicate entries
    (none for a pipe, which was read once already)."""
    p = Path(path)
    if not p.is_file():
        return []
    fmt, comp, _ = detect_format(p, kind)
    if fmt != "trec" and not (fmt in ("csv", "tsv") and _headerless_trec(p, comp, kind)):
        return []  # a table's rows are not its lines
    qcol, dcol, _, _ = _layout(kind)
    want = (qid.encode(), docid.encode())
    out = []
    for block, line0 in iter_chunks(p, comp):
        if block.find(want[1]) < 0:
            continue
        for lineno, line in enumerate(block.split(b"\n"), line0):
            parts = line.split()
            if len(parts) > max(qcol, dcol) and (parts[qcol], parts[dcol]) == want:
                out.append(lineno)
    return out


# --------------------------------------------------------------------- in-memory sources
def _pick(names: list[str], options: tuple[str, ...], what: str, kind: str, where: str,
          file: bool = True) -> str:
    lower = {str(c).lower(): c for c in names}
    for name in options:
        if name in lower:
            return lower[name]
    hint = ""
    # the first line was data: every "name" a number (as the TREC reader reads numbers)
    if file and names and all(parse_number(str(c).encode()) is not None for c in names):
        hint = (f"; its first line looks like data, not a header: a CSV/TSV file without "
                f"one is read only in TREC's layout ({_TREC_FIELDS[kind]}), so add a header"
                + (" (MS MARCO's qid, pid, rank runs also need a score column)"
                   if kind == "run" else ""))
    raise ValueError(
        f"{where} needs a {what} column named one of {', '.join(options)}; got columns "
        f"{list(names)}{hint}"
    )


#: the fields of a TREC line, as named in the hint above
_TREC_FIELDS = {"qrels": "qid, iteration, docno, label",
                "run": "qid, Q0, docno, rank, score[, tag]"}


def _column(df: pd.DataFrame, options: tuple[str, ...], what: str, kind: str) -> Any:
    return _pick(list(df.columns), options, what, kind, f"{kind} DataFrame", file=False)


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
    if kind == "run":  # the core's rule for scores: no string, complex, date or bool-like
        # text, and no integer past 2**53 (float64 would tie it with its neighbours)
        return check_scores(values, f"{where}: {vname}").astype(np.float64, copy=False)
    refuse_masked(values, f"{where}: {vname}")
    try:
        probe = np.asarray(values)
    except ValueError as exc:  # ragged nesting
        raise ValueError(f"{where}: {vname} must be a flat array of numbers: {exc}") from None
    if probe.dtype.kind == "c" or (probe.dtype == object and any(
            isinstance(v, (complex, np.complexfloating)) for v in probe.ravel())):
        # float64 would drop the imaginary parts (numpy only warns)
        raise TypeError(f"{where}: {vname} must be real numbers; got complex values")
    if probe.dtype.kind in "mMV":  # float64 would read nanosecond counts (the core refuses),
        # or a one-field record's field
        raise TypeError(f"{where}: {vname} must be real numbers; got dtype {probe.dtype}")
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        items = probe.ravel().tolist() if probe.ndim else [values]
        bad = next((v for v in items if not _parses(v)), values)
        raise ValueError(f"{where}: {vname} {bad!r} is not a number") from None
    if out.size and not np.all(np.isfinite(out)):
        i = int(np.flatnonzero(~np.isfinite(out))[0])
        raise ValueError(f"{where}: {vname} must be finite; got {out[i]} (entry {i})")
    return out


def _parses(v: Any) -> bool:
    """numpy's float64 cast takes ``v`` (a number, or text of one)."""
    try:
        np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


def from_frame(df: pd.DataFrame, kind: str) -> pa.Table:
    """A (qid, docid, label|score) arrow table from a DataFrame with recognisable columns."""
    qc = _column(df, QID_COLUMNS, "query id", kind)
    dc = _column(df, DOC_COLUMNS, "document id", kind)
    vc = _column(df, VALUE_COLUMNS[kind], VALUE_NAME[kind], kind)
    _check_frame_ids(df, qc, dc, kind)
    values = _value_array(df[vc].to_numpy(), kind, f"{kind} DataFrame column {vc!r}")
    if len(df) == 0:
        raise ValueError(f"{kind} DataFrame is empty")
    where = f"{kind} DataFrame"
    return pa.table({"qid": _frame_ids(df[qc], where, "query id"),
                     "docid": _frame_ids(df[dc], where, "document id"),
                     VALUE_NAME[kind]: pa.array(values, pa.float64())})


def _check_frame_ids(df: pd.DataFrame, qc: Any, dc: Any, kind: str) -> None:
    for col, what in ((qc, "query"), (dc, "document")):
        if df[col].isna().any():
            raise ValueError(
                f"{kind} DataFrame column {col!r} has missing {what} ids (row "
                f"{int(np.flatnonzero(df[col].isna().to_numpy())[0])})"
            )
    if _plain(df[qc]).dtype == object:  # 1 and "1" would both become the query "1"
        check_string_ids(df[qc].tolist(), f"{kind} DataFrame column {qc!r}")


def frame_ids(df: pd.DataFrame, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """A DataFrame's query and document ids as the text :func:`from_frame` (and so
    :func:`rankmetrics.trec.evaluate`) reads them as: a float column's 7.0 is "7", as an int
    column's 7; missing ids and 1 beside "1" are refused. Object arrays of str, any length."""
    qc = _column(df, QID_COLUMNS, "query id", kind)
    dc = _column(df, DOC_COLUMNS, "document id", kind)
    _check_frame_ids(df, qc, dc, kind)
    where = f"{kind} DataFrame"
    qids = _frame_ids(df[qc], where, "query id").to_numpy()
    docids = _frame_ids(df[dc], where, "document id").to_numpy()
    return qids.astype(object, copy=False), docids.astype(object, copy=False)


def _frame_ids(col: pd.Series, where: str, what: str) -> pa.ChunkedArray:
    """A DataFrame's id column as text: a float column (pandas' int column once a NaN passed
    through it) by the arrow tables' rule, integral values as integers (7.0 is "7", as a
    file's "7"), others refused; an object column by the rule of dicts (:func:`_text_ids`:
    a Python float 7.0 is "7" too, bytes are decoded); every other column with ``str``."""
    col = _plain(col)
    if col.dtype.kind == "f":
        return _ids_as_text(pa.chunked_array([pa.array(col)]), where, what)
    if col.dtype == object:
        try:  # all text (the common case): pyarrow's conversion, no Python loop
            arr = pa.array(col)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
            arr = None
        if arr is not None and (pa.types.is_string(arr.type)
                                or pa.types.is_large_string(arr.type)):
            return pa.chunked_array([arr])
        return pa.chunked_array([pa.array(_text_ids(col.tolist(), f"{where}: {what}"),
                                          pa.string())])
    return _string_array(col)


def _plain(col: pd.Series) -> pd.Series:
    """A categorical column as its values (by its categories' rule: 7.0 is "7"), a
    big-endian one in native byte order; any other column as it is."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.astype(col.cat.categories.dtype)
    if isinstance(col.dtype, np.dtype) and not col.dtype.isnative:  # pyarrow takes no
        return col.astype(col.dtype.newbyteorder("="))  # byte-swapped arrays
    return col


def _ids_as_text(col: pa.ChunkedArray, where: str, what: str) -> pa.ChunkedArray:
    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if col.null_count:
        raise ValueError(f"{where}: {what} column has missing values")
    is_view = getattr(pa.types, "is_string_view", lambda t: False)  # pyarrow >= 16
    if pa.types.is_integer(col.type) or pa.types.is_string(col.type) \
            or pa.types.is_large_string(col.type) or is_view(col.type):
        return col.cast(pa.string())
    if pa.types.is_floating(col.type):
        values = col.to_numpy()
        if np.all(np.isfinite(values)) and np.all(values == np.round(values)):
            return pa.chunked_array([_integral_text(values)])
    raise ValueError(f"{where}: {what} column must hold text or integers (floats only when "
                     f"every one is integral); got {col.type}")


def from_arrow(tb: pa.Table, kind: str, where: str | None = None) -> pa.Table:
    """A (qid, docid, label|score) table from an arrow table with recognisable column names."""
    where = where or f"{kind} table"
    names = tb.column_names
    qc = _pick(names, QID_COLUMNS, "query id", kind, where, file=False)
    dc = _pick(names, DOC_COLUMNS, "document id", kind, where, file=False)
    vc = _pick(names, VALUE_COLUMNS[kind], VALUE_NAME[kind], kind, where, file=False)
    if tb.num_rows == 0:
        raise ValueError(f"{where}: no {kind} rows")
    vcol = tb.column(vc)
    if vcol.null_count:
        raise ValueError(f"{where}: {VALUE_NAME[kind]} column {vc!r} has missing values")
    if kind == "run":  # the core's score rule, on the column as it is (before any cast)
        values = pa.chunked_array([pa.array(
            _value_array(vcol.to_numpy(), kind, f"{where}, column {vc!r}"), pa.float64())])
    else:
        try:
            values = vcol.cast(pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise ValueError(f"{where}: {VALUE_NAME[kind]} column {vc!r} must be numeric; got "
                             f"{vcol.type}") from None
        _value_array(values.to_numpy(), kind, f"{where}, column {vc!r}")
    return pa.table({"qid": _ids_as_text(tb.column(qc), where, "query id"),
                     "docid": _ids_as_text(tb.column(dc), where, "document id"),
                     VALUE_NAME[kind]: values})


def _text_ids(items: list[Any], where: str) -> list[str]:
    """Ids of a dict or of ir_measures items as text, by the rule of files, arrays and
    DataFrame columns: bytes decoded as UTF-8 and integral floats as integers (``7.0`` is
    ``"7"``, as a file's ``7``; ``str`` made ``"7.0"``, which matched nothing and silently
    scored 0); a non-integral or non-finite float, None and ``pd.NA`` (which ``str`` made
    ``"None"`` and ``"<NA>"``) are refused: ValueError naming ``where``."""
    if all(type(x) is str for x in items):
        return items
    out: list[str] = []
    for x in items:
        if x is None or x is pd.NA:  # str() made the id "None" or "<NA>": a query of its own
            raise ValueError(f"{where}: a missing id ({x!r})")
        if isinstance(x, (bytes, bytearray)):
            try:
                out.append(bytes(x).decode("utf-8"))
            except UnicodeDecodeError:
                raise ValueError(f"{where}: id {x!r} is not UTF-8 text") from None
        elif isinstance(x, (float, np.floating)):
            if not (math.isfinite(x) and float(x).is_integer()):
                raise ValueError(f"{where}: id {x!r} must be text or an integer (floats only "
                                 "when integral)")
            out.append(str(int(x)))
        else:
            out.append(str(x))
    return out


def from_mapping(src: Mapping, kind: str, where: str | None = None) -> pa.Table:
    """A table from the nested ``{qid: {docid: value}}`` layout of pytrec_eval and ranx."""
    where = where or f"{kind} dict"
    keys = list(src.keys())
    check_string_ids(keys, f"{where} query ids")  # none missing; 1 and "1" refused
    names = _text_ids(keys, f"{where} query ids")
    if len(set(names)) < len(names):  # "7" and 7.0
        seen: dict[str, Any] = {}
        for q, qs in zip(keys, names, strict=True):
            if seen.setdefault(qs, q) is not q:
                raise ValueError(f"{where} query ids: {seen[qs]!r} and {q!r} would both become "
                                 f"the id {qs!r}; give ids of one type")
    qids: list[str] = []
    docs: list[Any] = []
    vals: list[Any] = []
    for q, qs in zip(keys, names, strict=True):
        inner = src[q]
        if not isinstance(inner, Mapping):
            raise TypeError(
                f"{where} must map query id -> {{docid: {VALUE_NAME[kind]}}}; query {q!r} "
                f"maps to {type(inner).__name__}"
            )
        for d, v in inner.items():
            if d is None or d is pd.NA or (isinstance(d, float) and math.isnan(d)):
                raise ValueError(f"{where}: query {q!r} has a missing document id ({d!r})")
            qids.append(qs)
            docs.append(d)
            vals.append(v)
    if not qids:
        raise ValueError(f"{where} holds no (query, document) entries")
    values = _value_array(vals, kind, where)
    return pa.table({"qid": pa.array(qids, pa.string()),
                     "docid": pa.array(_text_ids(docs, f"{where} document ids"), pa.string()),
                     VALUE_NAME[kind]: pa.array(values, pa.float64())})


#: ir_measures' namedtuple fields for qrels (Qrel) and runs (ScoredDoc)
_TUPLE_FIELDS = {"qrels": ("query_id", "doc_id", "relevance"),
                 "run": ("query_id", "doc_id", "score")}


def from_records(items: Any, kind: str) -> pa.Table:
    """A table from an iterable of ir_measures namedtuples (``Qrel(query_id, doc_id, relevance,
    iteration)`` or ``ScoredDoc(query_id, doc_id, score)``), or of objects with those
    attributes."""
    qf, df_, vf = _TUPLE_FIELDS[kind]
    qids: list[str] = []
    docs: list[str] = []
    vals: list[Any] = []
    name = "Qrel" if kind == "qrels" else "ScoredDoc"
    for i, rec in enumerate(items):
        try:
            q, d, v = getattr(rec, qf), getattr(rec, df_), getattr(rec, vf)
        except AttributeError:
            raise TypeError(
                f"{kind} item {i} ({type(rec).__name__}) lacks the fields {qf}, {df_}, {vf} of "
                f"ir_measures' {name}"
            ) from None
        qids.append(q)
        docs.append(d)
        vals.append(v)
    if not qids:
        raise ValueError(f"{kind} iterable holds no {name} items")
    values = _value_array(vals, kind, f"{kind} {name} items")
    q_text = _text_ids(qids, f"{kind} {name} items, {qf}")
    d_text = _text_ids(docs, f"{kind} {name} items, {df_}")
    return pa.table({"qid": pa.array(q_text, pa.string()), "docid": pa.array(d_text, pa.string()),
                     VALUE_NAME[kind]: pa.array(values, pa.float64())})


def _module(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def to_table(src: Any, kind: str, *, threads: int | None = None) -> pa.Table:
    """Any accepted source as a (qid, docid, label|score) arrow table.

    Accepted: a path (TREC text, JSON, parquet, CSV, TSV; compressed or not), a pandas or polars
    DataFrame, an arrow table, a nested dict ``{qid: {docid: value}}``, a ranx ``Qrels``/``Run``
    and an iterable of ir_measures ``Qrel``/``ScoredDoc`` namedtuples.
    """
    if isinstance(src, (str, os.PathLike)):
        return read_file(src, kind, threads=threads)
    if isinstance(src, pd.DataFrame):
        return from_frame(src, kind)
    if isinstance(src, pa.Table):
        return from_arrow(src, kind)
    if isinstance(src, Mapping):
        return from_mapping(src, kind)
    module = _module(src)
    if module == "polars" and hasattr(src, "to_arrow"):
        return from_arrow(src.to_arrow(), kind, f"{kind} polars DataFrame")
    if module == "ranx" and hasattr(src, "to_dict"):
        return from_mapping(src.to_dict(), kind, f"{kind} ranx {type(src).__name__}")
    if not isinstance(src, (bytes, bytearray, np.ndarray)) and hasattr(src, "__iter__"):
        return from_records(src, kind)
    raise TypeError(
        f"{kind} must be a file path, a pandas or polars DataFrame, a dict {{qid: {{docid: "
        f"{VALUE_NAME[kind]}}}}}, a ranx {'Qrels' if kind == 'qrels' else 'Run'} or ir_measures "
        f"{'Qrel' if kind == 'qrels' else 'ScoredDoc'} items; got {type(src).__name__}"
    )


def to_frame(tb: pa.Table) -> pd.DataFrame:
    """The arrow table as a DataFrame with str ids and float64 values."""
    df = tb.to_pandas()
    for c in ("qid", "docid"):
        if df[c].dtype == object:
            df[c] = df[c].astype(str)
    return df


# ----------------------------------------------------------------------------- writing
def _integral_text(values: np.ndarray) -> pa.Array:
    """Finite integral floats as decimal integer text, exactly: through int64 while they fit
    (|v| < 2**63; a wider one would wrap), else through Python ints."""
    if values.size == 0 or float(np.abs(values).max()) < 2.0**63:
        return pa.array(values.astype(np.int64).astype(str), pa.string())
    return pa.array([str(int(v)) for v in values.tolist()], pa.string())


def _ids_from_values(values: Any, what: str, n: int | None = None) -> pa.Array:
    """Query or document ids from an array-like as arrow strings (integers as decimal text)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        values = values.to_numpy(zero_copy_only=False)
    refuse_masked(values, what)
    arr = np.asarray(values)
    if isinstance(values, (list, tuple)) and arr.dtype.kind in "USf" \
            and len(set(map(type, values))) > 1:
        arr = np.asarray(values, dtype=object)  # numpy made [1, "1"] two "1", [7, 7.5] floats
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional; got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{what} has {arr.shape[0]} entries; expected {n} (one per row)")
    if arr.dtype.kind == "b":
        raise TypeError(f"{what} must hold text or integers; got booleans")
    if arr.dtype.kind in "iu":
        return pa.array(arr.astype(str), pa.string())
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{what} must hold text or integers; got non-integral or "
                             "non-finite floats")
        return _integral_text(arr)
    if arr.dtype.kind in "OUS":
        items = arr.tolist()
        for i, v in enumerate(items):
            if v is None or (isinstance(v, float) and not math.isfinite(v)) or v is pd.NA:
                raise ValueError(f"{what} entry {i} is missing ({v!r})")
        if what == "qid":  # 1 and "1" would both become the query "1"
            check_string_ids(items, what)
        # the rule of DataFrames and dicts: a Python float 7.0 is "7" (str made "7.0")
        return pa.array(_text_ids(items, what), pa.string())
    raise TypeError(f"{what} must hold text or integers; got dtype {arr.dtype}")


def from_arrays(qid: Any, value: Any, docno: Any = None, *, kind: str) -> pa.Table:
    """A (qid, docid, label|score) table from per-row arrays; docnos ``d0, d1, ...`` (the row
    number) when ``docno`` is None."""
    vname = VALUE_NAME[kind]
    # run: the core's score rule (numpy's own cast would parse strings); qrels: real numbers
    # (complex, date, record and masked arrays refused before numpy's cast reads them)
    values = _value_array(value, kind, kind)
    if values.ndim != 1:
        raise ValueError(f"{vname} must be one-dimensional; got shape {values.shape}")
    n = values.shape[0]
    if n == 0:
        raise ValueError(f"{vname} is empty; a {kind} needs at least one row")
    q = _ids_from_values(qid, "qid", n)
    if docno is None:
        d = pa.array(np.char.add("d", np.arange(n).astype(str)), pa.string())
    else:
        d = _ids_from_values(docno, "docno", n)
    return pa.table({"qid": q, "docid": d, vname: pa.array(values, pa.float64())})


def writing_format(path: str | os.PathLike) -> tuple[str, str | None]:
    """(format, compression) that :func:`write_table` uses for ``path``, from its extension."""
    name = Path(path).name.lower()
    comp = None
    for suffix, c in _COMPRESSION.items():
        if name.endswith(suffix):
            name, comp = name[: -len(suffix)], c
    fmt = EXTENSIONS.get(os.path.splitext(name)[1], "trec")
    if fmt == "parquet" and comp is not None:
        raise ValueError(f"{path}: parquet files compress their own columns; drop the "
                         f"{Path(path).suffix} suffix")
    return fmt, comp


def _check_trec_ids(col: pa.Array, what: str, first: bool) -> None:
    """Ids that TREC text holds and reads back as they are: no whitespace (the readers split
    on ASCII whitespace, vertical tab and form feed included), none empty; in the first column
    (``first``) none starts a comment."""
    bad = pc.match_substring_regex(col, r"[\s\x0b]")
    if pc.any(bad).as_py():
        v = col.filter(bad)[0].as_py()
        raise ValueError(f"{what} {v!r} contains whitespace, which TREC text cannot hold "
                         "(write parquet, JSON, CSV or TSV instead)")
    if pc.min(pc.binary_length(col)).as_py() == 0:
        raise ValueError(f"{what} contains an empty id, which TREC text cannot hold")
    if first and pc.any(pc.starts_with(col, "#")).as_py():
        raise ValueError(f"{what} starts with '#', which TREC readers take for a comment line")


def _check_first_id(first: str) -> None:
    """The file's first field must not begin as another format does (the readers sniff:
    :func:`detect_format`; a written file ends with a newline, so never as parquet)."""
    head = first.encode("utf-8", "surrogateescape")
    if head.startswith(_BOM):
        raise ValueError(f"query id {first!r} starts with a byte-order mark (U+FEFF), which "
                         "readers drop at the start of a file (write parquet, JSON, CSV or "
                         "TSV instead)")
    magic = "JSON" if _JSON_START.match(head) else "bzip2" if _BZIP2.match(head) else None
    if magic is not None:
        raise ValueError(f"query id {first!r} would start the file as {magic} does, and readers "
                         "would take it for that format (write parquet, JSON, CSV or TSV "
                         "instead)")


def _trec_table(tb: pa.Table, kind: str, tag: str, iteration: str) -> pa.Table:
    _check_trec_ids(tb.column("qid").combine_chunks(), "query id", True)
    _check_trec_ids(tb.column("docid").combine_chunks(), "document id", False)
    for name, v in (("tag", tag), ("iteration", iteration)):
        if not isinstance(v, str) or not v or any(ch.isspace() for ch in v):
            raise ValueError(f"{name} must be a non-empty str without whitespace; got {v!r}")
    n = tb.num_rows
    if kind == "qrels":
        if n:
            _check_first_id(tb.column("qid")[0].as_py())
        labels = tb.column("label").to_numpy()
        # integers as integers while exact (past 2**53 an int64 cast would invent digits)
        integral = bool(np.all((labels == np.round(labels)) & (np.abs(labels) < 2.0**53)))
        label_col = pa.array(labels.astype(np.int64)) if integral else pa.array(labels)
        return pa.table({"q": tb.column("qid"), "i": pa.repeat(iteration, n),
                         "d": tb.column("docid"), "l": label_col})
    # trec_eval order: query, score descending, docno descending; rank 1.. within the query
    order = pc.sort_indices(tb, sort_keys=[("qid", "ascending"), ("score", "descending"),
                                           ("docid", "descending")])
    tb = tb.take(order)
    qid = tb.column("qid").combine_chunks()
    if n:
        _check_first_id(qid[0].as_py())
    start = np.ones(n, dtype=bool)
    if n > 1:
        start[1:] = pc.not_equal(qid[1:], qid[:-1]).to_numpy(zero_copy_only=False)
    idx = np.arange(n)
    rank = idx - np.maximum.accumulate(np.where(start, idx, 0)) + 1
    return pa.table({"q": qid, "z": pa.repeat("Q0", n), "d": tb.column("docid"),
                     "r": pa.array(rank), "s": tb.column("score"), "t": pa.repeat(tag, n)})


def _open_write(p: Path, comp: str | None) -> IO[bytes]:
    if comp == "gzip":
        return cast(IO[bytes], gzip.open(p, "wb"))
    if comp == "bzip2":
        return bz2.open(p, "wb")
    if comp == "xz":
        return lzma.open(p, "wb")
    return open(p, "wb")


def write_table(path: str | os.PathLike, tb: pa.Table, kind: str, *, tag: str = "rankmetrics",
                iteration: str = "0") -> Path:
    """Write a (qid, docid, label|score) table in the format of ``path``'s extension.

    TREC text for unknown extensions (runs sorted by query, score descending and docno
    descending, with ranks 1, 2, ... per query; qrels in input order), ``.json``
    ``{qid: {docid: value}}``, ``.parquet``, ``.csv``/``.tsv`` with a header ``qid, docid,
    label|score``; ``.gz``/``.bz2``/``.xz`` compress text formats. Scores are written in their
    shortest round-trip form, so reading the file back gives the same floats.
    """
    p = Path(path)
    fmt, comp = writing_format(p)
    vname = VALUE_NAME[kind]
    if fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(tb, p)
        return p
    # errors (ids TREC text cannot hold, a bad tag) before opening, which truncates the file
    text = _json_text(tb, kind, vname) if fmt == "json" else b""
    trec = _trec_table(tb, kind, tag, iteration) if fmt == "trec" else None
    with _open_write(p, comp) as f:
        if fmt == "json":
            f.write(text)
        elif fmt in ("csv", "tsv"):
            pa_csv.write_csv(tb, f, pa_csv.WriteOptions(delimiter="," if fmt == "csv" else "\t"))
        else:
            assert trec is not None
            _write_trec(trec, f)
    return p


def _write_trec(tb: pa.Table, f: IO[bytes]) -> None:
    quoted = any(pc.any(pc.match_substring(tb.column(c), '"')).as_py()
                 for c in tb.column_names if pa.types.is_string(tb.column(c).type))
    if not quoted:  # pyarrow's writer refuses quote characters when quoting is off
        pa_csv.write_csv(tb, f, pa_csv.WriteOptions(include_header=False, delimiter=" ",
                                                    quoting_style="none"))
        return
    cols = [c.to_pylist() for c in tb.columns]
    for start in range(0, tb.num_rows, 100_000):
        rows = zip(*(c[start:start + 100_000] for c in cols), strict=True)
        f.write("".join(" ".join(map(_text, row)) + "\n" for row in rows).encode("utf-8"))


def _text(v: Any) -> str:
    return repr(v) if isinstance(v, float) else str(v)
