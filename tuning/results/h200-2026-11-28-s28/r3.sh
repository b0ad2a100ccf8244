#!/bin/bash
# s28 run 3: ncu on modinv 4096 at Q 64 (pipes, stalls)
cd build/s28
echo "run modinv 4096 131072 modinv_4096_u32_q64_i64_w2_cuda 1" > /tmp/in.txt
ncu --kernel-name regex:modinv --launch-count 1 --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats --section Occupancy --metrics sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmalite.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active new/build/tuning/measure --backend cuda --tuning none < /tmp/in.txt 2>&1 | grep -v "^==PROF==" | sed -n 1,200p
