#!/bin/bash
# untracked session script: the landed code (fe6d7f8): memcheck, new beside landed, 2^16 and 2^20 checked
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
pip install --no-index --target /tmp/gm gmpy2-*.whl -q 2>&1 | grep -v WARN | tail -1
inc=$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["include"])'); suf=$(python3 -c 'import sysconfig;print(sysconfig.get_config_var("EXT_SUFFIX"))')
gcc -O3 -fPIC -shared -I$inc python/midint/_convert.c -o python/midint/_convert$suf
echo "== memcheck (new and landed, 3, 300 and 4096 moduli)"
timeout 250 compute-sanitizer --tool memcheck --leak-check no build/sess/bg_time 3 300 4096 2>&1 | tail -4
echo "== new beside landed"
timeout 300 build/sess/bg_time 1024 16384 65536 262144 1048576
timeout 300 build/sess/bg_time 65536 65536
echo "== 2^16, 2^20 from ints and arrays, checked"
timeout 300 python3 bgcd_s18.py 65536,1048576 check
