#!/bin/bash
# untracked session script: column blocks of 8 columns (32-byte rows; fb15) against 4 (fb14): the CUDA tests of every
# row/column kernel, then products alternated
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
cd build/s25 && for b in fb14 fb15; do tar xJf $b.tar.xz; done && cd ../..
mkdir -p lib build/tests build/examples && cp build/s25/fb15/lib/libmidint.so lib/ && cp build/s25/fb15/tests/* build/tests/ && cp build/s25/fb15/examples/* build/examples/ && cp build/s25/fb15/variants.txt generated/
timeout 120 python3 -m pytest -q -p no:cacheprovider -x tests/test_variants.py -k "grid_ntt_every_split and cuda" tests/test_ntt_pieces.py tests/test_wrap_product.py 2>&1 | tail -2
M="build/tuning/measure --backend cuda --tuning none"
for r in 1 2; do for B in fb14 fb15; do echo "== $B round $r"
printf 'time mul 536870912 1 default 10\ntime sqr 536870912 1 default 10\ntime mul 268435456 1 default 10\ntime mul 134217728 1 default 10\ntime mul 67108864 1 default 20\ntime mul 16777216 1 default 20\n' | LD_LIBRARY_PATH=$PWD/build/s25/$B/lib timeout 100 $M 2>&1 | grep "^time"
done; done
