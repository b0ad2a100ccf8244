/* expr_errors.c — bad input to the expression API (midint_expr, midint_expr_device, the listing): each check expects a
 * status and words of the message, and that no output was written (outputs are poisoned first).
 *
 * Usage: expr_errors --backend cuda|opencl [--list]
 * Output: "ok NAME", "FAIL NAME: why" or "skip NAME: why" per check; exit 0 when none fails, 2 when no context opens.
 * Checks that need an expression with two outputs, or with an output of twice the width, skip when none was
 * generated (the default six and poly have one output each; tests/expressions/mix.expr has both). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "midint.h"

#define POISON 0xA5A5A5A5u
#define COUNT 5
#define MAXW (2 * 8192 / 32)

static midint_context *ctx;
static const midint_expr_desc *first; /* the first generated expression */
static const midint_expr_desc bad_marker; /* expect(): an output was written (device checks) */
static unsigned bits;                 /* a size every generated expression serves */
/* host buffers: 8 inputs and 8 outputs, each COUNT instances of up to MAXW words, plus one spare */
static uint32_t *hin[8], *hout[8];

static size_t words_of(const midint_expr_desc *d, size_t j) { return (size_t)COUNT * bits / 32 * d->output_words[j]; }

static void poison(const midint_expr_desc *d)
{
    for (unsigned j = 0; j < d->noutputs; j++)
        for (size_t k = 0; k < words_of(d, j); k++)
            hout[j][k] = POISON;
}

static int untouched(const midint_expr_desc *d)
{
    for (unsigned j = 0; j < d->noutputs; j++)
        for (size_t k = 0; k < words_of(d, j); k++)
            if (hout[j][k] != POISON)
                return 0;
    return 1;
}

/* `d`: the expression whose host outputs must still be poisoned (NULL: not checked); read after the call, which the
 * arguments are evaluated around. */
static int expect(const char *name, midint_status got, midint_status want, const char *w1, const char *w2,
                  const midint_expr_desc *d)
{
    int wrote_ok = !d || (d != &bad_marker && untouched(d));
    const char *msg = midint_last_error(ctx);
    if (got != want)
        printf("FAIL %s: status %s, want %s (%s)\n", name, midint_status_name(got), midint_status_name(want), msg);
    else if (want != MIDINT_OK && ((w1 && !strstr(msg, w1)) || (w2 && !strstr(msg, w2))))
        printf("FAIL %s: message '%s' lacks '%s'%s%s\n", name, msg, w1 ? w1 : "", w2 ? " / " : "", w2 ? w2 : "");
    else if (!wrote_ok)
        printf("FAIL %s: an output was written\n", name);
    else {
        printf("ok %s\n", name);
        return 1;
    }
    return 0;
}

static const midint_expr_desc *find_expr(int want_two_outputs, int want_wide)
{
    for (size_t i = 0; i < midint_expr_count(); i++) {
        const midint_expr_desc *d = midint_expr_info(i);
        int wide = 0;
        for (unsigned j = 0; j < d->noutputs; j++)
            wide |= d->output_words[j] == 2;
        if ((!want_two_outputs || d->noutputs >= 2) && (!want_wide || wide) && midint_expr_max_bits(ctx, d->name) >= bits)
            return d;
    }
    return NULL;
}

/* A host call of d with the buffers hout/hin, `tweak` applied to the pointer arrays first. */
static midint_status host_call(const midint_expr_desc *d, const char *name, size_t count, unsigned b, size_t nout,
                               size_t nin, void (*tweak)(void **o, const void **in))
{
    void *o[8];
    const void *in[8];
    for (int i = 0; i < 8; i++) {
        o[i] = hout[i];
        in[i] = hin[i];
    }
    if (tweak)
        tweak(o, in);
    poison(d);
    return midint_expr(ctx, name, count, b, nout, o, nin, in);
}

static void t_null_out0(void **o, const void **in) { (void)in; o[0] = NULL; }
static void t_null_in1(void **o, const void **in) { (void)o; in[1] = NULL; }
static void t_out_over_in(void **o, const void **in) { o[0] = (uint32_t *)in[0] + 1; }
static void t_out_is_in(void **o, const void **in) { o[0] = (void *)in[0]; }
static void t_out_is_in_last(void **o, const void **in) { o[0] = (void *)in[1]; }
static void t_out1_over_out0(void **o, const void **in) { (void)in; o[1] = (uint32_t *)o[0] + 3; }
static void t_out1_is_out0(void **o, const void **in) { (void)in; o[1] = o[0]; }

#define CHECKS(X)                                                                                                      \
    X(listing) X(find) X(max_bits_unknown) X(null_ctx) X(null_name) X(unknown_name) X(wrong_inputs) X(wrong_outputs)  \
    X(async_pageable_refused)                                                                                        \
    X(null_outputs_array) X(null_inputs_array) X(null_output) X(null_input) X(count_0) X(bits_0) X(bits_33)            \
    X(bits_above_max) X(overlap_output_input_plus_1) X(in_place_output_is_input) X(in_place_output_is_last_input)      \
    X(overlap_outputs) X(same_outputs) X(wide_output_in_place_refused) X(device_null_output) X(device_bits_above_max)  \
    X(device_buffer_too_small) X(device_same_outputs) X(force_variant) X(forced_variant_too_small)

static int c_listing(void)
{
    int ok = midint_expr_count() >= 1 && midint_expr_info(midint_expr_count()) == NULL;
    for (size_t i = 0; ok && i < midint_expr_count(); i++) {
        const midint_expr_desc *d = midint_expr_info(i);
        ok = d && d->name && d->ninputs >= 1 && d->noutputs >= 1 && d->program && d->inputs[d->ninputs - 1] &&
             d->outputs[d->noutputs - 1] && (d->output_words[0] == 1 || d->output_words[0] == 2);
    }
    printf(ok ? "ok listing\n" : "FAIL listing: midint_expr_count/midint_expr_info inconsistent\n");
    return ok;
}
static int c_find(void)
{
    int ok = midint_expr_find(first->name) == first && !midint_expr_find("no_such_expr") && !midint_expr_find(NULL);
    printf(ok ? "ok find\n" : "FAIL find: midint_expr_find\n");
    return ok;
}
static int c_max_bits_unknown(void)
{
    int ok = midint_expr_max_bits(ctx, "no_such_expr") == 0 && midint_expr_max_bits(NULL, first->name) == 0 &&
             midint_expr_max_bits(ctx, first->name) >= bits;
    printf(ok ? "ok max_bits_unknown\n" : "FAIL max_bits_unknown\n");
    return ok;
}
static int c_null_ctx(void)
{
    void *o[8] = {hout[0]};
    const void *in[8] = {hin[0], hin[1]};
    midint_status st = midint_expr(NULL, first->name, COUNT, bits, first->noutputs, o, first->ninputs, in);
    const char *msg = midint_last_error(NULL);
    int ok = st == MIDINT_ERR_NULL_POINTER && strstr(msg, "ctx is NULL");
    printf(ok ? "ok null_ctx\n" : "FAIL null_ctx: %s %s\n", midint_status_name(st), msg);
    return ok;
}
static int c_null_name(void)
{
    return expect("null_name", host_call(first, NULL, COUNT, bits, first->noutputs, first->ninputs, NULL),
                  MIDINT_ERR_NULL_POINTER, "name is NULL", NULL, first);
}
static int c_unknown_name(void)
{
    return expect("unknown_name", host_call(first, "nosuch", COUNT, bits, first->noutputs, first->ninputs, NULL),
                  MIDINT_ERR_INVALID_ARGUMENT, "no expression named 'nosuch'", first->name, first);
}
static int c_wrong_inputs(void)
{
    return expect("wrong_inputs", host_call(first, first->name, COUNT, bits, first->noutputs, first->ninputs + 1, NULL),
                  MIDINT_ERR_INVALID_ARGUMENT, "input", "the call gives", first);
}
static int c_wrong_outputs(void)
{
    return expect("wrong_outputs", host_call(first, first->name, COUNT, bits, 0, first->ninputs, NULL),
                  MIDINT_ERR_INVALID_ARGUMENT, "output", "the call gives 0", first);
}
static int c_async_pageable_refused(void)
{
    void *o[8];
    const void *in[8];
    for (int i = 0; i < 8; i++) {
        o[i] = hout[i];
        in[i] = hin[i];
    }
    poison(first);
    return expect("async_pageable_refused", midint_expr_async(ctx, first->name, COUNT, bits, first->noutputs, o,
                                                              first->ninputs, in, NULL),
                  MIDINT_ERR_INVALID_ARGUMENT, "page-locked", "midint_expr_async", first);
}
static int c_null_outputs_array(void)
{
    const void *in[8] = {hin[0], hin[1], hin[2], hin[3]};
    poison(first);
    return expect("null_outputs_array", midint_expr(ctx, first->name, COUNT, bits, first->noutputs, NULL,
                  first->ninputs, in), MIDINT_ERR_NULL_POINTER, "outputs is NULL", NULL, first);
}
static int c_null_inputs_array(void)
{
    void *o[8] = {hout[0], hout[1], hout[2], hout[3]};
    poison(first);
    return expect("null_inputs_array", midint_expr(ctx, first->name, COUNT, bits, first->noutputs, o, first->ninputs,
                  NULL), MIDINT_ERR_NULL_POINTER, "inputs is NULL", NULL, first);
}
static int c_null_output(void)
{
    return expect("null_output", host_call(first, first->name, COUNT, bits, first->noutputs, first->ninputs,
                  t_null_out0), MIDINT_ERR_NULL_POINTER, "outputs[0]", first->outputs[0], NULL);
}
static int c_null_input(void)
{
    if (first->ninputs < 2) {
        printf("skip null_input: %s has one input\n", first->name);
        return 1;
    }
    return expect("null_input", host_call(first, first->name, COUNT, bits, first->noutputs, first->ninputs, t_null_in1),
                  MIDINT_ERR_NULL_POINTER, "inputs[1]", first->inputs[1], first);
}
static int c_count_0(void)
{
    return expect("count_0", host_call(first, first->name, 0, bits, first->noutputs, first->ninputs, NULL),
                  MIDINT_ERR_INVALID_COUNT, "count", NULL, first);
}
static int c_bits_0(void)
{
    return expect("bits_0", host_call(first, first->name, COUNT, 0, first->noutputs, first->ninputs, NULL),
                  MIDINT_ERR_INVALID_BITS, "bits", NULL, first);
}
static int c_bits_33(void)
{
    return expect("bits_33", host_call(first, first->name, COUNT, 33, first->noutputs, first->ninputs, NULL),
                  MIDINT_ERR_INVALID_BITS, "bits is 33", NULL, first);
}
static int c_bits_above_max(void)
{
    unsigned max = midint_expr_max_bits(ctx, first->name);
    return expect("bits_above_max", host_call(first, first->name, 1, max + 32, first->noutputs, first->ninputs, NULL),
                  MIDINT_ERR_BITS_TOO_LARGE, "largest size", "make gen", first);
}
static int c_overlap_output_input_plus_1(void)
{
    return expect("overlap_output_input_plus_1", host_call(first, first->name, COUNT, bits, first->noutputs,
                  first->ninputs, t_out_over_in), MIDINT_ERR_OVERLAP, "overlaps inputs[0]", NULL, first);
}
static int in_place(const char *name, void (*tweak)(void **, const void **), int which)
{
    if (first->output_words[0] != 1 || (size_t)which >= first->ninputs) {
        printf("skip %s: %s's first output is twice as wide or it lacks that input\n", name, first->name);
        return 1;
    }
    size_t words = (size_t)COUNT * bits / 32;
    uint32_t *copy = malloc(words * 4), *want = malloc(words * 4 * 2);
    memcpy(copy, hin[which], words * 4);
    /* the answer from separate buffers first */
    midint_status st = host_call(first, first->name, COUNT, bits, first->noutputs, first->ninputs, NULL);
    memcpy(want, hout[0], words * 4);
    if (st == MIDINT_OK)
        st = host_call(first, first->name, COUNT, bits, first->noutputs, first->ninputs, tweak);
    int ok = st == MIDINT_OK && memcmp(hin[which], want, words * 4) == 0;
    memcpy(hin[which], copy, words * 4);
    free(copy);
    free(want);
    printf(ok ? "ok %s\n" : "FAIL %s: in-place result differs (%s)\n", name, midint_last_error(ctx));
    return ok;
}
static int c_in_place_output_is_input(void) { return in_place("in_place_output_is_input", t_out_is_in, 0); }
static int c_in_place_output_is_last_input(void) { return in_place("in_place_output_is_last_input", t_out_is_in_last, 1); }
/* outputs[1] placed over outputs[0] by `tweak`: refused with MIDINT_ERR_OVERLAP, nothing written. */
static int outputs_overlap(const char *name, void (*tweak)(void **o, const void **in))
{
    const midint_expr_desc *d = find_expr(1, 0);
    if (!d) {
        printf("skip %s: no generated expression has two outputs\n", name);
        return 1;
    }
    return expect(name, host_call(d, d->name, COUNT, bits, d->noutputs, d->ninputs, tweak), MIDINT_ERR_OVERLAP,
                  "overlaps outputs[1]", NULL, d);
}
static int c_overlap_outputs(void) { return outputs_overlap("overlap_outputs", t_out1_over_out0); }
static int c_same_outputs(void) { return outputs_overlap("same_outputs", t_out1_is_out0); }
static int c_wide_output_in_place_refused(void)
{
    const midint_expr_desc *d = find_expr(0, 1);
    if (!d) {
        printf("skip wide_output_in_place_refused: no generated expression has an output of twice the width\n");
        return 1;
    }
    unsigned j = 0;
    while (d->output_words[j] != 2)
        j++;
    void *o[8];
    const void *in[8];
    for (int i = 0; i < 8; i++) {
        o[i] = hout[i];
        in[i] = hin[i];
    }
    /* input 0 in a buffer with room for the wide output, which is given the same buffer */
    uint32_t *room = calloc((size_t)COUNT * bits / 32 * 2, 4);
    in[0] = room;
    o[j] = room;
    poison(d);
    int ok = expect("wide_output_in_place_refused", midint_expr(ctx, d->name, COUNT, bits, d->noutputs, o, d->ninputs,
                    in), MIDINT_ERR_OVERLAP, "twice the width", NULL, d);
    free(room);
    return ok;
}
/* Device calls on buffers of `bytes` each (outputs poisoned), `tweak` applied; the outputs read back unchanged. */
static int device_check(const char *name, const midint_expr_desc *d, unsigned b, size_t bytes,
                        void (*tweak)(void **o, const void **in), midint_status want, const char *w1)
{
    void *o[8] = {0}, *buf[16] = {0};
    const void *in[8] = {0};
    size_t words = (size_t)COUNT * bits / 32 * 2;
    uint32_t *p = malloc(words * 4);
    for (size_t k = 0; k < words; k++)
        p[k] = POISON;
    int ok = 1;
    for (unsigned i = 0; i < d->noutputs + d->ninputs && ok; i++)
        ok = midint_buffer_alloc(ctx, bytes, &buf[i]) == MIDINT_OK && midint_buffer_write(ctx, buf[i], p, bytes) == MIDINT_OK;
    for (unsigned i = 0; i < d->noutputs; i++)
        o[i] = buf[i];
    for (unsigned i = 0; i < d->ninputs; i++)
        in[i] = buf[d->noutputs + i];
    if (tweak)
        tweak(o, in);
    midint_status st = ok ? midint_expr_device(ctx, d->name, COUNT, b, d->noutputs, o, d->ninputs, in, NULL)
                          : MIDINT_ERR_DEVICE;
    int same = 1;
    midint_synchronize(ctx, NULL);
    for (unsigned i = 0; i < d->noutputs && ok; i++) {
        memset(p, 0, bytes);
        if (buf[i] && midint_buffer_read(ctx, p, buf[i], bytes) == MIDINT_OK)
            for (size_t k = 0; k < bytes / 4; k++)
                same &= p[k] == POISON;
    }
    for (unsigned i = 0; i < 16; i++)
        midint_buffer_free(ctx, buf[i]);
    free(p);
    return expect(name, st, want, w1, NULL, same ? NULL : &bad_marker);
}
static void t_dev_null_out(void **o, const void **in) { (void)in; o[0] = NULL; }
static void t_dev_same_out(void **o, const void **in) { (void)in; o[1] = o[0]; }
static int c_device_null_output(void)
{
    return device_check("device_null_output", first, bits, (size_t)COUNT * bits / 32 * 8, t_dev_null_out,
                        MIDINT_ERR_NULL_POINTER, "outputs[0]");
}
static int c_device_bits_above_max(void)
{
    return device_check("device_bits_above_max", first, midint_expr_max_bits(ctx, first->name) + 32,
                        (size_t)COUNT * bits / 32 * 8, NULL, MIDINT_ERR_BITS_TOO_LARGE, "largest size");
}
static int c_device_buffer_too_small(void)
{
    if (midint_context_backend(ctx) != MIDINT_BACKEND_OPENCL) {
        printf("skip device_buffer_too_small: only OpenCL buffers know their size\n");
        return 1;
    }
    return device_check("device_buffer_too_small", first, bits, (size_t)COUNT * bits / 32 * 4 - 4, NULL,
                        MIDINT_ERR_INVALID_ARGUMENT, "holds");
}
static int c_device_same_outputs(void)
{
    const midint_expr_desc *d = find_expr(1, 0);
    if (!d) {
        printf("skip device_same_outputs: no generated expression has two outputs\n");
        return 1;
    }
    return device_check("device_same_outputs", d, bits, (size_t)COUNT * bits / 32 * 8, t_dev_same_out,
                        MIDINT_ERR_OVERLAP, "overlaps outputs[1]");
}
/* The first variant of the first expression on this backend, and the smallest size generated for it. */
static const char *expr_variant(unsigned *vbits, unsigned smallest)
{
    const char *best = NULL;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "expr_%s_", first->name);
    const char *be = midint_context_backend(ctx) == MIDINT_BACKEND_CUDA ? "_cuda" : "_opencl";
    for (size_t i = 0; i < midint_variant_count(); i++) {
        const char *nm = midint_variant_name(i);
        size_t len = strlen(nm), bl = strlen(be);
        unsigned b = (unsigned)strtoul(nm + strlen(prefix), NULL, 10);
        if (strncmp(nm, prefix, strlen(prefix)) == 0 && len > bl && strcmp(nm + len - bl, be) == 0 &&
            (!best || (smallest ? b < *vbits : b > *vbits))) {
            best = nm;
            *vbits = b;
        }
    }
    return best;
}
static int c_force_variant(void)
{
    unsigned vb = 0;
    const char *name = expr_variant(&vb, 0);
    midint_status st = midint_force_variant(ctx, name);
    const char *sel = midint_expr_selected_variant(ctx, first->name, vb, 100);
    int ok = st == MIDINT_OK && sel && strcmp(sel, name) == 0;
    midint_force_variant(ctx, NULL);
    printf(ok ? "ok force_variant\n" : "FAIL force_variant: %s selected %s (%s)\n", name, sel ? sel : "none",
           midint_last_error(ctx));
    return ok;
}
static int c_forced_variant_too_small(void)
{
    unsigned vb = 0, maxb = midint_expr_max_bits(ctx, first->name);
    const char *name = expr_variant(&vb, 1);
    if (vb >= maxb) {
        printf("skip forced_variant_too_small: only one %s size is generated (%u bits)\n", first->name, vb);
        return 1;
    }
    midint_force_variant(ctx, name);
    /* one instance just above the forced variant's size: refused at dispatch, before any buffer is touched */
    int ok = expect("forced_variant_too_small", host_call(first, first->name, 1, vb + 32, first->noutputs,
                    first->ninputs, NULL), MIDINT_ERR_UNKNOWN_VARIANT, "forced", NULL, first);
    midint_force_variant(ctx, NULL);
    return ok;
}

#define DECLARE_NAME(x) #x,
#define DECLARE_FN(x) c_##x,
static const char *const names[] = {CHECKS(DECLARE_NAME)};
static int (*const fns[])(void) = {CHECKS(DECLARE_FN)};

int main(int argc, char **argv)
{
    midint_backend backend = MIDINT_BACKEND_AUTO;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--list") == 0) {
            for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
                printf("%s\n", names[k]);
            return 0;
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            i++;
            backend = strcmp(argv[i], "cuda") == 0 ? MIDINT_BACKEND_CUDA : MIDINT_BACKEND_OPENCL;
        }
    if (midint_open(&ctx, backend, 0) != MIDINT_OK) {
        fprintf(stderr, "%s\n", midint_last_error(NULL));
        return 2;
    }
    if (midint_expr_count() == 0 || !(first = midint_expr_info(0)) || midint_expr_max_bits(ctx, first->name) == 0) {
        fprintf(stderr, "no expression is generated for this backend (make gen EXPRS=...)\n");
        midint_close(ctx);
        return 2;
    }
    bits = midint_expr_max_bits(ctx, first->name);
    for (size_t i = 0; i < midint_expr_count(); i++) { /* a size every expression serves, for the multi-output checks */
        unsigned m = midint_expr_max_bits(ctx, midint_expr_info(i)->name);
        if (m && m < bits)
            bits = m;
    }
    if (bits > MAXW * 16)
        bits = MAXW * 16;
    size_t words = (size_t)COUNT * bits / 32;
    for (int i = 0; i < 8; i++) {
        hin[i] = malloc(words * 4);
        hout[i] = malloc(words * 2 * 4);
        for (size_t k = 0; k < words; k++)
            hin[i][k] = (uint32_t)(k * 2654435761u + i);
    }
    int fails = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        fails += !fns[k]();
        fflush(stdout);
    }
    for (int i = 0; i < 8; i++) {
        free(hin[i]);
        free(hout[i]);
    }
    midint_close(ctx);
    return fails ? 1 : 0;
}
