#!/bin/bash
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/sess && tar xJf ab.tar.xz && cd ../.. && mkdir -p lib && cp build/sess/new/lib/libmidint.so lib/
echo "== A/B: old (frees its buffers), new (keeps them), alternating"
for r in 1 2 3; do for v in old new; do echo -n "$v: "; build/sess/$v/bg_cmp - 65536; done; done
for v in old new; do echo -n "$v: "; build/sess/$v/bg_cmp - 1048576; done
echo "== new with the shim"
LD_PRELOAD=$PWD/build/sess/allocshim.so build/sess/new/bg_cmp - 65536
echo "== trace new"
MIDINT_TRACE_BATCH_GCD=1 build/sess/new/bg_cmp - 65536 2>&1 | awk '/batch_gcd: upload/ {delete s} /midint batch_gcd:/ {s[$3] += $(NF-1); t += $(NF-1)} /^batch_gcd/ {print} END {for (k in s) printf "  %-9s %8.2f ms\n", k, s[k]}'
echo "== tests"
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_batch_gcd.py -k cuda 2>&1 | tail -2
