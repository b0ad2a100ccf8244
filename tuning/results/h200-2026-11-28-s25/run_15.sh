#!/bin/bash
# untracked session script: 8-column blocks (fb15) against fb14: memcheck on the 8-column kernels, the division, batch GCD
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
cd build/s25 && for b in fb14 fb15; do tar xJf $b.tar.xz; done && cd ../..
mkdir -p lib build/tests build/examples && cp build/s25/fb15/lib/libmidint.so lib/ && cp build/s25/fb15/tests/* build/tests/ && cp build/s25/fb15/examples/* build/examples/ && cp build/s25/fb15/variants.txt generated/
for split in 18,8 17,11; do echo "== memcheck split $split"
printf 'mul 65536 1 max 1 device none\nmul 65440 2 random 2 host none\n' | MIDINT_TEST_NTT_SPLIT=$split timeout 60 compute-sanitizer --tool memcheck build/tests/check_batch --backend cuda --variant mul_65536_u32_q16_i1_p3b32_g256_cuda 2>&1 | tail -1; done
M="build/tuning/measure --backend cuda --tuning none"
for B in fb14 fb15; do echo "== $B"
printf 'run divrem 67108864 1 default 9 abits=134217728\ntime mul 1073741824 1 default 3\n' | LD_LIBRARY_PATH=$PWD/build/s25/$B/lib timeout 100 $M 2>&1 | grep "^run\|^time"
for i in 1 2 3; do build/s25/$B/bg_cmp - 65536; done; done
echo "== fb15 2^30 / 2^29"; printf 'run divrem 536870912 1 default 3 abits=1073741824\n' | LD_LIBRARY_PATH=$PWD/build/s25/fb15/lib timeout 100 $M 2>&1 | grep "^run"
build/s25/fb15/bg_cmp - 1048576
