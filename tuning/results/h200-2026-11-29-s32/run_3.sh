#!/bin/bash
# s32 run 3: the spike's constants from device memory (p2g, as a modulus object's buffer would give them) and in two
# chains of pairs (p4) against p2 and midint mul at 1024 bits; Nsight Compute's warp states on p2
set -u
L=build/s32/lib1; S=build/s32/spike
for r in 1 2; do
  echo "== round $r"
  printf "run mul 1024 4194304 default 5\n" | LD_LIBRARY_PATH=$L timeout 120 $L/measure --backend cuda --tuning none 2>&1 | grep "^run"
  for v in p2 p2g p4; do echo "== $v"; timeout 120 $S/barrett_$v gpu 4194304 5 | grep -E "modulus [03]|gpu:"; done
done
echo "== ncu p2"
timeout 200 ncu --launch-count 1 --section WarpStateStats --section ComputeWorkloadAnalysis --section Occupancy $S/barrett_p2 gpu 1048576 1 2>&1 | grep -vE "^==PROF==|^\s*$" | grep -E "Stall|Issue|Pipe|Warp Cycles|Achieved|Theoretical|Executed Ipc|FP64|FMA|ALU|Occupancy" | head -40
