#!/bin/bash
# s39 run 6: the machine code of powm's 1024- and 512-bit kernels (build/s39/sqB2: the landed code), gzipped into $OUT
cuobjdump -sass -fun powm_1024_u32_q16_i64_w2_cuda build/s39/sqB2/libmidint.so > $OUT/powm1024.sass 2>&1
cuobjdump -sass -fun powm_512_u32_q16_i128_w1_cuda build/s39/sqB2/libmidint.so > $OUT/powm512.sass 2>&1
gzip $OUT/*.sass; ls -la $OUT
