// fp64_powm.cu — spike: batched powm with Montgomery products in radix 2^52 on the FP64 pipe, an instance on L lanes
// of D limbs each; checked against GMP, timed against the IMAD kernels (not project code: a measurement).
//
// A limb product a b (a, b < 2^52, doubles) is split exactly by two FMAs: h = fma_rd(a, b, 2^104) holds
// floor(a b / 2^52) in its mantissa, l = fma(a, b, 2^104 + 2^52 - h) holds (a b mod 2^52) + 2^52. Their bit patterns
// are 0x467.. + floor and 0x433.. + low, so columns are summed as 64-bit integers of the raw patterns; the patterns'
// exponent fields are multiples of 2^52 and drop out of every column mod 2^52 and are subtracted from its carry
// (a count known per row).
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <random>
#include <gmp.h>
#include <cuda_runtime.h>
#ifdef MINB
#define LB __launch_bounds__(128, MINB)
#else
#define LB __launch_bounds__(128)
#endif
typedef unsigned long long u64;
typedef uint32_t u32;
#define FULL 0xffffffffu
#define MASK52 0xFFFFFFFFFFFFFull
#define OFF_PAIR 0x134u    /* 2 (0x433 + 0x467) mod 2^12: one row's two low and two high patterns in a column */
#define OFF_LO2 0x866u     /* 2 x 0x433: the two low patterns of a column's last row */
#define OFF_HI2 0x8ceu     /* 2 x 0x467: the two high patterns of a column's first row */

__device__ __forceinline__ double limb_to_d(u64 x) { return __longlong_as_double(x | 0x4330000000000000ull) - 0x1p52; }

/* R := A B / 2^(52 N) mod M, loose (below 2M for A, B below 2M, since 4M < 2^(52N)); N = L D limbs, lane k holds
   limbs kD .. kD + D - 1 of each. Rows in L steps of D: step s broadcasts lane s's limbs of B. */
template <int L, int D>
__device__ __forceinline__ void montmul(double *R, const double *A, const double *B, const double *M, u64 minv,
                                        int base, int lane)
{
    u64 W[2 * D];
#pragma unroll
    for (int j = 0; j < 2 * D; j++) W[j] = 0;
    u64 c0 = 0;
    const double C104 = 0x1p104, C104_52 = 0x1p104 + 0x1p52;
    const int up = base + ((lane + 1) & (L - 1));
#pragma unroll 1
    for (int s = 0; s < L; s++) {
        const u32 off_s = (u32)(s * D) * OFF_PAIR + OFF_LO2;
#pragma unroll
        for (int r = 0; r < D; r++) {
            const double b = L == 1 ? B[r] : __shfl_sync(FULL, B[r], base + s);
            double hA[D], lA[D], hM[D], lM[D];
#pragma unroll
            for (int j = 0; j < D; j++) {
                hA[j] = __fma_rd(A[j], b, C104);
                lA[j] = fma(A[j], b, C104_52 - hA[j]);
            }
            /* column r first: lane 0's quotient limb needs it (c0 is zero on the other lanes) */
            const u64 t = W[r] + (u64)__double_as_longlong(lA[0]) + c0;
            const u64 q = ((t & MASK52) * minv) & MASK52;
            double qd = limb_to_d(q);
            if (L > 1) qd = __shfl_sync(FULL, qd, base);
            /* the other columns' products of A: two patterns an add, while the quotient limb is on its way */
#pragma unroll
            for (int j = 1; j < D; j++)
                W[r + j] += (u64)__double_as_longlong(lA[j]) + (u64)__double_as_longlong(hA[j - 1]);
#pragma unroll
            for (int j = 0; j < D; j++) {
                hM[j] = __fma_rd(M[j], qd, C104);
                lM[j] = fma(M[j], qd, C104_52 - hM[j]);
            }
            W[r] = t + (u64)__double_as_longlong(lM[0]);   /* lane 0: a multiple of 2^52 now */
#pragma unroll
            for (int j = 1; j < D; j++)
                W[r + j] += (u64)__double_as_longlong(lM[j]) + (u64)__double_as_longlong(hM[j - 1]);
            W[r + D] += (u64)__double_as_longlong(hA[D - 1]) + (u64)__double_as_longlong(hM[D - 1]);
            c0 = lane == 0 ? ((W[r] >> 52) - (off_s + (u32)r * OFF_PAIR)) & 0xfffu : 0;
        }
        u64 Rv[D];
#pragma unroll
        for (int j = 0; j < D; j++) Rv[j] = L == 1 ? 0 : __shfl_sync(FULL, W[j], up);
        W[D] += lane == 0 ? c0 : 0;
        c0 = 0;
#pragma unroll
        for (int j = 0; j < D; j++) W[j] = W[j + D] + (lane == L - 1 ? 0 : Rv[j]);
#pragma unroll
        for (int j = D; j < 2 * D; j++) W[j] = 0;
    }
    /* columns N + kD + j: normalize into limbs; the carry out of a lane rarely ripples past the next one's first */
    constexpr int N = L * D;
    u64 limb[D], carry = 0;
#pragma unroll
    for (int j = 0; j < D; j++) {
        const u32 c = N + lane * D + j;
        const u32 off = (OFF_HI2 + OFF_PAIR * (u32)(2 * N - 1 - c)) & 0xfffu;
        const u64 v = W[j] + carry;
        limb[j] = v & MASK52;
        carry = ((v >> 52) - off) & 0xfffu;
    }
    if (L > 1) {
        u64 cin = __shfl_sync(FULL, carry, base + ((lane + L - 1) & (L - 1)));
        cin = lane == 0 ? 0 : cin;
        while (__any_sync(FULL, cin != 0)) {
#pragma unroll
            for (int j = 0; j < D; j++) {
                const u64 v = limb[j] + cin;
                limb[j] = v & MASK52;
                cin = v >> 52;
            }
            cin = __shfl_sync(FULL, cin, base + ((lane + L - 1) & (L - 1)));
            cin = lane == 0 ? 0 : cin;
        }
    }
#pragma unroll
    for (int j = 0; j < D; j++) R[j] = limb_to_d(limb[j]);
}

/* limb g (bits 52g .. 52g + 51) of the n-word number x */
__device__ __forceinline__ u64 limb_of(const u32 *x, int n, int g, bool live)
{
    const int bit = 52 * g, w = bit >> 5, sh = bit & 31;
    auto word = [&](int k) -> u64 { return live && k < n ? x[k] : 0u; };
    u64 v = (word(w) | (word(w + 1) << 32)) >> sh;
    if (sh > 12) v |= word(w + 2) << (64 - sh);
    return v & MASK52;
}

template <int L, int D>
__global__ void LB powm_fp64(const u32 *gb, const u32 *ge, const u32 *gm, const u32 *gr2, u32 *out,
                                                  int n, int ew, int count)
{
    constexpr int N = L * D;
    __shared__ u64 stage[128 / L][N];
    const int t = threadIdx.x, lane = t & (L - 1), base = (t & 31) & ~(L - 1), slot = t / L;
    const long inst_ = (long)blockIdx.x * (128 / L) + slot;
    const bool live = inst_ < count;
    const long inst = live ? inst_ : 0;
    double X[D], M[D], Y[D], R2[D], one[D], T[D];
    double tab[16][D];
    u64 m0 = 0;
#pragma unroll
    for (int j = 0; j < D; j++) {
        const int g = lane * D + j;
        const u64 mv = limb_of(gm + inst * n, n, g, live);
        if (j == 0) m0 = mv;
        M[j] = limb_to_d(live ? mv : (g == 0 ? 1 : 0));   /* a missing instance computes modulo 1 */
        X[j] = limb_to_d(limb_of(gb + inst * n, n, g, live));
        R2[j] = limb_to_d(limb_of(gr2 + inst * n, n, g, live));
        one[j] = (lane == 0 && j == 0) ? 1.0 : 0.0;
    }
    if (!live) m0 = 1;
    m0 = L == 1 ? m0 : __shfl_sync(FULL, m0, base);
    u64 x = m0;   /* m0^-1 mod 2^52 by Newton's iteration (3 bits -> 96) */
    for (int k = 0; k < 5; k++) x *= 2 - m0 * x;
    const u64 minv = (0 - x) & MASK52;
    montmul<L, D>(Y, R2, one, M, minv, base, lane);     /* R mod M: Montgomery's one */
    montmul<L, D>(X, X, R2, M, minv, base, lane);       /* base R mod M */
#pragma unroll
    for (int j = 0; j < D; j++) { tab[0][j] = Y[j]; tab[1][j] = X[j]; T[j] = X[j]; }
#pragma unroll 1
    for (int k = 2; k < 16; k++) {
        montmul<L, D>(T, T, X, M, minv, base, lane);
#pragma unroll
        for (int j = 0; j < D; j++) tab[k][j] = T[j];
    }
    const u32 *e = ge + inst * ew;
#pragma unroll 1
    for (int w = 8 * ew; w-- > 0;) {
        const u32 nib = (e[w >> 3] >> ((w & 7) * 4)) & 15u;
#pragma unroll 1
        for (int k = 0; k < 5; k++) {
#pragma unroll
            for (int j = 0; j < D; j++) T[j] = k < 4 ? Y[j] : tab[nib][j];
            montmul<L, D>(Y, Y, T, M, minv, base, lane);
        }
    }
    montmul<L, D>(Y, Y, one, M, minv, base, lane);      /* out of Montgomery form: in [0, M] */
    /* Y = M only when the base is 0 mod M: then 0 */
    bool eq = true;
#pragma unroll
    for (int j = 0; j < D; j++) eq = eq && Y[j] == M[j];
    const unsigned all = __ballot_sync(FULL, eq);
    const unsigned mine = (L == 32 ? FULL : ((1u << L) - 1)) << base;
    const bool zero = (all & mine) == mine;
#pragma unroll
    for (int j = 0; j < D; j++) stage[slot][lane * D + j] = zero ? 0 : (u64)Y[j];
    __syncwarp();
    if (live) {
        for (int k = lane; k < n; k += L) {
            const int bit = 32 * k, g = bit / 52, sh = bit % 52;
            u64 v = stage[slot][g] >> sh;
            if (sh > 20 && g + 1 < N) v |= stage[slot][g + 1] << (52 - sh);
            out[inst * n + k] = (u32)v;
        }
    }
}

static void to_words(const mpz_t z, u32 *w, int n) { memset(w, 0, 4 * n); size_t c; mpz_export(w, &c, -1, 4, 0, 0, z); }

template <int L, int D>
static void run(int bits, int count, int ebits, int reps)
{
    const int n = bits / 32, ew = ebits / 32, N = L * D;
    if (52 * N < bits + 2) { printf("bad shape\n"); return; }
    std::mt19937_64 rng(bits * 7919 + count);
    std::vector<u32> b((size_t)count * n), e((size_t)count * ew), m((size_t)count * n), r2((size_t)count * n),
        o((size_t)count * n);
    mpz_t M, R2, X;
    mpz_inits(M, R2, X, NULL);
    for (long i = 0; i < count; i++) {
        u32 *mi = &m[i * n];
        for (int k = 0; k < n; k++) mi[k] = (u32)rng();
        mi[0] |= 1u; mi[n - 1] |= 0x80000000u;
        if (i % 97 == 5) for (int k = 0; k < n; k++) mi[k] = 0xffffffffu;   /* the largest odd modulus */
        for (int k = 0; k < n; k++) b[i * n + k] = (u32)rng();
        b[i * n + n - 1] &= 0x7fffffffu;
        if (i % 89 == 3) for (int k = 0; k < n; k++) b[i * n + k] = 0;       /* base 0 */
        if (i % 83 == 4) memcpy(&b[i * n], mi, 4 * n), b[i * n] -= 1;        /* base m - 1 */
        for (int k = 0; k < ew; k++) e[i * ew + k] = (u32)rng();
        if (i % 79 == 6) for (int k = 0; k < ew; k++) e[i * ew + k] = 0xffffffffu;
        if (i % 73 == 7) for (int k = 0; k < ew; k++) e[i * ew + k] = 0;
        mpz_import(M, n, -1, 4, 0, 0, mi);
        mpz_set_ui(R2, 1); mpz_mul_2exp(R2, R2, 2 * 52 * N); mpz_mod(R2, R2, M);
        to_words(R2, &r2[i * n], n);
    }
    u32 *db, *de, *dm, *dr, *dout;
    cudaMalloc(&db, 4 * b.size()); cudaMalloc(&de, 4 * e.size()); cudaMalloc(&dm, 4 * m.size());
    cudaMalloc(&dr, 4 * r2.size()); cudaMalloc(&dout, 4 * o.size());
    cudaMemcpy(db, b.data(), 4 * b.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(de, e.data(), 4 * e.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dm, m.data(), 4 * m.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dr, r2.data(), 4 * r2.size(), cudaMemcpyHostToDevice);
    const int per = 128 / L, blocks = (count + per - 1) / per;
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    powm_fp64<L, D><<<blocks, 128>>>(db, de, dm, dr, dout, n, ew, count);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) { printf("cuda error %s\n", cudaGetErrorString(err)); exit(1); }
    float best = 1e30f;
    for (int r = 0; r < reps; r++) {
        cudaEventRecord(e0);
        powm_fp64<L, D><<<blocks, 128>>>(db, de, dm, dr, dout, n, ew, count);
        cudaEventRecord(e1); cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms < best) best = ms;
    }
    cudaMemcpy(o.data(), dout, 4 * o.size(), cudaMemcpyDeviceToHost);
    long bad = 0, checked = 0;
    mpz_t B, E, Z; mpz_inits(B, E, Z, NULL);
    std::vector<u32> want(n);
    for (long i = 0; i < count; i++) {
        if (!(i < 3000 || i >= count - 500 || i % 61 == 0)) continue;
        mpz_import(B, n, -1, 4, 0, 0, &b[i * n]); mpz_import(E, ew, -1, 4, 0, 0, &e[i * ew]);
        mpz_import(M, n, -1, 4, 0, 0, &m[i * n]);
        mpz_powm(Z, B, E, M); to_words(Z, want.data(), n);
        checked++;
        if (memcmp(want.data(), &o[i * n], 4 * n)) { if (bad < 3) printf("  mismatch at %ld\n", i); bad++; }
    }
    printf("fp64 powm %5d bits L%-2d D%-2d count %8d ebits %4d: %9.3f ms  %8.4f M/s  checked %ld bad %ld\n", bits,
           L, D, count, ebits, best, count / best / 1e3, checked, bad);
    cudaFree(db); cudaFree(de); cudaFree(dm); cudaFree(dr); cudaFree(dout);
}

int main(int argc, char **argv)
{
    const int scale = argc > 1 ? atoi(argv[1]) : 1;
    run<2, 5>(512, 262144 * scale, 512, 3);
    run<1, 10>(512, 262144 * scale, 512, 3);
    run<4, 5>(1024, 65536 * scale, 512, 3);
    run<2, 10>(1024, 65536 * scale, 512, 3);
    run<8, 5>(2048, 16384 * scale, 512, 3);
    run<4, 10>(2048, 16384 * scale, 512, 3);
    run<16, 5>(4096, 4096 * scale, 512, 3);
    run<8, 10>(4096, 4096 * scale, 512, 3);
    return 0;
}
