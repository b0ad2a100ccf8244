/* host_pipe.h — internal: the host path's pipeline (host_path.c) and its host copies (host_copy.c). */
#ifndef MIDINT_HOST_PIPE_H
#define MIDINT_HOST_PIPE_H

#include "context.h"

/* A batch through the pipeline: operands [0, nin) are inputs, [nin, nin + nout) outputs, each with the caller's
 * memory, its bytes per instance and a name for messages; `run` enqueues the kernels of instances [first, first + m)
 * on `stream`, reading and writing the operands' device sub-buffers (`dev`, in the same order). */
typedef struct midint_pipe_job {
    size_t count, chunk;
    unsigned nin, nout;
    char *user[MIDINT_PIPE_MAX];
    size_t unit[MIDINT_PIPE_MAX];
    const char *name[MIDINT_PIPE_MAX];
    midint_status (*run)(midint_context *ctx, void *arg, void *const *dev, size_t first, size_t m, void *stream);
    void *arg;
} midint_pipe_job;

/* Instances per chunk of a job, from its operands' bytes per instance and count. */
size_t midint_pipe_chunk(const midint_context *ctx, const midint_pipe_job *job);

/* Run a job: synchronous (outputs complete on return; stream ignored) or asynchronous (enqueued after the work on
 * `stream`, which waits for it; every operand page-locked). Arguments were checked; `fn` names the API call. */
midint_status midint_pipe_run(midint_context *ctx, const midint_pipe_job *job, int async, void *stream, const char *fn);

/* Release the host path's buffers (at close), and read its settings (MIDINT_DIRECT_BYTES) at open. */
void midint_host_path_free(midint_context *ctx);
void midint_host_path_init(midint_context *ctx);

/* Host copies over the context's threads (host_copy.c): one segment per contiguous range. */
typedef struct midint_copy_seg {
    void *dst;
    const void *src;
    size_t bytes;
} midint_copy_seg;
void midint_host_copy(midint_context *ctx, const midint_copy_seg *segs, unsigned nseg);
void midint_host_copy_stop(midint_context *ctx);

#endif
