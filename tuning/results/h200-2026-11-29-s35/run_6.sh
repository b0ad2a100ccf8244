#!/bin/bash
# s35 run 6: does the device4 case catch the fault it is for? check_batch (al's, which has device4) on the library
# before the vec guard (oldlib: the rename build, mulmod at 256-1024 bits) and on al; then test_variants' CUDA cases
# for every variant of al (256-1024 bits, every operation), each of which now has a device4 case at its own size
set -u
mkdir -p lib build/tests generated build/tuning
P=build/s35/al
rm -rf generated; cp -r $P/generated generated; cp $P/libmidint.so lib/; cp $P/tests/* build/tests/; cp $P/tuning/measure build/tuning/
for L in oldlib al; do
  printf "mulmod 1024 300 mixed 3 device4 none\nmulmod 256 300 random 3 device4 none\n" | LD_LIBRARY_PATH=build/s35/$L timeout 120 build/tests/check_batch --backend cuda 2>&1 | tail -2 | sed "s/^/$L: /"
done
timeout 540 python3 -m pytest -q -x -p no:cacheprovider tests/test_variants.py -k "cuda" 2>&1 | tail -4
