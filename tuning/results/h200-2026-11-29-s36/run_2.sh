#!/bin/bash
# s36 run 2: why the FP64 division on lanes (fd) runs at a third of its issue bound: the SASS of divrem_4096, and
# Nsight Compute's issue, occupancy, pipes and stall reasons per issued instruction on one launch of 131072 instances
set -u
S=build/s36
cuobjdump --dump-sass --function divrem_4096_u32_q16_i16_w8_cuda $S/fd/libmidint.so > $OUT/divrem_4096_fd.sass 2>&1
wc -l $OUT/divrem_4096_fd.sass
printf "run divrem 4096 131072 default 1\n" | LD_LIBRARY_PATH=$S/fd timeout 300 ncu --kernel-name regex:"^divrem_4096" --launch-count 1 --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active,smsp__inst_executed.sum,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,smsp__warps_eligible.avg.per_cycle_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,gpu__time_duration.sum $S/fd/tuning/measure --backend cuda --tuning none 2>&1 | grep -vE "^==PROF==|^\s*$" | awk '$NF+0 > 0.02 || /Metric|run|divrem|launch|time/' | head -60
