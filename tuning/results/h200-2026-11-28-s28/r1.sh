#!/bin/bash
# s28 run 1: modinv 4096, session-start build against the prefetch build, Q 16/32/64, mixed and odd moduli
cd build/s28
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in base new; do
  echo "== $t"
  { echo "run modinv 4096 131072 default 5"
    echo "run modinv 4096 131072 default 5 modulus=odd"
    if [ $t = new ]; then
      for q in q16_i16_w8 q64_i64_w2; do
        echo "run modinv 4096 131072 modinv_4096_u32_${q}_cuda 5"
        echo "run modinv 4096 131072 modinv_4096_u32_${q}_cuda 5 modulus=odd"
      done
      echo "run gcd 4096 131072 default 5"
    fi
    echo "run modinv 4096 131072 default 5"
  } | $t/build/tuning/measure --backend cuda --tuning none
done
