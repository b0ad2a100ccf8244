#!/bin/bash
# s35 run 7: does a 256-thread block (8 warps an SM that start together, so that they walk the unrolled code in step)
# fetch instructions better than two blocks of 128 at 1024 bits? b256 (mulmod at 256 and 1024 bits, IPB 256)
# against als (the committed build's library): check_batch, then rates at 2^27 words, 3 rounds, and Nsight Compute's
# instruction-fetch stall
set -u
S=build/s35
for b in 256 1024; do
  printf "mulmod $b 3000 mixed 5 device none\nmulmod $b 3000 max 6 device none\n" | LD_LIBRARY_PATH=$S/b256 timeout 120 $S/b256/tests/check_batch --backend cuda 2>&1 | tail -2 | sed "s/^/b256 check: /"
done
for r in 1 2 3; do
  for L in als b256; do
    echo "== round $r $L"
    printf "run mulmod 256 16777216 default 5\nrun mulmod 1024 4194304 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
done
for L in als b256; do
  printf "run mulmod 1024 4194304 default 1\n" | LD_LIBRARY_PATH=$S/$L timeout 200 ncu --kernel-name regex:"^mulmod_1024" --launch-count 1 --metrics smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warp_latency_per_inst_issued.ratio $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "smsp__" | sed "s/^/$L /"
done
