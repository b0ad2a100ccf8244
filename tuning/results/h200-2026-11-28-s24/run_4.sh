#!/bin/bash
# session script kept as the record: rows_mac with 2 outputs per block (fb9) and 4 (fb8) against the landed code (fb7),
# alternated: products of 2^28-2^30 bits; CUDA tests of the pieces path on fb9; ncu of fb9's rows_mac
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s24 && for b in fb7 fb8 fb9; do tar xJf $b.tar.xz; done && cd ../..
mkdir -p lib build/tests build/examples && cp build/s24/fb9/lib/libmidint.so lib/ && cp build/s24/fb9/tests/* build/tests/ && cp build/s24/fb9/examples/* build/examples/ && cp build/s24/fb9/variants.txt generated/
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_ntt_pieces.py -k cuda 2>&1 | tail -2
M="build/tuning/measure --backend cuda --tuning none"
for r in 1 2 3; do for B in fb7 fb8 fb9; do echo "== $B round $r"
printf 'time mul 536870912 1 default 10\ntime sqr 536870912 1 default 10\ntime mullo 536870912 1 default 10\ntime mul 268435456 1 default 10\n' | LD_LIBRARY_PATH=$PWD/build/s24/$B/lib timeout 150 $M 2>&1 | grep "^run\|^time"
done; done
for B in fb7 fb9; do echo "== $B 2^30"; printf 'time mul 1073741824 1 default 5\n' | LD_LIBRARY_PATH=$PWD/build/s24/$B/lib timeout 150 $M 2>&1 | grep "^time"; done
echo "== ncu fb9"
printf 'time mul 536870912 1 default 1\n' > /tmp/c.txt
LD_LIBRARY_PATH=$PWD/build/s24/fb9/lib timeout 200 ncu -k regex:rows_mac -c 1 --metrics gpu__time_duration.sum,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active --csv $M < /tmp/c.txt 2>&1 | tail -3
