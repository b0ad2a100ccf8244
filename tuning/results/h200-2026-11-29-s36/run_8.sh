#!/bin/bash
# s36 run 8: the landed FP64 division on lanes at 2048, 16384 and 32768 bits (fin3): check_batch on every mod pattern
# through the device and device4 APIs, and the CUDA variant tests of divrem and mod at those sizes
set -u
mkdir -p lib build/tests generated build/tuning
S=build/s36
for b in 2048 16384 32768; do
  for op in divrem mod; do
    for p in random zero max one mersenne fermat pow2 near multiple single_bits shared equal mixed; do
      for api in device device4; do
        cnt=400; [ $b = 32768 ] && cnt=100
        printf "$op $b $cnt $p 19 $api none\n" | LD_LIBRARY_PATH=$S/fin3 timeout 60 $S/fin3/tests/check_batch --backend cuda 2>&1 | tail -1 | grep -v "^ok" | sed "s/^/fin3 $op $b $p $api: /"
      done
    done
  done
done
echo "checks done"
P=$S/fin3
rm -rf generated; cp -r $P/generated generated; cp $P/libmidint.so lib/; cp $P/tests/* build/tests/; cp $P/tuning/measure build/tuning/
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_variants.py -k "cuda and (divrem or mod) and not mulmod and not powm and not generated" 2>&1 | tail -2
