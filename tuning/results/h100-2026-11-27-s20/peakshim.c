/* session shim: peak of live cudaMalloc bytes, printed at exit */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stddef.h>
#define SLOTS 65536
static void *ptrs[SLOTS]; static size_t sizes[SLOTS]; static size_t live, peak;
int cudaMalloc(void **p, size_t b) {
  static int (*real)(void **, size_t); if (!real) real = dlsym(RTLD_NEXT, "cudaMalloc");
  int r = real(p, b);
  if (r == 0) { for (int i = 0; i < SLOTS; i++) if (!ptrs[i]) { ptrs[i] = *p; sizes[i] = b; break; }
    live += b; if (live > peak) peak = live; }
  return r; }
int cudaFree(void *p) {
  static int (*real)(void *); if (!real) real = dlsym(RTLD_NEXT, "cudaFree");
  for (int i = 0; i < SLOTS; i++) if (ptrs[i] == p && p) { live -= sizes[i]; ptrs[i] = 0; break; }
  return real(p); }
__attribute__((destructor)) static void done(void) { fprintf(stderr, "peakshim: peak %.1f MB live device memory\n", peak / 1e6); }
