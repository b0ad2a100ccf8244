#!/bin/bash
# s33 run 11: mulmod_shared's radix-2^52 Barrett branch at 256, 384 and 512 bits too (space.MOD_SHARED_F52_BITS; the
# modulus objects already carried the constants up to 1024 bits), ops mul, mulmod, mod, divrem, mulmod_shared at
# 256-2048 bits (lib4) against run 10's build (lib3: the branch at 1024 only): CUDA tests of every mulmod_shared
# variant and the Python shared-modulus calls (the edges around 2^(52 (K - 1)) at every size), memcheck at 256 and
# 512, rates at 2^27 words an operand beside mul
set -u
P=build/s33/lib4
mkdir -p lib build/tests generated build/tuning
cp $P/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_variants.py tests/test_python_modarith.py -k "cuda and (mulmod or shared or selected_variant) and not generated" 2>&1 | tail -2
for b in 256 512; do
  printf "mulmod_shared $b 300 mixed 5 device none\nmulmod_shared $b 300 random 6 device none\nmulmod_shared $b 300 max 7 host none\n" > /tmp/mc.txt
  MIDINT_VARIANT=$(awk -v b=$b '$2=="mulmod_shared" && $3==b && $7=="cuda" && $5==b/32 {print $1}' generated/variants.txt) timeout 300 compute-sanitizer --tool memcheck --print-limit 5 build/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1
done
for r in 1 2; do
  for L in lib3 lib4; do
    echo "== round $r $L"
    printf "run mul 256 16777216 default 5\nrun mulmod_shared 256 16777216 default 5 modulus=odd\nrun mul 384 11184810 default 5\nrun mulmod_shared 384 11184810 default 5 modulus=odd\nrun mul 512 8388608 default 5\nrun mulmod_shared 512 8388608 default 5 modulus=odd\nrun mulmod_shared 512 8388608 default 5 modulus=even\nrun mulmod 512 8388608 default 5\n" | LD_LIBRARY_PATH=build/s33/$L timeout 300 build/s33/lib4/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
done
