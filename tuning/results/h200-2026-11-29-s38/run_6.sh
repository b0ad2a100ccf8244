#!/bin/bash
# s38 run 6: the Montgomery product's rows in turns (lib_modlanes_f52.j2: U = D / turns rows unrolled, the window moved
# down U columns a turn) so that the hot code fits the instruction cache (run 5: no_instruction 1.06 cycles an issued
# instruction at 10 limbs, 0.03 at 5). Packs: base2 (main at ec65132), r2s (2 turns at 16 and 12 words, the squarings
# mf_montsqr), r2m (2 turns, the squarings by mf_montmul: one body in the windows), r5s (5 turns at 16, 4 at 12).
# check_batch of each on the 14 modular patterns at every size, fast and constant time; the stall reasons of r2s and
# r2m at 1024 bits; the rates, two rounds.
set -u
S=build/s38
pats="random zero max one mersenne fermat pow2 near multiple single_bits shared equal exponents mixed"
for b in 256 512 1024 1536 2048 3072 4096; do
  e=$b; [ $b -gt 1024 ] && e=512
  for p in $pats; do for sec in 0 1; do echo "powm $b 61 $p 17 device none ebits=$e,secret=$sec"; done; done
done > /tmp/cases.txt
echo "powm_shared 1024 61 mixed 3 device none ebits=1024,secret=1" >> /tmp/cases.txt
for L in r2s r2m r5s; do
  LD_LIBRARY_PATH=$S/$L timeout 150 $S/$L/tests/check_batch --backend cuda < /tmp/cases.txt > /tmp/r.txt 2>&1
  echo "$L checks: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/cases.txt)"; grep -v '^ok' /tmp/r.txt | head -3
done
printf "powm 1024 9 mixed 5 device none ebits=64,secret=1\npowm 1536 9 mixed 5 device none ebits=64\n" | LD_LIBRARY_PATH=$S/r2s timeout 150 compute-sanitizer --tool memcheck $S/r2s/tests/check_batch --backend cuda 2>&1 | tail -1
for L in r2s r2m; do
  k=powm_1024_u32_q16_i64_w2_cuda
  echo "=== $L $k: $(cuobjdump -sass -fun $k $S/$L/libmidint.so 2>/dev/null | grep -cE '^\s+/\*[0-9a-f]{4,}\*/') instructions"
  printf "run powm 1024 262144 default 1 ebits=512\n" | LD_LIBRARY_PATH=$S/$L timeout 200 ncu --kernel-name $k --launch-count 1 --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active,gpu__time_duration.sum $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "stalled|inst_exec|issue_active|warps_active|duration" | grep -v " 0$\| 0.00$" | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//; s/ +/ /g' | tr '\n' ';'; echo
done
cmds="run powm 256 4194304 default 3 ebits=512
run powm 512 2097152 default 3 ebits=512
run powm 1024 1048576 default 3 ebits=512
run powm 1024 524288 default 3 ebits=1024,secret=1
run powm 1536 524288 default 3 ebits=512
run powm 2048 262144 default 3 ebits=512
run powm 3072 131072 default 3 ebits=512
run powm 4096 65536 default 3 ebits=512"
for r in 1 2; do for L in base2 r2s r2m r5s; do
  echo "$cmds" | LD_LIBRARY_PATH=$S/$L timeout 100 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk -v L=$L -v R=$r '{print R, L, $2, $3, $4, $7, $8, $9}'
done; done
