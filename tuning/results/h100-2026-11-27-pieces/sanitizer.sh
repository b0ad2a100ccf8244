#!/bin/bash
# session script kept as the record; run from the repository root on the GPU machine with lib/ and build/ carried
S=compute-sanitizer
cases='mul 65536 2 max 1 device none
sqr 131072 1 random 2 device none
mullo 131072 2 mixed 3 host none'
for tool in memcheck racecheck; do
  echo "== $tool"
  printf '%s\n' "$cases" | MIDINT_TEST_NTT_PIECE=700 timeout 250 $S --tool $tool build/tests/check_batch --backend cuda > /tmp/san.txt 2>&1
  grep -v "^ok" /tmp/san.txt | tail -4; grep -c "^ok" /tmp/san.txt
done
