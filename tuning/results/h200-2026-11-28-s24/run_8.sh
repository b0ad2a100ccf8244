#!/bin/bash
# session script kept as the record: where the column pass stalls, by SASS instruction (fb9, one 2^27-bit product)
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s24 && tar xJf fb9.tar.xz && cd ../..
B=build/s24/fb9
printf 'time mul 134217728 1 default 1\n' > /tmp/c.txt
LD_LIBRARY_PATH=$PWD/$B/lib timeout 300 ncu -k regex:'cols2048|cols_inv2048' -c 2 --section SourceCounters --section WarpStateStats --import-source no -o $OUT/src build/tuning/measure --backend cuda --tuning none < /tmp/c.txt > /dev/null 2>&1
ncu -i $OUT/src.ncu-rep --page source --csv --print-source sass > $OUT/src_sass.csv 2>&1
ls -la $OUT; head -3 $OUT/src_sass.csv | cut -c1-600
rm -f $OUT/src.ncu-rep
