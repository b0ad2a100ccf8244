#!/bin/bash
# untracked session script: stall reasons per issued instruction of fb10's and fb11's cols2048 and cols_inv2048
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
cd build/s25 && for b in fb10 fb11; do tar xJf $b.tar.xz; done && cd ../..
M="build/tuning/measure --backend cuda --tuning none"
printf 'time mul 536870912 1 default 1\n' > /tmp/c.txt
S=""
for r in long_scoreboard short_scoreboard mio_throttle lg_throttle math_pipe_throttle barrier wait not_selected selected dispatch_stall no_instruction drain membar branch_resolving tex_throttle imc_miss sleeping misc; do S="$S,smsp__average_warp_latency_issue_stalled_${r}.ratio"; done
for B in fb10 fb11; do
LD_LIBRARY_PATH=$PWD/build/s25/$B/lib timeout 200 ncu -k regex:'cols2048|cols_inv2048' -c 2 --metrics gpu__time_duration.sum$S --csv $M < /tmp/c.txt > $OUT/st_$B.csv 2>&1
done
ls -la $OUT
