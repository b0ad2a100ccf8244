#!/bin/bash
# untracked session script: batch GCD beside the library of d2a615d (an H200 wanted for the mark); the example's CUDA test
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s22 && mkdir -p old && tar xJf ab2.tar.xz && mv new/bg_cmp new/lib old/ && rmdir new && tar xJf cur.tar.xz && cd ../..
mkdir -p lib build/tests build/examples && cp build/s22/cur/lib/libmidint.so lib/ && cp build/s22/cur/tests/* build/tests/ && cp build/s22/cur/examples/* build/examples/ && cp build/s22/cur/variants.txt generated/
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_batch_gcd.py -k "cuda and example" 2>&1 | tail -1
for r in 1 2 3 4; do for v in old cur; do echo -n "$v: "; build/s22/$v/bg_cmp - 65536; done; done
for v in old cur; do echo -n "$v: "; build/s22/$v/bg_cmp - 1048576; done
MIDINT_TRACE_BATCH_GCD=1 build/s22/cur/bg_cmp - 65536 2>&1 | tail -40 | awk '{print}' | tr '\n' ';' | cut -c1-3000
