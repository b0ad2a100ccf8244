/* replay.c — launches recorded once and replayed (replay.h): a context keeps a few recordings, each good for one
 * key while nothing it depends on changes (the context's replay epoch). The second sight of a key records: a
 * recording costs about as much host time as running its work, and a key seen once may never come back. */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "context.h"
#include "replay.h"

enum { SLOT_EMPTY, SLOT_SEEN, SLOT_READY, SLOT_NEVER };

/* MIDINT_TRACE_REPLAY=1: what happened to `key`, and a detail after it. */
static void trace(const midint_context *ctx, const char *what, const uint64_t key[4], const char *detail)
{
    if (ctx->hooks.trace_replay)
        fprintf(stderr, "midint replay: %s %llu %llu %llu %llu%s\n", what, (unsigned long long)key[0],
                (unsigned long long)key[1], (unsigned long long)key[2], (unsigned long long)key[3], detail);
}

static void release(midint_context *ctx, midint_replay_slot *sl)
{
    if (sl->graph)
        ctx->ops->graph_free(ctx, sl->graph);
    memset(sl, 0, sizeof *sl);
}

/* The slot of `key` at the current epoch, or NULL. */
static midint_replay_slot *find(midint_context *ctx, const uint64_t key[4])
{
    for (unsigned i = 0; i < MIDINT_REPLAY_SLOTS; i++) {
        midint_replay_slot *sl = &ctx->replays[i];
        if (sl->state != SLOT_EMPTY && sl->epoch == ctx->replay_epoch && !memcmp(sl->key, key, sizeof sl->key))
            return sl;
    }
    return NULL;
}

/* A slot for a new key: an empty or outdated one, else the least recently used. */
static midint_replay_slot *victim(midint_context *ctx)
{
    midint_replay_slot *best = &ctx->replays[0];
    for (unsigned i = 0; i < MIDINT_REPLAY_SLOTS; i++) {
        midint_replay_slot *sl = &ctx->replays[i];
        if (sl->state == SLOT_EMPTY || sl->epoch != ctx->replay_epoch)
            return sl;
        if (sl->used < best->used)
            best = sl;
    }
    return best;
}

/* Record work on `stream` into the slot; MIDINT_OK with the slot ready, or the slot marked never to record again and
 * the host values as they were (the work has not run: nothing recorded runs until launched). */
static midint_status record(midint_context *ctx, midint_replay_slot *sl, void *stream, midint_status (*work)(void *),
                            void *arg, void **values[], unsigned nvalues)
{
    const uint64_t epoch = ctx->replay_epoch;
    void *graph = NULL, *before[MIDINT_REPLAY_VALUES];
    for (unsigned i = 0; i < nvalues; i++)
        before[i] = *values[i];
    if (ctx->ops->capture_begin(ctx, stream) == MIDINT_OK) {
        const midint_status ran = work(arg);
        if (ctx->ops->capture_end(ctx, stream, &graph) == MIDINT_OK && ran == MIDINT_OK && graph &&
            ctx->replay_epoch == epoch) {
            sl->graph = graph;
            sl->state = SLOT_READY;
            for (unsigned i = 0; i < nvalues; i++)
                sl->values[i] = *values[i];
            return MIDINT_OK;
        }
    }
    char why[MIDINT_MSG_LEN + 2];
    snprintf(why, sizeof why, ": %s", ctx->msg);
    trace(ctx, "not recorded", sl->key, why);
    if (graph)
        ctx->ops->graph_free(ctx, graph);
    for (unsigned i = 0; i < nvalues; i++)
        *values[i] = before[i];
    sl->state = SLOT_NEVER;
    return MIDINT_ERR_DEVICE;
}

midint_status midint_replay(midint_context *ctx, void *stream, const uint64_t key[4], midint_status (*work)(void *),
                            void *arg, void **values[], unsigned nvalues)
{
    const midint_backend_ops *o = ctx->ops;
    if (!o->capture_begin || ctx->hooks.no_replay || nvalues > MIDINT_REPLAY_VALUES)
        return work(arg);
    midint_replay_slot *sl = find(ctx, key);
    ctx->replay_clock++;
    if (!sl) {
        sl = victim(ctx);
        release(ctx, sl);
        midint_status st = work(arg);
        char epoch[40];
        snprintf(epoch, sizeof epoch, " (epoch %llu)", (unsigned long long)ctx->replay_epoch);
        trace(ctx, "seen", key, epoch);
        if (st == MIDINT_OK) {
            memcpy(sl->key, key, sizeof sl->key);
            sl->epoch = ctx->replay_epoch; /* after the run: what it allocated is there for the next */
            sl->state = SLOT_SEEN;
            sl->used = ctx->replay_clock;
        }
        return st;
    }
    sl->used = ctx->replay_clock;
    if (sl->state == SLOT_NEVER)
        return work(arg);
    /* the recording's launch waits for the workspace's last use, and marks its own */
    midint_status st = o->fence_wait(ctx, stream, MIDINT_FENCE_WS);
    if (st != MIDINT_OK)
        return st;
    if (sl->state == SLOT_SEEN && record(ctx, sl, stream, work, arg, values, nvalues) != MIDINT_OK)
        return work(arg);
    for (unsigned i = 0; i < nvalues; i++)
        *values[i] = sl->values[i];
    trace(ctx, "launched", key, "");
    if ((st = o->graph_launch(ctx, sl->graph, stream)) != MIDINT_OK)
        return st;
    return o->fence_mark(ctx, MIDINT_FENCE_WS, stream);
}

void midint_replay_invalidate(midint_context *ctx, const char *why)
{
    ctx->replay_epoch++;
    if (ctx->hooks.trace_replay)
        fprintf(stderr, "midint replay: epoch %llu: %s\n", (unsigned long long)ctx->replay_epoch, why);
}

void midint_replay_free(midint_context *ctx)
{
    for (unsigned i = 0; i < MIDINT_REPLAY_SLOTS; i++)
        release(ctx, &ctx->replays[i]);
}
