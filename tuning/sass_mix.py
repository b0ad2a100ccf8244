"""Instruction mix of generated kernels from `cuobjdump --dump-sass` output: what the inner loop is made of.

Usage: python3 tuning/sass_mix.py SASS_FILE [NAME_REGEX]
For each kernel whose name matches NAME_REGEX: static instruction count by class (multiply-adds, other
integer, shuffles, moves, memory, control) and, for register-resident (_wL, _xL) kernels, whose steps are fully
unrolled, the instructions per instance (lanes x static count) against the word products of the schoolbook product
(Karatsuba variants, _k1, compute about 3/4 of them: their multiply-adds per product fall below 1).
"""

import re
import sys
from collections import Counter

CLASSES = (("imad", ("IMAD",)), ("shfl", ("SHFL",)), ("mov", ("MOV", "SEL")), ("iadd", ("IADD3", "IADD", "LEA")),
           ("mem", ("LDG", "STG", "LDS", "STS", "LD", "ST")), ("ctrl", ("BRA", "EXIT", "BAR", "BSYNC", "BSSY",
                                                                        "ISETP", "NOP", "RET")))


def classify(op: str) -> str:
    base = op.split(".")[0]
    for name, prefixes in CLASSES:
        if base in prefixes:
            return name
    return "other"


def parse(text: str) -> dict:
    """{kernel name: Counter of opcodes}"""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = out.setdefault(m.group(1), Counter())
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m and cur is not None:
            cur[m.group(1)] += 1
    return out


def main(argv):
    if not argv:
        sys.exit(__doc__)
    kernels = parse(open(argv[0]).read())
    pattern = argv[1] if len(argv) > 1 else ""
    print(f"{'kernel':42} {'total':>6} " + " ".join(f"{c:>6}" for c, _ in CLASSES) + f" {'other':>6}"
          f" {'imad%':>6} {'imad/prod':>9}")
    for name in sorted(k for k in kernels if re.search(pattern, k)):
        ops = kernels[name]
        by = Counter()
        for op, n in ops.items():
            by[classify(op)] += n
        total = sum(ops.values())
        line = f"{name:42} {total:6} " + " ".join(f"{by[c]:6}" for c, _ in CLASSES) + f" {by['other']:6}"
        line += f" {100 * by['imad'] / max(total, 1):5.1f}%"
        m = re.match(r"(mul|mullo)_(\d+)_u32_q(\d+)_i\d+_[wx](\d+)_", name)
        if m:
            words, lanes = int(m.group(2)) // 32, int(m.group(4))
            products = words * words if m.group(1) == "mul" else words * (words + 1) // 2
            line += f" {lanes * by['imad'] / products:9.2f}"
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
