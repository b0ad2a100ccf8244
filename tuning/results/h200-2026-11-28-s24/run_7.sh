#!/bin/bash
# session script kept as the record: the wrapped product's engine kept in the context (fb10) against fb9, alternated:
# divisions (small levels are host-bound), batch GCD; CUDA tests of the division and batch GCD on fb10
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s24 && for b in fb9 fb10; do tar xJf $b.tar.xz; done && cd ../..
mkdir -p lib build/tests build/examples && cp build/s24/fb10/lib/libmidint.so lib/ && cp build/s24/fb10/tests/* build/tests/ && cp build/s24/fb10/examples/* build/examples/ && cp build/s24/fb10/variants.txt generated/
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py -k cuda 2>&1 | tail -2
M="build/tuning/measure --backend cuda --tuning none"
for r in 1 2 3; do for B in fb9 fb10; do echo "== $B round $r"
  for i in 1 2; do build/s24/$B/bg_cmp - 65536; done
  printf 'run divrem 65536 1 default 20 abits=131072\nrun divrem 1048576 1 default 20 abits=2097152\nrun divrem 33554432 1 default 10 abits=67108864\nrun divrem 67108864 1 default 10 abits=134217728\n' | LD_LIBRARY_PATH=$PWD/build/s24/$B/lib timeout 100 $M 2>&1 | grep "^run"
done; done
