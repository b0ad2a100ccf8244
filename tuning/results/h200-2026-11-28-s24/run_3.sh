#!/bin/bash
# session script kept as the record: rows_mac with 4 outputs per block (fb8) against the landed code (fb7): CUDA tests of the
# pieces path, products of 2^28/2^29 bits alternated, ncu on fb8's row kernels
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s24 && tar xJf fb7.tar.xz && tar xJf fb8.tar.xz && cd ../..
mkdir -p lib build/tests build/examples && cp build/s24/fb8/lib/libmidint.so lib/ && cp build/s24/fb8/tests/* build/tests/ && cp build/s24/fb8/examples/* build/examples/ && cp build/s24/fb8/variants.txt generated/
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_ntt_pieces.py -k cuda 2>&1 | tail -2
M="build/tuning/measure --backend cuda --tuning none"
for r in 1 2; do for B in fb7 fb8; do echo "== $B round $r"
printf 'time mul 536870912 1 default 10\ntime sqr 536870912 1 default 10\ntime mullo 536870912 1 default 10\ntime mul 268435456 1 default 10\ntime mul 67108864 1 default 10\n' | LD_LIBRARY_PATH=$PWD/build/s24/$B/lib timeout 150 $M 2>&1 | grep "^run\|^time"
done; done
echo "== ncu fb8"
printf 'time mul 536870912 1 default 1\n' > /tmp/c.txt
LD_LIBRARY_PATH=$PWD/build/s24/fb8/lib timeout 200 ncu -k regex:ntt -c 6 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active --csv $M < /tmp/c.txt > $OUT/ncu_fb8.csv 2>&1
grep -o '"[a-z_0-9]*4096\|rows_mac[0-9]*","[^"]*","[^"]*"' $OUT/ncu_fb8.csv | head -0
