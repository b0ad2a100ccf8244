/* measure.c — the measuring tool behind `make tune` and `make bench`: times variants, checks them against GMP.
 *
 * Usage: measure [--backend cuda|opencl] [--device N] [--tuning PATH|none]
 * Prints "device NAME", "registry HASH" and "tuning STATUS", then answers one command per stdin line:
 *   time OP BITS COUNT VARIANT REPS   -> "time OP BITS COUNT VARIANT ok|error MEDIAN_MS pass|FAIL [message]"
 *                                        VARIANT "default" times what dispatch picks (and names it)
 *   square OP BITS COUNT VARIANT REPS -> as time, with one buffer for both operands (b is a: a square)
 *   run OP BITS COUNT VARIANT REPS [ARGS] -> as time (an expression: exactly time), for any operation through its
 *                                        descriptor (division and
 *                                        modular arithmetic: their scalars as ARGS, "ebits=512"; a modulus object's
 *                                        parity "modulus=odd" / "modulus=even", or "modulus=short" (odd, the top
 *                                        word zero); measure_ops.c)
 *   gmpop OP BITS COUNT THREADS [ARGS] -> "gmpop OP BITS COUNT THREADS SECONDS [ARGS]" (GMP's mpz function for a
 *                                        modular operation on host threads; measure_ops.c)
 *   copy WORDS REPS                   -> "copy WORDS MEDIAN_MS GBPS" (device-to-device, read + write)
 *   gmp OP BITS COUNT THREADS         -> "gmp OP BITS COUNT THREADS SECONDS" (GMP mpn on host threads)
 *   select OP BITS COUNT              -> "select OP BITS COUNT VARIANT"
 *   load PATH                         -> "load ok STATUS" or "load refused MESSAGE"
 *   sets                              -> "set OP BITS HASH" per generated (op, bits) pair, then "sets end": the
 *                                        candidate-set hashes a tuned table's rows name (docs/tuning.md)
 *   host OP BITS COUNT MEM REPS       -> "host OP BITS COUNT MEM ok|error MEDIAN_MS pass|FAIL VARIANT" (a host call
 *                                        from MEM = pageable|pinned memory, wall clock; measure_host.c)
 *   hostcopy BYTES REPS               -> "hostcopy BYTES H2D D2H H2D_BOTH D2H_BOTH BOTH" (GB/s, page-locked
 *                                        memory, each direction alone, then both at once from a common start,
 *                                        BOTH: both directions' bytes over the time until both are done)
 * OP may be a generated expression, expr_NAME (its inputs: the batch's a and b in turn, a modulus of E mod m b made odd;
 * its outputs checked against the expression's program in GMP), and for those
 *   chain OP BITS COUNT REPS          -> "chain OP BITS COUNT ok|error MEDIAN_MS pass|FAIL [message]": the same
 *                                        formula through separate midint calls (device buffers, default dispatch):
 *                                        the library's step path, forced (docs/expressions.md)
 * Operands are random (fixed seed), kept while consecutive commands use the same size and count.
 * A result is checked on 257 instances spread over the batch (all of them when fewer; of instances beyond 2^15
 * words, as many as make 2^23 words, at least one). */
#include <gmp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cases.h"
#include "measure_host.h"
#include "measure_ops.h"
#include "midint.h"
#include "registry.h" /* the candidate-set hashes (sets) */

typedef struct batch {
    unsigned bits;
    size_t count;
    uint32_t *ha, *hb;       /* host operands */
    uint32_t *hm;            /* expressions with a modulus (E mod m): b made odd, their moduli's operand */
    void *da, *db, *dr, *dc; /* device operands, result (room for the full product) and carry */
    void *dm;                /* hm on the device */
    void *dx[8];             /* expressions: outputs beyond the first (room for twice the width) */
} batch;

typedef struct launch_arg {
    midint_context *ctx;
    midint_op op;
    batch *b;
    int square; /* b is a: one buffer for both operands */
} launch_arg;

static void drop_batch(midint_context *ctx, batch *b)
{
    free(b->ha);
    free(b->hb);
    free(b->hm);
    midint_buffer_free(ctx, b->dm);
    midint_buffer_free(ctx, b->da);
    midint_buffer_free(ctx, b->db);
    midint_buffer_free(ctx, b->dr);
    midint_buffer_free(ctx, b->dc);
    for (int i = 0; i < 8; i++)
        midint_buffer_free(ctx, b->dx[i]);
    memset(b, 0, sizeof *b);
}

/* Make `b` hold random operands of `count` instances of `bits` bits, on the host and the device. */
static midint_status prepare(midint_context *ctx, batch *b, unsigned bits, size_t count)
{
    if (b->ha && b->bits == bits && b->count == count)
        return MIDINT_OK;
    drop_batch(ctx, b);
    size_t words = count * (bits / 32);
    b->ha = malloc(words * 4);
    b->hb = malloc(words * 4);
    if (!b->ha || !b->hb)
        return MIDINT_ERR_OUT_OF_MEMORY;
    rng g = {0x5EED ^ bits ^ count};
    for (size_t i = 0; i < words; i++) {
        uint64_t x = rng_next(&g);
        b->ha[i] = (uint32_t)x;
        b->hb[i] = (uint32_t)(x >> 32);
    }
    midint_status st;
    if ((st = midint_buffer_alloc(ctx, words * 4, &b->da)) != MIDINT_OK ||
        (st = midint_buffer_alloc(ctx, words * 4, &b->db)) != MIDINT_OK ||
        (st = midint_buffer_alloc(ctx, words * 8, &b->dr)) != MIDINT_OK ||
        (st = midint_buffer_alloc(ctx, count * 4, &b->dc)) != MIDINT_OK ||
        (st = midint_buffer_write(ctx, b->da, b->ha, words * 4)) != MIDINT_OK ||
        (st = midint_buffer_write(ctx, b->db, b->hb, words * 4)) != MIDINT_OK) {
        drop_batch(ctx, b);
        return st;
    }
    b->bits = bits;
    b->count = count;
    return MIDINT_OK;
}

static midint_status enqueue_op(void *p)
{
    launch_arg *l = p;
    batch *b = l->b;
    return device_call(l->op, l->ctx, b->count, b->bits, b->dr, b->da, l->square ? b->da : b->db, b->dc);
}

/* Compare 257 instances spread over the batch (or all) with GMP; of large instances fewer, up to 2^23 words of
 * operands (one product of 2^27 bits takes GMP a second), but at least one, the last. */
static int check(midint_context *ctx, midint_op op, const batch *b, int square)
{
    unsigned n = b->bits / 32, rn = result_words(op, n);
    size_t budget = ((size_t)1 << 23) / n, samples = b->count < 257 ? b->count : 257;
    if (samples > budget)
        samples = budget ? budget : 1;
    uint32_t *r = malloc((size_t)b->count * rn * 4), *carry = malloc(b->count * 4), *want = malloc(rn * 4);
    int ok = r && carry && want && midint_synchronize(ctx, NULL) == MIDINT_OK &&
             midint_buffer_read(ctx, r, b->dr, (size_t)b->count * rn * 4) == MIDINT_OK &&
             midint_buffer_read(ctx, carry, b->dc, b->count * 4) == MIDINT_OK;
    for (size_t k = 0; ok && k < samples; k++) {
        size_t i = samples == b->count ? k : k == samples - 1 ? b->count - 1 : (k * 2654435761u) % b->count;
        uint32_t wc;
        reference(op, n, b->ha + i * n, (square ? b->ha : b->hb) + i * n, want, &wc);
        ok = memcmp(r + i * rn, want, rn * 4) == 0 && (!op_has_carry(op) || carry[i] == wc);
    }
    free(r);
    free(carry);
    free(want);
    return ok;
}

/* ---- expressions: the fused kernel (midint_expr_device), and the same program as separate calls ---- */
typedef struct expr_arg {
    midint_context *ctx;
    const midint_expr_desc *d;
    batch *b;
} expr_arg;

/* The odd moduli of an expression with modular steps (its inputs in expr_moduli): b's words with the low bit set, made
 * once per batch (random odd moduli of the full width, which the random inputs exceed half the time). */
static midint_status expr_moduli_buffer(midint_context *ctx, batch *b)
{
    size_t words = b->count * (b->bits / 32);
    if (b->dm)
        return MIDINT_OK;
    if (!(b->hm = malloc(words * 4)))
        return MIDINT_ERR_OUT_OF_MEMORY;
    memcpy(b->hm, b->hb, words * 4);
    for (size_t i = 0; i < b->count; i++)
        b->hm[i * (b->bits / 32)] |= 1u;
    midint_status st = midint_buffer_alloc(ctx, words * 4, &b->dm);
    return st != MIDINT_OK ? st : midint_buffer_write(ctx, b->dm, b->hm, words * 4);
}

/* The batch's buffers as an expression's outputs (dr, then dx) and inputs (da, db in turn; a modulus dm). */
static midint_status expr_buffers(midint_context *ctx, const midint_expr_desc *d, batch *b, void **out, const void **in)
{
    unsigned moduli = expr_moduli(d);
    midint_status ms = moduli ? expr_moduli_buffer(ctx, b) : MIDINT_OK;
    if (ms != MIDINT_OK)
        return ms;
    for (unsigned j = 0; j < d->noutputs; j++) {
        if (j && !b->dx[j]) {
            midint_status st = midint_buffer_alloc(ctx, b->count * (b->bits / 32) * 8, &b->dx[j]);
            if (st != MIDINT_OK)
                return st;
        }
        out[j] = j ? b->dx[j] : b->dr;
    }
    for (unsigned i = 0; i < d->ninputs; i++)
        in[i] = moduli >> i & 1u ? b->dm : i % 2 ? b->db : b->da;
    return MIDINT_OK;
}

static midint_status enqueue_expr(void *p)
{
    expr_arg *e = p;
    void *out[8];
    const void *in[8];
    midint_status st = expr_buffers(e->ctx, e->d, e->b, out, in);
    return st != MIDINT_OK ? st : midint_expr_device(e->ctx, e->d->name, e->b->count, e->b->bits, e->d->noutputs, out,
                                                    e->d->ninputs, in, NULL);
}

/* Outputs of an expression against its program in GMP, on 257 instances spread over the batch (as check()). */
static int check_expr_batch(midint_context *ctx, const midint_expr_desc *d, batch *b)
{
    unsigned n = b->bits / 32;
    size_t budget = ((size_t)1 << 23) / n, samples = b->count < 257 ? b->count : 257;
    if (samples > budget)
        samples = budget ? budget : 1;
    void *out[8];
    const void *in[8];
    uint32_t *got[8] = {0}, *want[8] = {0};
    const uint32_t *hin[8];
    int ok = expr_buffers(ctx, d, b, out, in) == MIDINT_OK && midint_synchronize(ctx, NULL) == MIDINT_OK;
    for (unsigned i = 0; i < d->ninputs; i++)
        hin[i] = expr_moduli(d) >> i & 1u ? b->hm : i % 2 ? b->hb : b->ha;
    for (unsigned j = 0; ok && j < d->noutputs; j++) {
        size_t words = b->count * n * d->output_words[j];
        got[j] = malloc(words * 4);
        want[j] = malloc((size_t)n * d->output_words[j] * 4);
        ok = got[j] && want[j] && midint_buffer_read(ctx, got[j], out[j], words * 4) == MIDINT_OK;
    }
    for (size_t k = 0; ok && k < samples; k++) {
        size_t i = samples == b->count ? k : k == samples - 1 ? b->count - 1 : (k * 2654435761u) % b->count;
        ok = reference_expr(d, n, hin, i, want);
        for (unsigned j = 0; ok && j < d->noutputs; j++) {
            size_t words = (size_t)n * d->output_words[j];
            ok = memcmp(got[j] + i * words, want[j], words * 4) == 0;
        }
    }
    for (unsigned j = 0; j < d->noutputs; j++) {
        free(got[j]);
        free(want[j]);
    }
    return ok;
}

/* time (chain = 0) or chain (chain = 1) of expression op_s = expr_NAME; the chain is the library's step path
 * (forced variant "steps": one midint call per step, runtime/expr_steps.c) */
static void cmd_expr(midint_context *ctx, batch *b, const char *op_s, unsigned bits, size_t count, const char *name,
                     int reps, int chain)
{
    const midint_expr_desc *d = midint_expr_find(op_s + 5);
    midint_status st = d ? prepare(ctx, b, bits, count) : MIDINT_ERR_INVALID_ARGUMENT;
    const char *chosen = name;
    midint_force_variant(ctx, NULL);
    if (st == MIDINT_OK && (chain || strcmp(name, "default") != 0))
        st = midint_force_variant(ctx, chain ? "steps" : name);
    if (st == MIDINT_OK && !(chosen = midint_expr_selected_variant(ctx, d->name, bits, count)))
        st = MIDINT_ERR_UNKNOWN_VARIANT;
    if (st == MIDINT_OK && chain && strcmp(chosen, "steps") != 0)
        st = MIDINT_ERR_BITS_TOO_LARGE; /* the steps' operations stop below this size */
    double ms = 0;
    expr_arg e = {ctx, d, b};
    if (st == MIDINT_OK)
        st = midint_time(ctx, NULL, reps, enqueue_expr, &e, &ms);
    const char *cmd = chain ? "chain" : "time";
    chosen = chain ? "separate-calls" : chosen;
    if (st == MIDINT_OK)
        printf("%s %s %u %zu %s ok %.6f %s\n", cmd, op_s, bits, count, chosen, ms,
               check_expr_batch(ctx, d, b) ? "pass" : "FAIL");
    else
        printf("%s %s %u %zu %s error 0 FAIL %s: %s\n", cmd, op_s, bits, count, chosen ? chosen : name,
               midint_status_name(st), d ? midint_last_error(ctx) : "unknown expression");
    midint_force_variant(ctx, NULL);
}

static void cmd_time(midint_context *ctx, batch *b, const char *op_s, unsigned bits, size_t count, const char *name,
                     int reps, int square)
{
    if (strncmp(op_s, "expr_", 5) == 0) {
        cmd_expr(ctx, b, op_s, bits, count, name, reps, 0);
        return;
    }
    int op = parse_op(op_s);
    if (op >= 0 && op_is_modular(midint_op_describe((midint_op)op)) && !square) {
        /* their inputs are not the classic batch's a and b (a divisor, a modulus, an exponent): through the
         * descriptor, the scalars' defaults */
        cmd_run(ctx, op_s, bits, count, name, reps, "");
        return;
    }
    midint_status st = op < 0 ? MIDINT_ERR_INVALID_ARGUMENT : prepare(ctx, b, bits, count);
    const char *chosen = name;
    if (st == MIDINT_OK)
        st = choose_variant(ctx, (midint_op)op, bits, count, name, NULL, &chosen);
    double ms = 0;
    launch_arg l = {ctx, (midint_op)op, b, square};
    if (st == MIDINT_OK)
        st = midint_time(ctx, NULL, reps, enqueue_op, &l, &ms);
    const char *cmd = square ? "square" : "time";
    if (st == MIDINT_OK)
        printf("%s %s %u %zu %s ok %.6f %s\n", cmd, op_s, bits, count, chosen, ms,
               check(ctx, (midint_op)op, b, square) ? "pass" : "FAIL");
    else
        printf("%s %s %u %zu %s error 0 FAIL %s: %s\n", cmd, op_s, bits, count, chosen ? chosen : name,
               midint_status_name(st), op < 0 ? "unknown operation" : midint_last_error(ctx));
    midint_force_variant(ctx, NULL);
}

typedef struct copy_arg {
    midint_context *ctx;
    void *dst, *src;
    size_t bytes;
} copy_arg;

static midint_status enqueue_copy(void *p)
{
    copy_arg *c = p;
    return midint_buffer_copy(c->ctx, c->dst, c->src, c->bytes, NULL);
}

static void cmd_copy(midint_context *ctx, size_t words, int reps)
{
    copy_arg c = {ctx, NULL, NULL, words * 4};
    double ms = 0;
    midint_status st = midint_buffer_alloc(ctx, c.bytes, &c.src);
    if (st == MIDINT_OK)
        st = midint_buffer_alloc(ctx, c.bytes, &c.dst);
    if (st == MIDINT_OK)
        st = midint_time(ctx, NULL, reps, enqueue_copy, &c, &ms);
    if (st == MIDINT_OK)
        printf("copy %zu %.6f %.2f\n", words, ms, 2.0 * c.bytes / ms / 1e6);
    else
        printf("copy %zu error %s\n", words, midint_last_error(ctx));
    midint_buffer_free(ctx, c.src);
    midint_buffer_free(ctx, c.dst);
}

/* ---- GMP on host threads: the CPU reference throughput for `make bench` ----
 * GMP is one more provider of each operation: its mpn function per operation name (the benchmark's CPU column). An
 * operation without an entry here is reported as such, never timed as another. */
typedef void (*gmp_fn)(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *scratch);

static void g_add(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *s) { (void)s; mpn_add_n(z, x, y, ln); }
static void g_sub(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *s) { (void)s; mpn_sub_n(z, x, y, ln); }
static void g_mul(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *s) { (void)z; mpn_mul_n(s, x, y, ln); }
static void g_sqr(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *s) { (void)z; (void)y; mpn_sqr(s, x, ln); }
static void g_and(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *s) { (void)s; mpn_and_n(z, x, y, ln); }
static void g_ior(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *s) { (void)s; mpn_ior_n(z, x, y, ln); }
static void g_xor(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *s) { (void)s; mpn_xor_n(z, x, y, ln); }
static void g_com(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *s) { (void)y; (void)s; mpn_com(z, x, ln); }
/* the shifts by 37 bits: a limb's move and a shift within limbs, as a general count costs */
static void g_shl(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *s) { (void)y; (void)s; z[0] = 0; if (ln > 1) mpn_lshift(z + 1, x, ln - 1, 5); }
static void g_shr(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *s) { (void)y; (void)s; z[ln - 1] = 0; if (ln > 1) mpn_rshift(z, x + 1, ln - 1, 5); }
static void g_cmp(mp_limb_t *z, const mp_limb_t *x, const mp_limb_t *y, mp_size_t ln, mp_limb_t *s) { (void)s; z[0] = (mp_limb_t)mpn_cmp(x, y, ln); }

static const struct { const char *op; gmp_fn fn; } gmp_fns[] = {
    {"add", g_add}, {"sub", g_sub}, {"mul", g_mul}, {"mullo", g_mul} /* GMP has no low-half product in its API */,
    {"sqr", g_sqr}, {"and", g_and}, {"or", g_ior}, {"xor", g_xor}, {"not", g_com}, {"shl", g_shl}, {"shr", g_shr},
    {"cmp", g_cmp},
};

static gmp_fn gmp_of(const char *op)
{
    for (size_t i = 0; i < sizeof gmp_fns / sizeof gmp_fns[0]; i++)
        if (strcmp(gmp_fns[i].op, op) == 0)
            return gmp_fns[i].fn;
    return NULL;
}

typedef struct gmp_job {
    gmp_fn fn;
    unsigned n;
    size_t first, last;
    const uint32_t *a, *b;
    mp_limb_t *r;
} gmp_job;

static void *gmp_worker(void *p)
{
    const gmp_job *j = p;
    size_t ln = (j->n * 4 + sizeof(mp_limb_t) - 1) / sizeof(mp_limb_t); /* GMP limbs per operand */
    mp_limb_t *x = calloc(ln, sizeof(mp_limb_t)), *y = calloc(ln, sizeof(mp_limb_t)), *z = j->r;
    mp_limb_t *scratch = calloc(2 * ln, sizeof(mp_limb_t));
    for (size_t i = j->first; i < j->last; i++) {
        memcpy(x, j->a + i * j->n, j->n * 4); /* little-endian words are little-endian limbs on x86-64 */
        memcpy(y, j->b + i * j->n, j->n * 4);
        j->fn(z, x, y, (mp_size_t)ln, scratch);
    }
    free(x);
    free(y);
    free(scratch);
    return NULL;
}

static void cmd_gmp(const char *op_s, unsigned bits, size_t count, int threads, batch *host)
{
    gmp_fn fn = gmp_of(op_s);
    unsigned n = bits / 32;
    if (!fn || threads < 1 || threads > 1024 || !n) {
        printf("gmp %s %u %zu %d error%s\n", op_s, bits, count, threads, fn ? "" : " no GMP function for it");
        return;
    }
    size_t words = count * n;
    uint32_t *a = host->ha, *b = host->hb;
    int own = !(host->ha && host->bits == bits && host->count == count);
    if (own) {
        a = malloc(words * 4), b = malloc(words * 4);
        rng g = {7};
        for (size_t i = 0; i < words; i++)
            a[i] = (uint32_t)rng_next(&g), b[i] = (uint32_t)rng_next(&g);
    }
    pthread_t tid[1024];
    gmp_job jobs[1024];
    mp_limb_t *out = malloc(sizeof(mp_limb_t) * ((size_t)threads * (n + 2)));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int k = 0; k < threads; k++) {
        jobs[k] = (gmp_job){fn, n, count * k / threads, count * (k + 1) / threads, a, b, out + (size_t)k * (n + 2)};
        pthread_create(&tid[k], NULL, gmp_worker, &jobs[k]);
    }
    for (int k = 0; k < threads; k++)
        pthread_join(tid[k], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("gmp %s %u %zu %d %.6f\n", op_s, bits, count, threads,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    free(out);
    if (own) {
        free(a);
        free(b);
    }
}

int main(int argc, char **argv)
{
    midint_backend backend = MIDINT_BACKEND_AUTO;
    int device = 0;
    const char *tuning = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            const char *s = argv[++i];
            backend = !strcmp(s, "cuda") ? MIDINT_BACKEND_CUDA : !strcmp(s, "opencl") ? MIDINT_BACKEND_OPENCL
                                                                                      : MIDINT_BACKEND_AUTO;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--tuning") && i + 1 < argc) {
            tuning = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--backend cuda|opencl] [--device N] [--tuning PATH|none] < commands\n",
                    argv[0]);
            return 2;
        }
    }
    midint_context *ctx;
    if (midint_open(&ctx, backend, device) != MIDINT_OK) {
        fprintf(stderr, "measure: %s\n", midint_last_error(NULL));
        return 2;
    }
    if (tuning && midint_load_tuning(ctx, strcmp(tuning, "none") ? tuning : NULL) != MIDINT_OK) {
        fprintf(stderr, "measure: %s\n", midint_last_error(ctx));
        return 2;
    }
    printf("device %s\nregistry %s\ntuning %s\n", midint_device_name(ctx), midint_registry_id(),
           midint_tuning_status(ctx));
    fflush(stdout);
    batch b = {0};
    char line[1024], cmd[16], op_s[32], name[512];
    unsigned bits;
    size_t count;
    int reps;
    while (fgets(line, sizeof line, stdin)) {
        char args[256] = "";
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "%15s", cmd) != 1 || cmd[0] == '#')
            continue;
        if (!strcmp(cmd, "time") && sscanf(line, "time %31s %u %zu %511s %d", op_s, &bits, &count, name, &reps) == 5)
            cmd_time(ctx, &b, op_s, bits, count, name, reps < 1 ? 1 : reps, 0);
        else if (!strcmp(cmd, "square") &&
                 sscanf(line, "square %31s %u %zu %511s %d", op_s, &bits, &count, name, &reps) == 5 &&
                 strncmp(op_s, "expr_", 5) != 0)
            cmd_time(ctx, &b, op_s, bits, count, name, reps < 1 ? 1 : reps, 1);
        else if (!strcmp(cmd, "chain") && sscanf(line, "chain %31s %u %zu %d", op_s, &bits, &count, &reps) == 4)
            cmd_expr(ctx, &b, op_s, bits, count, "default", reps < 1 ? 1 : reps, 1);
        else if (!strcmp(cmd, "run") &&
                 sscanf(line, "run %31s %u %zu %511s %d %255[^\n]", op_s, &bits, &count, name, &reps, args) >= 5) {
            /* an expression has no descriptor of the table: as `time` (its answer says time) */
            if (strncmp(op_s, "expr_", 5) == 0)
                cmd_expr(ctx, &b, op_s, bits, count, name, reps < 1 ? 1 : reps, 0);
            else
                cmd_run(ctx, op_s, bits, count, name, reps < 1 ? 1 : reps, args);
        }
        else if (!strcmp(cmd, "gmpop") && sscanf(line, "gmpop %31s %u %zu %d %255[^\n]", op_s, &bits, &count, &reps,
                                                 args) >= 4)
            cmd_gmpop(op_s, bits, count, reps, args);
        else if (!strcmp(cmd, "copy") && sscanf(line, "copy %zu %d", &count, &reps) == 2)
            cmd_copy(ctx, count, reps < 1 ? 1 : reps);
        else if (!strcmp(cmd, "host") && sscanf(line, "host %31s %u %zu %15s %d", op_s, &bits, &count, name, &reps) == 5)
            cmd_host(ctx, op_s, bits, count, name, reps < 1 ? 1 : reps);
        else if (!strcmp(cmd, "hostcopy") && sscanf(line, "hostcopy %zu %d", &count, &reps) == 2)
            cmd_hostcopy(ctx, device, count, reps < 1 ? 1 : reps);
        else if (!strcmp(cmd, "gmp") && sscanf(line, "gmp %31s %u %zu %d", op_s, &bits, &count, &reps) == 4)
            cmd_gmp(op_s, bits, count, reps, &b);
        else if (!strcmp(cmd, "select") && sscanf(line, "select %31s %u %zu", op_s, &bits, &count) == 3) {
            int op = parse_op(op_s);
            const char *v = !strncmp(op_s, "expr_", 5) ? midint_expr_selected_variant(ctx, op_s + 5, bits, count)
                            : op < 0 ? NULL : midint_selected_variant(ctx, (midint_op)op, bits, count);
            printf("select %s %u %zu %s\n", op_s, bits, count, v ? v : "none");
        } else if (!strcmp(cmd, "sets")) {
            for (size_t i = 0; i < midint_candidate_set_count; i++)
                printf("set %s %u %s\n", midint_op_name(midint_candidate_sets[i].op), midint_candidate_sets[i].bits,
                       midint_candidate_sets[i].hash);
            printf("sets end\n");
        } else if (!strcmp(cmd, "load") && sscanf(line, "load %511[^\n]", name) == 1) {
            if (midint_load_tuning(ctx, strcmp(name, "none") ? name : NULL) == MIDINT_OK)
                printf("load ok %s\n", midint_tuning_status(ctx));
            else
                printf("load refused %s\n", midint_last_error(ctx));
        } else {
            printf("error unknown command: %s\n", line);
        }
        fflush(stdout);
    }
    drop_batch(ctx, &b);
    midint_close(ctx);
    return 0;
}
