/* backend_opencl.c — the OpenCL backend: ICD loaded at run time, programs built at first use, per context. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opencl_api.h"

midint_cl_api midint_cl;
static pthread_once_t cl_once = PTHREAD_ONCE_INIT;
static char cl_load_error[256];
midint_sub_group_info_fn midint_cl_sub_group_info;

static void load_icd(void)
{
    const char *names[] = {"libOpenCL.so.1", "libOpenCL.so"};
    void *h = NULL;
    for (size_t i = 0; i < 2 && !h; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(cl_load_error, sizeof cl_load_error, "no OpenCL ICD loader (libOpenCL.so.1) could be loaded");
        return;
    }
#define X(f)                                                                                                       \
    if (!(*(void **)&midint_cl.f = dlsym(h, #f))) {                                                                \
        snprintf(cl_load_error, sizeof cl_load_error, "the OpenCL loader lacks %s", #f);                           \
        return;                                                                                                    \
    }
    CL_FUNCS(X)
#undef X
    *(void **)&midint_cl_sub_group_info = dlsym(h, "clGetKernelSubGroupInfo");
}

static midint_status cl_failed(midint_context *ctx, cl_int err, const char *what)
{
    return midint_fail(ctx, err == CL_OUT_OF_RESOURCES || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                                    err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE
                                ? MIDINT_ERR_OUT_OF_MEMORY
                                : MIDINT_ERR_DEVICE,
                       "OpenCL: %s failed with error %d", what, (int)err);
}

static void ocl_close(midint_context *ctx)
{
    cl_state *s = STATE(ctx);
    if (!s)
        return;
    for (size_t i = 0; s->kernels && i < midint_opencl_kernel_count; i++)
        if (s->kernels[i])
            midint_cl.clReleaseKernel(s->kernels[i]);
    for (size_t i = 0; s->programs && i < midint_opencl_program_count; i++)
        if (s->programs[i])
            midint_cl.clReleaseProgram(s->programs[i]);
    for (int i = 0; i < MIDINT_FENCES; i++)
        if (s->fence[i])
            midint_cl.clReleaseEvent(s->fence[i]);
    for (int i = 0; i < MIDINT_PIPE_SLOTS; i++)
        if (s->pipe[i])
            midint_cl.clReleaseCommandQueue(s->pipe[i]);
    free(s->kernels);
    free(s->programs);
    free(s->plain);
    if (s->queue)
        midint_cl.clReleaseCommandQueue(s->queue);
    if (s->context)
        midint_cl.clReleaseContext(s->context);
    free(s);
    ctx->be = NULL;
}

/* The device-th device over all platforms, in platform order. */
static midint_status find_device(midint_context *ctx, int device, cl_device_id *out)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (midint_cl.clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0)
        return midint_fail(ctx, MIDINT_ERR_NO_DEVICE, "OpenCL: no platform is installed (for the CPU, install PoCL)");
    int seen = 0;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (midint_cl.clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS)
            continue;
        if (device < seen + (int)nd) {
            *out = devs[device - seen];
            return MIDINT_OK;
        }
        seen += (int)nd;
    }
    return midint_fail(ctx, MIDINT_ERR_NO_DEVICE, "OpenCL: device %d does not exist (%d device%s found)", device,
                       seen, seen == 1 ? "" : "s");
}

static midint_status ocl_open(midint_context *ctx, int device)
{
    pthread_once(&cl_once, load_icd);
    if (cl_load_error[0])
        return midint_fail(ctx, MIDINT_ERR_NO_BACKEND, "OpenCL: %s", cl_load_error);
    cl_device_id dev;
    midint_status st = find_device(ctx, device, &dev);
    if (st != MIDINT_OK)
        return st;
    cl_state *s = calloc(1, sizeof *s);
    if (s) {
        s->kernels = calloc(midint_opencl_kernel_count + 1, sizeof *s->kernels);
        s->programs = calloc(midint_opencl_program_count + 1, sizeof *s->programs);
        s->plain = calloc(midint_opencl_program_count + 1, 1);
    }
    ctx->be = s;
    if (s)
        s->probe_fail = ctx->hooks.probe_fail;
    if (!s || !s->kernels || !s->programs || !s->plain) {
        ocl_close(ctx);
        return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "OpenCL: out of host memory");
    }
    s->device = dev;
    cl_int err;
    s->context = midint_cl.clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (!s->context) {
        ocl_close(ctx);
        return cl_failed(ctx, err, "clCreateContext");
    }
    s->queue = midint_cl.clCreateCommandQueue(s->context, dev, 0, &err);
    if (!s->queue) {
        ocl_close(ctx);
        return cl_failed(ctx, err, "clCreateCommandQueue");
    }
    size_t wg = 0;
    cl_ulong local = 0;
    cl_uint align_bits = 0;
    midint_cl.clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    ctx->sub_align = align_bits / 8 > 256 ? align_bits / 8 : 256; /* sub-buffer origins */
    midint_cl.clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    midint_cl.clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    midint_cl.clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof ctx->device_name - 1, ctx->device_name, NULL);
    ctx->max_block = wg > UINT32_MAX ? UINT32_MAX : (uint32_t)wg;
    ctx->max_shared = local > UINT32_MAX ? UINT32_MAX : (uint32_t)local;
    return MIDINT_OK;
}

static midint_status ocl_alloc(midint_context *ctx, size_t bytes, void **buf)
{
    cl_int err;
    cl_mem m = midint_cl.clCreateBuffer(STATE(ctx)->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!m)
        return cl_failed(ctx, err, "clCreateBuffer");
    *buf = m;
    return MIDINT_OK;
}

static void ocl_free(midint_context *ctx, void *buf)
{
    (void)ctx;
    midint_cl.clReleaseMemObject((cl_mem)buf);
}

/* Host memory the implementation allocates for a buffer (pinned where the device copies by DMA), mapped for the
 * host for as long as it lives: the buffer is the handle. */
static midint_status ocl_host_alloc(midint_context *ctx, size_t bytes, void **ptr, void **handle)
{
    cl_int err;
    cl_mem m = midint_cl.clCreateBuffer(STATE(ctx)->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                                        &err);
    if (!m)
        return cl_failed(ctx, err, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    void *p = midint_cl.clEnqueueMapBuffer(STATE(ctx)->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                           NULL, NULL, &err);
    if (!p) {
        midint_cl.clReleaseMemObject(m);
        return cl_failed(ctx, err, "clEnqueueMapBuffer");
    }
    *ptr = p;
    *handle = m;
    return MIDINT_OK;
}

static void ocl_host_free(midint_context *ctx, void *ptr, void *handle)
{
    midint_cl.clEnqueueUnmapMemObject(STATE(ctx)->queue, (cl_mem)handle, ptr, 0, NULL, NULL);
    midint_cl.clFinish(STATE(ctx)->queue);
    midint_cl.clReleaseMemObject((cl_mem)handle);
}

static midint_status ocl_upload(midint_context *ctx, void *buf, const void *host, size_t bytes)
{
    cl_int err = midint_cl.clEnqueueWriteBuffer(STATE(ctx)->queue, (cl_mem)buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clEnqueueWriteBuffer");
}

static midint_status ocl_download(midint_context *ctx, void *host, const void *buf, size_t bytes)
{
    cl_int err = midint_cl.clEnqueueReadBuffer(STATE(ctx)->queue, (cl_mem)buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clEnqueueReadBuffer");
}

/* How program i is spelled: the context's warps, or local memory once its own build with them did not fit. */
static warp_spelling program_warps(const cl_state *s, int i)
{
    return s->plain[i] ? WARPS_LOCAL : s->warps;
}

/* Build program i on first use; the build log's start goes into the message on failure. `who` names the kernel.
 * A program that does not build with the device's warp primitives is built with local-memory ones. */
static midint_status get_program(midint_context *ctx, int i, const char *who, cl_program *out)
{
    cl_state *s = STATE(ctx);
    if (!s->programs[i]) {
        midint_ocl_choose_warps(s);
        if (s->warps_error[0])
            return midint_fail(ctx, MIDINT_ERR_DEVICE, "OpenCL: MIDINT_OPENCL_WARPS=%s: %s",
                               getenv("MIDINT_OPENCL_WARPS"), s->warps_error);
        const char *srcs[2] = {midint_opencl_common, midint_opencl_programs[i]};
        warp_spelling w = program_warps(s, i);
        cl_int err;
        cl_program p = midint_ocl_build(s, srcs, w, &err);
        if (p && err != CL_SUCCESS && w != WARPS_LOCAL && !s->forced_warps) {
            midint_cl.clReleaseProgram(p);
            s->plain[i] = 1;
            p = midint_ocl_build(s, srcs, WARPS_LOCAL, &err);
        }
        if (!p)
            return cl_failed(ctx, err, "clCreateProgramWithSource");
        if (err != CL_SUCCESS) {
            char log[300] = "";
            midint_cl.clGetProgramBuildInfo(p, s->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
            midint_cl.clReleaseProgram(p);
            return midint_fail(ctx, MIDINT_ERR_DEVICE, "OpenCL: building %s failed (error %d): %s", who, (int)err, log);
        }
        s->programs[i] = p;
    }
    *out = s->programs[i];
    return MIDINT_OK;
}

/* Kernel k, made from its program on first use. */
static midint_status get_kernel(midint_context *ctx, const midint_kernel *k, cl_kernel *out)
{
    cl_state *s = STATE(ctx);
    if (k->impl < 0 || (size_t)k->impl >= midint_opencl_kernel_count)
        return midint_fail(ctx, MIDINT_ERR_DEVICE, "OpenCL: kernel %s has no source", k->name);
    if (!s->kernels[k->impl]) {
        const midint_opencl_kernel *src = &midint_opencl_kernels[k->impl];
        cl_program p = NULL;
        midint_status st = get_program(ctx, src->program, k->name, &p);
        if (st != MIDINT_OK)
            return st;
        cl_int err;
        cl_kernel kern = midint_cl.clCreateKernel(p, src->name, &err);
        if (kern && !s->plain[src->program] && !midint_ocl_warps_fit(s, kern, s->warps, k->block)) {
            if (s->forced_warps) {
                midint_cl.clReleaseKernel(kern);
                return midint_fail(ctx, MIDINT_ERR_DEVICE, "OpenCL: %s's sub-groups are not whole warps of 32 "
                                   "(MIDINT_OPENCL_WARPS=%s)", k->name, midint_ocl_warp_names[s->warps]);
            }
            /* its sub-groups are not whole warps: the program again, with local-memory warps */
            midint_cl.clReleaseKernel(kern);
            midint_cl.clReleaseProgram(s->programs[src->program]);
            s->programs[src->program] = NULL;
            s->plain[src->program] = 1;
            if ((st = get_program(ctx, src->program, k->name, &p)) != MIDINT_OK)
                return st;
            kern = midint_cl.clCreateKernel(p, src->name, &err);
        }
        if (!kern)
            return cl_failed(ctx, err, "clCreateKernel");
        size_t wg = 0;
        midint_cl.clGetKernelWorkGroupInfo(kern, s->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
        size_t cap = ctx->hooks.kernel_wg; /* test hook: as if kernels allowed at most this many */
        if (cap && (!wg || wg > cap))
            wg = cap;
        if (wg && wg < k->block) {
            s->block_refused = 1;
            midint_cl.clReleaseKernel(kern);
            return midint_fail(ctx, MIDINT_ERR_DEVICE, "OpenCL: %s needs %u work-items per group; the device "
                               "allows %zu for it (built with %s)", k->name, k->block, wg,
                               midint_ocl_build_options(s, program_warps(s, src->program)));
        }
        s->kernels[k->impl] = kern;
    }
    *out = s->kernels[k->impl];
    return MIDINT_OK;
}

/* Whether every kernel of v can run its work-group here: each built (they are needed next anyway) and asked. A
 * kernel that does not build counts as running, so that its launch reports the build's error. */
static int ocl_kernels_run(midint_context *ctx, const midint_variant *v)
{
    cl_state *s = STATE(ctx);
    for (uint32_t i = v->kernel; i < v->kernel + v->nkernels; i++) {
        cl_kernel kern;
        s->block_refused = 0;
        if (get_kernel(ctx, &midint_kernels[i], &kern) != MIDINT_OK && s->block_refused)
            return 0;
    }
    return 1;
}

static midint_status ocl_launch(midint_context *ctx, const midint_kernel *kd, const midint_launch *l, void *stream)
{
    cl_kernel k = NULL;
    midint_status st = get_kernel(ctx, kd, &k);
    if (st != MIDINT_OK)
        return st;
    if (l->grid == 0)
        return MIDINT_OK;
    /* buffers: a NULL handle is passed as a NULL buffer */
    cl_mem bufs[6] = {(cl_mem)l->r, (cl_mem)l->a, (cl_mem)l->b, (cl_mem)l->aux, (cl_mem)l->ws, (cl_mem)l->st};
    cl_ulong count = l->count, inst0 = l->inst0;
    cl_uint n = l->n, ti = l->ti, ipb = l->ipb, vec = l->vec, x0 = l->x0, x1 = l->x1;
    cl_int err = 0;
    for (cl_uint i = 0; i < 4; i++)
        err |= midint_cl.clSetKernelArg(k, i, sizeof(cl_mem), bufs[i] ? (void *)&bufs[i] : NULL);
    err |= midint_cl.clSetKernelArg(k, 4, sizeof count, &count);
    err |= midint_cl.clSetKernelArg(k, 5, sizeof n, &n);
    err |= midint_cl.clSetKernelArg(k, 6, sizeof ti, &ti);
    err |= midint_cl.clSetKernelArg(k, 7, sizeof ipb, &ipb);
    err |= midint_cl.clSetKernelArg(k, 8, sizeof vec, &vec);
    for (cl_uint i = 4; i < 6; i++)
        err |= midint_cl.clSetKernelArg(k, 5 + i, sizeof(cl_mem), bufs[i] ? (void *)&bufs[i] : NULL);
    err |= midint_cl.clSetKernelArg(k, 11, sizeof inst0, &inst0);
    err |= midint_cl.clSetKernelArg(k, 12, sizeof x0, &x0);
    err |= midint_cl.clSetKernelArg(k, 13, sizeof x1, &x1);
    cl_uint local_arg = 14;
    if (kd->role == MIDINT_ROLE_EXPR) /* expression kernels: their buffers io0..io7 come next */
        for (cl_uint i = 0; i < MIDINT_EXPR_MAX_IO; i++, local_arg++) {
            cl_mem io = (cl_mem)l->io[i];
            err |= midint_cl.clSetKernelArg(k, local_arg, sizeof(cl_mem), io ? (void *)&io : NULL);
        }
    /* a local-memory argument must have a positive size: a kernel that uses none (the map family) gets 16 bytes */
    err |= midint_cl.clSetKernelArg(k, local_arg, kd->shared_bytes ? kd->shared_bytes : 16u, NULL);
    if (err != CL_SUCCESS)
        return cl_failed(ctx, err, "clSetKernelArg");
    size_t local = kd->block, global = (size_t)l->grid * kd->block;
    cl_command_queue q = stream ? (cl_command_queue)stream : STATE(ctx)->queue;
    err = midint_cl.clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clEnqueueNDRangeKernel");
}

static midint_status ocl_synchronize(midint_context *ctx, void *stream)
{
    cl_int err = midint_cl.clFinish(stream ? (cl_command_queue)stream : STATE(ctx)->queue);
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clFinish");
}

static int ocl_aligned16(const void *buf)
{
    (void)buf; /* buffer objects are aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN (>= 128 bytes in 1.2) */
    return 1;
}

static size_t ocl_buffer_bytes(midint_context *ctx, const void *buf)
{
    size_t size = 0;
    (void)ctx;
    return midint_cl.clGetMemObjectInfo((cl_mem)buf, CL_MEM_SIZE, sizeof size, &size, NULL) == CL_SUCCESS ? size : 0;
}

static midint_status ocl_copy(midint_context *ctx, void *dst, const void *src, size_t bytes, void *stream)
{
    cl_command_queue q = stream ? (cl_command_queue)stream : STATE(ctx)->queue;
    cl_int err = midint_cl.clEnqueueCopyBuffer(q, (cl_mem)src, (cl_mem)dst, 0, 0, bytes, 0, NULL, NULL);
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clEnqueueCopyBuffer");
}

static midint_status ocl_memory_free(midint_context *ctx, size_t *bytes)
{
    cl_ulong global = 0;
    cl_int err = midint_cl.clGetDeviceInfo(STATE(ctx)->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    *bytes = global > SIZE_MAX ? SIZE_MAX : (size_t)global;
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clGetDeviceInfo");
}

static midint_status ocl_fill(midint_context *ctx, void *buf, uint32_t value, size_t bytes, void *stream)
{
    cl_command_queue q = stream ? (cl_command_queue)stream : STATE(ctx)->queue;
    cl_int err = midint_cl.clEnqueueFillBuffer(q, (cl_mem)buf, &value, sizeof value, 0, bytes, 0, NULL, NULL);
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clEnqueueFillBuffer");
}

/* The buffer a sub-buffer (the host path's operands) lies in, and its offset there; a buffer is its own. */
static cl_mem parent_of(cl_mem m, size_t *offset)
{
    cl_mem parent = NULL;
    *offset = 0;
    if (midint_cl.clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) != CL_SUCCESS ||
        !parent)
        return m;
    midint_cl.clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof *offset, offset, NULL);
    return parent;
}

/* A byte offset as a rectangle's origin: whole rows of `pitch` bytes (0: `row` bytes, OpenCL's default) in y, the rest
 * in x. The same address, but the standard's overlap test for copies within one buffer (CL_MEM_COPY_OVERLAP, as
 * PoCL applies it) counts an x origin past the row pitch as overlapping the rows it wraps into. */
static void rect_origin(size_t off, size_t pitch, size_t row, size_t origin[3])
{
    const size_t p = pitch ? pitch : row;
    origin[0] = off % p;
    origin[1] = off / p;
    origin[2] = 0;
}

/* On the parent buffers at the sub-buffers' offsets: PoCL 2.10 crashed in a rectangular copy on a sub-buffer. */
static midint_status ocl_copy_rect(midint_context *ctx, void *dst, size_t dst_off, size_t dst_pitch, const void *src,
                                   size_t src_off, size_t src_pitch, size_t row_bytes, size_t rows, void *stream)
{
    cl_command_queue q = stream ? (cl_command_queue)stream : STATE(ctx)->queue;
    size_t src_origin[3], dst_origin[3], region[3] = {row_bytes, rows, 1}, src_base = 0, dst_base = 0;
    cl_mem s = parent_of((cl_mem)src, &src_base), d = parent_of((cl_mem)dst, &dst_base);
    rect_origin(src_base + src_off, src_pitch, row_bytes, src_origin);
    rect_origin(dst_base + dst_off, dst_pitch, row_bytes, dst_origin);
    cl_int err = midint_cl.clEnqueueCopyBufferRect(q, s, d, src_origin, dst_origin, region, src_pitch, 0, dst_pitch,
                                                   0, 0, NULL, NULL);
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clEnqueueCopyBufferRect");
}

/* OpenCL 1.2 event profiling needs a profiling queue; the wall clock around a finished queue is enough for
 * the CPU device this backend mostly serves. */
static midint_status ocl_timer_begin(midint_context *ctx, void *stream)
{
    midint_status st = ocl_synchronize(ctx, stream);
    clock_gettime(CLOCK_MONOTONIC, &STATE(ctx)->t0);
    return st;
}

static midint_status ocl_timer_end(midint_context *ctx, void *stream, double *ms)
{
    struct timespec t1;
    midint_status st = ocl_synchronize(ctx, stream);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *ms = (double)(t1.tv_sec - STATE(ctx)->t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - STATE(ctx)->t0.tv_nsec) / 1e6;
    return st;
}

static cl_command_queue queue_of(midint_context *ctx, void *stream)
{
    return stream ? (cl_command_queue)stream : STATE(ctx)->queue;
}

static midint_status ocl_pipe_stream(midint_context *ctx, unsigned i, void **stream)
{
    cl_state *s = STATE(ctx);
    if (!s->pipe[i]) {
        cl_int err;
        s->pipe[i] = midint_cl.clCreateCommandQueue(s->context, s->device, 0, &err);
        if (!s->pipe[i])
            return cl_failed(ctx, err, "clCreateCommandQueue");
    }
    *stream = s->pipe[i];
    return MIDINT_OK;
}

static midint_status ocl_sub_buffer(midint_context *ctx, void *buf, size_t offset, size_t bytes, void **out)
{
    cl_buffer_region region = {offset, bytes};
    cl_int err;
    cl_mem m = midint_cl.clCreateSubBuffer((cl_mem)buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    if (!m)
        return cl_failed(ctx, err, "clCreateSubBuffer");
    *out = m;
    return MIDINT_OK;
}

static void ocl_sub_release(midint_context *ctx, void *sub)
{
    (void)ctx;
    midint_cl.clReleaseMemObject((cl_mem)sub); /* the implementation keeps it until the commands that use it are done */
}

static midint_status ocl_upload_async(midint_context *ctx, void *buf, size_t offset, const void *host, size_t bytes,
                                      void *stream)
{
    cl_int err = midint_cl.clEnqueueWriteBuffer(queue_of(ctx, stream), (cl_mem)buf, CL_FALSE, offset, bytes, host, 0,
                                                NULL, NULL);
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clEnqueueWriteBuffer");
}

static midint_status ocl_download_async(midint_context *ctx, void *host, const void *buf, size_t offset,
                                        size_t bytes, void *stream)
{
    cl_int err = midint_cl.clEnqueueReadBuffer(queue_of(ctx, stream), (cl_mem)buf, CL_FALSE, offset, bytes, host, 0,
                                               NULL, NULL);
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clEnqueueReadBuffer");
}

/* A marker, and a flush so that the queue's commands start while the host goes on with the next chunk. */
static midint_status ocl_fence_mark(midint_context *ctx, unsigned i, void *stream)
{
    cl_state *s = STATE(ctx);
    cl_event ev = NULL;
    cl_int err = midint_cl.clEnqueueMarkerWithWaitList(queue_of(ctx, stream), 0, NULL, &ev);
    if (err != CL_SUCCESS)
        return cl_failed(ctx, err, "clEnqueueMarkerWithWaitList");
    if (s->fence[i])
        midint_cl.clReleaseEvent(s->fence[i]);
    s->fence[i] = ev;
    err = midint_cl.clFlush(queue_of(ctx, stream));
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clFlush");
}

static midint_status ocl_fence_wait(midint_context *ctx, void *stream, unsigned i)
{
    cl_state *s = STATE(ctx);
    cl_int err = s->fence[i] ? midint_cl.clEnqueueBarrierWithWaitList(queue_of(ctx, stream), 1, &s->fence[i], NULL)
                             : CL_SUCCESS;
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clEnqueueBarrierWithWaitList");
}

static midint_status ocl_fence_sync(midint_context *ctx, unsigned i)
{
    cl_state *s = STATE(ctx);
    cl_int err = s->fence[i] ? midint_cl.clWaitForEvents(1, &s->fence[i]) : CL_SUCCESS;
    return err == CL_SUCCESS ? MIDINT_OK : cl_failed(ctx, err, "clWaitForEvents");
}

const midint_backend_ops midint_backend_opencl = {
    .id = MIDINT_BACKEND_OPENCL,
    .name = "opencl",
    .open = ocl_open,
    .close = ocl_close,
    .alloc = ocl_alloc,
    .free = ocl_free,
    .upload = ocl_upload,
    .download = ocl_download,
    .launch = ocl_launch,
    .synchronize = ocl_synchronize,
    .aligned16 = ocl_aligned16,
    .buffer_bytes = ocl_buffer_bytes,
    .copy = ocl_copy,
    .timer_begin = ocl_timer_begin,
    .timer_end = ocl_timer_end,
    .host_alloc = ocl_host_alloc,
    .host_free = ocl_host_free,
    .host_locked = NULL, /* only midint_host_alloc's */
    .pipe_stream = ocl_pipe_stream,
    .sub_buffer = ocl_sub_buffer,
    .sub_release = ocl_sub_release,
    .upload_async = ocl_upload_async,
    .download_async = ocl_download_async,
    .fence_mark = ocl_fence_mark,
    .fence_wait = ocl_fence_wait,
    .fence_sync = ocl_fence_sync,
    .host_alias = NULL, /* kernels may not write a mapped buffer (OpenCL 1.2) */
    .fill = ocl_fill,
    .memory_free = ocl_memory_free,
    .copy_rect = ocl_copy_rect,
    .kernels_run = ocl_kernels_run,
};

void *midint_opencl_context(const midint_context *ctx)
{
    return ctx && ctx->ops == &midint_backend_opencl ? (void *)STATE(ctx)->context : NULL;
}

void *midint_opencl_device(const midint_context *ctx)
{
    return ctx && ctx->ops == &midint_backend_opencl ? (void *)STATE(ctx)->device : NULL;
}

void *midint_opencl_queue(const midint_context *ctx)
{
    return ctx && ctx->ops == &midint_backend_opencl ? (void *)STATE(ctx)->queue : NULL;
}

const char *midint_opencl_warps(const midint_context *ctx)
{
    if (!ctx || ctx->ops != &midint_backend_opencl)
        return NULL;
    midint_ocl_choose_warps(STATE(ctx));
    return midint_ocl_warp_names[STATE(ctx)->warps];
}
