#!/bin/bash
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/sess && tar xJf ab.tar.xz && cd ../.. && mkdir -p lib && cp build/sess/new/lib/libmidint.so lib/
echo "== raw trace of the last call (new)"
MIDINT_TRACE_BATCH_GCD=1 build/sess/new/bg_cmp - 65536 2> /tmp/tr.txt; n=$(grep -n "batch_gcd: upload" /tmp/tr.txt | tail -1 | cut -d: -f1); tail -n +$n /tmp/tr.txt
echo "== the Newton base's words"
for b in 1023 511 255 127; do echo -n "base $b: "; MIDINT_TEST_BIGDIV=$b build/sess/new/bg_cmp - 65536; done
for b in 1023 511 255; do
  printf 'run divrem 33554432 1 default 5 abits=67108864\nrun divrem 67108864 1 default 5 abits=134217728\n' | MIDINT_TEST_BIGDIV=$b timeout 100 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^run" | sed "s/^/base $b /"
done
