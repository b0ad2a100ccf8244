/* barrett_f64.cu — spike (not the library): a * b mod m for a modulus shared by the batch at 1024 bits, by Barrett's
 * reduction with every limb product on the FP64 pipe (52-bit limbs in doubles, each product split exactly by two
 * FMAs as in templates/lib_modlanes_f52.j2), a thread per instance, the modulus and its reciprocal passed by value in
 * the kernel's parameters (constant bank operands). Question: can a shared-modulus mulmod reach issue 24's mark of 55%
 * of midint mul's rate at 1024 bits? Barrett takes about 880 limb products against a Montgomery pair's 1600.
 *
 * Barrett (Menezes et al., Handbook of Applied Cryptography, 14.42) in radix beta = 2^52 with k = 20 limbs (m of
 * exactly 1024 bits: beta^19 <= m < beta^20): x = a b < beta^40, mu = floor(beta^40 / m) (21 limbs), q1 = floor(x /
 * beta^19), q3 = floor(q1 mu / beta^21) from the columns of q1 mu from 19 up only (the dropped ones are below 19 beta^20
 * in all, so q3 is the full product's or one less: q - 3 <= q3 <= q), r = (x - q3 m) mod beta^21 (< 4m), then m
 * subtracted where it fits, three times.
 *
 * A limb product a b (a, b < 2^52) is h = fma_rd(a, b, 2^104) (2^104 + floor(ab / 2^52) 2^52) and l = fma(a, b, 2^104 +
 * 2^52 - h) ((ab mod 2^52) + 2^52); their raw bit patterns are 0x467 2^52 + floor and 0x433 2^52 + low, so a column is
 * the 64-bit sum of patterns less a constant per column (the counts are compile-time after unrolling).
 *
 * Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o barrett_f64 barrett_f64.cu libgmp.a, with
 * -DT_LO_SMEM -DLOW_STRIDE=128 (the product's low limbs in shared memory), -DMINB=b (launch bounds) and -DPAIRS (two
 * patterns an add; -DPAIRS4 in two chains of pairs) and -DCONST_GLOBAL (the modulus's constants read from device memory, not the parameters) as tried.
 * Run: ./barrett_f64 host N (the same arithmetic on the host with 128-bit integers, N cases against GMP) or
 *      ./barrett_f64 gpu COUNT REPS (device: every instance's result checked for a sample, all for the edges). */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <gmp.h>
#include <cuda_runtime.h>

typedef uint32_t u32;
typedef unsigned long long u64;

#define K 20   /* limbs of m */
#define KP 21  /* k + 1 */
#define WORDS 32
#define MASK52 0xfffffffffffffull
#define LO_EXP 0x433ull
#define HI_EXP 0x467ull

struct ModConst {
    double m[K];
    double mu[KP];
};

__host__ __device__ inline void split(double a, double b, u64 &hp, u64 &lp)
{
#ifdef __CUDA_ARCH__
    const double h = __fma_rd(a, b, 20282409603651670423947251286016.0);          /* 2^104 */
    const double l = fma(a, b, 20282409603651674927546878656512.0 - h);           /* 2^104 + 2^52 */
    hp = (u64)__double_as_longlong(h);
    lp = (u64)__double_as_longlong(l);
#else
    const unsigned __int128 p = (unsigned __int128)(u64)a * (u64)b;
    hp = (HI_EXP << 52) | (u64)(p >> 52);
    lp = (LO_EXP << 52) | ((u64)p & MASK52);
#endif
}

__host__ __device__ inline double dbl(u64 x)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)(x | 0x4330000000000000ull)) - 4503599627370496.0;
#else
    return (double)x;
#endif
}

/* Where a column's limb goes: out[c - C0], or for c below `low` low[c * LOW_STRIDE] (the thread's slot in shared
 * memory, T_LO_SMEM: the product's low limbs wait there for the remainder, out of the registers) */
#ifndef LOW_STRIDE
#define LOW_STRIDE 1
#endif
struct Sink {
    u64 *out, *low;
    int c0, below;
    __host__ __device__ void put(int c, u64 v) const
    {
        if (c < below)
            low[c * LOW_STRIDE] = v;
        else
            out[c - c0] = v;
    }
};

/* Columns [C0, C1] of X (NX limbs) times Y (NY limbs) into the sink (52-bit limbs, a carry from the column below C0
 * dropped), the carry above C1 returned. Two accumulators a column so that the adds form two chains. */
template <int NX, int NY, int C0, int C1>
__host__ __device__ inline u64 columns(const Sink &out, const double *X, const double *Y)
{
    u64 carry = 0, hi_prev = 0;
    int nhi_prev = 0;
#pragma unroll
    for (int c = C0; c <= C1; c++) {
        int n = 0;
#ifdef PAIRS
        /* two patterns an add: each 64-bit add of three inputs is IADD3 and IADD3.X */
        u64 lo = 0, hi = 0, lp0 = 0, hp0 = 0;
#ifdef PAIRS4
        u64 lo2 = 0, hi2 = 0;
#endif
#pragma unroll
        for (int i = 0; i < NX; i++) {
            const int j = c - i;
            if (j < 0 || j >= NY)
                continue;
            u64 hp, lp;
            split(X[i], Y[j], hp, lp);
            if (n & 1) {
#ifdef PAIRS4
                if (n & 2) {   /* every other pair into a second pair of chains */
                    lo2 += lp0 + lp;
                    hi2 += hp0 + hp;
                } else
#endif
                {
                    lo += lp0 + lp;
                    hi += hp0 + hp;
                }
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
#ifdef PAIRS4
        lo += lo2;
        hi += hi2;
#endif
#else
        u64 lo0 = 0, lo1 = 0, hi0 = 0, hi1 = 0;
#pragma unroll
        for (int i = 0; i < NX; i++) {
            const int j = c - i;
            if (j < 0 || j >= NY)
                continue;
            u64 hp, lp;
            split(X[i], Y[j], hp, lp);
            if (n & 1) {
                lo1 += lp;
                hi1 += hp;
            } else {
                lo0 += lp;
                hi0 += hp;
            }
            n++;
        }
        const u64 lo = lo0 + lo1, hi = hi0 + hi1;
#endif
        const u64 v = lo + hi_prev + carry - (((u64)n * LO_EXP + (u64)nhi_prev * HI_EXP) << 52);
        out.put(c, v & MASK52);
        carry = v >> 52;
        hi_prev = hi;
        nhi_prev = n;
    }
    return hi_prev + carry - (((u64)nhi_prev * HI_EXP) << 52);
}

/* 32 words -> 20 limbs of 52 bits */
__host__ __device__ inline void to_limbs(double *L, const u32 *w)
{
#pragma unroll
    for (int i = 0; i < K; i++) {
        const int bit = 52 * i, w0 = bit >> 5, sh = bit & 31;
        const u64 x0 = w0 < WORDS ? w[w0] : 0, x1 = w0 + 1 < WORDS ? w[w0 + 1] : 0, x2 = w0 + 2 < WORDS ? w[w0 + 2] : 0;
        u64 v = (x0 | (x1 << 32)) >> sh;
        if (sh > 12)
            v |= x2 << (64 - sh);
        L[i] = dbl(v & MASK52);
    }
}

/* r (20 limbs, below 2^1024) -> 32 words */
__host__ __device__ inline void to_words(u32 *w, const u64 *r)
{
#pragma unroll
    for (int j = 0; j < WORDS; j++) {
        const int bit = 32 * j, g = bit / 52, sh = bit % 52;
        u64 v = r[g] >> sh;
        if (sh > 20 && g + 1 < K)
            v |= r[g + 1] << (52 - sh);
        w[j] = (u32)v;
    }
}

/* tlo: KP words at a stride of LOW_STRIDE for the product's low limbs where T_LO_SMEM (else unused) */
__host__ __device__ inline void mulmod(u32 *out, const u32 *aw, const u32 *bw, const ModConst &mc, u64 *tlo)
{
    double A[K], B[K];
    to_limbs(A, aw);
    to_limbs(B, bw);
    u64 T[2 * K];
#ifdef T_LO_SMEM
    const int low = K - 1;   /* T[0 .. 18] to shared memory; 19 and 20 are in q1 and in the remainder */
#else
    const int low = 0;
    (void)tlo;
#endif
    columns<K, K, 0, 2 * K - 1>(Sink{T, tlo, 0, low}, A, B); /* x < 2^2048: nothing above column 39 */
#ifdef T_LO_SMEM
#pragma unroll
    for (int i = 0; i < K - 1; i++)
        T[i] = 0;   /* unused: the remainder reads tlo */
#endif
    double Q1[KP];
#pragma unroll
    for (int i = 0; i < KP; i++)
        Q1[i] = dbl(T[K - 1 + i]);
    /* q1 mu's columns 19 .. 40 and the carry above: q3 = columns 21 .. 41 */
    u64 Q2[2 * KP - K];
    const u64 top = columns<KP, KP, K - 1, 2 * KP - 2>(Sink{Q2, NULL, K - 1, 0}, Q1, mc.mu);
    double Q3[KP];
#pragma unroll
    for (int i = 0; i < KP - 1; i++)
        Q3[i] = dbl(Q2[2 + i]);
    Q3[KP - 1] = dbl(top & MASK52);
    /* r = (x - q3 m) mod beta^21 */
    u64 R2[KP];
    columns<KP, K, 0, KP - 1>(Sink{R2, NULL, 0, 0}, Q3, mc.m);
    u64 R[KP];
    long long borrow = 0;
#pragma unroll
    for (int i = 0; i < KP; i++) {
        const u64 t = i < low ? tlo[i * LOW_STRIDE] : T[i];
        const long long v = (long long)t - (long long)R2[i] + borrow;
        R[i] = (u64)v & MASK52;
        borrow = v >> 52;
    }
    /* below 4m: m off where it fits, three times */
    u64 M[K];
#pragma unroll
    for (int i = 0; i < K; i++)
#ifdef __CUDA_ARCH__
        M[i] = (u64)__double_as_longlong(mc.m[i] + 4503599627370496.0) & MASK52;
#else
        M[i] = (u64)mc.m[i];
#endif
#pragma unroll
    for (int round = 0; round < 3; round++) {
        u64 D[KP];
        long long bo = 0;
#pragma unroll
        for (int i = 0; i < KP; i++) {
            const long long v = (long long)R[i] - (long long)(i < K ? M[i] : 0) + bo;
            D[i] = (u64)v & MASK52;
            bo = v >> 52;
        }
        const u64 keep = bo ? ~0ull : 0ull; /* borrowed: r < m, keep r */
#pragma unroll
        for (int i = 0; i < KP; i++)
            R[i] = (R[i] & keep) | (D[i] & ~keep);
    }
    to_words(out, R);
}

#ifndef MINB
#define MINB 1
#endif
#ifdef CONST_GLOBAL
/* the constants in device memory (a modulus object's buffer), read where used */
__global__ void __launch_bounds__(128, MINB) mulmod_kernel(u32 *r, const u32 *a, const u32 *b, size_t count,
                                                           const ModConst *__restrict__ mcp)
{
    const ModConst &mc = *mcp;
#else
__global__ void __launch_bounds__(128, MINB) mulmod_kernel(u32 *r, const u32 *a, const u32 *b, size_t count,
                                                           const ModConst mc)
{
#endif
    const size_t i = (size_t)blockIdx.x * 128 + threadIdx.x;
    if (i >= count)
        return;
    u32 aw[WORDS], bw[WORDS], ow[WORDS];
    const uint4 *pa = (const uint4 *)(a + i * WORDS), *pb = (const uint4 *)(b + i * WORDS);
#pragma unroll
    for (int j = 0; j < WORDS / 4; j++) {
        const uint4 x = pa[j], y = pb[j];
        aw[4 * j] = x.x, aw[4 * j + 1] = x.y, aw[4 * j + 2] = x.z, aw[4 * j + 3] = x.w;
        bw[4 * j] = y.x, bw[4 * j + 1] = y.y, bw[4 * j + 2] = y.z, bw[4 * j + 3] = y.w;
    }
#ifdef T_LO_SMEM
    __shared__ u64 tlo[(K - 1) * 128];
    mulmod(ow, aw, bw, mc, tlo + threadIdx.x);
#else
    mulmod(ow, aw, bw, mc, NULL);
#endif
    uint4 *pr = (uint4 *)(r + i * WORDS);
#pragma unroll
    for (int j = 0; j < WORDS / 4; j++)
        pr[j] = make_uint4(ow[4 * j], ow[4 * j + 1], ow[4 * j + 2], ow[4 * j + 3]);
}

/* ---------- host: the modulus's constants, inputs, the check against GMP ---------- */

static void limbs_of(double *L, int n, const mpz_t x)
{
    for (int i = 0; i < n; i++) {
        mpz_t t;
        mpz_init(t);
        mpz_fdiv_q_2exp(t, x, 52 * i);
        mpz_fdiv_r_2exp(t, t, 52);
        L[i] = (double)mpz_get_ui(t);
        mpz_clear(t);
    }
}

static ModConst make_const(const mpz_t m)
{
    ModConst mc;
    mpz_t mu;
    mpz_init(mu);
    mpz_setbit(mu, 52 * 2 * K);
    mpz_fdiv_q(mu, mu, m);
    limbs_of(mc.m, K, m);
    limbs_of(mc.mu, KP, mu);
    mpz_clear(mu);
    return mc;
}

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

/* operand patterns: random, zero, max, m - 1, one, single bits, all-ones runs */
static void operand(mpz_t x, int pattern, const mpz_t m)
{
    u32 w[WORDS];
    switch (pattern % 7) {
    case 0: for (int j = 0; j < WORDS; j++) w[j] = rnd(); mpz_import(x, WORDS, -1, 4, 0, 0, w); break;
    case 1: mpz_set_ui(x, 0); break;
    case 2: mpz_set_ui(x, 0); mpz_setbit(x, 1024); mpz_sub_ui(x, x, 1); break;
    case 3: mpz_sub_ui(x, m, 1); break;
    case 4: mpz_set_ui(x, 1); break;
    case 5: mpz_set_ui(x, 0); mpz_setbit(x, rnd() % 1024); break;
    default: { unsigned lo = rnd() % 1024, len = rnd() % (1024 - lo) + 1;
        mpz_set_ui(x, 0); mpz_setbit(x, lo + len); mpz_sub_ui(x, x, 1); mpz_fdiv_q_2exp(x, x, lo); mpz_mul_2exp(x, x, lo); }
    }
}

/* moduli of exactly 1024 bits: random, 2^1024 - 1, 2^1023 + 1, 2^1023 (even: Barrett takes any), 2^1023 + 2^1022 - 1 */
static void modulus(mpz_t m, int which)
{
    u32 w[WORDS];
    switch (which % 5) {
    case 0: for (int j = 0; j < WORDS; j++) w[j] = rnd(); w[WORDS - 1] |= 0x80000000u; mpz_import(m, WORDS, -1, 4, 0, 0, w); break;
    case 1: mpz_set_ui(m, 0); mpz_setbit(m, 1024); mpz_sub_ui(m, m, 1); break;
    case 2: mpz_set_ui(m, 1); mpz_setbit(m, 1023); break;
    case 3: mpz_set_ui(m, 0); mpz_setbit(m, 1023); break;
    default: mpz_set_ui(m, 0); mpz_setbit(m, 1023); mpz_setbit(m, 1022); mpz_sub_ui(m, m, 1); break;
    }
}

static int check(const u32 *got, const u32 *aw, const u32 *bw, const mpz_t m)
{
    mpz_t a, b, r, g;
    mpz_inits(a, b, r, g, NULL);
    mpz_import(a, WORDS, -1, 4, 0, 0, aw);
    mpz_import(b, WORDS, -1, 4, 0, 0, bw);
    mpz_import(g, WORDS, -1, 4, 0, 0, got);
    mpz_mul(r, a, b);
    mpz_mod(r, r, m);
    const int ok = mpz_cmp(r, g) == 0;
    mpz_clears(a, b, r, g, NULL);
    return ok;
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
            modulus(m, (int)(c / 7 / 7 % 5));
            const ModConst mc = make_const(m);
            u32 aw[WORDS], bw[WORDS], ow[WORDS];
            operand(x, (int)(c % 7), m); words_of(aw, x);
            operand(x, (int)(c / 7 % 7), m); words_of(bw, x);
            u64 tlo[K];
            mulmod(ow, aw, bw, mc, tlo);
            if (!check(ow, aw, bw, m) && bad++ < 5)
                printf("host FAIL case %ld (modulus %ld, patterns %ld %ld)\n", c, c / 49 % 5, c % 7, c / 7 % 7);
        }
        printf("host: %ld cases, %ld wrong\n", n, bad);
        return bad != 0;
    }
    const size_t count = argc > 2 ? strtoull(argv[2], NULL, 0) : (1u << 22);
    const int reps = argc > 3 ? atoi(argv[3]) : 5;
    std::vector<u32> ha(count * WORDS), hb(count * WORDS), hr(count * WORDS);
    u32 *da, *db, *dr;
    cudaMalloc(&da, count * WORDS * 4);
    cudaMalloc(&db, count * WORDS * 4);
    cudaMalloc(&dr, count * WORDS * 4);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    long bad = 0, checked = 0;
    for (int which = 0; which < 5; which++) {
        modulus(m, which);
        const ModConst mc = make_const(m);
        for (size_t i = 0; i < count; i++) {
            /* the first 49 * 4 instances every pair of patterns, the others random words */
            if (i < 196) {
                operand(x, (int)(i % 7), m); words_of(&ha[i * WORDS], x);
                operand(x, (int)(i / 7 % 7), m); words_of(&hb[i * WORDS], x);
            } else {
                for (int j = 0; j < WORDS; j++) {
                    ha[i * WORDS + j] = rnd();
                    hb[i * WORDS + j] = rnd();
                }
            }
        }
        cudaMemcpy(da, ha.data(), count * WORDS * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(db, hb.data(), count * WORDS * 4, cudaMemcpyHostToDevice);
        const unsigned blocks = (unsigned)((count + 127) / 128);
#ifdef CONST_GLOBAL
        ModConst *dmc;
        cudaMalloc(&dmc, sizeof mc);
        cudaMemcpy(dmc, &mc, sizeof mc, cudaMemcpyHostToDevice);
#define MC_ARG dmc
#else
#define MC_ARG mc
#endif
        std::vector<float> ms;
        for (int r = 0; r <= reps; r++) {
            cudaMemset(dr, 0, count * WORDS * 4);
            cudaEventRecord(e0);
            mulmod_kernel<<<blocks, 128>>>(dr, da, db, count, MC_ARG);
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
        for (size_t i = 0; i < count; i += (i < 4096 ? 1 : 997)) {
            checked++;
            if (!check(&hr[i * WORDS], &ha[i * WORDS], &hb[i * WORDS], m) && bad++ < 5)
                printf("gpu FAIL modulus %d instance %zu\n", which, i);
        }
        std::sort(ms.begin(), ms.end());
        printf("barrett_f64 1024 bits, modulus %d: %zu instances, median %.4f ms (min %.4f): %.1f M/s\n", which, count,
               ms[ms.size() / 2], ms[0], count / ms[ms.size() / 2] / 1e3);
    }
    printf("gpu: %ld checked, %ld wrong\n", checked, bad);
    return bad != 0;
}
