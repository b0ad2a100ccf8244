/* backends.c — the backends compiled into this build, in MIDINT_BACKEND_AUTO's order of preference. */
#include "context.h"

#ifdef MIDINT_HAVE_CUDA
extern const midint_backend_ops midint_backend_cuda;
#endif
#ifdef MIDINT_HAVE_OPENCL
extern const midint_backend_ops midint_backend_opencl;
#endif

const midint_backend_ops *const midint_backends[] = {
#ifdef MIDINT_HAVE_CUDA
    &midint_backend_cuda,
#endif
#ifdef MIDINT_HAVE_OPENCL
    &midint_backend_opencl,
#endif
    NULL,
};
const size_t midint_backend_count = sizeof midint_backends / sizeof midint_backends[0] - 1;

#ifndef MIDINT_HAVE_OPENCL
/* Without OpenCL the accessors exist and answer NULL, as for a CUDA context. */
void *midint_opencl_context(const midint_context *ctx) { (void)ctx; return NULL; }
void *midint_opencl_device(const midint_context *ctx) { (void)ctx; return NULL; }
void *midint_opencl_queue(const midint_context *ctx) { (void)ctx; return NULL; }
const char *midint_opencl_warps(const midint_context *ctx) { (void)ctx; return NULL; }
#endif
