#!/bin/bash
# session script kept as the record: ncu's full sections on the column and row kernels of a 2^29-bit product (fb7)
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s24 && tar xJf fb7.tar.xz && cd ../..
B=build/s24/fb7
M="build/tuning/measure --backend cuda --tuning none"
printf 'time mul 536870912 1 default 1\n' > /tmp/c.txt
LD_LIBRARY_PATH=$PWD/$B/lib timeout 400 ncu -k regex:'cols2048|cols_inv2048|rows_fwd4096|rows_mac4096' -c 4 --set full --import-source no -o $OUT/full $M < /tmp/c.txt > /dev/null 2>&1
ncu -i $OUT/full.ncu-rep --print-details all > $OUT/full.txt 2>&1
ls -la $OUT; wc -l $OUT/full.txt
cuobjdump --dump-sass -fun ntt_grid_u32_q16_p3b32_g256_cuda_cols2048 $B/lib/libmidint.so > $OUT/cols2048.sass 2>&1 || true
wc -l $OUT/cols2048.sass
