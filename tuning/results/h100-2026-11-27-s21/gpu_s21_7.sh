#!/bin/bash
# untracked session script: where a mid-sized host call's time goes (NumPy arrays of 2^22 words per operand)
cd build/sess && tar xJf ab2.tar.xz && cd ../.. && mkdir -p lib && cp build/sess/new/lib/libmidint.so lib/
nvidia-smi --query-gpu=name --format=csv,noheader
for th in "" 4 1; do
  echo "== MIDINT_HOST_THREADS=${th:-default}"
  env ${th:+MIDINT_HOST_THREADS=$th} PYTHONPATH=python timeout 120 python3 -m midint.bench --backend cuda --ops mul,add --paths host --words 4194304 --sizes 512,4096,65536 --reps 7 2>&1 | grep "^mul\|^add\|^op"
done
echo "== 2^24 words"
PYTHONPATH=python timeout 120 python3 -m midint.bench --backend cuda --ops mul,add --paths host --words 16777216 --sizes 512,65536 --reps 5 2>&1 | grep "^mul\|^add\|^op"
