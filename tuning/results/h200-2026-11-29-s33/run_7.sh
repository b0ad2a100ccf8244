#!/bin/bash
# s33 run 7: run 6 after the check kernel reads the modulus's top word first (one read settles both rules): CUDA tests
# (every mulmod variant forced against GMP, the composition, the routing), then rates of libA (as built) and libB (the
# thread's division on words made __noinline__, to see whether it costs the radix-2^49 branch registers) beside mul
# and the spike; Nsight Compute's kernel times inside one mulmod call (the check kernel and the mulmod kernel)
set -u
P=build/s33/lib
mkdir -p lib build/tests generated build/tuning
cp build/s33/libA/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp build/s33/libA/measure build/tuning/
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py tests/test_variants.py -k "cuda and (mulmod or composed or wide) and not generated" 2>&1 | tail -3
for r in 1 2; do
  for L in libA libB; do
    echo "== round $r $L"
    printf "run mul 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5 modulus=short\n" | LD_LIBRARY_PATH=build/s33/$L timeout 300 build/s33/libA/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
  timeout 120 build/s33/spike/school_f49_fast gpu 4194304 5 | head -1
done
echo "== ncu kernel times (libA), one mulmod call of 2^22 instances"
printf "run mulmod 1024 4194304 default 1\n" > /tmp/one.txt
LD_LIBRARY_PATH=build/s33/libA timeout 300 ncu --metrics gpu__time_duration.sum,launch__registers_per_thread build/s33/libA/measure --backend cuda --tuning none < /tmp/one.txt 2>&1 | grep -E "^  [a-z_]+.*\(|gpu__time|registers" | tail -24
