#!/bin/bash
# s39 run 5: powm's constant time at 512 bits with the square rows first (sqB2, the landed kernel): all-zero against
# all-one 512-bit exponents, secret (fixed windows, every table entry read), two rounds each
set -u
S=build/s39
printf "run powm 512 2097152 default 3 ebits=512,secret=1,pattern=zero\nrun powm 512 2097152 default 3 ebits=512,secret=1,pattern=max\nrun powm 512 2097152 default 3 ebits=512,secret=1,pattern=zero\nrun powm 512 2097152 default 3 ebits=512,secret=1,pattern=max\n" | LD_LIBRARY_PATH=$S/sqB2 timeout 60 $S/sqB2/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print "ct", $2, $3, $4, $7, $8, $9}'
