#!/bin/bash
# s33 run 3: the per-instance spike school_f49 (schoolbook division in radix 2^49 on the FP64 pipe) at 1024 bits,
# 2^22 instances, against the Barrett spike p2 (shared modulus); two rounds
set -u
S=build/s33/spike
for r in 1 2; do
  echo "== round $r"
  timeout 120 $S/school_f49 gpu 4194304 5
  timeout 120 $S/barrett_p2 gpu 4194304 5 | grep -E "modulus 0|gpu:"
done
M=""
for r in math_pipe_throttle wait long_scoreboard dispatch_stall not_selected selected no_instruction drain short_scoreboard; do
  M="$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
M="${M#,},smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum"
timeout 200 ncu --launch-count 1 --metrics "$M" $S/school_f49 gpu 4194304 1 2>&1 | grep -E "stalled|issue_active|pipe|inst_executed"
