/* session shim: time cudaMalloc / cudaFree / cudaMemcpyAsync(H2D,D2H) calls, print totals at exit */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stddef.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static double tm, tf; static long nm, nf; static size_t bytes;
int cudaMalloc(void **p, size_t b) {
  static int (*real)(void **, size_t); if (!real) real = dlsym(RTLD_NEXT, "cudaMalloc");
  double t = now(); int r = real(p, b); tm += now() - t; nm++; bytes += b; return r; }
int cudaFree(void *p) {
  static int (*real)(void *); if (!real) real = dlsym(RTLD_NEXT, "cudaFree");
  double t = now(); int r = real(p); tf += now() - t; nf++; return r; }
__attribute__((destructor)) static void done(void) {
  fprintf(stderr, "shim: cudaMalloc %ld calls %.2f ms (%.1f MB), cudaFree %ld calls %.2f ms\n", nm, tm * 1e3, bytes / 1e6, nf, tf * 1e3); }
