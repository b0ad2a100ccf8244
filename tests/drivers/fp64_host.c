/* fp64_host.c — the generated FP64 device functions of the CUDA modular kernels (lib_mulmod_fdiv.j2's mfdiv_mulmod,
 * lib_modshared_f52.j2's ms52_mulmod) run on the host against GMP, so that CI, which has no GPU, checks their
 * arithmetic as generated. tests/test_fp64_host.py cuts the functions out of generated/cuda/*.cu into fp64_funcs.inc
 * and lists them in fp64_table.inc (FDIV(bits, least modulus bits, space.fdiv_first_zero_bits, function) and F52(bits,
 * function)); here the CUDA intrinsics are exact host equivalents: __fma_rd rounds a b + c toward zero by 128-bit
 * integers (its every use has non-negative integer operands), fma is C's, the bit casts are copies.
 * Usage: fp64_host CASES (per function); prints one line per function and a total, exit 1 on any wrong result. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gmp.h>

typedef uint32_t u32;
typedef uint64_t u64;
#define DEVICE static inline
#define UNROLL
#define NO_UNROLL
#define GLOBAL

static long misuse = 0;   /* an __fma_rd call outside what the split needs */

static double __longlong_as_double(long long x)
{
    double d;
    memcpy(&d, &x, 8);
    return d;
}

static long long __double_as_longlong(double d)
{
    long long x;
    memcpy(&x, &d, 8);
    return x;
}

/* a b + c rounded down to a double, for non-negative integers a, b < 2^53 and c below 2^106 */
static double __fma_rd(double a, double b, double c)
{
    if (a < 0 || b < 0 || c < 0 || a != floor(a) || b != floor(b) || c != floor(c) || c >= ldexp(1.0, 106)) {
        misuse++;
        return 0;
    }
    unsigned __int128 v = (unsigned __int128)(u64)a * (u64)b + (unsigned __int128)c;   /* c an integer: exact */
    int t = 127;
    while (t > 0 && !((v >> t) & 1))
        t--;
    const int drop = t > 52 ? t - 52 : 0;
    return ldexp((double)(u64)(v >> drop), drop);
}

#include "fp64_funcs.inc"

typedef void (*fdiv_fn)(u32 *, const u32 *, const u32 *, const u32 *);
typedef void (*f52_fn)(u32 *, const u32 *, const u32 *, const double *);

static gmp_randstate_t rs;

/* operands: random, all ones, zero, long runs (mpz_rrandomb), a single bit, random of a random width */
static void operand(mpz_t x, unsigned bits, long c)
{
    switch (c % 6) {
    case 0: mpz_urandomb(x, rs, bits); break;
    case 1: mpz_set_ui(x, 0); mpz_setbit(x, bits); mpz_sub_ui(x, x, 1); break;
    case 2: mpz_set_ui(x, 0); break;
    case 3: mpz_rrandomb(x, rs, bits); break;
    case 4: mpz_set_ui(x, 0); mpz_setbit(x, gmp_urandomm_ui(rs, bits)); break;
    default: mpz_urandomb(x, rs, 1 + gmp_urandomm_ui(rs, bits)); break;
    }
}

/* a modulus in [2^lo, 2^bits): 2^lo, 2^bits - 1, 2^lo + 1, long runs, random; where lo + 3 <= edge <= bits, also
   2^edge - 1, 2^edge and 2^(edge - 3) (where space.MULMOD_FDIV_SKIP_FIRST_BITS names the size, mfdiv_mulmod leaves out
   its first digit's step from 2^edge up; below 2^(edge - 2) the next digit would pass its bound without that step) */
static void modulus(mpz_t m, unsigned bits, unsigned lo, unsigned edge, long c)
{
    const int edges = lo + 3u <= edge && edge <= bits;
    switch (c % (edges ? 8 : 5)) {
    case 5: mpz_set_ui(m, 0); mpz_setbit(m, edge); mpz_sub_ui(m, m, 1); break;
    case 6: mpz_set_ui(m, 0); mpz_setbit(m, edge < bits ? edge : bits - 1); break;
    case 7: mpz_set_ui(m, 0); mpz_setbit(m, edge - 3u); break;
    case 0: mpz_set_ui(m, 0); mpz_setbit(m, lo); break;
    case 1: mpz_set_ui(m, 0); mpz_setbit(m, bits); mpz_sub_ui(m, m, 1); break;
    case 2: mpz_set_ui(m, 1); mpz_setbit(m, lo); break;
    case 3: mpz_rrandomb(m, rs, bits); mpz_setbit(m, lo + gmp_urandomm_ui(rs, bits - lo)); break;
    default: mpz_urandomb(m, rs, bits); mpz_setbit(m, lo + gmp_urandomm_ui(rs, bits - lo)); break;
    }
}

static void words(u32 *w, unsigned n, const mpz_t x)
{
    memset(w, 0, 4u * n);
    mpz_export(w, NULL, -1, 4, 0, 0, x);
}

static double limb(const mpz_t x, unsigned j, mpz_t t)
{
    mpz_fdiv_q_2exp(t, x, 52u * j);
    mpz_fdiv_r_2exp(t, t, 52);
    return (double)mpz_get_ui(t);
}

int main(int argc, char **argv)
{
    const long cases = argc > 1 ? atol(argv[1]) : 1000;
    long wrong = 0, total = 0;
    u32 x[1024], y[1024], mw[1024], o[1024];
    double mc[2048];
    mpz_t a, b, m, want, got, mu, t;
    mpz_inits(a, b, m, want, got, mu, t, NULL);
    gmp_randinit_default(rs);
#define CHECK(kind, bits)                                                                                             \
    do {                                                                                                              \
        mpz_mul(want, a, b);                                                                                          \
        mpz_mod(want, want, m);                                                                                       \
        mpz_import(got, (bits) / 32, -1, 4, 0, 0, o);                                                                 \
        total++;                                                                                                      \
        if (mpz_cmp(want, got) && wrong++ < 5)                                                                        \
            gmp_printf("%s %u wrong: a %Zx b %Zx m %Zx\n", kind, (unsigned)(bits), a, b, m);                          \
    } while (0)
#define FDIV(bits, lo, edge, fn)                                                                                       \
    for (long c = 0; c < cases; c++) {                                                                                \
        modulus(m, bits, lo, edge, c);                                                                                \
        operand(a, bits, c / 5);                                                                                      \
        operand(b, bits, c / 30);                                                                                     \
        if (c % 11 == 0)                                                                                              \
            mpz_sub_ui(a, m, 1);                                                                                      \
        if (c % 8 >= 5 && (c / 8) % 2 == 0) /* at the edges, the largest products too */                            \
            operand(a, bits, 1), operand(b, bits, 1);                                                                 \
        words(x, (bits) / 32, a), words(y, (bits) / 32, b), words(mw, (bits) / 32, m);                                \
        ((fdiv_fn)fn)(o, x, y, mw);                                                                                    \
        CHECK("mfdiv_mulmod", bits);                                                                                   \
    }                                                                                                                 \
    printf("mfdiv_mulmod %u: %ld cases\n", (unsigned)(bits), cases);
#define F52(bits, fn)                                                                                                 \
    for (long c = 0; c < cases; c++) {                                                                                \
        const unsigned k = ((bits) + 51) / 52;                                                                        \
        modulus(m, bits, 52 * (k - 1) + 1, 0u, c);                                                                    \
        mpz_set_ui(mu, 0), mpz_setbit(mu, 104 * k), mpz_fdiv_q(mu, mu, m);                                            \
        for (unsigned j = 0; j < k; j++)                                                                              \
            mc[j] = limb(m, j, t);                                                                                    \
        for (unsigned j = 0; j <= k; j++)                                                                             \
            mc[k + j] = limb(mu, j, t);                                                                               \
        operand(a, bits, c / 5);                                                                                      \
        operand(b, bits, c / 30);                                                                                     \
        words(x, (bits) / 32, a), words(y, (bits) / 32, b);                                                           \
        ((f52_fn)fn)(o, x, y, mc);                                                                                    \
        CHECK("ms52_mulmod", bits);                                                                                   \
    }                                                                                                                 \
    printf("ms52_mulmod %u: %ld cases\n", (unsigned)(bits), cases);
#include "fp64_table.inc"
    printf("%ld cases, %ld wrong, %ld misuses of __fma_rd\n", total, wrong, misuse);
    return wrong || misuse || !total;
}
