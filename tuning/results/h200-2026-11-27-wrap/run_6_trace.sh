#!/bin/bash
# untracked session script: the phases of the last of the traced calls (each phase waits for the device)
nvidia-smi --query-gpu=name --format=csv,noheader
for c in 65536 1048576; do
  MIDINT_TRACE_BATCH_GCD=1 timeout 60 build/sess/bg_cmp - $c 2>&1 | awk '/batch_gcd: upload/ {delete s} /midint batch_gcd:/ {s[$3] += $(NF-1)} /^batch_gcd/ {print} END {for (k in s) printf "  %-9s %8.2f ms\n", k, s[k]}'
done
