#!/usr/bin/env bash
# r1.sh — RSA-2048 decryption by CRT on device buffers with the fused recombination (crt_h, crt_m) against the host-API
# chain of the session's start (the same library), the CUDA tests of the crt expressions, the 2048/4096-bit gcd,
# modinv and divrem cells on this card, and Nsight Compute's per-instruction stalls of the 2048-bit powm
set -u
N=build/s27/new
mkdir -p lib build/tuning build/tests build/examples generated
cp $N/variants.txt generated/ && cp $N/measure build/tuning/ && cp $N/tests/* build/tests/ && cp $N/libmidint.so lib/
cp $N/rsa_crt $N/rsa_crt_old build/examples/
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
echo "== rsa"
for r in 1 2 3; do
  build/examples/rsa_crt 262144 16 2>&1 | tail -1 | sed "s/^/new r$r: /"
  build/examples/rsa_crt_old 262144 16 2>&1 | tail -1 | sed "s/^/old r$r: /"
done | tee $OUT/rsa.txt
echo "== pytest"
timeout 300 python3 -m pytest -q -p no:cacheprovider -k "cuda or crt" tests/test_expr_mod.py tests/test_rsa_crt.py 2>&1 | tail -4 | tee $OUT/pytest.log
timeout 200 python3 -m pytest -q -p no:cacheprovider -k "cuda and crt" tests/test_variants.py 2>&1 | tail -3 | tee -a $OUT/pytest.log
echo "== cells"
M="build/tuning/measure --backend cuda --tuning none"
for r in 1 2; do
  printf "run gcd 2048 65536 default 3\nrun modinv 2048 65536 default 3\nrun gcd 4096 16384 default 3\nrun modinv 4096 16384 default 3\nrun divrem 2048 1048576 default 3\nrun divrem 4096 524288 default 3\nrun mul 1024 2097152 default 3\nrun mulmod 1024 2097152 default 3\nrun expr_crth 1024 262144 default 3\nrun expr_crtm 1024 262144 default 3\n" | $M 2>&1 | grep "^run" | sed "s/^/r$r /"
done | tee $OUT/cells.txt
echo "== ncu"
printf "run powm 2048 131072 default 1 ebits=512\n" > /tmp/p.txt
timeout 240 ncu --kernel-name regex:powm_2048 --launch-count 1 --section SourceCounters --section WarpStateStats \
  --import-source no -o $OUT/powm2048 build/tuning/measure --backend cuda --tuning none < /tmp/p.txt > $OUT/ncu_log.txt 2>&1
ncu --import $OUT/powm2048.ncu-rep --page source --csv --print-source sass > $OUT/powm2048_sass.csv 2>&1
ls -la $OUT; head -c 600 $OUT/powm2048_sass.csv
