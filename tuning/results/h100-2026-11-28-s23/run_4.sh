#!/bin/bash
# untracked session script: the fix-up's ripple 16 words at a time and the "breaks" pattern (fb4) beside fb3; CUDA
# grid tests; host cost per step (hc)
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s23 && tar xJf fb3.tar.xz && tar xJf fb4.tar.xz && cd ../..
mkdir -p lib build/tests && cp build/s23/fb4/lib/libmidint.so lib/ && cp build/s23/fb4/tests/* build/tests/ && cp build/s23/fb4/variants.txt generated/
echo "== grid and addsub tests on cuda (fb4)"
timeout 200 python3 -m pytest -q -x -p no:cacheprovider tests/test_variants.py -k "cuda and (grid or add or sub)" 2>&1 | tail -2
timeout 100 python3 -m pytest -q -x -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py -k cuda 2>&1 | tail -2
M="build/tuning/measure --backend cuda --tuning none"
echo "== A/B"
for v in fb3 fb4 fb3 fb4; do
  printf 'run add 1073741824 1 default 10 pattern=random\nrun add 1073741824 1 default 10 pattern=ones_plus_one\nrun add 1073741824 1 default 10 pattern=breaks\nrun sub 1073741824 1 default 10 pattern=breaks\nrun add 8388608 64 default 10 pattern=runs\nrun mul 67108864 1 default 10 pattern=max\nrun mul 67108864 1 default 10 pattern=random\nrun divrem 67108864 1 default 3 abits=134217728\nrun divrem 67108864 1 default 3 abits=134217728,pattern=mersenne\n' | LD_LIBRARY_PATH=$PWD/build/s23/$v/lib timeout 120 $M 2>&1 | grep "^run" | sed "s|^|$v |"
done
for r in 1 2; do for v in fb3 fb4; do echo -n "$v: "; build/s23/$v/bg_cmp - 65536; done; done
echo "== host cost per step (fb4)"
build/s23/hc
echo "== trace fb4 mersenne 2^26"
printf 'run divrem 67108864 1 default 1 abits=134217728,pattern=mersenne\n' | MIDINT_TRACE_BIGDIV=1 LD_LIBRARY_PATH=$PWD/build/s23/fb4/lib timeout 60 $M 2>&1 | tail -18
