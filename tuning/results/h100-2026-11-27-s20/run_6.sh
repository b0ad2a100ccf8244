#!/bin/bash
# untracked session script: split batches (2^21 moduli), the landed code beside the session's start, checks
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/sess && tar xJf ab.tar.xz && cd ../.. && mkdir -p lib && cp build/sess/new/lib/libmidint.so lib/
pip install --no-index --target /tmp/gm gmpy2-*.whl -q 2>&1 | grep -v WARN | tail -1
inc=$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["include"])'); suf=$(python3 -c 'import sysconfig;print(sysconfig.get_config_var("EXT_SUFFIX"))')
gcc -O3 -fPIC -shared -I$inc python/midint/_convert.c -o python/midint/_convert$suf
echo "== tests on cuda"
timeout 250 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py tests/test_wrap_product.py -k cuda 2>&1 | tail -2
echo "== A/B batch gcd: old (start of session), new"
for r in 1 2 3; do for v in old new; do echo -n "$v: "; build/sess/$v/bg_cmp - 65536; done; done
for v in old new; do echo -n "$v: "; build/sess/$v/bg_cmp - 1048576; done
echo "== split: 2^21 moduli (two parts of 2^20); old refuses"
build/sess/old/bg_cmp - 2097152 | head -2
build/sess/new/bg_cmp - 2097152
echo "== memcheck: a split batch (parts of 64) and the default"
MIDINT_TEST_GCD_PART=64 timeout 150 compute-sanitizer --tool memcheck --leak-check no build/sess/new/bg_cmp - 300 2>&1 | tail -2
echo "== from Python, checked with gmpy2: 2^16, 2^21"
timeout 300 python3 build/sess/bgcd_s19.py 65536,2097152 check
