#!/bin/bash
# untracked session script: the landed code (fb14): CUDA tests of the division's users, compute-sanitizer on replays
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s25 && tar xJf fb14.tar.xz && cd ../..
mkdir -p lib build/tests build/examples && cp build/s25/fb14/lib/libmidint.so lib/ && cp build/s25/fb14/tests/* build/tests/ && cp build/s25/fb14/examples/* build/examples/ && cp build/s25/fb14/variants.txt generated/
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_batch_gcd.py tests/test_bigdiv.py tests/test_wrap_product.py tests/test_python_api.py tests/test_python_props.py tests/test_moddiv_fast.py -k "cuda" 2>&1 | grep -v "^  \|^$" | tail -12
cases=$(for k in 1 2 3 4 5 6; do echo "divrem 65536 3 mixed $k device none abits=131072"; echo "mod 4096 2 max $((k+10)) host none"; echo "divrem 1600 1 near $((k+20)) async none"; done)
for tool in memcheck racecheck; do echo "== $tool"
printf '%s\n' "$cases" | MIDINT_TEST_BIGDIV=5 MIDINT_TRACE_REPLAY=1 timeout 200 compute-sanitizer --tool $tool build/tests/check_batch --backend cuda > /tmp/san.txt 2>&1
grep -v "^ok\|epoch" /tmp/san.txt | sed 's/clock [0-9]*/clock/' | sort | uniq -c | sort -rn | head -8; grep -c "^ok" /tmp/san.txt; done
