#!/bin/bash
# s36 run 6: the digits written by lane 0 (the lane that reads the staged limbs in the steps) in place of the top lane,
# after racecheck's warnings on run 5's build (reads by lane 0 and writes by the top lane of one row, ordered only by
# the steps' shuffles): racecheck and memcheck, check_batch on a few patterns, the variant tests, rates beside fin
set -u
mkdir -p lib build/tests generated build/tuning
S=build/s36
printf "divrem 4096 300 mixed 5 device none\nmod 8192 200 random 7 host none\ndivrem 3072 100 max 3 device4 none\ndivrem 8192 150 near 3 device none\n" > /tmp/mc.txt
LD_LIBRARY_PATH=$S/fin2 timeout 300 compute-sanitizer --tool racecheck --print-limit 5 $S/fin2/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -3 | sed "s/^/racecheck: /"
LD_LIBRARY_PATH=$S/fin2 timeout 300 compute-sanitizer --tool memcheck --print-limit 5 $S/fin2/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -2 | sed "s/^/memcheck: /"
for b in 3072 4096 8192; do
  for op in divrem mod; do
    for p in random max near mixed single_bits; do
      printf "$op $b 600 $p 13 device none\n" | LD_LIBRARY_PATH=$S/fin2 timeout 60 $S/fin2/tests/check_batch --backend cuda 2>&1 | tail -1 | grep -v "^ok" | sed "s/^/fin2 $op $b $p: /"
    done
  done
done
echo "checks done"
P=$S/fin2
rm -rf generated; cp -r $P/generated generated; cp $P/libmidint.so lib/; cp $P/tests/* build/tests/; cp $P/tuning/measure build/tuning/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_variants.py -k "cuda and (divrem or mod) and not mulmod and not powm and not generated" 2>&1 | tail -2
for r in 1 2; do
  for L in fin fin2; do
    echo "== round $r $L"
    printf "run divrem 3072 524288 default 5\nrun mod 3072 524288 default 5\nrun divrem 4096 524288 default 5\nrun mod 4096 524288 default 5\nrun divrem 8192 262144 default 5\nrun mod 8192 262144 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $7}' | tr '\n' ' '; echo
  done
done
