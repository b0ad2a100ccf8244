#!/bin/bash
# untracked session script: why a divisor 2^k - 1 divides 2.7x slower than a random one at 2^26 bits (kernel summary)
nvidia-smi --query-gpu=name --format=csv,noheader
cd build/s22 && tar xJf ex.tar.xz && cd ../..
N=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: $N"
for p in random mersenne; do
  printf "run divrem 67108864 1 default 3 abits=134217728,pattern=$p\n" > /tmp/c_$p.txt
  if [ -n "$N" ]; then
    LD_LIBRARY_PATH=$PWD/build/s22/ex/lib timeout 100 $N profile -o /tmp/p_$p --force-overwrite true --stats=false build/tuning/measure --backend cuda --tuning none < /tmp/c_$p.txt 2>&1 | grep '^run'
    timeout 60 $N stats -r cuda_gpu_kern_sum,cuda_api_sum -f csv -o $OUT/$p /tmp/p_$p.nsys-rep > /dev/null 2>&1
    ls $OUT
  else
    LD_LIBRARY_PATH=$PWD/build/s22/ex/lib timeout 100 build/tuning/measure --backend cuda --tuning none < /tmp/c_$p.txt 2>&1 | grep '^run'
  fi
done
