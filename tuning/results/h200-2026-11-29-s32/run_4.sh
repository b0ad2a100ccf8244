#!/bin/bash
# s32 run 4: mulmod_shared's Barrett in radix 2^52 in the library (f52: ops mul, mulmod_shared, powm_shared, mulmod,
# mod, divrem at 512, 1024, 2048 bits) — CUDA tests of those variants and of the Python modular calls, memcheck, the
# rates beside mul; then the large division's corrections without read-backs (new: default sizes, ops add, sub, mul,
# mullo, sqr, shl, shr, divrem, mod, gcd) against the session start's build of the same (old): the CUDA bigdiv and
# batch GCD tests, divrem at 2^20-2^29-bit divisors and batch GCD of 2^16 and 2^20 moduli, two rounds
set -u
P=build/s32
(cd $P && tar xJf old.tar.xz && tar xJf new.tar.xz)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p lib build/tests build/tuning generated build/examples
F=$P/f52
cp $F/libmidint.so lib/ && cp $F/tests/* build/tests/ && cp $F/variants.txt generated/ && cp $F/measure build/tuning/
echo "== f52 tests"
timeout 300 python3 -m pytest -q -p no:cacheprovider -k "cuda and (mulmod_shared or powm_shared or selected_variant_for_a_modulus or shared_arrays)" tests/test_variants.py tests/test_python_modarith.py 2>&1 | grep -E "^E |passed|failed|error" | head -20
echo "== f52 memcheck"
printf 'mulmod_shared 1024 300 mixed 5 host none\nmulmod_shared 1024 300 max 6 device none\nmulmod_shared 992 77 near 7 host none\n' | timeout 200 compute-sanitizer --tool memcheck build/tests/check_batch --backend cuda 2>&1 | tail -3
echo "== f52 rates"
for r in 1 2; do
  printf "run mul 1024 4194304 default 5\nrun mulmod_shared 1024 4194304 default 5 modulus=odd\nrun mulmod_shared 1024 4194304 default 5 modulus=even\nrun mulmod_shared 1024 4194304 default 5 modulus=short\nrun mulmod_shared 512 8388608 default 5 modulus=odd\nrun mulmod_shared 2048 2097152 default 5 modulus=odd\n" | LD_LIBRARY_PATH=$F timeout 200 $F/measure --backend cuda --tuning none 2>&1 | grep "^run" | sed "s/^/r$r /"
done
echo "== bigdiv"
N=$P/new; O=$P/old
cp $N/libmidint.so lib/ && cp $N/tests/* build/tests/ && cp $N/variants.txt generated/ && cp $N/batch_gcd build/examples/
timeout 250 python3 -m pytest -q -p no:cacheprovider -k cuda tests/test_bigdiv.py tests/test_batch_gcd.py 2>&1 | grep -E "^E |passed|failed|error" | head -20
echo "== trace 2^26 (new)"
printf 'run divrem 67108864 1 default 1 abits=134217728\n' | MIDINT_TRACE_BIGDIV=1 LD_LIBRARY_PATH=$N timeout 60 $N/measure --backend cuda --tuning none 2>&1 | grep -E "block|correction|careful|^run" | head -12
for r in 1 2; do
  for t in old new; do
    d=$P/$t
    for bits in 65536 1048576 16777216 67108864 134217728; do
      printf 'run divrem %s 1 default 9 abits=%s\n' $bits $((2*bits)) | LD_LIBRARY_PATH=$d timeout 60 $d/measure --backend cuda --tuning none 2>&1 | grep "^run" | sed "s/^/$t /"
    done
    printf 'run divrem 536870912 1 default 3 abits=1073741824\n' | LD_LIBRARY_PATH=$d timeout 100 $d/measure --backend cuda --tuning none 2>&1 | grep "^run" | sed "s/^/$t /"
    printf "$t "; LD_LIBRARY_PATH=$d $N/bg_cmp - 65536 | tail -1
    printf "$t "; LD_LIBRARY_PATH=$d timeout 60 $N/bg_cmp - 1048576 | tail -1
  done
done
