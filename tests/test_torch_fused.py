"""The fused Triton kernel (rankmetrics.torch._triton): the cases of ``fused_cases.py``.

On a CUDA device they run here, on the compiled kernel. Without one they run in a fresh process
under Triton's interpreter (``TRITON_INTERPRET=1`` must be set before triton is first imported,
and this process may already have imported it), so CI checks the kernel's code on CPU tensors.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from _extras import require

torch = require("torch")
require("triton")

if torch.cuda.is_available():
    from fused_cases import *  # noqa: F403 - the cases, on the compiled kernel
else:
    import pytest

    # the cases in two child processes, so that pytest-xdist's two workers share them (one
    # run took 195 s): a -k expression and its negation split the cases with none left out
    _FIRST = ("test_flat_input_and_every_option or test_fused_equals_core_on_random_padded_batches"
              " or test_many_cutoffs_in_one_call or test_kernel_checks_agree_with_the_host_checks"
              " or test_unchecked_padded_labels_of_every_dtype")

    @pytest.mark.parametrize("cases", [_FIRST, f"not ({_FIRST})"], ids=["first", "rest"])
    def test_fused_kernel_in_triton_interpreter(cases):
        here = Path(__file__).resolve().parent
        env = {**os.environ, "TRITON_INTERPRET": "1", "RANKMETRICS_TORCH_KERNEL": "auto"}
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
             "-rs", "-k", cases, str(here / "fused_cases.py")],
            cwd=here.parent, env=env, capture_output=True, text=True, timeout=1200,
        )
        report = run.stdout[-6000:] + run.stderr[-2000:]
        assert run.returncode == 0, report
        assert " passed" in run.stdout, report
        # torch and triton are imported above, so no case has a reason to skip there: a
        # skipped case (or one expected to fail) is a case not checked, a failure in CI and
        # outside it alike (the child's summary line names every outcome but "passed", and
        # "deselected" for the other part's cases)
        summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
        outcomes = {w.strip(",") for w in summary.split() if w.strip(",").isalpha()}
        assert outcomes <= {"passed", "deselected", "in", "warning", "warnings"}, (
            f"cases of fused_cases.py not all passed in the interpreter run:\n{report}")
