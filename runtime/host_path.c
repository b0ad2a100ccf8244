/* host_path.c — host calls: chunks pipelined over the context's slots (copy in, kernels, copy out overlapped),
 * pageable operands staged through page-locked memory by host threads, page-locked ones copied directly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_pipe.h"

/* A chunk's inputs hold at most CHUNK_MAX_IN bytes, and the batch is cut into at least CHUNK_SPLIT chunks when
 * each keeps CHUNK_MIN_IN bytes: short chunks fill and drain the pipeline quickly, long ones spread the fixed
 * cost of a copy and a launch (a few microseconds) over more bytes. */
#define CHUNK_MAX_IN ((size_t)32 << 20)
#define CHUNK_MIN_IN ((size_t)1 << 20)
#define CHUNK_SPLIT 8

/* A synchronous call of at most DIRECT_BYTES (inputs and outputs together) runs "direct": its operands are copied
 * into the mapped staging and its kernels read and write them there over the bus, where backend host_alias allows.
 * That saves the two copies to and from the device (several microseconds each), which dominate a small call; the
 * kernels then wait on the bus for each access, cheap for a few kilobytes. MIDINT_DIRECT_BYTES overrides it
 * (0: never), to measure one path against the other. */
#define DIRECT_BYTES ((size_t)32 << 10)

void midint_host_path_init(midint_context *ctx)
{
    const char *env = getenv("MIDINT_DIRECT_BYTES");
    ctx->direct_bytes = env && *env ? (size_t)strtoull(env, NULL, 10) : DIRECT_BYTES;
}

size_t midint_pipe_chunk(const midint_context *ctx, const midint_pipe_job *job)
{
    size_t in_unit = 0, unit = 0;
    for (unsigned k = 0; k < job->nin + job->nout; k++) {
        in_unit += k < job->nin ? job->unit[k] : 0;
        unit += job->unit[k];
    }
    size_t target = in_unit * job->count / CHUNK_SPLIT;
    target = target < CHUNK_MIN_IN ? CHUNK_MIN_IN : target > CHUNK_MAX_IN ? CHUNK_MAX_IN : target;
    size_t chunk = target / (in_unit ? in_unit : 1), cap = ctx->staging_bytes / MIDINT_PIPE_SLOTS / unit;
    chunk = chunk > cap ? cap : chunk; /* the cap covers all slots */
    return chunk == 0 ? 1 : chunk > job->count ? job->count : chunk;
}

/* Whether [p, p + bytes) is page-locked: inside one of the context's midint_host_alloc blocks, or so by the backend. */
static int host_locked(midint_context *ctx, const void *p, size_t bytes)
{
    for (const midint_host_block *blk = ctx->host_blocks; blk; blk = blk->next)
        if ((const char *)p >= (const char *)blk->ptr && (const char *)p + bytes <= (const char *)blk->ptr + blk->bytes)
            return 1;
    return ctx->ops->host_locked && ctx->ops->host_locked(ctx, p, bytes);
}

static size_t align_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

/* A job in the pipeline's terms. */
typedef struct pipe_call {
    const midint_pipe_job *job;
    size_t chunks;
    unsigned nops;                          /* inputs, then outputs */
    int staged[MIDINT_PIPE_MAX];            /* copied through page-locked staging (pageable memory) */
    size_t layout[MIDINT_PIPE_MAX * 2];     /* offset and bytes of each operand in its slot buffer */
    size_t in_bytes, out_bytes;             /* the slot's two buffers */
    int any_staged;
    int direct;                             /* kernels on slot 0's mapped staging, no device copies */
    void *direct_sub[MIDINT_PIPE_MAX];      /* then the operands' handles there */
} pipe_call;

static int is_output(const pipe_call *pc, unsigned k)
{
    return k >= pc->job->nin;
}

static void release_subs(midint_context *ctx, midint_pipe_slot *s)
{
    for (int k = 0; k < MIDINT_PIPE_MAX; k++)
        if (s->sub[k])
            ctx->ops->sub_release(ctx, s->sub[k]);
    memset(s->sub, 0, sizeof s->sub);
    memset(s->layout, 0, sizeof s->layout);
}

/* Make slot i ready for the call: device buffers large enough, sub-buffers for its layout, staging when some
 * operand is pageable. Anything replaced is freed only once the slot's earlier work is done. */
static midint_status prepare_slot(midint_context *ctx, unsigned i, const pipe_call *pc)
{
    const midint_backend_ops *ops = ctx->ops;
    midint_pipe_slot *s = &ctx->pipe[i];
    const size_t need[2] = {pc->in_bytes, pc->out_bytes};
    int grow_dev = !pc->direct && (need[0] > s->dev_bytes[0] || need[1] > s->dev_bytes[1]);
    int grow_host = pc->any_staged && need[0] + need[1] > s->host_bytes;
    int relayout = !pc->direct && memcmp(s->layout, pc->layout, sizeof s->layout) != 0;
    midint_status st = MIDINT_OK;
    if ((grow_dev || grow_host || relayout) && (st = ops->fence_sync(ctx, i)) != MIDINT_OK)
        return st;
    if (grow_dev || relayout)
        release_subs(ctx, s);
    for (int b = 0; b < 2 && grow_dev; b++) {
        if (s->dev[b])
            ops->free(ctx, s->dev[b]);
        s->dev[b] = NULL;
        s->dev_bytes[b] = 0;
        if ((st = ops->alloc(ctx, need[b], &s->dev[b])) != MIDINT_OK)
            return st;
        s->dev_bytes[b] = need[b];
    }
    if (!s->sub[0] && !pc->direct) {
        for (unsigned k = 0; k < pc->nops; k++)
            if ((st = ops->sub_buffer(ctx, s->dev[is_output(pc, k)], pc->layout[2 * k], pc->layout[2 * k + 1],
                                      &s->sub[k])) != MIDINT_OK) {
                release_subs(ctx, s);
                return st;
            }
        memcpy(s->layout, pc->layout, sizeof s->layout);
    }
    if (grow_host) {
        if (s->host)
            ops->host_free(ctx, s->host, s->host_handle);
        s->host = s->host_handle = s->host_dev = NULL;
        s->host_bytes = 0;
        if ((st = ops->host_alloc(ctx, need[0] + need[1], &s->host, &s->host_handle)) != MIDINT_OK)
            return st;
        s->host_bytes = need[0] + need[1];
        s->host_dev = ops->host_alias ? ops->host_alias(ctx, s->host, s->host_handle) : NULL;
    }
    return MIDINT_OK;
}

/* Where operand k of slot i stands in the staging memory. */
static char *staging(midint_context *ctx, const pipe_call *pc, unsigned i, unsigned k)
{
    return (char *)ctx->pipe[i].host + (is_output(pc, k) ? pc->in_bytes : 0) + pc->layout[2 * k];
}

static size_t chunk_first(const pipe_call *pc, size_t j)
{
    return j * pc->job->chunk;
}

static size_t chunk_count(const pipe_call *pc, size_t j)
{
    size_t first = chunk_first(pc, j), count = pc->job->count;
    return count - first < pc->job->chunk ? count - first : pc->job->chunk;
}

static char *user_at(const pipe_call *pc, size_t j, unsigned k)
{
    return pc->job->user[k] + chunk_first(pc, j) * pc->job->unit[k];
}

/* Add the host copies of chunk j's staged inputs (outputs = 0: into staging) or outputs (out of it). */
static unsigned add_copies(midint_context *ctx, const pipe_call *pc, size_t j, int outputs, midint_copy_seg *segs,
                           unsigned nseg)
{
    unsigned slot = (unsigned)(j % MIDINT_PIPE_SLOTS);
    for (unsigned k = 0; k < pc->nops; k++) {
        if (!pc->staged[k] || is_output(pc, k) != outputs)
            continue;
        char *user = user_at(pc, j, k), *stage = staging(ctx, pc, slot, k);
        size_t bytes = chunk_count(pc, j) * pc->job->unit[k];
        segs[nseg++] = outputs ? (midint_copy_seg){user, stage, bytes} : (midint_copy_seg){stage, user, bytes};
    }
    return nseg;
}

/* Enqueue the copies of chunk j's inputs (outputs = 0) or outputs: one copy for a run of staged operands (they
 * are laid out in order), one per page-locked operand, straight from or to the caller's memory. */
static midint_status enqueue_copies(midint_context *ctx, const pipe_call *pc, size_t j, int outputs, void *stream)
{
    unsigned slot = (unsigned)(j % MIDINT_PIPE_SLOTS);
    void *buf = ctx->pipe[slot].dev[outputs];
    size_t m = chunk_count(pc, j);
    unsigned k0 = outputs ? pc->job->nin : 0, k1 = outputs ? pc->nops : pc->job->nin;
    midint_status st = MIDINT_OK;
    for (unsigned k = k0; k < k1 && st == MIDINT_OK; k++) {
        size_t off = pc->layout[2 * k], bytes = m * pc->job->unit[k];
        char *host = pc->staged[k] ? staging(ctx, pc, slot, k) : user_at(pc, j, k);
        while (pc->staged[k] && k + 1 < k1 && pc->staged[k + 1]) { /* this operand and the next, in one copy */
            k++;
            bytes = pc->layout[2 * k] + m * pc->job->unit[k] - off;
        }
        st = outputs ? ctx->ops->download_async(ctx, host, buf, off, bytes, stream)
                     : ctx->ops->upload_async(ctx, buf, off, host, bytes, stream);
    }
    return st;
}

/* Enqueue chunk j on its slot: copies in, the kernels, copies out, the slot's fence. */
static midint_status enqueue_chunk(midint_context *ctx, const pipe_call *pc, size_t j)
{
    unsigned slot = (unsigned)(j % MIDINT_PIPE_SLOTS);
    void *stream = NULL;
    midint_status st = ctx->ops->pipe_stream(ctx, slot, &stream);
    if (st == MIDINT_OK && ctx->hooks.fail_chunk == j + 1)
        st = midint_fail(ctx, MIDINT_ERR_DEVICE, "planted failure of chunk %zu (MIDINT_TEST_FAIL_CHUNK)", j + 1);
    if (st == MIDINT_OK && !pc->direct)
        st = enqueue_copies(ctx, pc, j, 0, stream);
    if (st == MIDINT_OK)
        st = pc->job->run(ctx, pc->job->arg, pc->direct ? pc->direct_sub : ctx->pipe[slot].sub, chunk_first(pc, j),
                          chunk_count(pc, j), stream);
    if (st == MIDINT_OK && !pc->direct)
        st = enqueue_copies(ctx, pc, j, 1, stream);
    if (st == MIDINT_OK)
        st = ctx->ops->fence_mark(ctx, slot, stream);
    return st;
}

/* Wait for chunk j and copy its staged outputs out. */
static midint_status finish_chunk(midint_context *ctx, const pipe_call *pc, size_t j)
{
    midint_copy_seg segs[MIDINT_PIPE_MAX];
    midint_status st = ctx->ops->fence_sync(ctx, (unsigned)(j % MIDINT_PIPE_SLOTS));
    if (st == MIDINT_OK)
        midint_host_copy(ctx, segs, add_copies(ctx, pc, j, 1, segs, 0));
    return st;
}

/* Wait for every slot, keeping the first failure (nothing may still be landing in the caller's memory when a
 * call returns). */
static midint_status drain(midint_context *ctx)
{
    midint_status first = MIDINT_OK;
    for (unsigned i = 0; i < MIDINT_PIPE_SLOTS; i++) {
        midint_status st = ctx->ops->fence_sync(ctx, i);
        first = first == MIDINT_OK ? st : first;
    }
    return first;
}

/* Lay out the slots for the job; nothing is written when this fails. */
static midint_status setup(midint_context *ctx, const midint_pipe_job *job, int async, const char *fn, pipe_call *pc)
{
    memset(pc, 0, sizeof *pc);
    pc->job = job;
    pc->nops = job->nin + job->nout;
    pc->chunks = (job->count + job->chunk - 1) / job->chunk;
    size_t align = ctx->sub_align ? ctx->sub_align : 256, end[2] = {0, 0}, total = 0;
    for (unsigned k = 0; k < pc->nops; k++)
        total += job->count * job->unit[k];
    /* small and synchronous: staged whatever the memory (no lookups), direct where the backend allows */
    int small = !async && pc->chunks == 1 && total <= ctx->direct_bytes && ctx->ops->host_alias;
    for (unsigned k = 0; k < pc->nops; k++) {
        pc->staged[k] = small || !host_locked(ctx, job->user[k], job->count * job->unit[k]);
        pc->any_staged |= pc->staged[k];
        if (async && pc->staged[k])
            return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s is not page-locked memory; asynchronous "
                               "host calls need memory from midint_host_alloc%s", fn, job->name[k],
                               ctx->ops->host_locked ? " (or registered with the backend)" : "");
        int b = is_output(pc, k);
        pc->layout[2 * k] = align_up(end[b], align);
        pc->layout[2 * k + 1] = job->chunk * job->unit[k];
        end[b] = pc->layout[2 * k] + pc->layout[2 * k + 1];
    }
    /* the outputs follow the inputs: aligned as each operand is (an input of a word per instance, a shift count,
     * leaves the inputs' end unaligned, and a kernel on the direct path stores 16-byte units) */
    pc->in_bytes = align_up(end[0], align);
    pc->out_bytes = end[1];
    unsigned used = pc->chunks < MIDINT_PIPE_SLOTS ? (unsigned)pc->chunks : MIDINT_PIPE_SLOTS;
    for (int attempt = small; attempt >= 0; attempt--) {
        pc->direct = attempt;
        for (unsigned i = 0; i < used; i++) {
            void *stream;
            midint_status st;
            if ((st = ctx->ops->pipe_stream(ctx, i, &stream)) != MIDINT_OK ||
                (st = prepare_slot(ctx, i, pc)) != MIDINT_OK)
                return midint_fail(ctx, st, "%s: preparing the host path's buffers (%zu instances per chunk): %s", fn,
                                   job->chunk, ctx->msg);
        }
        if (pc->direct && ctx->pipe[0].host_dev) { /* the operands' handles in the staging's device alias */
            for (unsigned k = 0; k < pc->nops; k++)
                pc->direct_sub[k] = (char *)ctx->pipe[0].host_dev + (is_output(pc, k) ? pc->in_bytes : 0) +
                                    pc->layout[2 * k];
            return MIDINT_OK;
        }
    }
    return MIDINT_OK;
}

/* After a failure at chunk j: finish the chunks before it (their results are the completed prefix), then wait
 * for everything. */
static midint_status fail_at(midint_context *ctx, const pipe_call *pc, size_t done_chunks, size_t j,
                             midint_status st, const char *fn)
{
    char why[MIDINT_MSG_LEN];
    snprintf(why, sizeof why, "%s", ctx->msg);
    while (done_chunks < j && finish_chunk(ctx, pc, done_chunks) == MIDINT_OK)
        done_chunks++;
    drain(ctx);
    size_t completed = done_chunks * pc->job->chunk, count = pc->job->count;
    return midint_fail(ctx, st, "%s: %s (%zu of %zu instances were completed)", fn, why,
                       completed < count ? completed : count, count);
}

static midint_status run_sync(midint_context *ctx, const pipe_call *pc, const char *fn)
{
    size_t done = 0; /* chunks whose results are in the caller's memory */
    for (size_t j = 0; j < pc->chunks; j++) {
        midint_copy_seg segs[2 * MIDINT_PIPE_MAX];
        unsigned nseg = 0;
        if (j >= MIDINT_PIPE_SLOTS) { /* the slot's last chunk: wait, then copy its outputs beside the next inputs */
            midint_status st = ctx->ops->fence_sync(ctx, (unsigned)(j % MIDINT_PIPE_SLOTS));
            if (st != MIDINT_OK)
                return fail_at(ctx, pc, done, done, st, fn);
            nseg = add_copies(ctx, pc, j - MIDINT_PIPE_SLOTS, 1, segs, nseg);
        }
        nseg = add_copies(ctx, pc, j, 0, segs, nseg);
        midint_host_copy(ctx, segs, nseg);
        done = j >= MIDINT_PIPE_SLOTS ? j - MIDINT_PIPE_SLOTS + 1 : 0;
        midint_status st = enqueue_chunk(ctx, pc, j);
        if (st != MIDINT_OK)
            return fail_at(ctx, pc, done, j, st, fn);
    }
    for (; done < pc->chunks; done++) {
        midint_status st = finish_chunk(ctx, pc, done);
        if (st != MIDINT_OK)
            return fail_at(ctx, pc, done, done, st, fn);
    }
    return MIDINT_OK;
}

/* Every operand is page-locked: fork from `stream`, enqueue every chunk, make `stream` wait for the slots. */
static midint_status run_async(midint_context *ctx, const pipe_call *pc, void *stream, const char *fn)
{
    const midint_backend_ops *ops = ctx->ops;
    unsigned used = pc->chunks < MIDINT_PIPE_SLOTS ? (unsigned)pc->chunks : MIDINT_PIPE_SLOTS;
    midint_status st = ops->fence_mark(ctx, MIDINT_FENCE_FORK, stream);
    for (unsigned i = 0; i < used && st == MIDINT_OK; i++) {
        void *s = NULL;
        if ((st = ops->pipe_stream(ctx, i, &s)) == MIDINT_OK)
            st = ops->fence_wait(ctx, s, MIDINT_FENCE_FORK);
    }
    if (st != MIDINT_OK)
        return midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
    ctx->async_pending = 1;
    for (size_t j = 0; j < pc->chunks; j++)
        if ((st = enqueue_chunk(ctx, pc, j)) != MIDINT_OK)
            return fail_at(ctx, pc, 0, j, st, fn); /* outputs are not staged: finishing is waiting */
    for (unsigned i = 0; i < used && st == MIDINT_OK; i++)
        st = ops->fence_wait(ctx, stream, i);
    if (st != MIDINT_OK)
        return fail_at(ctx, pc, 0, pc->chunks, st, fn);
    return MIDINT_OK;
}

midint_status midint_pipe_run(midint_context *ctx, const midint_pipe_job *job, int async, void *stream, const char *fn)
{
    pipe_call pc;
    midint_status st;
    /* a synchronous call reads and writes host memory now: earlier asynchronous calls may still use it */
    if (ctx->async_pending && !async) {
        if ((st = drain(ctx)) != MIDINT_OK)
            return midint_fail(ctx, st, "%s: an earlier asynchronous call failed: %s", fn, ctx->msg);
        ctx->async_pending = 0;
    }
    if ((st = setup(ctx, job, async, fn, &pc)) != MIDINT_OK)
        return st;
    return async ? run_async(ctx, &pc, stream, fn) : run_sync(ctx, &pc, fn);
}

void midint_host_path_free(midint_context *ctx)
{
    drain(ctx);
    for (unsigned i = 0; i < MIDINT_PIPE_SLOTS; i++) {
        midint_pipe_slot *s = &ctx->pipe[i];
        release_subs(ctx, s);
        for (int b = 0; b < 2; b++)
            if (s->dev[b])
                ctx->ops->free(ctx, s->dev[b]);
        if (s->host)
            ctx->ops->host_free(ctx, s->host, s->host_handle);
        memset(s, 0, sizeof *s);
    }
    midint_host_copy_stop(ctx);
}
