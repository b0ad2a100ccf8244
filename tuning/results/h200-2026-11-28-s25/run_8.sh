#!/bin/bash
# untracked session script: the recorded reciprocal (fb13, with its trace) against the landed code (fb10): CUDA tests
# of the division, batch GCD and wrapped products; divrem at 2^20-2^30 bits alternated; batch GCD
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s25 && for b in fb10 fb13; do tar xJf $b.tar.xz; done && cd ../..
mkdir -p lib build/tests build/examples && cp build/s25/fb13/lib/libmidint.so lib/ && cp build/s25/fb13/tests/* build/tests/ && cp build/s25/fb13/examples/* build/examples/ && cp build/s25/fb13/variants.txt generated/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py tests/test_wrap_product.py tests/test_python_modarith.py -k "cuda" 2>&1 | tail -3
M="build/tuning/measure --backend cuda --tuning none"
D='run divrem 1048576 1 default 9 abits=2097152
run divrem 4194304 1 default 9 abits=8388608
run divrem 16777216 1 default 9 abits=33554432
run divrem 67108864 1 default 9 abits=134217728
run divrem 134217728 1 default 9 abits=268435456
run divrem 67108864 16 default 5 abits=67108864
time mul 67108864 1 default 20'
for r in 1 2 3; do for B in fb10 fb13; do echo "== $B round $r"
  printf '%s\n' "$D" | LD_LIBRARY_PATH=$PWD/build/s25/$B/lib timeout 150 $M 2>&1 | grep "^run\|^time"
done; done
for B in fb10 fb13; do echo "== $B 2^30 / 2^29"
printf 'run divrem 536870912 1 default 3 abits=1073741824\n' | LD_LIBRARY_PATH=$PWD/build/s25/$B/lib timeout 150 $M 2>&1 | grep "^run"; done
for r in 1 2; do for B in fb10 fb13; do echo "== $B bg round $r"; for i in 1 2 3; do build/s25/$B/bg_cmp - 65536; done; done; done
