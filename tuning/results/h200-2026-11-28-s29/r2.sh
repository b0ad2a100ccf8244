#!/bin/bash
# s29 run 2: the ring in turns of 4 and 8 steps (u4, u8) against the session-start build, alternating; c6 (the full
# ring, a turn of Q steps, capped at 80 registers at 4096 bits and 128 at 8192) once more
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  for t in base u4 u8 c6; do
    { echo "run divrem 4096 524288 default 5"; echo "run mod 4096 524288 default 5"
      echo "run divrem 4096 262144 default 3 pattern=mersenne"
      echo "run divrem 8192 262144 default 5"; echo "run mod 8192 262144 default 5"
    } | build/s29/$t/build/tuning/measure --backend cuda --tuning none | grep "^run" | sed "s/^/$t /" | awk '{print $1,$3,$4,$6,$8, $10}'
  done
done
