/* tuning.c — tuned dispatch tables: parse, check against the device and registry, look up a call. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"

/* Format 1: the whole table names the registry it was tuned against and is refused when that changed.
 * Format 2: each row also names its (op, bits) pair's candidate-set hash (registry.h, midint_candidate_sets);
 * rows whose pair's candidates changed are dropped and only that pair falls back to the default rule. */
#define TUNING_FORMAT_MIN 1
#define TUNING_FORMAT_MAX 2

/* One line of a table: calls of `op` at sizes up to `bits` with count in [min_count, max_count] use v.
 * v == NULL (format 2): a marker for a pair the table does not serve (its candidates changed, or it was not
 * tuned), so that calls whose smallest generated size is this pair go to the default rule rather than to a
 * larger size's row. */
typedef struct tuning_entry {
    midint_op op;
    uint32_t bits;
    uint64_t min_count, max_count;
    const midint_variant *v;
} tuning_entry;

/* What a format-2 table's rows of one (op, bits) pair came to. */
typedef enum pair_fate { PAIR_TAKEN, PAIR_CHANGED, PAIR_ABSENT } pair_fate;

typedef struct table_pair {
    char op[32];
    uint32_t bits;
    char hash[17];
    pair_fate fate;
} table_pair;

typedef struct midint_tuning {
    tuning_entry *entries;
    size_t n, cap;
    size_t rows;        /* entries read from the file (markers excluded) */
    int version;
    size_t taken, changed, absent, untuned; /* format 2: pairs used, dropped (candidates changed), not generated
                                               here, generated here but not in the table */
} midint_tuning;

void midint_tuning_free(midint_tuning *t)
{
    if (t) {
        free(t->entries);
        free(t);
    }
}

static int parse_op_name(const char *s, midint_op *op)
{
    return midint_op_from_name(s, op); /* the public operations and the generated expressions (expr_NAME) */
}

/* Strip the newline and trailing blanks; return 1 for a line that carries content. */
static int content(char *line)
{
    size_t len = strcspn(line, "\r\n");
    while (len && isspace((unsigned char)line[len - 1]))
        len--;
    line[len] = '\0';
    return len && line[0] != '#';
}

static int add_entry(midint_tuning *t, tuning_entry e)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        tuning_entry *grown = realloc(t->entries, cap * sizeof *grown);
        if (!grown)
            return 0;
        t->entries = grown;
        t->cap = cap;
    }
    t->entries[t->n++] = e;
    return 1;
}

static int is_hash(const char *s)
{
    size_t k = 0;
    while (isxdigit((unsigned char)s[k]) && !isupper((unsigned char)s[k]))
        k++;
    return k == 16 && s[k] == '\0';
}

/* The pair (op_s, bits) among `pairs`, added with `hash` and `fate` when new; NULL when out of memory. */
static table_pair *find_pair(table_pair **pairs, size_t *n, size_t *cap, const char *op_s, uint32_t bits,
                             const char *hash, pair_fate fate)
{
    for (size_t i = 0; i < *n; i++)
        if ((*pairs)[i].bits == bits && strcmp((*pairs)[i].op, op_s) == 0)
            return &(*pairs)[i];
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        table_pair *grown = realloc(*pairs, c * sizeof *grown);
        if (!grown)
            return NULL;
        *pairs = grown;
        *cap = c;
    }
    table_pair *p = &(*pairs)[(*n)++];
    snprintf(p->op, sizeof p->op, "%s", op_s);
    p->bits = bits;
    snprintf(p->hash, sizeof p->hash, "%.16s", hash);
    p->fate = fate;
    return p;
}

/* Format 2, after the rows: count the pairs' fates and add a marker (an entry without a variant) for every pair of
 * this build the table does not serve, so that those sizes keep the default rule. */
static int finish_v2(midint_tuning *t, const table_pair *pairs, size_t npairs)
{
    for (size_t i = 0; i < npairs; i++)
        *(pairs[i].fate == PAIR_TAKEN ? &t->taken : pairs[i].fate == PAIR_CHANGED ? &t->changed : &t->absent) += 1;
    for (size_t i = 0; i < midint_candidate_set_count; i++) {
        const midint_candidate_set *c = &midint_candidate_sets[i];
        const char *op_s = midint_op_name(c->op);
        int served = 0, mentioned = 0;
        for (size_t j = 0; op_s && j < npairs; j++)
            if (pairs[j].bits == c->bits && strcmp(pairs[j].op, op_s) == 0)
                mentioned = 1, served = pairs[j].fate == PAIR_TAKEN;
        if (!mentioned)
            t->untuned++;
        if (!served && !add_entry(t, (tuning_entry){c->op, c->bits, 1, UINT64_MAX, NULL}))
            return 0;
    }
    return 1;
}

/* Parse `path` for ctx into *out; on failure `why` says what and where. */
static int parse_table(const midint_context *ctx, const char *path, midint_tuning **out, char *why, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, len, "cannot open %.400s", path);
        return 0;
    }
    midint_tuning *t = calloc(1, sizeof *t);
    table_pair *pairs = NULL;
    size_t npairs = 0, pairs_cap = 0;
    char line[512];
    int lineno = 0, have_version = 0, have_device = 0, have_registry = 0, ok = t != NULL;
    if (!t)
        snprintf(why, len, "out of host memory");
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        if (!content(line))
            continue;
        if (!have_version) {
            int version = 0;
            char extra;
            if (sscanf(line, "midint-tuning %d %c", &version, &extra) != 1)
                ok = 0, snprintf(why, len, "%.200s:%d: expected the header 'midint-tuning %d'", path, lineno,
                                 TUNING_FORMAT_MAX);
            else if (version < TUNING_FORMAT_MIN || version > TUNING_FORMAT_MAX)
                ok = 0, snprintf(why, len, "%.200s:%d: format version %d, this library reads versions %d to %d", path,
                                 lineno, version, TUNING_FORMAT_MIN, TUNING_FORMAT_MAX);
            t->version = version;
            have_version = 1;
        } else if (strncmp(line, "device ", 7) == 0) {
            if (strcmp(line + 7, ctx->device_name) != 0)
                ok = 0, snprintf(why, len, "%.200s:%d: made for device '%.100s', this is '%.100s'", path, lineno, line + 7,
                                 ctx->device_name);
            have_device = 1;
        } else if (strncmp(line, "registry ", 9) == 0) {
            /* format 2 keeps the line for the record: its rows say which of them still hold */
            if (t->version == 1 && strcmp(line + 9, midint_registry_hash) != 0)
                ok = 0, snprintf(why, len, "%.200s:%d: made against registry %.40s, this library's is %s (the generated "
                                 "variants changed: run make tune again, or for a table of format 1 made against "
                                 "this build, tuning/tune.py --upgrade)", path, lineno, line + 9, midint_registry_hash);
            have_registry = 1;
        } else {
            char op_s[32], bits_s[16], min_s[24], max_s[24], name[128], hash[24], extra[2];
            tuning_entry e;
            char *end;
            int fields = sscanf(line, "%31s %15s %23s %23s %127s %23s %1s", op_s, bits_s, min_s, max_s, name, hash, extra);
            int want = t->version == 1 ? 5 : 6;
            const char *lib_hash = NULL;
            int known_op = 0;
            table_pair *pair = NULL;
            if (!have_device || !have_registry) {
                ok = 0, snprintf(why, len, "%.200s:%d: an entry before the 'device' and 'registry' lines", path, lineno);
            } else if (fields != want) {
                ok = 0, snprintf(why, len, "%.200s:%d: expected 'op bits min_count max_count variant%s', got '%.120s'",
                                 path, lineno, want == 6 ? " candidates" : "", line);
            } else if (!(known_op = parse_op_name(op_s, &e.op)) && t->version == 1) {
                ok = 0, snprintf(why, len, "%.200s:%d: unknown operation '%s'", path, lineno, op_s);
            } else if ((e.bits = (uint32_t)strtoul(bits_s, &end, 10)) == 0 || *end || e.bits % 32) {
                ok = 0, snprintf(why, len, "%.200s:%d: bits '%s' is not a positive multiple of 32", path, lineno, bits_s);
            } else if ((e.min_count = strtoull(min_s, &end, 10)) == 0 || *end) {
                ok = 0, snprintf(why, len, "%.200s:%d: min_count '%s' is not a positive integer", path, lineno, min_s);
            } else if (strcmp(max_s, "*") == 0 ? (e.max_count = UINT64_MAX, 0)
                                                : ((e.max_count = strtoull(max_s, &end, 10)) < e.min_count || *end)) {
                ok = 0, snprintf(why, len, "%.200s:%d: max_count '%s' is neither '*' nor an integer >= min_count", path,
                                 lineno, max_s);
            } else if (t->version == 2 && !is_hash(hash)) {
                ok = 0, snprintf(why, len, "%.200s:%d: candidates '%.23s' is not 16 lower-case hex digits", path, lineno,
                                 hash);
            } else if (t->version == 2 &&
                       !(pair = find_pair(&pairs, &npairs, &pairs_cap, op_s, e.bits, hash,
                                          !(known_op && (lib_hash = midint_candidate_set_hash(e.op, e.bits)))
                                              ? PAIR_ABSENT
                                              : strcmp(lib_hash, hash) ? PAIR_CHANGED : PAIR_TAKEN))) {
                ok = 0, snprintf(why, len, "out of host memory");
            } else if (pair && strcmp(pair->hash, hash) != 0) {
                ok = 0, snprintf(why, len, "%.200s:%d: rows of %s %u name two candidate sets (%s and %s)", path, lineno,
                                 op_s, e.bits, pair->hash, hash);
            } else if (pair && pair->fate != PAIR_TAKEN) {
                /* not generated here, or its candidates changed: the pair keeps the default rule */
            } else if (!(e.v = midint_registry_find(name))) {
                ok = 0, snprintf(why, len, "%.200s:%d: variant '%s' is not in the registry", path, lineno, name);
            } else if (!midint_variant_serves(e.v, e.op, ctx->ops->id, e.bits / 32)) {
                ok = 0, snprintf(why, len, "%.200s:%d: variant '%s' does not serve %s at %u bits on %s", path, lineno,
                                 name, op_s, e.bits, ctx->ops->name);
            } else if (!add_entry(t, e)) {
                ok = 0, snprintf(why, len, "out of host memory");
            } else {
                t->rows++;
            }
        }
    }
    fclose(f);
    if (ok && (!have_version || !have_device || !have_registry))
        ok = 0, snprintf(why, len, "%.300s: missing the %s line", path,
                         !have_version ? "'midint-tuning'" : !have_device ? "'device'" : "'registry'");
    if (ok && t->version == 2 && !finish_v2(t, pairs, npairs))
        ok = 0, snprintf(why, len, "out of host memory");
    free(pairs);
    if (!ok) {
        midint_tuning_free(t);
        return 0;
    }
    *out = t;
    return 1;
}

static void set_status(midint_context *ctx, const char *path)
{
    midint_dispatch_forget(ctx);
    const midint_tuning *t = ctx->tuning;
    if (t && t->version == 1)
        snprintf(ctx->tuning_status, sizeof ctx->tuning_status, "tuned table %.400s (%zu entries)", path ? path : "",
                 t->rows);
    else if (t)
        snprintf(ctx->tuning_status, sizeof ctx->tuning_status,
                 "tuned table %.300s (%zu entries; (op, bits) pairs: %zu from the table, %zu on the default rule as their "
                 "candidates changed, %zu not generated here, %zu not in the table)", path ? path : "", t->rows,
                 t->taken, t->changed, t->absent, t->untuned);
    else
        snprintf(ctx->tuning_status, sizeof ctx->tuning_status, "default rule");
}

midint_status midint_load_tuning(midint_context *ctx, const char *path)
{
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "midint_load_tuning: ctx is NULL");
    if (!path) {
        midint_tuning_free(ctx->tuning);
        ctx->tuning = NULL;
        set_status(ctx, NULL);
        return MIDINT_OK;
    }
    midint_tuning *t = NULL;
    char why[MIDINT_MSG_LEN - 64];
    if (!parse_table(ctx, path, &t, why, sizeof why))
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "midint_load_tuning: table refused: %s", why);
    midint_tuning_free(ctx->tuning);
    ctx->tuning = t;
    set_status(ctx, path);
    return MIDINT_OK;
}

/* The default file for this device: lower-case device name, every other character a '-'. */
static void default_path(const midint_context *ctx, const char *dir, char *out, size_t len)
{
    char slug[256];
    size_t k = 0;
    for (const char *p = ctx->device_name; *p && k + 1 < sizeof slug; p++) {
        char c = (char)tolower((unsigned char)*p);
        if (!isalnum((unsigned char)c))
            c = '-';
        if (c != '-' || (k && slug[k - 1] != '-'))
            slug[k++] = c;
    }
    while (k && slug[k - 1] == '-')
        k--;
    slug[k] = '\0';
    snprintf(out, len, "%.500s/%.200s.tune", dir, slug);
}

/* The folders searched for <device>.tune when MIDINT_TUNING is not set, relative to where this library
 * lies (found at run time, so an installed copy needs no compiled-in prefix): MIDINT_TUNING_DIR, then
 * <libdir>/../share/midint (make install), then <libdir>/../tuning/tables (a build tree). */
static int find_default_table(const midint_context *ctx, char *path, size_t len)
{
    char libdir[400] = "";
    Dl_info info;
    if (dladdr((void *)midint_tuning_init, &info) && info.dli_fname) {
        snprintf(libdir, sizeof libdir, "%s", info.dli_fname);
        char *slash = strrchr(libdir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(libdir, sizeof libdir, ".");
    }
    const char *env = getenv("MIDINT_TUNING_DIR");
    char dirs[3][512];
    size_t ndirs = 0;
    if (env && *env)
        snprintf(dirs[ndirs++], sizeof dirs[0], "%s", env);
    if (libdir[0]) {
        snprintf(dirs[ndirs++], sizeof dirs[0], "%s/../share/midint", libdir);
        snprintf(dirs[ndirs++], sizeof dirs[0], "%s/../tuning/tables", libdir);
    }
    for (size_t i = 0; i < ndirs; i++) {
        default_path(ctx, dirs[i], path, len);
        FILE *probe = fopen(path, "r");
        if (probe) {
            fclose(probe);
            return 1;
        }
    }
    return 0;
}

void midint_tuning_init(midint_context *ctx)
{
    char path[1024], why[MIDINT_MSG_LEN - 64];
    const char *env = getenv("MIDINT_TUNING");
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
    } else if (!find_default_table(ctx, path, sizeof path)) { /* no table for this device: the default rule */
        set_status(ctx, NULL);
        return;
    }
    if (parse_table(ctx, path, &ctx->tuning, why, sizeof why))
        set_status(ctx, path);
    else
        snprintf(ctx->tuning_status, sizeof ctx->tuning_status, "default rule (tuned table refused: %s)", why);
}

const char *midint_tuning_status(const midint_context *ctx)
{
    return ctx ? ctx->tuning_status : "";
}

const midint_variant *midint_tuning_lookup(const midint_context *ctx, midint_op op, uint32_t n, size_t count)
{
    const midint_tuning *t = ctx->tuning;
    const tuning_entry *best = NULL;
    for (size_t i = 0; t && i < t->n; i++) {
        const tuning_entry *e = &t->entries[i];
        /* the smallest tuned size that covers the call, in the call's batch-size range; a marker (format 2: a
         * size the table does not serve) there sends the call to the default rule */
        if (e->op == op && e->bits >= 32u * n && count >= e->min_count && count <= e->max_count &&
            (!e->v || midint_variant_fits(ctx, e->v)) && (!best || e->bits < best->bits))
            best = e;
    }
    return best ? best->v : NULL;
}
