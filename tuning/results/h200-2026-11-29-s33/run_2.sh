#!/bin/bash
# s33 run 2: the spike's latency stalls: persistent blocks (lp), with the next instance's operands fetched into shared
# memory by cp.async (lpf), barriers every 4 or every column to keep a block's warps together in the 90 KB of
# straight-line code (s4 at 256 threads a block, s4b128, ls4, lpfs4, lpfs1), against p2; stall reasons of the best
set -u
S=build/s33/spike
for r in 1 2; do
  echo "== round $r"
  for v in p2 lp lpf s4 s4b128 ls4 lpfs4 lpfs1; do echo "== $v"; timeout 120 $S/barrett_$v gpu 4194304 5 | grep -E "grid|modulus [03]|gpu:"; done
done
M=""
for r in math_pipe_throttle wait long_scoreboard dispatch_stall not_selected selected no_instruction drain barrier membar short_scoreboard; do
  M="$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
M="${M#,},smsp__issue_active.avg.pct_of_peak_sustained_active"
for v in lpf lpfs4; do echo "== ncu $v"; timeout 200 ncu --launch-count 1 --metrics "$M" $S/barrett_$v gpu 4194304 1 2>&1 | grep -E "stalled|issue_active" ; done
