#!/bin/bash
# untracked session script: the landed code: tests on CUDA, batch GCD beside the landed path (the same process),
# traces, 2^16 and 2^20 from Python checked with gmpy2, divrem at the issue's sizes, sanitizers on the new kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
pip install --no-index --target /tmp/gm gmpy2-*.whl -q 2>&1 | grep -v WARN | tail -1
inc=$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["include"])'); suf=$(python3 -c 'import sysconfig;print(sysconfig.get_config_var("EXT_SUFFIX"))')
gcc -O3 -fPIC -shared -I$inc python/midint/_convert.c -o python/midint/_convert$suf
echo "== tests on cuda"
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_wrap_product.py tests/test_batch_gcd.py tests/test_bigdiv.py -k cuda 2>&1 | tail -2
echo "== batch gcd: default (wrapped from 4096 words) beside 4294967295 (never: the landed path)"
timeout 200 build/sess/bg_cmp -,4294967295 1024 16384 65536 262144 1048576 65536 1048576
echo "== traces (phase sums)"
for c in 65536 1048576; do
  MIDINT_TRACE_BATCH_GCD=1 timeout 60 build/sess/bg_cmp - $c 2>&1 | awk '/midint batch_gcd:/ {s[$3] += $(NF-1)} /^batch_gcd/ {print} END {for (k in s) printf "  %-9s %8.2f ms\n", k, s[k]}'
done
echo "== 2^16, 2^20 from ints and arrays, checked"
timeout 200 python3 bgcd_s19.py 65536,1048576 check
echo "== divrem at the issue's sizes; mul for scale"
printf 'time mul 67108864 1 default 5\ntime mul 536870912 1 default 3\nrun divrem 67108864 1 default 5 abits=134217728\nrun divrem 536870912 1 default 3 abits=1073741824\n' | timeout 200 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^time\|^run"
echo "== memcheck: batch gcd (every level wrapped, the default); racecheck and memcheck: wrapped products at two sizes"
timeout 200 compute-sanitizer --tool memcheck --leak-check no build/sess/bg_cmp 1,- 3 300 4096 2>&1 | tail -4
printf '4096 2048 4096 3 max 1\n16384 8192 16384 2 random 2\n' > /tmp/w.txt
timeout 120 compute-sanitizer --tool memcheck build/tests/check_wrap cuda < /tmp/w.txt 2>&1 | tail -3
timeout 200 compute-sanitizer --tool racecheck build/tests/check_wrap cuda < /tmp/w.txt 2>&1 | tail -3
