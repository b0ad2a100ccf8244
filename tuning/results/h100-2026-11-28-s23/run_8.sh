#!/bin/bash
# untracked session script: the landed code (fb6) on the marks: batch GCD 2^16 and 2^20, a 2^29-bit product,
# divisions of 2^27 by 2^26 and 2^30 by 2^29 bits (the last timed once: its GMP check is most of the run)
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s23 && tar xJf fb6.tar.xz && cd ../..
for r in 1 2 3 4 5; do build/s23/fb6/bg_cmp - 65536; done
build/s23/fb6/bg_cmp - 1048576
printf 'time mul 67108864 1 default 10\ntime mul 536870912 1 default 5\nrun divrem 67108864 1 default 5 abits=134217728\n' | LD_LIBRARY_PATH=$PWD/build/s23/fb6/lib timeout 120 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^run\|^time"
