// pipes4.cu — which part of the FP64 split is slow: fma_rd against fma (round to nearest), the add, the chain; each
// kernel runs K independent products a[k] b per iteration with a fresh b, 16 warps an SM (not project code).
#include <cstdio>
#include <cuda_runtime.h>
typedef unsigned long long u64;
#define K 8
#define ITERS 2048
#define C104 0x1p104
#define C104_52 (0x1p104 + 0x1p52)
__device__ __forceinline__ u64 bits(double x) { return (u64)__double_as_longlong(x); }
__device__ __forceinline__ double next(double x) { return __longlong_as_double((long long)(bits(x) + 0x10ull)); }

#define KERNEL(name, BODY)                                                                                        \
  __global__ void name(u64 *out, double y) {                                                                      \
    double a[K]; u64 acc[K];                                                                                      \
    for (int k = 0; k < K; k++) { a[k] = y * (k + 3); acc[k] = 0; }                                               \
    double b = y + threadIdx.x;                                                                                   \
    for (int i = 0; i < ITERS; i++) {                                                                             \
      _Pragma("unroll") for (int k = 0; k < K; k++) { BODY }                                                      \
      b = next(b);                                                                                                \
    }                                                                                                             \
    u64 s = 0; for (int k = 0; k < K; k++) s += acc[k]; out[blockIdx.x * blockDim.x + threadIdx.x] = s;          \
  }
KERNEL(rd1, acc[k] ^= bits(__fma_rd(a[k], b, C104));)
KERNEL(rn1, acc[k] ^= bits(fma(a[k], b, C104));)
KERNEL(mul1, acc[k] ^= bits(a[k] * b);)
KERNEL(rd_add, const double h = __fma_rd(a[k], b, C104); acc[k] ^= bits(C104_52 - h);)
KERNEL(split_rd, const double h = __fma_rd(a[k], b, C104); acc[k] ^= bits(h) ^ bits(fma(a[k], b, C104_52 - h));)
KERNEL(split_rn, const double h = fma(a[k], b, C104); acc[k] ^= bits(h) ^ bits(fma(a[k], b, C104_52 - h));)
KERNEL(two_rn, acc[k] ^= bits(fma(a[k], b, C104)) ^ bits(fma(a[k], b, C104_52));)
KERNEL(b_const, acc[k] ^= bits(__fma_rd(a[k], y, C104)) ^ bits(fma(a[k], y, C104_52 - a[k]));)

int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  void *out; cudaMalloc(&out, 1 << 26);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  void (*ks[])(u64 *, double) = {rd1, rn1, mul1, rd_add, split_rd, split_rn, two_rn, b_const};
  const char *names[] = {"fma_rd", "fma (rn)", "mul", "fma_rd; add", "split rd", "split rn", "two fma rn", "b fixed"};
  const double ops[] = {1, 1, 1, 2, 3, 3, 2, 2};
  for (int warps = 8; warps <= 16; warps *= 2)
    for (int kern = 0; kern < 8; kern++) {
      const int threads = 128, blocks = sms * warps * 32 / threads;
      float best = 1e30f;
      for (int r = 0; r < 4; r++) {
        cudaEventRecord(e0);
        ks[kern]<<<blocks, threads>>>((u64 *)out, 12345678.0);
        cudaEventRecord(e1); cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); if (r && ms < best) best = ms;
      }
      const double steps = (double)blocks * threads * ITERS * K, cycles = best * 1e-3 * clk * 1e3 * sms;
      printf("%2d warps/SM  %-12s %7.3f ms  %6.2f products/clk/SM  %6.2f FP64 ops/clk/SM\n", warps, names[kern], best,
             steps / cycles, steps * ops[kern] / cycles);
    }
  return 0;
}
