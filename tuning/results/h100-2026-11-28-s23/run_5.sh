#!/bin/bash
# untracked session script: this session's library (fb5) beside main at the session's start (ex): CUDA tests,
# sanitizers on the fix-up, batch GCD, divisions, additions with long carries
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s23 && tar xJf fb5.tar.xz && tar xJf ex.tar.xz && cd ../..
mkdir -p lib build/tests build/examples && cp build/s23/fb5/lib/libmidint.so lib/ && cp build/s23/fb5/tests/* build/tests/ && cp build/s23/fb5/examples/* build/examples/ && cp build/s23/fb5/variants.txt generated/
echo "== tests on cuda"
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py -k cuda 2>&1 | tail -2
M="build/tuning/measure --backend cuda --tuning none"
echo "== sanitizers: grid add/sub with long carries, a division by 2^k - 1"
printf 'run add 4194304 3 default 1 pattern=breaks\nrun sub 4194304 3 default 1 pattern=breaks\nrun add 4194304 2 default 1 pattern=ones_plus_one\nrun sub 4194304 2 default 1 pattern=zero_minus_one\nrun divrem 1048576 2 default 1 abits=2097152,pattern=mersenne\n' > /tmp/s.txt
for tool in memcheck racecheck; do
  LD_LIBRARY_PATH=$PWD/lib timeout 150 compute-sanitizer --tool $tool $M < /tmp/s.txt 2>&1 | grep "^run\|ERROR SUMMARY\|hazard" | head -8
done
echo "== batch gcd (ms)"
for r in 1 2 3; do for v in s22/ex s23/fb5; do echo -n "$v: "; build/$v/bg_cmp - 65536; done; done
for v in s22/ex s23/fb5; do echo -n "$v: "; build/$v/bg_cmp - 1048576; done
echo "== single instances (ms)"
for v in s22/ex s23/fb5; do
  printf 'run add 1073741824 1 default 10 pattern=random\nrun add 1073741824 1 default 10 pattern=ones_plus_one\nrun add 1073741824 1 default 10 pattern=breaks\nrun mul 67108864 1 default 10 pattern=random\nrun mul 67108864 1 default 10 pattern=max\nrun mul 536870912 1 default 5 pattern=random\nrun divrem 67108864 1 default 3 abits=134217728\nrun divrem 67108864 1 default 3 abits=134217728,pattern=mersenne\nrun divrem 1048576 1 default 5 abits=2097152\n' | LD_LIBRARY_PATH=$PWD/build/$v/lib timeout 150 $M 2>&1 | grep "^run" | sed "s|^|$v |"
done
