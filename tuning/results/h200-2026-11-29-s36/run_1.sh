#!/bin/bash
# s36 run 1: divrem and mod on lanes by the FP64 division (fd: kernel_div_lanes_fdiv.j2 at 3072, 4096, 8192 bits)
# against the session's start (base: the division on 32-bit words): check_batch on every mod pattern, memcheck, the
# CUDA variant tests of divrem and mod; rates, 2 rounds
set -u
mkdir -p lib build/tests generated build/tuning
S=build/s36
for b in 3072 4096 8192; do
  for op in divrem mod; do
    for p in random zero max one mersenne fermat pow2 near multiple single_bits shared equal mixed; do
      printf "$op $b 700 $p 5 device none\n" | LD_LIBRARY_PATH=$S/fd timeout 60 $S/fd/tests/check_batch --backend cuda 2>&1 | tail -1 | sed "s/^/fd $op $b $p: /"
    done
  done
done
printf "divrem 4096 300 mixed 5 device none\nmod 8192 200 random 7 host none\ndivrem 3072 100 max 3 device4 none\n" > /tmp/mc.txt
LD_LIBRARY_PATH=$S/fd timeout 300 compute-sanitizer --tool memcheck --print-limit 5 $S/fd/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -3 | sed "s/^/memcheck: /"
P=$S/fd
rm -rf generated; cp -r $P/generated generated; cp $P/libmidint.so lib/; cp $P/tests/* build/tests/; cp $P/tuning/measure build/tuning/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_variants.py -k "cuda and (divrem or mod) and not mulmod and not powm" 2>&1 | tail -3
for r in 1 2; do
  for L in base fd; do
    echo "== round $r $L"
    printf "run divrem 3072 524288 default 5\nrun mod 3072 524288 default 5\nrun divrem 4096 524288 default 5\nrun mod 4096 524288 default 5\nrun divrem 8192 262144 default 5\nrun mod 8192 262144 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
done
