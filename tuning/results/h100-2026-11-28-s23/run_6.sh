#!/bin/bash
# untracked session script: this session's library (fb5) beside main at the session's start (ex, 31a6965), alternated
# in one call: batch GCD, divisions, additions and products with long carries
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s23 && tar xJf fb5.tar.xz && tar xJf ex.tar.xz && ls && cd ../..
M="build/tuning/measure --backend cuda --tuning none"
echo "== batch gcd (ms)"
for r in 1 2 3; do for v in ex fb5; do echo -n "$v: "; build/s23/$v/bg_cmp - 65536; done; done
for v in ex fb5; do echo -n "$v: "; build/s23/$v/bg_cmp - 1048576; done
echo "== single instances (ms)"
for v in ex fb5 ex fb5; do
  printf 'time add 1073741824 1 default 10\nrun add 1073741824 1 default 10 pattern=ones_plus_one\nrun add 1073741824 1 default 10 pattern=breaks\nrun sub 1073741824 1 default 10 pattern=zero_minus_one\ntime mul 67108864 1 default 10\nrun mul 67108864 1 default 10 pattern=max\ntime mul 536870912 1 default 5\nrun divrem 67108864 1 default 3 abits=134217728\nrun divrem 67108864 1 default 3 abits=134217728,pattern=mersenne\nrun divrem 1048576 1 default 5 abits=2097152\nrun divrem 65536 1 default 5 abits=131072\n' | LD_LIBRARY_PATH=$PWD/build/s23/$v/lib timeout 150 $M 2>&1 | grep "^run\|^time" | sed "s|^|$v |"
done
