"""Read the code blocks of README.md and docs/**/*.md and run them as a user would.

Shared by ``tests/test_docs_blocks.py`` (every Python block, every ``rankmetrics`` command, every
``pip install`` line) and ``integrations/test_docs_commands.py`` (the ``python examples/...`` and
``python benchmarks/... --quick`` commands, which train models and take longer). Python blocks
run with one OpenMP/BLAS/torch thread: the docs' data are small.

Rules the docs follow (and these tests enforce):

- ```` ```python ```` blocks of one file run top to bottom in one namespace; a block with ``>>>``
  prompts is a doctest (its printed output is checked, ``+ELLIPSIS`` and
  ``+NORMALIZE_WHITESPACE`` on), any other block is executed. Deprecation warnings are errors.
- ```` ```bash ```` blocks hold only ``pip install ...``, ``python examples/X.py ...``,
  ``python benchmarks/X.py ...``, ``rankmetrics ...`` and (README only) the CI test command;
  ``&&`` chains and ``\\`` continuations are allowed, ``#`` starts a comment.
- A ```` ```text ```` block right after a bash block is the printed output of that block's last
  ``rankmetrics`` command; it must match (``...`` on a line of its own stands for any lines).
- Everything runs in a scratch copy of the repository's ``examples/`` (sample data in
  ``examples/data``) and ``benchmarks/``, beside a link to ``../shared``, so output files land
  there and never in the checkout.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import shutil
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,})(?P<info>[^`]*)$")


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def doc_files() -> list[Path]:
    """README.md and every Markdown page of the documentation site."""
    docs = ROOT / "docs"
    pages = sorted(p for p in docs.rglob("*.md")
                   if not {"_build", "generated"} & set(p.relative_to(docs).parts))
    return [ROOT / "README.md", *pages]


def blocks(path: Path) -> list[Block]:
    """Fenced code blocks of a Markdown file, in order (MyST directives ``{...}`` skipped)."""
    out: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m["fence"], m["info"].strip(), i
        body: list[str] = []
        i += 1
        while i < len(lines) and not re.match(rf"^ {{0,3}}{fence}`*\s*$", lines[i]):
            body.append(lines[i])
            i += 1
        i += 1
        lang = info.split()[0] if info else ""
        if not lang.startswith("{"):
            out.append(Block(path, start + 1, lang, "\n".join(body) + "\n"))
    return out


# -- bash ---------------------------------------------------------------------------------------

def commands(block: Block) -> list[list[str]]:
    """The commands of a bash block: continuations joined, comments dropped, split at ``&&``."""
    text = re.sub(r"\\\n", " ", block.text)
    out: list[list[str]] = []
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        cmd: list[str] = []
        for w in words:
            if w == "&&":
                if cmd:
                    out.append(cmd)
                cmd = []
            else:
                cmd.append(w)
        if cmd:
            out.append(cmd)
    return out


def kind(cmd: list[str]) -> str:
    """pip | example | benchmark | cli | ci (a word of the CI test command) | unknown."""
    if cmd[:1] == ["pip"] and cmd[1:2] == ["install"]:
        return "pip"
    if cmd[:4] == ["python", "-m", "pip", "install"]:
        return "pip"
    if cmd[:1] == ["rankmetrics"]:
        return "cli"
    if cmd[:1] == ["python"] and len(cmd) > 1:
        if cmd[1].startswith("examples/") and cmd[1].endswith(".py"):
            return "example"
        if cmd[1].startswith("benchmarks/") and cmd[1].endswith(".py"):
            return "benchmark"
        if cmd[1:3] in (["-m", "ruff"], ["-m", "mypy"], ["-m", "pytest"], ["-m", "sphinx"]):
            return "ci"
    return "unknown"


def ci_command() -> str:
    """The test command of ``.ci/run`` (its last line)."""
    lines = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    return lines[-1].strip()


def extras() -> set[str]:
    """Names of the extras in pyproject.toml's [project.optional-dependencies] table."""
    text = (ROOT / "pyproject.toml").read_text()
    table = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return set(re.findall(r"^([A-Za-z0-9_.-]+)\s*=", table, flags=re.MULTILINE))


def pip_extras(cmd: list[str]) -> list[str]:
    """The extras a pip command names for this project (``.[dev]``, ``rankmetrics[torch]``)."""
    named: list[str] = []
    for w in cmd:
        m = re.fullmatch(r"(?:\.|rankmetrics)\[([^\]]*)\]", w)
        if m:
            named += [e.strip() for e in m[1].split(",")]
    return named


def output_block(path_blocks: list[Block], i: int) -> Block | None:
    """The ``text`` block right after block ``i``, if any."""
    if i + 1 < len(path_blocks) and path_blocks[i + 1].lang == "text":
        nxt = path_blocks[i + 1]
        lines_between = nxt.line - path_blocks[i].line - path_blocks[i].text.count("\n") - 2
        if lines_between <= 1:
            return nxt
    return None


def output_matches(expected: str, got: str) -> bool:
    """Line-wise comparison, runs of blanks (spaces, tabs) equal; a line ``...`` matches any
    lines."""
    def norm(line: str) -> str:
        return " ".join(line.split())

    pattern = "\n".join(".*?" if ln.strip() == "..." else re.escape(norm(ln))
                        for ln in expected.strip("\n").splitlines())
    got = "\n".join(norm(ln) for ln in got.strip("\n").splitlines())
    return re.fullmatch(pattern, got, flags=re.DOTALL) is not None


# -- the scratch copy ---------------------------------------------------------------------------

def scratch(tmp: Path) -> Path:
    """``tmp/repo`` with copies of examples/ and benchmarks/ and ``tmp/shared`` -> ../shared."""
    repo = tmp / "repo"
    repo.mkdir()
    for name in ("examples", "benchmarks"):
        shutil.copytree(ROOT / name, repo / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shared = ROOT.parent / "shared"
    if shared.exists():
        (tmp / "shared").symlink_to(shared.resolve(), target_is_directory=True)
    return repo


@contextlib.contextmanager
def chdir(path: Path):
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_cli(cmd: list[str]) -> tuple[int, str, str]:
    """``rankmetrics ARGS`` through :func:`rankmetrics.cli.main` in this process."""
    from rankmetrics.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(cmd[1:])
        except SystemExit as exc:  # --help / --version / usage errors
            code = exc.code if isinstance(exc.code, int) else 1
    return int(code or 0), out.getvalue(), err.getvalue()


def run_python_file(path: Path, file_blocks: list[Block]) -> None:
    """Run the Python blocks of one file, top to bottom, in one namespace."""
    ns: dict = {"__name__": "__docs__"}
    try:
        import sklearn
    except ImportError:  # pragma: no cover - depends on the environment
        sklearn = None
    config = sklearn.get_config() if sklearn is not None else None
    # One thread for OpenMP/BLAS (LightGBM, scikit-learn's histogram GBMs) and torch: the
    # docs' data are small, and idle OpenMP threads spinning on a shared 2-core runner cost
    # many times the work. threadpoolctl only reaches libraries already loaded, hence imports.
    for module in ("sklearn.ensemble", "lightgbm", "torch"):
        with contextlib.suppress(ImportError):
            __import__(module)
    torch = sys.modules.get("torch")
    torch_threads = torch.get_num_threads() if torch is not None else None
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - comes with scikit-learn
        limits: Any = contextlib.nullcontext()
    else:
        limits = threadpool_limits(limits=1)
    try:
        if torch is not None:
            torch.set_num_threads(1)
        with limits:
            _run_blocks(path, file_blocks, ns)
    finally:
        if torch is not None and torch_threads is not None:
            torch.set_num_threads(torch_threads)
        # a page may switch on scikit-learn's metadata routing; leave no global state
        if sklearn is not None and config is not None:
            sklearn.set_config(**config)


def _run_blocks(path: Path, file_blocks: list[Block], ns: dict) -> None:
    finder = doctest.DocTestParser()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for b in file_blocks:
        if b.lang != "python":
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            warnings.simplefilter("error", FutureWarning)
            if ">>>" in b.text:
                test = finder.get_doctest(b.text, ns, b.where, str(path), b.line)
                runner = doctest.DocTestRunner(optionflags=flags)
                report = io.StringIO()
                runner.run(test, out=report.write, clear_globs=False)
                ns.update(test.globs)
                if runner.failures:
                    raise AssertionError(f"{b.where}: doctest failed\n{report.getvalue()}")
            else:
                code = compile(b.text, b.where, "exec")
                try:
                    exec(code, ns)
                except Exception as exc:
                    raise AssertionError(f"{b.where}: {type(exc).__name__}: {exc}") from exc


def python_env() -> dict[str, str]:
    env = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def python_exe() -> str:
    return sys.executable


def doc_commands(kinds: tuple[str, ...]) -> list[tuple[str, list[str], str | None]]:
    """(where, command, expected output) for every bash command of the given kinds in the docs.

    The expected output is the ``text`` block after the bash block, for its last command.
    """
    out: list[tuple[str, list[str], str | None]] = []
    for path in doc_files():
        file_blocks = blocks(path)
        for i, b in enumerate(file_blocks):
            if b.lang != "bash":
                continue
            cmds = commands(b)
            expected = output_block(file_blocks, i)
            for j, c in enumerate(cmds):
                if kind(c) in kinds:
                    text = expected.text if expected is not None and j == len(cmds) - 1 else None
                    out.append((b.where, c, text))
    return out
