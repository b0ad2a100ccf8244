#!/bin/bash
# untracked session script: ctx.mul on lists of ints against gmpy2: the package at the session's start (old), with
# the conversions on threads (threads), and with the results' ints made during the device call (new); alternated
cd build/sess && tar xJf ab2.tar.xz && cd ../.. && mkdir -p lib && cp build/sess/new/lib/libmidint.so lib/
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | grep "Model name"
pip install -q --no-index --target /tmp/gm build/sess/gmpy2*.whl 2>&1 | tail -1
INC=$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["include"])')
SUF=$(python3 -c 'import sysconfig;print(sysconfig.get_config_var("EXT_SUFFIX"))')
OLD=$PWD/build/sess/oldpy/python MID=$PWD/build/sess/midpy/python NEW=$PWD/python
for d in $OLD $MID $NEW; do gcc -O3 -fPIC -shared -pthread -I$INC $d/midint/_convert.c -o $d/midint/_convert$SUF; done
export MIDINT_LIBRARY=$PWD/lib/libmidint.so
B="python3 -m midint.bench --backend cuda --ops mul --paths ints --cpu --ints-words 4194304 --reps 7"
for which in old threads new old threads new; do
  d=$OLD; [ $which = threads ] && d=$MID; [ $which = new ] && d=$NEW
  echo "== $which"
  (cd $d && PYTHONPATH=/tmp/gm timeout 150 $B --sizes 512,1024,4096 --csv $OUT/mul_ints_$which.csv 2>&1 | grep "^mul")
done
(cd $NEW && PYTHONPATH=/tmp/gm timeout 100 $B --sizes 2048,16384,65536 --csv $OUT/mul_ints_new_more.csv 2>&1 | grep "^mul")
