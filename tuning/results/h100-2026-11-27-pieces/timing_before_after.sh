#!/bin/bash
# session script kept as the record; run from the repository root on the GPU machine with lib/ and build/ carried
M="build/tuning/measure --backend cuda --tuning none"
printf '%s\n' "mul 536870912 1 max 6 device none" "mul 536902912 1 random 9 device none" "sqr 268435456 1 max 3 device none" "mullo 268435456 2 random 4 device none" \
 | timeout 200 build/tests/check_batch --backend cuda 2>&1 | tail -4
c='time mul 268435456 1 default 10
time mul 536870912 1 default 10
time sqr 536870912 1 default 10
time mul 134217728 1 default 10
time mul 1048576 64 default 20'
for r in 1 2; do
echo "== a044a40"; printf '%s\n' "$c" | LD_LIBRARY_PATH=oldlib timeout 100 $M 2>&1 | grep "^time"
echo "== moded (f65e6b3)"; printf '%s\n' "$c" | LD_LIBRARY_PATH=oldlib2 timeout 100 $M 2>&1 | grep "^time"
echo "== split (now)"; printf '%s\n' "$c" | timeout 100 $M 2>&1 | grep "^time"
done
