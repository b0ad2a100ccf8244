"""The FP64 device functions of the CUDA modular kernels as generated (lib_mulmod_fdiv.j2's mfdiv_mulmod in mulmod's
FP64 division, lib_modshared_f52.j2's ms52_mulmod in mulmod_shared's Barrett branch), cut out of generated/cuda
and run on the host against GMP by tests/drivers/fp64_host.c with exact host equivalents of the CUDA intrinsics: CI
has no GPU, and these kernels' arithmetic (the exact splits, the pattern sums, the digits' estimates, the conversions
between words and limbs) is what a GPU run would otherwise be the only check of. Every size the build generated."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from generator.space import fdiv_first_zero_bits, fdiv_min_bits  # noqa: E402

CUDA = ROOT / "generated" / "cuda"
# (file pattern, the block's first line, its last line, the function, table row)
BLOCKS = (
    ("mulmod_[0-9]*.cu", "/* ---------- lib_mulmod_fdiv:", "#undef MFDIV_BETA",
     r"DEVICE void (mfdiv_mulmod_\w+)\(", "FDIV"),
    ("mulmod_shared_[0-9]*.cu", "/* ---------- lib_modshared_f52:", "#undef MS52_DBL",
     r"DEVICE void (ms52_mulmod_\w+)\(", "F52"),
)


def cut(text, first, last):
    """The lines from the one starting with `first` to the one equal to `last`, or None."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(first)), None)
    if start is None:
        return None
    end = next(i for i in range(start, len(lines)) if lines[i] == last)
    return "\n".join(lines[start:end + 1]) + "\n"


def test_fp64_device_functions_against_gmp(tmp_path):
    funcs, table = [], []
    for pattern, first, last, name_re, row in BLOCKS:
        for path in sorted(CUDA.glob(pattern)):
            block = cut(path.read_text(), first, last)
            if block is None:
                continue
            bits = int(re.search(r"_(\d+)\.cu$", path.name).group(1))
            name = re.search(name_re, block).group(1)
            funcs.append(block)
            words = bits // 32
            table.append(f"FDIV({bits}, {fdiv_min_bits(words)}, {fdiv_first_zero_bits(words)}, {name})" if row == "FDIV"
                         else f"F52({bits}, {name})")
    if not table:
        pytest.skip("no CUDA FP64 branch in this build's generated/cuda (make gen with mulmod or mulmod_shared)")
    (tmp_path / "fp64_funcs.inc").write_text("".join(funcs))
    (tmp_path / "fp64_table.inc").write_text("\n".join(table) + "\n")
    exe = tmp_path / "fp64_host"
    subprocess.run(["cc", "-O1", "-std=gnu11", "-I", str(tmp_path), "-o", str(exe),
                    str(ROOT / "tests/drivers/fp64_host.c"), "-Wl,-Bstatic", "-lgmp", "-Wl,-Bdynamic", "-lm"],
                   check=True)
    proc = subprocess.run([str(exe), "1500"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{1500 * len(table)} cases, 0 wrong, 0 misuses" in proc.stdout, proc.stdout
