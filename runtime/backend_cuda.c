/* backend_cuda.c — the CUDA backend: kernels compiled in by nvcc, launched through generated launchers. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"

typedef struct cuda_state {
    cudaStream_t stream;          /* the host path's stream */
    cudaEvent_t start, stop;      /* for midint_time */
    cudaStream_t pipe[MIDINT_PIPE_SLOTS]; /* the host path's slots, made at first use */
    cudaEvent_t fence[MIDINT_FENCES];
    int fence_marked[MIDINT_FENCES];
    cudaStream_t fence_stream[MIDINT_FENCES]; /* where each was last marked */
    int capturing;                /* a recording is under way (cu_capture_begin): the fences do nothing */
} cuda_state;

#define STATE(ctx) ((cuda_state *)(ctx)->be)

static midint_status cuda_failed(midint_context *ctx, cudaError_t err, const char *what)
{
    return midint_fail(ctx, err == cudaErrorMemoryAllocation ? MIDINT_ERR_OUT_OF_MEMORY : MIDINT_ERR_DEVICE,
                       "CUDA: %s failed: %s", what, cudaGetErrorString(err));
}

/* Every entry point makes the context's device current: the calling thread may have switched. */
static midint_status use_device(midint_context *ctx)
{
    cudaError_t err = cudaSetDevice(ctx->device);
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaSetDevice");
}

static void cu_close(midint_context *ctx);

static midint_status cu_open(midint_context *ctx, int device)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError(); /* not sticky: clear it for whoever uses CUDA next */
        return midint_fail(ctx, MIDINT_ERR_NO_DEVICE, "CUDA: no usable device (%s)", cudaGetErrorString(err));
    }
    if (device >= count)
        return midint_fail(ctx, MIDINT_ERR_NO_DEVICE, "CUDA: device %d does not exist (%d device%s found)", device,
                           count, count == 1 ? "" : "s");
    struct cudaDeviceProp prop;
    int optin = 0;
    if ((err = cudaSetDevice(device)) != cudaSuccess || (err = cudaGetDeviceProperties(&prop, device)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device)) != cudaSuccess)
        return cuda_failed(ctx, err, "querying the device");
    cuda_state *s = calloc(1, sizeof *s);
    if (!s)
        return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "CUDA: out of host memory");
    ctx->be = s;
    /* The context's own stream (device calls given NULL) is a blocking one: ordered with the legacy default stream,
     * as midint.h promises, so work a caller (CuPy, PyTorch) enqueued there comes before a call and reads of r
     * enqueued there after it wait for it. The host path's slots have non-blocking streams of their own. */
    int ok = (err = cudaStreamCreateWithFlags(&s->stream, cudaStreamDefault)) == cudaSuccess &&
             (err = cudaEventCreate(&s->start)) == cudaSuccess && (err = cudaEventCreate(&s->stop)) == cudaSuccess;
    for (int i = 0; i < MIDINT_FENCES && ok; i++)
        ok = (err = cudaEventCreateWithFlags(&s->fence[i], cudaEventDisableTiming)) == cudaSuccess;
    if (!ok) {
        cu_close(ctx);
        return cuda_failed(ctx, err, "creating the stream and events");
    }
    ctx->sub_align = 256;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%.200s (sm_%d%d)", prop.name, prop.major, prop.minor);
    ctx->max_block = (uint32_t)prop.maxThreadsPerBlock;
    ctx->max_shared = (uint32_t)(optin > 0 ? optin : (int)prop.sharedMemPerBlock);
    return MIDINT_OK;
}

static void cu_close(midint_context *ctx)
{
    cuda_state *s = STATE(ctx);
    if (!s)
        return;
    cudaSetDevice(ctx->device);
    cudaEvent_t events[2 + MIDINT_FENCES] = {s->start, s->stop};
    memcpy(events + 2, s->fence, sizeof s->fence);
    for (int i = 0; i < 2 + MIDINT_FENCES; i++)
        if (events[i])
            cudaEventDestroy(events[i]);
    for (int i = 0; i < MIDINT_PIPE_SLOTS; i++)
        if (s->pipe[i])
            cudaStreamDestroy(s->pipe[i]);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    free(s);
    ctx->be = NULL;
}

static midint_status cu_alloc(midint_context *ctx, size_t bytes, void **buf)
{
    midint_status st = use_device(ctx);
    if (st != MIDINT_OK)
        return st;
    cudaError_t err = cudaMalloc(buf, bytes);
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaMalloc");
}

static void cu_free(midint_context *ctx, void *buf)
{
    cudaSetDevice(ctx->device);
    cudaFree(buf);
}

static midint_status cu_host_alloc(midint_context *ctx, size_t bytes, void **ptr, void **handle)
{
    midint_status st = use_device(ctx);
    if (st != MIDINT_OK)
        return st;
    *handle = NULL;
    cudaError_t err = cudaHostAlloc(ptr, bytes, cudaHostAllocPortable | cudaHostAllocMapped);
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaHostAlloc");
}

static void cu_host_free(midint_context *ctx, void *ptr, void *handle)
{
    (void)handle;
    cudaSetDevice(ctx->device);
    cudaFreeHost(ptr);
}

static midint_status copy_async(midint_context *ctx, void *dst, const void *src, size_t bytes,
                                enum cudaMemcpyKind kind, void *stream);
static midint_status cu_synchronize(midint_context *ctx, void *stream);

/* A synchronous copy on the context's own stream. The direction is inferred from the addresses (unified
 * addressing), so a "device buffer" may also be the mapped alias of page-locked memory (host_path.c's small calls). */
static midint_status copy(midint_context *ctx, void *dst, const void *src, size_t bytes)
{
    midint_status st = copy_async(ctx, dst, src, bytes, cudaMemcpyDefault, NULL);
    return st != MIDINT_OK ? st : cu_synchronize(ctx, NULL);
}

static midint_status cu_upload(midint_context *ctx, void *buf, const void *host, size_t bytes)
{
    return copy(ctx, buf, host, bytes);
}

static midint_status cu_download(midint_context *ctx, void *host, const void *buf, size_t bytes)
{
    return copy(ctx, host, buf, bytes);
}

static midint_status cu_launch(midint_context *ctx, const midint_kernel *k, const midint_launch *l, void *stream)
{
    if (k->impl < 0 || (size_t)k->impl >= midint_cuda_launcher_count)
        return midint_fail(ctx, MIDINT_ERR_DEVICE, "CUDA: kernel %s has no launcher", k->name);
    if (l->grid > 0x7fffffffu)
        return midint_fail(ctx, MIDINT_ERR_INVALID_COUNT, "CUDA: %llu blocks exceed the grid limit",
                           (unsigned long long)l->grid);
    midint_status st = use_device(ctx);
    if (st != MIDINT_OK)
        return st;
    if (l->grid == 0)
        return MIDINT_OK;
    cudaError_t err = (cudaError_t)midint_cuda_launchers[k->impl](l, stream ? stream : STATE(ctx)->stream);
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, k->name);
}

static midint_status cu_synchronize(midint_context *ctx, void *stream)
{
    midint_status st = use_device(ctx);
    if (st != MIDINT_OK)
        return st;
    cudaError_t err = cudaStreamSynchronize(stream ? (cudaStream_t)stream : STATE(ctx)->stream);
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaStreamSynchronize");
}

static int cu_aligned16(const void *buf)
{
    return ((uintptr_t)buf & 15u) == 0;
}

/* The direction from the addresses: an expression's output copied step by step (expr_steps.c) may be the mapped
 * alias of page-locked memory (host_path.c's small calls). */
static midint_status cu_copy(midint_context *ctx, void *dst, const void *src, size_t bytes, void *stream)
{
    return copy_async(ctx, dst, src, bytes, cudaMemcpyDefault, stream);
}

static midint_status cu_memory_free(midint_context *ctx, size_t *bytes)
{
    size_t free_bytes = 0, total = 0;
    midint_status st = use_device(ctx);
    if (st != MIDINT_OK)
        return st;
    cudaError_t err = cudaMemGetInfo(&free_bytes, &total);
    *bytes = free_bytes;
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaMemGetInfo");
}

/* cudaMemsetAsync sets bytes: a word whose four bytes differ is set a byte at a time, each a 2D memset of one byte
 * in every word (pitch 4); the fills of zeros, the common case, are one memset. */
static midint_status cu_fill(midint_context *ctx, void *buf, uint32_t value, size_t bytes, void *stream)
{
    midint_status st = use_device(ctx);
    cudaStream_t s = stream ? (cudaStream_t)stream : STATE(ctx)->stream;
    cudaError_t err = cudaSuccess;
    if (st != MIDINT_OK)
        return st;
    if (value == (value & 0xffu) * 0x01010101u)
        err = cudaMemsetAsync(buf, (int)(value & 0xffu), bytes, s);
    for (unsigned k = 0; k < 4 && value != (value & 0xffu) * 0x01010101u && err == cudaSuccess; k++)
        err = cudaMemset2DAsync((char *)buf + k, 4, (int)(value >> (8 * k) & 0xffu), 1, bytes / 4, s);
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaMemsetAsync");
}

/* The direction from the addresses, as cu_copy's. */
static midint_status cu_copy_rect(midint_context *ctx, void *dst, size_t dst_off, size_t dst_pitch, const void *src,
                                  size_t src_off, size_t src_pitch, size_t row_bytes, size_t rows, void *stream)
{
    midint_status st = use_device(ctx);
    if (st != MIDINT_OK)
        return st;
    cudaError_t err = cudaMemcpy2DAsync((char *)dst + dst_off, dst_pitch, (const char *)src + src_off, src_pitch,
                                        row_bytes, rows, cudaMemcpyDefault,
                                        stream ? (cudaStream_t)stream : STATE(ctx)->stream);
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaMemcpy2DAsync");
}

static midint_status cu_timer_begin(midint_context *ctx, void *stream)
{
    cudaError_t err = cudaEventRecord(STATE(ctx)->start, stream ? (cudaStream_t)stream : STATE(ctx)->stream);
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaEventRecord");
}

static midint_status cu_timer_end(midint_context *ctx, void *stream, double *ms)
{
    cuda_state *s = STATE(ctx);
    float f = 0;
    cudaError_t err = cudaEventRecord(s->stop, stream ? (cudaStream_t)stream : s->stream);
    if (err == cudaSuccess)
        err = cudaEventSynchronize(s->stop);
    if (err == cudaSuccess)
        err = cudaEventElapsedTime(&f, s->start, s->stop);
    *ms = f;
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "timing with events");
}

/* Page-locked memory of the caller's own (cudaHostAlloc, cudaMallocHost, cudaHostRegister): both ends of the range
 * are host memory the driver knows. */
static int cu_host_locked(midint_context *ctx, const void *p, size_t bytes)
{
    (void)ctx;
    const char *ends[2] = {p, (const char *)p + (bytes ? bytes - 1 : 0)};
    int one_page = (uintptr_t)ends[0] >> 12 == (uintptr_t)ends[1] >> 12; /* then one lookup tells (~1 us each) */
    for (int i = 0; i < 2 - one_page; i++) {
        struct cudaPointerAttributes attr;
        if (cudaPointerGetAttributes(&attr, ends[i]) != cudaSuccess) {
            cudaGetLastError(); /* an unknown pointer is pageable memory, not an error to keep */
            return 0;
        }
        if (attr.type != cudaMemoryTypeHost)
            return 0;
    }
    return 1;
}

static midint_status cu_pipe_stream(midint_context *ctx, unsigned i, void **stream)
{
    cuda_state *s = STATE(ctx);
    if (!s->pipe[i]) {
        midint_status st = use_device(ctx);
        if (st != MIDINT_OK)
            return st;
        cudaError_t err = cudaStreamCreateWithFlags(&s->pipe[i], cudaStreamNonBlocking);
        if (err != cudaSuccess) {
            s->pipe[i] = NULL;
            return cuda_failed(ctx, err, "cudaStreamCreate");
        }
    }
    *stream = s->pipe[i];
    return MIDINT_OK;
}

static midint_status cu_sub_buffer(midint_context *ctx, void *buf, size_t offset, size_t bytes, void **out)
{
    (void)ctx;
    (void)bytes;
    *out = (char *)buf + offset;
    return MIDINT_OK;
}

static void cu_sub_release(midint_context *ctx, void *sub)
{
    (void)ctx;
    (void)sub;
}

static midint_status copy_async(midint_context *ctx, void *dst, const void *src, size_t bytes,
                                enum cudaMemcpyKind kind, void *stream)
{
    midint_status st = use_device(ctx);
    if (st != MIDINT_OK)
        return st;
    cudaError_t err = cudaMemcpyAsync(dst, src, bytes, kind, stream ? (cudaStream_t)stream : STATE(ctx)->stream);
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaMemcpyAsync");
}

static midint_status cu_upload_async(midint_context *ctx, void *buf, size_t offset, const void *host, size_t bytes,
                                     void *stream)
{
    return copy_async(ctx, (char *)buf + offset, host, bytes, cudaMemcpyHostToDevice, stream);
}

static midint_status cu_download_async(midint_context *ctx, void *host, const void *buf, size_t offset,
                                       size_t bytes, void *stream)
{
    return copy_async(ctx, host, (const char *)buf + offset, bytes, cudaMemcpyDeviceToHost, stream);
}

static midint_status cu_fence_mark(midint_context *ctx, unsigned i, void *stream)
{
    cuda_state *s = STATE(ctx);
    if (s->capturing) /* an event recorded into a graph could not be waited for outside it */
        return MIDINT_OK;
    s->fence_stream[i] = stream ? (cudaStream_t)stream : s->stream;
    cudaError_t err = cudaEventRecord(s->fence[i], s->fence_stream[i]);
    s->fence_marked[i] = err == cudaSuccess;
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaEventRecord");
}

static midint_status cu_fence_wait(midint_context *ctx, void *stream, unsigned i)
{
    cuda_state *s = STATE(ctx);
    if (s->capturing) /* the caller waits before the graph's launch */
        return MIDINT_OK;
    cudaStream_t on = stream ? (cudaStream_t)stream : s->stream;
    /* a mark on the same stream is behind us already (a stream runs in order): no wait to enqueue, which saves a
     * driver call on every grid call of a chain (the division of large numbers makes hundreds). Only on the
     * context's own streams: a caller's stream may have been destroyed since the mark and its handle reused. */
    int own = on == s->stream;
    for (unsigned k = 0; k < MIDINT_PIPE_SLOTS && !own; k++)
        own = on == s->pipe[k] && s->pipe[k];
    const int behind = own && s->fence_stream[i] == on;
    cudaError_t err = s->fence_marked[i] && !behind ? cudaStreamWaitEvent(on, s->fence[i], 0) : cudaSuccess;
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaStreamWaitEvent");
}

static midint_status cu_fence_sync(midint_context *ctx, unsigned i)
{
    cuda_state *s = STATE(ctx);
    cudaError_t err = s->fence_marked[i] ? cudaEventSynchronize(s->fence[i]) : cudaSuccess;
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaEventSynchronize");
}

/* Recording (backend.h): stream capture in this thread's mode, so that another thread's CUDA calls are not refused
 * meanwhile; a call this thread may not make while capturing fails, and with it the recording. */
static midint_status cu_capture_begin(midint_context *ctx, void *stream)
{
    midint_status st = use_device(ctx);
    if (st != MIDINT_OK)
        return st;
    cuda_state *s = STATE(ctx);
    cudaError_t err = cudaStreamBeginCapture(stream ? (cudaStream_t)stream : s->stream, cudaStreamCaptureModeThreadLocal);
    s->capturing = err == cudaSuccess;
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaStreamBeginCapture");
}

static midint_status cu_capture_end(midint_context *ctx, void *stream, void **graph)
{
    cuda_state *s = STATE(ctx);
    cudaGraph_t g = NULL;
    cudaGraphExec_t exec = NULL;
    *graph = NULL;
    s->capturing = 0;
    cudaError_t err = cudaStreamEndCapture(stream ? (cudaStream_t)stream : s->stream, &g);
    if (err == cudaSuccess && g)
        err = cudaGraphInstantiate(&exec, g, 0);
    if (g)
        cudaGraphDestroy(g);
    if (err != cudaSuccess) {
        cudaGetLastError(); /* a failed capture is not sticky: the caller runs the work unrecorded */
        return cuda_failed(ctx, err, "recording a graph");
    }
    *graph = exec;
    return MIDINT_OK;
}

static midint_status cu_graph_launch(midint_context *ctx, void *graph, void *stream)
{
    midint_status st = use_device(ctx);
    if (st != MIDINT_OK)
        return st;
    cudaError_t err = cudaGraphLaunch((cudaGraphExec_t)graph, stream ? (cudaStream_t)stream : STATE(ctx)->stream);
    return err == cudaSuccess ? MIDINT_OK : cuda_failed(ctx, err, "cudaGraphLaunch");
}

static void cu_graph_free(midint_context *ctx, void *graph)
{
    cudaSetDevice(ctx->device);
    cudaGraphExecDestroy((cudaGraphExec_t)graph);
}

/* Kernels reach mapped page-locked memory over the bus through its device alias (the same address under unified
 * addressing). */
static void *cu_host_alias(midint_context *ctx, void *host, void *handle)
{
    (void)handle;
    void *dev = NULL;
    if (use_device(ctx) != MIDINT_OK || cudaHostGetDevicePointer(&dev, host, 0) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return dev;
}

const midint_backend_ops midint_backend_cuda = {
    .id = MIDINT_BACKEND_CUDA,
    .name = "cuda",
    .open = cu_open,
    .close = cu_close,
    .alloc = cu_alloc,
    .free = cu_free,
    .upload = cu_upload,
    .download = cu_download,
    .launch = cu_launch,
    .synchronize = cu_synchronize,
    .aligned16 = cu_aligned16,
    .buffer_bytes = NULL, /* raw pointers carry no size */
    .copy = cu_copy,
    .timer_begin = cu_timer_begin,
    .timer_end = cu_timer_end,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
    .host_locked = cu_host_locked,
    .pipe_stream = cu_pipe_stream,
    .sub_buffer = cu_sub_buffer,
    .sub_release = cu_sub_release,
    .upload_async = cu_upload_async,
    .download_async = cu_download_async,
    .fence_mark = cu_fence_mark,
    .fence_wait = cu_fence_wait,
    .fence_sync = cu_fence_sync,
    .host_alias = cu_host_alias,
    .fill = cu_fill,
    .memory_free = cu_memory_free,
    .copy_rect = cu_copy_rect,
    .kernels_run = NULL, /* the block limits are known at open */
    .capture_begin = cu_capture_begin,
    .capture_end = cu_capture_end,
    .graph_launch = cu_graph_launch,
    .graph_free = cu_graph_free,
};
