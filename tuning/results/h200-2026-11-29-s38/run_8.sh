#!/bin/bash
# s38 run 8: the whole default build at b18dcf5 (build/s38/full, unpacked into lib/, build/, generated/): the CUDA tests
# of powm (every variant against GMP) and the Python modular calls; make bench's powm and powm_shared rows at 256-2048
# bits (512-bit and full-width exponents); RSA-2048 end to end (examples/rsa_crt), two rounds
set -u
bash build/s38/full/unpack.sh
echo "== pytest (cuda): powm variants, Python modular calls, RSA"
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_variants.py tests/test_python_modarith.py tests/test_rsa_crt.py -k "cuda and (powm or rsa or modarith) and not generated" 2>&1 | grep -E "^E |passed|failed|error" | head -12
echo "== bench powm, powm_shared 256-2048"
timeout 170 python3 tuning/bench.py --ops powm --sizes 256,384,512,1024,1536,2048 --single '' --exprs '' --reps 5 --threads 16 --tuning none --out $OUT/bench_s38_powm 2>&1 | grep -E "^powm|wrote"
timeout 150 python3 tuning/bench.py --ops powm_shared --sizes 256,384,512,1024,1536,2048 --single '' --exprs '' --reps 5 --threads 16 --tuning none --out $OUT/bench_s38_powm_shared 2>&1 | grep -E "^powm|wrote"
echo "== RSA-2048, 262144 messages over 16 keys"
for r in 1 2; do timeout 60 build/examples/rsa_crt 262144 16 2>&1 | tail -4; done
