/* expr.c — fused expressions: listing them, argument checks, dispatch (a fused kernel or the steps, expr_steps.c), and
 * their host (chunked) and device paths. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ops.h"

size_t midint_expr_count(void)
{
    return midint_exprs_count;
}

const midint_expr_desc *midint_expr_info(size_t i)
{
    return i < midint_exprs_count ? &midint_exprs[i] : NULL;
}

const midint_expr_desc *midint_expr_find(const char *name)
{
    for (size_t i = 0; name && i < midint_exprs_count; i++)
        if (strcmp(midint_exprs[i].name, name) == 0)
            return &midint_exprs[i];
    return NULL;
}

static midint_op op_of(const midint_expr_desc *d)
{
    return (midint_op)(MIDINT_OP_EXPR0 + (unsigned)(d - midint_exprs));
}

/* The largest sizes d runs on this context, fused and step by step, worked out at open (context.c). */
static midint_expr_limits limits(const midint_context *ctx, const midint_expr_desc *d)
{
    return ctx->expr_limits ? ctx->expr_limits[d - midint_exprs] : (midint_expr_limits){0, 0};
}

unsigned midint_expr_max_bits(const midint_context *ctx, const char *name)
{
    const midint_expr_desc *d = midint_expr_find(name);
    if (!ctx || !d)
        return 0;
    midint_expr_limits l = limits(ctx, d);
    return l.fused > l.steps ? l.fused : l.steps;
}

/* Whether a call of d at `bits` runs step by step (expr_steps.c): where no fused kernel serves the size, or
 * everywhere the steps serve it when the test hook MIDINT_TEST_EXPR_STEPS or midint_force_variant(ctx, "steps")
 * asks for it. */
static int use_steps(const midint_context *ctx, const midint_expr_desc *d, unsigned bits)
{
    midint_expr_limits l = limits(ctx, d);
    return (ctx->test_expr_steps || ctx->forced_steps || bits > l.fused) && bits <= l.steps;
}

/* One call, checked: the expression, its op code, the buffers (outputs, then inputs: the kernel's io order). */
typedef struct expr_call {
    const midint_expr_desc *d;
    midint_op op;
    size_t count;
    unsigned bits;
    size_t nio;
    void *io[MIDINT_EXPR_MAX_IO];
    size_t bytes[MIDINT_EXPR_MAX_IO]; /* of each buffer for the whole batch */
} expr_call;

/* The name of buffer i of the call ("output r", "input a"), for messages. */
static const char *io_name(const midint_expr_desc *d, size_t i, char *buf, size_t len)
{
    if (i < d->noutputs)
        snprintf(buf, len, "outputs[%zu] (%s)", i, d->outputs[i]);
    else
        snprintf(buf, len, "inputs[%zu] (%s)", i - d->noutputs, d->inputs[i - d->noutputs]);
    return buf;
}

static midint_status check_expr(midint_context *ctx, const char *fn, const char *name, size_t count, unsigned bits,
                                size_t nout, void *const *outs, size_t nin, const void *const *ins,
                                int device_handles, expr_call *c)
{
    char b1[96], b2[96];
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "%s: ctx is NULL", fn);
    if (!name)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: name is NULL", fn);
    const midint_expr_desc *d = midint_expr_find(name);
    if (!d) {
        char known[256] = "";
        for (size_t i = 0; i < midint_exprs_count; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", midint_exprs[i].name);
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: no expression named '%.64s' was generated (generated: "
                           "%s; make gen EXPRS=...)", fn, name, midint_exprs_count ? known : "none");
    }
    if (nout != d->noutputs || nin != d->ninputs)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: expression '%s' has %u output%s and %u input%s; the "
                           "call gives %zu and %zu", fn, d->name, d->noutputs, d->noutputs == 1 ? "" : "s", d->ninputs,
                           d->ninputs == 1 ? "" : "s", nout, nin);
    if (!outs || !ins)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: %s is NULL", fn, !outs ? "outputs" : "inputs");
    memset(c, 0, sizeof *c);
    c->d = d;
    c->op = op_of(d);
    c->count = count;
    c->bits = bits;
    c->nio = nout + nin;
    for (size_t i = 0; i < c->nio; i++) {
        c->io[i] = i < nout ? outs[i] : (void *)ins[i - nout];
        if (!c->io[i])
            return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: %s is NULL", fn, io_name(d, i, b1, sizeof b1));
    }
    if (count == 0)
        return midint_fail(ctx, MIDINT_ERR_INVALID_COUNT, "%s: count is 0 (a batch holds at least one instance)", fn);
    if (bits == 0 || bits % 32)
        return midint_fail(ctx, MIDINT_ERR_INVALID_BITS, "%s: bits is %u; it must be a positive multiple of 32", fn,
                           bits);
    midint_expr_limits l = limits(ctx, d);
    if (bits > l.fused && bits > l.steps)
        return midint_fail(ctx, MIDINT_ERR_BITS_TOO_LARGE, "%s: bits is %u; the largest size of expression '%s' on "
                           "the %s backend is %u (fused kernels up to %u bits, then its steps as separate calls as far "
                           "as their operations go; make gen SIZES=...)", fn, bits, d->name, ctx->ops->name,
                           midint_expr_max_bits(ctx, name), l.fused);
    size_t n = bits / 32;
    if (count > SIZE_MAX / 4 / n / 2 || count > (size_t)UINT32_MAX * 1024u)
        return midint_fail(ctx, MIDINT_ERR_INVALID_COUNT, "%s: count %zu is too large", fn, count);
    for (size_t i = 0; i < c->nio; i++)
        c->bytes[i] = count * n * 4 * (i < nout ? d->output_words[i] : 1u);
    if (device_handles && ctx->ops->buffer_bytes)
        for (size_t i = 0; i < c->nio; i++) {
            size_t have = ctx->ops->buffer_bytes(ctx, c->io[i]);
            if (have < c->bytes[i])
                return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s holds %zu bytes; %zu instances of %u bits "
                                   "need %zu", fn, io_name(d, i, b1, sizeof b1), have, count, bits, c->bytes[i]);
        }
    /* an output may be exactly an input when it has the inputs' width (each block reads its instances' inputs
     * before writing their outputs); any other overlap with an input or another output is refused. OpenCL handles
     * show only identity. */
    int identity_only = device_handles && ctx->ops->id == MIDINT_BACKEND_OPENCL;
    for (size_t j = 0; j < nout; j++)
        for (size_t i = j + 1; i < c->nio; i++) {
            int same = c->io[i] == c->io[j];
            int overlap = identity_only ? same : midint_ranges_overlap(c->io[j], c->bytes[j], c->io[i], c->bytes[i]);
            if (overlap && !(i >= nout && same && d->output_words[j] == 1))
                return midint_fail(ctx, MIDINT_ERR_OVERLAP, "%s: %s overlaps %s%s", fn, io_name(d, j, b1, sizeof b1),
                                   io_name(d, i, b2, sizeof b2), i < nout ? "" : d->output_words[j] == 1 ?
                                   " without being the same buffer (only exact in-place use is supported)" :
                                   " (an output of twice the width cannot be written in place)");
        }
    return MIDINT_OK;
}

/* An additions-only expression over several blocks (MIDINT_PLAN_EXPR_GRID, plan.c): its plan, whose workspace holds
 * the tiles' functions, then its tile and fix-up launches. */
static midint_status launch_expr_grid(midint_context *ctx, const midint_variant *v, const expr_call *c, uint32_t n,
                                      size_t count, void *const *io, int vec, void *stream)
{
    midint_plan p;
    midint_status st = midint_plan_make(ctx, v, n, count, &p);
    return st != MIDINT_OK ? st : midint_plan_run_expr(ctx, &p, io, c->nio, vec, stream);
}

/* Enqueue the variant's kernel on `count` instances of n words; io: outputs then inputs (device buffers). */
static midint_status launch_expr(midint_context *ctx, const midint_variant *v, const expr_call *c, uint32_t n,
                                 size_t count, void *const *io, int vec, void *stream)
{
    if (v->plan == MIDINT_PLAN_EXPR_GRID)
        return launch_expr_grid(ctx, v, c, n, count, io, vec, stream);
    midint_launch l;
    memset(&l, 0, sizeof l);
    l.n = n;
    l.count = count;
    l.vec = (uint32_t)vec;
    l.ti = midint_variant_threads_per_instance(v, n);
    l.ipb = v->block / l.ti; /* as one-block kernels: a smaller instance packs more per block */
    l.grid = (count + l.ipb - 1) / l.ipb;
    for (size_t i = 0; i < c->nio; i++)
        l.io[i] = io[i];
    /* products through transforms (EXPR_NTT) read the twiddle tables at aux */
    midint_status st = v->ntt_primes ? midint_ntt_table(ctx, &l.aux) : MIDINT_OK;
    return st != MIDINT_OK ? st : ctx->ops->launch(ctx, &midint_kernels[v->kernel], &l, stream);
}

midint_status midint_expr_device(midint_context *ctx, const char *name, size_t count, unsigned bits, size_t noutputs,
                                 void *const *outputs, size_t ninputs, const void *const *inputs, void *stream)
{
    const char *fn = "midint_expr_device";
    expr_call c;
    const midint_variant *v = NULL;
    midint_status st = check_expr(ctx, fn, name, count, bits, noutputs, outputs, ninputs, inputs, 1, &c);
    if (st != MIDINT_OK)
        return st;
    if (use_steps(ctx, c.d, bits)) {
        st = midint_expr_steps_run(ctx, c.d, bits, count, c.io, stream);
        return st == MIDINT_OK ? st : midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
    }
    if ((st = midint_dispatch(ctx, c.op, bits / 32, count, &v)) != MIDINT_OK)
        return midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
    int vec = bits / 32 % 4 == 0;
    for (size_t i = 0; i < c.nio; i++)
        vec = vec && ctx->ops->aligned16(c.io[i]);
    if ((st = launch_expr(ctx, v, &c, bits / 32, count, c.io, vec, stream)) != MIDINT_OK)
        return midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
    return midint_spoil_if_planted(ctx, v, c.io[0], stream);
}

/* A chunk of an expression on the pipeline's device buffers (inputs, then outputs) in the kernel's io order
 * (outputs, then inputs). */
typedef struct expr_run {
    const midint_variant *v; /* NULL: step by step */
    const expr_call *c;
} expr_run;

static midint_status run_expr(midint_context *ctx, void *arg, void *const *dev, size_t first, size_t m, void *stream)
{
    const expr_run *e = arg;
    size_t nout = e->c->d->noutputs, nin = e->c->nio - nout;
    void *io[MIDINT_EXPR_MAX_IO];
    (void)first;
    for (size_t j = 0; j < nout; j++)
        io[j] = dev[nin + j];
    for (size_t i = 0; i < nin; i++)
        io[nout + i] = dev[i];
    if (!e->v)
        return midint_expr_steps_run(ctx, e->c->d, e->c->bits, m, io, stream);
    midint_status st = launch_expr(ctx, e->v, e->c, e->c->bits / 32, m, io, e->c->bits / 32 % 4 == 0, stream);
    return st != MIDINT_OK ? st : midint_spoil_if_planted(ctx, e->v, io[0], stream);
}

/* The host path: the pipeline of the built-in operations (host_path.c), chunks within the staging cap;
 * synchronous, or asynchronous on `stream` (every buffer page-locked). */
static midint_status expr_host(midint_context *ctx, const char *name, size_t count, unsigned bits, size_t noutputs,
                               void *const *outputs, size_t ninputs, const void *const *inputs, int async,
                               void *stream, const char *fn)
{
    expr_call c;
    expr_run e = {NULL, &c};
    midint_status st = check_expr(ctx, fn, name, count, bits, noutputs, outputs, ninputs, inputs, 0, &c);
    if (st != MIDINT_OK)
        return st;
    if (!use_steps(ctx, c.d, bits) && (st = midint_dispatch(ctx, c.op, bits / 32, count, &e.v)) != MIDINT_OK)
        return midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
    midint_pipe_job job = {.count = count, .nin = (unsigned)ninputs, .nout = (unsigned)noutputs, .run = run_expr,
                           .arg = &e};
    char names[MIDINT_EXPR_MAX_IO][48];
    for (size_t k = 0; k < c.nio; k++) {
        size_t i = k < ninputs ? noutputs + k : k - ninputs; /* pipeline order: inputs, then outputs */
        job.user[k] = c.io[i];
        job.unit[k] = c.bytes[i] / count;
        job.name[k] = io_name(c.d, i, names[k], sizeof names[k]);
    }
    job.chunk = midint_pipe_chunk(ctx, &job);
    return midint_pipe_run(ctx, &job, async, stream, fn);
}

midint_status midint_expr(midint_context *ctx, const char *name, size_t count, unsigned bits, size_t noutputs,
                          void *const *outputs, size_t ninputs, const void *const *inputs)
{
    return expr_host(ctx, name, count, bits, noutputs, outputs, ninputs, inputs, 0, NULL, "midint_expr");
}

midint_status midint_expr_async(midint_context *ctx, const char *name, size_t count, unsigned bits, size_t noutputs,
                                void *const *outputs, size_t ninputs, const void *const *inputs, void *stream)
{
    return expr_host(ctx, name, count, bits, noutputs, outputs, ninputs, inputs, 1, stream, "midint_expr_async");
}

const char *midint_expr_selected_variant(midint_context *ctx, const char *name, unsigned bits, size_t count)
{
    const midint_expr_desc *d = midint_expr_find(name);
    const midint_variant *v = NULL;
    if (!ctx || !d) {
        midint_fail(ctx, ctx ? MIDINT_ERR_INVALID_ARGUMENT : MIDINT_ERR_NULL_POINTER,
                    "midint_expr_selected_variant: %s", ctx ? "no such expression" : "ctx is NULL");
        return NULL;
    }
    if (count == 0 || bits == 0 || bits % 32) {
        midint_fail(ctx, count ? MIDINT_ERR_INVALID_BITS : MIDINT_ERR_INVALID_COUNT, "midint_expr_selected_variant: "
                    "count %zu, bits %u: count must be positive and bits a positive multiple of 32", count, bits);
        return NULL;
    }
    if (use_steps(ctx, d, bits))
        return "steps";
    return midint_dispatch(ctx, op_of(d), bits / 32, count, &v) == MIDINT_OK ? v->name : NULL;
}
