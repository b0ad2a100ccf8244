#!/bin/bash
# s37 run 3: the full default build at 2936714 (full2, unpacked into lib/, build/, generated/): the CUDA tests of the
# large division, batch GCD, the Python modular calls and RSA; issue 25's marks (a product of 2^26 bits, divrem
# 2^27 by 2^26 and 2^30 by 2^29 bits, batch GCD of 2^16 and 2^20 moduli, two rounds); RSA-2048 end to end; CGBN's
# own harness (xmp_tester, built outside the tree from NVlabs/CGBN's perf_tests, sm_90) on the same card
set -u
bash build/s37/full2/unpack.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== pytest (cuda): bigdiv, batch gcd, rsa, python modular calls"
timeout 300 python3 -m pytest -q -p no:cacheprovider -k cuda tests/test_bigdiv.py tests/test_batch_gcd.py tests/test_rsa_crt.py tests/test_python_modarith.py 2>&1 | grep -E "^E |passed|failed|error" | head -12
echo "== issue 25"
for r in 1 2; do
  printf 'time mul 67108864 1 default 9\nrun divrem 67108864 1 default 9 abits=134217728\nrun divrem 536870912 1 default 3 abits=1073741824\n' | timeout 120 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|^time" | awk '{print $1, $2, $3, $7, $8, $9}'
  LD_LIBRARY_PATH=lib timeout 120 build/s37/full2/bg_cmp - 65536 1048576 2>&1 | tail -3
done
echo "== RSA-2048, 262144 messages over 16 keys"
for r in 1 2; do timeout 120 build/examples/rsa_crt 262144 16 2>&1 | tail -4; done
echo "== CGBN xmp_tester"
timeout 330 build/s37/cgbn/xmp_tester powm_odd gcd modinv div_qr 256 512 1024 2048 4096 2>&1 | tail -60
