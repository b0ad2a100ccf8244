#!/bin/bash
# s29 run 4: Nsight Compute on divrem 4096 bits (131072 instances), the session-start build against the ring in turns
# of 4 steps (u4): issue, stalls, instructions, occupancy
set -u
for t in base u4; do
  echo "== $t"
  echo "run divrem 4096 131072 default 1" | timeout 250 ncu -k regex:divrem_4096 --launch-skip 1 --launch-count 1 \
    --section SchedulerStats --section WarpStateStats --section InstructionStats --section Occupancy \
    --section LaunchStats build/s29/$t/build/tuning/measure --backend cuda --tuning none 2>&1 \
    | grep -E "Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Active Warps Per Scheduler|Eligible Warps Per|Warp Cycles Per Issued|Executed Instructions  |Registers Per|Achieved Occupancy|Theoretical Occupancy|Stall|stall|Duration|Avg. Executed" | head -40
done
