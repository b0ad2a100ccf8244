/* launch.h — the interface between the runtime and generated kernels: launch arguments and backend tables. */
#ifndef MIDINT_LAUNCH_H
#define MIDINT_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Buffers of an expression kernel (inputs and outputs together): its parameters io0..io7 after x1. */
#define MIDINT_EXPR_MAX_IO 8


/* Arguments of one launch, in the order every generated kernel takes them (templates/lib_abi.j2), then the
 * grid. Each kernel's header comment says which it reads; the runtime sets the others to 0 / NULL. */
typedef struct midint_launch {
    void *r;            /* result (device pointer; cl_mem on OpenCL) */
    const void *a, *b;  /* operands */
    void *aux;          /* per-instance carry/borrow out, the NTT twiddle tables, or NULL */
    uint64_t count;     /* instances (of this pass, for a grid kernel) */
    uint32_t n;         /* 32-bit words per operand (bits / 32) */
    uint32_t ti;        /* one-block kernels: threads per instance at this n */
    uint32_t ipb;       /* one-block kernels: instances per block at this n */
    uint32_t vec;       /* 1: n % 4 == 0 and the buffers are 16-byte aligned, so 16-byte accesses are safe */
    void *ws;           /* grid kernels: the workspace (transforms), or NULL */
    void *st;           /* grid kernels: the carry states of the tiles, or NULL */
    uint64_t inst0;     /* grid kernels: the first instance of this pass within r, a, b and aux */
    uint32_t x0, x1;    /* grid kernels: their own two parameters (e.g. log2 of the transform length) */
    uint64_t grid;      /* blocks */
    void *io[MIDINT_EXPR_MAX_IO]; /* expression kernels: their outputs, then their inputs (NULL past them) */
} midint_launch;

/* CUDA: one host function per variant that launches its kernel on a stream; returns a cudaError_t. */
typedef int (*midint_cuda_launcher)(const midint_launch *l, void *stream);
extern const midint_cuda_launcher midint_cuda_launchers[];
extern const size_t midint_cuda_launcher_count;

/* OpenCL: a program is midint_opencl_common followed by midint_opencl_programs[i] (a one-block variant's kernel, or
 * a grid engine's kernels); each kernel names its program. */
typedef struct midint_opencl_kernel {
    const char *name;
    int program;
} midint_opencl_kernel;
extern const char midint_opencl_common[];
extern const char midint_opencl_probe[];
extern const char *const midint_opencl_programs[];
extern const size_t midint_opencl_program_count;
extern const midint_opencl_kernel midint_opencl_kernels[];
extern const size_t midint_opencl_kernel_count;

#ifdef __cplusplus
}
#endif

#endif
