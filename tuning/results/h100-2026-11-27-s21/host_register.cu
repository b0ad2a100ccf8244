// host_register.cu — session experiment: pageable copies against cudaHostRegister + copy + cudaHostUnregister
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <cuda_runtime.h>
static double now() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main() {
    for (size_t mb : {8, 32, 128}) {
        size_t bytes = mb << 20;
        char *h = (char *)malloc(bytes + 4096), *h2 = (char *)malloc(bytes + 4096);
        memset(h, 1, bytes + 4096); memset(h2, 2, bytes + 4096);
        char *src = h + 128, *dst = h2 + 256;   // not page-aligned, like a NumPy array's data
        void *d; cudaMalloc(&d, bytes);
        cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice);
        for (int rep = 0; rep < 3; rep++) {
            double t0 = now(); cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice); double t1 = now();
            cudaMemcpy(dst, d, bytes, cudaMemcpyDeviceToHost); double t2 = now();
            cudaError_t e1 = cudaHostRegister(src, bytes, cudaHostRegisterDefault); double t3 = now();
            cudaMemcpyAsync(d, src, bytes, cudaMemcpyHostToDevice, 0); cudaStreamSynchronize(0); double t4 = now();
            cudaHostUnregister(src); double t5 = now();
            cudaError_t e2 = cudaHostRegister(dst, bytes, cudaHostRegisterDefault); double t6 = now();
            cudaMemcpyAsync(dst, d, bytes, cudaMemcpyDeviceToHost, 0); cudaStreamSynchronize(0); double t7 = now();
            cudaHostUnregister(dst); double t8 = now();
            printf("%zu MB: pageable up %.3f down %.3f | register %.3f up %.3f unregister %.3f (total %.3f) | register %.3f down %.3f unregister %.3f (total %.3f) [%d %d]\n",
                   mb, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t5 - t2, t6 - t5, t7 - t6, t8 - t7, t8 - t5, (int)e1, (int)e2);
        }
        cudaFree(d); free(h); free(h2);
    }
}
