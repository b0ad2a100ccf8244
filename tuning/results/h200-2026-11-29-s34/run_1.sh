#!/bin/bash
# s34 run 1: the thirty-third session's review commits on a GPU (4058ff4: the FP64 kernels' conversions, integer limbs
# and subtraction where it fits from lib_fp64_columns.j2, their 16-byte loads and stores from lib_thread_io.j2;
# b930b6e: mulmod's radix-2^49 sizes listed at context open), ops mul, mulmod, mod, divrem, mulmod_shared at 256-2048
# bits: CUDA tests of every mulmod and mulmod_shared variant forced against GMP, the composition and routing, the
# Python modular calls; memcheck on mulmod and mulmod_shared at 512 and 1024 (the thread-per-instance variant, q = words); rates beside
# mul at 2^27 words an operand (s33: mulmod 512 ~1.06-1.08 ms, mulmod_shared 512 ~0.83, 1024 ~1.55, mulmod 1024 ~1.75)
set -u
P=build/s34/lib1
mkdir -p lib build/tests generated build/tuning
cp $P/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
timeout 420 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py tests/test_variants.py tests/test_python_modarith.py -k "cuda and (mulmod or composed or wide or selected_variant or shared) and not generated" 2>&1 | tail -3
for op in mulmod mulmod_shared; do
  for b in 512 1024; do
    printf "$op $b 300 mixed 5 device none\n$op $b 300 random 6 device none\n$op $b 300 max 7 host none\n" > /tmp/mc.txt
    v=$(awk -v o=$op -v b=$b '$2==o && $3==b && $7=="cuda" && $5==b/32 {print $1}' generated/variants.txt | head -1)
    echo "memcheck $op $b $v"
    MIDINT_VARIANT=$v timeout 300 compute-sanitizer --tool memcheck --print-limit 5 build/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1
  done
done
for r in 1 2; do
  echo "== round $r"
  printf "run mul 512 8388608 default 5\nrun mulmod 512 8388608 default 5\nrun mulmod_shared 512 8388608 default 5 modulus=odd\nrun mul 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5\nrun mulmod_shared 1024 4194304 default 5 modulus=odd\nrun mulmod 1024 4194304 default 5 modulus=short\n" | timeout 300 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
done
