#!/usr/bin/env bash
# install-subgroup-opencl.sh — install an OpenCL implementation with sub-groups (Intel's CPU runtime, from PyPI)
# into DIR, apart from the system's ICDs, and print the path of its ICD library for MIDINT_TEST_SUBGROUP_ICD.
# PoCL from Debian 12 has no sub-groups, so without this the sub-group spelling of the warp primitives
# (tests/test_opencl_warps.py) would go untested on machines without a GPU.
set -euo pipefail
dir=${1:?usage: tools/install-subgroup-opencl.sh DIR}
if [ ! -e "$dir/lib/libintelocl.so" ]; then
    python3 -m pip install -q --disable-pip-version-check --no-warn-script-location --prefix "$dir" \
        'intel-opencl-rt==2026.2.0' 'intel-cmplr-lib-rt==2026.2.0' >&2
fi
test -e "$dir/lib/libintelocl.so"
echo "$dir/lib/libintelocl.so"
