#!/bin/bash
# untracked session script: the dispatch memo by hash and the skipped same-stream fence waits (fb3) beside fb2 (the
# trace and the block's fix-up only); traces; ncu kernel times of a division by 2^k - 1
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s23 && tar xJf fb2.tar.xz && tar xJf fb3.tar.xz && cp fb3/bg_cmp fb2/ && cd ../..
M="build/tuning/measure --backend cuda --tuning none"
for v in fb2 fb3 fb2 fb3; do
  printf 'run divrem 67108864 1 default 5 abits=134217728\nrun divrem 1048576 1 default 5 abits=2097152\nrun divrem 65536 1 default 5 abits=131072\nrun divrem 1048576 64 default 5 abits=2097152\n' | LD_LIBRARY_PATH=$PWD/build/s23/$v/lib timeout 100 $M 2>&1 | grep "^run" | sed "s|^|$v |"
done
for r in 1 2 3; do for v in fb2 fb3; do echo -n "$v: "; build/s23/$v/bg_cmp - 65536; done; done
echo "== trace fb3 random 2^26"
printf 'run divrem 67108864 1 default 1 abits=134217728\n' | MIDINT_TRACE_BIGDIV=1 LD_LIBRARY_PATH=$PWD/build/s23/fb3/lib timeout 60 $M 2>&1 | tail -18
echo "== trace fb3 batch gcd root"
MIDINT_TRACE_BIGDIV=1 MIDINT_TRACE_BATCH_GCD=1 timeout 60 build/s23/fb3/bg_cmp - 65536 2>&1 | tail -80 | grep "bigdiv\|root"
echo "== ncu mersenne"
printf 'run divrem 67108864 1 default 1 abits=134217728,pattern=mersenne\n' > /tmp/c.txt
LD_LIBRARY_PATH=$PWD/build/s23/fb3/lib timeout 200 ncu -c 600 --metrics gpu__time_duration.sum --csv $M < /tmp/c.txt > $OUT/ncu_mersenne.csv 2>&1
tail -2 $OUT/ncu_mersenne.csv
