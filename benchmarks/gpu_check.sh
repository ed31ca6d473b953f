#!/usr/bin/env bash
# The CUDA backend and the Dask scaling on a machine with an NVIDIA GPU, in one run:
# makes sure hyst's dependencies import, compiles the CPU kernels into numba's cache, then
# runs benchmarks/gpu_check.py (about five minutes on 16 cores and one GPU).
#
#     bash benchmarks/gpu_check.sh [--quick] [--workers 1 2 4 8 16] [--json out.json]
#
# Where the dependencies come from, first that applies:
# - wheels in .whl/ (benchmarks/gpu_wheels.sh downloads them elsewhere, for a machine that
#   cannot reach the package index): installed into /tmp/hyst-site, no network;
# - the Python in $PYTHON (default python3) if hyst's dependencies already import there;
# - otherwise a virtual environment (.venv-gpu) with hyst[gpu] from the package index
#   (numba-cuda and the CUDA 12 compiler and runtime; the machine needs an NVIDIA driver).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PY="${PYTHON:-python3}"
t0=$(date +%s)
if compgen -G ".whl/*.whl" >/dev/null; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/hyst-site .whl/*.whl
    export PYTHONPATH="/tmp/hyst-site${PYTHONPATH:+:$PYTHONPATH}"
fi
check="import numba.cuda, distributed, netCDF4, jsonschema, grimp, xarray, yaml"
if ! "$PY" -c "$check" 2>/dev/null; then
    VENV="${HYST_GPU_VENV:-.venv-gpu}"
    if ! "$VENV/bin/python" -c "$check" 2>/dev/null; then
        echo "gpu_check: installing hyst[gpu] into $VENV" >&2
        python3 -m venv "$VENV"
        "$VENV/bin/python" -m pip install -q --upgrade pip
        "$VENV/bin/python" -m pip install -q -e ".[gpu]"
    fi
    PY="$VENV/bin/python"
fi
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
echo "gpu_check: environment ready in $(( $(date +%s) - t0 )) s ($PY); compiling the CPU kernels" >&2
"$PY" -m hyst compile
"$PY" benchmarks/gpu_check.py "$@"
echo "gpu_check: all done in $(( $(date +%s) - t0 )) s" >&2
