// pipes5.cu — the FP64 split with powm's column adds (two patterns a 64-bit add) at K = 4..32 independent products an
// iteration and 4..16 warps an SM: whether more independent products lift it (not project code).
#include <cstdio>
#include <cuda_runtime.h>
typedef unsigned long long u64;
#define ITERS 1024
#define C104 0x1p104
#define C104_52 (0x1p104 + 0x1p52)
__device__ __forceinline__ u64 bits(double x) { return (u64)__double_as_longlong(x); }
__device__ __forceinline__ double next(double x) { return __longlong_as_double((long long)(bits(x) + 0x10ull)); }

template <int K, int OPS>
__global__ void split(u64 *out, double y) {
  double a[K]; u64 acc[K];
  for (int k = 0; k < K; k++) { a[k] = y * (k + 3); acc[k] = 0; }
  double b = y + threadIdx.x;
  for (int i = 0; i < ITERS; i++) {
#pragma unroll
    for (int k = 0; k < K; k++) {
      if (OPS == 3) {
        const double h = __fma_rd(a[k], b, C104);
        acc[k] += bits(h) + bits(fma(a[k], b, C104_52 - h));
      } else {   /* two independent FMAs (not an exact split): the dependency's cost */
        acc[k] += bits(__fma_rd(a[k], b, C104)) + bits(fma(a[k], b, C104_52));
      }
    }
    b = next(b);
  }
  u64 s = 0; for (int k = 0; k < K; k++) s += acc[k]; out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int K, int OPS>
static void run(int sms, int clk, void *out) {
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int warps = 4; warps <= 16; warps += 4) {
    const int threads = 128, blocks = sms * warps * 32 / threads;
    float best = 1e30f;
    for (int r = 0; r < 4; r++) {
      cudaEventRecord(e0);
      split<K, OPS><<<blocks, threads>>>((u64 *)out, 12345678.0);
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); if (r && ms < best) best = ms;
    }
    const double steps = (double)blocks * threads * ITERS * K, cycles = best * 1e-3 * clk * 1e3 * sms;
    printf("K %2d  %d ops  %2d warps/SM  %7.3f ms  %6.2f products/clk/SM  %6.2f FP64 ops/clk/SM\n", K, OPS, warps, best,
           steps / cycles, steps * OPS / cycles);
  }
}

int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  void *out; cudaMalloc(&out, 1 << 26);
  run<4, 3>(sms, clk, out); run<8, 3>(sms, clk, out); run<16, 3>(sms, clk, out); run<32, 3>(sms, clk, out);
  run<8, 2>(sms, clk, out); run<16, 2>(sms, clk, out);
  return 0;
}
