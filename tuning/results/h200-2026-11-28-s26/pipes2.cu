// pipes2.cu — which pipes do IMAD.HI, IMAD lo, IMAD.WIDE, DFMA and IADD3 share (a spike, not project code)
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#define ITER 4096
#define K 8
__device__ __forceinline__ uint32_t hi(uint32_t a, uint32_t b) { uint32_t r; asm volatile("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t lo(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("mad.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ uint64_t wide(uint32_t a, uint32_t b, uint64_t c) { uint64_t r; asm volatile("mad.wide.u32 %0, %1, %2, %3;" : "=l"(r) : "r"(a), "r"(b), "l"(c)); return r; }
__device__ __forceinline__ uint32_t add3(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("add.u32 %0, %1, %2;\n\tadd.u32 %0, %0, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
template <int MODE>
__global__ void kern(uint32_t *out, uint32_t b, double bd) {
  uint32_t a[K], c[K]; double d[K];
  for (int k = 0; k < K; k++) { a[k] = threadIdx.x * 3 + k; c[k] = k; d[k] = threadIdx.x + k; }
  for (int i = 0; i < ITER; i++) {
#pragma unroll
    for (int k = 0; k < K; k++) {
      if (MODE == 0) a[k] = hi(a[k], b) ^ k;                       // IMAD.HI (+LOP3)
      if (MODE == 1) a[k] = lo(a[k], b, a[k]);                     // IMAD
      if (MODE == 2) { uint64_t w = wide(a[k], b, ((uint64_t)c[k] << 32) | a[k]); a[k] = (uint32_t)w; c[k] = (uint32_t)(w >> 32); }  // IMAD.WIDE
      if (MODE == 3) { uint32_t h = hi(a[k], b); a[k] = lo(a[k], b, c[k]); c[k] = h; }   // IMAD + IMAD.HI
      if (MODE == 4) { d[k] = fma(d[k], bd, 1.0); c[k] = add3(c[k], a[k], k); }          // DFMA + 2 IADD
      if (MODE == 5) { d[k] = fma(d[k], bd, 1.0); a[k] = lo(a[k], b, a[k]); }            // DFMA + IMAD
      if (MODE == 6) { d[k] = fma(d[k], bd, 1.0); }                                      // DFMA
      if (MODE == 7) { c[k] = add3(c[k], a[k], b); a[k] ^= c[k]; }                         // IADD x2 + LOP3
    }
  }
  uint32_t s = 0; for (int k = 0; k < K; k++) s ^= a[k] ^ c[k] ^ (uint32_t)d[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  const int blocks = sms * 8, threads = 256;
  void *buf; cudaMalloc(&buf, (size_t)blocks * threads * 8);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  double peak_clk = (double)sms * clk * 1e3;
  auto run = [&](const char *name, auto launch) {
    launch(); cudaDeviceSynchronize();
    float best = 1e9;
    for (int r = 0; r < 5; r++) { cudaEventRecord(e0); launch(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms < best) best = ms; }
    double its = (double)blocks * threads * ITER * K;   // thread-iterations of the inner body
    printf("%-22s %8.3f ms  %6.1f bodies/clk/SM\n", name, best, its / (best * 1e-3) / peak_clk);
  };
  run("0 imad.hi", [&] { kern<0><<<blocks, threads>>>((uint32_t *)buf, 12345u, 1.0000001); });
  run("1 imad.lo", [&] { kern<1><<<blocks, threads>>>((uint32_t *)buf, 12345u, 1.0000001); });
  run("2 imad.wide", [&] { kern<2><<<blocks, threads>>>((uint32_t *)buf, 12345u, 1.0000001); });
  run("3 imad.lo+imad.hi", [&] { kern<3><<<blocks, threads>>>((uint32_t *)buf, 12345u, 1.0000001); });
  run("4 dfma+2 iadd", [&] { kern<4><<<blocks, threads>>>((uint32_t *)buf, 12345u, 1.0000001); });
  run("5 dfma+imad.lo", [&] { kern<5><<<blocks, threads>>>((uint32_t *)buf, 12345u, 1.0000001); });
  run("6 dfma", [&] { kern<6><<<blocks, threads>>>((uint32_t *)buf, 12345u, 1.0000001); });
  run("7 2 iadd+lop3", [&] { kern<7><<<blocks, threads>>>((uint32_t *)buf, 12345u, 1.0000001); });
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
