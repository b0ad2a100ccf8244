#!/bin/bash
# session script kept as the record: traces on the landed code (fb9): batch GCD of 2^16 and 2^20 moduli by phase (with the
# root's division), one division of 2^27 by 2^26 bits
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s24 && tar xJf fb9.tar.xz && cd ../..
B=build/s24/fb9
MIDINT_TRACE_BATCH_GCD=1 timeout 60 $B/bg_cmp - 65536 > $OUT/trace_bg16.txt 2>&1
MIDINT_TRACE_BIGDIV=1 MIDINT_TRACE_BATCH_GCD=1 timeout 60 $B/bg_cmp - 65536 > $OUT/trace_bg16_div.txt 2>&1
MIDINT_TRACE_BATCH_GCD=1 timeout 100 $B/bg_cmp - 1048576 > $OUT/trace_bg20.txt 2>&1
tail -30 $OUT/trace_bg16.txt; tail -30 $OUT/trace_bg20.txt
printf 'run divrem 67108864 1 default 3 abits=134217728\n' > /tmp/t.txt
MIDINT_TRACE_BIGDIV=1 LD_LIBRARY_PATH=$PWD/$B/lib timeout 60 build/tuning/measure --backend cuda --tuning none < /tmp/t.txt > $OUT/trace_div.txt 2>&1
tail -20 $OUT/trace_div.txt
