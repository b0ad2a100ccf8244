#!/usr/bin/env bash
# v2.sh — the FP64 powm spike, v1 against v2 (paired column adds) and launch bounds; SASS mix; ncu of 2048 bits
cd build/spike
for b in fp64_powm fp64_powm_v2 fp64_powm_v23 fp64_powm_v24; do echo "== $b"; ./$b 4 2>&1; done | tee $OUT/v2_rates.txt
cuobjdump --dump-sass fp64_powm_v2 > /tmp/v2.sass
python3 - <<'PY' | tee $OUT/v2_mix.txt
import re, collections
cur = None; mix = collections.defaultdict(collections.Counter)
for l in open("/tmp/v2.sass"):
    m = re.search(r"Function : (\S+)", l)
    if m: cur = m.group(1); continue
    m = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", l)
    if m and cur: mix[cur][m.group(2)] += 1
for k, c in mix.items():
    if "ILi4ELi10E" not in k: continue
    tot = sum(c.values()); print(k, tot)
    for op, v in c.most_common(25): print(f"  {op:24s} {v}")
PY
timeout 300 ncu --kernel-name regex:"ILi4ELi10E" --launch-skip 1 --launch-count 1 --section ComputeWorkloadAnalysis --section WarpStateStats \
  --section SchedulerStats --section Occupancy --section LaunchStats --metrics smsp__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active \
  ./fp64_powm_v2 1 > $OUT/v2_ncu.txt 2>&1; grep -E "fp64|alu|fma|shared|Issue Slots|Eligible|Active Warps|Registers|Theoretical Occ|Warp Cycles" $OUT/v2_ncu.txt | head -30
