#!/bin/bash
# s38 run 5: is run 4's top stall (no_instruction, 1.06 cycles per issued instruction at 1024 bits, 10 limbs a lane:
# about 14500 instructions of machine code) the instruction cache? The same stall reasons and pipe counts on kernels
# of smaller code: 1024 bits at 8 words a lane (5 limbs, 4 lanes) and 256 bits on one lane of 5 limbs (build/s38/q8),
# beside 1024 and 2048 bits at 16 words; each kernel's size in instructions
set -u
P=build/s38/q8
for k in powm_1024_u32_q16_i64_w2_cuda powm_1024_u32_q8_i32_w4_cuda powm_256_u32_q8_i128_w1_cuda powm_2048_u32_q16_i32_w4_cuda; do
  echo "=== $k: $(cuobjdump -sass -fun $k $P/libmidint.so 2>/dev/null | grep -cE '^\s+/\*[0-9a-f]{4,}\*/') instructions"
  b=$(echo $k | cut -d_ -f2); c=$((262144 * 1024 / b)); [ $b = 2048 ] && c=65536
  printf "run powm $b $c $k 1 ebits=512\n" | LD_LIBRARY_PATH=$P timeout 200 ncu --kernel-name $k --launch-count 1 --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active,smsp__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,smsp__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum $P/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "stalled|inst_exec|issue_active|warps_active|pipe_|duration|^run" | grep -v " 0$\| 0.00$" | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//; s/ +/ /g'
done
