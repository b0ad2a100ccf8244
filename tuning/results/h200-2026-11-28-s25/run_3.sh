#!/bin/bash
# untracked session script: SASS of both cols2048 builds; warp stall reasons of fb10's and fb11's forward cols2048
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
for v in old new; do cuobjdump --dump-sass build/s25/cols_$v.cubin > $OUT/cols_$v.sass; done
cd build/s25 && for b in fb10 fb11; do tar xJf $b.tar.xz; done && cd ../..
M="build/tuning/measure --backend cuda --tuning none"
printf 'time mul 536870912 1 default 1\n' > /tmp/c.txt
for B in fb10 fb11; do
LD_LIBRARY_PATH=$PWD/build/s25/$B/lib timeout 200 ncu -k regex:'cols2048' -c 1 --section WarpStateStats --section MemoryWorkloadAnalysis_Tables --section SchedulerStats --csv $M < /tmp/c.txt > $OUT/ws_$B.csv 2>&1
done
ls -la $OUT
