#!/bin/bash
# s37 run 6: the composed mulmod_shared keeping its modulus's copies for the next call of the same modulus object
# (ms rebuilt): the CUDA tests of the composition, check_batch on every pattern at 2048 and 4096 bits, rates (the
# measure's repeated calls reuse the copies after the first)
set -u
P=build/s37/ms
mkdir -p lib build/tests build/tuning generated
cp $P/libmidint.so* lib/ && cp $P/tests/* build/tests/ && cp $P/tuning/measure build/tuning/ && cp $P/variants.txt generated/
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py -k cuda 2>&1 | grep -E "^E |passed|failed|error" | head -6
for b in 2048 4096; do for p in random zero max one mersenne fermat pow2 near multiple single_bits shared equal mixed; do echo "mulmod_shared $b 150 $p 31 device none"; done; done > /tmp/c.txt
timeout 100 build/tests/check_batch --backend cuda < /tmp/c.txt > /tmp/r.txt 2>&1; echo "check_batch: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/c.txt)"
for b in 2048 4096 8192; do
  c=$(( (1 << 27) / (b / 32) ))
  echo "run mulmod $b $c default 5"; echo "run mulmod_shared $b $c default 5 modulus=odd"
done > /tmp/m.txt
timeout 100 build/tuning/measure --backend cuda --tuning none < /tmp/m.txt 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $4, $5, $7, $8, $9}'
