#!/bin/bash
# s32 run 7: run 6 after the review: the radix-2^52 constants made up to the generated registry's midint_modulus_f52_max_bits (no runtime copy of the sizes), written in place
set -u
P=build/s32
mkdir -p lib build/tests build/tuning generated
F=$P/f52
cp $F/libmidint.so lib/ && cp $F/tests/* build/tests/ && cp $F/variants.txt generated/ && cp $F/measure build/tuning/
echo "== f52 tests"
timeout 300 python3 -m pytest -q -p no:cacheprovider -k "cuda and (mulmod_shared or powm_shared or selected_variant_for_a_modulus or shared_arrays or mulmod)" tests/test_variants.py tests/test_python_modarith.py 2>&1 | grep -E "^E |passed|failed|error" | head -20
echo "== f52 memcheck"
printf 'mulmod_shared 1024 300 mixed 5 host none\nmulmod_shared 1024 300 max 6 device none\nmulmod_shared 992 77 near 7 host none\nmulmod_shared 1024 129 random 8 device ra\n' | timeout 200 compute-sanitizer --tool memcheck build/tests/check_batch --backend cuda 2>&1 | tail -5
echo "== f52 rates"
for r in 1 2; do
  printf "run mul 1024 4194304 default 5\nrun mulmod_shared 1024 4194304 default 5 modulus=odd\nrun mulmod_shared 1024 4194304 default 5 modulus=even\nrun mulmod_shared 1024 4194304 default 5 modulus=short\nrun mulmod_shared 512 8388608 default 5 modulus=odd\nrun mulmod_shared 2048 2097152 default 5 modulus=odd\n" | LD_LIBRARY_PATH=$F timeout 200 $F/measure --backend cuda --tuning none 2>&1 | grep "^run" | sed "s/^/r$r /"
done
