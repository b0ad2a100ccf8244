#!/bin/bash
# untracked session script: ex (the reciprocal's first products at their own length) against cur (short blocks), alternated
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s22 && tar xJf cur.tar.xz && tar xJf ex.tar.xz && cd ../..
for r in 1 2 3; do for v in cur ex; do
  printf 'run divrem 67108864 1 default 9 abits=134217728\nrun mod 67108864 1 default 9 abits=67108864\n' | LD_LIBRARY_PATH=$PWD/build/s22/$v/lib timeout 60 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^run" | sed "s/^/$r $v /"
done; done
for r in 1 2 3 4; do for v in cur ex; do echo -n "$v: "; timeout 30 build/s22/$v/bg_cmp - 65536; done; done
