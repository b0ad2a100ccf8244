#!/bin/bash
# s28 run 4: every lanes variant of modinv and gcd at 1536-8192 bits (the rows at Q >= 64, the new word sums)
cd build/s28
for v in $(cat vlist.txt); do
  op=${v%%_*}; b=$(echo $v | cut -d_ -f2); c=131072; [ $b -le 2048 ] && c=262144
  echo "run $op $b $c $v 5"
  [ $op = modinv ] && echo "run $op $b $c $v 5 modulus=odd"
done > /tmp/in4.txt
cat /tmp/in4.txt | wc -l
new/build/tuning/measure --backend cuda --tuning none < /tmp/in4.txt | grep "^run"
