#!/usr/bin/env bash
# The checks that need a CUDA GPU, in one short run: the GPU part of bench_torch.py, then the
# torch test suite (its CUDA cases run when torch sees a GPU; tests/test_torch_fused.py runs the
# fused Triton kernel compiled), once more with the eager kernel forced.
#
#   bash benchmarks/gpu_checks.sh [OUTDIR [bench_torch.py options, e.g. --skip-flat]]
#   (from the repository root; CUDA torch installed)
#
# The numpy core is the reference the tests compare against (RANKMETRICS_KERNEL=numpy: no numba
# compile on the GPU machine). Logs go to OUTDIR (default $OUT, else ./gpu-checks).
set -u -o pipefail
out=${1:-${OUT:-gpu-checks}}
shift || true
mkdir -p "$out"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 RANKMETRICS_KERNEL=numpy
nvidia-smi -L
python3 -c "import sys, torch, numpy; print('python', sys.version.split()[0], 'torch', \
torch.__version__, 'numpy', numpy.__version__, 'cuda', torch.cuda.is_available())"
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'no CUDA device')" \
    || exit 1
echo "== bench_torch.py, GPU part"
python3 benchmarks/bench_torch.py --skip-cpu --repeat 21 --profile "$out/gpu_profile.txt" "$@" 2>&1 \
    | tee "$out/bench_torch_gpu.log"
tests="tests/test_torch_functional.py tests/test_torch_metric.py tests/test_torch_monitor.py \
    tests/test_torch_extras.py tests/test_torch_fused.py"
echo "== torch tests on CUDA, default kernel choice (the fused Triton kernel where it applies)"
python3 -m pytest -q -n 8 -p no:cacheprovider -rs $tests 2>&1 | tee "$out/torch_tests.log" \
    | tail -n 4
echo "== the same with the eager torch kernel forced (RANKMETRICS_TORCH_KERNEL=torch)"
RANKMETRICS_TORCH_KERNEL=torch python3 -m pytest -q -n 8 -p no:cacheprovider -rs \
    tests/test_torch_functional.py tests/test_torch_metric.py tests/test_torch_monitor.py 2>&1 \
    | tee "$out/torch_tests_eager.log" | tail -n 4
python3 -m pytest -p no:cacheprovider --collect-only -q $tests 2>/dev/null | grep -c "cuda" \
    | sed 's/^/test ids with a CUDA parameter: /'
