/* host_path.c — host calls: chunks pipelined over the context's slots (copy in, kernels, copy out overlapped),
 * pageable operands staged through page-locked memory by host threads, page-locked ones copied directly. */
#include <stdio.h>
#include <string.h>

#include "ops.h"

/* A chunk's inputs hold at most CHUNK_MAX_IN bytes, and the batch is cut into at least CHUNK_SPLIT chunks when
 * each keeps CHUNK_MIN_IN bytes: short chunks fill and drain the pipeline quickly, long ones spread the fixed
 * cost of a copy and a launch (a few microseconds) over more bytes. */
#define CHUNK_MAX_IN ((size_t)32 << 20)
#define CHUNK_MIN_IN ((size_t)1 << 20)
#define CHUNK_SPLIT 8

/* Per-instance bytes of each operand role, and what the staging cap counts per instance. */
static void role_units(const midint_call *c, size_t unit[MIDINT_PIPE_BUFS])
{
    size_t n = c->bits / 32;
    unit[MIDINT_PIPE_A] = unit[MIDINT_PIPE_B] = n * 4;
    unit[MIDINT_PIPE_R] = n * 4 * midint_op_descs[c->op].r_words_per_n;
    unit[MIDINT_PIPE_C] = c->aux ? 4 : 0;
}

size_t midint_host_chunk(const midint_context *ctx, const midint_call *c)
{
    size_t unit[MIDINT_PIPE_BUFS], per = 0;
    role_units(c, unit);
    for (int k = 0; k < MIDINT_PIPE_BUFS; k++)
        per += unit[k];
    size_t in = unit[MIDINT_PIPE_A] * 2, target = in * c->count / CHUNK_SPLIT;
    target = target < CHUNK_MIN_IN ? CHUNK_MIN_IN : target > CHUNK_MAX_IN ? CHUNK_MAX_IN : target;
    size_t chunk = target / in, cap = ctx->staging_bytes / MIDINT_PIPE_SLOTS / per; /* the cap covers all slots */
    chunk = chunk > cap ? cap : chunk;
    return chunk == 0 ? 1 : chunk > c->count ? c->count : chunk;
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

/* One host call in the pipeline's terms. */
typedef struct pipe_call {
    const midint_call *c;
    midint_plan plan;
    void *tables;
    size_t chunk, chunks;
    size_t unit[MIDINT_PIPE_BUFS];
    char *user[MIDINT_PIPE_BUFS];            /* the caller's operands */
    int staged[MIDINT_PIPE_BUFS];            /* copied through page-locked staging (pageable memory) */
    size_t layout[MIDINT_PIPE_BUFS * 2];     /* offset and bytes of each role in its slot buffer */
    size_t in_bytes, out_bytes;              /* the slot's two buffers */
    int any_staged;
} pipe_call;

static void release_subs(midint_context *ctx, midint_pipe_slot *s)
{
    for (int k = 0; k < MIDINT_PIPE_BUFS; k++)
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
    int grow_dev = need[0] > s->dev_bytes[0] || need[1] > s->dev_bytes[1];
    int grow_host = pc->any_staged && need[0] + need[1] > s->host_bytes;
    midint_status st = MIDINT_OK;
    if ((grow_dev || grow_host || memcmp(s->layout, pc->layout, sizeof s->layout)) &&
        (st = ops->fence_sync(ctx, i)) != MIDINT_OK)
        return st;
    if (grow_dev || memcmp(s->layout, pc->layout, sizeof s->layout))
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
    if (!s->sub[MIDINT_PIPE_A]) {
        for (int k = 0; k < MIDINT_PIPE_BUFS; k++)
            if (pc->layout[2 * k + 1] && (st = ops->sub_buffer(ctx, s->dev[k >= MIDINT_PIPE_R], pc->layout[2 * k],
                                                               pc->layout[2 * k + 1], &s->sub[k])) != MIDINT_OK) {
                release_subs(ctx, s);
                return st;
            }
        memcpy(s->layout, pc->layout, sizeof s->layout);
    }
    if (grow_host) {
        if (s->host)
            ops->host_free(ctx, s->host, s->host_handle);
        s->host = s->host_handle = NULL;
        s->host_bytes = 0;
        if ((st = ops->host_alloc(ctx, need[0] + need[1], &s->host, &s->host_handle)) != MIDINT_OK)
            return st;
        s->host_bytes = need[0] + need[1];
    }
    return MIDINT_OK;
}

/* Where role k of slot i stands in the staging memory. */
static char *staging(midint_context *ctx, const pipe_call *pc, unsigned i, int k)
{
    return (char *)ctx->pipe[i].host + (k >= MIDINT_PIPE_R ? pc->in_bytes : 0) + pc->layout[2 * k];
}

static size_t chunk_first(const pipe_call *pc, size_t j)
{
    return j * pc->chunk;
}

static size_t chunk_count(const pipe_call *pc, size_t j)
{
    size_t first = chunk_first(pc, j);
    return pc->c->count - first < pc->chunk ? pc->c->count - first : pc->chunk;
}

/* Add the host copies of chunk j's staged roles in [k0, k1) to segs: inputs into staging, outputs out of it. */
static unsigned add_copies(midint_context *ctx, const pipe_call *pc, size_t j, int k0, int k1, midint_copy_seg *segs,
                           unsigned nseg)
{
    unsigned slot = (unsigned)(j % MIDINT_PIPE_SLOTS);
    for (int k = k0; k < k1; k++) {
        if (!pc->staged[k])
            continue;
        char *user = pc->user[k] + chunk_first(pc, j) * pc->unit[k], *stage = staging(ctx, pc, slot, k);
        size_t bytes = chunk_count(pc, j) * pc->unit[k];
        segs[nseg++] = k < MIDINT_PIPE_R ? (midint_copy_seg){stage, user, bytes} : (midint_copy_seg){user, stage, bytes};
    }
    return nseg;
}

/* Enqueue the copies of roles [k0, k1) of chunk j: one copy for a run of staged roles (they are laid out in
 * order), one per page-locked role, straight from or to the caller's memory. */
static midint_status enqueue_copies(midint_context *ctx, const pipe_call *pc, size_t j, int k0, int k1, void *stream)
{
    unsigned slot = (unsigned)(j % MIDINT_PIPE_SLOTS);
    midint_pipe_slot *s = &ctx->pipe[slot];
    size_t m = chunk_count(pc, j);
    midint_status st = MIDINT_OK;
    for (int k = k0; k < k1 && st == MIDINT_OK; k++) {
        if (!pc->unit[k])
            continue;
        size_t off = pc->layout[2 * k], bytes = m * pc->unit[k];
        const char *host = pc->staged[k] ? staging(ctx, pc, slot, k) : pc->user[k] + chunk_first(pc, j) * pc->unit[k];
        if (pc->staged[k] && k + 1 < k1 && pc->staged[k + 1] && pc->unit[k + 1]) { /* this role and the next */
            bytes = pc->layout[2 * (k + 1)] + m * pc->unit[k + 1] - off;
            k++;
        }
        void *buf = s->dev[k >= MIDINT_PIPE_R];
        st = k < MIDINT_PIPE_R ? ctx->ops->upload_async(ctx, buf, off, host, bytes, stream)
                               : ctx->ops->download_async(ctx, (void *)host, buf, off, bytes, stream);
    }
    return st;
}

/* Enqueue chunk j on its slot: copies in, the kernels, copies out, the slot's fence. */
static midint_status enqueue_chunk(midint_context *ctx, pipe_call *pc, size_t j)
{
    unsigned slot = (unsigned)(j % MIDINT_PIPE_SLOTS);
    midint_pipe_slot *s = &ctx->pipe[slot];
    void *stream = NULL;
    midint_status st = ctx->ops->pipe_stream(ctx, slot, &stream);
    if (st == MIDINT_OK && ctx->test_fail_chunk == j + 1)
        st = midint_fail(ctx, MIDINT_ERR_DEVICE, "planted failure of chunk %zu (MIDINT_TEST_FAIL_CHUNK)", j + 1);
    pc->plan.count = chunk_count(pc, j);
    if (pc->plan.group > pc->plan.count)
        pc->plan.group = pc->plan.count;
    if (st == MIDINT_OK)
        st = enqueue_copies(ctx, pc, j, MIDINT_PIPE_A, MIDINT_PIPE_R, stream);
    if (st == MIDINT_OK)
        st = midint_plan_run(ctx, &pc->plan, s->sub[MIDINT_PIPE_R], s->sub[MIDINT_PIPE_A], s->sub[MIDINT_PIPE_B],
                             pc->c->aux ? s->sub[MIDINT_PIPE_C] : NULL, pc->tables, pc->c->bits / 32 % 4 == 0, stream);
    if (st == MIDINT_OK)
        st = midint_spoil_if_planted(ctx, pc->plan.v, s->sub[MIDINT_PIPE_R], stream);
    if (st == MIDINT_OK)
        st = enqueue_copies(ctx, pc, j, MIDINT_PIPE_R, MIDINT_PIPE_BUFS, stream);
    if (st == MIDINT_OK)
        st = ctx->ops->fence_mark(ctx, slot, stream);
    return st;
}

/* Wait for chunk j and copy its staged outputs out. */
static midint_status finish_chunk(midint_context *ctx, const pipe_call *pc, size_t j)
{
    midint_copy_seg segs[MIDINT_PIPE_BUFS];
    midint_status st = ctx->ops->fence_sync(ctx, (unsigned)(j % MIDINT_PIPE_SLOTS));
    if (st == MIDINT_OK)
        midint_host_copy(ctx, segs, add_copies(ctx, pc, j, MIDINT_PIPE_R, MIDINT_PIPE_BUFS, segs, 0));
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

/* Check the call, plan it and lay out the slots; nothing is written when this fails. */
static midint_status setup(midint_context *ctx, const midint_call *c, int async, const char *fn, pipe_call *pc)
{
    static const char *const names[MIDINT_PIPE_BUFS] = {"a", "b", "r", NULL};
    memset(pc, 0, sizeof *pc);
    pc->c = c;
    midint_status st = midint_begin_call(ctx, c, fn, 0, &pc->plan, &pc->tables);
    if (st != MIDINT_OK)
        return st;
    pc->chunk = pc->plan.count;
    pc->chunks = (c->count + pc->chunk - 1) / pc->chunk;
    role_units(c, pc->unit);
    pc->user[MIDINT_PIPE_A] = (char *)c->a;
    pc->user[MIDINT_PIPE_B] = (char *)c->b;
    pc->user[MIDINT_PIPE_R] = c->r;
    pc->user[MIDINT_PIPE_C] = c->aux;
    size_t align = ctx->sub_align ? ctx->sub_align : 256, end[2] = {0, 0};
    for (int k = 0; k < MIDINT_PIPE_BUFS; k++) {
        if (!pc->unit[k])
            continue;
        pc->staged[k] = !host_locked(ctx, pc->user[k], c->count * pc->unit[k]);
        pc->any_staged |= pc->staged[k];
        if (async && pc->staged[k])
            return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s is not page-locked memory; asynchronous "
                               "host calls need memory from midint_host_alloc%s", fn,
                               names[k] ? names[k] : midint_op_descs[c->op].aux_name,
                               ctx->ops->host_locked ? " (or registered with the backend)" : "");
        int b = k >= MIDINT_PIPE_R;
        pc->layout[2 * k] = align_up(end[b], align);
        pc->layout[2 * k + 1] = pc->chunk * pc->unit[k];
        end[b] = pc->layout[2 * k] + pc->layout[2 * k + 1];
    }
    pc->in_bytes = end[0];
    pc->out_bytes = end[1];
    unsigned used = pc->chunks < MIDINT_PIPE_SLOTS ? (unsigned)pc->chunks : MIDINT_PIPE_SLOTS;
    for (unsigned i = 0; i < used; i++) {
        void *stream;
        if ((st = ctx->ops->pipe_stream(ctx, i, &stream)) != MIDINT_OK || (st = prepare_slot(ctx, i, pc)) != MIDINT_OK)
            return midint_fail(ctx, st, "%s: preparing the host path's buffers (%zu instances per chunk): %s", fn,
                               pc->chunk, ctx->msg);
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
    size_t completed = done_chunks * pc->chunk;
    return midint_fail(ctx, st, "%s: %s (%zu of %zu instances were completed)", fn, why,
                       completed < pc->c->count ? completed : pc->c->count, pc->c->count);
}

static midint_status run_sync(midint_context *ctx, pipe_call *pc, const char *fn)
{
    size_t done = 0; /* chunks whose results are in the caller's memory */
    for (size_t j = 0; j < pc->chunks; j++) {
        midint_copy_seg segs[2 * MIDINT_PIPE_BUFS];
        unsigned nseg = 0;
        if (j >= MIDINT_PIPE_SLOTS) { /* the slot's last chunk: wait, then copy its outputs beside the next inputs */
            midint_status st = ctx->ops->fence_sync(ctx, (unsigned)(j % MIDINT_PIPE_SLOTS));
            if (st != MIDINT_OK)
                return fail_at(ctx, pc, done, done, st, fn);
            nseg = add_copies(ctx, pc, j - MIDINT_PIPE_SLOTS, MIDINT_PIPE_R, MIDINT_PIPE_BUFS, segs, nseg);
        }
        nseg = add_copies(ctx, pc, j, MIDINT_PIPE_A, MIDINT_PIPE_R, segs, nseg);
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
static midint_status run_async(midint_context *ctx, pipe_call *pc, void *stream, const char *fn)
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

midint_status midint_host_run(midint_context *ctx, const midint_call *c, int async, void *stream, const char *fn)
{
    pipe_call pc;
    midint_status st;
    /* a host call reads and writes host memory now: earlier asynchronous calls may still use it */
    if (ctx && ctx->async_pending && !async) {
        if ((st = drain(ctx)) != MIDINT_OK)
            return midint_fail(ctx, st, "%s: an earlier asynchronous call failed: %s", fn, ctx->msg);
        ctx->async_pending = 0;
    }
    if ((st = setup(ctx, c, async, fn, &pc)) != MIDINT_OK)
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
