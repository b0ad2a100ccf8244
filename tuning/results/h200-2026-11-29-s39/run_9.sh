#!/bin/bash
# s39 run 9: the squaring with its square rows first adds each cross product once where the window's columns start at
# zero (square_row_once: from column 0 on one lane, from D on several), doubling columns 2r and 2r + 1 after row r.
# Packs: base (main at bc61b95: every shape interleaved), sqB2 (the landed 512-bit kernel: rows first, cross products
# doubled as they go in), dbA (the tree: the landed shapes with square_row_once), dbB (dbA with the rows first, and so
# square_row_once, on 2, 4 and 8 lanes of 16 words and one lane of 8). check_batch of dbA and dbB on the 14 modular
# patterns, fast and constant time; rates, two rounds.
set -u
S=build/s39
pats="random zero max one mersenne fermat pow2 near multiple single_bits shared equal exponents mixed"
for b in 256 512 1024 2048 4096; do
  e=$b; [ $b -gt 1024 ] && e=512
  for p in $pats; do for sec in 0 1; do echo "powm $b 61 $p 17 device none ebits=$e,secret=$sec"; done; done
done > /tmp/cases.txt
for L in dbA dbB; do
  LD_LIBRARY_PATH=$S/$L timeout 150 $S/$L/tests/check_batch --backend cuda < /tmp/cases.txt > /tmp/r.txt 2>&1
  echo "$L checks: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/cases.txt)"; grep -v '^ok' /tmp/r.txt | head -3
done
cmds="run powm 256 4194304 default 3 ebits=512
run powm 512 2097152 default 3 ebits=512
run powm 1024 1048576 default 3 ebits=512
run powm 1024 524288 default 3 ebits=1024,secret=1
run powm 2048 262144 default 3 ebits=512
run powm 4096 65536 default 3 ebits=512"
for r in 1 2; do for L in base sqB2 dbA dbB; do
  echo "$cmds" | LD_LIBRARY_PATH=$S/$L timeout 100 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk -v L=$L -v R=$r '{print R, L, $3, $4, $7, $8}'
done; done
