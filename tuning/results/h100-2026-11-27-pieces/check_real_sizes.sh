#!/bin/bash
# session script kept as the record; run from the repository root on the GPU machine with lib/ and build/ carried
# pieces at real sizes against GMP (CUDA)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
B=build/tests/check_batch
t0=$(date +%s)
printf '%s\n' \
 "mul 268435456 1 max 1 device none" \
 "mul 268435456 1 random 2 host none" \
 "sqr 268435456 1 max 3 device none" \
 "mullo 268435456 2 random 4 device none" \
 "mul 268435232 1 random 5 device none" \
 "mul 536870912 1 max 6 device none" \
 "sqr 536870912 1 random 7 device none" \
 "mullo 536870912 1 max 8 host none" \
 "mul 536902912 1 random 9 device none" \
 "mul 1073741824 1 max 10 device none" \
 | timeout 400 $B --backend cuda 2>&1 | tail -12
echo "checks took $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
printf '%s\n' \
 "divrem 268435456 1 random 11 device none abits=536870912" \
 "mod 536870912 1 near 12 device none abits=1073741824" \
 | timeout 160 $B --backend cuda 2>&1 | tail -3
echo "div checks took $(( $(date +%s) - t0 )) s"
