#!/bin/bash
# s33 run 9: the radix-2^49 branch at 384, 512 and 1024 bits (space.f49_min_bits: moduli from 2^363, 2^510, 2^1000;
# the NARROW test at the size's own threshold), ops mul, mulmod, mod, divrem at 384-2048 bits: CUDA tests (every
# mulmod variant forced against GMP, the composition, the routing), memcheck at 512 and 1024, rates beside mul
set -u
P=build/s33/lib2
mkdir -p lib build/tests generated build/tuning
cp $P/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py tests/test_variants.py -k "cuda and (mulmod or composed or wide) and not generated" 2>&1 | tail -2
for b in 512 1024; do
  printf "mulmod $b 300 mixed 5 device none\nmulmod $b 300 random 6 device none\nmulmod $b 300 max 7 host none\n" > /tmp/mc.txt
  MIDINT_VARIANT=$(awk -v b=$b '$2=="mulmod" && $3==b && $7=="cuda" {print $1}' generated/variants.txt) timeout 300 compute-sanitizer --tool memcheck --print-limit 5 build/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1
done
for r in 1 2; do
  echo "== round $r"
  printf "run mul 384 4194304 default 5\nrun mulmod 384 4194304 default 5\nrun mulmod 384 4194304 default 5 modulus=short\nrun mul 512 4194304 default 5\nrun mulmod 512 4194304 default 5\nrun mulmod 512 4194304 default 5 modulus=even\nrun mulmod 512 4194304 default 5 modulus=short\nrun mul 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5 modulus=short\n" | timeout 300 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
done
