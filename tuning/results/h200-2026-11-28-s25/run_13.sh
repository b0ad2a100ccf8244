#!/bin/bash
# untracked session script: test_python_modarith on CUDA after the lanes-kernel case of test_sizes_beyond_private_memory (fb14)
cd build/s25 && tar xJf fb14.tar.xz && cd ../..
mkdir -p lib build/tests build/examples && cp build/s25/fb14/lib/libmidint.so lib/ && cp build/s25/fb14/tests/* build/tests/ && cp build/s25/fb14/examples/* build/examples/ && cp build/s25/fb14/variants.txt generated/
timeout 250 python3 -m pytest -q -p no:cacheprovider tests/test_python_modarith.py -k "cuda" 2>&1 | grep -E "^E |^>|Error|passed|failed" | head -20
