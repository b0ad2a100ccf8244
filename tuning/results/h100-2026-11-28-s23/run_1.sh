#!/bin/bash
# untracked session script: the carry fix-up by the block (fb) beside main (ex): CUDA grid tests, add/sub with
# carries across every tile and random, divisions with random and 2^k-1 divisors, batch GCD; the division's trace
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s22 && tar xJf ex.tar.xz && cd ../s23 && tar xJf fb.tar.xz && cd ../..
mkdir -p lib build/tests build/examples && cp build/s23/fb/lib/libmidint.so lib/ && cp build/s23/fb/tests/* build/tests/ && cp build/s23/fb/variants.txt generated/
echo "== grid tests on cuda (fb)"
timeout 150 python3 -m pytest -q -x -p no:cacheprovider tests/test_variants.py -k "cuda and grid" 2>&1 | tail -2
echo "== add/sub 2^30 bits x1, divrem 2^26 (ms)"
for v in s22/ex s23/fb s22/ex s23/fb; do
  printf 'run add 1073741824 1 default 10 pattern=random\nrun add 1073741824 1 default 10 pattern=ones_plus_one\nrun sub 1073741824 1 default 10 pattern=random\nrun sub 1073741824 1 default 10 pattern=zero_minus_one\nrun add 8388608 64 default 10 pattern=ones_plus_one\nrun mul 67108864 1 default 10 pattern=max\nrun divrem 67108864 1 default 3 abits=134217728\nrun divrem 67108864 1 default 3 abits=134217728,pattern=mersenne\n' | LD_LIBRARY_PATH=$PWD/build/$v/lib timeout 120 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^run" | sed "s|^|$v |"
done
echo "== batch gcd 2^16 (ms)"
for r in 1 2 3; do for v in s22/ex s23/fb; do echo -n "$v: "; build/$v/bg_cmp - 65536; done; done
echo "== traces (fb): divrem 2^26, batch gcd 2^16"
printf 'run divrem 67108864 1 default 1 abits=134217728\n' > /tmp/t.txt
MIDINT_TRACE_BIGDIV=1 LD_LIBRARY_PATH=$PWD/lib timeout 60 build/tuning/measure --backend cuda --tuning none < /tmp/t.txt > $OUT/trace_div.txt 2>&1
tail -40 $OUT/trace_div.txt
MIDINT_TRACE_BIGDIV=1 MIDINT_TRACE_BATCH_GCD=1 timeout 60 build/s23/fb/bg_cmp - 65536 > $OUT/trace_bg.txt 2>&1
tail -80 $OUT/trace_bg.txt
