#!/bin/bash
# s33 run 6: the library's per-instance mulmod with the radix-2^49 branch (lib_mulmod_f49.j2 in kernel_mod_thread.j2,
# CUDA 1024 bits; the NARROW trait from ops.c's check_instances) built from the working tree with ops mul, mulmod,
# mod, divrem at 512-2048 bits: CUDA tests (every mulmod variant forced against GMP, the composition, the routing
# test), memcheck on the kernel, then rates beside mul (2^22 instances at 1024 bits), two rounds
set -u
P=build/s33/lib
mkdir -p lib build/tests generated build/tuning
cp $P/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 python3 -m pytest -q -x -p no:cacheprovider tests/test_composed.py "tests/test_variants.py" -k "cuda and (mulmod or composed or wide)" 2>&1 | tail -4
V=$(awk '$2=="mulmod" && $3==1024 && $7=="cuda" {print $1}' generated/variants.txt)
echo "== memcheck $V"
printf "mulmod 1024 300 mixed 5 device none\nmulmod 1024 300 random 6 device none\nmulmod 1024 300 max 7 host none\n" > /tmp/mc.txt
MIDINT_VARIANT=$V timeout 300 compute-sanitizer --tool memcheck --print-limit 5 build/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -4
for r in 1 2; do
  echo "== round $r"
  printf "run mul 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5\nrun mulmod 1024 4194304 default 5 modulus=even\nrun mulmod 1024 4194304 default 5 modulus=short\nrun mulmod 512 4194304 default 5\nrun mulmod 2048 1048576 default 5\nrun mul 2048 1048576 default 5\n" | timeout 300 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
done
