#!/bin/bash
# untracked: the GPU session's check and measurement of divrem/mod of large numbers
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cases="divrem 67108864 1 random 6 device none abits=134217728
divrem 67108864 1 near 7 device none abits=134217728
mod 134217728 1 random 6 device none abits=268435456
mod 33554432 2 max 5 host none abits=67108864
"
echo "== real sizes, CUDA"
printf "%s" "$cases" | timeout 300 build/tests/check_batch --backend cuda > $OUT/real.txt 2>&1
grep -c '^ok' $OUT/real.txt; grep -v '^ok' $OUT/real.txt | head -5
echo "== timing"
{
for e in 26 27; do b=$((1<<e)); printf 'run mul %d 1 default 7\nrun divrem %d 1 default 5 abits=%d\nrun mod %d 1 default 5 abits=%d\n' $b $b $((2*b)) $b $((2*b)); done
} | timeout 200 build/tuning/measure --backend cuda --tuning none 2>&1 | tee $OUT/timing.txt
echo "== sanitizer"
for t in memcheck racecheck; do
printf 'divrem 65536 3 near 3 device none\nmod 1048576 1 random 4 device none\n' | timeout 300 compute-sanitizer --tool $t --print-limit 5 build/tests/check_batch --backend cuda 2>&1 | tail -4
done
