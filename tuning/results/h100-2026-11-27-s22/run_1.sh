#!/bin/bash
# untracked session script: issue 25's H200 marks on the landed device code (library of d2a615d; device code unchanged since)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
cd build/s22 && tar xJf ab2.tar.xz && cd ../..
echo "== batch gcd, random odd 1024-bit moduli, host to host (ms per call)"
for r in 1 2 3 4 5; do build/s22/new/bg_cmp - 65536; done
for r in 1 2; do build/s22/new/bg_cmp - 1048576; done
echo "== products and divisions, one instance"
printf 'time mul 67108864 1 default 5\ntime mul 536870912 1 default 3\nrun divrem 67108864 1 default 5 abits=134217728\nrun divrem 536870912 1 default 3 abits=1073741824\ntime mul 67108864 1 default 5\n' | LD_LIBRARY_PATH=$PWD/build/s22/new/lib timeout 300 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^time\|^run"
