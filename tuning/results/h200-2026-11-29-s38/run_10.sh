#!/bin/bash
# s38 run 10: run 9's one failing test again after its fix (test_sizes_beyond_private_memory expected mul then mod's
# 2 n words an instance of mulmod_shared too, whose composition since the thirty-seventh session also keeps the
# modulus's copies: 3 n), with the rest of the Python modular calls' CUDA tests
set -u
bash build/s38/full/unpack.sh
timeout 90 python3 -m pytest -q -p no:cacheprovider tests/test_python_modarith.py -k "cuda" 2>&1 | tail -3
