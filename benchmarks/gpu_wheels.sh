#!/usr/bin/env bash
# Wheels of the packages hyst needs beyond those of a GPU image that already holds numpy,
# numba, numba-cuda, the CUDA toolkit, scipy, xarray, matplotlib, networkx and pyyaml
# (Python 3.12, x86-64 Linux): downloaded here, into .whl/, for a GPU machine that cannot
# reach the package index. benchmarks/gpu_check.sh installs them from there (no network).
#
#     bash benchmarks/gpu_wheels.sh [python version, default 3.12]
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-3.12}"
mkdir -p .whl
platforms=()
for n in 17 24 27 28 31 34; do platforms+=(--platform "manylinux_2_${n}_x86_64"); done
platforms+=(--platform manylinux2014_x86_64 --platform manylinux1_x86_64)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$version" \
    --implementation cp "${platforms[@]}" -d .whl \
    cftime==1.6.* dask==2026.8.0 distributed==2026.8.0 grimp==3.* importlib_metadata \
    lazy-importer jsonschema==4.* jsonschema-specifications referencing rpds-py locket \
    "netCDF4==1.7.*" partd tblib tornado zict
du -sh .whl
