#!/bin/bash
# s32 run 2: the spike with two patterns an add (-DPAIRS) against the first form (v0) and midint mul at 1024 bits,
# 2^22 instances, two rounds; then the instruction mix of the kernels (cuobjdump)
set -u
L=build/s32/lib1; S=build/s32/spike
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for r in 1 2; do
  echo "== round $r"
  printf "run mul 1024 4194304 default 5\n" | LD_LIBRARY_PATH=$L timeout 120 $L/measure --backend cuda --tuning none 2>&1 | grep "^run"
  for v in v0 p2 p2b3 p2s; do echo "== $v"; timeout 120 $S/barrett_$v gpu 4194304 5 | grep -E "modulus [03]|gpu:"; done
done
for v in v0 p2; do
  echo "== sass $v"
  cuobjdump -sass $S/barrett_$v | grep -oE "^\s+/\*[0-9a-f]+\*/\s+[A-Z][A-Z0-9.]*" | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -14
done
