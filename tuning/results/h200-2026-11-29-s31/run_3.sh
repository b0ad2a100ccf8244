#!/bin/bash
# s31 run 3: the division's k = 0 blocks (quotient 0 or 1) as one subtraction where it fits, no estimate correction
# and no read-back (new3), against the session-start build (fb3): the CUDA bigdiv and batch GCD tests, then
# alternating times of divrem at 2^26-2^29-bit divisors and batch GCD
set -u
cd build/s31 && tar xJf fb3.tar.xz && cd ../..
mkdir -p lib build/tuning build/tests generated
N=build/s31/new3
mkdir -p build/examples && cp $N/examples/batch_gcd build/examples/ && cp $N/variants.txt generated/ && cp $N/tests/* build/tests/ && cp $N/lib/libmidint.so lib/ && cp $N/measure build/tuning/
echo "== pytest bigdiv, batch gcd (cuda)"
timeout 280 python3 -m pytest -q -p no:cacheprovider -k cuda tests/test_bigdiv.py tests/test_batch_gcd.py 2>&1 | grep -E "^E |passed|failed|error" | head -20
echo "== trace 2^26 (new3)"
printf 'run divrem 67108864 1 default 1 abits=134217728\n' | MIDINT_TRACE_BIGDIV=1 timeout 60 $N/measure --backend cuda --tuning none 2>&1 | grep -E "block|correction|^run" | head -12
echo "== timing"
for r in 1 2; do
  for t in fb3 new3; do
    d=build/s31/$t
    for bits in 1048576 67108864 134217728; do
      printf 'run divrem %s 1 default 9 abits=%s\n' $bits $((2*bits)) | LD_LIBRARY_PATH=$d/lib timeout 60 $d/measure --backend cuda --tuning none 2>&1 | grep "^run" | sed "s/^/$t /"
    done
    printf 'run divrem 536870912 1 default 3 abits=1073741824\n' | LD_LIBRARY_PATH=$d/lib timeout 100 $d/measure --backend cuda --tuning none 2>&1 | grep "^run" | sed "s/^/$t /"
    printf "$t "; LD_LIBRARY_PATH=$d/lib build/s31/fb3/bg_cmp - 65536 | tail -1
    printf "$t "; LD_LIBRARY_PATH=$d/lib timeout 60 build/s31/fb3/bg_cmp - 1048576 | tail -1
  done
done
