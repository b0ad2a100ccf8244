#!/bin/bash
# s37 run 5: mulmod_shared above 1024 bits composed as mul then mod (the modulus copied to every instance for mod;
# ms: mul, mod, divrem, mulmod, mulmod_shared at 1024-8192 bits): the CUDA tests of the composition and the Python
# shared-modulus calls, check_batch on every modular pattern, compute-sanitizer, then rates beside mul and mulmod
# (mulmod_shared's own kernels: run 4)
set -u
P=build/s37/ms
mkdir -p lib build/tests build/tuning generated
cp $P/libmidint.so* lib/ && cp $P/tests/* build/tests/ && cp $P/tuning/measure build/tuning/ && cp $P/variants.txt generated/
echo "== pytest (cuda)"
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py tests/test_python_modarith.py -k "cuda and (composed or shared)" 2>&1 | grep -E "^E |passed|failed|error" | head -10
pats="random zero max one mersenne fermat pow2 near multiple single_bits shared equal mixed"
for b in 1536 2048 3040 3072 4096 8192; do
  for p in $pats; do echo "mulmod_shared $b 150 $p 21 device none"; echo "mulmod_shared $b 70 $p 22 host none"; done
done > /tmp/c.txt
timeout 200 build/tests/check_batch --backend cuda < /tmp/c.txt > /tmp/r.txt 2>&1; echo "check_batch: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/c.txt)"; grep -v '^ok' /tmp/r.txt | head -5
printf "mulmod_shared 2048 300 mixed 5 device none\nmulmod_shared 4000 40 random 6 host none\n" | timeout 200 compute-sanitizer --tool memcheck --print-limit 5 build/tests/check_batch --backend cuda 2>&1 | tail -1 | sed "s/^/memcheck: /"
for b in 1536 2048 4096 8192; do
  c=$(( (1 << 27) / (b / 32) ))
  echo "time mul $b $c default 5"; echo "run mulmod $b $c default 5"
  echo "run mulmod_shared $b $c default 5 modulus=odd"; echo "run mulmod_shared $b $c default 5 modulus=even"
done > /tmp/m.txt
timeout 200 build/tuning/measure --backend cuda --tuning none < /tmp/m.txt 2>&1 | grep -E "^run|^time|rror" | awk '{print $2, $3, $4, $5, $7, $8, $9}'
