#!/bin/bash
# untracked session script: the pass kernels' bank-conflict-free layouts (fb11) against the landed code (fb10):
# CUDA tests of every row/column kernel, compute-sanitizer on the changed kernels, timings alternated, ncu per kernel
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s25 && for b in fb10 fb11; do tar xJf $b.tar.xz; done && cd ../..
mkdir -p lib build/tests build/examples && cp build/s25/fb11/lib/libmidint.so lib/ && cp build/s25/fb11/tests/* build/tests/ && cp build/s25/fb11/examples/* build/examples/ && cp build/s25/fb11/variants.txt generated/
timeout 240 python3 -m pytest -q -p no:cacheprovider -x tests/test_variants.py -k "grid_ntt_every_split and cuda" tests/test_ntt_pieces.py tests/test_wrap_product.py 2>&1 | tail -3
for split in 18,7 18,8 18,9 18,10 17,11; do
  echo "== memcheck split $split"
  printf 'mul 65536 1 max 1 device none\nmul 65440 2 random 2 host none\n' | MIDINT_TEST_NTT_SPLIT=$split timeout 60 compute-sanitizer --tool memcheck build/tests/check_batch --backend cuda --variant mul_65536_u32_q16_i1_p3b32_g256_cuda 2>&1 | tail -3
done
M="build/tuning/measure --backend cuda --tuning none"
for r in 1 2 3; do for B in fb10 fb11; do echo "== $B round $r"
printf 'time mul 536870912 1 default 10\ntime sqr 536870912 1 default 10\ntime mullo 536870912 1 default 10\ntime mul 268435456 1 default 10\ntime mul 67108864 1 default 20\ntime mul 16777216 1 default 20\ntime mul 1048576 64 default 20\n' | LD_LIBRARY_PATH=$PWD/build/s25/$B/lib timeout 150 $M 2>&1 | grep "^run\|^time"
done; done
for B in fb10 fb11; do echo "== $B bg/div"; for i in 1 2 3; do build/s25/$B/bg_cmp - 65536; done
printf 'run divrem 67108864 1 default 5 abits=134217728\n' | LD_LIBRARY_PATH=$PWD/build/s25/$B/lib timeout 100 $M 2>&1 | grep "^run"; done
printf 'time mul 536870912 1 default 1\n' > /tmp/c.txt
for B in fb10 fb11; do echo "== ncu $B"
LD_LIBRARY_PATH=$PWD/build/s25/$B/lib timeout 120 ncu -k regex:'cols|rows' --metrics gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed.sum --csv $M < /tmp/c.txt 2>/dev/null | grep -v "^==" | awk -F'","' '{print $5, $(NF-2), $NF}' | sed 's/"//g' | head -40
done
echo "== per-call latency (fb11)"
printf 'time add 32768 1 default 500\ntime sub 32768 1 default 500\ntime shr 32768 1 default 500\ntime mul 32768 1 default 500\ntime mul 262144 1 default 300\ntime mul 4194304 1 default 200\n' | LD_LIBRARY_PATH=$PWD/build/s25/fb11/lib timeout 100 $M 2>&1 | grep "^time"
