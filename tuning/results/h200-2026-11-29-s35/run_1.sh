#!/bin/bash
# s35 run 1: mulmod at 256 bits by the FP64 division in radix 2^43 (r43: digit K's step kept; r43s: left out for
# moduli of at least 2^254 by a test of the top limb) against the session's start (base: the thread's division on
# words); check_batch and memcheck on both; CUDA tests of the mulmod variants with r43s; rates at 2^27 words, 3 rounds
set -u
mkdir -p lib build/tests generated build/tuning
S=build/s35
for L in r43 r43s; do
  for p in mixed random max; do
    printf "mulmod 256 5000 $p 5 device none\n" | LD_LIBRARY_PATH=$S/$L timeout 120 $S/$L/tests/check_batch --backend cuda 2>&1 | tail -1 | sed "s/^/$L check $p: /"
  done
  printf "mulmod 256 300 mixed 5 device none\nmulmod 256 300 max 7 host none\n" > /tmp/mc.txt
  LD_LIBRARY_PATH=$S/$L timeout 300 compute-sanitizer --tool memcheck --print-limit 5 $S/$L/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1 | sed "s/^/memcheck $L: /"
done
P=$S/r43s
rm -rf generated; cp -r $P/generated generated; cp $P/libmidint.so lib/; cp $P/tests/* build/tests/; cp $P/tuning/measure build/tuning/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py tests/test_variants.py -k "cuda and mulmod and not shared" 2>&1 | tail -2
for r in 1 2 3; do
  for L in base r43 r43s; do
    echo "== round $r $L"
    printf "run mul 256 16777216 default 5\nrun mulmod 256 16777216 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
done
