#!/bin/bash
# untracked session script: the replay test's cases under the trace
cd build/s25 && tar xJf fb13.tar.xz && cd ../..
B=build/s25/fb13
MIDINT_TEST_BIGDIV=5 MIDINT_TRACE_REPLAY=1 LD_LIBRARY_PATH=$PWD/$B/lib timeout 60 $B/tests/check_batch --backend cuda < build/s25/cases.txt > $OUT/test_trace.txt 2>&1
printf 'run divrem 67108864 1 default 5 abits=134217728\n' | MIDINT_TRACE_REPLAY=1 LD_LIBRARY_PATH=$PWD/$B/lib timeout 100 build/tuning/measure --backend cuda --tuning none > $OUT/measure_trace.txt 2>&1
grep -v "workspace grown" $OUT/test_trace.txt | head -60; grep -v "workspace grown" $OUT/measure_trace.txt | tail -20
