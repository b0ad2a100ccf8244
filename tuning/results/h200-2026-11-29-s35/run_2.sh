#!/bin/bash
# s35 run 2: the rename (f49 -> fdiv; ren: mul and mulmod at 256-1024 bits) checked on CUDA: the CUDA tests of every
# mulmod variant forced against GMP and the composition; check_batch at 256-1024 bits. Then why mulmod's FP64 kernel
# issues at 47% at 1024 bits: Nsight Compute's stall reasons per issued instruction (one launch, 2^22 instances), and a
# timing-only build (rn: the split's high part rounded to nearest instead of down, so its results are wrong) to see
# whether the rounding-mode fma costs anything
set -u
mkdir -p lib build/tests generated build/tuning
S=build/s35
P=$S/ren
rm -rf generated; cp -r $P/generated generated; cp $P/libmidint.so lib/; cp $P/tests/* build/tests/; cp $P/tuning/measure build/tuning/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py tests/test_variants.py -k "cuda and (mulmod or composed or wide) and not shared and not generated" 2>&1 | tail -2
for b in 256 384 512 1024; do
  for p in mixed random max; do
    printf "mulmod $b 3000 $p 5 device none\n" | timeout 120 build/tests/check_batch --backend cuda 2>&1 | tail -1 | sed "s/^/ren check: /"
  done
done
echo "=== ncu stall reasons, mulmod 1024"
printf "run mulmod 1024 4194304 default 1\n" | timeout 300 ncu --kernel-name regex:"^mulmod_1024_u32_q32" --launch-count 1 --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,smsp__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active build/tuning/measure --backend cuda --tuning none 2>&1 | grep -vE "^==PROF==|^\s*$" | awk '$NF+0 > 0.02 || /Metric|run|mulmod/' | head -60
for r in 1 2; do
  for L in ren rn; do
    echo "== round $r $L"
    printf "run mulmod 1024 4194304 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
done
