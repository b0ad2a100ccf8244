#!/bin/bash
# untracked session script: per-kernel ncu of one 2^29-bit product, fb10 against fb11 (shared wavefronts, time, instructions)
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
cd build/s25 && for b in fb10 fb11; do tar xJf $b.tar.xz; done && cd ../..
M="build/tuning/measure --backend cuda --tuning none"
printf 'time mul 536870912 1 default 1\n' > /tmp/c.txt
for B in fb10 fb11; do
LD_LIBRARY_PATH=$PWD/build/s25/$B/lib timeout 200 ncu -k regex:'cols|rows' --metrics gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__pcsamp_warps_issue_stalled_mio_throttle,l1tex__t_sector_hit_rate.pct --csv $M < /tmp/c.txt > $OUT/ncu_$B.csv 2>&1
done
wc -l $OUT/*.csv
