"""Every code block of README.md and docs/**/*.md runs as written (rules in tests/_docblocks.py).

Python blocks and ``rankmetrics`` commands run here (about 25 s of CPU in all);
``python examples/...`` and ``python benchmarks/... --quick`` commands are checked here (the
script exists, its options exist) and run by ``integrations/test_docs_commands.py``, because they
train models for tens of seconds each.
"""

from __future__ import annotations

import re

import pytest
from _docblocks import (
    ROOT,
    blocks,
    chdir,
    ci_command,
    commands,
    doc_files,
    extras,
    kind,
    output_block,
    output_matches,
    pip_extras,
    run_cli,
    run_python_file,
    scratch,
)
from _extras import require

FILES = doc_files()
PY_FILES = [p for p in FILES if any(b.lang == "python" for b in blocks(p))]
BASH_FILES = [p for p in FILES if any(b.lang == "bash" for b in blocks(p))]


def _id(p):
    return str(p.relative_to(ROOT))


def test_docs_exist_and_have_blocks():
    names = {_id(p) for p in FILES}
    assert {"README.md", "docs/index.md", "docs/guide/why-ties.md"} <= names
    assert len(PY_FILES) >= 4 and len(BASH_FILES) >= 3
    pages = {"README.md", "docs/guide/lightgbm.md", "docs/guide/sklearn.md"}
    assert pages <= set(map(_id, PY_FILES))


def test_only_known_block_languages():
    bad = [(b.where, b.lang) for p in FILES for b in blocks(p)
           if b.lang not in ("python", "bash", "text", "")]
    assert not bad, f"unknown code block languages: {bad}"
    untagged = [b.where for p in FILES for b in blocks(p) if b.lang == ""]
    # untagged blocks are only allowed for directory trees and file formats, never code
    for p in FILES:
        for b in blocks(p):
            if b.lang == "" and re.search(r"^\s*(>>>|import |from |rankmetrics |python )", b.text,
                                          re.MULTILINE):
                pytest.fail(f"{b.where}: code in an untagged block; tag it python/bash/text")
    assert isinstance(untagged, list)


@pytest.mark.parametrize("path", PY_FILES, ids=_id)
def test_python_blocks_run(path, tmp_path):
    require("pandas")
    require("matplotlib")
    require("scipy")
    require("lightgbm")
    require("sklearn")
    require("torch")
    repo = scratch(tmp_path)
    with chdir(repo):
        run_python_file(path, blocks(path))


@pytest.mark.parametrize("path", BASH_FILES, ids=_id)
def test_bash_blocks(path, tmp_path):
    require("pandas")
    require("matplotlib")
    require("scipy")
    file_blocks = blocks(path)
    repo = scratch(tmp_path)
    known = extras()
    ran = 0
    for i, b in enumerate(file_blocks):
        if b.lang != "bash":
            continue
        last_out = None
        for line in b.text.splitlines():
            if "python -m pytest" in line:
                assert line.strip() == ci_command(), (
                    f"{b.where}: the test command differs from .ci/run's:\n{line.strip()}\n"
                    f"{ci_command()}")
        for cmd in commands(b):
            k = kind(cmd)
            assert k != "unknown", f"{b.where}: command not allowed in docs: {' '.join(cmd)}"
            if k == "pip":
                named = pip_extras(cmd)
                missing = [e for e in named if e not in known]
                assert not missing, f"{b.where}: extras {missing} are not in pyproject.toml"
            elif k in ("example", "benchmark"):
                script = ROOT / cmd[1]
                assert script.is_file(), f"{b.where}: {cmd[1]} does not exist"
                source = script.read_text()
                for opt in cmd[2:]:
                    if opt.startswith("--"):
                        assert f'"{opt.split("=")[0]}"' in source, (
                            f"{b.where}: {cmd[1]} has no option {opt}")
            elif k == "cli":
                with chdir(repo):
                    code, out, err = run_cli(cmd)
                assert code == 0, f"{b.where}: {' '.join(cmd)} exited {code}:\n{err}"
                last_out = out
                ran += 1
        expected = output_block(file_blocks, i)
        cmds = commands(b)
        if expected is not None and kind(cmds[-1]) == "cli":
            assert last_out is not None, f"{expected.where}: output block after no command"
            assert output_matches(expected.text, last_out), (
                f"{expected.where}: printed output changed; regenerate the block from\n"
                f"{last_out}")
    if any(kind(c) == "cli" for b in file_blocks if b.lang == "bash" for c in commands(b)):
        assert ran > 0


def test_output_matching_rules():
    assert output_matches("a\n...\nd\n", "a\nb\nc\nd\n")
    assert output_matches("a  \nb\n", "a\nb")
    assert not output_matches("a\nb\n", "a\nc\n")
    assert not output_matches("a\n", "a\nb\n")


def test_ci_command_is_the_readme_command():
    readme = (ROOT / "README.md").read_text()
    assert ci_command() in readme.splitlines()
    assert "python -m sphinx -W --keep-going -b html docs docs/_build/html" in ci_command()


def test_commands_parser():
    from _docblocks import Block

    b = Block(ROOT / "README.md", 1, "bash",
              'pip install "rankmetrics[torch]"  # note\n'
              'rankmetrics eval a b \\\n    -m "nDCG(gains={1: 3})@10" && python examples/x.py\n')
    assert commands(b) == [["pip", "install", "rankmetrics[torch]"],
                           ["rankmetrics", "eval", "a", "b", "-m", "nDCG(gains={1: 3})@10"],
                           ["python", "examples/x.py"]]
    assert pip_extras(["pip", "install", "-e", ".[dev,docs]"]) == ["dev", "docs"]
    assert kind(["python", "examples/x.py"]) == "example"
    assert kind(["ls"]) == "unknown"
