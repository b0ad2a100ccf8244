#!/bin/bash
# s39 run 2: after run 1 (the square rows first helped only on one lane, 512 bits), the candidate and the products
# first. Packs: base (main at bc61b95), sqB2 (the tree: 16 words' squarings with the square rows first, no turns),
# mfA (sqB2 with mf_montmul's products of a turn first, then its reductions, at 8, 12 and 16 words), mfB (mfA with the
# products unrolled, one turn). check_batch on the 14 modular patterns at every size, fast and constant time; the
# rates, two rounds.
set -u
S=build/s39
pats="random zero max one mersenne fermat pow2 near multiple single_bits shared equal exponents mixed"
for b in 256 512 1024 1536 2048 3072 4096; do
  e=$b; [ $b -gt 1024 ] && e=512
  for p in $pats; do for sec in 0 1; do echo "powm $b 61 $p 17 device none ebits=$e,secret=$sec"; done; done
done > /tmp/cases.txt
for L in sqB2 mfA mfB; do
  LD_LIBRARY_PATH=$S/$L timeout 150 $S/$L/tests/check_batch --backend cuda < /tmp/cases.txt > /tmp/r.txt 2>&1
  echo "$L checks: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/cases.txt)"; grep -v '^ok' /tmp/r.txt | head -3
done
cmds="run powm 256 4194304 default 3 ebits=512
run powm 512 2097152 default 3 ebits=512
run powm 1024 1048576 default 3 ebits=512
run powm 1024 524288 default 3 ebits=1024,secret=1
run powm 1536 524288 default 3 ebits=512
run powm 2048 262144 default 3 ebits=512
run powm 3072 131072 default 3 ebits=512
run powm 4096 65536 default 3 ebits=512"
for r in 1 2; do for L in base sqB2 mfA mfB; do
  echo "$cmds" | LD_LIBRARY_PATH=$S/$L timeout 100 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk -v L=$L -v R=$r '{print R, L, $3, $4, $7, $8}'
done; done
