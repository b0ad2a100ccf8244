#!/bin/bash
# untracked session script: short blocks in the division and the product tree without its root, beside the library of
# d2a615d (the device code of main at the session's start) in the same call; checks on CUDA first
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s22 && mkdir -p old && tar xJf ab2.tar.xz && mv new/bg_cmp new/lib old/ && rmdir new && tar xJf cur.tar.xz && cd ../..
cp build/s22/cur/lib/libmidint.so lib/ && mkdir -p build/tests && cp build/s22/cur/tests/* build/tests/ && cp build/s22/cur/variants.txt generated/
echo "== tests on cuda"
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py -k cuda 2>&1 | tail -3
echo "== A/B batch gcd 2^16 and 2^20 (ms; results compared inside each)"
for r in 1 2 3; do for v in old cur; do echo -n "$v: "; build/s22/$v/bg_cmp - 65536; done; done
for v in old cur; do echo -n "$v: "; build/s22/$v/bg_cmp - 1048576; done
echo "== divisions, one instance, dividend twice the divisor (and one of the divisor's width)"
for v in old cur cur old; do
  printf 'time mul 67108864 1 default 5\nrun divrem 67108864 1 default 5 abits=134217728\nrun divrem 67108864 1 default 5 abits=134217728,pattern=near\nrun divrem 67108864 1 default 5 abits=134217728,pattern=mersenne\nrun mod 67108864 1 default 5 abits=67108864\nrun divrem 1048576 1 default 5 abits=2097152\nrun divrem 536870912 1 default 3 abits=1073741824\n' | LD_LIBRARY_PATH=$PWD/build/s22/$v/lib timeout 200 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^time\|^run" | sed "s/^/$v /"
done
echo "== memcheck: short blocks (divrem 2^16 bits, divisors with leading zero words), batch gcd 1024"
printf 'run divrem 65536 3 default 1 abits=131072,pattern=pow2\nrun divrem 65536 3 default 1 abits=131072\nrun mod 65536 3 default 1 abits=65536\n' > /tmp/d.txt
timeout 200 compute-sanitizer --tool memcheck build/tuning/measure --backend cuda --tuning none < /tmp/d.txt 2>&1 | grep "^run\|ERROR SUMMARY" | head -6
timeout 200 compute-sanitizer --tool memcheck --leak-check no build/s22/cur/bg_cmp - 1024 2>&1 | tail -2
