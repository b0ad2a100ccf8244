#!/bin/bash
# s33 run 8: the branch's words loaded before the test of the modulus's top word (libC) against run 7's form (libA):
# CUDA tests on libC, memcheck, rates beside mul, two rounds
set -u
P=build/s33/lib
mkdir -p lib build/tests generated build/tuning
cp build/s33/libC/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp build/s33/libA/measure build/tuning/
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py tests/test_variants.py -k "cuda and (mulmod or composed or wide) and not generated" 2>&1 | tail -2
printf "mulmod 1024 300 mixed 5 device none\nmulmod 1024 300 random 6 device none\nmulmod 1024 300 max 7 host none\n" > /tmp/mc.txt
MIDINT_VARIANT=mulmod_1024_u32_q32_i128_w1_cuda timeout 300 compute-sanitizer --tool memcheck --print-limit 5 build/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -4
for r in 1 2; do
  for L in libA libC; do
    echo "== round $r $L"
    printf "run mul 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5 modulus=even\n" | LD_LIBRARY_PATH=build/s33/$L timeout 300 build/s33/libA/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
done
