/* context.c — opening and closing a context: backend choice, device, limits, accessors. */
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "expr_steps.h"
#include "host_pipe.h"
#include "plan.h"

#define DEFAULT_STAGING_BYTES ((size_t)1 << 30)

const midint_backend_ops *midint_backend_find(midint_backend id)
{
    for (size_t i = 0; i < midint_backend_count; i++)
        if (midint_backends[i]->id == id)
            return midint_backends[i];
    return NULL;
}

static const char *backend_label(midint_backend b)
{
    return b == MIDINT_BACKEND_CUDA ? "cuda" : b == MIDINT_BACKEND_OPENCL ? "opencl" : "auto";
}

static midint_status open_with(midint_context *ctx, const midint_backend_ops *ops, int device)
{
    ctx->ops = ops;
    ctx->device = device;
    midint_status st = ops->open(ctx, device);
    if (st != MIDINT_OK)
        ctx->ops = NULL;
    return st;
}

midint_status midint_open(midint_context **out, midint_backend backend, int device)
{
    if (!out)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "midint_open: ctx is NULL");
    *out = NULL;
    if (backend != MIDINT_BACKEND_AUTO && backend != MIDINT_BACKEND_CUDA && backend != MIDINT_BACKEND_OPENCL)
        return midint_fail(NULL, MIDINT_ERR_UNKNOWN_BACKEND,
                           "midint_open: unknown backend %d (use MIDINT_BACKEND_AUTO, _CUDA or _OPENCL)", (int)backend);
    if (device < 0)
        return midint_fail(NULL, MIDINT_ERR_NO_DEVICE, "midint_open: device index %d is negative", device);

    midint_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_OUT_OF_MEMORY, "midint_open: out of host memory");
    ctx->staging_bytes = DEFAULT_STAGING_BYTES;
    char why[200];
    if (midint_hooks_read(&ctx->hooks, why, sizeof why) != MIDINT_OK) { /* before the backend, which reads some */
        free(ctx);
        return midint_fail(NULL, MIDINT_ERR_INVALID_ARGUMENT, "midint_open: %s", why);
    }

    midint_status st;
    if (backend == MIDINT_BACKEND_AUTO) {
        /* First backend that opens; the message of the last failure explains an empty machine. */
        st = midint_fail(NULL, MIDINT_ERR_NO_BACKEND, "midint_open: this library was built with no backend");
        for (size_t i = 0; i < midint_backend_count && st != MIDINT_OK; i++)
            st = open_with(ctx, midint_backends[i], device);
    } else {
        const midint_backend_ops *ops = midint_backend_find(backend);
        st = ops ? open_with(ctx, ops, device)
                 : midint_fail(NULL, MIDINT_ERR_NO_BACKEND, "midint_open: the %s backend was not built into this "
                               "library (rebuild with %s)", backend_label(backend),
                               backend == MIDINT_BACKEND_CUDA ? "nvcc on the PATH" : "the OpenCL headers installed");
    }
    if (st == MIDINT_OK)
        st = midint_find_max_bits(ctx);
    if (st == MIDINT_OK) {
        midint_host_path_init(ctx);
        st = midint_dispatch_init(ctx);
    }
    if (st == MIDINT_OK)
        midint_tuning_init(ctx);
    if (st != MIDINT_OK) {
        midint_close(ctx);
        return st;
    }
    ctx->msg[0] = '\0'; /* AUTO may have recorded why an earlier backend did not open */
    *out = ctx;
    return MIDINT_OK;
}

void midint_close(midint_context *ctx)
{
    if (!ctx)
        return;
    if (ctx->ops) {
        midint_host_path_free(ctx); /* first: it waits for work that may still use the memory freed below */
        midint_replay_free(ctx);
        midint_workspace_free(ctx);
        midint_expr_steps_free(ctx);
        while (ctx->host_blocks) /* host memory the user did not free: freed with its context */
            midint_host_free(ctx, ctx->host_blocks->ptr);
        if (ctx->ntt_table)
            ctx->ops->free(ctx, ctx->ntt_table);
        if (ctx->check_flag)
            ctx->ops->free(ctx, ctx->check_flag);
        ctx->ops->close(ctx);
    }
    midint_tuning_free(ctx->tuning);
    free(ctx->refused);
    free(ctx->expr_limits);
    free(ctx);
}

midint_backend midint_context_backend(const midint_context *ctx)
{
    return ctx && ctx->ops ? ctx->ops->id : MIDINT_BACKEND_AUTO;
}

const char *midint_device_name(const midint_context *ctx)
{
    return ctx ? ctx->device_name : "";
}

midint_status midint_set_staging_bytes(midint_context *ctx, size_t bytes)
{
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "midint_set_staging_bytes: ctx is NULL");
    if (bytes == 0)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "midint_set_staging_bytes: bytes must be positive");
    ctx->staging_bytes = bytes;
    return MIDINT_OK;
}

/* ---- device buffers through the backend ---- */

midint_status midint_host_alloc(midint_context *ctx, size_t bytes, void **ptr)
{
    if (!ctx || !ptr)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "midint_host_alloc: %s is NULL", ctx ? "ptr" : "ctx");
    *ptr = NULL;
    if (bytes == 0)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "midint_host_alloc: bytes is 0");
    midint_host_block *blk = calloc(1, sizeof *blk);
    if (!blk)
        return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "midint_host_alloc: out of host memory");
    midint_status st = ctx->ops->host_alloc(ctx, bytes, &blk->ptr, &blk->handle);
    if (st != MIDINT_OK) {
        free(blk);
        return midint_fail(ctx, st, "midint_host_alloc: %zu bytes of page-locked host memory: %s", bytes, ctx->msg);
    }
    blk->bytes = bytes;
    blk->next = ctx->host_blocks;
    ctx->host_blocks = blk;
    *ptr = blk->ptr;
    return MIDINT_OK;
}

midint_status midint_host_free(midint_context *ctx, void *ptr)
{
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "midint_host_free: ctx is NULL");
    if (!ptr)
        return MIDINT_OK;
    for (midint_host_block **p = &ctx->host_blocks; *p; p = &(*p)->next) {
        midint_host_block *blk = *p;
        if (blk->ptr == ptr) {
            *p = blk->next;
            ctx->ops->host_free(ctx, blk->ptr, blk->handle);
            free(blk);
            return MIDINT_OK;
        }
    }
    return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "midint_host_free: %p was not allocated by midint_host_alloc "
                       "on this context (or was freed already)", ptr);
}

midint_status midint_buffer_alloc(midint_context *ctx, size_t bytes, void **buf)
{
    if (!ctx || !buf)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "midint_buffer_alloc: %s is NULL", ctx ? "buf" : "ctx");
    if (bytes == 0)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "midint_buffer_alloc: bytes is 0");
    return ctx->ops->alloc(ctx, bytes, buf);
}

void midint_buffer_free(midint_context *ctx, void *buf)
{
    if (ctx && buf)
        ctx->ops->free(ctx, buf);
}

midint_status midint_buffer_write(midint_context *ctx, void *buf, const void *host, size_t bytes)
{
    if (!ctx || !buf || !host)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "midint_buffer_write: %s is NULL",
                           !ctx ? "ctx" : !buf ? "buf" : "host");
    return ctx->ops->upload(ctx, buf, host, bytes);
}

midint_status midint_buffer_read(midint_context *ctx, void *host, const void *buf, size_t bytes)
{
    if (!ctx || !buf || !host)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "midint_buffer_read: %s is NULL",
                           !ctx ? "ctx" : !buf ? "buf" : "host");
    return ctx->ops->download(ctx, host, buf, bytes);
}

midint_status midint_buffer_copy(midint_context *ctx, void *dst, const void *src, size_t bytes, void *stream)
{
    if (!ctx || !dst || !src)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "midint_buffer_copy: %s is NULL",
                           !ctx ? "ctx" : !dst ? "dst" : "src");
    return ctx->ops->copy(ctx, dst, src, bytes, stream);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

midint_status midint_time(midint_context *ctx, void *stream, int reps, midint_status (*enqueue)(void *arg),
                          void *arg, double *median_ms)
{
    if (!ctx || !enqueue || !median_ms)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "midint_time: %s is NULL",
                           !ctx ? "ctx" : !enqueue ? "enqueue" : "median_ms");
    if (reps < 1)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "midint_time: reps is %d; at least 1", reps);
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (!t)
        return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "midint_time: out of host memory");
    midint_status st = enqueue(arg); /* warm-up: module load, program build, first-touch */
    if (st == MIDINT_OK)
        st = ctx->ops->synchronize(ctx, stream);
    for (int i = 0; i < reps && st == MIDINT_OK; i++) {
        if ((st = ctx->ops->timer_begin(ctx, stream)) == MIDINT_OK && (st = enqueue(arg)) == MIDINT_OK)
            st = ctx->ops->timer_end(ctx, stream, &t[i]);
    }
    if (st == MIDINT_OK) {
        qsort(t, (size_t)reps, sizeof(double), cmp_double);
        *median_ms = t[reps / 2];
    }
    free(t);
    return st;
}
