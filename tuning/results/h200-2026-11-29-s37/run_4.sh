#!/bin/bash
# s37 run 4: (a) powm's constant-time table scan unrolled by 2 and 4 (ctu2, ctu4: 1024 and 2048 bits) against the
# landed montsqr build (sq): check_batch, then 2 rounds; (b) make bench's division and modular table (tuning/bench.py:
# GMP's mpz on 16 host threads) with the full default build at 2936714 (full2): every modular operation at 256-2048
# bits, and at 3072-8192 bits all but powm (powm at those sizes: run 2)
set -u
bash build/s37/full2/unpack.sh
for L in ctu2 ctu4; do
  printf "powm 1024 200 mixed 3 device none ebits=1024,secret=1\npowm 2048 100 mixed 4 device none ebits=512,secret=1\npowm 1024 100 exponents 5 device none ebits=1024,secret=1\n" | LD_LIBRARY_PATH=build/s37/$L timeout 100 build/s37/$L/tests/check_batch --backend cuda 2>&1 | sed "s/^/$L /"
done
cmds="run powm 1024 524288 default 3 ebits=1024,secret=1
run powm 1024 524288 default 3 ebits=1024
run powm 2048 131072 default 3 ebits=512,secret=1"
for r in 1 2; do
  for L in sq ctu2 ctu4; do
    echo "== round $r $L"; echo "$cmds" | LD_LIBRARY_PATH=build/s37/$L timeout 100 build/s37/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $4, $7, $8, $9}'
  done
done
echo "== bench 256-2048"
timeout 330 python3 tuning/bench.py --ops mul,divrem,mod,mulmod,mulmod_shared,powm,powm_shared,gcd,modinv --sizes 256,384,512,1024,1536,2048 --single '' --exprs '' --reps 5 --threads 16 --tuning none --out $OUT/bench_s37_a 2>&1 | tail -60
echo "== bench 3072-8192"
timeout 200 python3 tuning/bench.py --ops mul,divrem,mod,mulmod,mulmod_shared,gcd,modinv --sizes 3072,4096,8192 --single '' --exprs '' --reps 5 --threads 16 --tuning none --out $OUT/bench_s37_b 2>&1 | tail -30
