#!/bin/bash
# s34 run 8: the change as committed (space.LANES: Q = 12 on one lane, 384 among the family's extra sizes), lib6 = ops
# mul, mullo, sqr at 384 and 512 bits: CUDA tests of every mul, mullo and sqr variant forced against GMP; memcheck on
# mul, mullo and sqr at 384 (the rule's choice); rates at 2^27 words of the rule's choice at 384 and of the 512-bit
# kernel on the same 384-bit calls (forced: what the default build ran before), 2 rounds
set -u
mkdir -p lib build/tests generated build/tuning
P=build/s34/lib6
cp $P/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_variants.py -k "cuda and (mul or sqr) and not generated" 2>&1 | tail -2
printf "mul 384 300 random 5 device none\nmullo 384 300 max 6 device none\nsqr 384 300 random 7 host none\n" > /tmp/mc.txt
timeout 200 compute-sanitizer --tool memcheck --print-limit 5 build/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1 | sed "s/^/memcheck mul, mullo, sqr 384: /"
for r in 1 2; do
  echo "== round $r"
  printf "run mul 384 11184810 default 5\nrun mul 384 11184810 mul_512_u32_q16_i128_t1_cuda 5\nrun mullo 384 11184810 default 5\nrun mullo 384 11184810 mullo_512_u32_q16_i128_t1_cuda 5\nrun sqr 384 11184810 default 5\nrun sqr 384 11184810 sqr_512_u32_q16_i128_t1_cuda 5\nrun sqr 512 8388608 default 5\n" | timeout 120 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
done
