#!/bin/bash
# s35 run 5: the committed form (al: every operation at 256-1024 bits; mulmod's FP64 division at 256 bits in radix
# 2^43; mulmod's and mulmod_shared's 16-byte branches only where the buffers are 16-byte aligned, vec): check_batch's
# new api device4 (device buffers 4 bytes past their allocation) against device for every operation; the CUDA tests of
# every mulmod and mulmod_shared variant forced against GMP, the composition and the Python modular calls; make bench's
# rows for mul, mulmod and mulmod_shared at 256-1024 bits (2^27 words, the default rule)
set -u
mkdir -p lib build/tests generated build/tuning
P=build/s35/al
rm -rf generated; cp -r $P/generated generated; cp $P/libmidint.so lib/; cp $P/tests/* build/tests/; cp $P/tuning/measure build/tuning/
for api in device device4; do
  : > /tmp/cases_$api.txt
  for b in 256 384 512 1024; do
    for op in add sub mul mullo sqr shl shr and or xor not cmp; do echo "$op $b 1000 random 3 $api none" >> /tmp/cases_$api.txt; done
    for op in divrem mod mulmod powm gcd modinv mulmod_shared powm_shared; do echo "$op $b 300 mixed 3 $api none" >> /tmp/cases_$api.txt; done
  done
  timeout 300 build/tests/check_batch --backend cuda < /tmp/cases_$api.txt > /tmp/out_$api.txt 2>&1
  echo "check_batch $api: rc $? $(grep -c '^ok' /tmp/out_$api.txt) ok, $(grep -c '^FAIL' /tmp/out_$api.txt) failed"
  grep -v '^ok' /tmp/out_$api.txt | head -20
done
printf "mulmod 1024 300 mixed 3 device4 none\nmulmod_shared 512 300 mixed 3 device4 none\nmulmod 256 300 max 3 device4 none\n" > /tmp/mc.txt
timeout 300 compute-sanitizer --tool memcheck --print-limit 5 build/tests/check_batch --backend cuda < /tmp/mc.txt 2>&1 | tail -1 | sed "s/^/memcheck device4: /"
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_composed.py tests/test_variants.py -k "cuda and (mulmod or composed or wide) and not generated" 2>&1 | tail -2
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_python_modarith.py 2>&1 | tail -2
timeout 400 python3 tuning/bench.py --backend cuda --ops mul,mulmod,mulmod_shared --sizes 256,384,512,1024 --tuning none --single '' --exprs '' --out "$1/bench_mulmod_s35" 2>&1 | tail -30
