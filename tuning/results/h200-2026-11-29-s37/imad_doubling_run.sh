#!/bin/bash
# s37, prepared, not run (the session's device time ran out): the squaring's doubled column adds on the multiply-add pipe
# against main at e8ef9f0 (head), powm at 512-4096 bits: the instruction mix, check_batch on every pattern, rates
set -u
S=build/s37
cuobjdump --dump-sass $S/imad/libmidint.so 2>/dev/null | awk '/Function : powm_1024/{f=1} /Function : /{if(!/powm_1024/)f=0} f' > /tmp/sass.txt
echo "imad powm_1024 SASS: $(grep -c 'IMAD.WIDE.U32' /tmp/sass.txt) IMAD.WIDE.U32, $(grep -c 'IADD3' /tmp/sass.txt) IADD3, $(grep -c 'DFMA' /tmp/sass.txt) DFMA"
pats="random zero max one mersenne fermat pow2 near multiple single_bits shared equal exponents mixed"
for b in 512 1024 2048 4096; do
  e=$b; [ $b -gt 1024 ] && e=512
  for p in $pats; do for sec in 0 1; do echo "powm $b 64 $p 13 device none ebits=$e,secret=$sec"; done; done
done > /tmp/cases.txt
LD_LIBRARY_PATH=$S/imad timeout 100 $S/imad/tests/check_batch --backend cuda < /tmp/cases.txt > /tmp/r.txt 2>&1
echo "imad checks: $(grep -c '^ok' /tmp/r.txt) ok of $(wc -l < /tmp/cases.txt)"; grep -v '^ok' /tmp/r.txt | head -3
cmds="run powm 512 2097152 default 3 ebits=512
run powm 1024 1048576 default 3 ebits=512
run powm 1024 524288 default 3 ebits=1024,secret=1
run powm 2048 262144 default 3 ebits=512
run powm 4096 65536 default 3 ebits=512"
for r in 1 2; do for L in head imad; do
  echo "== $r $L"; echo "$cmds" | LD_LIBRARY_PATH=$S/$L timeout 60 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $4, $7, $8, $9}'
done; done
