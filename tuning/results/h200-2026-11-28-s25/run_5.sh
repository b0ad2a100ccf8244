#!/bin/bash
# untracked session script: the division's reciprocal recorded and replayed (fb12) against the landed code (fb10):
# CUDA tests, compute-sanitizer, divrem at several sizes (fb12 with and without recording), batch GCD
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s25 && for b in fb10 fb12; do tar xJf $b.tar.xz; done && cd ../..
mkdir -p lib build/tests build/examples && cp build/s25/fb12/lib/libmidint.so lib/ && cp build/s25/fb12/tests/* build/tests/ && cp build/s25/fb12/examples/* build/examples/ && cp build/s25/fb12/variants.txt generated/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py tests/test_wrap_product.py -k "cuda" 2>&1 | tail -4
cases=$(for k in 1 2 3 4 5 6; do echo "divrem 65536 3 mixed $k device none abits=131072"; echo "mod 4096 2 max $((k+10)) host none"; done)
for tool in memcheck racecheck; do echo "== $tool"
printf '%s\n' "$cases" | MIDINT_TEST_BIGDIV=5 MIDINT_TRACE_REPLAY=1 timeout 200 compute-sanitizer --tool $tool build/tests/check_batch --backend cuda > /tmp/san.txt 2>&1
grep -v "^ok" /tmp/san.txt | sort | uniq -c | sort -rn | head -6; grep -c "^ok" /tmp/san.txt; done
M="build/tuning/measure --backend cuda --tuning none"
D='run divrem 1048576 1 default 9 abits=2097152
run divrem 4194304 1 default 9 abits=8388608
run divrem 16777216 1 default 9 abits=33554432
run divrem 67108864 1 default 9 abits=134217728
run divrem 67108864 16 default 5 abits=67108864'
for r in 1 2; do for B in fb10 fb12 fb12off; do echo "== $B round $r"
  lib=build/s25/${B%off}/lib; off=$([ $B = fb12off ] && echo 1 || echo 0)
  printf '%s\n' "$D" | MIDINT_TEST_NO_REPLAY=$off LD_LIBRARY_PATH=$PWD/$lib timeout 150 $M 2>&1 | grep "^run"
done; done
for B in fb10 fb12; do echo "== $B 2^30 / 2^29"
printf 'run divrem 536870912 1 default 3 abits=1073741824\n' | LD_LIBRARY_PATH=$PWD/build/s25/$B/lib timeout 150 $M 2>&1 | grep "^run"; done
for B in fb10 fb12; do echo "== $B bg"; for i in 1 2 3; do build/s25/$B/bg_cmp - 65536; done; build/s25/$B/bg_cmp - 1048576; done
echo "== trace fb12"
printf 'run divrem 67108864 1 default 5 abits=134217728\n' | MIDINT_TRACE_REPLAY=1 LD_LIBRARY_PATH=$PWD/build/s25/fb12/lib timeout 100 $M 2>&1 | tail -8
