"""Grid NTT products in pieces (runtime/plan.c, docs/ntt.md "Pieces") against GMP at sizes CI affords.

Past 2^27-bit operands the primes' 2-adic order stops the transform, so the operands go in pieces of at most 2^22
words, each transformed once, and output s sums the pointwise products of pieces i and s - i. The test hook
MIDINT_TEST_NTT_PIECE=W cuts operands of more than W words into pieces of at most W, so that 2^16-bit products take
the same path: pieces that divide the operand and ragged ones (the last piece shorter), two pieces and many, the low
half alone (mullo: only the outputs the result reaches), squares (one operand's pieces), with the every-kernel split
hook beside it, on the patterns whose coefficients are largest (all-ones) or sparsest."""

import pytest

from conftest import BACKENDS, assert_all_ok, largest_bits, require_backend, run_driver

BITS = 65536                       # the smallest grid NTT size (2048 words)
PIECE_WORDS = (1024, 700, 300, 2047)   # two exact pieces; three ragged ones; seven; two of 1024 (W just under n)
PATTERNS = ("max", "random", "mixed", "single_bits", "sparse", "zero", "one", "runs", "edges")


def grid_bits(backend):
    top = min(largest_bits(backend, op) for op in ("mul", "mullo", "sqr"))
    if top < BITS:
        pytest.skip(f"the build has no grid NTT product on {backend} (largest {top} bits; make gen SIZES=...)")
    return BITS


@pytest.mark.parametrize("piece", PIECE_WORDS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_pieces_against_gmp(backend, piece):
    require_backend(backend)
    bits = grid_bits(backend)
    cases = []
    for k, pattern in enumerate(PATTERNS):
        api = ("host", "device")[k % 2]
        for op in ("mul", "mullo", "sqr"):
            cases.append(f"{op} {bits} {1 + k % 3} {pattern} {k} {api} none")
        cases.append(f"mul {bits - 96} 3 {pattern} {k + 20} {api} none")   # a run-time size below the variant's
    cases += [f"mullo {bits} 2 random 40 host ra", f"mullo {bits} 2 max 41 device rb"]   # in place
    proc = run_driver(["--backend", backend], cases, env={"MIDINT_TEST_NTT_PIECE": str(piece)})
    assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pieces_with_other_row_and_column_kernels(backend):
    """Pieces on a transform split other ways (MIDINT_TEST_NTT_SPLIT): rows of 2^6 and of 2^12 points (columns of 2^7 and 2^6)."""
    require_backend(backend)
    bits = grid_bits(backend)
    for split in ("13,6", "18,12"):
        cases = [f"mul {bits} 1 max 1 host none", f"sqr {bits} 2 random 2 device none",
                 f"mullo {bits - 32} 2 mixed 3 host none"]
        proc = run_driver(["--backend", backend], cases,
                          env={"MIDINT_TEST_NTT_PIECE": "700", "MIDINT_TEST_NTT_SPLIT": split})
        assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pieces_over_the_workspace_cap_fail_cleanly(backend):
    """One instance in pieces needs its pieces' and outputs' planes at once: a cap below that is refused, naming the
    bytes, and the same call under a cap that holds them passes."""
    require_backend(backend)
    bits = grid_bits(backend)
    case = [f"mul {bits} 2 random 5 host none"]
    env = {"MIDINT_TEST_NTT_PIECE": "1024"}
    small = run_driver(["--backend", backend, "--workspace", "200000"], case, env=env)
    assert "FAIL" in small.stdout and "bytes of device workspace per instance" in small.stdout, small.stdout[-2000:]
    assert_all_ok(run_driver(["--backend", backend, "--workspace", "400000"], case, env=env), case)
