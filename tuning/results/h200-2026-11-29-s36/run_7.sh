#!/bin/bash
# s36 run 7: the FP64 division on lanes at 2048 bits (xa: 4 lanes of 11 limbs, Q 16; xb: 2 lanes of 22, Q 32; both
# in place of the rows' thread per instance), 16384 bits (radix 2^47, 16 lanes) and 32768 (2^44, 32 lanes), against
# the session's start (base2: rows at 2048, the division on words from 3072); mulmod with a per-instance modulus (mul
# then mod) beside mul at 2048-8192. check_batch on a few patterns, memcheck on the new sizes, rates 2 rounds
set -u
S=build/s36
for L in xa xb; do
  for b in 2048 16384 32768; do
    for op in divrem mod; do
      for p in random max mixed; do
        cnt=600; [ $b = 32768 ] && cnt=150
        printf "$op $b $cnt $p 17 device none\n" | LD_LIBRARY_PATH=$S/$L timeout 120 $S/$L/tests/check_batch --backend cuda 2>&1 | tail -1 | grep -v "^ok" | sed "s/^/$L $op $b $p: /"
      done
    done
  done
done
for b in 2048 4096 8192; do printf "mulmod $b 600 random 3 device none\n" | LD_LIBRARY_PATH=$S/xa timeout 60 $S/xa/tests/check_batch --backend cuda 2>&1 | tail -1 | grep -v "^ok" | sed "s/^/xa mulmod $b: /"; done
echo "checks done"
printf "divrem 2048 300 mixed 5 device none\nmod 16384 60 random 7 device none\ndivrem 32768 40 near 3 device4 none\n" > /tmp/mc.txt
LD_LIBRARY_PATH=$S/xa timeout 300 compute-sanitizer --tool memcheck --print-limit 5 $S/xa/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1 | sed "s/^/memcheck: /"
LD_LIBRARY_PATH=$S/xa timeout 300 compute-sanitizer --tool racecheck --print-limit 5 $S/xa/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1 | sed "s/^/racecheck: /"
for r in 1 2; do
  for L in base2 xa xb; do
    echo "== round $r $L"
    printf "run divrem 2048 1048576 default 5\nrun mod 2048 1048576 default 5\nrun divrem 16384 65536 default 3\nrun mod 16384 65536 default 3\nrun divrem 32768 16384 default 3\nrun mod 32768 16384 default 3\nrun mul 2048 1048576 default 5\nrun mulmod 2048 1048576 default 5\nrun mul 4096 524288 default 5\nrun mulmod 4096 524288 default 5\nrun mul 8192 262144 default 5\nrun mulmod 8192 262144 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $5, $7}' | tr '\n' ';'; echo
  done
done
