#!/bin/bash
# untracked session script: the levels' whole-word shifts as one place() each (fb7) beside fb6; CUDA tests and memcheck of
# the division; divisions and batch GCD alternated
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s23 && tar xJf fb6.tar.xz && tar xJf fb7.tar.xz && cd ../..
mkdir -p lib build/tests build/examples && cp build/s23/fb7/lib/libmidint.so lib/ && cp build/s23/fb7/tests/* build/tests/ && cp build/s23/fb7/examples/* build/examples/ && cp build/s23/fb7/variants.txt generated/
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py -k cuda 2>&1 | tail -2
M="build/tuning/measure --backend cuda --tuning none"
printf 'run divrem 1048576 2 default 1 abits=2097152\nrun divrem 65536 3 default 1 abits=131072,pattern=near\nrun mod 65536 3 default 1 abits=65536\n' | LD_LIBRARY_PATH=$PWD/lib timeout 120 compute-sanitizer --tool memcheck $M 2>&1 | grep "^run\|ERROR SUMMARY"
for v in fb6 fb7 fb6 fb7; do
  printf 'run divrem 65536 1 default 5 abits=131072\nrun divrem 1048576 1 default 5 abits=2097152\nrun divrem 33554432 1 default 5 abits=67108864\nrun divrem 67108864 1 default 3 abits=134217728\n' | LD_LIBRARY_PATH=$PWD/build/s23/$v/lib timeout 100 $M 2>&1 | grep "^run" | sed "s|^|$v |"
done
for r in 1 2 3; do for v in fb6 fb7; do echo -n "$v: "; build/s23/$v/bg_cmp - 65536; done; done
printf 'run divrem 67108864 1 default 1 abits=134217728\n' | MIDINT_TRACE_BIGDIV=1 LD_LIBRARY_PATH=$PWD/build/s23/fb7/lib timeout 60 $M 2>&1 | tail -18
