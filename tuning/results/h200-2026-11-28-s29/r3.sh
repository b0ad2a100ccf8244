#!/bin/bash
# s29 run 3: the ring in turns of 4 steps at ptxas's registers (u4) and capped (u4c: 64 at 4096, 96 at 8192) against the
# session-start build, alternating
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  for t in base u4 u4c; do
    { echo "run divrem 4096 524288 default 5"; echo "run mod 4096 524288 default 5"
      echo "run divrem 4096 262144 default 3 pattern=mersenne"
      echo "run divrem 8192 262144 default 5"; echo "run mod 8192 262144 default 5"
    } | build/s29/$t/build/tuning/measure --backend cuda --tuning none | grep "^run" | sed "s/^/$t /" | awk '{print $1,$3,$4,$6,$8, $10}'
  done
done
