#!/usr/bin/env bash
# prof1.sh — baseline powm rates, SASS of the modl kernels, per-instruction stall samples of powm 512 and 2048
set -u
B=build/s26/base
mkdir -p lib build/tuning generated && cp $B/lib/libmidint.so lib/ && cp $B/measure build/tuning/ && cp $B/variants.txt generated/
M="build/tuning/measure --backend cuda --tuning none"
{ for b in 512 1024 2048 4096; do c=$(( (1<<28) / (b*b/256) )); [ $c -gt 1048576 ] && c=1048576; [ $c -lt 4096 ] && c=4096
  echo "run powm $b $c default 5 ebits=512"; done; } | $M 2>&1 | tee $OUT/base_rates.txt
cuobjdump --dump-sass lib/libmidint.so > /tmp/all.sass 2>/dev/null
for k in powm_512_u32_q16_i128_w1_cuda powm_2048_u32_q16_i32_w4_cuda; do
  awk -v k="$k" '/Function : /{p = index($0, k) > 0} p' /tmp/all.sass > $OUT/$k.sass; wc -l $OUT/$k.sass; done
for k in 512:powm_512_u32_q16_i128_w1_cuda 2048:powm_2048_u32_q16_i32_w4_cuda; do b=${k%%:*}; n=${k#*:}
  c=$(( (1<<28) / (b*b/256) ))
  echo "run powm $b $c default 1 ebits=512" | timeout 200 ncu --kernel-name regex:$n --launch-count 1 --launch-skip 1 \
    --section SourceCounters --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy \
    --page source --print-source sass --csv $M > $OUT/src_$b.csv 2>$OUT/src_$b.err
  echo "run powm $b $c default 1 ebits=512" | timeout 200 ncu --kernel-name regex:$n --launch-count 1 --launch-skip 1 \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy --section InstructionStats \
    $M > $OUT/det_$b.txt 2>&1
done
ls -la $OUT
