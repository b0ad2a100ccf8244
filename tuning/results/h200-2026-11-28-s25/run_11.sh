#!/bin/bash
# untracked session script: fb14 again: which CUDA tests failed besides CuPy's, the cupy failure's message, memcheck summary
cd build/s25 && tar xJf fb14.tar.xz && cd ../..
mkdir -p lib build/tests build/examples && cp build/s25/fb14/lib/libmidint.so lib/ && cp build/s25/fb14/tests/* build/tests/ && cp build/s25/fb14/examples/* build/examples/ && cp build/s25/fb14/variants.txt generated/
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_batch_gcd.py tests/test_bigdiv.py tests/test_wrap_product.py tests/test_python_api.py tests/test_python_props.py tests/test_moddiv_fast.py -k "cuda" 2>&1 | grep "^FAILED" | grep -v cupy_arrays
timeout 100 python3 -m pytest -q -p no:cacheprovider tests/test_python_api.py -k "cupy_arrays and cuda and mul and not mulmod" 2>&1 | grep -B5 "AttributeError" | head -20
cases=$(for k in 1 2 3 4 5 6; do echo "divrem 65536 3 mixed $k device none abits=131072"; echo "mod 4096 2 max $((k+10)) host none"; done)
printf '%s\n' "$cases" | MIDINT_TEST_BIGDIV=5 timeout 200 compute-sanitizer --tool memcheck build/tests/check_batch --backend cuda 2>&1 | tail -3
