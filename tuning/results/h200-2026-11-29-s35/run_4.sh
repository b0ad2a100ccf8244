#!/bin/bash
# s35 run 4: why the striding kernel (ipt, run 3) ran slower: Nsight Compute's occupancy and launch statistics for it
# at 256 and 1024 bits; two other forms, checked and timed beside ren and ipt: ipc (ipt with the launcher asking for
# the largest shared-memory carveout) and ipf (the same stride without shared memory: direct 16-byte loads, and the
# next instance's lines prefetched into L2)
set -u
mkdir -p lib build/tests generated build/tuning
S=build/s35
for L in ipc ipf; do
  for b in 256 1024; do
    printf "mulmod $b 600000 mixed 6 device none\nmulmod $b 3000 random 5 device none\n" | LD_LIBRARY_PATH=$S/$L timeout 200 $S/$L/tests/check_batch --backend cuda 2>&1 | tail -2 | sed "s/^/$L check: /"
  done
done
for b in "256 16777216" "1024 4194304"; do
  echo "=== ncu ipt mulmod $b"
  printf "run mulmod $b default 1\n" | LD_LIBRARY_PATH=$S/ipt timeout 200 ncu --kernel-name regex:"^mulmod_" --launch-count 1 --section LaunchStats --section Occupancy --metrics smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warp_latency_per_inst_issued.ratio,sm__warps_active.avg.per_cycle_active $S/ipt/tuning/measure --backend cuda --tuning none 2>&1 | grep -vE "^==PROF==|^\s*$|^\s+-{5,}" | grep -E "Shared|Occupancy|Warps|Block Limit|stalled|latency|warps_active|Registers|Grid|run " | head -40
done
for r in 1 2; do
  for L in ren ipt ipc ipf; do
    echo "== round $r $L"
    printf "run mulmod 256 16777216 default 5\nrun mulmod 1024 4194304 default 5\nrun mulmod 1024 262144 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
done
