#!/bin/bash
# session script kept as the record (the lender gave an H200 for this call); bgcd.py = batch_gcd_session.py at 2^16 and 2^20
nvidia-smi --query-gpu=name --format=csv,noheader
echo "== NVIDIA OpenCL (device 1)"
printf '%s\n' "mul 268435456 1 max 1 device none" "mul 536870912 1 random 2 device none" "mullo 268435456 1 random 4 device none" \
  | timeout 200 build/tests/check_batch --backend opencl --device 1 2>&1 | tail -3
printf '%s\n' 'time mul 134217728 1 default 5' 'time mul 536870912 1 default 5' \
  | timeout 100 build/tuning/measure --backend opencl --device 1 --tuning none 2>&1 | grep "^time\|^device"
echo "== CUDA H200"
printf '%s\n' 'time mul 134217728 1 default 10' 'time mul 268435456 1 default 10' 'time mul 536870912 1 default 10' \
  'time sqr 536870912 1 default 10' 'time mullo 536870912 1 default 10' 'time mul 1073741824 1 default 5' \
  'run divrem 268435456 1 default 3 abits=536870912' 'run divrem 536870912 1 default 3 abits=1073741824' \
  | timeout 200 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^time\|^run"
pip install --no-index --target /tmp/gm gmpy2-*.whl -q 2>&1 | grep -v WARN | tail -1
timeout 200 python3 bgcd.py 2>&1 | tail -3
