#!/bin/bash
# session script kept as the record; oldlib3 = a build of 8642b2a (the pieces' row pass in two kernels, the code
# that landed), lib/ = that plus a rows_all kernel (both halves in one block, rows in shared memory), since dropped
# rows_all: the pieces tests on CUDA, real sizes against GMP, timings beside the two-kernel build (oldlib3)
timeout 250 python3 -m pytest -q -x tests/test_ntt_pieces.py -k cuda 2>&1 | tail -2
printf '%s\n' "mul 268435456 1 max 1 device none" "sqr 536870912 1 max 3 device none" "mullo 536870912 1 random 4 device none" \
 "mul 536870912 1 max 6 device none" "mul 536902912 1 random 9 device none" \
 | timeout 200 build/tests/check_batch --backend cuda 2>&1 | tail -5
M="build/tuning/measure --backend cuda --tuning none"
c='time mul 268435456 1 default 10
time mul 536870912 1 default 10
time sqr 536870912 1 default 10
time mullo 536870912 1 default 10
time mul 1073741824 1 default 5
time mul 134217728 1 default 10'
for r in 1 2; do
echo "== two kernels (8642b2a)"; printf '%s\n' "$c" | LD_LIBRARY_PATH=oldlib3 timeout 150 $M 2>&1 | grep "^time"
echo "== rows_all"; printf '%s\n' "$c" | timeout 150 $M 2>&1 | grep "^time"
done
printf '%s\n' 'run divrem 268435456 1 default 3 abits=536870912' 'run divrem 536870912 1 default 3 abits=1073741824' | timeout 100 $M 2>&1 | grep "^run"
