#!/bin/bash
# s38 run 11: (a) mul, mullo and sqr at 1536 and 3072 bits on 4 and 8 lanes of 12 words (q12m: the default build had
# them on the 2048- and 4096-bit kernels, zero-padded; run 9: mul 1536 slower than 2048 per instance, 3072 than 4096):
# check_batch of the new variants, then rates beside the full build's (build/s38/full at b18dcf5), mulmod too;
# (b) powm's constant time at 1024 bits with the products in turns: all-zero against all-one 1024-bit exponents
set -u
S=build/s38
bash $S/full/unpack.sh
for v in mul_1536_u32_q12_i32_w4_cuda mul_3072_u32_q12_i16_w8_cuda mullo_1536_u32_q12_i32_w4_cuda mullo_3072_u32_q12_i16_w8_cuda mullo_1536_u32_q12_i32_x4_cuda mullo_3072_u32_q12_i32_x8_cuda sqr_1536_u32_q12_i32_w4_cuda sqr_3072_u32_q12_i16_w8_cuda; do
  op=${v%%_*}; b=$(echo $v | cut -d_ -f2)
  for p in random max ones_plus_one single_bits zero mixed; do echo "$op $b 1001 $p 23 device none variant=$v"; done
  echo "$op $b 77 random 29 device4 none variant=$v"
done > /tmp/cases.txt
LD_LIBRARY_PATH=$S/q12m timeout 100 $S/q12m/tests/check_batch --backend cuda < /tmp/cases.txt > /tmp/r.txt 2>&1
echo "q12m checks: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/cases.txt)"; grep -v '^ok' /tmp/r.txt | head -3
cmds="run mul 1536 2796202 default 10
run mullo 1536 2796202 default 10
run sqr 1536 2796202 default 10
run mulmod 1536 2796202 default 5
run mul 3072 1398101 default 10
run mullo 3072 1398101 default 10
run sqr 3072 1398101 default 10
run mulmod 3072 1398101 default 5
run mul 2048 2097152 default 10
run mul 4096 1048576 default 10"
for r in 1 2; do
  echo "$cmds" | timeout 60 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk -v R=$r '{print R, "full", $2, $3, $4, $5, $7, $8, $9}'
  echo "$cmds" | LD_LIBRARY_PATH=$S/q12m timeout 60 $S/q12m/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk -v R=$r '{print R, "q12m", $2, $3, $4, $5, $7, $8, $9}'
done
printf "run powm 1024 524288 default 3 ebits=1024,secret=1,pattern=zero\nrun powm 1024 524288 default 3 ebits=1024,secret=1,pattern=max\nrun powm 1024 524288 default 3 ebits=1024,secret=1,pattern=zero\nrun powm 1024 524288 default 3 ebits=1024,secret=1,pattern=max\n" | timeout 60 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print "ct", $2, $3, $4, $7, $8, $9}'
