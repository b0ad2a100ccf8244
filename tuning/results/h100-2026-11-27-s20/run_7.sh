#!/bin/bash
# untracked session script: the memory estimate against the peak of live device memory; tests; timings
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/sess && tar xJf ab.tar.xz && cd ../.. && mkdir -p lib && cp build/sess/new/lib/libmidint.so lib/
echo "== tests on cuda"
timeout 250 python3 -m pytest -q -p no:cacheprovider tests/test_batch_gcd.py -k cuda 2>&1 | tail -2
echo "== peak live device memory (estimate: (L + 60) n 2^L words: 2^16 637 MB, 2^18 2.68 GB, 2^20 10.7 GB)"
for c in 65536 262144 1048576; do LD_PRELOAD=$PWD/build/sess/peakshim.so build/sess/new/bg_cmp - $c; done
echo "== 2^21 split with the memory as if 8 GB free: 4 parts, 12 roots in 3 calls (parts by memory)"
MIDINT_TEST_DEVICE_BYTES=8000000000 MIDINT_TRACE_BATCH_GCD=1 build/sess/new/bg_cmp - 2097152 2>&1 | grep -c "root"
echo "== A/B 2^16"
for r in 1 2; do for v in old new; do echo -n "$v: "; build/sess/$v/bg_cmp - 65536; done; done
