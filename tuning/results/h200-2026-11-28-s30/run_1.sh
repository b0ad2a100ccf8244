#!/bin/bash
# session 30 run 1: the split second products and the half blocks of the division of large numbers (fb1: one build,
# the ways chosen by the test hooks), correctness on CUDA, sanitizer, then times beside the old ways
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
P=build/s30/fb1
mkdir -p lib build/tests build/tuning && cp $P/lib/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== pytest bigdiv cuda"
timeout 200 python3 -m pytest -q -p no:cacheprovider -k cuda tests/test_bigdiv.py 2>&1 | tail -4
echo "== memcheck half+split 2^20 bits"
printf 'divrem 1048576 3 random 5 device none abits=2097152\nmod 1048576 2 mersenne 6 host none\n' | MIDINT_TEST_SPLIT_FROM=1 MIDINT_TEST_HALF_FROM=2 timeout 120 compute-sanitizer --tool memcheck build/tests/check_batch --backend cuda 2>&1 | tail -3
echo "== checks at real sizes, every way"
for way in "MIDINT_TEST_SPLIT_FROM=1 MIDINT_TEST_HALF_FROM=2" "MIDINT_TEST_HALF_FROM=2" ""; do
printf 'divrem 8388608 2 random 7 host none abits=16777216\ndivrem 8388608 1 mersenne 8 device none abits=16777216\ndivrem 2097152 3 max 9 host none abits=4194304\nmod 4194304 2 near 10 device none\n' | env $way MIDINT_TRACE_BIGDIV=1 timeout 120 build/tests/check_batch --backend cuda 2>&1 | grep -v "bigdiv: [lbir]" | sort | uniq -c | sort -rn | head -8; done
M="build/tuning/measure --backend cuda --tuning none"
OFF=4294967295
for r in 1 2; do
for bits in 1048576 4194304 16777216 67108864 134217728; do
  for way in "A MIDINT_TEST_SPLIT_FROM=$OFF MIDINT_TEST_HALF_FROM=$OFF" "S MIDINT_TEST_HALF_FROM=$OFF" "D" "H MIDINT_TEST_HALF_FROM=2"; do
    set -- $way; n=$1; shift
    printf "%s " $n; printf 'run divrem %s 1 default 9 abits=%s\n' $bits $((2*bits)) | env "$@" timeout 60 $M 2>&1 | grep "^run"
  done; done; done
echo "== 2^30 / 2^29"
for way in "A MIDINT_TEST_SPLIT_FROM=$OFF MIDINT_TEST_HALF_FROM=$OFF" "S MIDINT_TEST_HALF_FROM=$OFF" "D"; do
  set -- $way; n=$1; shift
  printf "%s " $n; printf 'run divrem 536870912 1 default 3 abits=1073741824\n' | env "$@" timeout 100 $M 2>&1 | grep "^run"
done
echo "== product units"
printf 'time mul 67108864 1 default 9\ntime mul 536870912 1 default 3\n' | timeout 60 $M 2>&1 | grep "^time"
echo "== batch gcd"
for way in "A MIDINT_TEST_SPLIT_FROM=$OFF MIDINT_TEST_HALF_FROM=$OFF" "D"; do set -- $way; n=$1; shift
  for i in 1 2; do printf "%s " $n; env "$@" $P/bg_cmp - 65536 | tail -1; done
  printf "%s " $n; env "$@" timeout 60 $P/bg_cmp - 1048576 | tail -1; done
