#!/bin/bash
# session script kept as the record; run from the repository root on the GPU machine with lib/ and build/ carried
pip install --no-index --target /tmp/gm gmpy2-*.whl -q 2>&1 | tail -1
t0=$(date +%s)
printf '%s\n' "mod 536870912 1 near 12 device none abits=1073741824" "divrem 536870912 1 random 13 host none abits=1073741824" \
 | timeout 200 build/tests/check_batch --backend cuda 2>&1 | tail -2
echo "div checks took $(( $(date +%s) - t0 )) s"
timeout 300 python3 bgcd.py 2>&1 | tail -6
printf '%s\n' 'gmpop divrem 268435456 1 1 abits=536870912' | timeout 120 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^gmpop"
