#!/bin/bash
# s34 run 4: why the FP64 thread-per-instance kernels at 1024 bits run at 42% of the FP64 pipe (run 3: fewer products
# by Karatsuba made mulmod slower; run 2: 12 warps an SM no faster): Nsight Compute's pipe, scheduler and warp-state
# sections on mulmod's and mulmod_shared's 1024-bit kernels (lib1, 2^22 instances, one launch each), and the
# opcode histogram of their machine code
set -u
mkdir -p lib build/tests generated build/tuning
P=build/s34/lib1
cp $P/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
for k in mulmod_1024_u32_q32_i128_w1_cuda mulmod_shared_1024_u32_q32_i128_w1_cuda; do
  echo "=== SASS opcodes $k"
  cuobjdump -sass -fun $k lib/libmidint.so | grep -oE '^\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P[0-9T] )?[A-Z][A-Z0-9]*(\.[A-Z0-9_]+)*' | awk '{print $NF}' | sort | uniq -c | sort -rn | head -40
done
for k in "mulmod 1024 4194304 default 1" "mulmod_shared 1024 4194304 default 1 modulus=odd"; do
  op=${k%% *}
  echo "=== ncu $k"
  printf "run $k\n" | timeout 200 ncu --kernel-name regex:"^${op}_1024_u32_q32" --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy --section InstructionStats build/tuning/measure --backend cuda --tuning none 2>&1 | grep -vE "^==PROF==|^\s*$" | grep -vE "^\s+-{5,}" | head -120
done
