"""templates/lib_modarith.j2 on the host: the macro rendered for several N into one C file with a host prelude, built
with cc against GMP, and every function (divrem, mulmod, powm in both modes, gcd, modinv) checked against GMP's
mpz_tdiv_qr, mpz_mul + mpz_mod, mpz_powm, mpz_gcd and mpz_invert on random and adversarial inputs. The C driver also
poisons every output before the call and checks that no input changed.

test_powm_ct_static scans the rendered powm's constant-time path (see its docstring) for exponent-dependent branches,
addresses and divisions. Skips cleanly without cc or GMP.

The scratch mode (lib_modws.j2: arrays in the instance's workspace, above space.MOD_PRIVATE_MAX_BITS) is checked the
same way at small N (the mode does not depend on N), each call given exactly generator/mod_scratch.py's words of
poisoned scratch, built with AddressSanitizer where cc has it: a function that carves more than the data says
reads or writes past its buffer."""

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from generator import mod_scratch  # noqa: E402

SIZES = (1, 2, 3, 8, 16, 32)
REM_SIZES = (1, 2, 3, 8, 32, 33)  # the remainder-only divisions: both forms (unrolled to 32 words, runtime-indexed)
SCRATCH_SIZES = (1, 2, 3, 8, 33)   # scratch mode: every N takes the large-N forms; 33 words is not a power of two
GMP_H = Path("/usr/include/x86_64-linux-gnu/gmp.h")

HOST_PRELUDE = r"""
#include <stdint.h>
typedef uint32_t u32;
typedef uint64_t u64;
#define DEVICE static inline
#define GLOBAL
#define UNROLL
#define NO_UNROLL
DEVICE u32 clz_u32(u32 x) { return x ? (u32)__builtin_clz(x) : 32u; }
DEVICE u32 ctz_u32(u32 x) { return x ? (u32)__builtin_ctz(x) : 32u; }
"""

# The driver: reads "op N ewords hex..." lines, runs the N-word function, compares with GMP; prints one line per
# failure and "done <cases> <failures>".
DRIVER_HEAD = r"""
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXW 80
static long fails;

static void to_words(u32 *w, size_t n, const mpz_t x)
{
    size_t cnt = 0;
    memset(w, 0, n * sizeof(u32));
    if (mpz_sizeinbase(x, 2) > 32 * n && mpz_sgn(x) != 0) { printf("BAD input width\n"); exit(2); }
    mpz_export(w, &cnt, -1, sizeof(u32), 0, 0, x);
}

static void from_words(mpz_t x, const u32 *w, size_t n) { mpz_import(x, n, -1, sizeof(u32), 0, 0, w); }

static void poison(u32 *w, size_t n) { for (size_t i = 0; i < n; i++) w[i] = 0xa5a5a5a5u; }

static void expect(int ok, const char *op, int n, long line, const char *what)
{
    if (!ok) { fails++; printf("FAIL %s N=%d line %ld: %s\n", op, n, line, what); }
}

static int same(const u32 *a, const u32 *b, size_t n) { return memcmp(a, b, n * sizeof(u32)) == 0; }

/* scratch mode: a fresh buffer of exactly `words` poisoned words per call (the previous one freed), so that an
   access past a function's workspace is outside its allocation */
static u32 *scratch_buf;
static __attribute__((unused)) u32 *scratch(size_t words)
{
    free(scratch_buf);
    scratch_buf = malloc(words * sizeof(u32));
    if (!scratch_buf) exit(2);
    poison(scratch_buf, words);
    return scratch_buf;
}
"""

# one checker per N; {S} is the suffix, {N} the words
DRIVER_N = r"""
static void check{S}(const char *op, long line, mpz_t *v, unsigned ew)
{
    enum { N = {N} };
    u32 a[2 * N], b[N], m[N], a0[2 * N], b0[N], m0[N], q[2 * N], r[N], r2[N];
    u32 e[MAXW];
    mpz_t g, h, t;
    mpz_inits(g, h, t, NULL);
    if (!strcmp(op, "div")) {
        to_words(a, 2 * N, v[0]); to_words(m, N, v[1]);
        memcpy(a0, a, sizeof a); memcpy(m0, m, sizeof m);
        poison(q, 2 * N); poison(r, N);
        divrem{S}(q, r, a, m{WS:divrem});
        mpz_tdiv_qr(g, h, v[0], v[1]);
        from_words(t, q, 2 * N); expect(mpz_cmp(t, g) == 0, op, N, line, "quotient");
        from_words(t, r, N); expect(mpz_cmp(t, h) == 0, op, N, line, "remainder");
        expect(same(a, a0, 2 * N) && same(m, m0, N), op, N, line, "input changed");
#ifndef SCRATCH
    } else if (!strcmp(op, "rem")) {
        /* the plain modular expressions' reductions: x mod d for x of N, N + 1 and 2N + 1 words (each where x fits),
           md_rem_n also in place */
        u32 xw[2 * N + 1], xw0[2 * N + 1];
        size_t bits = mpz_sizeinbase(v[0], 2);
        to_words(xw, 2 * N + 1, v[0]); to_words(m, N, v[1]);
        memcpy(xw0, xw, sizeof xw); memcpy(m0, m, sizeof m);
        mpz_mod(g, v[0], v[1]);
        poison(r, N);
        md_rem_2n1{S}(r, xw, m);
        from_words(t, r, N); expect(mpz_cmp(t, g) == 0, op, N, line, "md_rem_2n1");
        if (bits <= 32 * (N + 1)) {
            poison(r, N);
            md_rem_n1{S}(r, xw, m);
            from_words(t, r, N); expect(mpz_cmp(t, g) == 0, op, N, line, "md_rem_n1");
        }
        if (bits <= 32 * N) {
            poison(r, N);
            md_rem_n{S}(r, xw, m);
            from_words(t, r, N); expect(mpz_cmp(t, g) == 0, op, N, line, "md_rem_n");
            memcpy(r2, xw, sizeof r2);
            md_rem_n{S}(r2, r2, m);
            from_words(t, r2, N); expect(mpz_cmp(t, g) == 0, op, N, line, "md_rem_n in place");
        }
        expect(same(xw, xw0, 2 * N + 1) && same(m, m0, N), op, N, line, "input changed");
#endif
    } else if (!strcmp(op, "mulmod")) {
        to_words(a, N, v[0]); to_words(b, N, v[1]); to_words(m, N, v[2]);
        memcpy(a0, a, sizeof a); memcpy(b0, b, sizeof b); memcpy(m0, m, sizeof m);
        poison(r, N);
        mulmod{S}(r, a, b, m{WS:mulmod});
        mpz_mul(g, v[0], v[1]); mpz_mod(g, g, v[2]);
        from_words(t, r, N); expect(mpz_cmp(t, g) == 0, op, N, line, "mulmod");
        expect(same(a, a0, N) && same(b, b0, N) && same(m, m0, N), op, N, line, "input changed");
    } else if (!strcmp(op, "powm")) {
        to_words(a, N, v[0]); to_words(e, ew, v[1]); to_words(m, N, v[2]);
        memcpy(a0, a, sizeof a); memcpy(m0, m, sizeof m);
        poison(r, N); poison(r2, N);
        powm{S}(r, a, e, ew, m, 0u{WS:powm});
        powm{S}(r2, a, e, ew, m, 1u{WS:powm});
        mpz_powm(g, v[0], v[1], v[2]);
        from_words(t, r, N); expect(mpz_cmp(t, g) == 0, op, N, line, "powm fast");
        from_words(t, r2, N); expect(mpz_cmp(t, g) == 0, op, N, line, "powm ct");
        expect(same(r, r2, N), op, N, line, "fast != ct");
        expect(same(a, a0, N) && same(m, m0, N), op, N, line, "input changed");
    } else if (!strcmp(op, "gcd")) {
        to_words(a, N, v[0]); to_words(b, N, v[1]);
        memcpy(a0, a, sizeof a); memcpy(b0, b, sizeof b);
        poison(r, N);
        gcd{S}(r, a, b{WS:gcd});
        mpz_gcd(g, v[0], v[1]);
        from_words(t, r, N); expect(mpz_cmp(t, g) == 0, op, N, line, "gcd");
        expect(same(a, a0, N) && same(b, b0, N), op, N, line, "input changed");
    } else if (!strcmp(op, "inv")) {
        to_words(a, N, v[0]); to_words(m, N, v[1]);
        memcpy(a0, a, sizeof a); memcpy(m0, m, sizeof m);
        poison(r, N);
        u32 ok = modinv{S}(r, a, m{WS:modinv});
        int gok = mpz_invert(g, v[0], v[1]);
        expect((ok != 0) == (gok != 0), op, N, line, "invertibility");
        from_words(t, r, N);
        if (gok) expect(mpz_cmp(t, g) == 0, op, N, line, "inverse");
        else expect(mpz_sgn(t) == 0, op, N, line, "r != 0 when not invertible");
        expect(ok == 0u || ok == 1u, op, N, line, "return value");
        expect(same(a, a0, N) && same(m, m0, N), op, N, line, "input changed");
    } else if (!strcmp(op, "shared")) {
        /* lib_modshared.j2 with the constants a modulus object holds, each function where it applies: Barrett (m's
           top word nonzero, mu = floor(B^2N / m) within N + 1 words), Montgomery (odd m), powm both ways (odd m) */
        u32 mu[N + 1], r1[N], rr[N], minv;
        to_words(a, N, v[0]); to_words(b, N, v[1]); to_words(m, N, v[2]); to_words(e, ew, v[3]);
        memcpy(a0, a, N * sizeof(u32)); memcpy(b0, b, sizeof b); memcpy(m0, m, sizeof m);
        minv = ma_neg_inv{S}(m[0] | 1u);
        mpz_mul(g, v[0], v[1]); mpz_mod(g, g, v[2]);
        mpz_set_ui(t, 0); mpz_setbit(t, 64 * N); mpz_fdiv_q(h, t, v[2]);
        if (m[N - 1] && mpz_sizeinbase(h, 2) <= 32 * (N + 1)) {
            to_words(mu, N + 1, h);
            poison(r, N);
            ms_mulmod_barrett{S}(r, a, b, m, mu{WS:ms_mulmod_barrett});
            from_words(t, r, N); expect(mpz_cmp(t, g) == 0, op, N, line, "barrett");
        }
        if (m[0] & 1u) {
            mpz_set_ui(t, 0); mpz_setbit(t, 32 * N); mpz_mod(h, t, v[2]); to_words(r1, N, h);
            mpz_mul(h, h, h); mpz_mod(h, h, v[2]); to_words(rr, N, h);
            poison(r, N);
            ms_mulmod{S}(r, a, b, m, rr, minv{WS:ms_mulmod});
            from_words(t, r, N); expect(mpz_cmp(t, g) == 0, op, N, line, "montgomery");
            mpz_powm(g, v[0], v[3], v[2]);
            for (u32 ct = 0; ct < 2u; ct++) {
                poison(r, N);
                ms_powm{S}(r, a, e, ew, m, r1, rr, minv, ct{WS:ms_powm});
                from_words(t, r, N); expect(mpz_cmp(t, g) == 0, op, N, line, ct ? "powm ct" : "powm fast");
            }
        }
        expect(same(a, a0, N) && same(b, b0, N) && same(m, m0, N), op, N, line, "input changed");
    } else {
        printf("BAD op %s\n", op); exit(2);
    }
    mpz_clears(g, h, t, NULL);
}
"""

DRIVER_MAIN = r"""
int main(void)
{
    char op[16], buf[4096];
    int n;
    unsigned ew, nv;
    long line = 0;
    mpz_t v[4];
    for (int i = 0; i < 4; i++) mpz_init(v[i]);
    while (scanf("%15s %d %u %u", op, &n, &ew, &nv) == 4) {
        line++;
        if (nv > 4) return 2;
        for (unsigned i = 0; i < nv; i++) {
            if (scanf("%4095s", buf) != 1) return 2;
            mpz_set_str(v[i], buf, 16);
        }
        switch (n) {
{CASES}
        default: printf("BAD N %d\n", n); return 2;
        }
    }
    printf("done %ld %ld\n", line, fails);
    return fails != 0;
}
"""


def render_lib(sizes, shared=False, ws=False):
    """lib_modarith.j2 for each N (and lib_modshared.j2's functions on it where `shared`), in scratch mode where
    `ws`."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ROOT / "templates")), undefined=jinja2.StrictUndefined)
    w = "true" if ws else "false"
    src = '{% import "lib_modarith.j2" as m %}{% import "lib_modshared.j2" as ms %}' + "".join(
        '{{ m.define("w%d", %d, %s) }}\n' % (n, n, w)
        + ('{{ ms.define("w%d", %d, %s) }}\n' % (n, n, w) if shared else "")
        for n in sizes)
    return env.from_string(src).render()


def driver_source(sizes, ws=False):
    parts = [HOST_PRELUDE + ("#define SCRATCH 1\n" if ws else ""), render_lib(sizes, shared=True, ws=ws), DRIVER_HEAD]
    for n in sizes:
        text = DRIVER_N.replace("{S}", "_w%d" % n).replace("{N}", str(n))
        text = re.sub(r"\{WS:(\w+)\}", lambda mt: ", scratch(%d)" % mod_scratch.words(mt.group(1), n) if ws else "",
                      text)
        parts.append(text)
    cases = "\n".join("        case %d: check_w%d(op, line, v, ew); break;" % (n, n) for n in sizes)
    parts.append(DRIVER_MAIN.replace("{CASES}", cases))
    return "\n".join(parts)


def asan_flags(cc, d):
    """-fsanitize=address where cc builds and runs with it here, else nothing."""
    probe = d / "asan_probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    res = subprocess.run([cc, "-fsanitize=address", str(probe), "-o", str(d / "asan_probe")], capture_output=True)
    ok = res.returncode == 0 and subprocess.run([str(d / "asan_probe")], capture_output=True).returncode == 0
    return ["-fsanitize=address", "-fno-omit-frame-pointer"] if ok else []


def build_driver(tmp_path_factory, name, sizes, ws=False):
    """The checking driver for the lib rendered at `sizes` (N words each; scratch mode where `ws`, with
    AddressSanitizer where cc has it), built with cc and GMP (skips without)."""
    cc = shutil.which("cc")
    if cc is None or not GMP_H.exists():
        pytest.skip("needs cc and GMP (gmp.h, -lgmp)")
    d = tmp_path_factory.mktemp(name)
    src = d / f"{name}_check.c"
    src.write_text(driver_source(sizes, ws))
    exe = d / f"{name}_check"
    res = subprocess.run([cc, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", *(asan_flags(cc, d) if ws else []),
                          str(src), "-o", str(exe), "-lgmp"], capture_output=True, text=True)
    if res.returncode != 0 and "gmp" in res.stderr and ("No such file" in res.stderr or "cannot find" in res.stderr):
        pytest.skip("GMP not usable: " + res.stderr[-300:])
    assert res.returncode == 0, res.stderr[-4000:]
    return exe


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return build_driver(tmp_path_factory, "modarith", SIZES)


@pytest.fixture(scope="module")
def scratch_driver(tmp_path_factory):
    return build_driver(tmp_path_factory, "modscratch", SCRATCH_SIZES, ws=True)


def run_cases(exe, cases):
    """cases: (op, N, ewords, [ints]); all must pass."""
    text = "".join("%s %d %d %d %s\n" % (op, n, ew, len(vals), " ".join("%x" % x for x in vals))
                   for op, n, ew, vals in cases)
    # (the driver leaves GMP's values to the exit: AddressSanitizer's leak check stays off)
    res = subprocess.run([str(exe)], input=text, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"})
    lines = res.stdout.splitlines()
    fails = [ln for ln in lines if ln.startswith(("FAIL", "BAD"))]
    assert not fails, "\n".join(fails[:20]) + "\n(%d failures)" % len(fails)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert lines and lines[-1] == "done %d 0" % len(cases), lines[-3:]


# ---- inputs ----

def special_moduli(n):
    """Divisors / moduli of n words: 1, 3, 2^k - 1, 2^k, 2^k + 1 with k around word boundaries, the largest value,
    the largest even value, values with leading zero words, a single high bit."""
    B = 32 * n
    ks = sorted({k for k in (1, 2, 5, 16, 31, 32, 33, 63, 64, 65, 95, 96, 97, B - 33, B - 32, B - 31, B - 1, B)
                 if 0 < k <= B})
    out = {1, 2, 3, (1 << B) - 1, (1 << B) - 2, (1 << (B - 1)) + 1}
    for k in ks:
        for x in ((1 << k) - 1, 1 << k, (1 << k) + 1):
            if 0 < x < (1 << B):
                out.add(x)
    return sorted(out)


def rand_words(rng, n, lo=1):
    """A random value of a random number of words in [lo, n], sometimes with sparse or dense bits."""
    w = rng.randint(lo, n)
    if w == 0:
        return 0
    x = rng.getrandbits(32 * w)
    kind = rng.randrange(4)
    if kind == 0:
        x |= 1 << (32 * w - 1)                     # full top word
    elif kind == 1:
        x &= rng.getrandbits(32 * w) & rng.getrandbits(32 * w)   # sparse
    elif kind == 2:
        x |= rng.getrandbits(32 * w) | rng.getrandbits(32 * w)   # dense
    return x


def counts(n):
    return {1: 300, 2: 300, 3: 250, 8: 150, 16: 80, 32: 25, 33: 20}[n]


# (x, d) whose Algorithm D runs the rare add-back step (a quotient word estimate still one too large after the
# two-word test) at every N >= 3: found by a search over words from {0, 1, 2^31 +- 1, 2^32 - 1, ...} with a Python
# model of divrem, and confirmed by counting the add-backs in an instrumented build.
ADD_BACK = ((0x7fffffff8000000100000000ffffffff8000000100000002, 0x7fffffff8000000100000001),
            (0x100000000000000007fffffff80000000, 0x800000010000000280000000),
            (0xfffffffe0000000200000002fffffffefffffffe80000001, 0xfffffffe00000002ffffffff))


def div_cases(n, rng):
    B = 32 * n
    cases = [("div", n, 0, [x, d]) for x, d in ADD_BACK if n >= 3]
    divisors = special_moduli(n) + [rand_words(rng, n) or 1 for _ in range(counts(n) // 10)]
    for d in divisors:
        qmax = ((1 << (2 * B)) - 1) // d
        q = rng.randint(0, qmax)
        xs = {0, 1, d - 1, d, d + 1, d * q, d * q + d - 1 if d * q + d - 1 < (1 << 2 * B) else d * q,
              (1 << (2 * B)) - 1, 1 << (2 * B - 1), 1 << rng.randrange(2 * B), d * qmax,
              rng.getrandbits(2 * B), rng.getrandbits(B)}
        cases += [("div", n, 0, [x, d]) for x in sorted(xs) if x < (1 << (2 * B))]
    for _ in range(counts(n)):
        d = rand_words(rng, n) or 1
        cases.append(("div", n, 0, [rand_words(rng, 2 * n, 0), d]))
    return cases


def rem_cases(n, rng):
    """md_rem_n, md_rem_n1, md_rem_2n1 (the plain modular expressions' reductions): dividends of up to 2N + 1 words
    (zero, below, at and above m, the largest of N, N + 1 and 2N + 1 words, products plus sums) by the special and
    random moduli, and the add-back cases."""
    B = 32 * n
    cases = [("rem", n, 0, [x, d]) for x, d in ADD_BACK if n >= 3]
    for m in special_moduli(n) + [rand_words(rng, n) or 1 for _ in range(counts(n) // 10)]:
        xs = {0, 1, m - 1, m, m + 1, 2 * m - 1, (1 << B) - 1, (1 << (B + 32)) - 1, (1 << (2 * B + 32)) - 1,
              ((1 << B) - 1) ** 2 + (1 << B) - 1, (m - 1) ** 2 + m - 1, rng.getrandbits(B), rng.getrandbits(B + 32),
              rng.getrandbits(2 * B + 32), rng.getrandbits(B) * rng.getrandbits(B) + rng.getrandbits(B + 1)}
        cases += [("rem", n, 0, [x, m]) for x in sorted(xs) if x < (1 << (2 * B + 32))]
    for _ in range(counts(n)):
        cases.append(("rem", n, 0, [rand_words(rng, 2 * n + 1, 0), rand_words(rng, n) or 1]))
    return cases


def mulmod_cases(n, rng):
    B = 32 * n
    top = (1 << B) - 1
    cases = []
    for m in special_moduli(n):
        for a, b in ((0, rng.getrandbits(B)), (top, top), (m - 1, m - 1), (m, 1), (rng.getrandbits(B), top),
                     (rng.getrandbits(B), rng.getrandbits(B))):
            cases.append(("mulmod", n, 0, [a & top, b & top, m]))
    for _ in range(counts(n)):
        cases.append(("mulmod", n, 0, [rand_words(rng, n, 0) & top, rand_words(rng, n, 0) & top,
                                       rand_words(rng, n) or 1]))
    return cases


def powm_cases(n, rng):
    B = 32 * n
    top = (1 << B) - 1
    odd = [m for m in special_moduli(n) if m & 1]
    cases = []
    few = n >= 16
    for m in (odd[::3] if few else odd):
        for ew in sorted({1, 2, n, n + 2} if few else range(1, n + 3)):
            E = 32 * ew
            for e in (0, 1, 2, (1 << E) - 1, rng.getrandbits(E), 1 << (E - 1)):
                for b in (0, 1, m - 1, top, rng.getrandbits(B)):
                    if rng.random() < (0.15 if few else 0.5) or (e, b) in ((0, 0), (2, top)):
                        cases.append(("powm", n, ew, [b, e, m]))
    for _ in range(counts(n) // (4 if few else 2)):
        m = (rand_words(rng, n) | 1) & top
        ew = rng.randint(1, n + 2)
        cases.append(("powm", n, ew, [rand_words(rng, n, 0) & top, rng.getrandbits(32 * ew), m]))
    return cases


def gcd_cases(n, rng):
    B = 32 * n
    top = (1 << B) - 1
    cases = [("gcd", n, 0, [0, 0]), ("gcd", n, 0, [0, top]), ("gcd", n, 0, [top, 0]), ("gcd", n, 0, [top, top]),
             ("gcd", n, 0, [1 << (B - 1), 1 << (B - 1)]), ("gcd", n, 0, [1 << (B - 1), 3 << (B - 2)]),
             ("gcd", n, 0, [top, top - 1]), ("gcd", n, 0, [1, top])]
    for m in special_moduli(n):
        cases.append(("gcd", n, 0, [m, rng.getrandbits(B)]))
        cases.append(("gcd", n, 0, [m, m]))
        cases.append(("gcd", n, 0, [rng.getrandbits(B), m]))
    for _ in range(counts(n)):
        # a shared factor p of up to B - 8 bits, a = p x, b = p y
        p = rng.getrandbits(rng.randint(1, B - 8)) or 1
        if rng.random() < 0.3:
            p <<= rng.randrange(max(1, B - p.bit_length()))
        lim = top // p
        a, b = p * rng.randint(0, lim), p * rng.randint(0, lim)
        cases.append(("gcd", n, 0, [a, b]))
        cases.append(("gcd", n, 0, [rand_words(rng, n, 0) & top, rand_words(rng, n, 0) & top]))
    return cases


def inv_cases(n, rng):
    B = 32 * n
    top = (1 << B) - 1
    cases = []
    for m in special_moduli(n):
        for a in {0, 1, 2, 3, m - 1, m, m + 1 if m < top else 1, top, rng.getrandbits(B), top - 1}:
            cases.append(("inv", n, 0, [a, m]))
    for _ in range(counts(n)):
        m = rand_words(rng, n) or 1
        if rng.random() < 0.5:
            m &= ~1 & top
            m = m or 2
        a = rand_words(rng, n, 0) & top
        cases.append(("inv", n, 0, [a, m]))
        # non-invertible: a shared odd factor
        f = (rng.getrandbits(rng.randint(2, max(2, B // 2))) | 1) or 3
        if f > 1 and m * f <= top:
            cases.append(("inv", n, 0, [(a * f) & top, m * f]))
    return cases


def shared_cases(n, rng):
    """lib_modshared: moduli at their edges and around B^(N-1) (where Barrett's mu stops fitting N + 1 words, and a
    zero top word leaves Barrett out), inputs at and above m, exponents of 1 .. N + 1 words."""
    B = 32 * n
    top = (1 << B) - 1
    w = 1 << (B - 32)
    ms = special_moduli(n) + [w, w + 1, w - 1, w * 0xffffffff, top - w] + [rand_words(rng, n) or 1
                                                                            for _ in range(counts(n) // 10)]
    cases = []
    for m in sorted({x for x in ms if 0 < x <= top}):
        ew = rng.randint(1, n + 1)
        for a, b in ((0, rng.getrandbits(B)), (top, top), (m - 1, m - 1), (m, m + 1 if m < top else 1),
                     (rng.getrandbits(B), top), (rng.getrandbits(B), rng.getrandbits(B))):
            cases.append(("shared", n, ew, [a & top, b & top, m, rng.getrandbits(32 * ew)]))
    return cases


@pytest.mark.parametrize("gen", (div_cases, mulmod_cases, powm_cases, gcd_cases, inv_cases, shared_cases),
                         ids=("divrem", "mulmod", "powm", "gcd", "modinv", "shared"))
def test_against_gmp(driver, gen):
    rng = random.Random("modarith-" + gen.__name__)   # fixed cases: a str seed is hashed deterministically
    cases = []
    for n in SIZES:
        cases += gen(n, rng)
    run_cases(driver, cases)


@pytest.mark.parametrize("gen", (div_cases, mulmod_cases, powm_cases, gcd_cases, inv_cases, shared_cases),
                         ids=("divrem", "mulmod", "powm", "gcd", "modinv", "shared"))
def test_scratch_against_gmp(scratch_driver, gen):
    """Scratch mode: the same cases at SCRATCH_SIZES, each function in exactly its generator/mod_scratch.py words."""
    rng = random.Random("modscratch-" + gen.__name__)
    cases = []
    for n in SCRATCH_SIZES:
        cases += gen(n, rng)
    run_cases(scratch_driver, cases)


@pytest.fixture(scope="module")
def rem_driver(tmp_path_factory):
    return build_driver(tmp_path_factory, "modrem", REM_SIZES)


def test_rem_against_gmp(rem_driver):
    """The remainder-only divisions (md_rem_n, md_rem_n1, md_rem_2n1; private mode only) against GMP's mpz_mod, in
    both of divrem's forms: unrolled up to 32 words, runtime-indexed above (33)."""
    rng = random.Random("modrem")
    cases = []
    for n in REM_SIZES:
        cases += rem_cases(n, rng)
    run_cases(rem_driver, cases)


def test_modinv_mod_one_matches_gmp(driver):
    """m = 1: GMP's mpz_invert returns 1 with r = 0 (checked by the driver against the installed GMP)."""
    run_cases(driver, [("inv", n, 0, [a, 1]) for n in (1, 3) for a in (0, 1, 5, (1 << (32 * n)) - 1)])


# ---- constant-time scan of powm ----

FUNC_RE = re.compile(r"DEVICE\s+(?:u32|void)\s+(\w+)\s*\(([^)]*)\)\s*\{")
IDENT_RE = re.compile(r"[A-Za-z_]\w*")
# `[type] name[subscript] op= rhs` (groups: prefix, name, rhs); == is not an assignment
ASSIGN_RE = re.compile(r"(?:const\s+)?(?:u32|u64)?\s*(.*?)\b(\w+)\s*(?:\[[^\]]*\])?\s*(?:[-+*/|&^]|<<|>>)?=(?!=)(.*)$")
C_WORDS = {"u32", "u64", "const", "if", "else", "for", "while", "return", "break", "GLOBAL", "UNROLL", "NO_UNROLL"}


def parse_functions(src):
    """name -> (parameter names, body text, pointer parameter names) for the rendered lib's DEVICE functions."""
    out = {}
    for mt in FUNC_RE.finditer(src):
        i, depth = mt.end(), 1
        while depth:
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            i += 1
        decls = mt.group(2).split(",")
        params = [IDENT_RE.findall(p)[-1] for p in decls]
        # comments out and whitespace runs one space: a statement split over lines (a loop's body on the next line)
        # must match the scan's one-line patterns, or its taint would be missed
        body = " ".join(re.sub(r"/\*.*?\*/", " ", src[mt.end():i - 1], flags=re.S).split())
        out[mt.group(1)] = (params, body, {p for p, d in zip(params, decls) if "*" in d})
    return out


def idents(text):
    return set(IDENT_RE.findall(text)) - C_WORDS


def split_args(text):
    args, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            args.append(cur)
            cur = ""
            continue
        depth += {"(": 1, ")": -1}.get(ch, 0)
        cur += ch
    return args + [cur]


def calls(stmt, funcs):
    """(callee, [argument texts]) for the lib calls in one statement."""
    out = []
    for mt in re.finditer(r"(\w+)\s*\(", stmt):
        if mt.group(1) in funcs:
            i, depth = mt.end(), 1
            while depth:
                depth += {"(": 1, ")": -1}.get(stmt[i], 0)
                i += 1
            out.append((mt.group(1), split_args(stmt[mt.end():i - 1])))
    return out


def declarators(stmt):
    """`u32 a = x, b = y` as ["u32 a = x", "b = y"]; any other statement as itself."""
    if re.match(r"(?:const\s+)?(?:u32|u64)\s", stmt):
        return split_args(stmt)
    return [stmt]


def written_params(funcs, name):
    """The pointer parameters that function `name` stores through, directly or by passing them to a callee that
    stores through the matching parameter (the lib has no recursion)."""
    params, body, ptr_params = funcs[name]
    out = {p for p in ptr_params if re.search(r"(?<![\w.])%s\s*\[[^\]]*\]\s*(?:[-+*/|&^]|<<|>>)?=(?!=)" % p, body)
           or re.search(r"(?:\+\+|--)\s*%s\s*\[|%s\s*\[[^\]]*\]\s*(?:\+\+|--)" % (p, p), body)}
    for s in re.split(r"[;{}]", body):
        for callee, args in calls(s, funcs):
            if callee != name:
                for cp, a in zip(funcs[callee][0], args):
                    base = IDENT_RE.match(a.strip())
                    if base and base.group(0) in ptr_params and cp in written_params(funcs, callee):
                        out.add(base.group(0))
    return out


def taint_scan(funcs, name, secret, seen=None):
    """Taint analysis of function `name` whose parameters `secret` hold (point to) exponent-dependent values.
    A variable or array becomes tainted when a statement assigns it from an expression naming a tainted one, or
    passes it to a lib function, with some tainted argument, at a parameter that function stores through
    (written_params; flow-insensitive, so conservative). Reported: a tainted name in an if / while / for
    condition, a ?: or && / || expression, a subscript [..], pointer arithmetic (`ptr + expr`), or a / or %;
    recursing into the lib functions called with tainted arguments. Returns (violations, functions visited)."""
    seen = {} if seen is None else seen
    key = (name, frozenset(secret))
    if key in seen:
        return [], set()
    seen[key] = True
    params, body, ptr_params = funcs[name]
    tainted = set(secret)
    pointers = set(re.findall(r"(\w+)\s*\[\s*\d+\s*\]", body)) | ptr_params
    stmts = [s.strip() for s in re.split(r"[;{}]", body) if s.strip()]
    changed = True
    while changed:
        changed = False
        for s in [piece for st in stmts for piece in declarators(st)]:
            mt = ASSIGN_RE.match(re.sub(r"^(?:for|while|if)\s*\(", "", s))
            if mt and idents(mt.group(3)) & tainted and mt.group(2) not in tainted:
                tainted.add(mt.group(2))
                changed = True
            for callee, args in calls(s, funcs):
                if any(idents(a) & tainted for a in args):
                    for p, a in zip(funcs[callee][0], args):
                        base = IDENT_RE.match(a.strip())
                        if p in written_params(funcs, callee) and base and base.group(0) not in tainted:
                            tainted.add(base.group(0))
                            changed = True
    bad, visited = [], {name}

    def flag(kind, text):
        if idents(text) & tainted:
            bad.append("%s: %s on %s in `%s`" % (name, kind, sorted(idents(text) & tainted), text.strip()))

    for mt in re.finditer(r"\b(if|while)\s*\(", body):
        i, depth = mt.end(), 1
        while depth:
            depth += {"(": 1, ")": -1}.get(body[i], 0)
            i += 1
        flag(mt.group(1), body[mt.end():i - 1])
    for mt in re.finditer(r"\bfor\s*\(([^;]*);([^;]*);", body):
        flag("for condition", mt.group(2))
    for s in stmts:
        if "?" in s:
            flag("?:", s.split("?")[0].split("=")[-1])
        if "&&" in s or "||" in s:
            flag("&&/||", s)
        for sub in re.findall(r"\[([^\]]*)\]", s):
            flag("subscript", sub)
        for ptr, expr in re.findall(r"\b(\w+)\s*[-+]\s*([^,;)]*)", s):
            if ptr in pointers:
                flag("pointer arithmetic", expr)
        if re.search(r"[/%]", s):
            flag("division", s)
        for callee, args in calls(s, funcs):
            cparams = funcs[callee][0]
            sec = {p for p, a in zip(cparams, args) if idents(a) & tainted}
            if sec:
                b2, v2 = taint_scan(funcs, callee, sec, seen)
                bad += b2
                visited |= v2
    return bad, visited


def rendered_functions(n):
    return parse_functions(render_lib([n]))


@pytest.mark.parametrize("n,ws", ((1, False), (4, False), (4, True), (33, True)), ids=("1", "4", "4ws", "33ws"))
def test_powm_ct_static(n, ws):
    """powm with ct != 0, scanned from the exponent: the body of powm is cut at its dispatch
    `if (ct) ma_powm_ct(acc, ...); else ma_powm_fast(acc, ...);`. Before it, e must not appear (the setup: R mod m,
    R^2 mod m, the table). ma_powm_ct is scanned with its parameter e secret: the words read from e taint the window
    nibble, the selected entry, the accumulator and, through calls, every function they reach (ma_select,
    ma_montmul, ma_sub, ...). The rest of powm after the dispatch is scanned with acc secret (the conversion out of
    Montgomery form). None of them may branch on (if / while / for / ?: / && / ||), index with, do pointer
    arithmetic with, or divide by tainted data. The table is passed only to ma_select, which reads all 16 entries
    at addresses from its loop counters. The same scan of the fast loop must flag its exponent-dependent branches
    and its table address `tab + nib * N`, so the scan is not vacuous."""
    S = "_w%d" % n
    funcs = parse_functions(render_lib([n], ws=ws))
    params, body, ptrs = funcs["powm" + S]
    sel = re.search(r"if \(ct\)\s*ma_powm_ct%s\(acc, [^;]*;\s*else\s*ma_powm_fast%s\(acc, [^;]*;" % (S, S), body)
    assert sel, "powm's ct dispatch is not the expected `if (ct) ... else ...`"
    head, tail = body[:sel.start()], body[sel.end():]
    assert "e" not in idents(head) and "e" not in idents(tail), "powm uses e outside the window loops"
    bad, visited = taint_scan(funcs, "ma_powm_ct" + S, {"e"})
    locals_ = set(re.findall(r"(\w+)\s*\[\s*\d+\s*\]", body))
    scan = dict(funcs, powm_tail=(params, tail, ptrs | locals_))
    bad_tail, visited_tail = taint_scan(scan, "powm_tail", {"acc"})
    bad += bad_tail
    assert not bad, "\n".join(bad)
    for f in ("ma_select", "ma_montmul", "ma_sub"):
        assert f + S in visited, f + " not reached by the scan"
    assert "ma_montmul" + S in visited_tail
    # the table is read only by the full scan: ma_powm_ct passes tab to ma_select alone and indexes nothing itself
    ct_body = funcs["ma_powm_ct" + S][1]
    assert [c for c, a in calls(ct_body, funcs) if any("tab" in x for x in a)] == ["ma_select" + S]
    assert "tab[" not in ct_body and "tab +" not in ct_body
    sel_body = funcs["ma_select" + S][1]
    assert re.search(r"for \(u32 k = 0; k < 16u; k\+\+\)", sel_body), "ma_select does not scan all 16 entries"
    # negative controls: the fast loop is flagged (branches on nib, tab + nib * N), and so are two mutations of the
    # ct path: a branch on the borrow in montmul's final subtraction, a direct table read in the ct loop
    bad_fast, _ = taint_scan(funcs, "ma_powm_fast" + S, {"e"})
    kinds = " ".join(bad_fast)
    assert "if on ['nib']" in kinds and "pointer arithmetic on ['nib']" in kinds, kinds
    mp, mb, mptr = funcs["ma_montmul" + S]
    assert "const u32 keep =" in mb
    mutated = dict(funcs)
    mutated["ma_montmul" + S] = (mp, mb.replace("const u32 keep =", "if (br) r[0] = 0u;\n    const u32 keep ="), mptr)
    assert any("if on ['br']" in b for b in taint_scan(mutated, "ma_powm_ct" + S, {"e"})[0])
    cp, cb, cptr = funcs["ma_powm_ct" + S]
    assert "ma_select%s(sel, tab, nib)" % S in cb
    mutated = dict(funcs)
    mutated["ma_powm_ct" + S] = (cp, cb.replace("ma_select%s(sel, tab, nib)" % S,
                                                "ma_copy%s(sel, tab + nib * %du)" % (S, n)), cptr)
    assert any("pointer arithmetic on ['nib']" in b for b in taint_scan(mutated, "ma_powm_ct" + S, {"e"})[0])


# ---- OpenCL C 1.2: a syntax check with clang when it is installed ----

OPENCL_PRELUDE = r"""
typedef uint u32;
typedef ulong u64;
#define DEVICE static inline
#define GLOBAL __global
#define UNROLL
#define NO_UNROLL
DEVICE u32 clz_u32(u32 x) { return clz(x); }
DEVICE u32 ctz_u32(u32 x) { return x ? 31u - clz(x & (0u - x)) : 32u; }
"""


def opencl_kernel(n):
    """A kernel calling every public function of the N-word lib once (private arrays, e from global memory)."""
    S = "_w%d" % n
    return r"""
__kernel void check%(S)s(__global u32 *out, __global const u32 *in, u32 ew)
{
    u32 x[%(N2)d], d[%(N)d], q[%(N2)d], r[%(N)d];
    for (u32 i = 0; i < %(N2)du; i++) x[i] = in[i];
    for (u32 i = 0; i < %(N)du; i++) d[i] = in[%(N2)d + i] | 1u;
    divrem%(S)s(q, r, x, d);
    mulmod%(S)s(r, q, x, d);
    powm%(S)s(r, r, in, ew, d, out[0]);
    gcd%(S)s(q, r, d);
    u32 ok = modinv%(S)s(r, q, d);
    for (u32 i = 0; i < %(N)du; i++) out[i] = r[i] + ok;
}
""" % {"S": S, "N": n, "N2": 2 * n}


def test_opencl_syntax(tmp_path):
    clang = shutil.which("clang")
    if clang is None:
        pytest.skip("clang not installed")
    sizes = (1, 2, 8, 64)
    src = tmp_path / "modarith.cl"
    src.write_text(OPENCL_PRELUDE + render_lib(sizes) + "".join(opencl_kernel(n) for n in sizes))
    res = subprocess.run([clang, "-x", "cl", "-cl-std=CL1.2", "-fsyntax-only", "-Werror", str(src)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]


@pytest.mark.parametrize("n", (1, 4))
def test_powm_shared_ct_static(n):
    """lib_modshared.j2's ms_powm (a shared modulus's constants) with ct != 0: the same dispatch as powm's into the same
    ma_powm_ct (scanned by test_powm_ct_static); before it e is not used, after it the conversion out of Montgomery
    form is scanned with acc secret: no branch, index, pointer arithmetic or division on it."""
    S = "_w%d" % n
    funcs = parse_functions(render_lib([n], shared=True))
    params, body, ptrs = funcs["ms_powm" + S]
    sel = re.search(r"if \(ct\)\s*ma_powm_ct%s\(acc, [^;]*;\s*else\s*ma_powm_fast%s\(acc, [^;]*;" % (S, S), body)
    assert sel, "ms_powm's ct dispatch is not the expected `if (ct) ... else ...`"
    head, tail = body[:sel.start()], body[sel.end():]
    assert "e" not in idents(head) and "e" not in idents(tail), "ms_powm uses e outside the window loops"
    locals_ = set(re.findall(r"(\w+)\s*\[\s*\d+\s*\]", body))
    bad, visited = taint_scan(dict(funcs, ms_powm_tail=(params, tail, ptrs | locals_)), "ms_powm_tail", {"acc"})
    assert not bad, "\n".join(bad)
    assert "ma_montmul" + S in visited
