#!/bin/bash
# s38 run 9: the same build (build/s38/full): powm at 3072 and 4096 bits (512-bit exponents; tuning/measure, as the
# thirty-seventh session's run 2), make bench's rows of mul, mulmod and mulmod_shared at 1536-8192 bits (mulmod_shared
# composed there since the thirty-seventh session; the committed rows were of its old kernels), and the CUDA tests of
# the Python modular calls (run 8's test selection ran past its limit)
set -u
bash build/s38/full/unpack.sh
printf "run powm 3072 131072 default 3 ebits=512\nrun powm 4096 65536 default 3 ebits=512\nrun powm 4096 65536 default 3 ebits=512,secret=1\n" | timeout 60 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $4, $5, $7, $8, $9}'
timeout 130 python3 tuning/bench.py --ops mul,mulmod,mulmod_shared --sizes 1536,2048,3072,4096,8192 --single '' --exprs '' --reps 5 --threads 16 --tuning none --out $OUT/bench_s38_mulmod 2>&1 | grep -E "^mul|wrote"
timeout 90 python3 -m pytest -q -p no:cacheprovider tests/test_python_modarith.py -k "cuda" 2>&1 | tail -3
