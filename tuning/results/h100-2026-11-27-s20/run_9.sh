#!/bin/bash
# untracked session script: one more try for an H200: the landed code beside the session's start
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/sess && tar xJf ab.tar.xz && cd ../..
for r in 1 2 3; do for v in old new; do echo -n "$v: "; build/sess/$v/bg_cmp - 65536; done; done
for v in old new; do echo -n "$v: "; build/sess/$v/bg_cmp - 1048576; done
