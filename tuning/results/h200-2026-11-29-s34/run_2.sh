#!/bin/bash
# s34 run 2: the FP64 thread-per-instance kernels at 1024 bits (mulmod's radix-2^49 division, mulmod_shared's radix-2^52
# Barrett) at more warps an SM: lib1 as generated (254 registers, 8 warps), r3 with __launch_bounds__(128, 3) on both
# (168 registers, 12 warps; mulmod 276 bytes spilled), r4 with (128, 4) (128 registers, 16 warps; mulmod 2000 bytes
# spilled); the generated .cu edited by hand for this measurement only. check_batch's mulmod and mulmod_shared cases
# at 1024 bits on each, then rates at 2^27 words, three rounds
set -u
mkdir -p lib build/tests generated build/tuning
cp build/s34/lib1/tests/* build/tests/ && cp build/s34/lib1/variants.txt generated/ && cp build/s34/lib1/measure build/tuning/
for L in lib1 r3 r4; do
  cp build/s34/$L/libmidint.so lib/
  printf "mulmod 1024 3000 mixed 5 device none\nmulmod 1024 3000 random 6 device none\nmulmod 1024 3000 max 7 host none\nmulmod_shared 1024 3000 mixed 5 device none\nmulmod_shared 1024 3000 random 6 device none\nmulmod_shared 1024 3000 max 7 host none\n" | timeout 120 build/tests/check_batch --backend cuda 2>&1 | tail -2 | sed "s/^/$L check: /"
done
for r in 1 2 3; do
  for L in lib1 r3 r4; do
    echo "== round $r $L"
    printf "run mul 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5\nrun mulmod_shared 1024 4194304 default 5 modulus=odd\n" | LD_LIBRARY_PATH=build/s34/$L timeout 300 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
done
