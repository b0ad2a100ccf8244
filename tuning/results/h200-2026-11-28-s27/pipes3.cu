// pipes3.cu — the FP64 pipe's rate for the Montgomery product's split (fma_rd, add, fma) and its operand patterns,
// alone and with the integer column adds; a measurement for the twenty-seventh session, not project code.
#include <cstdio>
#include <cuda_runtime.h>
typedef unsigned long long u64;
#define K 8
#define ITERS 2048
#define C104 0x1p104
#define C104_52 (0x1p104 + 0x1p52)
__device__ __forceinline__ u64 bits(double x) { return (u64)__double_as_longlong(x); }
/* the next b: a few units of its last place up, so that no two iterations repeat (the compiler folded a period of 2) */
__device__ __forceinline__ double flip(double x) { return __longlong_as_double((long long)(bits(x) + 0x10ull)); }

// (a) chains x = fma(x, y, z): y and z the same registers every time (operand reuse)
__global__ void chain(double *out, double y, double z) {
  double x[K];
  for (int k = 0; k < K; k++) x[k] = threadIdx.x + k;
  for (int i = 0; i < ITERS; i++)
#pragma unroll
    for (int k = 0; k < K; k++) x[k] = fma(x[k], y, z);
  double s = 0; for (int k = 0; k < K; k++) s += x[k]; out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// (b) x[k] = fma(a[k], b[k], x[k]): three registers, none shared by consecutive instructions
__global__ void three(double *out, double y) {
  double x[K], a[K], b[K];
  for (int k = 0; k < K; k++) { x[k] = threadIdx.x + k; a[k] = y * (k + 1); b[k] = y + k; }
  for (int i = 0; i < ITERS; i++)
#pragma unroll
    for (int k = 0; k < K; k++) x[k] = fma(a[k], b[k], x[k]);
  double s = 0; for (int k = 0; k < K; k++) s += x[k]; out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// (c) the split of K products a[k] b: h = fma_rd(a, b, 2^104), l = fma(a, b, 2^104 + 2^52 - h); XOR of the patterns
__global__ void split_xor(u64 *out, double y) {
  double a[K]; u64 acc[K];
  for (int k = 0; k < K; k++) { a[k] = y * (k + 3); acc[k] = 0; }
  double b = y + threadIdx.x;
  for (int i = 0; i < ITERS; i++) {
#pragma unroll
    for (int k = 0; k < K; k++) {
      const double h = __fma_rd(a[k], b, C104), l = fma(a[k], b, C104_52 - h);
      acc[k] ^= bits(h) ^ bits(l);
    }
    b = flip(b);
  }
  u64 s = 0; for (int k = 0; k < K; k++) s += acc[k]; out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// (d) the same with powm's column adds: W[k] += h + l (a 64-bit three-input add, two patterns an add)
__global__ void split_add(u64 *out, double y) {
  double a[K]; u64 acc[K];
  for (int k = 0; k < K; k++) { a[k] = y * (k + 3); acc[k] = 0; }
  double b = y + threadIdx.x;
  for (int i = 0; i < ITERS; i++) {
#pragma unroll
    for (int k = 0; k < K; k++) {
      const double h = __fma_rd(a[k], b, C104), l = fma(a[k], b, C104_52 - h);
      acc[k] += bits(h) + bits(l);
    }
    b = flip(b);
  }
  u64 s = 0; for (int k = 0; k < K; k++) s += acc[k]; out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// (e) two FP64 operations a product (as if the add were free): h = fma_rd(a, b, 2^104), l = fma(a, b, -h)
__global__ void two_ops(u64 *out, double y) {
  double a[K]; u64 acc[K];
  for (int k = 0; k < K; k++) { a[k] = y * (k + 3); acc[k] = 0; }
  double b = y + threadIdx.x;
  for (int i = 0; i < ITERS; i++) {
#pragma unroll
    for (int k = 0; k < K; k++) {
      const double h = __fma_rd(a[k], b, C104), l = fma(a[k], b, -h);
      acc[k] += bits(h) + bits(l);
    }
    b = flip(b);
  }
  u64 s = 0; for (int k = 0; k < K; k++) s += acc[k]; out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  void *out; cudaMalloc(&out, 1 << 26);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  const char *names[] = {"chain fma(x,y,z)", "three fma(a,b,x)", "split + xor", "split + add", "two ops + add"};
  const double fp_ops[] = {1, 1, 3, 3, 2};   /* FP64 operations an inner step */
  for (int warps = 4; warps <= 16; warps *= 2)
    for (int kern = 0; kern < 5; kern++) {
      const int threads = 128, blocks = sms * warps * 32 / threads;
      float best = 1e30f;
      for (int r = 0; r < 4; r++) {
        cudaEventRecord(e0);
        switch (kern) {
          case 0: chain<<<blocks, threads>>>((double *)out, 1.0000001, 1e-9); break;
          case 1: three<<<blocks, threads>>>((double *)out, 1.0000001); break;
          case 2: split_xor<<<blocks, threads>>>((u64 *)out, 12345678.0); break;
          case 3: split_add<<<blocks, threads>>>((u64 *)out, 12345678.0); break;
          case 4: two_ops<<<blocks, threads>>>((u64 *)out, 12345678.0); break;
        }
        cudaEventRecord(e1); cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); if (r && ms < best) best = ms;
      }
      const double steps = (double)blocks * threads * ITERS * K, cycles = best * 1e-3 * clk * 1e3 * sms;
      printf("%2d warps/SM  %-18s %7.3f ms  %6.2f steps/clk/SM  %6.2f FP64 ops/clk/SM\n", warps, names[kern], best,
             steps / cycles, steps * fp_ops[kern] / cycles);
    }
  return 0;
}
