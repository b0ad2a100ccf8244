#!/bin/bash
# session 30 run 2: fb2 (half blocks' remainder from two products of t words) beside fb1 (one of n words), the
# bigdiv tests and memcheck on fb2, traces of 2^26 and 2^29-bit divisions
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
cd build/s30 && for b in fb1 fb2; do tar xJf $b.tar.xz; done && cd ../..
P=build/s30/fb2
mkdir -p lib build/tests build/tuning && cp $P/lib/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
echo "== pytest bigdiv cuda (fb2)"
timeout 200 python3 -m pytest -q -p no:cacheprovider -k cuda tests/test_bigdiv.py 2>&1 | tail -2
echo "== memcheck fb2 half blocks forced, 2^20 bits"
printf 'divrem 1048576 3 random 5 device none abits=2097152\nmod 1048576 2 max 6 host none\n' | MIDINT_TEST_HALF_FROM=2 timeout 120 compute-sanitizer --tool memcheck build/tests/check_batch --backend cuda 2>&1 | tail -3
printf 'divrem 8388608 2 random 7 host none abits=16777216\ndivrem 8388608 1 mersenne 8 device none abits=16777216\nmod 4194304 2 near 10 device none\n' | MIDINT_TEST_HALF_FROM=2 timeout 120 build/tests/check_batch --backend cuda 2>&1 | tail -3
for r in 1 2; do for B in fb1 fb2; do
  for bits in 67108864 134217728; do printf "$B "; printf 'run divrem %s 1 default 9 abits=%s\n' $bits $((2*bits)) | LD_LIBRARY_PATH=$PWD/build/s30/$B/lib timeout 60 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^run"; done
  printf "$B "; printf 'run divrem 536870912 1 default 3 abits=1073741824\n' | LD_LIBRARY_PATH=$PWD/build/s30/$B/lib timeout 100 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^run"
done; done
echo "== traces fb2"
for bits in 67108864 536870912; do echo "-- $bits"; printf 'run divrem %s 1 default 1 abits=%s\n' $bits $((2*bits)) | MIDINT_TRACE_BIGDIV=1 timeout 100 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "bigdiv\|^run" | tail -26; done
echo "== batch gcd fb2"
for i in 1 2; do build/s30/fb2/bg_cmp - 65536 | tail -1; done; timeout 60 build/s30/fb2/bg_cmp - 1048576 | tail -1
