#!/usr/bin/env bash
# install-deps.sh — install what midint needs to build and test on Debian: compiler, GMP, PoCL + OpenCL, Python.
# CUDA is optional and not installed here: with nvcc on the PATH the CUDA backend is built too.
set -euo pipefail
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
    build-essential make pkg-config libgmp-dev \
    pocl-opencl-icd ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-headers clinfo \
    python3 python3-dev python3-pip python3-venv >/dev/null
# Python packages for the generator and the tests: from PyPI, or Debian's when pip may not install
if ! python3 -c 'import jinja2, pytest, xdist' 2>/dev/null; then
    python3 -m pip install -q jinja2 pytest pytest-xdist 2>/dev/null ||
        $SUDO apt-get install -y -qq python3-jinja2 python3-pytest python3-pytest-xdist >/dev/null
fi
python3 -c 'import jinja2, pytest' || { echo "install-deps: jinja2/pytest still missing" >&2; exit 1; }
# the Python package (python/) and its tests: NumPy, hypothesis, dask.distributed for the multi-worker example
if ! python3 -c 'import numpy, hypothesis, dask.distributed' 2>/dev/null; then
    python3 -m pip install -q numpy hypothesis 'dask[distributed]' 2>/dev/null ||
        $SUDO apt-get install -y -qq python3-numpy python3-hypothesis python3-dask python3-distributed >/dev/null
fi
echo "install-deps: done"
