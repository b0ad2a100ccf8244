#!/bin/bash
# untracked session script: the two CUDA test failures of run 8, with fb13 and with fb10
cd build/s25 && for b in fb10 fb13; do tar xJf $b.tar.xz; done && cd ../..
for B in fb13 fb10; do echo "== $B"
mkdir -p lib build/tests build/examples && cp build/s25/$B/lib/libmidint.so lib/ && cp build/s25/$B/tests/* build/tests/ && cp build/s25/$B/examples/* build/examples/ && cp build/s25/$B/variants.txt generated/
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_python_modarith.py -k "cuda and (replay or beyond_private)" 2>&1 | grep -v "^  \|^$" | tail -25
done
