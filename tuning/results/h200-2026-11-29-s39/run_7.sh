#!/bin/bash
# s39 run 7: make bench's mul, mulmod and mulmod_shared rows at 1536 and 3072 bits on the whole default build
# (build/s39/full at 4d7bed2), where mul has had its own 12-word kernels since the thirty-eighth session's run 11 and
# the shares of mul's rate were last taken against the padded mul
set -u
bash build/s39/full/unpack.sh
timeout 200 python3 tuning/bench.py --ops mul,mulmod,mulmod_shared --sizes 1536,3072 --single '' --exprs '' --reps 5 --threads 16 --tuning none --out $OUT/bench_s39_mulmod 2>&1 | grep -E "^mul|wrote"
