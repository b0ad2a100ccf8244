#!/bin/bash
# s38 run 2: why powm at 1024 bits runs its FP64 pipe at about 44% (s34 found the 1024-bit mulmod kernels latency-bound
# at 2 warps a scheduler; powm's lanes kernel holds 168 registers): the opcode histogram of powm's 1024-bit kernel and
# Nsight Compute's pipe, scheduler, warp-state and source-counter sections on one launch (build/s37/head: main at e8ef9f0)
set -u
P=build/s37/head
k=$(awk '$2=="powm" && $3==1024 && $6=="cuda" {print $1; exit}' $P/variants.txt)
echo "=== SASS opcodes $k"
cuobjdump -sass -fun $k $P/libmidint.so | grep -oE '^\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P[0-9T] )?[A-Z][A-Z0-9]*(\.[A-Z0-9_]+)*' | awk '{print $NF}' | sort | uniq -c | sort -rn | head -45
echo "=== ncu powm 1024, 262144 instances, 512-bit exponents"
printf "run powm 1024 262144 default 1 ebits=512\n" | LD_LIBRARY_PATH=$P timeout 300 ncu --kernel-name regex:"^powm_1024" --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy --section InstructionStats --section LaunchStats $P/tuning/measure --backend cuda --tuning none 2>&1 | grep -vE "^==PROF==|^\s*$" | grep -vE "^\s+-{5,}" | head -150
