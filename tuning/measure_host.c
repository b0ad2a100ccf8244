/* measure_host.c — the measuring tool's host-path commands: host calls from pageable or page-locked memory on the
 * wall clock, and the page-locked copy ceilings they are compared with (tuning/bench_host.py). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cases.h"
#include "measure_host.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Host memory of either kind; pageable memory is written once so that its pages exist before timing. */
static void *host_mem(midint_context *ctx, int pinned, size_t bytes)
{
    void *p = NULL;
    if (pinned)
        return midint_host_alloc(ctx, bytes, &p) == MIDINT_OK ? p : NULL;
    p = malloc(bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

static void host_mem_free(midint_context *ctx, int pinned, void *p)
{
    if (pinned)
        midint_host_free(ctx, p);
    else
        free(p);
}

/* Sampled instances against GMP: 65 spread over the batch (fewer for large instances). */
static int host_check(midint_op op, unsigned n, size_t count, const uint32_t *a, const uint32_t *b,
                      const uint32_t *r, const uint32_t *carry)
{
    unsigned rn = result_words(op, n);
    size_t samples = count < 65 ? count : 65, budget = ((size_t)1 << 22) / n;
    samples = samples > budget ? (budget ? budget : 1) : samples;
    uint32_t *want = malloc((size_t)rn * 4), wc = 0;
    int ok = want != NULL;
    for (size_t k = 0; ok && k < samples; k++) {
        size_t i = samples == count ? k : k == samples - 1 ? count - 1 : (k * 2654435761u) % count;
        reference(op, n, a + i * n, b + i * n, want, &wc);
        ok = memcmp(r + i * rn, want, (size_t)rn * 4) == 0 && (!op_has_carry(op) || carry[i] == wc);
    }
    free(want);
    return ok;
}

void cmd_host(midint_context *ctx, const char *op_s, unsigned bits, size_t count, const char *mem, int reps)
{
    int op = parse_op(op_s), pinned = strcmp(mem, "pinned") == 0;
    unsigned n = bits / 32;
    if (op < 0 || !n || bits % 32 || (!pinned && strcmp(mem, "pageable"))) {
        printf("host %s %u %zu %s error 0 FAIL bad command\n", op_s, bits, count, mem);
        return;
    }
    size_t words = count * n, r_words = count * result_words((midint_op)op, n);
    uint32_t *a = host_mem(ctx, pinned, words * 4), *b = host_mem(ctx, pinned, words * 4);
    uint32_t *r = host_mem(ctx, pinned, r_words * 4), *carry = host_mem(ctx, pinned, count * 4);
    double *t = malloc(sizeof(double) * (size_t)reps);
    midint_status st = a && b && r && carry && t ? MIDINT_OK : MIDINT_ERR_OUT_OF_MEMORY;
    if (st == MIDINT_OK) {
        fill_operands("random", 0x5EED ^ bits ^ count, count, n, a, b);
        st = host_call((midint_op)op, ctx, count, bits, r, a, b, op_has_carry((midint_op)op) ? carry : NULL);
    }
    for (int i = 0; i < reps && st == MIDINT_OK; i++) {
        double t0 = now_ms();
        st = host_call((midint_op)op, ctx, count, bits, r, a, b, op_has_carry((midint_op)op) ? carry : NULL);
        t[i] = now_ms() - t0;
    }
    const char *v = midint_selected_variant(ctx, (midint_op)op, bits, count);
    if (st == MIDINT_OK) {
        qsort(t, (size_t)reps, sizeof(double), cmp_double);
        printf("host %s %u %zu %s ok %.6f %s %s\n", op_s, bits, count, mem, t[reps / 2],
               host_check((midint_op)op, n, count, a, b, r, carry) ? "pass" : "FAIL", v ? v : "none");
    } else {
        printf("host %s %u %zu %s error 0 FAIL %s: %s\n", op_s, bits, count, mem, midint_status_name(st),
               midint_last_error(ctx));
    }
    free(t);
    host_mem_free(ctx, pinned, a);
    host_mem_free(ctx, pinned, b);
    host_mem_free(ctx, pinned, r);
    host_mem_free(ctx, pinned, carry);
}

/* One direction of copies between page-locked memory and a device buffer, on its own context (its own stream),
 * so that two of them run at once. */
typedef struct copy_run {
    midint_context *ctx;
    int upload, reps;
    size_t bytes;
    double ms;
    midint_status st;
    pthread_barrier_t *start; /* both directions start timing together (NULL: alone) */
} copy_run;

static void *copy_loop(void *p)
{
    copy_run *c = p;
    void *host = NULL, *dev = NULL;
    c->st = midint_host_alloc(c->ctx, c->bytes, &host);
    if (c->st == MIDINT_OK)
        c->st = midint_buffer_alloc(c->ctx, c->bytes, &dev);
    if (c->st == MIDINT_OK) {
        memset(host, 1, c->bytes);
        c->st = c->upload ? midint_buffer_write(c->ctx, dev, host, c->bytes) : midint_buffer_read(c->ctx, host, dev, c->bytes);
    }
    if (c->start) /* reached even after a failure: the other direction waits here too */
        pthread_barrier_wait(c->start);
    double t0 = now_ms();
    for (int i = 0; i < c->reps && c->st == MIDINT_OK; i++)
        c->st = c->upload ? midint_buffer_write(c->ctx, dev, host, c->bytes) : midint_buffer_read(c->ctx, host, dev, c->bytes);
    c->ms = (now_ms() - t0) / c->reps;
    midint_buffer_free(c->ctx, dev);
    midint_host_free(c->ctx, host);
    return NULL;
}

void cmd_hostcopy(midint_context *ctx, int device, size_t bytes, int reps)
{
    midint_context *other = NULL;
    midint_status st = midint_open(&other, midint_context_backend(ctx), device);
    pthread_barrier_t start;
    copy_run up = {ctx, 1, reps, bytes, 0, st, NULL}, down = {other, 0, reps, bytes, 0, st, NULL};
    copy_run up2 = up, down2 = down;
    up2.start = down2.start = &start;
    if (st == MIDINT_OK) {
        copy_loop(&up);
        copy_loop(&down);
        pthread_t tid;
        pthread_barrier_init(&start, NULL, 2);
        if (pthread_create(&tid, NULL, copy_loop, &down2) == 0) {
            copy_loop(&up2);
            pthread_join(tid, NULL);
        } else {
            up2.st = MIDINT_ERR_OUT_OF_MEMORY;
        }
        pthread_barrier_destroy(&start);
    }
    midint_status bad = up.st != MIDINT_OK ? up.st : down.st != MIDINT_OK ? down.st : up2.st != MIDINT_OK ? up2.st
                                                                                                        : down2.st;
    /* both at once: each direction's rate over its own time (they start together), and both directions' bytes
     * over the time until the later one is done */
    double both_ms = up2.ms > down2.ms ? up2.ms : down2.ms;
    if (bad == MIDINT_OK)
        printf("hostcopy %zu %.2f %.2f %.2f %.2f %.2f\n", bytes, bytes / up.ms / 1e6, bytes / down.ms / 1e6,
               bytes / up2.ms / 1e6, bytes / down2.ms / 1e6, 2.0 * bytes / both_ms / 1e6);
    else
        printf("hostcopy %zu error %s\n", bytes, midint_status_name(bad));
    midint_close(other);
}
