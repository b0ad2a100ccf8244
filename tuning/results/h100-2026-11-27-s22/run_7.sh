#!/bin/bash
# untracked session script: batch GCD with the session's code (ex) beside the landed code (old), for the H200 mark
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s22 && mkdir -p old && tar xJf ab2.tar.xz && mv new/bg_cmp new/lib old/ && rmdir new && tar xJf ex.tar.xz && cd ../..
for r in 1 2 3; do for v in old ex; do echo -n "$v: "; timeout 30 build/s22/$v/bg_cmp - 65536; done; done
for r in 4 5; do echo -n "ex: "; timeout 30 build/s22/ex/bg_cmp - 65536; done
for v in old ex; do echo -n "$v: "; timeout 30 build/s22/$v/bg_cmp - 1048576; done
