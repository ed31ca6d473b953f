#!/usr/bin/env bash
# The CUDA backend and the Dask scaling on a machine with an NVIDIA GPU, in one run:
# installs hyst with the gpu extra (numba-cuda and the CUDA 12 compiler and runtime from
# the package index; the machine needs an NVIDIA driver) into a virtual environment of its
# own, compiles the CPU kernels into numba's cache, then runs benchmarks/gpu_check.py.
#
#     bash benchmarks/gpu_check.sh [--quick] [--workers 1 2 4 8 16] [--json out.json]
#
# HYST_GPU_VENV picks the environment (default .venv-gpu); one where hyst and numba-cuda
# already import is used as it is (no network needed then).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${HYST_GPU_VENV:-.venv-gpu}"
t0=$(date +%s)
if ! "$VENV/bin/python" -c "import hyst, numba.cuda, distributed" 2>/dev/null; then
    echo "gpu_check: installing hyst[gpu] into $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q -e ".[gpu]"
fi
echo "gpu_check: environment ready in $(( $(date +%s) - t0 )) s; compiling the CPU kernels" >&2
"$VENV/bin/hyst" compile
PATH="$VENV/bin:$PATH" "$VENV/bin/python" benchmarks/gpu_check.py "$@"
echo "gpu_check: all done in $(( $(date +%s) - t0 )) s" >&2
