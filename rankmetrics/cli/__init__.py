"""Command-line interface: ``rankmetrics eval|plot|compare ...``.

Sub-commands live in their own modules, each exposing ``add_parser(subparsers)`` that registers
a parser whose ``func(args) -> int`` runs the command.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import Any

_COMMANDS = (
    ("rankmetrics.cli.eval", "add_parser"),
    ("rankmetrics.cli.analysis", "add_parsers"),
)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every available sub-command registered."""
    import importlib

    parser = argparse.ArgumentParser(
        prog="rankmetrics", description="Exact tie-aware ranking evaluation."
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"rankmetrics {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module, attr in _COMMANDS:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        getattr(mod, attr)(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit status (0 ok, 1 evaluation error, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    def show(message: Any, category: type[Warning], *_: Any, **__: Any) -> None:
        # a warning in the command's words, as its errors: the library's file and source
        # line that Python's format adds mean nothing on a command line
        print(f"rankmetrics {args.command}: warning: {message}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        try:
            return int(args.func(args))
        except (ValueError, TypeError, OSError, ImportError) as exc:
            print(f"rankmetrics {args.command}: error: {exc}", file=sys.stderr)
            return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
