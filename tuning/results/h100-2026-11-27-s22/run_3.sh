#!/bin/bash
# untracked session script: CUDA tests and sanitizers of the short blocks and the product tree without its root; batch
# GCD beside the library of d2a615d in the same call
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s22 && mkdir -p old && tar xJf ab2.tar.xz && mv new/bg_cmp new/lib old/ && rmdir new && tar xJf cur.tar.xz && cd ../..
mkdir -p lib build/tests && cp build/s22/cur/lib/libmidint.so lib/ && cp build/s22/cur/tests/* build/tests/ && cp build/s22/cur/variants.txt generated/
echo "== tests on cuda"
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py -k cuda 2>&1 | tail -3
echo "== A/B batch gcd 2^16 and 2^20 (ms; results compared inside each)"
for r in 1 2 3; do for v in old cur; do echo -n "$v: "; build/s22/$v/bg_cmp - 65536; done; done
for v in old cur; do echo -n "$v: "; build/s22/$v/bg_cmp - 1048576; done
echo "== memcheck and racecheck: short blocks (divrem 2^16 bits: divisors with leading zero words, top blocks; mod of the divisor's width)"
printf 'run divrem 65536 3 default 1 abits=131072,pattern=pow2\nrun divrem 65536 3 default 1 abits=131072,pattern=near\nrun mod 65536 3 default 1 abits=65536\n' > /tmp/d.txt
for tool in memcheck racecheck; do
  LD_LIBRARY_PATH=$PWD/lib timeout 150 compute-sanitizer --tool $tool build/tuning/measure --backend cuda --tuning none < /tmp/d.txt 2>&1 | grep "^run\|ERROR SUMMARY\|hazard" | head -6
done
