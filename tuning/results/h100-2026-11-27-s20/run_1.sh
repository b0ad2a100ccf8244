#!/bin/bash
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== untraced, with the alloc shim (5 calls + context) =="
LD_PRELOAD=$PWD/build/sess/allocshim.so build/sess/bg_cmp - 65536
LD_PRELOAD=$PWD/build/sess/allocshim.so build/sess/bg_cmp - 16
echo "== untraced, no shim =="
build/sess/bg_cmp - 65536
echo "== trace =="
MIDINT_TRACE_BATCH_GCD=1 build/sess/bg_cmp - 65536 2>&1 | awk '/batch_gcd: upload/ {delete s} /midint batch_gcd:/ {s[$3] += $(NF-1); t += $(NF-1)} /^batch_gcd/ {print} END {for (k in s) printf "  %-9s %8.2f ms\n", k, s[k]}'
