#!/bin/bash
# s39 run 10: the interleaved squaring's step end written as a turn's end of D rows (turn_end(D, D, L) in place of
# step_end: the same sums; the 256-, 512-, 1536- and 3072-bit cubins come out byte for byte the same, the 1024-,
# 2048- and 4096-bit ones scheduled differently). Packs: base (main at bc61b95), se (the tree). check_batch of se on the
# 14 modular patterns, fast and constant time; rates, two rounds.
set -u
S=build/s39
pats="random zero max one mersenne fermat pow2 near multiple single_bits shared equal exponents mixed"
for b in 1024 2048 4096; do
  e=$b; [ $b -gt 1024 ] && e=512
  for p in $pats; do for sec in 0 1; do echo "powm $b 61 $p 17 device none ebits=$e,secret=$sec"; done; done
done > /tmp/cases.txt
LD_LIBRARY_PATH=$S/se timeout 150 $S/se/tests/check_batch --backend cuda < /tmp/cases.txt > /tmp/r.txt 2>&1
echo "se checks: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/cases.txt)"; grep -v '^ok' /tmp/r.txt | head -3
cmds="run powm 1024 1048576 default 3 ebits=512
run powm 1024 524288 default 3 ebits=1024,secret=1
run powm 2048 262144 default 3 ebits=512
run powm 4096 65536 default 3 ebits=512"
for r in 1 2; do for L in base se; do
  echo "$cmds" | LD_LIBRARY_PATH=$S/$L timeout 100 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk -v L=$L -v R=$r '{print R, L, $3, $4, $7, $8}'
done; done
