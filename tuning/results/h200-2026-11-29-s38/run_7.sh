#!/bin/bash
# s38 run 7: 4 blocks an SM (128 registers) for powm's FP64 kernels now that their products take turns: res4 (16 words:
# 140-144 B of spills at 1024 and 2048 bits; 12 words: none) against head38 (main at dc9a1de: 3 blocks, 168
# registers); check_batch of res4, then the rates, two rounds
set -u
S=build/s38
pats="random zero max mersenne near mixed exponents"
for b in 1024 1536 2048 3072 4096; do
  e=$b; [ $b -gt 1024 ] && e=512
  for p in $pats; do for sec in 0 1; do echo "powm $b 61 $p 19 device none ebits=$e,secret=$sec"; done; done
done > /tmp/cases.txt
LD_LIBRARY_PATH=$S/res4 timeout 150 $S/res4/tests/check_batch --backend cuda < /tmp/cases.txt > /tmp/r.txt 2>&1
echo "res4 checks: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/cases.txt)"; grep -v '^ok' /tmp/r.txt | head -3
cmds="run powm 1024 1048576 default 3 ebits=512
run powm 1024 524288 default 3 ebits=1024,secret=1
run powm 1536 524288 default 3 ebits=512
run powm 2048 262144 default 3 ebits=512
run powm 3072 131072 default 3 ebits=512
run powm 4096 65536 default 3 ebits=512"
for r in 1 2; do for L in head38 res4; do
  echo "$cmds" | LD_LIBRARY_PATH=$S/$L timeout 100 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk -v L=$L -v R=$r '{print R, L, $2, $3, $4, $7, $8, $9}'
done; done
