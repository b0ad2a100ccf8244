#!/bin/bash
# s38 run 3: powm's FP64 products on lanes of fewer words (q8: 8 words = 5 limbs a lane, 96 registers, 5 blocks an SM;
# q12: 8 limbs at 1536 and 3072 bits, which ran the integer lanes) against main (base: q16, 10 limbs, 168 registers,
# 3 blocks; 1536/3072 the integer lanes at q24; 256 the integer lane, now the FP64 one of 5 limbs). Run 2 found the
# 1024-bit kernel latency-bound (2.93 warps a scheduler, 1.05 eligible, issue 55.6%). check_batch of every new
# variant on the 14 modular patterns, fast and constant time; memcheck on two; then the rates, two rounds.
set -u
S=build/s38
pats="random zero max one mersenne fermat pow2 near multiple single_bits shared equal exponents mixed"
for v in powm_256_u32_q8_i128_w1_cuda powm_1024_u32_q8_i32_w4_cuda powm_1536_u32_q12_i32_w4_cuda powm_2048_u32_q8_i16_w8_cuda powm_3072_u32_q12_i16_w8_cuda powm_4096_u32_q8_i8_w16_cuda powm_shared_1024_u32_q8_i32_w4_cuda powm_shared_3072_u32_q12_i16_w8_cuda; do
  b=$(echo $v | cut -d_ -f2); [ $v != ${v#powm_shared} ] && b=$(echo $v | cut -d_ -f3)
  op=${v%%_[0-9]*}; e=$b; [ $b -gt 1024 ] && e=512
  for p in $pats; do for sec in 0 1; do echo "$op $b 61 $p 13 device none ebits=$e,secret=$sec,variant=$v"; done; done
done > /tmp/cases.txt
LD_LIBRARY_PATH=$S/q8 timeout 200 $S/q8/tests/check_batch --backend cuda < /tmp/cases.txt > /tmp/r.txt 2>&1
echo "q8 checks: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/cases.txt)"; grep -v '^ok' /tmp/r.txt | head -5
printf "powm 1024 9 mixed 5 device none ebits=64,secret=1,variant=powm_1024_u32_q8_i32_w4_cuda\npowm 1536 9 mixed 5 device none ebits=64,variant=powm_1536_u32_q12_i32_w4_cuda\n" > /tmp/mc.txt
LD_LIBRARY_PATH=$S/q8 timeout 150 compute-sanitizer --tool memcheck $S/q8/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -3
run() { echo "$2" | LD_LIBRARY_PATH=$S/$1 timeout 100 $S/$1/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk -v L=$1 '{print L, $2, $3, $4, $5, $7, $8, $9}'; }
for r in 1 2; do
  echo "== round $r"
  run base "run powm 256 4194304 default 3 ebits=512
run powm 1024 1048576 default 3 ebits=512
run powm 1024 524288 default 3 ebits=1024,secret=1
run powm 1536 524288 default 3 ebits=512
run powm 2048 262144 default 3 ebits=512
run powm 3072 131072 default 3 ebits=512
run powm 4096 65536 default 3 ebits=512"
  run q8 "run powm 256 4194304 default 3 ebits=512
run powm 1024 1048576 powm_1024_u32_q8_i32_w4_cuda 3 ebits=512
run powm 1024 524288 powm_1024_u32_q8_i32_w4_cuda 3 ebits=1024,secret=1
run powm 1536 524288 powm_1536_u32_q12_i32_w4_cuda 3 ebits=512
run powm 2048 262144 powm_2048_u32_q8_i16_w8_cuda 3 ebits=512
run powm 3072 131072 powm_3072_u32_q12_i16_w8_cuda 3 ebits=512
run powm 4096 65536 powm_4096_u32_q8_i8_w16_cuda 3 ebits=512"
done
