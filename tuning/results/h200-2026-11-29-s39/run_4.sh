#!/bin/bash
# s39 run 4: mulmod and mulmod_shared's thread kernels (modt, mods) at 512 and 1024 bits in blocks of 256 threads
# instead of 128 (mm256 against mm128, both at 4d7bed2; build/s39/ipb256.py). Why: the 1024-bit kernels (254
# registers, 8 warps an SM) walk about 6000 instructions of straight-line code once a warp and stalled on instruction
# fetch (no_instruction 0.78 cycles an issued instruction, thirty-fifth session); in one block of 8 warps an SM the
# two warps a scheduler start together and may share the fetched lines. check_batch of mm256's kernels on edge
# patterns and a count that does not fill a block; stall reasons at 1024 bits; rates, two rounds.
set -u
S=build/s39
for b in 512 1024; do for p in random zero max one mersenne fermat pow2 near multiple single_bits mixed; do
  echo "mulmod $b 300 $p 5 device none"; echo "mulmod_shared $b 300 $p 5 device none"; done; done > /tmp/cases.txt
LD_LIBRARY_PATH=$S/mm256 timeout 150 $S/mm256/tests/check_batch --backend cuda < /tmp/cases.txt > /tmp/r.txt 2>&1
echo "mm256 checks: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/cases.txt)"; grep -v '^ok' /tmp/r.txt | head -3
for L in mm128 mm256; do
  echo "=== $L mulmod 1024"
  printf "run mulmod 1024 1048576 default 1\n" | LD_LIBRARY_PATH=$S/$L timeout 200 ncu --kernel-name regex:mulmod_1024 --launch-count 1 --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "stalled|issue_active|warps_active" | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//; s/ +/ /g' | awk '$NF+0 >= 0.05' | tr '\n' ';'; echo
done
cmds="run mul 512 8388608 default 5
run mulmod 512 8388608 default 5
run mulmod_shared 512 8388608 default 5 modulus=odd
run mul 1024 4194304 default 5
run mulmod 1024 4194304 default 5
run mulmod_shared 1024 4194304 default 5 modulus=odd
run mulmod_shared 1024 4194304 default 5 modulus=even"
for r in 1 2; do for L in mm128 mm256; do
  echo "$cmds" | LD_LIBRARY_PATH=$S/$L timeout 100 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk -v L=$L -v R=$r '{print R, L, $2, $3, $4, $5, $7, $8, $9}'
done; done
