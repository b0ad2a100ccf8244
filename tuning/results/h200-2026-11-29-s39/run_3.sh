#!/bin/bash
# s39 run 3: the whole default build at 4d7bed2 (build/s39/full: 512 bits' squarings with the square rows first):
# the CUDA tests of every powm and powm_shared lanes variant against GMP (256-4096 bits); make bench's powm rows
# (512-bit and full-width exponents) at 256-4096 bits; how busy each pipe is in the 512- and 1024-bit kernels
set -u
bash build/s39/full/unpack.sh
echo "== pytest (cuda): powm and powm_shared lanes variants"
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_variants.py -k "cuda and powm and not 8192 and not 16384 and not 32768 and not generated" 2>&1 | grep -E "^E |passed|failed|error" | head -12
echo "== bench powm 256-4096"
timeout 200 python3 tuning/bench.py --ops powm --sizes 256,384,512,1024,1536,2048,3072,4096 --single '' --exprs '' --reps 5 --threads 16 --tuning none --out $OUT/bench_s39_powm 2>&1 | grep -E "^powm|wrote"
for b in 512 1024; do
  n=$((2 ** 28 / b))
  printf "run powm $b $n default 1 ebits=512\n" | timeout 200 ncu --kernel-name regex:powm_${b}_ --launch-count 1 --metrics regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "pct" | awk -v B=$b '$NF+0 >= 3 {print B, $1, $NF}' | tr '\n' ';'; echo
done
