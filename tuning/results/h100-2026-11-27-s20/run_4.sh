#!/bin/bash
# untracked session script: the counted corrections (cmul) and the root's estimated last block, beside HEAD~ (old)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/sess && tar xJf ab.tar.xz && cd ../.. && mkdir -p lib && cp build/sess/new/lib/libmidint.so lib/
echo "== tests on cuda"
timeout 250 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py tests/test_wrap_product.py -k cuda 2>&1 | tail -2
echo "== A/B batch gcd: old (start of session), new"
for r in 1 2 3; do for v in old new; do echo -n "$v: "; build/sess/$v/bg_cmp - 65536; done; done
for v in old new; do echo -n "$v: "; build/sess/$v/bg_cmp - 1048576; done
echo "== trace new"
MIDINT_TRACE_BATCH_GCD=1 build/sess/new/bg_cmp - 65536 2>&1 | awk '/batch_gcd: upload/ {delete s} /midint batch_gcd:/ {s[$3] += $(NF-1); t += $(NF-1)} /^batch_gcd/ {print} END {for (k in s) printf "  %-9s %8.2f ms\n", k, s[k]}'
echo "== divrem, one instance, dividend twice the divisor: old then new"
for v in old new; do
  printf 'time mul 67108864 1 default 5\nrun divrem 65536 1 default 5 abits=131072\nrun divrem 1048576 1 default 5 abits=2097152\nrun divrem 33554432 1 default 5 abits=67108864\nrun divrem 67108864 1 default 5 abits=134217728\nrun divrem 536870912 1 default 3 abits=1073741824\n' | LD_LIBRARY_PATH=$PWD/build/sess/$v/lib timeout 200 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^time\|^run" | sed "s/^/$v /"
done
