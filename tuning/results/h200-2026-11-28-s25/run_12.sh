#!/bin/bash
# untracked session script: the CuPy / __cuda_array_interface__ tests after the test-support fix (fb14)
cd build/s25 && tar xJf fb14.tar.xz && cd ../..
mkdir -p lib build/tests build/examples && cp build/s25/fb14/lib/libmidint.so lib/ && cp build/s25/fb14/tests/* build/tests/ && cp build/s25/fb14/examples/* build/examples/ && cp build/s25/fb14/variants.txt generated/
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_python_api.py -k "cuda" 2>&1 | tail -3
