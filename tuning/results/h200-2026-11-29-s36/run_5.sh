#!/bin/bash
# s36 run 5: the landed FP64 division on lanes (fin: 3072, 4096, 8192 bits; 16384 keeps the division on words):
# check_batch on every mod pattern at device, device4 (buffers 4 bytes past their allocation) and host; memcheck and
# racecheck; the CUDA variant tests of divrem and mod; rates beside base (the session's start), 3 rounds
set -u
mkdir -p lib build/tests generated build/tuning
S=build/s36
for b in 3072 4096 8192 16384; do
  for op in divrem mod; do
    for p in random zero max one mersenne fermat pow2 near multiple single_bits shared equal mixed; do
      for api in device device4 host; do
        printf "$op $b 600 $p 11 $api none\n" | LD_LIBRARY_PATH=$S/fin timeout 60 $S/fin/tests/check_batch --backend cuda 2>&1 | tail -1 | grep -v "^ok" | sed "s/^/fin $op $b $p $api: /"
      done
    done
  done
done
echo "checks done"
printf "divrem 4096 300 mixed 5 device none\nmod 8192 200 random 7 host none\ndivrem 3072 100 max 3 device4 none\ndivrem 8192 150 near 3 device none\n" > /tmp/mc.txt
LD_LIBRARY_PATH=$S/fin timeout 300 compute-sanitizer --tool memcheck --print-limit 5 $S/fin/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -5 | sed "s/^/memcheck: /"
LD_LIBRARY_PATH=$S/fin timeout 300 compute-sanitizer --tool racecheck --print-limit 5 $S/fin/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -2 | sed "s/^/racecheck: /"
P=$S/fin
rm -rf generated; cp -r $P/generated generated; cp $P/libmidint.so lib/; cp $P/tests/* build/tests/; cp $P/tuning/measure build/tuning/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_variants.py -k "cuda and (divrem or mod) and not mulmod and not powm and not generated" 2>&1 | tail -2
for r in 1 2 3; do
  for L in base fin; do
    echo "== round $r $L"
    printf "run divrem 3072 524288 default 5\nrun mod 3072 524288 default 5\nrun divrem 4096 524288 default 5\nrun mod 4096 524288 default 5\nrun divrem 8192 262144 default 5\nrun mod 8192 262144 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $7}' | tr '\n' ' '; echo
  done
done
