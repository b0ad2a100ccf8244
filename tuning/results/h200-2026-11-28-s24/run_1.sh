#!/bin/bash
# session script kept as the record: the landed code (fb7) on the marks, and ncu on one 2^29-bit product
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s24 && tar xJf fb7.tar.xz && cd ../..
B=build/s24/fb7
for r in 1 2 3 4 5; do $B/bg_cmp - 65536; done
$B/bg_cmp - 1048576
M="build/tuning/measure --backend cuda --tuning none"
printf 'time mul 67108864 1 default 10\ntime mul 536870912 1 default 10\ntime mul 268435456 1 default 10\nrun divrem 67108864 1 default 5 abits=134217728\n' | LD_LIBRARY_PATH=$PWD/$B/lib timeout 150 $M 2>&1 | grep "^run\|^time"
echo "== ncu mul 2^29"
printf 'time mul 536870912 1 default 1\n' > /tmp/c.txt
LD_LIBRARY_PATH=$PWD/$B/lib timeout 250 ncu -k regex:ntt -c 40 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct --csv $M < /tmp/c.txt > $OUT/ncu_mul29.csv 2>&1
tail -3 $OUT/ncu_mul29.csv
