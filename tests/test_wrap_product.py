"""Wrapped products (runtime/wrap_product.c: a b modulo B^L - 1 on the NTT grid, the whole-column forward kernels
cols_wrap) against GMP through tests/drivers/check_wrap.c: the result is a b plus its top folded onto its bottom,
within the bound check_wrap states; folds at transforms of 2^12..2^17 points (column kernels of 2^6..2^11 points
where MIDINT_TEST_NTT_SPLIT forces rows of 2^6), results of a power of two words and not, several instances, all-ones
operands (the coefficients' largest), and no fold where the product fits."""

import subprocess

import pytest

from conftest import BACKENDS, BUILD, driver_env, read_variants, require_backend

CHECK_WRAP = BUILD / "tests" / "check_wrap"

# "n nb rn count pattern seed": a of n words times b of nb words into rn, as the remainder tree's levels take them
# (n = rn = 4 w, nb = 2 w) and not
NATURAL = ["4096 2048 4096 3 random 1", "4096 2048 4096 2 max 2", "3000 1500 3000 2 random 3",
           "5000 4000 8192 2 max 4", "16384 8192 16384 1 random 5", "2048 1024 2048 3 max 6",
           "1000 700 1200 2 random 7", "8192 8192 8192 1 max 8"]
# (MIDINT_TEST_NTT_SPLIT, cases): rows of 2^6, so columns of 2^8..2^11 points (the natural splits above: 2^6, 2^7)
FORCED = [("14,6", ["16384 8192 16384 1 max 13"]),
          ("15,6", ["32768 16384 32768 1 max 9", "24000 16000 24000 2 random 10"]),
          ("16,6", ["65536 32768 65536 1 random 14"]),
          ("17,6", ["131072 65536 131072 1 random 11", "70000 65000 100000 1 max 12"])]


def require_engine(backend):
    """Skip where the build has no NTT grid engine on `backend` (sizes below 2^16 bits only: `make gen SIZES=...`)."""
    require_backend(backend)
    if not any(v["op"] == "mul" and v["ntt"] != "-" and v["grid"] != "-" and v["backend"] == backend
               for v in read_variants()):
        pytest.skip(f"this build has no NTT grid engine on {backend} (mul from 65536 bits: make gen)")


def run(backend, cases, split=None):
    assert CHECK_WRAP.exists(), f"{CHECK_WRAP} is missing: run `make` first"
    env = driver_env(**({"MIDINT_TEST_NTT_SPLIT": split} if split else {}))
    proc = subprocess.run([str(CHECK_WRAP), backend], input="\n".join(cases) + "\n", capture_output=True, text=True,
                          timeout=900, env=env)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and len(lines) == len(cases), proc.stdout + proc.stderr
    return {line.split(" folded=")[0][3:]: line.endswith("folded=1") for line in lines}


@pytest.mark.parametrize("backend", BACKENDS)
def test_wrapped_products_against_gmp(backend):
    require_engine(backend)
    folded = run(backend, NATURAL)
    # the fold happened where n + nb passes L, and nowhere else
    assert folded == {c: int(c.split()[0]) + int(c.split()[1]) > max(4096, 1 << (int(c.split()[2]) - 1).bit_length())
                      for c in NATURAL}
    for split, cases in FORCED:
        assert all(run(backend, cases, split).values())


@pytest.mark.parametrize("backend", BACKENDS)
def test_wrapped_products_refuse_operands_past_the_result(backend):
    require_engine(backend)
    proc = subprocess.run([str(CHECK_WRAP), backend], input="4097 100 4096 1 random 1\n", capture_output=True,
                          text=True, timeout=300, env=driver_env())
    assert proc.returncode == 1 and "a wrapped product of 4097 by 100 words into 4096 takes" in proc.stdout, proc.stdout
