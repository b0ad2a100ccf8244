#!/bin/bash
# session 30 run 3: fb3 (half blocks' remainder by two products of t words only past one transform; the first half
# block of a dividend within its words taken as it is): tests, memcheck, times by way (A: the session start's
# algorithm by the hooks, D: default), batch GCD
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
cd build/s30 && tar xJf fb3.tar.xz && cd ../..
P=build/s30/fb3
mkdir -p lib build/tests build/tuning && cp $P/lib/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
echo "== pytest bigdiv cuda (fb3)"
timeout 200 python3 -m pytest -q -p no:cacheprovider -k cuda tests/test_bigdiv.py 2>&1 | tail -2
echo "== memcheck fb3: half blocks, two products (pieces from 4096 words), 2^20 bits"
printf 'divrem 1048576 3 random 5 device none abits=2097152\nmod 1048576 2 max 6 host none\ndivrem 1048576 2 near 7 host none abits=2097152\n' | MIDINT_TEST_HALF_FROM=2 MIDINT_TEST_NTT_PIECE=4096 timeout 150 compute-sanitizer --tool memcheck build/tests/check_batch --backend cuda 2>&1 | tail -4
M="build/tuning/measure --backend cuda --tuning none"
OFF=4294967295
for r in 1 2; do
for bits in 1048576 16777216 67108864 134217728; do
  for way in "A MIDINT_TEST_SPLIT_FROM=$OFF MIDINT_TEST_HALF_FROM=$OFF" "D"; do
    set -- $way; n=$1; shift
    printf "%s " $n; printf 'run divrem %s 1 default 9 abits=%s\n' $bits $((2*bits)) | env "$@" timeout 60 $M 2>&1 | grep "^run"
  done; done
for way in "A MIDINT_TEST_SPLIT_FROM=$OFF MIDINT_TEST_HALF_FROM=$OFF" "D"; do
  set -- $way; n=$1; shift
  printf "%s " $n; printf 'run divrem 536870912 1 default 3 abits=1073741824\n' | env "$@" timeout 100 $M 2>&1 | grep "^run"
done; done
printf 'time mul 67108864 1 default 9\ntime mul 536870912 1 default 3\n' | timeout 60 $M 2>&1 | grep "^time"
echo "== batch gcd"
for way in "A MIDINT_TEST_SPLIT_FROM=$OFF MIDINT_TEST_HALF_FROM=$OFF" "D" "A MIDINT_TEST_SPLIT_FROM=$OFF MIDINT_TEST_HALF_FROM=$OFF" "D"; do set -- $way; n=$1; shift
  printf "%s " $n; env "$@" $P/bg_cmp - 65536 | tail -1
  printf "%s " $n; env "$@" timeout 60 $P/bg_cmp - 1048576 | tail -1; done
