#!/bin/bash
# s35 run 3: mulmod's FP64 kernel striding over the batch (ipt: up to 4 instances a thread, each one's words copied
# into shared memory by cp.async while the thread works on the one before; runtime/plan.c's grid down to 2048 blocks)
# against the rename build (ren: a thread an instance): CUDA tests of every mulmod variant forced against GMP and the
# composition; check_batch at 256-1024 bits with 3000 instances (a thread each) and 600000 (the grid at 2048 blocks,
# so threads take 2 to 5); memcheck; rates at 2^27 words and at 2^18 instances, 2 rounds
set -u
mkdir -p lib build/tests generated build/tuning
S=build/s35
P=$S/ipt
rm -rf generated; cp -r $P/generated generated; cp $P/libmidint.so lib/; cp $P/tests/* build/tests/; cp $P/tuning/measure build/tuning/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py tests/test_variants.py -k "cuda and (mulmod or composed or wide) and not shared and not generated" 2>&1 | tail -2
for b in 256 384 512 1024; do
  for p in mixed random max; do
    printf "mulmod $b 3000 $p 5 device none\nmulmod $b 600000 $p 6 device none\n" | timeout 200 build/tests/check_batch --backend cuda 2>&1 | tail -2 | sed "s/^/ipt check: /"
  done
  printf "mulmod $b 3000 mixed 5 device ra\nmulmod $b 600000 random 7 device rb\n" | timeout 200 build/tests/check_batch --backend cuda 2>&1 | tail -2 | sed "s/^/ipt check: /"
done
printf "mulmod 256 600000 mixed 5 device none\nmulmod 1024 3000 mixed 7 device none\n" > /tmp/mc.txt
timeout 300 compute-sanitizer --tool memcheck --print-limit 5 build/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1 | sed "s/^/memcheck ipt: /"
for r in 1 2; do
  for L in ren ipt; do
    echo "== round $r $L"
    printf "run mulmod 256 16777216 default 5\nrun mulmod 384 11184810 default 5\nrun mulmod 512 8388608 default 5\nrun mulmod 1024 4194304 default 5\nrun mulmod 1024 262144 default 5\nrun mulmod 256 262144 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
done
