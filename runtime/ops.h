/* ops.h — internal: one batched call as the operations see it, shared by ops.c (checks, device path) and
 * host_path.c (the pipelined host path). */
#ifndef MIDINT_OPS_H
#define MIDINT_OPS_H

#include "context.h"

/* One descriptor per operation: its buffers and what aliasing it allows, shared by both paths. */
typedef struct midint_op_desc {
    const char *aux_name;    /* the per-instance output beside r, or NULL */
    uint32_t r_words_per_n;  /* result words per operand word (2 for a full product) */
    int in_place;            /* r may be exactly a or b: each block reads its inputs before writing r */
} midint_op_desc;

extern const midint_op_desc midint_op_descs[MIDINT_OP_COUNT_];

typedef struct midint_call {
    midint_op op;
    size_t count;
    unsigned bits;
    void *r;
    const void *a, *b;
    void *aux;
} midint_call;

/* What both paths do first: check the arguments, choose the variant, plan it (for the whole batch on device
 * buffers, for one chunk of the host path: midint_host_chunk) and make what its kernels read besides the
 * operands (NTT twiddle tables). Nothing is written when this fails. */
midint_status midint_begin_call(midint_context *ctx, const midint_call *c, const char *fn, int device_handles,
                                midint_plan *plan, void **tables);

/* MIDINT_TEST_CORRUPT: flip a bit of the first result word of the planted variant (device buffer r). */
midint_status midint_spoil_if_planted(midint_context *ctx, const midint_variant *v, void *r, void *stream);

/* A batch through the host path's pipeline (host_path.c): operands [0, nin) are inputs, [nin, nin + nout)
 * outputs, each with the caller's memory, its bytes per instance and a name for messages; `run` enqueues the
 * kernels of instances [first, first + m) on `stream`, reading and writing the operands' device sub-buffers
 * (`dev`, in the same order). */
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

/* Run a job: synchronous (r complete on return; stream ignored) or asynchronous (enqueued after the work on
 * `stream`, which waits for it; every operand page-locked). Arguments were checked; `fn` names the API call. */
midint_status midint_pipe_run(midint_context *ctx, const midint_pipe_job *job, int async, void *stream, const char *fn);

/* Instances per chunk of a built-in operation's host call. */
size_t midint_host_chunk(const midint_context *ctx, const midint_call *c);

/* A built-in operation's host call: checks, dispatch and plan, then the pipeline. */
midint_status midint_host_run(midint_context *ctx, const midint_call *c, int async, void *stream, const char *fn);

/* Whether [p, p + pn) and [q, q + qn) overlap. */
int midint_ranges_overlap(const void *p, size_t pn, const void *q, size_t qn);

/* Release the host path's buffers (at close). */
void midint_host_path_free(midint_context *ctx);
/* Read the host path's settings (MIDINT_DIRECT_BYTES) at open. */
void midint_host_path_init(midint_context *ctx);

#endif
