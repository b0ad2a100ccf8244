"""NTT multiplication's number theory (prime search, roots, bound, kernel constants) and the pruned NTT choices."""

import random
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, assert_all_ok, driver_env, require_backend

sys.path.insert(0, str(ROOT))
from generator import ntt, ntt_plan, plan  # noqa: E402
from generator.space import failed_constraint  # noqa: E402
from generator.variant import Variant  # noqa: E402


def trial_division_prime(n):
    if n < 2:
        return False
    f = 2
    while f * f <= n:
        if n % f == 0:
            return False
        f += 1
    return True


def test_is_prime_agrees_with_trial_division():
    for n in range(0, 20000):
        assert ntt.is_prime(n) == trial_division_prime(n), n


@pytest.mark.parametrize("n", [561, 41041, 2047, 1373653, 25326001, 3215031751, 2152302898747, 3474749660383,
                               341550071728321, 3825123056546413051])
def test_is_prime_rejects_pseudoprimes(n):
    """Carmichael numbers and strong pseudoprimes to the first few bases."""
    assert not ntt.is_prime(n)


def test_found_primes_are_the_largest_ntt_primes():
    ps = ntt.find_primes(max(ntt.PRIME_SET_SIZES))
    step = 1 << ntt.MIN_TWO_ADIC
    # every candidate k 2^MIN_TWO_ADIC + 1 below 2^30 above the smallest found prime, checked by trial division
    candidates = [c for c in range(((1 << 30) - 1) // step * step + 1, ps[-1].p - 1, -step)]
    assert [q.p for q in ps] == [c for c in candidates if trial_division_prime(c)]
    for q in ps:
        assert trial_division_prime(q.p) and q.p < 1 << ntt.PRIME_BITS
        assert (q.p - 1) % (1 << q.order) == 0 and ((q.p - 1) >> q.order) % 2 == 1 and q.order >= ntt.MIN_TWO_ADIC
        assert 4 * q.p < 1 << 32, "lazy butterflies keep values below 4p in a 32-bit word"


@pytest.mark.parametrize("q", ntt.find_primes(max(ntt.PRIME_SET_SIZES)), ids=lambda q: str(q.p))
def test_roots_have_the_right_order(q):
    # g generates the group: no proper divisor of p - 1 is its order
    for f in ntt.prime_factors(q.p - 1):
        assert pow(q.g, (q.p - 1) // f, q.p) != 1
    # root is a primitive 2^order-th root of unity, and omega(L) a primitive L-th root for every L
    assert pow(q.root, 1 << q.order, q.p) == 1 and pow(q.root, 1 << (q.order - 1), q.p) == q.p - 1
    for e in range(1, q.order + 1):
        w = q.omega(1 << e)
        assert pow(w, 1 << e, q.p) == 1 and pow(w, 1 << (e - 1), q.p) == q.p - 1
        assert pow(q.omega(1 << e), 2, q.p) == (q.omega(1 << (e - 1)) if e > 1 else 1)


def test_bound():
    """m (2^b - 1)^2 < P decides exactness; 32-bit digits need three primes, 16-bit digits two."""
    for bits in (4096, 262144, 1 << 22):
        m32, m16 = bits // 32, bits // 16
        assert ntt.bound_holds(bits, 3, 32) == (m32 * (2**32 - 1) ** 2 < ntt.product(ntt.prime_set(3)))
        assert ntt.bound_holds(bits, 3, 32) and ntt.bound_holds(bits, 2, 16)
        assert not ntt.bound_holds(bits, 2, 32)
        assert ntt.bound_holds(bits, 2, 16) == (m16 * (2**16 - 1) ** 2 < ntt.product(ntt.prime_set(2)))


def test_generator_refuses_an_unsound_prime_set():
    v = Variant(op="mul", bits=8192, limb="u32", q=16, ipb=2, backend="cuda", ntt=(2, 32))
    assert failed_constraint(v, kinds=("legal",)).name == "ntt_bound"


def all_ones_or_random(bits, rng):
    return (1 << bits) - 1 if rng.random() < 0.5 else rng.getrandbits(bits)


def model_multiply(x, y, bits, set_id, digit_bits):
    """The kernel's arithmetic in Python, with the generator's constants: digits, cyclic convolution through a
    transform mod each prime (a plain DFT), the pointwise product with Montgomery's 2^-32, the scale, Garner."""
    length = ntt.transform_length(bits, digit_bits)
    mask = (1 << digit_bits) - 1
    dx = [(x >> (digit_bits * i)) & mask for i in range(length)]
    dy = [(y >> (digit_bits * i)) & mask for i in range(length)]
    consts = ntt.kernel_constants(set_id, digit_bits, length)
    primes = ntt.prime_set(set_id)
    digits = []
    for q, c in zip(primes, consts):
        p, w = q.p, q.omega(length)

        def dft(v, root):
            return [sum(v[j] * pow(root, j * k, p) for j in range(length)) % p for k in range(length)]
        fx, fy = dft(dx, w), dft(dy, w)
        prod = [a * b * pow(2**32, -1, p) % p for a, b in zip(fx, fy)]
        y_ = dft(prod, pow(w, -1, p))
        res = [v * c["scale"] % p for v in y_]
        if not digits:
            digits.append(res)
            continue
        acc = res
        for (wt, _), prev in zip(c["weights"], digits):
            acc = [(a - wt * d) % p for a, d in zip(acc, prev)]
        digits.append([a * c["garner_inv"] % p for a in acc])
    out, weight = 0, 1
    coeffs = [0] * length
    for q, d in zip(primes, digits):
        coeffs = [cf + weight * v for cf, v in zip(coeffs, d)]
        weight *= q.p
    for i, cf in enumerate(coeffs):
        out += cf << (digit_bits * i)
    return out


@pytest.mark.parametrize("set_id,digit_bits", [(3, 32), (2, 16)])
def test_kernel_constants_recover_the_product(set_id, digit_bits):
    rng = random.Random(7)
    bits = 256
    for x, y in [((1 << bits) - 1, (1 << bits) - 1), (0, 5), (1, (1 << bits) - 1)] + \
            [(all_ones_or_random(bits, rng), all_ones_or_random(bits, rng)) for _ in range(3)]:
        assert model_multiply(x, y, bits, set_id, digit_bits) == x * y


def test_passes_cover_the_transform():
    for log_l in range(5, 15):
        for r in (16, 32):
            if (1 << log_l) < 2 * r:
                continue
            ps = ntt_plan.passes(1 << log_l, r)
            prod = 1
            for k, s in ps:
                prod *= k
            assert prod == 1 << log_l and ps[-1][1] == 1 and ps[0] == (ps[0][0], (1 << log_l) // ps[0][0])


def test_kernel_header_states_the_bound(tmp_path):
    p = subprocess.run([sys.executable, "-m", "generator", "--sizes", "8192", "--ops", "mullo", "--out",
                        str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    srcs = list((tmp_path / "opencl").glob("*_p3b32_opencl.cl"))
    assert srcs
    text = srcs[0].read_text()
    q = ntt.find_primes(3)[0]
    assert f"Exact: primes {q.p} = {(q.p - 1) >> q.order} * 2^{q.order} + 1" in text and "(checked by the generator)" in text
    m = re.search(r"m = (\d+) digits of 32 bits; every coefficient is at most m \(2\^32 - 1\)\^2 = (\d+) < P = (\d+)", text)
    assert m, text[:2000]
    digits, lhs, big_p = map(int, m.groups())
    assert digits == 8192 // 32 and lhs == digits * (2**32 - 1) ** 2 < big_p == ntt.product(ntt.prime_set(3))


# ---- the choices the default space prunes, generated and run anyway (OpenCL, two sizes) ----
PRUNED_NTT = ("ntt_32bit_digits", "ntt_fewest_primes", "ntt_grid_radix")


def test_pruned_ntt_choices_are_exact(tmp_path):
    """16-bit digits with two primes (and three), and the grid NTT of radix 8, are pruned from the default space
    as slower; their kernels are still generated on request (--keep-pruned), so they are built and checked
    against GMP here (the grid one also with a split that runs other row and column kernels)."""
    require_backend("opencl")
    variants = plan.plan([8192, 65536], ops=["mul", "mullo"], backends=["opencl"], keep_pruned=PRUNED_NTT)
    one_block = [v.name for v in variants if v.ntt and v.ntt[1] == 16 and v.bits == 8192]
    grid = [v.name for v in variants if v.grid and v.q == 8]
    assert {v.ntt for v in variants if v.ntt and v.bits == 8192} == {(2, 16), (3, 16), (3, 32)}
    assert len(grid) == 2
    tree = tmp_path / "tree"
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "generator", "templates", "runtime", "tests/drivers", "Makefile"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        (tree / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, tree / f)
    flags = f"GENFLAGS=--keep-pruned {','.join(PRUNED_NTT)}"
    for target in (["gen", "SIZES=8192,65536", flags], ["NO_CUDA=1", "build/tests/check_batch"]):
        p = subprocess.run(["make", "-s", *target], cwd=tree, capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    runs = []
    for name in one_block:
        op = name.split("_")[0]
        cases = [f"{op} 8192 1 {pat} {i} host none" for i, pat in enumerate(
            ("random", "max", "zero", "one", "single_bits", "sparse", "mersenne"), 1)]
        runs.append((name, cases + [f"{op} 8160 3 mixed 9 host none", f"{op} 4096 5 mixed 10 device none"], ""))
    for name in grid:
        op = name.split("_")[0]
        cases = [f"{op} 65536 1 max 1 host none", f"{op} 65440 3 mixed 2 device none"]
        runs += [(name, cases, ""), (name, cases, "16,9")]
    for name, cases, split in runs:
        proc = subprocess.run([str(tree / "build/tests/check_batch"), "--backend", "opencl", "--variant", name],
                              input="\n".join(cases) + "\n", capture_output=True, text=True, timeout=900,
                              env=driver_env(MIDINT_TEST_NTT_SPLIT=split))
        assert_all_ok(proc, cases)
