#!/bin/bash
# untracked session script: after the buffer cache (correctness, new beside landed, the 2^16 trace)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
pip install --no-index --target /tmp/gm gmpy2-*.whl -q 2>&1 | grep -v WARN | tail -1
timeout 200 python3 bgcd_s18.py 1,2,3,9,100,4096 check
timeout 200 python3 bgcd_s18.py 65536 check
timeout 300 build/sess/bg_time 1024 16384 65536 262144 1048576
for c in 65536 1048576; do
echo "== trace, $c (second call)"
MIDINT_TRACE_BATCH_GCD=1 timeout 100 python3 -c "
import sys; sys.path.insert(0, 'python'); import numpy as np, midint
c = $c
a = np.random.default_rng(1).integers(0, 2**32, (c, 32), dtype=np.uint32); a[:, 0] |= 1; a[:, 31] |= 1 << 31
with midint.Context('cuda') as ctx:
    ctx.batch_gcd(a); print('=== traced second call', c, flush=True); ctx.batch_gcd(a)
" 2>&1 | awk '/=== traced/{p=1} p'
done
