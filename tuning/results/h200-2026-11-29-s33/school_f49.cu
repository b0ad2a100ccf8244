/* school_f49.cu — spike (not the library): a * b mod m with a modulus per instance at 1024 bits, by schoolbook division
 * in radix 2^49 with every limb product on the FP64 pipe and each quotient digit estimated in FP64 from the top limbs,
 * a thread per instance. Question: can a per-instance mulmod reach issue 24's mark of 45% of midint mul's rate at 1024
 * bits (today mul + mod: 27%)? The product is 441 limb products and the division 23 digits of 21.
 *
 * Radix beta = 2^49, 21 limbs (1029 bits). A limb product a b < 2^101 splits exactly as h = fma_rd(a, b, 2^101) =
 * 2^101 + floor(ab / 2^49) 2^49 (ulp 2^49 in [2^101, 2^102)) and l = fma(a, b, 2^101 + 2^52 - h) = (ab mod 2^49) +
 * 2^52; their raw patterns are 0x464 2^52 + floor and 0x433 2^52 + low, summed as 64-bit integers.
 *
 * Division of x = a b (42 limbs) by m (2^1000 <= m < 2^1024: top limb M20 >= 2^20): digits j = 21 .. 0, then j = 0
 * once more. R's limbs are kept unnormalized as X[k] - (sum of subtracted patterns), below 2^57 in magnitude. The
 * digit's estimate: T = R[j+22] 2^49 + R[j+21] exactly in int64 (wrapping; the true value is small), Rhat = fma(T,
 * 2^49, R[j+20]), q = max(0, floor(Rhat * inv - 2)), inv = 2^49 / (M20 2^49 + M19). Four roundings of 2^-53 and the
 * dropped limbs (below 2^8 / M20 <= 2^-12 units) keep the estimate within 1.6 of R / (m beta^j) while that is below
 * 5 beta, so q <= true digit < q + 4.6: R stays >= 0 and the next digit below 5 beta < 2^52 (q M_i < 2^101 as the split
 * needs). After j = 0, R < 4.6 m; the second pass at j = 0 (error now below 2^-10) leaves R < 2m, and one
 * conditional subtraction ends it.
 *
 * Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o school_f49 school_f49.cu libgmp.a
 * Run: ./school_f49 host N (the same arithmetic on the host: the split by 128-bit integers, the estimate by the same
 *      IEEE operations; N cases against GMP, with the bounds asserted) or ./school_f49 gpu COUNT REPS. */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include <gmp.h>
#include <cuda_runtime.h>

typedef uint32_t u32;
typedef unsigned long long u64;
typedef long long i64;

#ifdef __CUDA_ARCH__
#define __builtin_clz_hd(x) __clz(x)
#else
#define __builtin_clz_hd(x) __builtin_clz(x)
#endif

#define K 21     /* limbs of 49 bits */
#define NX 44    /* the product's 42 limbs and two above for the first digit's estimate */
#define WORDS 32
#define MASK49 0x1ffffffffffffull
#define LO_PAT (0x433ull << 52)
#define HI_PAT (0x464ull << 52)
#define TWO49 562949953421312.0

#ifdef __CUDA_ARCH__
#define HD __device__ __forceinline__
#else
#define HD inline
#endif

static long host_bound_failures = 0;   /* host runs: a product out of the split's range, R out of its bound */

HD void split(double a, double b, u64 &hp, u64 &lp)
{
#ifdef __CUDA_ARCH__
    const double h = __fma_rd(a, b, 2535301200456458802993406410752.0);         /* 2^101 */
    const double l = fma(a, b, 2535301200456463306593033781248.0 - h);           /* 2^101 + 2^52 */
    hp = (u64)__double_as_longlong(h);
    lp = (u64)__double_as_longlong(l);
#else
    if (a < 0 || b < 0 || a * b >= 2535301200456458802993406410752.0)
        host_bound_failures++;
    const unsigned __int128 p = (unsigned __int128)(u64)a * (u64)b;
    hp = HI_PAT | (u64)(p >> 49);
    lp = LO_PAT | ((u64)p & MASK49);
#endif
}

HD double dbl(u64 x)   /* x < 2^52 */
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)(x | 0x4330000000000000ull)) - 4503599627370496.0;
#else
    return (double)x;
#endif
}

/* NW words -> NL limbs of 49 bits (u64) */
template <int NW, int NL>
HD void to_limbs49(u64 *L, const u32 *w)
{
#pragma unroll
    for (int i = 0; i < NL; i++) {
        const int bit = 49 * i, w0 = bit >> 5, sh = bit & 31;
        const u64 x0 = w0 < NW ? w[w0] : 0, x1 = w0 + 1 < NW ? w[w0 + 1] : 0, x2 = w0 + 2 < NW ? w[w0 + 2] : 0;
        u64 v = (x0 | (x1 << 32)) >> sh;
        if (sh > 15)
            v |= x2 << (64 - sh);
        L[i] = v & MASK49;
    }
}

HD void to_limbs(double *L, const u32 *w)
{
    u64 V[K];
    to_limbs49<WORDS, K>(V, w);
#pragma unroll
    for (int i = 0; i < K; i++)
        L[i] = dbl(V[i]);
}

/* r (limbs 0 .. 20 normalized, below 2^1024) -> 32 words */
HD void to_words(u32 *w, const u64 *r)
{
#pragma unroll
    for (int j = 0; j < WORDS; j++) {
        const int bit = 32 * j, g = bit / 49, sh = bit % 49;
        u64 v = r[g] >> sh;
        if (sh > 17 && g + 1 < K)
            v |= r[g + 1] << (49 - sh);
        w[j] = (u32)v;
    }
}

/* w (NW words) shifted left (up) or right by s < 32 NW bits, in place: one stage a bit of s, so that every index is
 * a constant (the words stay in registers) */
template <int NW, bool LEFT>
HD void shift_words(u32 *w, unsigned s)
{
#pragma unroll
    for (int k = 10; k >= 5; k--) {
        const int d = 1 << (k - 5);
        if (d >= NW)
            continue;
        const bool on = (s >> k) & 1u;
#pragma unroll
        for (int t = 0; t < NW; t++) {
            const int i = LEFT ? NW - 1 - t : t, from = LEFT ? i - d : i + d;
            const u32 v = from >= 0 && from < NW ? w[from] : 0u;
            w[i] = on ? v : w[i];
        }
    }
    const unsigned b = s & 31u;
    if (b) {
#pragma unroll
        for (int t = 0; t < NW; t++) {
            const int i = LEFT ? NW - 1 - t : t, from = LEFT ? i - 1 : i + 1;
            const u32 o = from >= 0 && from < NW ? w[from] : 0u;
            w[i] = LEFT ? (w[i] << b) | (o >> (32 - b)) : (w[i] >> b) | (o << (32 - b));
        }
    }
}

/* x (S = -X, NX limbs) mod m (M: 21 limbs, m >= 2^1000, x < 2^2048) into R (22 limbs, normalized, below m) */
HD void reduce(u64 *S, const double *M, double inv, u64 *R)
{
    /* offs[k]: the exponent fields added to S[k] so far (counts known after unrolling) */
    u64 offs[NX];
#pragma unroll
    for (int k = 0; k < NX; k++)
        offs[k] = 0;
#pragma unroll
    for (int step = 0; step <= K + 1; step++) {
        const int j = step <= K ? K - step : 0;   /* digits 21 .. 0, then 0 again */
        const i64 r2 = (i64)(offs[j + 22] - S[j + 22]), r1 = (i64)(offs[j + 21] - S[j + 21]),
                  r0 = (i64)(offs[j + 20] - S[j + 20]);
        const i64 t = (i64)((u64)r2 << 49) + r1;
        const double rhat = fma((double)t, TWO49, (double)r0);
        const double q = fmax(floor(fma(rhat, inv, step <= K ? -2.0 : -0.0009765625)), 0.0);
        u64 hp_prev = 0;
#pragma unroll
        for (int i = 0; i < K; i++) {
            u64 hp, lp;
            split(q, M[i], hp, lp);
            if (i == 0) {
                S[j] += lp;
                offs[j] += LO_PAT;
            } else {
                S[j + i] += lp + hp_prev;
                offs[j + i] += LO_PAT + HI_PAT;
            }
            hp_prev = hp;
        }
        S[j + K] += hp_prev;
        offs[j + K] += HI_PAT;
    }
    /* R < 2m: normalize limbs 0 .. 21 (the value above them is zero by then), subtract m where it fits */
    u64 D[K + 1];
    i64 carry = 0;
#pragma unroll
    for (int k = 0; k <= K; k++) {
        const i64 v = (i64)(offs[k] - S[k]) + carry;
        R[k] = (u64)v & MASK49;
        carry = v >> 49;
    }
#ifndef __CUDA_ARCH__
    /* the limbs above 21 and the carry into them must cancel (R < 2m < beta^22) */
    for (int k = K + 1; k < NX; k++) {
        const i64 v = (i64)(offs[k] - S[k]) + carry;
        if (v & MASK49)
            host_bound_failures++;
        carry = v >> 49;
    }
    if (carry != 0)
        host_bound_failures++;
#endif
    i64 bo = 0;
#pragma unroll
    for (int k = 0; k <= K; k++) {
#ifdef __CUDA_ARCH__
        const u64 mk = k < K ? (u64)__double_as_longlong(M[k] + 4503599627370496.0) & MASK49 : 0;
#else
        const u64 mk = k < K ? (u64)M[k] : 0;
#endif
        const i64 v = (i64)R[k] - (i64)mk + bo;
        D[k] = (u64)v & MASK49;
        bo = v >> 49;
    }
    const u64 keep = bo ? ~0ull : 0ull;
#pragma unroll
    for (int k = 0; k <= K; k++)
        R[k] = (R[k] & keep) | (D[k] & ~keep);
#ifndef __CUDA_ARCH__
    if (R[K] != 0)
        host_bound_failures++;
#endif
}

/* a b mod m, m >= 1. A modulus below 2^1000 (top word below 2^8) is first shifted up by s to m' = m 2^s (bit 1023
 * set): r' = x mod m', then (r' 2^s mod m') / 2^s = r' mod m = x mod m, two passes of the same division. */
HD void mulmod(u32 *out, const u32 *aw, const u32 *bw, const u32 *mw_in)
{
    double A[K], B[K];
    to_limbs(A, aw);
    to_limbs(B, bw);
    /* S[k] = (sum of patterns added) - X[k]; R[k] = offset(k) - S[k], offset the patterns' exponent fields */
    u64 S[NX];
    {
        u64 carry = 0, hi_prev = 0, n_prev = 0;
#pragma unroll
        for (int c = 0; c < 2 * K; c++) {
            u64 lo = 0, hi = 0, lp0 = 0, hp0 = 0, n = 0;
#pragma unroll
            for (int i = 0; i < K; i++) {
                const int j = c - i;
                if (j < 0 || j >= K)
                    continue;
                u64 hp, lp;
                split(A[i], B[j], hp, lp);
                if (n & 1) {
                    lo += lp0 + lp;
                    hi += hp0 + hp;
                } else {
                    lp0 = lp;
                    hp0 = hp;
                }
                n++;
            }
            if (n & 1) {
                lo += lp0;
                hi += hp0;
            }
            const u64 v = lo + hi_prev + carry - n * LO_PAT - n_prev * HI_PAT;
            S[c] = (u64)0 - (v & MASK49);
            carry = v >> 49;
            hi_prev = hi;
            n_prev = n;
        }
        S[2 * K] = S[2 * K + 1] = 0;   /* x < 2^2048 < beta^42: nothing carries out */
    }
    u32 mw[WORDS];
    unsigned s = 0;
#pragma unroll
    for (int i = 0; i < WORDS; i++) {
        mw[i] = mw_in[i];
        if (mw[i])
            s = 32u * (WORDS - 1 - i) + (unsigned)__builtin_clz_hd(mw[i]);
    }
    const bool shortm = (mw[WORDS - 1] >> 8) == 0u;
    if (shortm)
        shift_words<WORDS, true>(mw, s);
    double M[K];
    to_limbs(M, mw);
    const double inv = TWO49 / fma(M[K - 1], TWO49, M[K - 2]);
    u64 R[K + 1];
    reduce(S, M, inv, R);
    u32 rw[WORDS];
    to_words(rw, R);
    if (shortm) {
        u32 w2[2 * WORDS];
#pragma unroll
        for (int i = 0; i < WORDS; i++) {
            w2[i] = rw[i];
            w2[WORDS + i] = 0u;
        }
        shift_words<2 * WORDS, true>(w2, s);
        u64 L[2 * K];
        to_limbs49<2 * WORDS, 2 * K>(L, w2);
#pragma unroll
        for (int k = 0; k < 2 * K; k++)
            S[k] = (u64)0 - L[k];
        S[2 * K] = S[2 * K + 1] = 0;
        reduce(S, M, inv, R);
        to_words(rw, R);
        shift_words<WORDS, false>(rw, s);
    }
#pragma unroll
    for (int i = 0; i < WORDS; i++)
        out[i] = rw[i];
}

#ifndef MINB
#define MINB 1
#endif
__global__ void __launch_bounds__(128, MINB) mulmod_kernel(u32 *r, const u32 *a, const u32 *b, const u32 *m,
                                                           size_t count)
{
    const size_t i = (size_t)blockIdx.x * 128 + threadIdx.x;
    if (i >= count)
        return;
    u32 aw[WORDS], bw[WORDS], mw[WORDS], ow[WORDS];
    const uint4 *pa = (const uint4 *)(a + i * WORDS), *pb = (const uint4 *)(b + i * WORDS),
                *pm = (const uint4 *)(m + i * WORDS);
#pragma unroll
    for (int j = 0; j < WORDS / 4; j++) {
        const uint4 x = pa[j], y = pb[j], z = pm[j];
        aw[4 * j] = x.x, aw[4 * j + 1] = x.y, aw[4 * j + 2] = x.z, aw[4 * j + 3] = x.w;
        bw[4 * j] = y.x, bw[4 * j + 1] = y.y, bw[4 * j + 2] = y.z, bw[4 * j + 3] = y.w;
        mw[4 * j] = z.x, mw[4 * j + 1] = z.y, mw[4 * j + 2] = z.z, mw[4 * j + 3] = z.w;
    }
    mulmod(ow, aw, bw, mw);
    uint4 *pr = (uint4 *)(r + i * WORDS);
#pragma unroll
    for (int j = 0; j < WORDS / 4; j++)
        pr[j] = make_uint4(ow[4 * j], ow[4 * j + 1], ow[4 * j + 2], ow[4 * j + 3]);
}

/* ---------- host: inputs, the check against GMP ---------- */

static void words_of(u32 *w, const mpz_t x)
{
    memset(w, 0, WORDS * 4);
    mpz_export(w, NULL, -1, 4, 0, 0, x);
}

static u64 rng_state = 0x9e3779b97f4a7c15ull;
static u32 rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (u32)(rng_state >> 11);
}

/* operand patterns: random, zero, max, m - 1, one, single bits, all-ones runs, m, m + small */
static void operand(mpz_t x, int pattern, const mpz_t m)
{
    u32 w[WORDS];
    switch (pattern % 9) {
    case 0: for (int j = 0; j < WORDS; j++) w[j] = rnd(); mpz_import(x, WORDS, -1, 4, 0, 0, w); break;
    case 1: mpz_set_ui(x, 0); break;
    case 2: mpz_set_ui(x, 0); mpz_setbit(x, 1024); mpz_sub_ui(x, x, 1); break;
    case 3: mpz_sub_ui(x, m, 1); break;
    case 4: mpz_set_ui(x, 1); break;
    case 5: mpz_set_ui(x, 0); mpz_setbit(x, rnd() % 1024); break;
    case 6: { unsigned lo = rnd() % 1024, len = rnd() % (1024 - lo) + 1;
        mpz_set_ui(x, 0); mpz_setbit(x, lo + len); mpz_sub_ui(x, x, 1); mpz_fdiv_q_2exp(x, x, lo); mpz_mul_2exp(x, x, lo); break; }
    case 7: mpz_set(x, m); break;
    default: mpz_add_ui(x, m, rnd() % 5); mpz_fdiv_r_2exp(x, x, 1024); break;
    }
}

/* moduli: random full, 2^1024 - 1, 2^1023 + 1, 2^1000 (the smallest without the shift), 2^1000 + 2^999 - 1, random
 * of 1001 .. 1024 bits, 2^1024 - 2^975 + 1 (long top run), even random; below 2^1000 (the shifted way): 1, 2, 3,
 * 2^999, 2^999 - 1, 2^k +- 1, random of 1 .. 999 bits, 2^64 - 1 */
#define MODULUS_KINDS 16
static void modulus(mpz_t m, int which)
{
    u32 w[WORDS];
    const unsigned k = 1 + rnd() % 999;
    switch (which % MODULUS_KINDS) {
    case 0: for (int j = 0; j < WORDS; j++) w[j] = rnd(); w[WORDS - 1] |= 0x80000000u; w[0] |= 1; mpz_import(m, WORDS, -1, 4, 0, 0, w); break;
    case 1: mpz_set_ui(m, 0); mpz_setbit(m, 1024); mpz_sub_ui(m, m, 1); break;
    case 2: mpz_set_ui(m, 1); mpz_setbit(m, 1023); break;
    case 3: mpz_set_ui(m, 0); mpz_setbit(m, 1000); break;
    case 4: mpz_set_ui(m, 0); mpz_setbit(m, 1000); mpz_setbit(m, 999); mpz_sub_ui(m, m, 1); break;
    case 5: for (int j = 0; j < WORDS; j++) w[j] = rnd(); mpz_import(m, WORDS, -1, 4, 0, 0, w);
        mpz_fdiv_r_2exp(m, m, 1000 + rnd() % 24); mpz_setbit(m, 1000 + rnd() % 24); break;
    case 6: mpz_set_ui(m, 0); mpz_setbit(m, 1024); mpz_sub_ui(m, m, 1);
        { mpz_t t; mpz_init(t); mpz_setbit(t, 975); mpz_sub(m, m, t); mpz_add_ui(m, m, 1); mpz_clear(t); } break;
    case 7: for (int j = 0; j < WORDS; j++) w[j] = rnd(); w[WORDS - 1] |= 0x80000000u; w[0] &= ~1u; mpz_import(m, WORDS, -1, 4, 0, 0, w); break;
    case 8: mpz_set_ui(m, 1 + rnd() % 3); break;
    case 9: mpz_set_ui(m, 0); mpz_setbit(m, 999); break;
    case 10: mpz_set_ui(m, 0); mpz_setbit(m, 999); mpz_sub_ui(m, m, 1); break;
    case 11: mpz_set_ui(m, 0); mpz_setbit(m, k); mpz_add_ui(m, m, 1); break;
    case 12: mpz_set_ui(m, 0); mpz_setbit(m, k); mpz_sub_ui(m, m, 1); if (!mpz_sgn(m)) mpz_set_ui(m, 1); break;
    case 13: case 14: for (int j = 0; j < WORDS; j++) w[j] = rnd(); mpz_import(m, WORDS, -1, 4, 0, 0, w);
        mpz_fdiv_r_2exp(m, m, k); mpz_setbit(m, k - 1); break;
    default: mpz_set_ui(m, 0); mpz_setbit(m, 64); mpz_sub_ui(m, m, 1); break;
    }
}

static int check(const u32 *got, const u32 *aw, const u32 *bw, const u32 *mw)
{
    mpz_t a, b, r, g, m;
    mpz_inits(a, b, r, g, m, NULL);
    mpz_import(a, WORDS, -1, 4, 0, 0, aw);
    mpz_import(b, WORDS, -1, 4, 0, 0, bw);
    mpz_import(m, WORDS, -1, 4, 0, 0, mw);
    mpz_import(g, WORDS, -1, 4, 0, 0, got);
    mpz_mul(r, a, b);
    mpz_mod(r, r, m);
    const int ok = mpz_cmp(r, g) == 0;
    mpz_clears(a, b, r, g, m, NULL);
    return ok;
}

static void make_case(size_t c, u32 *aw, u32 *bw, u32 *mw, mpz_t m, mpz_t x)
{
    modulus(m, (int)(c / 81 % MODULUS_KINDS));
    words_of(mw, m);
    operand(x, (int)(c % 9), m);
    words_of(aw, x);
    operand(x, (int)(c / 9 % 9), m);
    words_of(bw, x);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "host";
    mpz_t m, x;
    mpz_inits(m, x, NULL);
    if (strcmp(mode, "host") == 0) {
        const long n = argc > 2 ? atol(argv[2]) : 100000;
        long bad = 0;
        for (long c = 0; c < n; c++) {
            u32 aw[WORDS], bw[WORDS], mw[WORDS], ow[WORDS];
            make_case((size_t)c, aw, bw, mw, m, x);
            mulmod(ow, aw, bw, mw);
            if (!check(ow, aw, bw, mw) && bad++ < 5)
                printf("host FAIL case %ld (modulus %ld, patterns %ld %ld)\n", c, c / 81 % MODULUS_KINDS, c % 9, c / 9 % 9);
        }
        printf("host: %ld cases, %ld wrong, %ld bound failures\n", n, bad, host_bound_failures);
        return bad != 0 || host_bound_failures != 0;
    }
    const size_t count = argc > 2 ? strtoull(argv[2], NULL, 0) : (1u << 22);
    const int reps = argc > 3 ? atoi(argv[3]) : 5;
    const size_t every_short = argc > 4 ? strtoull(argv[4], NULL, 0) : 0;   /* an instance in so many: m < 2^1000 */
    std::vector<u32> ha(count * WORDS), hb(count * WORDS), hm(count * WORDS), hr(count * WORDS);
    u32 *da, *db, *dm, *dr;
    cudaMalloc(&da, count * WORDS * 4);
    cudaMalloc(&db, count * WORDS * 4);
    cudaMalloc(&dm, count * WORDS * 4);
    cudaMalloc(&dr, count * WORDS * 4);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    /* the first MODULUS_KINDS * 81 instances every modulus kind and pair of patterns, the others random 1024-bit odd
     * moduli (or where every_short, one in so many a random modulus below 2^1000) */
    for (size_t i = 0; i < count; i++) {
        if (i < 81 * MODULUS_KINDS || (every_short && i % every_short == 0)) {
            make_case(i < 81 * MODULUS_KINDS ? i : 81 * 13 + i % 81, &ha[i * WORDS], &hb[i * WORDS], &hm[i * WORDS], m, x);
        } else {
            for (int j = 0; j < WORDS; j++) {
                ha[i * WORDS + j] = rnd();
                hb[i * WORDS + j] = rnd();
                hm[i * WORDS + j] = rnd();
            }
            hm[i * WORDS + WORDS - 1] |= 0x80000000u;
            hm[i * WORDS] |= 1;
        }
    }
    cudaMemcpy(da, ha.data(), count * WORDS * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb.data(), count * WORDS * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dm, hm.data(), count * WORDS * 4, cudaMemcpyHostToDevice);
    const unsigned blocks = (unsigned)((count + 127) / 128);
    std::vector<float> ms;
    for (int r = 0; r <= reps; r++) {
        cudaMemset(dr, 0, count * WORDS * 4);
        cudaEventRecord(e0);
        mulmod_kernel<<<blocks, 128>>>(dr, da, db, dm, count);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float t;
        cudaEventElapsedTime(&t, e0, e1);
        if (r)
            ms.push_back(t);
    }
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        printf("cuda error %s\n", cudaGetErrorString(err));
        return 2;
    }
    cudaMemcpy(hr.data(), dr, count * WORDS * 4, cudaMemcpyDeviceToHost);
    long bad = 0, checked = 0;
    for (size_t i = 0; i < count; i += (i < 8192 ? 1 : 997)) {
        checked++;
        if (!check(&hr[i * WORDS], &ha[i * WORDS], &hb[i * WORDS], &hm[i * WORDS]) && bad++ < 5)
            printf("gpu FAIL instance %zu\n", i);
    }
    std::sort(ms.begin(), ms.end());
    printf("school_f49 1024 bits, short moduli one in %zu: %zu instances, median %.4f ms (min %.4f): %.1f M/s\n", every_short, count, ms[ms.size() / 2],
           ms[0], count / ms[ms.size() / 2] / 1e3);
    printf("gpu: %ld checked, %ld wrong\n", checked, bad);
    return bad != 0;
}
