#!/bin/bash
# untracked session script: the reciprocal's first products at their own length (ex) beside the short blocks (cur) and
# the library of d2a615d (old), same call; the CUDA tests of bigdiv with ex
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s22 && mkdir -p old && tar xJf ab2.tar.xz && mv new/bg_cmp new/lib old/ && rmdir new && tar xJf cur.tar.xz && tar xJf ex.tar.xz && cd ../..
mkdir -p lib build/tests build/examples && cp build/s22/ex/lib/libmidint.so lib/ && cp build/s22/cur/tests/* build/tests/ && cp build/s22/cur/examples/* build/examples/ && cp build/s22/cur/variants.txt generated/
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_bigdiv.py tests/test_batch_gcd.py tests/test_wrap_product.py -k cuda 2>&1 | tail -1
for r in 1 2 3; do for v in old cur ex; do echo -n "$v: "; build/s22/$v/bg_cmp - 65536; done; done
for v in old cur ex; do echo -n "$v: "; build/s22/$v/bg_cmp - 1048576; done
for v in old cur ex ex cur old; do
  printf 'time mul 67108864 1 default 5\nrun divrem 67108864 1 default 5 abits=134217728\nrun divrem 67108864 1 default 5 abits=134217728,pattern=near\nrun divrem 33554432 2 default 5 abits=100663296,pattern=near\nrun divrem 1048576 1 default 5 abits=2097152\nrun divrem 536870912 1 default 3 abits=1073741824\n' | LD_LIBRARY_PATH=$PWD/build/s22/$v/lib timeout 200 build/tuning/measure --backend cuda --tuning none 2>&1 | grep "^time\|^run" | sed "s/^/$v /"
done
printf 'run divrem 1048576 2 default 1 abits=2097152,pattern=near\nrun mod 1048576 2 default 1 abits=1048576\n' > /tmp/d.txt
LD_LIBRARY_PATH=$PWD/lib timeout 150 compute-sanitizer --tool memcheck build/tuning/measure --backend cuda --tuning none < /tmp/d.txt 2>&1 | grep "^run\|ERROR SUMMARY" | head -4
