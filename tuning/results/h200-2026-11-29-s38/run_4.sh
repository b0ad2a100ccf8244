#!/bin/bash
# s38 run 4: run 2 again with what it missed: the opcode histogram of powm's 1024-bit kernel (run 2 read the wrong
# field of variants.txt) and the warps' stall reasons per issued instruction (Nsight Compute), build/s37/head
set -u
P=build/s37/head
k=$(awk '$2=="powm" && $3==1024 && $7=="cuda" {print $1; exit}' $P/variants.txt)
echo "=== SASS opcodes $k"
cuobjdump -sass -fun $k $P/libmidint.so | grep -oE '^\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P[0-9T] )?[A-Z][A-Z0-9]*(\.[A-Z0-9_]+)*' | awk '{print $NF}' | sort | uniq -c | sort -rn | head -40
echo "=== ncu stall reasons, powm 1024, 262144 instances, 512-bit exponents"
printf "run powm 1024 262144 default 1 ebits=512\n" | LD_LIBRARY_PATH=$P timeout 300 ncu --kernel-name regex:"^powm_1024" --launch-count 1 --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,smsp__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,smsp__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,smsp__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active $P/tuning/measure --backend cuda --tuning none 2>&1 | grep -vE "^==PROF==|^\s*$" | grep -v " 0$" | head -80
