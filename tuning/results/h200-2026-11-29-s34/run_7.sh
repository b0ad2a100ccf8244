#!/bin/bash
# s34 run 7: mul and mullo at 384 bits on their own register-resident kernels (the lanes family with Q = 12: one thread
# an instance, staged `_t1` and plain `_w1`) against the 512-bit kernel on zero-padded words (lib1: the default rule's
# choice where 384 has no lanes variant); lib5 = ops mul, mullo at 384 and 512 bits. CUDA tests of every mul and
# mullo variant forced against GMP (lib5); rates at 2^27 words, each 384-bit variant forced, 2 rounds
set -u
mkdir -p lib build/tests generated build/tuning
P=build/s34/lib5
cp $P/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_variants.py -k "cuda and mul and not generated" 2>&1 | tail -2
for r in 1 2; do
  echo "== round $r lib1 (the session's start)"
  printf "run mul 384 11184810 default 5\nrun mullo 384 11184810 default 5\nrun mul 512 8388608 default 5\n" | LD_LIBRARY_PATH=build/s34/lib1 timeout 120 build/s34/lib1/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  echo "== round $r lib5"
  printf "run mul 384 11184810 default 5\nrun mul 384 11184810 mul_384_u32_q12_i128_t1_cuda 5\nrun mul 384 11184810 mul_384_u32_q12_i128_w1_cuda 5\nrun mullo 384 11184810 default 5\nrun mullo 384 11184810 mullo_384_u32_q12_i128_t1_cuda 5\nrun mullo 384 11184810 mullo_384_u32_q12_i128_w1_cuda 5\nrun mul 512 8388608 default 5\n" | timeout 120 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
done
