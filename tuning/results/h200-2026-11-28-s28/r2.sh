#!/bin/bash
# s28 run 2: modinv 4096 at Q 32 and 64 (P in shared rows at 64, settle's fast path, the matrices a block ahead)
# against the session-start build; gcd 4096 beside
cd build/s28
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in new new; do   # run 2c; 2a: base new base new, 2b: new base new
  echo "== $t"
  { echo "run modinv 4096 131072 modinv_4096_u32_q32_i32_w4_cuda 5"
    echo "run gcd 4096 131072 gcd_4096_u32_q64_i64_w2_cuda 5"
    if [ $t = new ]; then
      echo "run modinv 4096 131072 modinv_4096_u32_q32_i32_w4_cuda 5 modulus=odd"
      echo "run modinv 4096 131072 modinv_4096_u32_q64_i64_w2_cuda 5"
      echo "run modinv 4096 131072 modinv_4096_u32_q64_i64_w2_cuda 5 modulus=odd"
    fi
  } | $t/build/tuning/measure --backend cuda --tuning none
done
