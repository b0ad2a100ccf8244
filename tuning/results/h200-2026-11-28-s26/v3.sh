#!/usr/bin/env bash
# v3.sh — v2 against v3 (fixed-round lane carries, squares on Y itself), then Nsight Compute of both at 2048 bits (L4 D10)
cd build/spike
for b in fp64_powm_v2 fp64_powm_v3; do echo "== $b"; ./$b 4 2>&1; done | tee $OUT/v3_rates.txt
for b in fp64_powm_v2 fp64_powm_v3; do
  timeout 200 ncu --kernel-name powm_fp64 --launch-skip 21 --launch-count 1 --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats \
    --metrics sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio \
    ./$b 1 > $OUT/ncu_$b.txt 2>&1
  grep -E "pipe|stalled|Issue Slots|Eligible Warps|Active Warps Per|Registers Per|Theoretical Occ|Warp Cycles Per Issued|Executed Ipc A|Grid Size" $OUT/ncu_$b.txt
done
