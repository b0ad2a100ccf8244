/* backend.h — internal: what a backend (CUDA, OpenCL) does for the runtime, and the backends compiled in. */
#ifndef MIDINT_BACKEND_H
#define MIDINT_BACKEND_H

#include "launch.h"
#include "midint.h"
#include "registry.h"

/* The pipelined host path: chunk i runs on slot i mod MIDINT_PIPE_SLOTS (its own stream, device buffers and
 * page-locked staging), so the copy in of one chunk, the kernels of another and the copy out of a third overlap.
 * Fences 0 .. MIDINT_PIPE_SLOTS - 1 mark each slot's last chunk; MIDINT_FENCE_FORK the caller's stream at the
 * start of an asynchronous call; MIDINT_FENCE_WS the last use of the workspace. */
#define MIDINT_PIPE_SLOTS 3
#define MIDINT_FENCE_FORK MIDINT_PIPE_SLOTS
#define MIDINT_FENCE_WS (MIDINT_PIPE_SLOTS + 1)
#define MIDINT_FENCES (MIDINT_PIPE_SLOTS + 2)

/* What a backend does; one static instance per backend compiled in (backends.c lists them). */
typedef struct midint_backend_ops {
    midint_backend id;
    const char *name;
    /* Open device `device`: fill ctx->be, ctx->device_name and the limits; on failure set the message. */
    midint_status (*open)(midint_context *ctx, int device);
    void (*close)(midint_context *ctx);
    /* Device buffers are opaque handles: a device pointer on CUDA, a cl_mem on OpenCL. */
    midint_status (*alloc)(midint_context *ctx, size_t bytes, void **buf);
    void (*free)(midint_context *ctx, void *buf);
    midint_status (*upload)(midint_context *ctx, void *buf, const void *host, size_t bytes);
    midint_status (*download)(midint_context *ctx, void *host, const void *buf, size_t bytes);
    /* Enqueue kernel k on `stream` (NULL: the context's own). */
    midint_status (*launch)(midint_context *ctx, const midint_kernel *k, const midint_launch *l, void *stream);
    midint_status (*synchronize)(midint_context *ctx, void *stream);
    /* 1 when a device-buffer handle allows 16-byte accesses. */
    int (*aligned16)(const void *buf);
    /* Size in bytes of a device buffer, where the handle knows it (OpenCL); NULL where it cannot (CUDA). */
    size_t (*buffer_bytes)(midint_context *ctx, const void *buf);
    /* Enqueue a device-to-device copy from the start of src to the start of dst. */
    midint_status (*copy)(midint_context *ctx, void *dst, const void *src, size_t bytes, void *stream);
    /* Time what is enqueued on `stream` between begin and end, in milliseconds. */
    midint_status (*timer_begin)(midint_context *ctx, void *stream);
    midint_status (*timer_end)(midint_context *ctx, void *stream, double *ms);
    /* Page-locked host memory (midint_host_alloc): the pointer, and a handle the backend needs to free it. */
    midint_status (*host_alloc)(midint_context *ctx, size_t bytes, void **ptr, void **handle);
    void (*host_free)(midint_context *ctx, void *ptr, void *handle);
    /* Whether host memory [p, p + bytes) is page-locked for the device by someone else (CUDA: cudaHostAlloc or
     * cudaHostRegister memory); midint_host_alloc's blocks are known to the context. NULL: never. */
    int (*host_locked)(midint_context *ctx, const void *p, size_t bytes);
    /* The pipelined host path (host_path.c). Stream i < MIDINT_PIPE_SLOTS of the context's own, made at first use. */
    midint_status (*pipe_stream)(midint_context *ctx, unsigned i, void **stream);
    /* A handle for bytes [offset, offset + bytes) of a device buffer, usable wherever a buffer is (offset a
     * multiple of ctx->sub_align); released with sub_release before the buffer is freed. */
    midint_status (*sub_buffer)(midint_context *ctx, void *buf, size_t offset, size_t bytes, void **out);
    void (*sub_release)(midint_context *ctx, void *sub);
    /* Enqueue a copy between host memory and bytes [offset, offset + bytes) of a device buffer on `stream`; the
     * host memory must stay as it is (input) or untouched (output) until the copy is done. */
    midint_status (*upload_async)(midint_context *ctx, void *buf, size_t offset, const void *host, size_t bytes,
                                  void *stream);
    midint_status (*download_async)(midint_context *ctx, void *host, const void *buf, size_t offset, size_t bytes,
                                    void *stream);
    /* Fence i < MIDINT_FENCES marks what `stream` has enqueued so far (fence_mark); a stream (fence_wait) or the
     * host (fence_sync) waits for the last mark; a fence never marked is passed at once. The host path's slots
     * use them, and the workspace: it is shared by the context's calls on any stream, so before using it a call
     * makes its stream wait for the last call that did and marks its own end (MIDINT_FENCE_WS; the host waits on
     * it before the workspace is freed). */
    midint_status (*fence_mark)(midint_context *ctx, unsigned i, void *stream);
    midint_status (*fence_wait)(midint_context *ctx, void *stream, unsigned i);
    midint_status (*fence_sync)(midint_context *ctx, unsigned i);
    /* The device address through which kernels read and write host_alloc memory `host` in place (CUDA: the mapped
     * alias of page-locked memory), or NULL. host_path.c adds byte offsets to it, so a backend whose buffer handles
     * are not addresses leaves this NULL. Small host calls run on it with no copy to the device. */
    void *(*host_alias)(midint_context *ctx, void *host, void *handle);
    /* Enqueue a fill of bytes [0, bytes) of a device buffer (bytes a multiple of 4) with the 32-bit word `value`, and
     * a copy of `rows` rows of `row_bytes` bytes from src (row r at src_off + r * src_pitch bytes) to dst (row r at
     * dst_off + r * dst_pitch). Expressions step by step (expr_steps.c) make zero-extensions and constants from them,
     * with no kernel; the division of large numbers (bigdiv.c) its windows of instances. */
    midint_status (*fill)(midint_context *ctx, void *buf, uint32_t value, size_t bytes, void *stream);
    midint_status (*copy_rect)(midint_context *ctx, void *dst, size_t dst_off, size_t dst_pitch, const void *src,
                               size_t src_off, size_t src_pitch, size_t row_bytes, size_t rows, void *stream);
    /* 0 when a kernel of v cannot run its block on this device, which some backends know only once the kernel is
     * built (OpenCL: a kernel's work-group limit falls with its registers); dispatch then picks another. NULL:
     * midint_variant_fits says it all. */
    int (*kernels_run)(midint_context *ctx, const midint_variant *v);
    /* Device memory a new allocation may take now, in bytes: what is free (CUDA), or the device's global memory
     * (OpenCL tells no more). NULL: unknown. */
    midint_status (*memory_free)(midint_context *ctx, size_t *bytes);
    /* Recording (replay.c; NULL where the backend has none): the work queued on `stream` between capture_begin and
     * capture_end is not run but kept as a graph, which graph_launch enqueues whole on a stream, in one driver call,
     * as often as asked. While recording, fence_mark and fence_wait do nothing: the caller waits and marks around
     * each launch of the graph. capture_end gives *graph NULL, and the message, when the recording failed. */
    midint_status (*capture_begin)(midint_context *ctx, void *stream);
    midint_status (*capture_end)(midint_context *ctx, void *stream, void **graph);
    midint_status (*graph_launch)(midint_context *ctx, void *graph, void *stream);
    void (*graph_free)(midint_context *ctx, void *graph);
} midint_backend_ops;

/* Backends compiled into this library, in MIDINT_BACKEND_AUTO's order of preference. */
extern const midint_backend_ops *const midint_backends[];
extern const size_t midint_backend_count;
const midint_backend_ops *midint_backend_find(midint_backend id);

#endif
