#!/usr/bin/env bash
# rsa.sh — RSA-2048 private-key operations end to end (examples/rsa_crt) with the FP64 powm against the session's start
set -u
mkdir -p lib build/examples
cp build/s26/f52/rsa_crt build/examples/
for round in 1 2; do for lib in f52 base; do
  cp build/s26/$lib/lib/libmidint.so lib/
  echo "$lib r$round: $(build/examples/rsa_crt 262144 16 2>&1 | tail -2 | tr '\n' ' ')"
done; done | tee $OUT/rsa.txt
