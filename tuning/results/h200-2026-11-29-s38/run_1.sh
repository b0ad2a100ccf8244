#!/bin/bash
# s38 run 1: (a) the prepared A/B of s37 (imad_doubling_run.sh: the squaring's doubled adds on the multiply-add pipe,
# build/s37/imad against build/s37/head); (b) make bench's gcd and modinv rows at 256-2048 bits that s37's bench
# call ran out of time before (tuning/bench.py with the full default build full2 of 2936714; gcd/modinv unchanged since)
set -u
bash tuning/results/h200-2026-11-29-s37/imad_doubling_run.sh
bash build/s37/full2/unpack.sh
echo "== bench gcd, modinv 256-2048"
timeout 300 python3 tuning/bench.py --ops gcd,modinv --sizes 256,384,512,1024,1536,2048 --single '' --exprs '' --reps 5 --threads 16 --tuning none --out $OUT/bench_s38_gcd 2>&1 | tail -30
