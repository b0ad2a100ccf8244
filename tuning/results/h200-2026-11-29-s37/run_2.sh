#!/bin/bash
# s37 run 2: powm's squarings with each cross product once (mf_montsqr, sq: powm and powm_shared at 256-4096 bits)
# against main at the session's start (the full default build, unpacked into lib/ and build/): check_batch on every
# modular pattern (fast and constant time), compute-sanitizer, then rates over 2 rounds
set -u
bash build/s37/full/unpack.sh
S=build/s37/sq
pats="random zero max one mersenne fermat pow2 near multiple single_bits shared equal exponents mixed"
for b in 512 1024 2048 4096; do
  e=$b; [ $b -gt 1024 ] && e=1024
  cnt=200; [ $b = 4096 ] && cnt=64
  for op in powm powm_shared; do
    for p in $pats; do
      for sec in 0 1; do echo "$op $b $cnt $p 11 device none ebits=$e,secret=$sec"; done
    done
  done
done > /tmp/cases.txt
LD_LIBRARY_PATH=$S timeout 400 $S/tests/check_batch --backend cuda < /tmp/cases.txt > /tmp/sq_checks.txt 2>&1
echo "sq checks: $(grep -c '^ok' /tmp/sq_checks.txt) ok of $(wc -l < /tmp/cases.txt)"; grep -v '^ok' /tmp/sq_checks.txt | head
printf "powm 1024 40 mixed 5 device none ebits=1024,secret=1\npowm 2048 40 random 5 device none ebits=256\npowm 512 40 mixed 3 device none ebits=512\n" > /tmp/mc.txt
LD_LIBRARY_PATH=$S timeout 200 compute-sanitizer --tool memcheck --print-limit 5 $S/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1 | sed "s/^/memcheck: /"
LD_LIBRARY_PATH=$S timeout 200 compute-sanitizer --tool racecheck --print-limit 5 $S/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1 | sed "s/^/racecheck: /"
cmds="run powm 512 2097152 default 3 ebits=512
run powm 1024 1048576 default 3 ebits=512
run powm 1024 524288 default 3 ebits=1024,secret=1
run powm 2048 262144 default 3 ebits=512
run powm 2048 131072 default 3 ebits=512,secret=1
run powm 4096 65536 default 3 ebits=512
run powm_shared 1024 1048576 default 3 ebits=512,modulus=odd
run powm 256 4194304 default 3 ebits=512"
for r in 1 2; do
  echo "== round $r base"; echo "$cmds" | timeout 200 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $4, $7, $8, $9}'
  echo "== round $r sq"; echo "$cmds" | LD_LIBRARY_PATH=$S timeout 200 $S/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $4, $7, $8, $9}'
done
echo "== constant time, sq: 1024 bits, 1024-bit exponents, zero / max"
for p in zero max zero max; do echo "run powm 1024 262144 default 3 ebits=1024,secret=1,pattern=$p"; done | LD_LIBRARY_PATH=$S timeout 200 $S/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $4, $7, $8, $9}'
