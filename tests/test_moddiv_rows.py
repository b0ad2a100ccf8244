"""templates/lib_moddiv.j2's define_rows (divrem and mod of kernel_mod_thread.j2 up to space.MOD_ROWS_MAX_WORDS words)
on the host against GMP: the kernel's sequence on one row (the divisor in, md_rows_divisor; the dividend in,
md_rows_divide; the quotient out; md_rows_remainder) with every row word the kernel does not write poisoned, for
runtime widths below N (n < N words, dividends of na < 2n words), divisors of every length, and the corners of
Algorithm D: a quotient word whose first estimate is 2 too large, the add-back step (checked to run by a counter
in the rendered code), d q + d - 1, all-ones, 2^k +- 1, dividend below divisor. Full kernels: tests/test_variants.py."""

import random
import shutil
import subprocess

import jinja2
import pytest

from test_modarith_lib import ADD_BACK, DRIVER_HEAD, DRIVER_MAIN, GMP_H, HOST_PRELUDE, ROOT, special_moduli

SIZES = (1, 2, 3, 4, 5, 8, 16, 32, 64)
B = 1 << 32

# the carry-chain primitives (lib_ptx_carry.j2's names) in plain C, the carry in *cc
HOST_CARRY = r"""
#define LOCAL
DEVICE u32 addc_cc_u32(u32 a, u32 b, u32 *cc) { u64 s = (u64)a + b + *cc; *cc = (u32)(s >> 32); return (u32)s; }
DEVICE u32 add_cc_u32(u32 a, u32 b, u32 *cc) { *cc = 0u; return addc_cc_u32(a, b, cc); }
DEVICE u32 addc_u32(u32 a, u32 b, u32 *cc) { return a + b + *cc; }
DEVICE u32 mad_lo_cc_u32(u32 a, u32 b, u32 c, u32 *cc) { return addc_cc_u32(a * b, c, cc); }
DEVICE u32 madc_lo_cc_u32(u32 a, u32 b, u32 c, u32 *cc) { return addc_cc_u32(a * b, c, cc); }
DEVICE u32 madc_hi_cc_u32(u32 a, u32 b, u32 c, u32 *cc) { return addc_cc_u32((u32)(((u64)a * b) >> 32), c, cc); }
static long md_addbacks;
"""

# one checker per N: the kernel's phases on a row of 2N + 1 words, poisoned between them where the kernel leaves
# another phase's words
CHECK_N = r"""
static void check{S}(const char *op, long line, mpz_t *v, unsigned ew)
{
    enum { N = {N} };
    u32 row[2 * N + 1], dc[N], s[N], cs = 0u, q[2 * N], x[2 * N];
    mpz_t X, D, Q, R, t;
    (void)ew;
    if (!strcmp(op, "count")) { printf("addbacks %ld\n", md_addbacks); return; }
    /* v: x, d, na 2^16 + n */
    const unsigned na = (unsigned)(mpz_get_ui(v[2]) >> 16), n = (unsigned)(mpz_get_ui(v[2]) & 0xffffu);
    mpz_inits(X, D, Q, R, t, NULL);
    mpz_set(X, v[0]); mpz_set(D, v[1]);
    for (int mode = 0; mode < 2; mode++) {   /* 0: divrem (quotient kept), 1: mod */
        for (int i = 0; i < 2 * N + 1; i++) row[i] = 0xa5a5a5a5u;
        size_t cnt = 0;
        for (unsigned i = 0; i < n; i++) row[i] = 0u;
        mpz_export(row, &cnt, -1, sizeof(u32), 0, 0, D);
        if (cnt > n) { printf("BAD divisor width\n"); exit(2); }
        u32 nd = md_rows_divisor{S}(dc, &cs, row, n);
        for (int i = 0; i < 2 * N + 1; i++) row[i] = 0x5a5a5a5au;
        for (unsigned i = 0; i < na; i++) row[i] = 0u;
        mpz_export(row, &cnt, -1, sizeof(u32), 0, 0, X);
        if (cnt > na) { printf("BAD dividend width\n"); exit(2); }
        memcpy(x, row, sizeof x);
        md_rows_divide{S}(s, row, na, dc, cs, nd, mode == 0);
        mpz_tdiv_qr(Q, R, X, D);
        if (mode == 0) {
            memcpy(q, row, na * sizeof(u32));
            mpz_import(t, na, -1, sizeof(u32), 0, 0, q);
            expect(mpz_cmp(t, Q) == 0, "rows quotient", N, line, "quotient");
        } else {
            expect(memcmp(x, row, na * sizeof(u32)) == 0, "rows mod", N, line, "mod wrote the dividend");
        }
        for (unsigned i = N + 1; i < 2 * N + 1; i++) row[i] = 0x3c3c3c3cu;
        md_rows_remainder{S}(row, s, cs, nd, n);
        mpz_import(t, n, -1, sizeof(u32), 0, 0, row);
        expect(mpz_cmp(t, R) == 0, mode ? "rows mod" : "rows divrem", N, line, "remainder");
    }
    mpz_clears(X, D, Q, R, t, NULL);
}
"""

def driver_source():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ROOT / "templates")), undefined=jinja2.StrictUndefined)
    lib = env.from_string('{% import "lib_modarith.j2" as m %}' + "".join(
        '{{ m.define("w%d", %d) }}\n' % (n, n) for n in SIZES)).render()
    rows = env.from_string('{% import "lib_moddiv.j2" as md %}' + "".join(
        '{{ md.define_rows("w%d", %d) }}\n' % (n, n) for n in SIZES)).render()
    # count the add-back steps (only the rows' steps decrement qh this way)
    assert rows.count("qh--;") == 3 * len(SIZES)
    rows = rows.replace("qh--;", "qh--; md_addbacks++;")
    parts = [HOST_PRELUDE, HOST_CARRY, lib, rows, DRIVER_HEAD]
    parts += [CHECK_N.replace("{S}", "_w%d" % n).replace("{N}", str(n)) for n in SIZES]
    cases = "\n".join("        case %d: check_w%d(op, line, v, ew); break;" % (n, n) for n in SIZES)
    parts.append(DRIVER_MAIN.replace("{CASES}", cases))
    return "\n".join(parts)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    cc = shutil.which("cc")
    if cc is None or not GMP_H.exists():
        pytest.skip("needs cc and GMP (gmp.h, -lgmp)")
    d = tmp_path_factory.mktemp("rows")
    src = d / "rows_check.c"
    src.write_text(driver_source())
    exe = d / "rows_check"
    res = subprocess.run([cc, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function", str(src),
                          "-o", str(exe), "-lgmp"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    return exe


def run(exe, cases):
    """cases: (N, na, n, x, d); all must pass; returns the add-back steps run"""
    text = "".join("rows %d 0 3 %x %x %x\n" % (N, x, d, na << 16 | n) for N, na, n, x, d in cases)
    text += "count %d 0 1 0\n" % SIZES[0]
    res = subprocess.run([str(exe)], input=text, capture_output=True, text=True, timeout=120)
    lines = res.stdout.splitlines()
    fails = [ln for ln in lines if ln.startswith(("FAIL", "BAD"))]
    assert not fails, "\n".join(fails[:20]) + "\n(%d failures)" % len(fails)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert lines[-1] == "done %d 0" % (len(cases) + 1), lines[-3:]
    return int(lines[-2].split()[1])


# ---- a model of the estimates, to show that the corner cases below reach the corners ----

def words(x):
    return (x.bit_length() + 31) // 32


def estimates(x, d):
    """Per quotient word, as define_rows computes it (the same D and Y for any N >= words(d)): (the 2-by-1 estimate
    from the window's top two words by D's top word, minus the true word; the 3-by-2 estimate, md_qhat3's, minus it)"""
    nd = words(d)
    c = 32 - (d >> (32 * (nd - 1))).bit_length()
    D, Y = d << c, x << c
    out = []
    for j in range(words(x) - nd, -1, -1):
        W = (Y >> (32 * j)) % B ** (nd + 1)
        wk = lambda v, k: (v >> (32 * k)) % B if k >= 0 else 0
        u2, u1, u0, d1, d0 = wk(W, nd), wk(W, nd - 1), wk(W, nd - 2), wk(D, nd - 1), wk(D, nd - 2)
        raw = min((u2 * B + u1) // d1, B - 1)
        qh, r = raw, u2 * B + u1 - raw * d1
        for _ in range(2):
            if r < B and qh * d0 > r * B + u0:
                qh, r = qh - 1, r + d1
        q = W // D
        out.append((raw - q, qh - q))
        Y -= (q * D) << (32 * j)
    return out


# found by a search over words from {0, 1, 2, 2^31 - 1, 2^31, 2^31 + 1, 2^32 - 2, 2^32 - 1} with `estimates`:
# the first estimate 2 too large (Knuth's test takes both corrections) ...
TWO_TOO_LARGE = ((0x18000000180000000fffffffe0000000100000002, 0x80000001fffffffe00000002),
                 (0x7ffffffffffffffe0000000100000000fffffffe00000002, 0x80000000fffffffe80000000))
# ... and 2 too large, the 3-by-2 estimate still 1 too large: the add-back step
TWO_THEN_ADD_BACK = ((0x2ffffffff800000007fffffff7fffffff80000000, 0x10000000180000001),)


def test_corner_cases_reach_the_corners():
    for x, d in TWO_TOO_LARGE + TWO_THEN_ADD_BACK:
        assert any(raw == 2 for raw, _ in estimates(x, d))
    for x, d in TWO_THEN_ADD_BACK + ADD_BACK:
        assert any(est == 1 for _, est in estimates(x, d))


def cases_for(N, rng):
    out = []
    for n in sorted({N, max(1, N - 1), max(1, N // 2), 1}):
        W = 32 * n
        ds = [d for d in special_moduli(n)]
        ds += [rng.getrandbits(32 * k) | (1 << (32 * k - 1)) for k in range(1, n + 1)]
        ds += [((rng.getrandbits(32) | 1) << (32 * (n - 1))) | rng.getrandbits(32 * (n - 1)) for _ in range(3)]
        if len(ds) > 40:
            ds = ds[:8] + rng.sample(ds[8:], 32)
        for d in ds:
            for na in sorted({2 * n, 2 * n - 1, n, max(1, n - 1), 1}):
                X = 1 << (32 * na)
                qmax = (X - 1) // d
                q = rng.randint(0, qmax) if qmax else 0
                xs = {0, 1, d - 1, d, d * q, d * q + d - 1, d * qmax, X - 1, rng.getrandbits(32 * na),
                      rng.getrandbits(rng.randint(1, 32 * na)), max(d * q - 1, 0)}
                out += [(N, na, n, x, d) for x in sorted(xs) if 0 <= x < X]
        for x, d in TWO_TOO_LARGE + TWO_THEN_ADD_BACK + ADD_BACK:
            if words(d) <= n and words(x) <= 2 * n:
                out.append((N, 2 * n, n, x, d))
    return out


def test_rows_against_gmp(driver):
    rng = random.Random("moddiv-rows")
    cases = [c for N in SIZES for c in cases_for(N, rng)]
    addbacks = run(driver, cases)
    assert addbacks > 0


@pytest.mark.parametrize("x, d", TWO_THEN_ADD_BACK + ADD_BACK)
def test_add_back_runs(driver, x, d):
    """each add-back case runs the step at every N that holds it (each case: twice, divrem and mod)"""
    cases = [(N, 2 * N, N, x, d) for N in SIZES if N >= words(d) and 2 * N >= words(x)]
    assert run(driver, cases) >= 2 * len(cases)
