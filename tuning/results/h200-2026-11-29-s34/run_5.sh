#!/bin/bash
# s34 run 5: the change as committed (space.MULMOD_F49_SKIP_FIRST_BITS: mulmod's radix-2^49 division leaves out digit
# K's step at 512 bits for every modulus it takes, at 384 for moduli of at least 2^376; 1024 as before), lib4, ops mul,
# mulmod, mod, divrem, mulmod_shared at 256-2048 bits: CUDA tests of every mulmod variant forced against GMP, the
# composition and routing, the Python mulmod calls; check_batch's mulmod cases at 384, 512, 1024 with 3000 instances;
# memcheck at 384 and 512; rates against lib1 (the session's start) at 2^27 words, 3 rounds
set -u
mkdir -p lib build/tests generated build/tuning
P=build/s34/lib4
cp $P/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py tests/test_variants.py tests/test_python_modarith.py -k "cuda and (mulmod or composed or wide or selected_variant) and not generated and not shared" 2>&1 | tail -2
for b in 384 512 1024; do
  printf "mulmod $b 3000 mixed 5 device none\nmulmod $b 3000 random 6 device none\nmulmod $b 3000 max 7 host none\n" | timeout 120 build/tests/check_batch --backend cuda 2>&1 | tail -3 | sed "s/^/lib4 check: /"
done
for b in 384 512; do
  printf "mulmod $b 300 mixed 5 device none\nmulmod $b 300 random 6 device none\nmulmod $b 300 max 7 host none\n" > /tmp/mc.txt
  timeout 300 compute-sanitizer --tool memcheck --print-limit 5 build/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1 | sed "s/^/memcheck mulmod $b: /"
done
for r in 1 2 3; do
  for L in lib1 lib4; do
    echo "== round $r $L"
    printf "run mulmod 384 11184810 default 5\nrun mul 512 8388608 default 5\nrun mulmod 512 8388608 default 5\nrun mul 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5\n" | LD_LIBRARY_PATH=build/s34/$L timeout 300 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
done
