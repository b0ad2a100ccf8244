/* plan.c — how a call runs: one launch for a one-block variant; for a grid variant, or a one-block kernel that keeps
 * its arrays in the workspace (its span: words per instance), passes of launches that share the context's workspace
 * (allocated at first need, grown, reused, capped). The host path, the device path and later multi-kernel operations
 * all run plans. */
#include <stdlib.h>
#include <string.h>

#include "plan.h"

uint32_t midint_bit_length(uint64_t x)
{
    uint32_t b = 0;
    for (; x; x >>= 1)
        b++;
    return b;
}

const midint_kernel *midint_variant_kernel(const midint_variant *v, midint_role role, uint32_t log_length)
{
    for (uint32_t i = 0; i < v->nkernels; i++) {
        const midint_kernel *k = &midint_kernels[v->kernel + i];
        if (k->role == role && k->log_length == log_length)
            return k;
    }
    return NULL;
}

static uint32_t tiles(uint32_t words, const midint_kernel *k)
{
    return (words + k->span - 1) / k->span;
}

uint32_t midint_ntt_piece_words(const midint_context *ctx)
{
    return ctx->hooks.ntt_piece ? ctx->hooks.ntt_piece : 1u << (midint_ntt_grid.log_max - 1);
}

/* The NTT grid's transform: 2^lg points (a cyclic convolution of 2n - 1 coefficients does not wrap, and at least
 * the layout's minimum), split into rows of 2^rows points and columns of 2^(lg - rows); the test hook
 * MIDINT_TEST_NTT_SPLIT lengthens the transform or chooses the split, so that every kernel can be tested at
 * small sizes. Operands longer than half the longest transform go in k pieces of at most that many words, each
 * transformed once; output s sums the pointwise products of pieces i and s - i (docs/ntt.md "Pieces"). The bound
 * is the whole product's (n (2^32 - 1)^2 < P: the generator's sizes meet it), not the pieces'. MIDINT_TEST_NTT_PIECE
 * lowers the piece size so that CPU tests reach it. One instance per pass: its outputs take 2k - 1 more planes. */
static midint_status ntt_shape(midint_context *ctx, const midint_variant *v, uint32_t n, midint_plan *p)
{
    const midint_ntt_grid_layout *g = &midint_ntt_grid;
    const uint32_t most = midint_ntt_piece_words(ctx);
    if (n > most && !p->wrap_b) {
        p->pieces = (n + most - 1) / most;
        p->piece_words = (n + p->pieces - 1) / p->pieces;
        n = p->piece_words;
    }
    /* a wrapped product: as many points as result words (its coefficients c + L add to c) */
    uint32_t lg = p->wrap_b ? midint_bit_length(p->rn - 1u) : midint_bit_length(2u * (uint64_t)n - 2u);
    if (lg < g->log_min)
        lg = g->log_min;
    if (ctx->hooks.ntt_log > lg)
        lg = ctx->hooks.ntt_log;
    uint32_t rows = ctx->hooks.ntt_rows ? ctx->hooks.ntt_rows : (lg + 1) / 2;
    if (lg > g->log_max || rows >= lg)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: a transform of 2^%u points in rows of 2^%u cannot "
                           "be planned (at most 2^%u points)", v->name, lg, rows, g->log_max);
    const midint_kernel *kr = midint_variant_kernel(v, p->pieces ? MIDINT_ROLE_ROWS_FWD : MIDINT_ROLE_ROWS, rows);
    const midint_kernel *kc = midint_variant_kernel(v, p->wrap_b ? MIDINT_ROLE_COLS_WRAP : MIDINT_ROLE_COLS, lg - rows);
    const midint_kernel *km = midint_variant_kernel(v, MIDINT_ROLE_ROWS_MAC, rows);
    if (!kr || !kc || !midint_variant_kernel(v, MIDINT_ROLE_COLS_INV, lg - rows) || kr->span > (1u << (lg - rows)) ||
        kc->span > (1u << rows) || (p->pieces && (!km || !km->outputs ||
                                                  !midint_variant_kernel(v, MIDINT_ROLE_CRT_PIECES, 0))))
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: no kernels for rows of 2^%u and columns of 2^%u "
                           "points%s", v->name, rows, lg - rows,
                           ctx->hooks.ntt_rows ? " (MIDINT_TEST_NTT_SPLIT)" : "");
    p->log_length = lg;
    p->log_rows = rows;
    p->ws_words = 2ull * v->ntt_primes << lg;
    p->st_words = tiles(p->rn, midint_variant_kernel(v, MIDINT_ROLE_CRT, 0));
    if (p->pieces) { /* the pieces' planes, and the outputs' (those the result reaches: k for the low half) */
        p->ws_words *= p->pieces;
        p->outputs = p->rn > p->n ? 2u * p->pieces - 1u : p->pieces;
        p->ws2_words = ((uint64_t)v->ntt_primes << lg) * p->outputs;
        p->group = 1;
    }
    return MIDINT_OK;
}

/* An additions-only expression over tiles: tiles of the tile kernel's words, or fewer under the test hook
 * MIDINT_TEST_TILE_WORDS (a multiple of the words per thread: CPU tests then cross many tiles and fix-up blocks at
 * small sizes); one function per output and tile. */
static midint_status expr_shape(midint_context *ctx, const midint_variant *v, uint32_t n, midint_plan *p)
{
    const midint_kernel *k = midint_variant_kernel(v, MIDINT_ROLE_EXPR, 0);
    uint32_t chunk = v->q * v->limb_words, w = ctx->hooks.tile_words ? ctx->hooks.tile_words : k->span;
    if (w % chunk || w > k->span)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "MIDINT_TEST_TILE_WORDS is %u; %s takes a multiple of %u "
                           "words up to %u", w, v->name, chunk, k->span);
    p->tile_words = w;
    p->outputs = midint_exprs[v->op - MIDINT_OP_EXPR0].noutputs;
    p->st_words = (uint64_t)((n + w - 1) / w) * p->outputs;
    return MIDINT_OK;
}

static void plan_init(const midint_variant *v, uint32_t n, uint32_t rn, size_t count, midint_plan *p)
{
    memset(p, 0, sizeof *p);
    p->v = v;
    p->n = n;
    p->rn = rn;
    p->count = p->group = count;
}

/* Instances per pass: as many as the workspace cap holds; MIDINT_ERR_OUT_OF_MEMORY when not even one. */
static midint_status fit_workspace(midint_context *ctx, midint_plan *p)
{
    size_t cap = midint_workspace_cap(ctx);
    uint64_t per = 4u * (p->ws_words + p->ws2_words + p->st_words);
    if (per > cap)
        return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "%s at %u bits needs %llu bytes of device workspace per "
                           "instance; the workspace cap is %zu bytes (midint_set_workspace_bytes)", p->v->name,
                           32u * p->n, (unsigned long long)per, cap);
    if (p->group > cap / per)
        p->group = cap / per;
    return MIDINT_OK;
}

midint_status midint_plan_make(midint_context *ctx, const midint_variant *v, uint32_t n, uint32_t rn, size_t count,
                               midint_plan *p)
{
    plan_init(v, n, rn, count, p);
    midint_status st = MIDINT_OK;
    if (v->plan == MIDINT_PLAN_ADDSUB_GRID)
        p->st_words = tiles(n, midint_variant_kernel(v, MIDINT_ROLE_TILE, 0));
    else if (v->plan == MIDINT_PLAN_NTT_GRID)
        st = ntt_shape(ctx, v, n, p);
    else if (v->plan == MIDINT_PLAN_EXPR_GRID)
        st = expr_shape(ctx, v, n, p);
    else if (v->plan == MIDINT_PLAN_ONE_BLOCK) /* the modular kernels above 8192 bits: their arrays, per instance */
        p->ws_words = midint_kernels[v->kernel].span;
    if (st != MIDINT_OK || (v->plan == MIDINT_PLAN_ONE_BLOCK && !p->ws_words) || v->plan == MIDINT_PLAN_MAP)
        return st;
    return fit_workspace(ctx, p);
}

midint_status midint_plan_make_wrap(midint_context *ctx, const midint_variant *v, uint32_t n, uint32_t nb, uint32_t rn,
                                    size_t count, midint_plan *p)
{
    plan_init(v, n, rn, count, p);
    p->wrap_b = nb;
    if (v->plan != MIDINT_PLAN_NTT_GRID || !n || !nb || n > rn || nb > rn)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: a wrapped product of %u by %u words into %u takes "
                           "an NTT grid variant and operands within the result's words", v->name, n, nb, rn);
    midint_status st = ntt_shape(ctx, v, n, p);
    return st != MIDINT_OK ? st : fit_workspace(ctx, p);
}

size_t midint_plan_workspace(const midint_plan *p)
{
    return (size_t)(4u * (p->ws_words + p->ws2_words + p->st_words) * p->group);
}

midint_status midint_workspace_grow(midint_context *ctx, midint_staging_buf *s, size_t bytes)
{
    if (bytes <= s->bytes)
        return MIDINT_OK;
    midint_status st = MIDINT_OK;
    if (s->buf) {
        if ((st = ctx->ops->fence_sync(ctx, MIDINT_FENCE_WS)) != MIDINT_OK)
            return st;
        ctx->ops->free(ctx, s->buf);
        s->buf = NULL;
        s->bytes = 0;
    }
    midint_replay_invalidate(ctx, "workspace grown"); /* a recording may hold the old address */
    if ((st = ctx->ops->alloc(ctx, bytes, &s->buf)) != MIDINT_OK)
        return midint_fail(ctx, st, "allocating %zu bytes of device workspace: %s", bytes, ctx->msg);
    s->bytes = bytes;
    return MIDINT_OK;
}

/* Every device buffer the context holds between calls: the workspace, the composed product's and moduli's, the
 * division's temporaries and batch GCD's kept trees (one list, so that what is counted is what is freed). */
enum { HELD_BUFFERS = 5 + MIDINT_BIGDIV_BUFFERS + MIDINT_TREE_BUFFERS };
static void held_buffers(midint_context *ctx, midint_staging_buf **bufs)
{
    bufs[0] = &ctx->ws;
    bufs[1] = &ctx->ws2;
    bufs[2] = &ctx->st;
    bufs[3] = &ctx->composed_tmp;
    bufs[4] = &ctx->composed_mods;
    for (unsigned k = 0; k < MIDINT_BIGDIV_BUFFERS; k++)
        bufs[5 + k] = &ctx->div_tmp[k];
    for (unsigned k = 0; k < MIDINT_TREE_BUFFERS; k++)
        bufs[5 + MIDINT_BIGDIV_BUFFERS + k] = &ctx->tree_kept[k];
}

size_t midint_workspace_held(midint_context *ctx)
{
    midint_staging_buf *bufs[HELD_BUFFERS];
    size_t held = 0;
    held_buffers(ctx, bufs);
    for (unsigned k = 0; k < HELD_BUFFERS; k++)
        held += bufs[k]->bytes;
    return held;
}

void midint_workspace_free(midint_context *ctx)
{
    midint_staging_buf *bufs[HELD_BUFFERS];
    held_buffers(ctx, bufs);
    midint_replay_invalidate(ctx, "workspace freed");
    int synced = 0;
    for (unsigned k = 0; k < HELD_BUFFERS; k++) {
        if (bufs[k]->buf) {
            if (!synced++)   /* once, for the work that uses any of them */
                ctx->ops->fence_sync(ctx, MIDINT_FENCE_WS);
            ctx->ops->free(ctx, bufs[k]->buf);
        }
        bufs[k]->buf = NULL;
        bufs[k]->bytes = 0;
    }
}

/* One launch: the arguments every kernel takes, for `count` instances from `inst0`. */
static midint_status launch(midint_context *ctx, const midint_kernel *k, const midint_launch *base, uint64_t grid,
                            uint32_t x0, uint32_t x1, void *stream)
{
    midint_launch l = *base;
    l.grid = grid;
    l.x0 = x0;
    l.x1 = x1;
    return ctx->ops->launch(ctx, k, &l, stream);
}

/* One launch of a one-block kernel for l->count instances (a pass of them from l->inst0 where it has workspace). */
static midint_status run_one_block(midint_context *ctx, const midint_plan *p, midint_launch *l, void *stream)
{
    const midint_variant *v = p->v;
    l->ti = midint_variant_threads_per_instance(v, p->n);
    l->ipb = v->block / l->ti; /* the block size is fixed per kernel: a smaller instance packs more per block */
    /* the call's scalars as bound (abits, ebits, secret): one-block kernels that take none ignore them */
    return launch(ctx, &midint_kernels[v->kernel], l, (l->count + l->ipb - 1) / l->ipb, l->x0, l->x1, stream);
}

/* One kernel over the batch's flat array of count x n words, Q words per thread (x0, x1: the call's scalars). */
static midint_status run_map(midint_context *ctx, const midint_plan *p, midint_launch *l, void *stream)
{
    const midint_kernel *k = &midint_kernels[p->v->kernel];
    uint64_t words = (uint64_t)p->count * p->n;
    l->grid = (words + k->span - 1) / k->span;
    return ctx->ops->launch(ctx, k, l, stream);
}

static midint_status run_addsub_grid(midint_context *ctx, const midint_plan *p, midint_launch *l, void *stream)
{
    const midint_kernel *tile = midint_variant_kernel(p->v, MIDINT_ROLE_TILE, 0);
    const midint_kernel *fix = midint_variant_kernel(p->v, MIDINT_ROLE_FIXUP, 0);
    uint64_t n_tiles = (uint64_t)tiles(p->n, tile) * l->count;
    midint_status st = launch(ctx, tile, l, n_tiles, 0, 0, stream);
    return st != MIDINT_OK ? st : launch(ctx, fix, l, (n_tiles + fix->block - 1) / fix->block, p->n, 0, stream);
}

/* One instance (l->inst0) in pieces: the pieces' columns and rows forward (x1 of the column pass: the operand's
 * words, n the piece's), the outputs' sums of products and their rows back into ws2, its columns back, the
 * recombination of the outputs' overlapping halves (x0 = log2 L | outputs << 8), and the carries. rows_mac makes
 * km->outputs outputs per block (x0 = log2 L | pieces << 8, x1 = outputs). */
static midint_status run_ntt_pieces(midint_context *ctx, const midint_plan *p, midint_launch *l, void *stream,
                                    const midint_kernel *kc, const midint_kernel *ki, const midint_kernel *kf)
{
    const midint_kernel *kr = midint_variant_kernel(p->v, MIDINT_ROLE_ROWS_FWD, p->log_rows);
    const midint_kernel *km = midint_variant_kernel(p->v, MIDINT_ROLE_ROWS_MAC, p->log_rows);
    const midint_kernel *kt = midint_variant_kernel(p->v, MIDINT_ROLE_CRT_PIECES, 0);
    uint32_t lg = p->log_length, np = p->v->ntt_primes, k = p->pieces, outs = p->outputs;
    uint64_t col_groups = (1u << p->log_rows) / kc->span, row_groups = (1u << (lg - p->log_rows)) / kr->span;
    midint_launch in = *l, out = *l;
    in.n = out.n = p->piece_words;
    in.inst0 = l->inst0 * p->n; /* the operand's first word */
    out.ws = ctx->ws2.buf;
    midint_status st;
    if ((st = launch(ctx, kc, &in, col_groups * 2u * np * k, lg, p->n, stream)) != MIDINT_OK ||
        (st = launch(ctx, kr, &in, row_groups * np * k, lg, 0, stream)) != MIDINT_OK)
        return st;
    in.r = ctx->ws2.buf;
    uint32_t mac_blocks = (outs + km->outputs - 1) / km->outputs; /* each block makes km->outputs of them */
    if ((st = launch(ctx, km, &in, row_groups * np * mac_blocks, lg | k << 8, outs, stream)) != MIDINT_OK ||
        (st = launch(ctx, ki, &out, col_groups * np * outs, lg, 1, stream)) != MIDINT_OK ||
        (st = launch(ctx, kt, &out, tiles(p->rn, kt), lg | outs << 8, p->rn, stream)) != MIDINT_OK)
        return st;
    midint_launch fix = *l;
    fix.aux = NULL;
    return launch(ctx, kf, &fix, (tiles(p->rn, kf) + kf->block - 1) / kf->block, p->rn, 0, stream);
}

static midint_status run_ntt_grid(midint_context *ctx, const midint_plan *p, midint_launch *l, void *stream)
{
    const midint_variant *v = p->v;
    uint32_t lg = p->log_length, rows = p->log_rows, cols = lg - rows, np = v->ntt_primes;
    const midint_kernel *kc = midint_variant_kernel(v, p->wrap_b ? MIDINT_ROLE_COLS_WRAP : MIDINT_ROLE_COLS, cols);
    const midint_kernel *ki = midint_variant_kernel(v, MIDINT_ROLE_COLS_INV, cols);
    const midint_kernel *kf = midint_variant_kernel(v, MIDINT_ROLE_FIXUP, 0);
    if (p->pieces)
        return run_ntt_pieces(ctx, p, l, stream, kc, ki, kf);
    const midint_kernel *kr = midint_variant_kernel(v, MIDINT_ROLE_ROWS, rows);
    const midint_kernel *kt = midint_variant_kernel(v, MIDINT_ROLE_CRT, 0);
    uint64_t m = l->count, col_groups = (1u << rows) / kc->span, row_groups = (1u << cols) / kr->span;
    midint_status st;
    /* the passes read the twiddle tables in aux; the carry fix-up writes no carry out */
    if ((st = launch(ctx, kc, l, col_groups * 2u * np * m, lg, p->wrap_b, stream)) != MIDINT_OK ||
        (st = launch(ctx, kr, l, row_groups * np * m, lg, 0, stream)) != MIDINT_OK ||
        (st = launch(ctx, ki, l, col_groups * np * m, lg, 0, stream)) != MIDINT_OK ||
        (st = launch(ctx, kt, l, (uint64_t)tiles(p->rn, kt) * m, lg, p->rn, stream)) != MIDINT_OK)
        return st;
    midint_launch fix = *l;
    fix.aux = NULL;
    return launch(ctx, kf, &fix, ((uint64_t)tiles(p->rn, kf) * m + kf->block - 1) / kf->block, p->rn, 0, stream);
}

/* The tiles of every output (x1: words per tile), then the carries between them, output by output (x1: words per
 * tile | output << 16: which functions; r: that output's buffer). */
static midint_status run_expr_grid(midint_context *ctx, const midint_plan *p, midint_launch *l, void *stream)
{
    const midint_kernel *tile = midint_variant_kernel(p->v, MIDINT_ROLE_EXPR, 0);
    const midint_kernel *fix = midint_variant_kernel(p->v, MIDINT_ROLE_FIXUP, 0);
    uint64_t n_tiles = (uint64_t)((p->n + p->tile_words - 1) / p->tile_words) * l->count;
    midint_status st = launch(ctx, tile, l, n_tiles, 0, p->tile_words, stream);
    for (uint32_t j = 0; j < p->outputs && st == MIDINT_OK; j++) {
        midint_launch f = *l;
        f.r = l->io[j];
        st = launch(ctx, fix, &f, (n_tiles + fix->block - 1) / fix->block, p->n, p->tile_words | j << 16, stream);
    }
    return st;
}

/* A grid plan's passes of `group` instances over the context's workspace, grown first when needed. */
static midint_status run_passes(midint_context *ctx, const midint_plan *p, midint_launch l, void *stream)
{
    midint_status st;
    if ((st = midint_workspace_grow(ctx, &ctx->ws, (size_t)(4u * p->ws_words * p->group))) != MIDINT_OK ||
        (st = midint_workspace_grow(ctx, &ctx->ws2, (size_t)(4u * p->ws2_words * p->group))) != MIDINT_OK ||
        (st = midint_workspace_grow(ctx, &ctx->st, (size_t)(4u * p->st_words * p->group))) != MIDINT_OK ||
        (st = ctx->ops->fence_wait(ctx, stream, MIDINT_FENCE_WS)) != MIDINT_OK)
        return st;
    l.ws = p->ws_words ? ctx->ws.buf : NULL;
    l.st = ctx->st.buf;
    for (size_t done = 0; done < p->count && st == MIDINT_OK; done += p->group) {
        l.inst0 = done;
        l.count = p->count - done < p->group ? p->count - done : p->group;
        st = p->v->plan == MIDINT_PLAN_ONE_BLOCK ? run_one_block(ctx, p, &l, stream)
             : p->v->plan == MIDINT_PLAN_ADDSUB_GRID ? run_addsub_grid(ctx, p, &l, stream)
             : p->v->plan == MIDINT_PLAN_EXPR_GRID ? run_expr_grid(ctx, p, &l, stream)
                                                   : run_ntt_grid(ctx, p, &l, stream);
    }
    midint_status marked = ctx->ops->fence_mark(ctx, MIDINT_FENCE_WS, stream);
    return st != MIDINT_OK ? st : marked;
}

midint_status midint_plan_run(midint_context *ctx, const midint_plan *p, const midint_launch *bind, int vec,
                              void *stream)
{
    midint_launch l = *bind;
    l.n = p->n;
    l.vec = (uint32_t)vec;
    l.count = p->count;
    if (p->v->ntt_primes) { /* transforms read their twiddle tables in aux */
        midint_status st = midint_ntt_table(ctx, &l.aux);
        if (st != MIDINT_OK)
            return st;
    }
    if (p->v->plan == MIDINT_PLAN_ONE_BLOCK && !p->ws_words)
        return run_one_block(ctx, p, &l, stream);
    if (p->v->plan == MIDINT_PLAN_MAP)
        return run_map(ctx, p, &l, stream);
    return run_passes(ctx, p, l, stream);
}
