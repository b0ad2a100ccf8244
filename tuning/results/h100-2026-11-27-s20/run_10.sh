#!/bin/bash
# untracked session script: compute-sanitizer memcheck and racecheck on the division of large numbers (cmul, the
# estimate-only block through batch GCD's root) at two sizes
cd build/sess && tar xJf ab2.tar.xz && cd ../.. && mkdir -p lib && cp build/sess/new/lib/libmidint.so lib/
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
printf 'run divrem 65536 2 default 1 abits=131072\nrun divrem 1048576 1 default 1 abits=2097152\n' > /tmp/d.txt
for tool in memcheck racecheck; do
  echo "== $tool: divrem 2^16 (2 instances) and 2^20 bits"
  timeout 250 compute-sanitizer --tool $tool build/tuning/measure --backend cuda --tuning none < /tmp/d.txt 2>&1 | grep "^run\|ERROR SUMMARY\|hazard" | head -6
done
echo "== memcheck: batch gcd with a root past the division kernels (2^10 moduli: root children of 2^19 bits)"
timeout 200 compute-sanitizer --tool memcheck --leak-check no build/sess/new/bg_cmp - 1024 2>&1 | tail -2
