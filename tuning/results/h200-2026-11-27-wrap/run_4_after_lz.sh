#!/bin/bash
# untracked session script: bigdiv after the leading-zeros kernel's fix: tests, timings, the kernel's time (ncu)
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 250 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py tests/test_wrap_product.py -k cuda 2>&1 | tail -2
M="build/tuning/measure --backend cuda --tuning none"
printf 'run divrem 33554432 1 default 5 abits=67108864\nrun divrem 67108864 1 default 5 abits=134217728\nrun divrem 268435456 1 default 3 abits=536870912\nrun divrem 536870912 1 default 3 abits=1073741824\nrun divrem 1048576 1 default 5 abits=2097152\nrun divrem 65536 1 default 5 abits=131072\n' | timeout 200 $M 2>&1 | grep -v "^registry\|^tuning"
printf "run divrem 33554432 1 default 1 abits=67108864\n" > /tmp/c.txt
timeout 250 ncu --metrics gpu__time_duration.sum --csv $M < /tmp/c.txt > $OUT/ncu_after.csv 2>&1
grep div_lz $OUT/ncu_after.csv | cut -d, -f5,15-
timeout 200 build/sess/bg_cmp -,4294967295 65536 1048576 65536
