#!/bin/bash
# s34 run 6: make bench's modular table for mulmod and mulmod_shared at 256-2048 bits with the session's kernels (lib4:
# mulmod's radix-2^49 division at 384-1024 bits, mulmod_shared's radix-2^52 Barrett at 256-1024), GMP on the host's
# 16 cores beside, 2^27 words an operand, the default rule
set -u
mkdir -p lib build/tests generated build/tuning
P=build/s34/lib4
cp $P/libmidint.so lib/ && cp $P/tests/* build/tests/ && cp $P/variants.txt generated/ && cp $P/measure build/tuning/
timeout 400 python3 tuning/bench.py --backend cuda --ops mulmod,mulmod_shared,mul --sizes 256,384,512,1024,2048 --tuning none --single '' --exprs '' --out "$1/bench_mulmod" 2>&1 | tail -40
