#!/bin/bash
# untracked session script: ctx.mul on lists of ints against gmpy2 and batch GCD from ints, the package at the
# session's start (old) against the new one, alternated on one machine
cd build/sess && tar xJf ab2.tar.xz && cd ../.. && mkdir -p lib && cp build/sess/new/lib/libmidint.so lib/
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 --version; nproc; lscpu | grep "Model name"
pip install -q --no-index --target /tmp/gm build/sess/gmpy2*.whl 2>&1 | tail -1
INC=$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["include"])')
SUF=$(python3 -c 'import sysconfig;print(sysconfig.get_config_var("EXT_SUFFIX"))')
OLD=$PWD/build/sess/oldpy/python NEW=$PWD/python
for d in $OLD $NEW; do gcc -O3 -fPIC -shared -pthread -I$INC $d/midint/_convert.c -o $d/midint/_convert$SUF; done
export MIDINT_LIBRARY=$PWD/lib/libmidint.so
B="python3 -m midint.bench --backend cuda --ops mul --paths ints --cpu --ints-words 4194304 --reps 5"
for run in old:512,1024 new:512,1024 old:512,1024 new:512,1024,2048,4096,16384,65536; do
  IFS=: read which sizes <<< "$run"
  d=$OLD; [ $which = new ] && d=$NEW
  echo "== $which package, sizes $sizes"
  (cd $d && PYTHONPATH=/tmp/gm timeout 200 $B --sizes $sizes --csv $OUT/mul_ints_$which.csv 2>&1 | grep "^mul\|wrote")
done
(cd $NEW && PYTHONPATH=/tmp/gm timeout 100 python3 -m midint.bench --convert --ints-words 4194304 --reps 5 --csv $OUT/convert_new.csv 2>&1 | tail -9)
for which in old new old new; do
  d=$OLD; [ $which = new ] && d=$NEW
  echo "== batch gcd, $which package"
  PYDIR=$d timeout 200 python3 build/sess/bgcd_ints.py 65536,1048576 2>&1 | tail -3
done
