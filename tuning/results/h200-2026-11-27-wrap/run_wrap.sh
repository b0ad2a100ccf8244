#!/bin/bash
# untracked session script: wrapped products in the remainder tree: tests on CUDA, thresholds side by side, traces,
# 2^16 and 2^20 checked with gmpy2, memcheck
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
pip install --no-index --target /tmp/gm gmpy2-*.whl -q 2>&1 | grep -v WARN | tail -1
inc=$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["include"])'); suf=$(python3 -c 'import sysconfig;print(sysconfig.get_config_var("EXT_SUFFIX"))')
gcc -O3 -fPIC -shared -I$inc python/midint/_convert.c -o python/midint/_convert$suf
echo "== tests on cuda"
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_wrap_product.py tests/test_batch_gcd.py -k cuda 2>&1 | tail -4
echo "== thresholds (- = default 4096; 4294967295 = never: the landed path)"
timeout 200 build/sess/bg_cmp -,4294967295,1024,16384 1024 16384 65536 262144 1048576
echo "== trace, default"
MIDINT_TRACE_BATCH_GCD=1 timeout 60 build/sess/bg_cmp - 65536 2>&1 | tail -40
MIDINT_TRACE_BATCH_GCD=1 timeout 60 build/sess/bg_cmp - 1048576 2>&1 | tail -48
echo "== 2^16, 2^20 from ints and arrays, checked"
timeout 200 python3 bgcd_s19.py 65536,1048576 check
echo "== memcheck, every level wrapped (threshold 1) beside the default and never"
timeout 200 compute-sanitizer --tool memcheck --leak-check no build/sess/bg_cmp 1,-,4294967295 3 300 4096 2>&1 | tail -5
