#!/bin/bash
# untracked session script: reserve_ab.py (the results' ints made during the device call or after it)
cd build/sess && tar xJf ab2.tar.xz && cd ../.. && mkdir -p lib && cp build/sess/new/lib/libmidint.so lib/
nvidia-smi --query-gpu=name --format=csv,noheader; lscpu | grep "Model name"; uptime
pip install -q --no-index --target /tmp/gm build/sess/gmpy2*.whl 2>&1 | tail -1
INC=$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["include"])')
SUF=$(python3 -c 'import sysconfig;print(sysconfig.get_config_var("EXT_SUFFIX"))')
gcc -O3 -fPIC -shared -pthread -I$INC python/midint/_convert.c -o python/midint/_convert$SUF
timeout 250 python3 build/sess/reserve_ab.py
