#!/bin/bash
# s39 run 1: powm's squarings with the step's square rows first and its reductions in turns (mf_montsqr,
# space.MOD_LANES_F52_SQR_ROLLS), so that only the triangle stays unrolled. Packs: base (main at bc61b95), sqA (16
# words: 2 turns), sqB (16: 1 turn, the triangle first alone; 12: 2; 8: 1), sqC (16: 5, 12: 4, 8: 5). check_batch on
# the 14 modular patterns at every size, fast and constant time; memcheck; stall reasons of base and sqA at 1024 bits;
# the rates, two rounds.
set -u
S=build/s39
pats="random zero max one mersenne fermat pow2 near multiple single_bits shared equal exponents mixed"
for b in 256 512 1024 1536 2048 3072 4096; do
  e=$b; [ $b -gt 1024 ] && e=512
  for p in $pats; do for sec in 0 1; do echo "powm $b 61 $p 17 device none ebits=$e,secret=$sec"; done; done
done > /tmp/cases.txt
for L in sqA sqB sqC; do
  LD_LIBRARY_PATH=$S/$L timeout 150 $S/$L/tests/check_batch --backend cuda < /tmp/cases.txt > /tmp/r.txt 2>&1
  echo "$L checks: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/cases.txt)"; grep -v '^ok' /tmp/r.txt | head -3
done
printf "powm 1024 9 mixed 5 device none ebits=64,secret=1\npowm 2048 9 mixed 5 device none ebits=64\n" | LD_LIBRARY_PATH=$S/sqA timeout 150 compute-sanitizer --tool memcheck $S/sqA/tests/check_batch --backend cuda 2>&1 | tail -1
for L in base sqA; do
  k=powm_1024_u32_q16_i64_w2_cuda
  echo "=== $L $k"
  printf "run powm 1024 262144 default 1 ebits=512\n" | LD_LIBRARY_PATH=$S/$L timeout 200 ncu --kernel-name $k --launch-count 1 --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active,gpu__time_duration.sum $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "stalled|inst_exec|issue_active|warps_active|duration" | grep -v " 0$\| 0.00$" | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//; s/ +/ /g' | awk '$NF+0 >= 0.05 || /inst|issue|warps|dur/' | tr '\n' ';'; echo
done
cmds="run powm 256 4194304 default 3 ebits=512
run powm 512 2097152 default 3 ebits=512
run powm 1024 1048576 default 3 ebits=512
run powm 1024 524288 default 3 ebits=1024,secret=1
run powm 1536 524288 default 3 ebits=512
run powm 2048 262144 default 3 ebits=512
run powm 3072 131072 default 3 ebits=512
run powm 4096 65536 default 3 ebits=512"
for r in 1 2; do for L in base sqA sqB sqC; do
  echo "$cmds" | LD_LIBRARY_PATH=$S/$L timeout 100 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk -v L=$L -v R=$r '{print R, L, $3, $4, $7, $8}'
done; done
