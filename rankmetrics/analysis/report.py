"""Reports of comparisons in the layout of Järvelin & Kekäläinen (2002) Table 1.

One table model (:class:`ReportTable`, built by :func:`report_table` from the
:class:`~rankmetrics.analysis.stats.Comparison` objects of one set of systems) and five
renderers: plain text (:func:`rankmetrics.stats.significance_table`), Markdown, LaTeX
(booktabs), CSV (one row per metric, pair and test) and JSON. Every format carries the same
content: per-system means, pairwise differences ``B - A`` with their relative difference and
one marker per test that found them significant, a legend naming every test with its level,
correction and (for the resampling tests) number of permutations/resamples and seed, the omnibus
tests, and which queries were compared or dropped. ranx's ``Report`` is the model for the
formats; the layout and the relative differences are JK 2002's.
"""

from __future__ import annotations

import csv
import io
import json
import math
import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .stats import Comparison

__all__ = ["FORMATS", "ReportRow", "ReportTable", "render_report", "report_table"]

FORMATS = ("text", "markdown", "latex", "csv", "json")
SYMBOLS = ("*", "#", "+", "$", "%", "&")
_RELATIVE_NOTE = ("(+x.x%) = relative difference (B - A) / A; Sparck Jones (1974) via JK 2002: "
                  "|x| < 5% marginal, 5-10% noticeable, > 10% essential")


#: the most decimals shown (float64 holds about 17 significant digits)
MAX_DIGITS = 17
#: the most times a marker is repeated (JK 2002 use 2)
MAX_REPEAT = 10


def check_digits(digits: Any) -> int:
    """Decimals of a printed number: an int in 0..:data:`MAX_DIGITS`, else TypeError or
    ValueError naming ``digits`` (Python's format engine fails with its own message)."""
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral):
        raise TypeError(f"digits must be an int >= 0; got {digits!r}")
    d = int(digits)
    if d < 0:
        raise ValueError(f"digits must be >= 0; got {d}")
    if d > MAX_DIGITS:
        raise ValueError(f"digits must be at most {MAX_DIGITS} (float64 holds about 17 "
                         f"significant digits); got {d}")
    return d


def _check_markers(symbols: Any, repeat: Any) -> None:
    """``repeat`` an int in 1..MAX_REPEAT; ``symbols`` non-empty, distinct strings."""
    if isinstance(repeat, bool) or not isinstance(repeat, numbers.Integral):
        raise TypeError(f"repeat must be a positive int; got {repeat!r}")
    if not 1 <= int(repeat) <= MAX_REPEAT:  # 0 would drop every marker silently
        raise ValueError(f"repeat must be between 1 and {MAX_REPEAT}; got {repeat}")
    if isinstance(symbols, np.ndarray) and symbols.ndim == 1:
        symbols = symbols.tolist()
    if isinstance(symbols, str) or not isinstance(symbols, Sequence):
        raise TypeError(f"symbols must be a sequence of strings (one marker per test); got "
                        f"{symbols!r}")
    for sym in symbols:
        if not isinstance(sym, str):
            raise TypeError(f"symbols must hold strings; got {sym!r}")
        if not sym:
            raise ValueError("symbols must be non-empty strings (an empty marker hides a "
                             "significant difference)")
    if len(set(symbols)) < len(symbols):
        twice = next(x for x in symbols if list(symbols).count(x) > 1)
        raise ValueError(f"symbols must be distinct; {twice!r} is given twice (two tests "
                         "would share a marker)")


@dataclass(frozen=True)
class ReportRow:
    """One metric: means, and per pair the difference, relative difference and markers."""

    metric: str
    means: tuple[float, ...]
    diffs: tuple[float, ...]
    rel_diffs: tuple[float, ...]
    marks: tuple[str, ...]


@dataclass(frozen=True)
class ReportTable:
    """The JK 2002 Table 1 model that every format renders.

    Attributes
    ----------
    systems : tuple of str
    pairs : tuple of (str, str)
        (A, B) in system order; the column shows ``B - A``.
    rows : tuple of ReportRow
    legend : tuple of str
        One line per test: marker, level, test, correction, draws.
    notes : tuple of str
        Omnibus results and the missing-query statement of every comparison.
    dropped : dict {metric: list of query ids}
        Queries left out by ``missing="intersect"``, per metric.
    comparisons : tuple of Comparison
    """

    systems: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    rows: tuple[ReportRow, ...]
    legend: tuple[str, ...]
    notes: tuple[str, ...]
    dropped: dict[str, list[Any]] = field(default_factory=dict)
    comparisons: tuple[Any, ...] = ()


def report_table(comparisons: Sequence[Comparison], *, symbols: Sequence[str] = SYMBOLS,
                 repeat: int = 1) -> ReportTable:
    """Build the table model from comparisons over the same systems.

    Parameters
    ----------
    comparisons : sequence of Comparison
        Several tests of one metric share a row (one marker each).
    symbols : sequence of str
        Marker per distinct test (and its settings), in order of first appearance.
    repeat : int, default 1
        Times each marker is repeated (JK 2002 print "**" for p < 0.01).

    Returns
    -------
    ReportTable

    Raises
    ------
    ValueError
        No comparisons, different systems, more tests than symbols, comparisons of one metric
        (or none given) over different scores, one test given twice for a metric, ``repeat``
        outside 1..10, or ``symbols`` with an empty or a repeated marker.
    TypeError
        ``comparisons`` not a sequence of Comparison objects, ``repeat`` not an int, or
        ``symbols`` not a sequence of strings.
    """
    from .stats import Comparison, _pairs

    if isinstance(comparisons, Comparison) or not isinstance(comparisons, Sequence):
        raise TypeError(f"comparisons must be a sequence (list) of Comparison objects (from "
                        f"rankmetrics.stats.compare); got {type(comparisons).__name__}")
    if not comparisons:
        raise ValueError("a report needs at least one Comparison")
    for i, c in enumerate(comparisons):
        if not isinstance(c, Comparison):
            raise TypeError(f"comparisons must hold Comparison objects (from "
                            f"rankmetrics.stats.compare); item {i} is {type(c).__name__}")
    _check_markers(symbols, repeat)
    systems = comparisons[0].systems
    if any(c.systems != systems for c in comparisons):
        raise ValueError("every comparison must be over the same systems in the same order")
    methods: list[str] = []
    legend: list[str] = []
    for c in comparisons:
        if c.method_statement() not in methods:
            methods.append(c.method_statement())
            legend.append(f"p < {c.alpha:g}: {c.method_statement(alpha=False)}")
    if len(methods) > len(symbols):
        raise ValueError(f"{len(methods)} tests but only {len(symbols)} marker symbols")
    mark = {m: symbols[i] * repeat for i, m in enumerate(methods)}
    by_metric: dict[str, list[Comparison]] = {}
    for c in comparisons:
        cs = by_metric.setdefault(c.metric or "score", [])
        if cs:  # a row holds one measure's scores and marks each test once
            name = c.metric or "score (no metric= given)"
            if not (np.array_equal(cs[0].queries, c.queries)
                    and np.array_equal(cs[0].scores, c.scores, equal_nan=True)):
                raise ValueError(
                    f"comparisons of {name} hold different per-query scores; they would share "
                    "one row (its means from the first, its markers from all): give each "
                    "compare() its own metric=")
            if any(x.method_statement() == c.method_statement() for x in cs):
                raise ValueError(f"the test {c.method_statement()!r} is given twice for {name}")
        cs.append(c)
    pairs = tuple((systems[a], systems[b]) for a, b in _pairs(len(systems)))
    rows = []
    for metric, cs in by_metric.items():
        first = cs[0]
        ps = [first.pair(a, b) for a, b in pairs]
        rows.append(ReportRow(
            metric, tuple(float(m) for m in first.means), tuple(p.mean_diff for p in ps),
            tuple(p.rel_diff for p in ps),
            tuple("".join(mark[c.method_statement()] for c in cs if c.pair(a, b).significant)
                  for a, b in pairs)))
    legend = [f"{mark[m]} = {x}" for m, x in zip(methods, legend, strict=True)]
    notes = []
    for c in comparisons:
        if c.omnibus is not None:
            o = c.omnibus
            notes.append(f"{c.metric or 'score'}: {o.name}({', '.join(f'{d:g}' for d in o.df)})"
                         f" = {o.statistic:.3f}, p = {_p(o.pvalue)}, {o.effect_name} = "
                         f"{o.effect_size:.3f}")
    notes.extend(dict.fromkeys(f"{c.metric or 'score'}: {c.missing_statement()}"
                               for c in comparisons))
    dropped = {m: cs[0].dropped_queries for m, cs in by_metric.items() if cs[0].dropped_queries}
    return ReportTable(tuple(systems), pairs, tuple(rows), tuple(legend), tuple(notes), dropped,
                       tuple(comparisons))


def _p(p: float) -> str:
    return f"{p:.3g}" if p >= 1e-4 else f"{p:.2e}"


def _pct(r: float) -> str:
    return "n/a" if math.isnan(r) else f"{r:+.1%}"


def _cells(t: ReportTable, digits: int, relative: bool) -> tuple[list[str], list[list[str]]]:
    check_digits(digits)
    header = ["", *t.systems, *(f"{b} - {a}" for a, b in t.pairs)]
    body = []
    for r in t.rows:
        cells = [r.metric, *(f"{m:.{digits}f}" for m in r.means)]
        for d, rel, mk in zip(r.diffs, r.rel_diffs, r.marks, strict=True):
            cells.append(f"{d:.{digits}f}{mk}" + (f" ({_pct(rel)})" if relative else ""))
        body.append(cells)
    return header, body


def _footer(t: ReportTable, relative: bool) -> list[str]:
    return [*t.legend, *([_RELATIVE_NOTE] if relative else []), *t.notes]


def render_text(t: ReportTable, *, digits: int = 3, relative: bool = True) -> str:
    """Aligned plain-text table, a blank line, then legend and notes."""
    header, body = _cells(t, digits, relative)
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = [" ".join(cell.rjust(w) if i else cell.ljust(w)
                      for i, (cell, w) in enumerate(zip(r, widths, strict=True))).rstrip()
             for r in [header, *body]]
    return "\n".join([*lines, "", *_footer(t, relative)])


def _md_escape(s: str) -> str:
    """Text as literal Markdown in a table cell or list item: emphasis, strikethrough, code,
    link and table markers escaped, an HTML tag or autolink start (``<`` before a letter,
    ``/``, ``!`` or ``?``) escaped, a line break made a space, and a leading heading or list
    marker escaped (a legend line "# = p < ..." would be a heading, "+ = ..." a nested list;
    run names "bm25~1" and "bm25~2" made GitHub strike through the text between them)."""
    out = " ".join(s.splitlines())
    for ch in ("\\", "*", "|", "_", "~", "`", "[", "]"):
        out = out.replace(ch, "\\" + ch)
    out = re.sub(r"<(?=[A-Za-z/!?])", r"\\<", out)
    if out[:1] in ("#", "+", "-"):
        out = "\\" + out
    return out


def render_markdown(t: ReportTable, *, digits: int = 3, relative: bool = True) -> str:
    """GitHub-flavoured Markdown table; legend and notes as a list below it."""
    header, body = _cells(t, digits, relative)
    lines = ["| " + " | ".join(_md_escape(h) for h in header) + " |",
             "|" + "|".join([":---", *(["---:"] * (len(header) - 1))]) + "|"]
    lines += ["| " + " | ".join(_md_escape(c) for c in r) + " |" for r in body]
    lines += ["", *(f"- {_md_escape(x)}" for x in _footer(t, relative))]
    return "\n".join(lines)


def _tex(s: str) -> str:
    """Text as literal LaTeX: special characters escaped, line breaks made spaces (a blank
    line is a paragraph break, which a tabular cell refuses)."""
    s = " ".join(s.splitlines())
    rep = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
           "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
           "^": r"\textasciicircum{}", "<": r"$<$", ">": r"$>$", "|": r"$|$"}
    return "".join(rep.get(ch, ch) for ch in s)


def render_latex(t: ReportTable, *, digits: int = 3, relative: bool = True) -> str:
    """A booktabs ``table`` with markers as superscripts; legend and notes in the caption."""
    check_digits(digits)
    ncol = 1 + len(t.systems) + len(t.pairs)
    lines = [r"\begin{table}", r"\centering",
             r"\begin{tabular}{l" + "r" * (ncol - 1) + "}", r"\toprule",
             " & ".join(["", *(_tex(s) for s in t.systems),
                         *(f"{_tex(b)} $-$ {_tex(a)}" for a, b in t.pairs)]) + r" \\",
             r"\midrule"]
    for r in t.rows:
        cells = [_tex(r.metric), *(f"{m:.{digits}f}" for m in r.means)]
        for d, rel, mk in zip(r.diffs, r.rel_diffs, r.marks, strict=True):
            cell = f"{d:.{digits}f}"
            if mk:
                cell += r"\textsuperscript{" + _tex(mk) + "}"
            if relative:
                cell += f" ({_tex(_pct(rel))})"
            cells.append(cell)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}",
              r"\caption{" + " ".join(_tex(x) + "." for x in _footer(t, relative)) + "}",
              r"\end{table}"]
    return "\n".join(lines)


def render_csv(t: ReportTable) -> str:
    """One row per metric, pair and test (long format), with every number unrounded; the
    omnibus test of a Friedman or ANOVA comparison on each of its rows (``omnibus``: its name,
    ``omnibus_df`` space-separated), empty for the other tests."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["metric", "test", "system_a", "system_b", "mean_a", "mean_b", "diff",
                "rel_diff", "sparck_jones", "statistic", "pvalue", "significant", "ci_low",
                "ci_high", "alpha", "correction", "n_resamples", "seed", "n_queries",
                "missing", "dropped_queries", "omnibus", "omnibus_df", "omnibus_statistic",
                "omnibus_pvalue", "omnibus_effect_name", "omnibus_effect_size"])
    for c in t.comparisons:
        o = c.omnibus
        omnibus = ["", "", "", "", "", ""] if o is None else [
            o.name, " ".join(f"{d:g}" for d in o.df), repr(o.statistic), repr(o.pvalue),
            o.effect_name, repr(o.effect_size)]
        for a, b in t.pairs:
            p = c.pair(a, b)
            w.writerow([c.metric or "score", c.test, a, b, repr(p.mean_a), repr(p.mean_b),
                        repr(p.mean_diff), repr(p.rel_diff), p.sparck_jones,
                        repr(p.statistic), repr(p.pvalue), p.significant, repr(p.ci_low),
                        repr(p.ci_high), c.alpha, c.correction,
                        "" if c.n_resamples is None else c.n_resamples,
                        "" if c.seed is None else c.seed, c.n_queries, c.missing,
                        " ".join(map(str, c.dropped_queries)), *omnibus])
    return buf.getvalue()


def _num(x: float) -> float | str | None:
    if math.isnan(x):
        return None
    return x if math.isfinite(x) else str(x)


def comparison_json(c: Comparison) -> dict[str, Any]:
    """One comparison as JSON-ready data (non-finite numbers as strings, NaN as null)."""
    return {
        "metric": c.metric,
        "test": c.test,
        "method": c.method_statement(),
        "alpha": c.alpha,
        "missing": c.missing,
        "missing_statement": c.missing_statement(),
        "dropped_queries": [str(q) for q in c.dropped_queries],
        "correction": c.correction,
        "n_resamples": c.n_resamples,
        "seed": c.seed,
        "exact": c.exact,
        "n_queries": c.n_queries,
        "systems": list(c.systems),
        "means": [float(m) for m in c.means],
        "omnibus": None if c.omnibus is None else {
            "name": c.omnibus.name, "statistic": _num(c.omnibus.statistic),
            "df": list(c.omnibus.df), "pvalue": _num(c.omnibus.pvalue),
            "effect_size": _num(c.omnibus.effect_size), "effect_name": c.omnibus.effect_name,
        },
        "pairwise": [{**{k: _num(v) if isinstance(v, float) else v
                         for k, v in p.__dict__.items()},
                      "rel_diff": _num(p.rel_diff), "sparck_jones": p.sparck_jones}
                     for p in c.pairwise],
    }


def render_json(t: ReportTable, *, digits: int = 3, relative: bool = True) -> str:
    """``{"table": {...}, "legend": [...], "notes": [...], "comparisons": [...]}``."""
    header, body = _cells(t, digits, relative)
    data = {
        "table": {"header": header, "rows": body},
        "legend": list(_footer(t, relative)[:len(t.legend)]),
        "notes": list(_footer(t, relative)[len(t.legend):]),
        "dropped_queries": {m: [str(q) for q in qs] for m, qs in t.dropped.items()},
        "comparisons": [comparison_json(c) for c in t.comparisons],
    }
    return json.dumps(data, indent=2)


def render_report(comparisons: Sequence[Comparison], format: str = "text", *, digits: int = 3,
                  relative: bool = True, symbols: Sequence[str] = SYMBOLS,
                  repeat: int = 1) -> str:
    """The JK 2002 Table 1 report of comparisons in one of :data:`FORMATS`.

    Parameters
    ----------
    comparisons : sequence of Comparison
        Over the same systems, e.g. from :func:`rankmetrics.stats.compare_runs`.
    format : {"text", "markdown", "latex", "csv", "json"}, default "text"
    digits : int, default 3
        Decimals of means and differences (CSV and the JSON comparisons are unrounded).
    relative : bool, default True
        Show the relative difference ``(B - A) / A`` next to every difference.
    symbols, repeat
        As in :func:`report_table`.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        Unknown format, ``digits`` below 0 or above 17, or as :func:`report_table`.
    TypeError
        ``digits`` not an int, ``relative`` not True or False, or as :func:`report_table`.

    Examples
    --------
    >>> from rankmetrics.stats import compare
    >>> c = compare({"A": [0.2, 0.4, 0.3, 0.5], "B": [0.3, 0.6, 0.4, 0.7]}, metric="nDCG@10")
    >>> print(render_report([c], "markdown").splitlines()[2])
    | nDCG@10 | 0.350 | 0.500 | 0.150\\* (+42.9%) |
    """
    from ..core.validation import check_choice, check_flag

    check_choice("format", format, FORMATS)
    check_digits(digits)
    check_flag("relative", relative)
    t = report_table(comparisons, symbols=symbols, repeat=repeat)
    if format == "text":
        return render_text(t, digits=digits, relative=relative)
    if format == "markdown":
        return render_markdown(t, digits=digits, relative=relative)
    if format == "latex":
        return render_latex(t, digits=digits, relative=relative)
    if format == "csv":
        return render_csv(t)
    return render_json(t, digits=digits, relative=relative)
