#!/bin/bash
# untracked session script: the landed code beside the session's start, for the marks (batch GCD, divisions)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/sess && tar xJf ab.tar.xz && cd ../.. && mkdir -p lib && cp build/sess/new/lib/libmidint.so lib/
echo "== A/B batch gcd: old (start of session), new"
for r in 1 2 3; do for v in old new; do echo -n "$v: "; build/sess/$v/bg_cmp - 65536; done; done
for r in 1 2; do for v in old new; do echo -n "$v: "; build/sess/$v/bg_cmp - 1048576; done; done
build/sess/new/bg_cmp - 2097152
echo "== divrem, one instance, dividend twice the divisor: old then new"
for v in old new; do
  printf 'time mul 67108864 1 default 5\ntime mul 536870912 1 default 3\nrun divrem 67108864 1 default 5 abits=134217728\nrun divrem 536870912 1 default 3 abits=1073741824\n' | LD_LIBRARY_PATH=$PWD/build/sess/$v/lib timeout 200 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^time\|^run" | sed "s/^/$v /"
done
