#!/bin/bash
# untracked session script: the division's trace with the host's queueing time, random and 2^k-1 divisors, 2^26 bits
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s23 && tar xJf fb2.tar.xz && cd ../..
for p in random mersenne; do
  printf "run divrem 67108864 1 default 1 abits=134217728,pattern=$p\n" > /tmp/t.txt
  echo "== $p"
  MIDINT_TRACE_BIGDIV=1 LD_LIBRARY_PATH=$PWD/build/s23/fb2/lib timeout 60 build/tuning/measure --backend cuda --tuning none < /tmp/t.txt 2>&1 | tail -19
done
