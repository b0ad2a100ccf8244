/* api_errors.c — feeds bad input to every midint C API entry point and checks status, message and untouched outputs. */
/*
 * Usage: api_errors [--backend cuda|opencl] [--list]
 * Runs a list of named checks against one context (default backend: opencl) and prints one line per check:
 * "ok <name>" or "FAIL <name>: <what was wrong>".  --list prints the names only (without opening anything).
 * Exit status: 0 all checks passed, 1 some failed, 2 usage error or the context could not be opened.
 *
 * A failing call must return the documented midint_status, leave a non-empty message that names the offending
 * argument, and write nothing: host buffers live in one arena (r and carry pre-filled with a canary) that is
 * compared word by word after the call; device buffers are read back and compared.  Before each call under test
 * a deliberate failure (forcing an unknown variant) puts a sentinel into the messages, so a call that fails
 * without setting its own message is caught instead of passing on a stale one.
 *
 * Most checks are per operation (add, sub, mul, mullo) and named "<op>_<check>"; build_list() makes them from
 * tables whose rows name the operations they apply to (mul, whose r is twice as long, may not work in place).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "midint.h"

#define CANARY 0xA5A5A5A5u
#define GUARD 8 /* canary words before and after the arena's regions */
#define SENTINEL "zz_stale_message_sentinel"
#define DEFAULT_STAGING ((size_t)1 << 30)

typedef struct env {
    midint_context *ctx;
    midint_backend backend;
    const char *bname, *other; /* this backend's and the other backend's variant-name suffix */
    char open_msg[600];        /* midint_last_error(ctx) right after midint_open */
    void *dbuf[4];             /* device buffers: r, a, b, carry (dwords words each) */
    size_t dwords;
    size_t span;               /* words of each that device_reset writes and device_unchanged compares */
    uint32_t *dhost[4];        /* what each device buffer should hold */
} env;

enum { DR, DA, DB, DC };

#define NELEM(x) (sizeof(x) / sizeof((x)[0]))

/* Sets of operations, for the rows of the check tables. */
#define OP_BIT(op) (1u << (op))
#define OPS_ADDSUB (OP_BIT(MIDINT_OP_ADD) | OP_BIT(MIDINT_OP_SUB))         /* with a carry / borrow output */
#define OPS_MULS (OP_BIT(MIDINT_OP_MUL) | OP_BIT(MIDINT_OP_MULLO))
#define OPS_IN_PLACE (OPS_ADDSUB | OP_BIT(MIDINT_OP_MULLO))                 /* r may be exactly a and/or b */
#define OPS_ALL (OPS_ADDSUB | OPS_MULS)

static const char *op_name(midint_op op)
{
    static const char *const names[MIDINT_OP_COUNT_] = {
        [MIDINT_OP_ADD] = "add", [MIDINT_OP_SUB] = "sub", [MIDINT_OP_MUL] = "mul", [MIDINT_OP_MULLO] = "mullo"};
    return (unsigned)op < MIDINT_OP_COUNT_ ? names[op] : "?";
}
static const char *aux_name(midint_op op) { return op == MIDINT_OP_SUB ? "borrow" : "carry"; }
static int in_place_ok(midint_op op) { return (OP_BIT(op) & OPS_IN_PLACE) != 0; }

/* A check's result: 1 passed, 0 failed (why says what), SKIPPED: the build cannot pose the question (why says why;
 * tests/test_api_errors.py accepts only the reasons it can confirm from generated/variants.txt). */
#define SKIPPED 2
/* Only one size of `op` is generated (make gen SIZES=...): there is no larger size to refuse with the smallest
 * variant forced. */
static int skip_single_size(char *why, size_t len, midint_op op, unsigned bits)
{
    snprintf(why, len, "only one %s size is generated (%u bits): no larger size to try", op_name(op), bits);
    return SKIPPED;
}

static int failf(char *why, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int failf(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return 0;
}

/* Put the sentinel into both messages (the context's and the thread's) right before a call under test. */
static void arm(env *e)
{
    midint_force_variant(e->ctx, SENTINEL);
}

/* The status is `want`; the message is non-empty, fresh, and contains every keyword (NULL-terminated). */
static int expect(char *why, size_t len, const char *what, midint_status got, midint_status want, const char *msg,
                  const char *const *kw)
{
    if (got != want)
        return failf(why, len, "%s returned %s, want %s (message: \"%s\")", what, midint_status_name(got),
                     midint_status_name(want), msg ? msg : "(null)");
    if (!msg)
        return failf(why, len, "%s: midint_last_error returned NULL", what);
    if (!msg[0])
        return failf(why, len, "%s: midint_last_error is empty", what);
    if (strstr(msg, SENTINEL))
        return failf(why, len, "%s set no message of its own (still the previous one: \"%s\")", what, msg);
    for (; kw && *kw; kw++)
        if (!strstr(msg, *kw))
            return failf(why, len, "%s: message \"%s\" does not mention \"%s\"", what, msg, *kw);
    return 1;
}
#define KW(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- host buffers: one arena [guard][a][gap][b][gap][r][gap][carry][guard] so that any stray write shows;
 * r holds rw = count * result_words(op, n) words (twice the operands' for mul); each gap (rw + GUARD canary
 * words) keeps a shifted buffer (r = a + 1 word...) from reaching the next region, so that each overlap check
 * tests exactly one pair ---- */

typedef struct arena {
    uint32_t *mem, *snap;
    size_t words, w, rw, gap, count; /* w = count*n words per operand, rw = count*result_words(op, n) for r */
    uint32_t *a, *b, *r, *carry;
} arena;

static int arena_init(arena *A, midint_op op, size_t count, size_t n, uint64_t seed)
{
    A->count = count;
    A->w = count * n;
    A->rw = count * result_words(op, (unsigned)n);
    A->gap = A->rw + GUARD;
    A->words = GUARD + 2 * (A->w + A->gap) + A->rw + A->gap + count + GUARD;
    A->mem = malloc(A->words * 4);
    A->snap = malloc(A->words * 4);
    if (!A->mem || !A->snap) {
        free(A->mem);
        free(A->snap);
        A->mem = A->snap = NULL;
        return 0;
    }
    A->a = A->mem + GUARD;
    A->b = A->a + A->w + A->gap;
    A->r = A->b + A->w + A->gap;
    A->carry = A->r + A->rw + A->gap;
    rng g = {seed};
    for (size_t i = 0; i < A->words; i++)
        A->mem[i] = CANARY;
    for (size_t i = 0; i < A->w; i++) {
        A->a[i] = (uint32_t)rng_next(&g);
        A->b[i] = (uint32_t)rng_next(&g);
    }
    memcpy(A->snap, A->mem, A->words * 4);
    return 1;
}

static void arena_free(arena *A)
{
    free(A->mem);
    free(A->snap);
}

static const char *arena_region(const arena *A, size_t i)
{
    const uint32_t *p = A->mem + i;
    return p < A->a ? "guard before a" : p < A->a + A->w ? "a" : p < A->b ? "gap after a" : p < A->b + A->w ? "b"
           : p < A->r ? "gap after b" : p < A->r + A->rw ? "r" : p < A->carry ? "gap after r"
           : p < A->carry + A->count ? "carry" : "guard after carry";
}

/* Nothing in the arena changed, except within [skip0, skip0+n0) and [skip1, skip1+n1) (NULL: none). */
static int arena_unchanged_except(const arena *A, const uint32_t *skip0, size_t n0, const uint32_t *skip1, size_t n1,
                                  const char *what, char *why, size_t len)
{
    for (size_t i = 0; i < A->words; i++) {
        const uint32_t *p = A->mem + i;
        if ((skip0 && p >= skip0 && p < skip0 + n0) || (skip1 && p >= skip1 && p < skip1 + n1))
            continue;
        if (A->mem[i] != A->snap[i])
            return failf(why, len, "%s: word %zu of the host buffers (%s) changed from %08" PRIx32 " to %08" PRIx32,
                         what, i, arena_region(A, i), A->snap[i], A->mem[i]);
    }
    return 1;
}

/* ---- host-path error checks (midint_add / sub / mul / mullo) ---- */

enum layout {
    L_NORMAL,
    L_NULL_CTX,
    L_NULL_R,
    L_NULL_A,
    L_NULL_B,
    L_R_OVER_A,      /* r = a + 1 word */
    L_R_OVER_A_TAIL, /* r starts at a's last word */
    L_R_OVER_B,      /* r = b + 1 word */
    L_R_END_OVER_B,  /* r's last word (of its rw words) is b's first word */
    L_R_IS_A,        /* r = a exactly (in place) */
    L_R_IS_B,        /* r = b exactly */
    L_R_IS_A_IS_B,   /* r = a = b */
    L_AUX_OVER_R,    /* carry starts at r's last word */
    L_AUX_OVER_A,    /* carry = a + 1 word */
    L_AUX_OVER_B,    /* carry starts at b's last word */
    L_AUX_IS_R,      /* carry = r exactly */
    L_AUX_IS_A,      /* carry = a exactly (device path) */
};

#define BITS_OVER_MAX 0xFFFFFFFFu /* stands for midint_max_bits(ctx, op) + 32 */
#define KW_BITS "$bits"           /* stands for "bits is <bits>" */
#define KW_AUX "$aux"             /* stands for "carry overlaps" / "borrow overlaps" */
#define KW_AUXNAME "$auxname"     /* stands for "carry" / "borrow" alone (device messages differ by backend) */

typedef struct err_case {
    const char *name; /* after "<op>_" (host) or "<op>_device_" (device); "carry" becomes "borrow" for sub */
    unsigned ops;     /* the operations it applies to (OPS_...) */
    int layout;
    size_t count;
    unsigned bits;
    midint_status want;
    const char *kw[3];
} err_case;

static const err_case host_cases[] = {
    {"null_ctx", OPS_ALL, L_NULL_CTX, 4, 64, MIDINT_ERR_NULL_POINTER, {"ctx is NULL"}},
    {"null_r", OPS_ALL, L_NULL_R, 4, 64, MIDINT_ERR_NULL_POINTER, {"r is NULL"}},
    {"null_a", OPS_ALL, L_NULL_A, 4, 64, MIDINT_ERR_NULL_POINTER, {"a is NULL"}},
    {"null_b", OPS_ALL, L_NULL_B, 4, 64, MIDINT_ERR_NULL_POINTER, {"b is NULL"}},
    {"count_0", OPS_ALL, L_NORMAL, 0, 64, MIDINT_ERR_INVALID_COUNT, {"count"}},
    {"count_too_large", OPS_ALL, L_NORMAL, SIZE_MAX, 64, MIDINT_ERR_INVALID_COUNT, {"count", "too large"}},
    {"bits_0", OPS_ALL, L_NORMAL, 4, 0, MIDINT_ERR_INVALID_BITS, {KW_BITS}},
    {"bits_31", OPS_ALL, L_NORMAL, 4, 31, MIDINT_ERR_INVALID_BITS, {KW_BITS}},
    {"bits_33", OPS_ALL, L_NORMAL, 4, 33, MIDINT_ERR_INVALID_BITS, {KW_BITS}},
    {"bits_above_max", OPS_ALL, L_NORMAL, 2, BITS_OVER_MAX, MIDINT_ERR_BITS_TOO_LARGE, {KW_BITS}},
    {"bits_huge", OPS_ALL, L_NORMAL, 1, 0xFFFFFFE0u, MIDINT_ERR_BITS_TOO_LARGE, {KW_BITS}},
    {"overlap_r_a_plus_1", OPS_ALL, L_R_OVER_A, 4, 64, MIDINT_ERR_OVERLAP, {"r overlaps a"}},
    {"overlap_r_a_last_word", OPS_ALL, L_R_OVER_A_TAIL, 4, 64, MIDINT_ERR_OVERLAP, {"r overlaps a"}},
    {"overlap_r_b_plus_1", OPS_ALL, L_R_OVER_B, 4, 64, MIDINT_ERR_OVERLAP, {"r overlaps b"}},
    {"overlap_r_end_b_first_word", OPS_ALL, L_R_END_OVER_B, 4, 64, MIDINT_ERR_OVERLAP, {"r overlaps b"}},
    {"in_place_r_is_a_refused", OP_BIT(MIDINT_OP_MUL), L_R_IS_A, 4, 64, MIDINT_ERR_OVERLAP,
     {"r overlaps a", "in place"}},
    {"in_place_r_is_b_refused", OP_BIT(MIDINT_OP_MUL), L_R_IS_B, 4, 64, MIDINT_ERR_OVERLAP,
     {"r overlaps b", "in place"}},
    {"in_place_r_is_a_is_b_refused", OP_BIT(MIDINT_OP_MUL), L_R_IS_A_IS_B, 4, 128, MIDINT_ERR_OVERLAP,
     {"r overlaps", "in place"}},
    {"overlap_carry_r", OPS_ADDSUB, L_AUX_OVER_R, 4, 64, MIDINT_ERR_OVERLAP, {KW_AUX}},
    {"overlap_carry_is_r", OPS_ADDSUB, L_AUX_IS_R, 4, 64, MIDINT_ERR_OVERLAP, {KW_AUX}},
    {"overlap_carry_a", OPS_ADDSUB, L_AUX_OVER_A, 4, 64, MIDINT_ERR_OVERLAP, {KW_AUX}},
    {"overlap_carry_b", OPS_ADDSUB, L_AUX_OVER_B, 4, 64, MIDINT_ERR_OVERLAP, {KW_AUX}},
};

static unsigned case_bits(const env *e, midint_op op, const err_case *c)
{
    return c->bits == BITS_OVER_MAX ? midint_max_bits(e->ctx, op) + 32 : c->bits;
}

/* Expand the placeholder keywords of c into out (NULL-terminated); fn is the API function's name. */
static void case_keywords(const err_case *c, midint_op op, unsigned bits, const char *fn, char store[4][64],
                          const char *out[5])
{
    size_t k = 0;
    snprintf(store[0], sizeof store[0], "%s:", fn);
    out[k++] = store[0];
    for (size_t i = 0; i < 3 && c->kw[i]; i++) {
        if (strcmp(c->kw[i], KW_BITS) == 0) {
            snprintf(store[1 + i], sizeof store[1 + i], "bits is %u", bits);
            out[k++] = store[1 + i];
        } else if (strcmp(c->kw[i], KW_AUX) == 0) {
            snprintf(store[1 + i], sizeof store[1 + i], "%s overlaps", aux_name(op));
            out[k++] = store[1 + i];
        } else if (strcmp(c->kw[i], KW_AUXNAME) == 0) {
            out[k++] = aux_name(op);
        } else {
            out[k++] = c->kw[i];
        }
    }
    out[k] = NULL;
}

/* How a case's call is named in failure reports, and the keywords its message must hold. */
typedef struct call_text {
    char fn[40], what[96], store[4][64];
    const char *kw[5];
} call_text;

/* For the API function midint_<op><suffix> called with c's count at `bits`. */
static void call_text_init(call_text *t, const err_case *c, midint_op op, unsigned bits, const char *suffix)
{
    snprintf(t->fn, sizeof t->fn, "midint_%s%s", op_name(op), suffix);
    snprintf(t->what, sizeof t->what, "%s(count=%zu, bits=%u)", t->fn, c->count, bits);
    case_keywords(c, op, bits, t->fn, t->store, t->kw);
}

static int check_host_error(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    const err_case *c = arg;
    unsigned bits = case_bits(e, op, c);
    if (c->bits == BITS_OVER_MAX && bits == 32)
        return failf(why, len, "setup: midint_max_bits is 0 for %s", op_name(op));
    /* buffers as large as the call claims where that is reasonable, so that a call wrongly let through does
     * not crash but shows up as written outputs; count_too_large and bits_huge cannot be backed */
    size_t n = bits == 0 ? 1 : (bits + 31) / 32;
    if (n > 16384)
        n = 16;
    size_t count = c->count == 0 ? 1 : c->count > 64 ? 4 : c->count;
    arena A;
    if (!arena_init(&A, op, count, n, 1000 + (uint64_t)c->layout))
        return failf(why, len, "setup: out of host memory");
    midint_context *ctx = e->ctx;
    uint32_t *r = A.r, *a = A.a, *b = A.b, *aux = op_has_carry(op) ? A.carry : NULL;
    switch (c->layout) {
    case L_NULL_CTX: ctx = NULL; break;
    case L_NULL_R: r = NULL; break;
    case L_NULL_A: a = NULL; break;
    case L_NULL_B: b = NULL; break;
    case L_R_OVER_A: r = A.a + 1; break;
    case L_R_OVER_A_TAIL: r = A.a + A.w - 1; break;
    case L_R_OVER_B: r = A.b + 1; break;
    case L_R_END_OVER_B: r = A.b - A.rw + 1; break;
    case L_R_IS_A: r = A.a; break;
    case L_R_IS_B: r = A.b; break;
    case L_R_IS_A_IS_B: r = A.a; b = A.a; break;
    case L_AUX_OVER_R: aux = A.r + A.rw - 1; break;
    case L_AUX_OVER_A: aux = A.a + 1; break;
    case L_AUX_OVER_B: aux = A.b + A.w - 1; break;
    case L_AUX_IS_R: aux = A.r; break;
    default: break;
    }
    call_text t;
    call_text_init(&t, c, op, bits, "");
    arm(e);
    midint_status st = host_call(op, ctx, c->count, bits, r, a, b, aux);
    int ok = expect(why, len, t.what, st, c->want, midint_last_error(ctx), t.kw) &&
             arena_unchanged_except(&A, NULL, 0, NULL, 0, t.what, why, len);
    arena_free(&A);
    return ok;
}

/* ---- device-path error checks (midint_add_device / sub / mul / mullo) ---- */

static const err_case device_cases[] = {
    {"null_ctx", OPS_ALL, L_NULL_CTX, 4, 64, MIDINT_ERR_NULL_POINTER, {"ctx is NULL"}},
    {"null_r", OPS_ALL, L_NULL_R, 4, 64, MIDINT_ERR_NULL_POINTER, {"r is NULL"}},
    {"null_a", OPS_ALL, L_NULL_A, 4, 64, MIDINT_ERR_NULL_POINTER, {"a is NULL"}},
    {"null_b", OPS_ALL, L_NULL_B, 4, 64, MIDINT_ERR_NULL_POINTER, {"b is NULL"}},
    {"count_0", OPS_ALL, L_NORMAL, 0, 64, MIDINT_ERR_INVALID_COUNT, {"count"}},
    {"bits_0", OPS_ALL, L_NORMAL, 4, 0, MIDINT_ERR_INVALID_BITS, {KW_BITS}},
    {"bits_33", OPS_ALL, L_NORMAL, 4, 33, MIDINT_ERR_INVALID_BITS, {KW_BITS}},
    {"bits_above_max", OPS_ALL, L_NORMAL, 1, BITS_OVER_MAX, MIDINT_ERR_BITS_TOO_LARGE, {KW_BITS}},
    /* the wording differs between backends (cl_mem identity vs. pointer ranges); both say "in place" */
    {"r_is_a_refused", OP_BIT(MIDINT_OP_MUL), L_R_IS_A, 4, 64, MIDINT_ERR_OVERLAP, {"in place"}},
    {"r_is_b_refused", OP_BIT(MIDINT_OP_MUL), L_R_IS_B, 4, 64, MIDINT_ERR_OVERLAP, {"in place"}},
    {"carry_is_r", OPS_ADDSUB, L_AUX_IS_R, 4, 64, MIDINT_ERR_OVERLAP, {KW_AUXNAME}},
    {"carry_is_a", OPS_ADDSUB, L_AUX_IS_A, 4, 64, MIDINT_ERR_OVERLAP, {KW_AUXNAME}},
};

/* Words a check watches in each device buffer: the batch's result words (count instances of rn) and a guard, at most
 * SPAN_MAX. A call that must write nothing would write instance 0's words first, and the buffers are sized for the
 * largest operation (a 2^30-bit product: 256 MiB each), so writing and reading all of them took about a second a
 * check on the CPU. */
#define SPAN_MAX ((size_t)1 << 16)
static void watch(env *e, size_t count, size_t rn)
{
    size_t words = count * rn + 64;
    words = words < SPAN_MAX ? words : SPAN_MAX;
    e->span = words < e->dwords ? words : e->dwords;
}

/* Write the expected contents (canary for r and carry, random for a and b) into the watched words of the device
 * buffers. */
static int device_reset(env *e, char *why, size_t len)
{
    rng g = {77};
    for (size_t i = 0; i < e->span; i++) {
        e->dhost[DR][i] = CANARY;
        e->dhost[DC][i] = CANARY;
        e->dhost[DA][i] = (uint32_t)rng_next(&g);
        e->dhost[DB][i] = (uint32_t)rng_next(&g);
    }
    for (int k = 0; k < 4; k++) {
        midint_status st = midint_buffer_write(e->ctx, e->dbuf[k], e->dhost[k], e->span * 4);
        if (st != MIDINT_OK)
            return failf(why, len, "setup: midint_buffer_write: %s: %s", midint_status_name(st),
                         midint_last_error(e->ctx));
    }
    return 1;
}

/* Every device buffer's watched words hold what e->dhost says (after the work enqueued so far has finished). */
static int device_unchanged(env *e, const char *what, char *why, size_t len)
{
    static const char *const names[4] = {"r", "a", "b", "carry"};
    uint32_t *got = malloc(e->span * 4);
    if (!got)
        return failf(why, len, "out of host memory");
    int ok = 1;
    midint_status st = midint_synchronize(e->ctx, NULL);
    if (st != MIDINT_OK)
        ok = failf(why, len, "%s: midint_synchronize afterwards: %s: %s", what, midint_status_name(st),
                   midint_last_error(e->ctx));
    for (int k = 0; ok && k < 4; k++) {
        if ((st = midint_buffer_read(e->ctx, got, e->dbuf[k], e->span * 4)) != MIDINT_OK) {
            ok = failf(why, len, "%s: midint_buffer_read: %s: %s", what, midint_status_name(st),
                       midint_last_error(e->ctx));
            break;
        }
        for (size_t i = 0; i < e->span; i++)
            if (got[i] != e->dhost[k][i]) {
                ok = failf(why, len, "%s: device buffer %s word %zu changed from %08" PRIx32 " to %08" PRIx32, what,
                           names[k], i, e->dhost[k][i], got[i]);
                break;
            }
    }
    free(got);
    return ok;
}

static int check_device_error(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    const err_case *c = arg;
    if (!e->dbuf[DR])
        return failf(why, len, "setup: device buffers could not be allocated");
    unsigned bits = case_bits(e, op, c);
    if ((size_t)c->count * result_words(op, (bits + 31) / 32 + 1) > e->dwords)
        return failf(why, len, "setup: device buffers too small for count %zu bits %u", c->count, bits);
    watch(e, c->count, result_words(op, (bits + 31) / 32 + 1));
    if (!device_reset(e, why, len))
        return 0;
    midint_context *ctx = e->ctx;
    void *r = e->dbuf[DR], *a = e->dbuf[DA], *b = e->dbuf[DB], *aux = op_has_carry(op) ? e->dbuf[DC] : NULL;
    switch (c->layout) {
    case L_NULL_CTX: ctx = NULL; break;
    case L_NULL_R: r = NULL; break;
    case L_NULL_A: a = NULL; break;
    case L_NULL_B: b = NULL; break;
    case L_R_IS_A: r = a; break;
    case L_R_IS_B: r = b; break;
    case L_AUX_IS_R: aux = r; break;
    case L_AUX_IS_A: aux = a; break;
    default: break;
    }
    call_text t;
    call_text_init(&t, c, op, bits, "_device");
    arm(e);
    midint_status st = device_call(op, ctx, c->count, bits, r, a, b, aux);
    return expect(why, len, t.what, st, c->want, midint_last_error(ctx), t.kw) && device_unchanged(e, t.what, why, len);
}

/* OpenCL buffers know their size: a result buffer too small for the batch is refused, not overrun. (CUDA
 * pointers carry no size, so this check exists only for OpenCL.) */
static int check_device_r_too_small(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    const unsigned bits = 128;
    const size_t count = 3, in_bytes = count * (bits / 32) * 4, r_bytes = in_bytes * result_words(op, 1);
    void *a = NULL, *b = NULL, *r = NULL, *aux = NULL;
    midint_context *ctx = e->ctx;
    int ok = 1;
    if (midint_buffer_alloc(ctx, in_bytes, &a) != MIDINT_OK || midint_buffer_alloc(ctx, in_bytes, &b) != MIDINT_OK ||
        midint_buffer_alloc(ctx, r_bytes - 4, &r) != MIDINT_OK || midint_buffer_alloc(ctx, count * 4, &aux) != MIDINT_OK)
        ok = failf(why, len, "setup: %s", midint_last_error(ctx));
    if (ok) {
        char fn[40], what[96];
        snprintf(fn, sizeof fn, "midint_%s_device", op_name(op));
        snprintf(what, sizeof what, "%s with r one word short", fn);
        const char *kw[] = {fn, "r holds", "need", NULL};
        arm(e);
        midint_status st = device_call(op, ctx, count, bits, r, a, b, op_has_carry(op) ? aux : NULL);
        ok = expect(why, len, what, st, MIDINT_ERR_INVALID_ARGUMENT, midint_last_error(ctx), kw);
    }
    midint_buffer_free(ctx, a);
    midint_buffer_free(ctx, b);
    midint_buffer_free(ctx, r);
    midint_buffer_free(ctx, aux);
    return ok;
}

/* ---- positive checks: aliasing that the conventions allow, results against plain C ---- */

enum alias { AL_NONE, AL_RA, AL_RB, AL_RAB, AL_AB_OVERLAP, AL_NO_CARRY, AL_AB_SAME };

typedef struct alias_case {
    const char *name;
    unsigned ops;
    unsigned bits;
    int alias;
} alias_case;

static const alias_case alias_cases[] = {
    {"separate_64", OPS_ALL, 64, AL_NONE},
    {"in_place_r_is_a_64", OPS_IN_PLACE, 64, AL_RA},
    {"in_place_r_is_b_64", OPS_IN_PLACE, 64, AL_RB},
    {"in_place_r_is_a_is_b_64", OPS_IN_PLACE, 64, AL_RAB},
    {"separate_128", OPS_ALL, 128, AL_NONE},
    {"in_place_r_is_a_128", OPS_IN_PLACE, 128, AL_RA},
    {"in_place_r_is_b_128", OPS_IN_PLACE, 128, AL_RB},
    {"in_place_r_is_a_is_b_128", OPS_IN_PLACE, 128, AL_RAB},
    {"a_b_overlap_128", OPS_ALL, 128, AL_AB_OVERLAP},
    {"carry_null_128", OPS_ADDSUB, 128, AL_NO_CARRY},
    {"a_is_b_128", OPS_MULS, 128, AL_AB_SAME},
};

/* r = a op b over n words with 64-bit intermediates; returns the carry out / borrow. */
static uint32_t plain_ref(midint_op op, size_t n, const uint32_t *a, const uint32_t *b, uint32_t *r)
{
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (op == MIDINT_OP_ADD) {
            uint64_t s = (uint64_t)a[i] + b[i] + k;
            r[i] = (uint32_t)s;
            k = s >> 32;
        } else {
            uint64_t d = (uint64_t)a[i] - b[i] - k;
            r[i] = (uint32_t)d;
            k = d >> 63;
        }
    }
    return (uint32_t)k;
}

/* The low rn words of a * b (n words each; rn = n for mullo, 2n for mul): schoolbook with 64-bit
 * intermediates (a[j] * b[i] + r + k <= 2^64 - 1).  r must not overlap a or b. */
static void plain_mul(size_t n, const uint32_t *a, const uint32_t *b, uint32_t *r, size_t rn)
{
    memset(r, 0, rn * 4);
    for (size_t i = 0; i < n && i < rn; i++) {
        uint64_t k = 0;
        for (size_t j = 0; j < n && i + j < rn; j++) {
            uint64_t t = (uint64_t)a[j] * b[i] + r[i + j] + k;
            r[i + j] = (uint32_t)t;
            k = t >> 32;
        }
        if (i + n < rn)
            r[i + n] = (uint32_t)k;
    }
}

/* The expected result of one instance (result_words(op, n) words) and carry, computed in plain C. */
static uint32_t plain_op(midint_op op, size_t n, const uint32_t *a, const uint32_t *b, uint32_t *r)
{
    if (op_has_carry(op))
        return plain_ref(op, n, a, b, r);
    plain_mul(n, a, b, r, result_words(op, (unsigned)n));
    return 0;
}

/* Instances that carry or borrow across words, then random ones (already in the arena). */
static void fill_special(uint32_t *a, uint32_t *b, size_t count, size_t n)
{
    for (size_t i = 0; i < count && i < 4; i++) {
        uint32_t *x = a + i * n, *y = b + i * n;
        memset(x, 0, n * 4);
        memset(y, 0, n * 4);
        switch (i) {
        case 0: memset(x, 0xff, n * 4); y[0] = 1; break;        /* all ones + 1: carry out, r = 0 */
        case 1: y[0] = 1; break;                                /* 0 - 1: borrow out */
        case 2: x[0] = 0xFFFFFFFFu; y[0] = 1; y[n - 1] = 0x80000000u; break; /* carry into word 1 */
        case 3: memset(x, 0xff, n * 4); memset(y, 0xff, n * 4); break;
        }
    }
}

/* One correct call of op at `bits` on `count` instances laid out as `alias`; everything compared. */
static int run_positive(env *e, midint_op op, unsigned bits, int alias, size_t count, char *why, size_t len)
{
    size_t n = bits / 32, rn = result_words(op, (unsigned)n);
    arena A;
    if (!arena_init(&A, op, count, n, 4242 + bits + (uint64_t)alias))
        return failf(why, len, "setup: out of host memory");
    fill_special(A.a, A.b, count, n);
    const uint32_t *a = A.a, *b = A.b;
    uint32_t *r = A.r, *carry = op_has_carry(op) ? A.carry : NULL;
    switch (alias) {
    case AL_RA: r = A.a; break;
    case AL_RB: r = A.b; break;
    case AL_RAB: r = A.a; b = A.a; break;
    case AL_AB_OVERLAP: b = A.a + 1; break;
    case AL_NO_CARRY: carry = NULL; break;
    case AL_AB_SAME: b = A.a; break;
    default: break;
    }
    memcpy(A.snap, A.mem, A.words * 4);
    uint32_t *want = malloc(A.rw * 4), *want_c = malloc(count * 4), *gmp = malloc(rn * 4);
    int ok = 1;
    char what[128];
    snprintf(what, sizeof what, "midint_%s(count=%zu, bits=%u)", op_name(op), count, bits);
    if (!want || !want_c || !gmp) {
        ok = failf(why, len, "setup: out of host memory");
        goto done;
    }
    for (size_t i = 0; i < count && ok; i++) {
        want_c[i] = plain_op(op, n, a + i * n, b + i * n, want + i * rn);
        uint32_t gmp_c = 0;
        reference(op, (unsigned)n, a + i * n, b + i * n, gmp, &gmp_c);
        if (memcmp(gmp, want + i * rn, rn * 4) != 0 || gmp_c != want_c[i])
            ok = failf(why, len, "test bug: plain C and GMP references disagree on instance %zu", i);
    }
    if (!ok)
        goto done;
    midint_status st = host_call(op, e->ctx, count, bits, r, a, b, carry);
    if (st != MIDINT_OK) {
        ok = failf(why, len, "%s returned %s: %s", what, midint_status_name(st), midint_last_error(e->ctx));
        goto done;
    }
    for (size_t i = 0; i < A.rw && ok; i++)
        if (r[i] != want[i])
            ok = failf(why, len, "%s: instance %zu word %zu: got %08" PRIx32 " want %08" PRIx32, what, i / rn, i % rn,
                       r[i], want[i]);
    for (size_t i = 0; carry && i < count && ok; i++)
        if (carry[i] != want_c[i])
            ok = failf(why, len, "%s: instance %zu %s: got %" PRIu32 " want %" PRIu32, what, i, aux_name(op),
                       carry[i], want_c[i]);
    if (ok) /* nothing but r and carry may change: inputs (unless r is one), neighbours and guards stay */
        ok = arena_unchanged_except(&A, r, A.rw, carry, carry ? count : 0, what, why, len);
done:
    free(want);
    free(want_c);
    free(gmp);
    arena_free(&A);
    return ok;
}

static int check_alias(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    const alias_case *c = arg;
    return run_positive(e, op, c->bits, c->alias, 6, why, len);
}

/* The device path computes the right result, separately (arg NULL) or in place (r = a, where allowed);
 * nothing else in the device buffers changes. */
static int check_device_positive(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    int in_place = arg != NULL;
    enum { N = 4 }; /* 128 bits */
    const size_t count = 3, n = N, rn = result_words(op, N);
    if (!e->dbuf[DR])
        return failf(why, len, "setup: device buffers could not be allocated");
    if (count * rn > e->dwords)
        return failf(why, len, "setup: device buffers too small");
    watch(e, count, rn);
    if (!device_reset(e, why, len))
        return 0;
    fill_special(e->dhost[DA], e->dhost[DB], count, n);
    for (int k = DA; k <= DB; k++) {
        midint_status st = midint_buffer_write(e->ctx, e->dbuf[k], e->dhost[k], e->span * 4);
        if (st != MIDINT_OK)
            return failf(why, len, "setup: midint_buffer_write: %s: %s", midint_status_name(st),
                         midint_last_error(e->ctx));
    }
    uint32_t *want = malloc(count * rn * 4), *want_c = malloc(count * 4), gmp[2 * N], gmp_c = 0;
    if (!want || !want_c) {
        free(want);
        free(want_c);
        return failf(why, len, "setup: out of host memory");
    }
    int ok = 1;
    for (size_t i = 0; i < count && ok; i++) {
        want_c[i] = plain_op(op, n, e->dhost[DA] + i * n, e->dhost[DB] + i * n, want + i * rn);
        reference(op, (unsigned)n, e->dhost[DA] + i * n, e->dhost[DB] + i * n, gmp, &gmp_c);
        if (memcmp(gmp, want + i * rn, rn * 4) != 0 || gmp_c != want_c[i])
            ok = failf(why, len, "test bug: plain C and GMP references disagree on instance %zu", i);
    }
    int out = in_place ? DA : DR;
    char what[96];
    snprintf(what, sizeof what, "midint_%s_device(count=%zu, bits=%zu%s)", op_name(op), count, 32 * n,
             in_place ? ", r = a" : "");
    midint_status st = ok ? device_call(op, e->ctx, count, (unsigned)(32 * n), e->dbuf[out], e->dbuf[DA],
                                        e->dbuf[DB], op_has_carry(op) ? e->dbuf[DC] : NULL)
                          : MIDINT_OK;
    if (ok && st != MIDINT_OK) {
        ok = failf(why, len, "%s returned %s: %s", what, midint_status_name(st), midint_last_error(e->ctx));
    } else if (ok) {
        memcpy(e->dhost[out], want, count * rn * 4);
        if (op_has_carry(op))
            memcpy(e->dhost[DC], want_c, count * 4);
        ok = device_unchanged(e, what, why, len);
    }
    free(want);
    free(want_c);
    return ok;
}

/* ---- midint_open, midint_close, messages, status names ---- */

static int check_open_null_ctx_pointer(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    arm(e);
    midint_status st = midint_open(NULL, e->backend, 0);
    return expect(why, len, "midint_open(NULL, ...)", st, MIDINT_ERR_NULL_POINTER, midint_last_error(NULL),
                  KW("midint_open", "ctx"));
}

/* midint_open fails with `want`, sets *ctx to NULL, and explains in midint_last_error(NULL). */
static int open_fails(env *e, midint_backend backend, int device, midint_status want, const char *const *kw,
                      char *why, size_t len)
{
    char what[64];
    snprintf(what, sizeof what, "midint_open(backend=%d, device=%d)", (int)backend, device);
    midint_context *c = (midint_context *)(uintptr_t)0x1; /* must be overwritten with NULL */
    arm(e);
    midint_status st = midint_open(&c, backend, device);
    if (st == MIDINT_OK) {
        midint_close(c);
        return failf(why, len, "%s succeeded, want %s", what, midint_status_name(want));
    }
    if (!expect(why, len, what, st, want, midint_last_error(NULL), kw))
        return 0;
    if (c != NULL)
        return failf(why, len, "%s failed but left *ctx = %p instead of NULL", what, (void *)c);
    return 1;
}

static int check_open_unknown_backend(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    return open_fails(e, (midint_backend)7, 0, MIDINT_ERR_UNKNOWN_BACKEND, KW("backend", "7"), why, len);
}

static int check_open_unknown_backend_negative(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    return open_fails(e, (midint_backend)-1, 0, MIDINT_ERR_UNKNOWN_BACKEND, KW("backend", "-1"), why, len);
}

static int check_open_no_device(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    return open_fails(e, e->backend, 9999, MIDINT_ERR_NO_DEVICE, KW("9999"), why, len);
}

static int check_open_negative_device(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    return open_fails(e, e->backend, -1, MIDINT_ERR_NO_DEVICE, KW("device", "-1"), why, len);
}

static int check_open_auto_negative_device(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    return open_fails(e, MIDINT_BACKEND_AUTO, -1, MIDINT_ERR_NO_DEVICE, KW("device", "-1"), why, len);
}

static int check_last_error_empty_after_open(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    if (e->open_msg[0])
        return failf(why, len, "midint_last_error(ctx) right after midint_open is \"%s\", want \"\"", e->open_msg);
    /* a second context opened after a failure elsewhere starts clean too */
    arm(e);
    midint_context *c2 = NULL;
    midint_status st = midint_open(&c2, e->backend, 0);
    if (st != MIDINT_OK)
        return failf(why, len, "second midint_open: %s: %s", midint_status_name(st), midint_last_error(NULL));
    const char *m = midint_last_error(c2);
    int ok = 1;
    if (!m || m[0])
        ok = failf(why, len, "midint_last_error of a second fresh context is \"%s\", want \"\"", m ? m : "(null)");
    else if (midint_context_backend(c2) != e->backend)
        ok = failf(why, len, "second context reports backend %d, want %d", (int)midint_context_backend(c2),
                   (int)e->backend);
    midint_close(c2);
    return ok;
}

/* AUTO tries backends in turn; a backend that did not open must leave no message on the one that did */
static int check_last_error_empty_after_auto_open(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)e, (void)arg, (void)op;
    midint_context *c2 = NULL;
    midint_status st = midint_open(&c2, MIDINT_BACKEND_AUTO, 0);
    if (st != MIDINT_OK)
        return failf(why, len, "midint_open(AUTO): %s: %s", midint_status_name(st), midint_last_error(NULL));
    const char *m = midint_last_error(c2);
    int ok = m && !m[0] ? 1 : failf(why, len, "midint_last_error after an AUTO open is \"%s\", want \"\"", m ? m : "(null)");
    midint_close(c2);
    return ok;
}

static int check_close_null(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)e, (void)arg, (void)op, (void)why, (void)len;
    midint_close(NULL); /* reaching the next line is the check */
    return 1;
}

static int check_status_names(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)e, (void)arg, (void)op;
    static const struct { midint_status s; const char *name; } names[] = {
        {MIDINT_OK, "MIDINT_OK"},
        {MIDINT_ERR_NULL_POINTER, "MIDINT_ERR_NULL_POINTER"},
        {MIDINT_ERR_INVALID_COUNT, "MIDINT_ERR_INVALID_COUNT"},
        {MIDINT_ERR_INVALID_BITS, "MIDINT_ERR_INVALID_BITS"},
        {MIDINT_ERR_BITS_TOO_LARGE, "MIDINT_ERR_BITS_TOO_LARGE"},
        {MIDINT_ERR_UNKNOWN_BACKEND, "MIDINT_ERR_UNKNOWN_BACKEND"},
        {MIDINT_ERR_NO_BACKEND, "MIDINT_ERR_NO_BACKEND"},
        {MIDINT_ERR_NO_DEVICE, "MIDINT_ERR_NO_DEVICE"},
        {MIDINT_ERR_OVERLAP, "MIDINT_ERR_OVERLAP"},
        {MIDINT_ERR_UNKNOWN_VARIANT, "MIDINT_ERR_UNKNOWN_VARIANT"},
        {MIDINT_ERR_OUT_OF_MEMORY, "MIDINT_ERR_OUT_OF_MEMORY"},
        {MIDINT_ERR_DEVICE, "MIDINT_ERR_DEVICE"},
        {MIDINT_ERR_INVALID_ARGUMENT, "MIDINT_ERR_INVALID_ARGUMENT"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *got = midint_status_name(names[i].s);
        if (!got || strcmp(got, names[i].name) != 0)
            return failf(why, len, "midint_status_name(%d) = \"%s\", want \"%s\"", (int)names[i].s,
                         got ? got : "(null)", names[i].name);
    }
    static const int unknown[] = {13, 99, -1};
    for (size_t j = 0; j < sizeof unknown / sizeof unknown[0]; j++) {
        const char *got = midint_status_name((midint_status)unknown[j]);
        if (!got || !got[0])
            return failf(why, len, "midint_status_name(%d) is %s", unknown[j], got ? "empty" : "NULL");
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp(got, names[i].name) == 0)
                return failf(why, len, "midint_status_name(%d) = \"%s\", the name of a real status", unknown[j],
                             got);
    }
    return 1;
}

/* ---- other entry points with a NULL context or a bad argument ---- */

static int check_force_variant_null_ctx(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    arm(e);
    midint_status st = midint_force_variant(NULL, midint_variant_name(0));
    return expect(why, len, "midint_force_variant(NULL, ...)", st, MIDINT_ERR_NULL_POINTER, midint_last_error(NULL),
                  KW("ctx"));
}

static int check_staging_bytes_0(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    arm(e);
    midint_status st = midint_set_staging_bytes(e->ctx, 0);
    int ok = expect(why, len, "midint_set_staging_bytes(ctx, 0)", st, MIDINT_ERR_INVALID_ARGUMENT,
                    midint_last_error(e->ctx), KW("bytes"));
    /* and the context still works (the refused value was not taken) */
    return ok && run_positive(e, MIDINT_OP_ADD, 128, AL_NONE, 3, why, len);
}

static int check_staging_bytes_null_ctx(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    arm(e);
    midint_status st = midint_set_staging_bytes(NULL, 4096);
    return expect(why, len, "midint_set_staging_bytes(NULL, 4096)", st, MIDINT_ERR_NULL_POINTER,
                  midint_last_error(NULL), KW("ctx"));
}

static int check_staging_one_instance_chunks(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    midint_status st = midint_set_staging_bytes(e->ctx, 1);
    if (st != MIDINT_OK)
        return failf(why, len, "midint_set_staging_bytes(ctx, 1): %s: %s", midint_status_name(st),
                     midint_last_error(e->ctx));
    int ok = run_positive(e, op, 128, in_place_ok(op) ? AL_RA : AL_NONE, 5, why, len);
    midint_set_staging_bytes(e->ctx, DEFAULT_STAGING);
    return ok;
}

/* Asynchronous host calls: an operand in pageable memory is refused before anything is enqueued (r untouched);
 * with every operand from midint_host_alloc the call works (checked after midint_synchronize). */
static int check_async_page_locked(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    enum { COUNT = 3, N = 4 };
    const size_t rn = result_words(op, N), words[4] = {COUNT * N, COUNT * N, COUNT * rn, COUNT};
    const char *names[4] = {"a", "b", "r", aux_name(op)};
    uint32_t *pinned[4] = {NULL}, *plain[4] = {NULL};
    int ok = 1;
    for (int k = 0; k < 4 && ok; k++) {
        void *p = NULL;
        plain[k] = malloc(words[k] * 4);
        if (midint_host_alloc(e->ctx, words[k] * 4, &p) != MIDINT_OK || !plain[k])
            ok = failf(why, len, "allocating the operands: %s", midint_last_error(e->ctx));
        pinned[k] = p;
    }
    for (size_t i = 0; ok && i < COUNT * N; i++) {
        pinned[0][i] = plain[0][i] = (uint32_t)(i * 2654435761u) | (i % 5 == 0 ? 0xffff0000u : 0);
        pinned[1][i] = plain[1][i] = (uint32_t)~(i * 40503u);
    }
    int has_aux = op_has_carry(op);
    for (int bad = 0; bad < 3 + has_aux && ok; bad++) {
        uint32_t *use[4];
        for (int k = 0; k < 4; k++) {
            use[k] = k == bad ? plain[k] : pinned[k];
            if (k >= 2)
                for (size_t i = 0; i < words[k]; i++)
                    use[k][i] = 0x5A5A5A5Au;
        }
        char what[96];
        snprintf(what, sizeof what, "midint_%s_async with %s in pageable memory", op_name(op), names[bad]);
        arm(e);
        midint_status st = async_call(op, e->ctx, COUNT, N * 32, use[2], use[0], use[1], has_aux ? use[3] : NULL);
        ok = expect(why, len, what, st, MIDINT_ERR_INVALID_ARGUMENT, midint_last_error(e->ctx),
                    KW("page-locked", names[bad]));
        for (int k = 2; k < 4 && ok; k++)
            for (size_t i = 0; i < words[k] && ok; i++)
                if (use[k][i] != 0x5A5A5A5Au)
                    ok = failf(why, len, "%s: %s word %zu was written", what, names[k], i);
    }
    /* then at once a synchronous call that reads the asynchronous call's r: it must wait for it */
    midint_status st = MIDINT_OK;
    uint32_t next[COUNT * 2 * N], next_carry[COUNT];
    if (ok && ((st = async_call(op, e->ctx, COUNT, N * 32, pinned[2], pinned[0], pinned[1],
                                has_aux ? pinned[3] : NULL)) != MIDINT_OK ||
               (st = host_call(op, e->ctx, COUNT, N * 32, next, pinned[2], pinned[1], has_aux ? next_carry : NULL)) !=
                   MIDINT_OK ||
               (st = midint_synchronize(e->ctx, NULL)) != MIDINT_OK))
        ok = failf(why, len, "midint_%s_async on page-locked memory, then midint_%s: %s: %s", op_name(op),
                   op_name(op), midint_status_name(st), midint_last_error(e->ctx));
    for (size_t i = 0; i < COUNT && ok; i++) {
        uint32_t want[2 * N];
        uint32_t carry = plain_op(op, N, pinned[0] + i * N, pinned[1] + i * N, want);
        if (memcmp(want, pinned[2] + i * rn, rn * 4) || (has_aux && pinned[3][i] != carry))
            ok = failf(why, len, "midint_%s_async: instance %zu is wrong", op_name(op), i);
        carry = plain_op(op, N, pinned[2] + i * N, pinned[1] + i * N, want);
        if (ok && (memcmp(want, next + i * rn, rn * 4) || (has_aux && next_carry[i] != carry)))
            ok = failf(why, len, "midint_%s after midint_%s_async: instance %zu is wrong (it did not wait?)",
                       op_name(op), op_name(op), i);
    }
    for (int k = 0; k < 4; k++) {
        midint_host_free(e->ctx, pinned[k]);
        free(plain[k]);
    }
    return ok;
}

/* ---- the device workspace of the multi-kernel (grid) variants ---- */

#define DEFAULT_WORKSPACE ((size_t)1 << 30)

/* A size the default dispatch runs on a grid variant for one instance (the smallest generated one of 2^16, 2^17,
 * ..., 2^20 bits), or 0 when this build has none (then the checks below use the largest size, whose workspace
 * must be 0). */
static unsigned grid_bits(env *e, midint_op op)
{
    for (unsigned bits = 1u << 16; bits <= (1u << 20) && bits <= midint_max_bits(e->ctx, op); bits <<= 1) {
        const char *v = midint_selected_variant(e->ctx, op, bits, 1);
        if (v && strstr(v, "_g"))
            return bits;
    }
    return 0;
}

static int workspace_of(env *e, midint_op op, unsigned bits, size_t count, size_t *bytes, char *why, size_t len)
{
    midint_status st = midint_workspace_size(e->ctx, op, bits, count, bytes);
    if (st != MIDINT_OK)
        return failf(why, len, "midint_workspace_size(%s, %u bits, %zu): %s: %s", op_name(op), bits, count,
                     midint_status_name(st), midint_last_error(e->ctx));
    return 1;
}

/* What a call would use: nothing for a one-block variant at 128 bits; for a grid one, or a one-block kernel that keeps
 * its arrays in the workspace (the modular operations above 8192 bits), per instance, as many instances as the cap
 * allows at once. */
static int check_workspace_size(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    size_t one = 0, three = 0, small = 1;
    unsigned bits = grid_bits(e, op);
    if (!workspace_of(e, op, 128, 5, &small, why, len))
        return 0;
    if (small != 0)
        return failf(why, len, "midint_workspace_size(%s, 128 bits) = %zu, want 0 (one-block variant)", op_name(op), small);
    if (!bits) {
        unsigned top = midint_max_bits(e->ctx, op);
        if (!workspace_of(e, op, top, 1, &one, why, len))
            return 0;
        if (one == 0)
            return 1;
        bits = top; /* its arrays in the workspace: the same rules as a grid variant's */
    }
    if (!workspace_of(e, op, bits, 1, &one, why, len) || !workspace_of(e, op, bits, 3, &three, why, len))
        return 0;
    if (one == 0 || three != 3 * one)
        return failf(why, len, "%s at %u bits: workspace %zu for one instance and %zu for three", op_name(op), bits, one,
                     three);
    midint_status st = midint_set_workspace_bytes(e->ctx, 2 * one);
    int ok = st == MIDINT_OK && workspace_of(e, op, bits, 3, &three, why, len);
    if (ok && three != 2 * one)
        ok = failf(why, len, "%s at %u bits with a cap of two instances: %zu bytes for three, want %zu", op_name(op),
                   bits, three, 2 * one);
    midint_set_workspace_bytes(e->ctx, DEFAULT_WORKSPACE);
    return ok;
}

/* A cap below one instance's workspace: the call is refused with MIDINT_ERR_OUT_OF_MEMORY and the size it needs,
 * host and device path, and nothing is written. */
static int check_workspace_cap_refused(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    unsigned bits = grid_bits(e, op);
    size_t need = 0, n = bits / 32, count = 2;
    if (!bits)
        return 1; /* this build has no grid variant for the operation: nothing can need a workspace */
    if (!workspace_of(e, op, bits, 1, &need, why, len))
        return 0;
    midint_set_workspace_bytes(e->ctx, need - 1);
    char kw_need[32], what[96];
    snprintf(kw_need, sizeof kw_need, "%zu", need);
    snprintf(what, sizeof what, "midint_%s(count=2, bits=%u) under a workspace cap of %zu bytes", op_name(op), bits,
             need - 1);
    arena A;
    int ok = arena_init(&A, op, count, n, 77);
    if (!ok)
        ok = failf(why, len, "setup: out of host memory");
    if (ok) {
        arm(e);
        midint_status st = host_call(op, e->ctx, count, bits, A.r, A.a, A.b, op_has_carry(op) ? A.carry : NULL);
        ok = expect(why, len, what, st, MIDINT_ERR_OUT_OF_MEMORY, midint_last_error(e->ctx), KW("workspace", kw_need)) &&
             arena_unchanged_except(&A, NULL, 0, NULL, 0, what, why, len);
    }
    void *d[3] = {NULL, NULL, NULL};
    size_t bytes[3] = {count * n * 4, count * n * 4, A.rw * 4};
    for (int i = 0; i < 3 && ok; i++) {
        midint_status st = midint_buffer_alloc(e->ctx, bytes[i], &d[i]);
        if (st == MIDINT_OK)
            st = midint_buffer_write(e->ctx, d[i], i == 2 ? A.r : i ? A.b : A.a, bytes[i]);
        if (st != MIDINT_OK)
            ok = failf(why, len, "setup: device buffer of %zu bytes: %s", bytes[i], midint_last_error(e->ctx));
    }
    if (ok) {
        arm(e);
        midint_status st = device_call(op, e->ctx, count, bits, d[2], d[0], d[1], NULL);
        ok = expect(why, len, what, st, MIDINT_ERR_OUT_OF_MEMORY, midint_last_error(e->ctx), KW("workspace", kw_need));
        uint32_t *back = ok ? malloc(bytes[2]) : NULL;
        if (ok && (!back || midint_buffer_read(e->ctx, back, d[2], bytes[2]) != MIDINT_OK ||
                   memcmp(back, A.r, bytes[2]) != 0))
            ok = failf(why, len, "%s (device): r changed", what);
        free(back);
    }
    for (int i = 0; i < 3; i++)
        if (d[i])
            midint_buffer_free(e->ctx, d[i]);
    if (A.mem)
        arena_free(&A);
    midint_set_workspace_bytes(e->ctx, DEFAULT_WORKSPACE);
    return ok;
}

static int check_workspace_bytes_0(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    arm(e);
    midint_status st = midint_set_workspace_bytes(e->ctx, 0);
    return expect(why, len, "midint_set_workspace_bytes(ctx, 0)", st, MIDINT_ERR_INVALID_ARGUMENT,
                  midint_last_error(e->ctx), KW("bytes"));
}

/* midint_host_alloc / midint_host_free: bad arguments refused with their names; the memory is usable (written
 * and read back whole); freeing NULL is a no-op; a pointer freed twice, or not from midint_host_alloc, is refused. */
static int check_host_memory(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    void *p = (void *)1;
    arm(e);
    midint_status st = midint_host_alloc(NULL, 64, &p);
    if (!expect(why, len, "midint_host_alloc(NULL, ...)", st, MIDINT_ERR_NULL_POINTER, midint_last_error(NULL),
                KW("ctx")))
        return 0;
    arm(e);
    st = midint_host_alloc(e->ctx, 64, NULL);
    if (!expect(why, len, "midint_host_alloc(ctx, 64, NULL)", st, MIDINT_ERR_NULL_POINTER,
                midint_last_error(e->ctx), KW("ptr")))
        return 0;
    arm(e);
    st = midint_host_alloc(e->ctx, 0, &p);
    if (!expect(why, len, "midint_host_alloc(ctx, 0, &p)", st, MIDINT_ERR_INVALID_ARGUMENT,
                midint_last_error(e->ctx), KW("bytes")))
        return 0;
    if (p != NULL)
        return failf(why, len, "midint_host_alloc(ctx, 0, &p) left p = %p, want NULL", p);
    const size_t words = 1u << 16;
    if ((st = midint_host_alloc(e->ctx, words * 4, &p)) != MIDINT_OK || !p)
        return failf(why, len, "midint_host_alloc(ctx, %zu, &p) returned %s: %s", words * 4, midint_status_name(st),
                     midint_last_error(e->ctx));
    uint32_t *w = p;
    for (size_t i = 0; i < words; i++)
        w[i] = (uint32_t)(i * 2654435761u);
    int ok = 1;
    for (size_t i = 0; i < words && ok; i++)
        if (w[i] != (uint32_t)(i * 2654435761u))
            ok = failf(why, len, "host memory word %zu changed", i);
    if (ok && (st = midint_host_free(e->ctx, p)) != MIDINT_OK)
        ok = failf(why, len, "midint_host_free(ctx, p) returned %s", midint_status_name(st));
    if (ok && (st = midint_host_free(e->ctx, NULL)) != MIDINT_OK)
        ok = failf(why, len, "midint_host_free(ctx, NULL) returned %s, want MIDINT_OK", midint_status_name(st));
    if (ok) {
        arm(e);
        st = midint_host_free(e->ctx, p);   /* twice: refused, not a crash */
        ok = expect(why, len, "midint_host_free(ctx, p) twice", st, MIDINT_ERR_INVALID_ARGUMENT,
                    midint_last_error(e->ctx), KW("midint_host_alloc"));
    }
    if (ok) {
        uint32_t local = 0;
        arm(e);
        st = midint_host_free(e->ctx, &local);
        ok = expect(why, len, "midint_host_free(ctx, stack pointer)", st, MIDINT_ERR_INVALID_ARGUMENT,
                    midint_last_error(e->ctx), KW("midint_host_alloc"));
    }
    if (ok) {
        arm(e);
        st = midint_host_free(NULL, p);
        ok = expect(why, len, "midint_host_free(NULL, p)", st, MIDINT_ERR_NULL_POINTER, midint_last_error(NULL),
                    KW("ctx"));
    }
    if (ok) { /* blocks not freed go with their context; another context's pointer is refused */
        midint_context *c2 = NULL;
        void *q = NULL;
        if ((st = midint_open(&c2, e->backend, 0)) != MIDINT_OK || (st = midint_host_alloc(c2, 4096, &q)) != MIDINT_OK)
            ok = failf(why, len, "second context: %s: %s", midint_status_name(st), midint_last_error(c2));
        if (ok) {
            memset(q, 0x5a, 4096);
            arm(e);
            st = midint_host_free(e->ctx, q);
            ok = expect(why, len, "midint_host_free(ctx, another context's block)", st, MIDINT_ERR_INVALID_ARGUMENT,
                        midint_last_error(e->ctx), KW("midint_host_alloc"));
            if (ok && midint_host_alloc(c2, 8192, &q) != MIDINT_OK)
                ok = failf(why, len, "second context: a second block: %s", midint_last_error(c2));
        }
        midint_close(c2);   /* frees both blocks */
    }
    return ok;
}

static int check_workspace_null(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    size_t bytes;
    arm(e);
    midint_status st = midint_set_workspace_bytes(NULL, 4096);
    if (!expect(why, len, "midint_set_workspace_bytes(NULL, 4096)", st, MIDINT_ERR_NULL_POINTER, midint_last_error(NULL),
                KW("ctx")))
        return 0;
    arm(e);
    st = midint_workspace_size(NULL, MIDINT_OP_MUL, 4096, 1, &bytes);
    if (!expect(why, len, "midint_workspace_size(NULL, ...)", st, MIDINT_ERR_NULL_POINTER, midint_last_error(NULL),
                KW("ctx")))
        return 0;
    arm(e);
    st = midint_workspace_size(e->ctx, MIDINT_OP_MUL, 4096, 1, NULL);
    return expect(why, len, "midint_workspace_size(ctx, ..., NULL)", st, MIDINT_ERR_NULL_POINTER,
                  midint_last_error(e->ctx), KW("bytes"));
}

static int check_synchronize_null_ctx(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    arm(e);
    midint_status st = midint_synchronize(NULL, NULL);
    return expect(why, len, "midint_synchronize(NULL, NULL)", st, MIDINT_ERR_NULL_POINTER, midint_last_error(NULL),
                  KW("ctx"));
}

static int check_buffer_alloc_zero(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    void *buf = (void *)(uintptr_t)0x1;
    arm(e);
    midint_status st = midint_buffer_alloc(e->ctx, 0, &buf);
    if (!expect(why, len, "midint_buffer_alloc(ctx, 0, &buf)", st, MIDINT_ERR_INVALID_ARGUMENT,
                midint_last_error(e->ctx), KW("bytes")))
        return 0;
    if (buf != (void *)(uintptr_t)0x1)
        return failf(why, len, "midint_buffer_alloc(ctx, 0, &buf) failed but wrote *buf");
    return 1;
}

static int check_buffer_alloc_null(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    arm(e);
    midint_status st = midint_buffer_alloc(e->ctx, 64, NULL);
    return expect(why, len, "midint_buffer_alloc(ctx, 64, NULL)", st, MIDINT_ERR_NULL_POINTER,
                  midint_last_error(e->ctx), KW("buf"));
}

static int check_max_bits_null_ctx(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    unsigned m = midint_max_bits(NULL, op);
    if (m != 0)
        return failf(why, len, "midint_max_bits(NULL, %s) = %u, want 0", op_name(op), m);
    m = midint_max_bits(e->ctx, op);
    if (m < 64 || m % 32)
        return failf(why, len, "midint_max_bits(ctx, %s) = %u: not a multiple of 32 of at least 64", op_name(op), m);
    return 1;
}

static int check_selected_variant_bad_bits(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    arm(e);
    const char *v = midint_selected_variant(e->ctx, op, 33, 1);
    if (v)
        return failf(why, len, "midint_selected_variant(ctx, %s, 33, 1) = \"%s\", want NULL", op_name(op), v);
    if (!expect(why, len, "midint_selected_variant(bits=33)", MIDINT_ERR_INVALID_BITS, MIDINT_ERR_INVALID_BITS,
                midint_last_error(e->ctx), KW("33")))
        return 0;
    unsigned over = midint_max_bits(e->ctx, op) + 32;
    char kw[32];
    snprintf(kw, sizeof kw, "%u", over);
    arm(e);
    v = midint_selected_variant(e->ctx, op, over, 1);
    if (v)
        return failf(why, len, "midint_selected_variant(ctx, %s, %u, 1) = \"%s\", want NULL", op_name(op), over, v);
    return expect(why, len, "midint_selected_variant(bits above max)", MIDINT_ERR_BITS_TOO_LARGE,
                  MIDINT_ERR_BITS_TOO_LARGE, midint_last_error(e->ctx), KW(kw));
}

/* ---- forced variants ---- */

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* Force the smallest-size variant of op for this backend that the device accepts; its name and bits out. */
static int force_smallest(env *e, midint_op op, const char **name, unsigned *bits, char *why, size_t len)
{
    char prefix[8], suffix[16];
    snprintf(prefix, sizeof prefix, "%s_", op_name(op));
    snprintf(suffix, sizeof suffix, "_%s", e->bname);
    unsigned floor = 0; /* try sizes in increasing order: a variant may not fit the device */
    for (;;) {
        unsigned best = 0;
        for (size_t i = 0; i < midint_variant_count(); i++) {
            const char *nm = midint_variant_name(i);
            if (!nm || strncmp(nm, prefix, strlen(prefix)) != 0 || !ends_with(nm, suffix))
                continue;
            unsigned b = (unsigned)strtoul(nm + strlen(prefix), NULL, 10);
            if (b > floor && (!best || b < best))
                best = b;
        }
        if (!best)
            return failf(why, len, "setup: no %s variant of the %s backend can be forced", op_name(op), e->bname);
        for (size_t i = 0; i < midint_variant_count(); i++) {
            const char *nm = midint_variant_name(i);
            if (!nm || strncmp(nm, prefix, strlen(prefix)) != 0 || !ends_with(nm, suffix) ||
                (unsigned)strtoul(nm + strlen(prefix), NULL, 10) != best)
                continue;
            if (midint_force_variant(e->ctx, nm) == MIDINT_OK) {
                *name = nm;
                *bits = best;
                return 1;
            }
        }
        floor = best;
    }
}

static int check_force_unknown_variant(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    char name[96];
    snprintf(name, sizeof name, "%s_96_u32_q1_i1_%s_no_such_variant", op_name(op), e->bname);
    arm(e);
    midint_status st = midint_force_variant(e->ctx, name);
    return expect(why, len, "midint_force_variant(unknown name)", st, MIDINT_ERR_UNKNOWN_VARIANT,
                  midint_last_error(e->ctx), KW(name));
}

static int check_force_other_backend_variant(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    char prefix[8], suffix[16];
    snprintf(prefix, sizeof prefix, "%s_", op_name(op));
    snprintf(suffix, sizeof suffix, "_%s", e->other);
    const char *name = NULL;
    for (size_t i = 0; i < midint_variant_count() && !name; i++) {
        const char *nm = midint_variant_name(i);
        if (nm && strncmp(nm, prefix, strlen(prefix)) == 0 && ends_with(nm, suffix))
            name = nm;
    }
    if (!name)
        return failf(why, len, "setup: the registry has no %s variant of the %s backend", op_name(op), e->other);
    arm(e);
    midint_status st = midint_force_variant(e->ctx, name);
    if (st == MIDINT_OK)
        midint_force_variant(e->ctx, NULL);
    return expect(why, len, "midint_force_variant(other backend's variant)", st, MIDINT_ERR_UNKNOWN_VARIANT,
                  midint_last_error(e->ctx), KW(name));
}

/* With the smallest variant forced, a larger size is refused on the host path and nothing is written. */
static int check_forced_too_small_host(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    const char *name;
    unsigned small;
    if (!force_smallest(e, op, &name, &small, why, len))
        return 0;
    unsigned bits = small + 32;
    int ok = 1;
    if (bits > midint_max_bits(e->ctx, op)) {
        midint_force_variant(e->ctx, NULL);
        return skip_single_size(why, len, op, small);
    }
    arena A;
    if (ok && !arena_init(&A, op, 3, bits / 32, 99))
        ok = failf(why, len, "setup: out of host memory");
    if (ok) {
        char what[160], kw[32];
        snprintf(what, sizeof what, "midint_%s(bits=%u) with %s forced", op_name(op), bits, name);
        snprintf(kw, sizeof kw, "%u bits", bits);
        arm(e);
        midint_status st = host_call(op, e->ctx, 3, bits, A.r, A.a, A.b, op_has_carry(op) ? A.carry : NULL);
        ok = expect(why, len, what, st, MIDINT_ERR_UNKNOWN_VARIANT, midint_last_error(e->ctx), KW(kw)) &&
             arena_unchanged_except(&A, NULL, 0, NULL, 0, what, why, len);
        arena_free(&A);
    }
    midint_force_variant(e->ctx, NULL);
    return ok;
}

static int check_forced_too_small_device(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    if (!e->dbuf[DR])
        return failf(why, len, "setup: device buffers could not be allocated");
    const char *name;
    unsigned small;
    if (!force_smallest(e, op, &name, &small, why, len))
        return 0;
    unsigned bits = small + 32;
    int ok = 1;
    if (bits > midint_max_bits(e->ctx, op)) {
        midint_force_variant(e->ctx, NULL);
        return skip_single_size(why, len, op, small);
    }
    if (result_words(op, bits / 32) * 2 > e->dwords)
        ok = failf(why, len, "setup: device buffers too small");
    if (ok) {
        watch(e, 2, result_words(op, bits / 32));
        ok = device_reset(e, why, len);
    }
    if (ok) {
        char what[160], kw[32];
        snprintf(what, sizeof what, "midint_%s_device(bits=%u) with %s forced", op_name(op), bits, name);
        snprintf(kw, sizeof kw, "%u bits", bits);
        arm(e);
        midint_status st = device_call(op, e->ctx, 2, bits, e->dbuf[DR], e->dbuf[DA], e->dbuf[DB],
                                       op_has_carry(op) ? e->dbuf[DC] : NULL);
        ok = expect(why, len, what, st, MIDINT_ERR_UNKNOWN_VARIANT, midint_last_error(e->ctx), KW(kw)) &&
             device_unchanged(e, what, why, len);
    }
    midint_force_variant(e->ctx, NULL);
    return ok;
}

/* A forced variant serves smaller sizes, is what midint_selected_variant reports, and leaves the other
 * operation of its pair (add / sub, mul / mullo) alone; clearing it makes the larger size work again. */
static int check_forced_variant_scope(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg;
    const char *name;
    unsigned small;
    if (!force_smallest(e, op, &name, &small, why, len))
        return 0;
    static const midint_op partner[MIDINT_OP_COUNT_] = {
        [MIDINT_OP_ADD] = MIDINT_OP_SUB, [MIDINT_OP_SUB] = MIDINT_OP_ADD,
        [MIDINT_OP_MUL] = MIDINT_OP_MULLO, [MIDINT_OP_MULLO] = MIDINT_OP_MUL};
    midint_op other = partner[op];
    if (small + 32 > midint_max_bits(e->ctx, op) || small + 32 > midint_max_bits(e->ctx, other)) {
        midint_force_variant(e->ctx, NULL);
        return skip_single_size(why, len, small + 32 > midint_max_bits(e->ctx, op) ? op : other, small);
    }
    int ok = run_positive(e, op, 64, in_place_ok(op) ? AL_RA : AL_NONE, 4, why, len);
    const char *sel = ok ? midint_selected_variant(e->ctx, op, 64, 4) : NULL;
    if (ok && (!sel || strcmp(sel, name) != 0))
        ok = failf(why, len, "midint_selected_variant(%s, 64 bits) = %s with %s forced", op_name(op),
                   sel ? sel : "NULL", name);
    if (ok) /* the other operation is not restricted by this op's forced variant */
        ok = run_positive(e, other, small + 32, AL_NONE, 2, why, len);
    midint_status st = midint_force_variant(e->ctx, NULL);
    if (ok && st != MIDINT_OK)
        ok = failf(why, len, "midint_force_variant(ctx, NULL) returned %s", midint_status_name(st));
    if (ok) /* cleared: the larger size works again */
        ok = run_positive(e, op, small + 32, in_place_ok(op) ? AL_RB : AL_AB_SAME, 2, why, len);
    return ok;
}

/* ---- the list ---- */

typedef int (*check_fn)(env *e, const void *arg, midint_op op, char *why, size_t len);
typedef struct check {
    char name[64];
    check_fn fn;
    const void *arg;
    midint_op op;
} check;

static check checks[512];
static size_t ncheck;

static void add_check(const char *name, check_fn fn, const void *arg, midint_op op)
{
    if (ncheck == NELEM(checks)) {
        fprintf(stderr, "api_errors: too many checks\n");
        exit(2);
    }
    check *c = &checks[ncheck++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->fn = fn;
    c->arg = arg;
    c->op = op;
}

/* Add "<op>_<suffix>" when op is in `ops`; with `borrow`, "carry" in a sub check's name becomes "borrow" (the
 * error cases; the other names kept "carry" from the start, e.g. sub_carry_null_128). */
static void add_op_check(midint_op op, unsigned ops, const char *suffix, check_fn fn, const void *arg, int borrow)
{
    if (!(ops & OP_BIT(op)))
        return;
    char name[64];
    snprintf(name, sizeof name, "%s_%s", op_name(op), suffix);
    if (borrow && op == MIDINT_OP_SUB)
        for (char *p = strstr(name, "carry"); p; p = strstr(p, "carry")) /* sub_overlap_borrow_... */
            memmove(p + 6, p + 5, strlen(p + 5) + 1), memcpy(p, "borrow", 6);
    add_check(name, fn, arg, op);
}

/* Checks of their own, run once (before and after the per-operation ones). */
typedef struct plain_check {
    const char *name;
    check_fn fn;
} plain_check;

static const plain_check first_checks[] = {
    {"last_error_empty_after_open", check_last_error_empty_after_open},
    {"last_error_empty_after_auto_open", check_last_error_empty_after_auto_open},
    {"open_null_ctx_pointer", check_open_null_ctx_pointer},
    {"open_unknown_backend", check_open_unknown_backend},
    {"open_unknown_backend_negative", check_open_unknown_backend_negative},
    {"open_no_device_9999", check_open_no_device},
    {"open_negative_device", check_open_negative_device},
    {"open_auto_negative_device", check_open_auto_negative_device},
    {"close_null", check_close_null},
    {"status_names", check_status_names},
};

/* ---- a modulus shared by a batch (midint_modulus_create) and the calls that take one ---- */

/* Skipped where the build has no mulmod_shared (the object is made for its sizes). */
static int modulus_bits(env *e, unsigned *bits, char *why, size_t len)
{
    *bits = midint_max_bits(e->ctx, MIDINT_OP_MULMOD_SHARED) >= 256 ? 256 : 0;
    if (!*bits)
        snprintf(why, len, "mulmod_shared is not generated at 256 bits");
    return *bits != 0;
}

/* midint_modulus_create(ctx, mod, bits, m) fails with `want` naming `kw`, leaves *mod NULL */
static int create_fails(env *e, midint_context *ctx, int null_out, unsigned bits, const uint32_t *m, midint_status want,
                        const char *const *kw, char *why, size_t len)
{
    midint_modulus *mod = (midint_modulus *)(uintptr_t)0x1;
    arm(e);
    midint_status st = midint_modulus_create(ctx, null_out ? NULL : &mod, bits, m);
    if (!expect(why, len, "midint_modulus_create", st, want, midint_last_error(ctx), kw))
        return 0;
    if (!null_out && mod != NULL)
        return failf(why, len, "midint_modulus_create failed but left *mod %p (want NULL)", (void *)mod);
    return 1;
}

static int check_modulus_create(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    uint32_t m[300] = {0}, zero[300] = {0};
    unsigned bits, max = midint_max_bits(e->ctx, MIDINT_OP_MULMOD_SHARED);
    if (!modulus_bits(e, &bits, why, len))
        return SKIPPED;
    m[0] = 7;
    return create_fails(e, NULL, 0, bits, m, MIDINT_ERR_NULL_POINTER, KW("midint_modulus_create", "ctx"), why, len) &&
           create_fails(e, e->ctx, 1, bits, m, MIDINT_ERR_NULL_POINTER, KW("mod is NULL"), why, len) &&
           create_fails(e, e->ctx, 0, bits, NULL, MIDINT_ERR_NULL_POINTER, KW("m_host"), why, len) &&
           create_fails(e, e->ctx, 0, 0, m, MIDINT_ERR_INVALID_BITS, KW("bits is 0"), why, len) &&
           create_fails(e, e->ctx, 0, 33, m, MIDINT_ERR_INVALID_BITS, KW("bits is 33"), why, len) &&
           (max + 32 > 32 * 300 || create_fails(e, e->ctx, 0, max + 32, m, MIDINT_ERR_BITS_TOO_LARGE, KW("bits"), why,
                                                len)) &&
           create_fails(e, e->ctx, 0, bits, zero, MIDINT_ERR_INVALID_ARGUMENT, KW("m is zero", "at least 1"), why,
                        len);
}

/* A call with a modulus that does not fit it: refused before anything is written (r keeps its canary). */
static int modulus_call_fails(env *e, midint_op op, unsigned bits, const midint_modulus *mod, midint_status want,
                              const char *const *kw, char *why, size_t len)
{
    enum { COUNT = 3 };
    uint32_t a[COUNT * 16], b[COUNT * 16], r[COUNT * 16];
    unsigned n = bits / 32;
    for (unsigned i = 0; i < COUNT * 16; i++)
        a[i] = b[i] = i + 1, r[i] = CANARY;
    arm(e);
    midint_status st = op == MIDINT_OP_MULMOD_SHARED ? midint_mulmod_shared(e->ctx, COUNT, bits, r, a, b, mod)
                                                     : midint_powm_shared(e->ctx, COUNT, bits, r, a, b, mod, 32, 0);
    if (!expect(why, len, midint_op_describe(op)->name, st, want, midint_last_error(e->ctx), kw))
        return 0;
    for (unsigned i = 0; i < COUNT * n; i++)
        if (r[i] != CANARY)
            return failf(why, len, "%s failed but wrote r[%u]", midint_op_describe(op)->name, i);
    return 1;
}

static int check_modulus_calls(env *e, const void *arg, midint_op op, char *why, size_t len)
{
    (void)arg, (void)op;
    uint32_t m[8] = {6, 0, 0, 0, 0, 0, 0, 1}; /* even */
    unsigned bits;
    if (!modulus_bits(e, &bits, why, len))
        return SKIPPED;
    midint_modulus *even = NULL, *other = NULL;
    midint_context *ctx2 = NULL;
    int ok = midint_modulus_create(e->ctx, &even, bits, m) == MIDINT_OK;
    if (!ok)
        return failf(why, len, "midint_modulus_create of an even m: %s", midint_last_error(e->ctx));
    ok = midint_modulus_bits(even) == bits && !midint_modulus_is_odd(even) && midint_modulus_bits(NULL) == 0 &&
         !midint_modulus_is_odd(NULL);
    if (!ok)
        failf(why, len, "midint_modulus_bits / midint_modulus_is_odd do not describe the object");
    ok = ok &&
         modulus_call_fails(e, MIDINT_OP_MULMOD_SHARED, bits, NULL, MIDINT_ERR_NULL_POINTER, KW("m is NULL"), why,
                            len) &&
         modulus_call_fails(e, MIDINT_OP_POWM_SHARED, bits, even, MIDINT_ERR_INVALID_ARGUMENT,
                            KW("midint_powm_shared", "m is even", "odd modulus"), why, len) &&
         (midint_max_bits(e->ctx, MIDINT_OP_MULMOD_SHARED) < bits * 2 ||
          modulus_call_fails(e, MIDINT_OP_MULMOD_SHARED, bits * 2, even, MIDINT_ERR_INVALID_ARGUMENT,
                             KW("m was made for 256 bits", "bits 512"), why, len));
    if (ok && midint_open(&ctx2, e->backend, 0) == MIDINT_OK) {
        m[0] = 7;
        ok = midint_modulus_create(ctx2, &other, bits, m) == MIDINT_OK;
        if (!ok)
            failf(why, len, "midint_modulus_create on a second context: %s", midint_last_error(ctx2));
        ok = ok && modulus_call_fails(e, MIDINT_OP_MULMOD_SHARED, bits, other, MIDINT_ERR_INVALID_ARGUMENT,
                                      KW("another context"), why, len);
    }
    midint_modulus_free(other);
    midint_close(ctx2);
    midint_modulus_free(even);
    midint_modulus_free(NULL); /* allowed */
    return ok;
}

static const plain_check last_checks[] = {
    {"modulus_create_errors", check_modulus_create},
    {"modulus_call_errors", check_modulus_calls},
    {"force_variant_null_ctx", check_force_variant_null_ctx},
    {"staging_bytes_0", check_staging_bytes_0},
    {"staging_bytes_null_ctx", check_staging_bytes_null_ctx},
    {"synchronize_null_ctx", check_synchronize_null_ctx},
    {"buffer_alloc_zero_bytes", check_buffer_alloc_zero},
    {"buffer_alloc_null_out", check_buffer_alloc_null},
    {"workspace_bytes_0", check_workspace_bytes_0},
    {"workspace_null_arguments", check_workspace_null},
    {"host_memory", check_host_memory},
};

/* Per-operation checks: one row each, named "<op>_<suffix>" for every operation in `ops`. */
typedef struct op_check {
    const char *suffix;
    check_fn fn;
    const void *arg;
    unsigned ops;
} op_check;

static const int in_place_arg = 1; /* check_device_positive: r = a */

static const op_check op_checks[] = {
    {"staging_one_instance_per_chunk", check_staging_one_instance_chunks, NULL, OPS_ALL},
    {"max_bits_null_ctx", check_max_bits_null_ctx, NULL, OPS_ALL},
    {"selected_variant_bad_bits", check_selected_variant_bad_bits, NULL, OPS_ALL},
    {"force_unknown_variant", check_force_unknown_variant, NULL, OPS_ALL},
    {"force_other_backend_variant", check_force_other_backend_variant, NULL, OPS_ALL},
    {"forced_variant_too_small", check_forced_too_small_host, NULL, OPS_ALL},
    {"device_forced_variant_too_small", check_forced_too_small_device, NULL, OPS_ALL},
    {"forced_variant_scope", check_forced_variant_scope, NULL, OPS_ALL},
    {"device_separate_128", check_device_positive, NULL, OPS_ALL},
    {"async_needs_page_locked_128", check_async_page_locked, NULL, OPS_ALL},
    {"device_in_place_r_is_a_128", check_device_positive, &in_place_arg, OPS_IN_PLACE},
    {"workspace_size", check_workspace_size, NULL, OPS_ALL},
    {"workspace_cap_refused", check_workspace_cap_refused, NULL, OPS_ALL},
};

static void build_list(midint_backend backend)
{
    for (size_t i = 0; i < NELEM(first_checks); i++)
        add_check(first_checks[i].name, first_checks[i].fn, NULL, MIDINT_OP_ADD);
    for (int o = 0; o < MIDINT_OP_COUNT_; o++)
        for (size_t i = 0; i < NELEM(host_cases); i++)
            add_op_check((midint_op)o, host_cases[i].ops, host_cases[i].name, check_host_error, &host_cases[i], 1);
    for (int o = 0; o < MIDINT_OP_COUNT_; o++)
        for (size_t i = 0; i < NELEM(device_cases); i++) {
            char suffix[64];
            snprintf(suffix, sizeof suffix, "device_%s", device_cases[i].name);
            add_op_check((midint_op)o, device_cases[i].ops, suffix, check_device_error, &device_cases[i], 1);
        }
    for (int o = 0; o < MIDINT_OP_COUNT_; o++) {
        for (size_t i = 0; i < NELEM(alias_cases); i++)
            add_op_check((midint_op)o, alias_cases[i].ops, alias_cases[i].name, check_alias, &alias_cases[i], 0);
        for (size_t i = 0; i < NELEM(op_checks); i++)
            add_op_check((midint_op)o, op_checks[i].ops, op_checks[i].suffix, op_checks[i].fn, op_checks[i].arg, 0);
    }
    if (backend == MIDINT_BACKEND_OPENCL)
        for (int o = 0; o < MIDINT_OP_COUNT_; o++)
            add_op_check((midint_op)o, OPS_ALL, "device_r_too_small", check_device_r_too_small, NULL, 0);
    for (size_t i = 0; i < NELEM(last_checks); i++)
        add_check(last_checks[i].name, last_checks[i].fn, NULL, MIDINT_OP_ADD);
}

int main(int argc, char **argv)
{
    env e = {0};
    e.backend = MIDINT_BACKEND_OPENCL;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc && strcmp(argv[i + 1], "cuda") == 0) {
            e.backend = MIDINT_BACKEND_CUDA;
            i++;
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc && strcmp(argv[i + 1], "opencl") == 0) {
            e.backend = MIDINT_BACKEND_OPENCL;
            i++;
        } else if (strcmp(argv[i], "--list") == 0) {
            list = 1;
        } else {
            fprintf(stderr, "usage: %s [--backend cuda|opencl] [--list]\n", argv[0]);
            return 2;
        }
    }
    e.bname = e.backend == MIDINT_BACKEND_CUDA ? "cuda" : "opencl";
    e.other = e.backend == MIDINT_BACKEND_CUDA ? "opencl" : "cuda";
    build_list(e.backend);
    if (list) {
        for (size_t i = 0; i < ncheck; i++)
            printf("%s\n", checks[i].name);
        return 0;
    }

    midint_status st = midint_open(&e.ctx, e.backend, 0);
    if (st != MIDINT_OK) {
        fprintf(stderr, "api_errors: cannot open a %s context: %s: %s\n", e.bname, midint_status_name(st),
                midint_last_error(NULL));
        return 2;
    }
    const char *m = midint_last_error(e.ctx);
    snprintf(e.open_msg, sizeof e.open_msg, "%s", m ? m : "(null)");

    /* device buffers for the device-path checks: room for the result of count 1 at one word above the largest
     * size of any operation (twice the operand for mul) */
    size_t need = 0;
    for (int o = 0; o < MIDINT_OP_COUNT_; o++) {
        size_t w = result_words((midint_op)o, midint_max_bits(e.ctx, (midint_op)o) / 32 + 1);
        if (w > need)
            need = w;
    }
    e.dwords = need + 64;
    e.span = e.dwords;
    int have_dev = 1;
    for (int k = 0; k < 4 && have_dev; k++) {
        e.dhost[k] = malloc(e.dwords * 4);
        if (!e.dhost[k] || midint_buffer_alloc(e.ctx, e.dwords * 4, &e.dbuf[k]) != MIDINT_OK)
            have_dev = 0;
    }
    if (!have_dev) {
        fprintf(stderr, "api_errors: device buffers: %s\n", midint_last_error(e.ctx));
        for (int k = 0; k < 4; k++) {
            midint_buffer_free(e.ctx, e.dbuf[k]);
            e.dbuf[k] = NULL;
        }
    }

    int failures = 0;
    for (size_t i = 0; i < ncheck; i++) {
        char why[1024] = "";
        midint_force_variant(e.ctx, NULL); /* every check starts from the default dispatch */
        int ok = checks[i].fn(&e, checks[i].arg, checks[i].op, why, sizeof why);
        if (ok == SKIPPED) {
            printf("skip %s: %s\n", checks[i].name, why);
        } else if (ok) {
            printf("ok %s\n", checks[i].name);
        } else {
            printf("FAIL %s: %s\n", checks[i].name, why[0] ? why : "(no reason given)");
            failures++;
        }
        fflush(stdout);
    }

    for (int k = 0; k < 4; k++) {
        midint_buffer_free(e.ctx, e.dbuf[k]);
        free(e.dhost[k]);
    }
    midint_close(e.ctx);
    return failures ? 1 : 0;
}
