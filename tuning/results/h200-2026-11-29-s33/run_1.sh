#!/bin/bash
# s33 run 1: why the radix-2^52 Barrett spike (p2: two patterns an add) issues at 46%: Nsight Compute's stall reasons
# and pipe loads, and its machine code
set -u
S=build/s33/spike
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
$S/barrett_p2 gpu 4194304 5 | grep -E "modulus [03]|gpu:"
M=""
for r in math_pipe_throttle wait short_scoreboard long_scoreboard dispatch_stall not_selected selected no_instruction mio_throttle lg_throttle branch_resolving misc drain imc_miss; do
  M="$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
M="${M#,},sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active"
timeout 200 ncu --launch-count 1 --metrics "$M" $S/barrett_p2 gpu 1048576 1 2>&1 | grep -vE "^==PROF==" | tail -30
cuobjdump --dump-sass $S/barrett_p2 > $OUT/p2.sass 2>&1; wc -l $OUT/p2.sass
