#!/bin/bash
# s33 run 10: the split and the product columns shared by both FP64 kernels (templates/lib_fp64_columns.j2, radix 49
# and 52), ops mul, mulmod, mod, divrem, mulmod_shared at 384-2048 bits: CUDA tests of every mulmod and mulmod_shared
# variant forced against GMP, the composition, the routing, the Python mulmod and shared-modulus calls; memcheck on
# mulmod 1024 and mulmod_shared 1024; rates beside mul (mulmod_shared 1024 was 1.53-1.55 ms in s32)
set -u
P=build/s33/lib3
mkdir -p lib build/tests generated build/tuning
cp $P/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py tests/test_variants.py tests/test_python_modarith.py -k "cuda and (mulmod or composed or wide or selected_variant) and not generated" 2>&1 | tail -2
for op in mulmod mulmod_shared; do
  printf "$op 1024 300 mixed 5 device none\n$op 1024 300 random 6 device none\n$op 1024 300 max 7 host none\n" > /tmp/mc.txt
  MIDINT_VARIANT=$(awk -v o=$op '$2==o && $3==1024 && $7=="cuda" && $5==32 {print $1}' generated/variants.txt) timeout 300 compute-sanitizer --tool memcheck --print-limit 5 build/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1
done
for r in 1 2; do
  echo "== round $r"
  printf "run mul 512 4194304 default 5\nrun mulmod 384 4194304 default 5\nrun mulmod 512 4194304 default 5\nrun mul 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5\nrun mulmod_shared 1024 4194304 default 5\nrun mulmod_shared 1024 4194304 default 5 modulus=even\n" | timeout 300 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
done
