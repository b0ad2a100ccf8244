/* measure.c — the measuring tool behind `make tune` and `make bench`: times variants, checks them against GMP.
 *
 * Usage: measure [--backend cuda|opencl] [--device N] [--tuning PATH|none]
 * Prints "device NAME", "registry HASH" and "tuning STATUS", then answers one command per stdin line:
 *   time OP BITS COUNT VARIANT REPS   -> "time OP BITS COUNT VARIANT ok|error MEDIAN_MS pass|FAIL [message]"
 *                                        VARIANT "default" times what dispatch picks (and names it)
 *   copy WORDS REPS                   -> "copy WORDS MEDIAN_MS GBPS" (device-to-device, read + write)
 *   gmp OP BITS COUNT THREADS         -> "gmp OP BITS COUNT THREADS SECONDS" (GMP mpn on host threads)
 *   select OP BITS COUNT              -> "select OP BITS COUNT VARIANT"
 *   load PATH                         -> "load ok STATUS" or "load refused MESSAGE"
 *   host OP BITS COUNT MEM REPS       -> "host OP BITS COUNT MEM ok|error MEDIAN_MS pass|FAIL VARIANT" (a host call
 *                                        from MEM = pageable|pinned memory, wall clock; measure_host.c)
 *   hostcopy BYTES REPS               -> "hostcopy BYTES H2D D2H H2D_BOTH D2H_BOTH" (GB/s, page-locked memory,
 *                                        each direction alone, then both at once)
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
#include "midint.h"

typedef struct batch {
    unsigned bits;
    size_t count;
    uint32_t *ha, *hb;       /* host operands */
    void *da, *db, *dr, *dc; /* device operands, result (room for the full product) and carry */
} batch;

typedef struct launch_arg {
    midint_context *ctx;
    midint_op op;
    batch *b;
} launch_arg;

static void drop_batch(midint_context *ctx, batch *b)
{
    free(b->ha);
    free(b->hb);
    midint_buffer_free(ctx, b->da);
    midint_buffer_free(ctx, b->db);
    midint_buffer_free(ctx, b->dr);
    midint_buffer_free(ctx, b->dc);
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
    return device_call(l->op, l->ctx, b->count, b->bits, b->dr, b->da, b->db, b->dc);
}

/* Compare 257 instances spread over the batch (or all) with GMP; of large instances fewer, up to 2^23 words of
 * operands (one product of 2^27 bits takes GMP a second), but at least one, the last. */
static int check(midint_context *ctx, midint_op op, const batch *b)
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
        reference(op, n, b->ha + i * n, b->hb + i * n, want, &wc);
        ok = memcmp(r + i * rn, want, rn * 4) == 0 && (!op_has_carry(op) || carry[i] == wc);
    }
    free(r);
    free(carry);
    free(want);
    return ok;
}

static void cmd_time(midint_context *ctx, batch *b, const char *op_s, unsigned bits, size_t count, const char *name,
                     int reps)
{
    int op = parse_op(op_s);
    midint_status st = op < 0 ? MIDINT_ERR_INVALID_ARGUMENT : prepare(ctx, b, bits, count);
    const char *chosen = name;
    midint_force_variant(ctx, NULL);
    if (st == MIDINT_OK && strcmp(name, "default") != 0)
        st = midint_force_variant(ctx, name);
    if (st == MIDINT_OK && !(chosen = midint_selected_variant(ctx, (midint_op)op, bits, count)))
        st = MIDINT_ERR_UNKNOWN_VARIANT;
    double ms = 0;
    launch_arg l = {ctx, (midint_op)op, b};
    if (st == MIDINT_OK)
        st = midint_time(ctx, NULL, reps, enqueue_op, &l, &ms);
    if (st == MIDINT_OK)
        printf("time %s %u %zu %s ok %.6f %s\n", op_s, bits, count, chosen, ms,
               check(ctx, (midint_op)op, b) ? "pass" : "FAIL");
    else
        printf("time %s %u %zu %s error 0 FAIL %s: %s\n", op_s, bits, count, chosen ? chosen : name,
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

/* ---- GMP on host threads: the CPU reference throughput for `make bench` ---- */
typedef struct gmp_job {
    midint_op op;
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
        switch (j->op) {
        case MIDINT_OP_ADD: mpn_add_n(z, x, y, (mp_size_t)ln); break;
        case MIDINT_OP_SUB: mpn_sub_n(z, x, y, (mp_size_t)ln); break;
        case MIDINT_OP_MUL: mpn_mul_n(scratch, x, y, (mp_size_t)ln); break;
        default: mpn_mul_n(scratch, x, y, (mp_size_t)ln); break; /* GMP has no low-half product in its API */
        }
    }
    free(x);
    free(y);
    free(scratch);
    return NULL;
}

static void cmd_gmp(const char *op_s, unsigned bits, size_t count, int threads, batch *host)
{
    int op = parse_op(op_s);
    unsigned n = bits / 32;
    if (op < 0 || threads < 1 || threads > 1024 || !n) {
        printf("gmp %s %u %zu %d error\n", op_s, bits, count, threads);
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
        jobs[k] = (gmp_job){(midint_op)op, n, count * k / threads, count * (k + 1) / threads, a, b,
                            out + (size_t)k * (n + 2)};
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
    char line[1024], cmd[16], op_s[16], name[512];
    unsigned bits;
    size_t count;
    int reps;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "%15s", cmd) != 1 || cmd[0] == '#')
            continue;
        if (!strcmp(cmd, "time") && sscanf(line, "time %15s %u %zu %511s %d", op_s, &bits, &count, name, &reps) == 5)
            cmd_time(ctx, &b, op_s, bits, count, name, reps < 1 ? 1 : reps);
        else if (!strcmp(cmd, "copy") && sscanf(line, "copy %zu %d", &count, &reps) == 2)
            cmd_copy(ctx, count, reps < 1 ? 1 : reps);
        else if (!strcmp(cmd, "host") && sscanf(line, "host %15s %u %zu %15s %d", op_s, &bits, &count, name, &reps) == 5)
            cmd_host(ctx, op_s, bits, count, name, reps < 1 ? 1 : reps);
        else if (!strcmp(cmd, "hostcopy") && sscanf(line, "hostcopy %zu %d", &count, &reps) == 2)
            cmd_hostcopy(ctx, device, count, reps < 1 ? 1 : reps);
        else if (!strcmp(cmd, "gmp") && sscanf(line, "gmp %15s %u %zu %d", op_s, &bits, &count, &reps) == 4)
            cmd_gmp(op_s, bits, count, reps, &b);
        else if (!strcmp(cmd, "select") && sscanf(line, "select %15s %u %zu", op_s, &bits, &count) == 3) {
            int op = parse_op(op_s);
            const char *v = op < 0 ? NULL : midint_selected_variant(ctx, (midint_op)op, bits, count);
            printf("select %s %u %zu %s\n", op_s, bits, count, v ? v : "none");
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
