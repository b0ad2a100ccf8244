/* expr_steps.c — an expression evaluated step by step as separate library calls, where no fused kernel serves a size. */
#include <stdio.h>
#include <string.h>

#include "expr_steps.h"

#define STEPS_MAX 128 /* steps of one program; the generator writes far fewer (poly: 7) */

/* One step of the program (docs/expressions.md, "Generating"): its operation, result width, operands (value
 * numbers: inputs first, then the steps) and constant. */
typedef struct step {
    char op[8];
    unsigned width, x, y;
    unsigned long value;
} step;

typedef struct program {
    unsigned ninputs, nsteps, nout;
    int modular;                                     /* it has modular steps (E mod m): no step-by-step path */
    step s[STEPS_MAX];
    unsigned width[MIDINT_EXPR_MAX_IO + STEPS_MAX]; /* of each value */
    unsigned out[MIDINT_EXPR_MAX_IO];                /* the outputs' values */
} program;

static int is_binary(const char *op)
{
    return !strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mullo") || !strcmp(op, "mul");
}

/* Read one step at *p ("op width args"); 0 when it is malformed or names a value not yet defined. */
static int parse_step(program *g, const char **p)
{
    if (g->nsteps == STEPS_MAX)
        return 0;
    step *t = &g->s[g->nsteps];
    unsigned nv = g->ninputs + g->nsteps;
    int used = 0;
    memset(t, 0, sizeof *t);
    if (sscanf(*p, "%7s%n", t->op, &used) != 1)
        return 0;
    *p += used;
    if (!strcmp(t->op, "redm") || !strcmp(t->op, "addm") || !strcmp(t->op, "subm") || !strcmp(t->op, "mulm")) {
        /* a modular step (docs/expressions.md): its residues are the fused kernel's (expr_mod) alone; the step path
         * would need a modular reduction per step, so such a program has none (midint_expr_steps_max_bits: 0) */
        unsigned m = 0;
        int ok = t->op[0] == 'r' ? sscanf(*p, "%u %u %u%n", &t->width, &t->x, &m, &used) == 3
                                 : sscanf(*p, "%u %u %u %u%n", &t->width, &t->x, &t->y, &m, &used) == 4;
        if (!ok || t->width != 1 || t->x >= nv || t->y >= nv || m >= g->ninputs)
            return 0;
        *p += used;
        g->modular = 1;
        g->width[nv] = 1;
        g->nsteps++;
        return 1;
    }
    int ok = !strcmp(t->op, "const") ? sscanf(*p, "%u %lu%n", &t->width, &t->value, &used) == 2
             : !strcmp(t->op, "ext") ? sscanf(*p, "%u %u%n", &t->width, &t->x, &used) == 2 && t->x < nv
             : is_binary(t->op) && sscanf(*p, "%u %u %u%n", &t->width, &t->x, &t->y, &used) == 3 && t->x < nv &&
                   t->y < nv;
    if (!ok || t->width < 1 || t->width > 2)
        return 0;
    *p += used;
    g->width[nv] = t->width;
    g->nsteps++;
    return 1;
}

/* The program of d as steps; 0 when its text is malformed (the generator never writes one). */
static int parse_program(const midint_expr_desc *d, program *g)
{
    memset(g, 0, sizeof *g);
    g->ninputs = d->ninputs;
    for (unsigned i = 0; i < d->ninputs; i++)
        g->width[i] = 1;
    for (const char *p = d->program; *p;) {
        unsigned v = 0;
        int used = 0;
        if (!strncmp(p, "out ", 4)) {
            if (sscanf(p + 4, "%u%n", &v, &used) != 1 || v >= g->ninputs + g->nsteps || g->nout == MIDINT_EXPR_MAX_IO)
                return 0;
            g->out[g->nout++] = v;
            p += 4 + used;
        } else if (!parse_step(g, &p)) {
            return 0;
        }
        while (*p == ';' || *p == ' ')
            p++;
    }
    return g->nout == d->noutputs;
}

/* The library operation a step calls, or -1 for ext and const (buffer fills and copies, no operation). */
static int op_of_step(const step *t)
{
    return !strcmp(t->op, "add") ? MIDINT_OP_ADD : !strcmp(t->op, "sub") ? MIDINT_OP_SUB
           : !strcmp(t->op, "mullo") ? MIDINT_OP_MULLO : !strcmp(t->op, "mul") ? MIDINT_OP_MUL : -1;
}

int midint_expr_modular(const midint_expr_desc *d)
{
    program g;
    return d && parse_program(d, &g) && g.modular;
}

unsigned midint_expr_steps_max_bits(const midint_context *ctx, const midint_expr_desc *d)
{
    program g;
    if (!ctx || !d || !parse_program(d, &g) || g.modular)
        return 0;
    /* a sum runs at its width (2 · bits for double-width values), a product on operands of `bits` bits */
    unsigned max = ctx->max_bits[MIDINT_OP_ADD]; /* a program of copies alone: as far as the sums */
    for (unsigned i = 0; i < g.nsteps; i++) {
        int op = op_of_step(&g.s[i]);
        unsigned width = op == MIDINT_OP_ADD || op == MIDINT_OP_SUB ? g.s[i].width : 1;
        unsigned m = op < 0 ? max : ctx->max_bits[op] / width / 32 * 32;
        if (m < max)
            max = m;
    }
    return max;
}

/* ---- temporaries: slots assigned from the values' lifetimes, buffers cached in the context ---- */

/* Where each value lives: an input's buffer, or a slot of the context's cache. */
typedef struct steps_plan {
    int slot[MIDINT_EXPR_MAX_IO + STEPS_MAX]; /* -1: an input */
    unsigned slot_width[MIDINT_STEPS_SLOTS];
    unsigned nslots;
    int column; /* a nonzero constant needs the column of count words */
} steps_plan;

/* The step index after which value v is read no more (g->nsteps: an output, read when the outputs are written). */
static unsigned last_read(const program *g, unsigned v)
{
    unsigned last = 0;
    for (unsigned i = 0; i < g->nsteps; i++) {
        const step *t = &g->s[i];
        int binary = is_binary(t->op), ext = !strcmp(t->op, "ext");
        if (((binary || ext) && t->x == v) || (binary && t->y == v))
            last = i;
    }
    for (unsigned j = 0; j < g->nout; j++)
        if (g->out[j] == v)
            last = g->nsteps;
    return last;
}

/* Release the slots of step i's operands that no later step reads (a slot freed twice when x == y is harmless). */
static void release_operands(const program *g, unsigned i, const steps_plan *p, int *busy)
{
    const step *t = &g->s[i];
    unsigned ops[2] = {t->x, t->y}, nops = is_binary(t->op) ? 2 : !strcmp(t->op, "ext") ? 1 : 0;
    for (unsigned k = 0; k < nops; k++)
        if (p->slot[ops[k]] >= 0 && last_read(g, ops[k]) == i)
            busy[p->slot[ops[k]]] = 0;
}

/* A free slot of this width, else a new one; -1 when there are MIDINT_STEPS_SLOTS already. */
static int take_slot(steps_plan *p, int *busy, unsigned width)
{
    for (unsigned k = 0; k < p->nslots; k++)
        if (!busy[k] && p->slot_width[k] == width) {
            busy[k] = 1;
            return (int)k;
        }
    if (p->nslots == MIDINT_STEPS_SLOTS)
        return -1;
    p->slot_width[p->nslots] = width;
    busy[p->nslots] = 1;
    return (int)p->nslots++;
}

/* Give every step a slot, reusing the slot of a value whose last reader has run. add, sub and mullo work in place,
 * so their result may take an operand's slot; mul (r twice as long) and the copies of ext may not. */
static int plan_slots(const program *g, steps_plan *p)
{
    int busy[MIDINT_STEPS_SLOTS] = {0};
    memset(p, 0, sizeof *p);
    for (unsigned v = 0; v < g->ninputs; v++)
        p->slot[v] = -1;
    for (unsigned i = 0; i < g->nsteps; i++) {
        const step *t = &g->s[i];
        int in_place = is_binary(t->op) && strcmp(t->op, "mul") != 0;
        if (in_place)
            release_operands(g, i, p, busy);
        if ((p->slot[g->ninputs + i] = take_slot(p, busy, t->width)) < 0)
            return 0;
        if (!in_place)
            release_operands(g, i, p, busy);
        p->column |= !strcmp(t->op, "const") && t->value != 0;
    }
    return 1;
}

/* Grow the cached buffers k < n to need[k] bytes: those too small are freed, after one wait for the work that used
 * them (the temporaries are ordered like the workspace, under its fence), and allocated anew. */
static midint_status grow_tmps(midint_context *ctx, const size_t *need, unsigned n)
{
    midint_status st = MIDINT_OK;
    int stale = 0;
    for (unsigned k = 0; k < n; k++)
        stale |= ctx->steps_tmp[k].buf && need[k] > ctx->steps_tmp[k].bytes;
    if (stale && (st = ctx->ops->fence_sync(ctx, MIDINT_FENCE_WS)) != MIDINT_OK)
        return st;
    for (unsigned k = 0; k < n && st == MIDINT_OK; k++) {
        midint_staging_buf *s = &ctx->steps_tmp[k];
        if (need[k] <= s->bytes)
            continue;
        if (s->buf)
            ctx->ops->free(ctx, s->buf);
        s->bytes = 0;
        if ((st = ctx->ops->alloc(ctx, need[k], &s->buf)) != MIDINT_OK) {
            s->buf = NULL;
            return midint_fail(ctx, st, "allocating %zu bytes for an expression's intermediate values: %s", need[k],
                               ctx->msg);
        }
        s->bytes = need[k];
    }
    return st;
}

void midint_expr_steps_free(midint_context *ctx)
{
    int any = 0;
    for (unsigned k = 0; k <= MIDINT_STEPS_SLOTS; k++)
        any |= ctx->steps_tmp[k].buf != NULL;
    if (any)
        ctx->ops->fence_sync(ctx, MIDINT_FENCE_WS);
    for (unsigned k = 0; k <= MIDINT_STEPS_SLOTS; k++) {
        if (ctx->steps_tmp[k].buf)
            ctx->ops->free(ctx, ctx->steps_tmp[k].buf);
        ctx->steps_tmp[k].buf = NULL;
        ctx->steps_tmp[k].bytes = 0;
    }
}

/* ---- the steps ---- */

/* One evaluation: the call's shape and the buffer of every value. */
typedef struct steps_run {
    unsigned bits;
    size_t count;
    void *val[MIDINT_EXPR_MAX_IO + STEPS_MAX];
    void *stream;
} steps_run;

/* Bytes of a value of `width` for the whole batch. */
static size_t value_bytes(const steps_run *r, unsigned width)
{
    return r->count * (r->bits / 32) * 4u * width;
}

/* A value's copy (the outputs, a value set aside). */
static midint_status copy_value(midint_context *ctx, const steps_run *r, void *dst, const void *src, unsigned width)
{
    return ctx->ops->copy(ctx, dst, src, value_bytes(r, width), r->stream);
}

/* ext and const have no operation of their own; a kernel for them would be one more generated kernel per backend and
 * size for a pass over memory that the backends' fills and copies make without one: ext is a fill of zeros and a
 * copy of the value's rows into the lower half of each instance (OpenCL has no strided fill, so the zeros cover the
 * whole value: the lower halves are written twice); a constant is a fill of zeros and, when it is not 0,
 * a copy of a column of `count` words holding it into word 0 of each instance (a copy has no stride of 0 to
 * broadcast one word). */
static midint_status run_ext(midint_context *ctx, const steps_run *r, const step *t, unsigned from_width, void *dst)
{
    size_t row = value_bytes(r, from_width) / r->count;
    midint_status st = ctx->ops->fill(ctx, dst, 0, value_bytes(r, t->width), r->stream);
    return st != MIDINT_OK ? st : ctx->ops->copy_rect(ctx, dst, 0, row / from_width * t->width, r->val[t->x], 0,
                                                      row, row, r->count, r->stream);
}

static midint_status run_const(midint_context *ctx, const steps_run *r, const step *t, void *dst)
{
    void *column = ctx->steps_tmp[MIDINT_STEPS_SLOTS].buf;
    midint_status st = ctx->ops->fill(ctx, dst, 0, value_bytes(r, t->width), r->stream);
    if (st != MIDINT_OK || t->value == 0)
        return st;
    if ((st = ctx->ops->fill(ctx, column, (uint32_t)t->value, r->count * 4, r->stream)) != MIDINT_OK)
        return st;
    return ctx->ops->copy_rect(ctx, dst, 0, value_bytes(r, t->width) / r->count, column, 0, 4, 4, r->count,
                               r->stream);
}

static midint_status run_step(midint_context *ctx, const program *g, const steps_run *r, unsigned i)
{
    const step *t = &g->s[i];
    void *dst = r->val[g->ninputs + i], *x = r->val[t->x], *y = r->val[t->y];
    int op = op_of_step(t);
    if (op < 0)
        return !strcmp(t->op, "ext") ? run_ext(ctx, r, t, g->width[t->x], dst) : run_const(ctx, r, t, dst);
    /* a full product of a value by itself is a square (its own kernels: each cross product once) */
    if (op == MIDINT_OP_MUL && t->x == t->y && ctx->max_bits[MIDINT_OP_SQR] >= r->bits) {
        void *const sq[] = {dst, x};
        return midint_run_device(ctx, MIDINT_OP_SQR, r->count, r->bits, sq, NULL, r->stream);
    }
    /* the operation's buffers: its result, its two inputs, and for add and sub no carry out */
    void *const bufs[] = {dst, x, y, NULL};
    unsigned width = op == MIDINT_OP_ADD || op == MIDINT_OP_SUB ? t->width : 1;
    return midint_run_device(ctx, (midint_op)op, r->count, r->bits * width, bufs, NULL, r->stream);
}

/* Whether the buffer of output j's value is another output's buffer (an input written in place): then it must be
 * read before that output is written, and is first copied aside. */
static int source_clobbered(const program *g, void *const *io, const steps_run *r, unsigned j)
{
    for (unsigned k = 0; k < g->nout; k++)
        if (k != j && io[k] == r->val[g->out[j]])
            return 1;
    return 0;
}

/* The outputs, last: every step has read the inputs by then, so an output may be an input's buffer. */
static midint_status write_outputs(midint_context *ctx, const program *g, void *const *io, steps_run *r,
                                   const steps_plan *p)
{
    midint_status st = MIDINT_OK;
    unsigned spare = p->nslots; /* slots past the plan's hold the copies set aside */
    void *src[MIDINT_EXPR_MAX_IO];
    for (unsigned j = 0; j < g->nout && st == MIDINT_OK; j++) {
        src[j] = r->val[g->out[j]];
        if (source_clobbered(g, io, r, j)) {
            void *aside = ctx->steps_tmp[spare++].buf;
            st = copy_value(ctx, r, aside, src[j], 1);
            src[j] = aside;
        }
    }
    for (unsigned j = 0; j < g->nout && st == MIDINT_OK; j++)
        if (io[j] != src[j])
            st = copy_value(ctx, r, io[j], src[j], g->width[g->out[j]]);
    return st;
}

/* Outputs whose value must be copied aside first (write_outputs), each a slot of width 1 past the plan's. */
static unsigned count_aside(const program *g, void *const *io, const steps_run *r)
{
    unsigned n = 0;
    for (unsigned j = 0; j < g->nout; j++)
        n += source_clobbered(g, io, r, j);
    return n;
}

/* Every buffer before the first launch, so that a failed allocation leaves the outputs untouched. */
static midint_status prepare(midint_context *ctx, const program *g, const steps_plan *p, void *const *io,
                             steps_run *r)
{
    unsigned aside = count_aside(g, io, r);
    if (p->nslots + aside > MIDINT_STEPS_SLOTS)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "the expression holds more than %d values at once "
                           "(MIDINT_STEPS_SLOTS)", MIDINT_STEPS_SLOTS);
    size_t need[MIDINT_STEPS_SLOTS + 1] = {0};
    for (unsigned k = 0; k < p->nslots + aside; k++)
        need[k] = value_bytes(r, k < p->nslots ? p->slot_width[k] : 1);
    need[MIDINT_STEPS_SLOTS] = p->column ? r->count * 4 : 0;
    midint_status st = grow_tmps(ctx, need, MIDINT_STEPS_SLOTS + 1);
    for (unsigned i = 0; i < g->nsteps; i++)
        r->val[g->ninputs + i] = ctx->steps_tmp[p->slot[g->ninputs + i]].buf;
    return st;
}

midint_status midint_expr_steps_run(midint_context *ctx, const midint_expr_desc *d, unsigned bits, size_t count,
                                    void *const *io, void *stream)
{
    program g;
    steps_plan p;
    steps_run r = {bits, count, {0}, stream};
    if (!parse_program(d, &g) || !plan_slots(&g, &p))
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "expression '%s': its program cannot run step by step "
                           "(more than %d steps or %d values at once)", d->name, STEPS_MAX, MIDINT_STEPS_SLOTS);
    for (unsigned i = 0; i < g.ninputs; i++)
        r.val[i] = io[g.nout + i];
    midint_status st = prepare(ctx, &g, &p, io, &r);
    /* the temporaries are shared by the context's calls on any stream (the host path's chunks run on three):
     * wait for their last user, as the workspace's users do */
    if (st == MIDINT_OK)
        st = ctx->ops->fence_wait(ctx, stream, MIDINT_FENCE_WS);
    for (unsigned i = 0; i < g.nsteps && st == MIDINT_OK; i++)
        st = run_step(ctx, &g, &r, i);
    if (st == MIDINT_OK)
        st = write_outputs(ctx, &g, io, &r, &p);
    midint_status marked = ctx->ops->fence_mark(ctx, MIDINT_FENCE_WS, stream);
    return st != MIDINT_OK ? st : marked;
}

midint_expr_limits midint_expr_limits_of(midint_context *ctx, size_t i)
{
    if (!ctx->expr_limits)
        return (midint_expr_limits){0, 0};
    if (!ctx->expr_steps_known) { /* after the operations' sizes were found (registry.c), once */
        for (size_t k = 0; k < midint_exprs_count; k++)
            ctx->expr_limits[k].steps = midint_expr_steps_max_bits(ctx, &midint_exprs[k]);
        ctx->expr_steps_known = 1;
    }
    return ctx->expr_limits[i];
}

int midint_expr_uses_steps(midint_context *ctx, size_t i, unsigned bits)
{
    midint_expr_limits l = midint_expr_limits_of(ctx, i);
    return (ctx->hooks.expr_steps || ctx->forced_steps || bits > l.fused) && bits <= l.steps;
}
