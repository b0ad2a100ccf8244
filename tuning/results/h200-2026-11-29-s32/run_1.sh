#!/bin/bash
# s32 run 1: the FP64 Barrett spike (barrett_f64.cu, four builds) against midint mul, mulmod_shared and mulmod at 1024
# bits (a build of those operations at 1024 and 2048 bits from ac1e5f2), 2^22 instances, two rounds
set -u
L=build/s32/lib1; S=build/s32/spike
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for r in 1 2; do
  echo "== round $r"
  printf "run mul 1024 4194304 default 5\nrun mulmod_shared 1024 4194304 default 5 modulus=odd\nrun mulmod 1024 4194304 default 5\n" | LD_LIBRARY_PATH=$L timeout 120 $L/measure --backend cuda --tuning none 2>&1 | grep "^run"
  for v in v0 b3 s3 s0; do echo "== $v"; timeout 120 $S/barrett_$v gpu 4194304 5; done
done
