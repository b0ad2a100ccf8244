// pipes.cu — throughput of IMAD.WIDE, carry-chain mad.cc, DFMA and a mix, on the lent GPU (a spike, not project code)
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#define ITER 4096
__global__ void k_wide(uint64_t *out, uint32_t b) {
  uint64_t a[8];
  for (int k = 0; k < 8; k++) a[k] = threadIdx.x + k;
  for (int i = 0; i < ITER; i++) {
#pragma unroll
    for (int k = 0; k < 8; k++) {
      uint64_t r;
      asm volatile("mad.wide.u32 %0, %1, %2, %3;" : "=l"(r) : "r"((uint32_t)a[k]), "r"(b), "l"(a[k]));
      a[k] = r;
    }
  }
  uint64_t s = 0; for (int k = 0; k < 8; k++) s ^= a[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// rows of a 16-word product with carry chains: lo into E[j], hi into E[j+1] (as in a schoolbook row)
__global__ void k_chain(uint32_t *out, uint32_t b) {
  uint32_t A[16], E[17], O[17];
  for (int k = 0; k < 16; k++) { A[k] = threadIdx.x * 7 + k; E[k] = k; O[k] = 3*k; }
  E[16] = O[16] = 0;
  for (int i = 0; i < ITER / 16; i++) {
    uint32_t bt = b + i;
#pragma unroll
    for (int j = 0; j < 16; j += 2) {   // even words: lo to E[j], hi to E[j+1] as one chain
      asm volatile("mad.lo.cc.u32 %0, %2, %4, %0;\n\tmadc.hi.cc.u32 %1, %2, %4, %1;"
                   : "+r"(E[j]), "+r"(E[j+1]) : "r"(A[j]), "r"(A[j]), "r"(bt));
    }
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(E[16]));
#pragma unroll
    for (int j = 1; j < 16; j += 2) {
      asm volatile("mad.lo.cc.u32 %0, %2, %4, %0;\n\tmadc.hi.cc.u32 %1, %2, %4, %1;"
                   : "+r"(O[j]), "+r"(O[j+1]) : "r"(A[j]), "r"(A[j]), "r"(bt));
    }
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(O[16]));
#pragma unroll
    for (int k = 0; k < 16; k++) A[k] ^= E[k];
  }
  uint32_t s = 0; for (int k = 0; k < 17; k++) s ^= E[k] ^ O[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void k_dfma(double *out, double b) {
  double a[8];
  for (int k = 0; k < 8; k++) a[k] = threadIdx.x + k;
  for (int i = 0; i < ITER; i++) {
#pragma unroll
    for (int k = 0; k < 8; k++) a[k] = fma(a[k], b, 1.0);
  }
  double s = 0; for (int k = 0; k < 8; k++) s += a[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void k_mix(uint64_t *out, uint32_t b, double bd) {
  uint64_t a[6]; double d[6];
  for (int k = 0; k < 6; k++) { a[k] = threadIdx.x + k; d[k] = threadIdx.x + k; }
  for (int i = 0; i < ITER; i++) {
#pragma unroll
    for (int k = 0; k < 6; k++) {
      uint64_t r;
      asm volatile("mad.wide.u32 %0, %1, %2, %3;" : "=l"(r) : "r"((uint32_t)a[k]), "r"(b), "l"(a[k]));
      a[k] = r;
      d[k] = fma(d[k], bd, 1.0);
    }
  }
  uint64_t s = 0; for (int k = 0; k < 6; k++) s ^= a[k] ^ (uint64_t)d[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// 32-bit IMAD (mul.lo) for reference
__global__ void k_imad(uint32_t *out, uint32_t b) {
  uint32_t a[8];
  for (int k = 0; k < 8; k++) a[k] = threadIdx.x + k;
  for (int i = 0; i < ITER; i++) {
#pragma unroll
    for (int k = 0; k < 8; k++) asm volatile("mad.lo.u32 %0, %0, %1, %0;" : "+r"(a[k]) : "r"(b));
  }
  uint32_t s = 0; for (int k = 0; k < 8; k++) s ^= a[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  const int blocks = sms * 8, threads = 256;
  void *buf; cudaMalloc(&buf, (size_t)blocks * threads * 8);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  double peak_clk = (double)sms * clk * 1e3;  // SM-cycles per second
  auto run = [&](const char *name, double ops_per_iter, auto launch) {
    launch(); cudaDeviceSynchronize();
    float best = 1e9;
    for (int r = 0; r < 5; r++) { cudaEventRecord(e0); launch(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms < best) best = ms; }
    double ops = (double)blocks * threads * ITER * ops_per_iter;
    printf("%-10s %8.3f ms  %8.2f Gop/s  %6.1f op/clk/SM\n", name, best, ops / best / 1e6, ops / (best * 1e-3) / peak_clk);
  };
  printf("SMs %d clock %d kHz\n", sms, clk);
  run("imad32", 8, [&] { k_imad<<<blocks, threads>>>((uint32_t *)buf, 12345u); });
  run("imadwide", 8, [&] { k_wide<<<blocks, threads>>>((uint64_t *)buf, 12345u); });
  run("chain(wp)", 2, [&] { k_chain<<<blocks, threads>>>((uint32_t *)buf, 12345u); });  // 32 word products per 16 iters
  run("dfma", 8, [&] { k_dfma<<<blocks, threads>>>((double *)buf, 1.0000001); });
  run("mix(w+d)", 12, [&] { k_mix<<<blocks, threads>>>((uint64_t *)buf, 12345u, 1.0000001); });
  cudaError_t err = cudaGetLastError(); printf("%s\n", cudaGetErrorString(err));
  return 0;
}
