"""mulmod and mulmod_shared composed of mul and mod on the device (runtime/ops.c's run_composed; mulmod_shared's
modulus copied to every instance for mod): where dispatch's table says so (CUDA, mulmod at 1024-32768 bits,
mulmod_shared above 1024) or wherever both parts serve under the test hook MIDINT_TEST_COMPOSED=1, so that the path
also runs on PoCL in CI.
Every modular pattern (moduli 1, 2^k - 1, 2^k + 1, powers of two, the largest value, even and odd), host,
asynchronous and device calls, r in place of a, b or m, against GMP (check_batch); the workspace query reports the
product's temporary, and a small workspace cap sends the call back to the one-kernel form, still exact."""

import random

import pytest

from conftest import BACKENDS, assert_all_ok, read_variants, require_backend, run_driver
from python_support import midint

PATTERNS = ("random", "zero", "max", "one", "mersenne", "fermat", "pow2", "near", "multiple", "single_bits", "shared",
            "equal", "mixed")


def composed_sizes(backend):
    """Sizes where mul, mod and mulmod are all generated (at most 4096 bits: PoCL's time), and one between them."""
    have = {op: {v["bits"] for v in read_variants() if v["backend"] == backend and v["op"] == op}
            for op in ("mul", "mod", "mulmod")}
    both = sorted(have["mul"] & have["mod"] & have["mulmod"])
    sizes = [b for b in both if b <= 4096][:4]
    if not sizes:
        pytest.skip(f"no size with mul, mod and mulmod on {backend} in this build")
    return sizes + ([sizes[-1] - 32] if sizes[-1] > 64 else [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_mulmod_composed_against_gmp(backend):
    require_backend(backend)
    cases = []
    for bits in composed_sizes(backend):
        for k, pattern in enumerate(PATTERNS):
            cases.append(f"mulmod {bits} {5 + k % 4} {pattern} {k} host none")
            cases.append(f"mulmod_shared {bits} {1 + k % 6} {pattern} {k} {('host', 'device')[k % 2]} none")
        cases += [f"mulmod {bits} 33 mixed 91 device none", f"mulmod {bits} 9 random 93 host ra",
                  f"mulmod {bits} 9 random 94 device rb", f"mulmod {bits} 9 random 95 host ab",
                  f"mulmod_shared {bits} 37 random 92 device none", f"mulmod_shared {bits} 9 max 97 host ra",
                  f"mulmod_shared {bits} 9 random 98 device rb"]
    proc = run_driver(["--backend", backend], cases, env={"MIDINT_TEST_COMPOSED": "1"})
    assert_all_ok(proc, cases)
    # asynchronous host calls need page-locked buffers; several chunks share the temporaries in turn
    cases = [f"{op} {bits} 4099 mixed 96 async none" for bits in composed_sizes(backend)[:2]
             for op in ("mulmod", "mulmod_shared")]
    proc = run_driver(["--backend", backend, "--pinned", "--staging", "262144"], cases,
                      env={"MIDINT_TEST_COMPOSED": "1"})
    assert_all_ok(proc, cases)


# per operation: its temporaries in units of bits per instance (the product; mulmod_shared also its modulus copied to
# every instance), and a call of it on ints with per-instance moduli m (mulmod_shared: one modulus object, m[0])
COMPOSED_OPS = {
    "mulmod": (2, lambda ctx, a, b, m, bits: ctx.mulmod(a, b, m, bits=bits)),
    "mulmod_shared": (3, lambda ctx, a, b, m, bits: shared_call(ctx, a, b, m[0], bits)),
}


def shared_call(ctx, a, b, m, bits):
    mod = ctx.modulus(m, bits)
    try:
        return ctx.mulmod_shared(a, b, mod)
    finally:
        mod.free()


@pytest.mark.parametrize("op", sorted(COMPOSED_OPS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_composed_workspace_and_cap(backend, op, monkeypatch):
    """With the hook the workspace query says the temporaries' bytes (2 bits per instance, mulmod_shared 3); a forced
    variant of the operation, or a cap one word short of the temporaries, sends the call to its own kernel (the query
    then says that form's workspace); every way exact, with counts that fill no block and one instance alone (no copy
    of the modulus)."""
    require_backend(backend)
    bits = composed_sizes(backend)[0]
    per, call = COMPOSED_OPS[op]
    monkeypatch.setenv("MIDINT_TEST_COMPOSED", "1")
    top = (1 << bits) - 1
    with midint.Context(backend) as ctx:
        assert ctx.workspace_size(op, bits, 7) == 7 * per * bits // 8
        assert ctx.selected_variant(op, bits, 7) == "mul+mod"
        for m in (top, (1 << (bits - 1)) + 2, 3, 12345, 1):
            a = [top, 5, top - 1, 0, 77, m, (m + 1) & top]
            b = [top, (1 << (bits - 1)) + 3, 2, 9, 8, m - 1, m]
            want = [x * y % m for x, y in zip(a, b)]
            ms = [m] * len(a)
            assert call(ctx, a, b, ms, bits) == want
            assert call(ctx, a[:1], b[:1], ms[:1], bits) == want[:1]
            own = [v["name"] for v in read_variants() if v["backend"] == backend and v["op"] == op
                   and v["bits"] >= bits][0]
            ctx.force_variant(own)   # a forced variant is what runs (some of mulmod_shared's take odd moduli only)
            try:
                assert ctx.selected_variant(op, bits, 7) == own
                if m & 1:
                    assert call(ctx, a, b, ms, bits) == want
            finally:
                ctx.force_variant(None)
            ctx.set_workspace_bytes(per * bits // 8 * len(a) - 4)   # one word short of the temporaries
            try:
                assert ctx.workspace_size(op, bits, len(a)) != len(a) * per * bits // 8
                assert ctx.selected_variant(op, bits, len(a)) != "mul+mod"
                assert call(ctx, a, b, ms, bits) == want
            finally:
                ctx.set_workspace_bytes(1 << 30)


def test_mulmod_wide_moduli_take_the_kernel_on_cuda():
    """On CUDA at 1024 bits (space.MULMOD_FDIV_BITS) mulmod's kernel divides on the FP64 pipe the instances whose
    modulus has at least 1000 bits, faster than mul then mod: a batch with no narrower modulus runs the kernel, one with
    a narrower modulus (the MIDINT_MODULI_NARROW trait, ops.c's check_instances) is composed as before. Here both kinds
    of batch are exact on host and device calls, and selected_variant, which sees no moduli, names the kernel at 1024
    bits and the composition above; which path a batch took shows in the rates (tuning/results/h200-2026-11-29-s33,
    run 9: 1.75 against 2.82 ms)."""
    require_backend("cuda")
    bits = 1024
    own = [v["name"] for v in read_variants() if v["backend"] == "cuda" and v["op"] == "mulmod" and v["bits"] == bits]
    if not own:
        pytest.skip("no 1024-bit CUDA mulmod in this build")
    with midint.Context("cuda") as ctx:
        assert ctx.selected_variant("mulmod", bits, 7) == own[0]
        wider = [v["bits"] for v in read_variants() if v["backend"] == "cuda" and v["op"] == "mulmod"
                 and 2048 <= v["bits"] <= 32768]
        if wider:
            assert ctx.selected_variant("mulmod", wider[0], 7) == "mul+mod"
        top = (1 << bits) - 1
        wide = [top, 1 << 1000, (1 << 1000) + (1 << 999) - 1, (1 << 1023) + 1, top - (1 << 975), (1 << 1023) | 12345]
        a = [top, top, 1 << 1023, (1 << 1000) - 1, 0, top - 2]
        b = [top, (1 << 1000) + 5, top, (1 << 1001) + 3, top, 7]
        want = [x * y % z for x, y, z in zip(a, b, wide)]
        assert ctx.mulmod(a, b, wide, bits=bits) == want
        narrow = wide[:3] + [(1 << 999) - 1, 3, (1 << 1000) - 1]   # below 2^1000: the composition
        want = [x * y % z for x, y, z in zip(a, b, narrow)]
        assert ctx.mulmod(a, b, narrow, bits=bits) == want
    cases = [f"mulmod {bits} 4099 {p} {97 + k} {mode} none" for k, p in enumerate(("random", "mixed", "max"))
             for mode in ("host", "device")]
    proc = run_driver(["--backend", "cuda"], cases)
    assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_mulmod_shared_composed_copies_kept(backend, monkeypatch):
    """A composed mulmod_shared keeps its modulus's copies for the next call of the same modulus object with as many
    instances or fewer (runtime/ops.c, run_composed). Calls that may reuse them (fewer instances, the same again),
    that must not (more instances; another modulus object, also one made after the first is freed, which may take its
    device memory; after the workspace is freed by a new cap), every one exact."""
    require_backend(backend)
    bits = composed_sizes(backend)[0]
    monkeypatch.setenv("MIDINT_TEST_COMPOSED", "1")
    rng = random.Random(bits)
    top = (1 << bits) - 1
    with midint.Context(backend) as ctx:
        ms = [top, (1 << (bits - 1)) + 1, 6, top - 2]
        mods = [ctx.modulus(m, bits) for m in ms[:2]]
        for k, count in ((0, 9), (0, 9), (0, 1), (1, 9), (0, 5), (0, 12), (1, 3), (1, 12)):
            a = [rng.getrandbits(bits) for _ in range(count)]
            b = [rng.getrandbits(bits) for _ in range(count)]
            assert ctx.mulmod_shared(a, b, mods[k]) == [x * y % ms[k] for x, y in zip(a, b)], (k, count)
        mods[0].free()
        mods[0] = ctx.modulus(ms[2], bits)   # another modulus object where the first one was
        a, b = [top] * 9, [rng.getrandbits(bits) for _ in range(9)]
        assert ctx.mulmod_shared(a, b, mods[0]) == [x * y % ms[2] for x, y in zip(a, b)]
        ctx.set_workspace_bytes(4)   # below what the context holds: its buffers freed (the call takes the kernel)
        try:
            assert ctx.mulmod_shared(a, b, mods[0]) == [x * y % ms[2] for x, y in zip(a, b)]
        finally:
            ctx.set_workspace_bytes(1 << 30)
        assert ctx.mulmod_shared(a, b, mods[0]) == [x * y % ms[2] for x, y in zip(a, b)]   # composed, copies again
        for mod in mods:
            mod.free()
