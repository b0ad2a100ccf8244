/* registry.c — lookups over the generated variant table and the launch geometry of a variant. */
#include <string.h>

#include "context.h"

const char *midint_op_name(midint_op op)
{
    static const char *const names[MIDINT_OP_COUNT_] = {"add", "sub", "mul", "mullo"};
    return (unsigned)op < MIDINT_OP_COUNT_ ? names[op] : NULL;
}

const midint_variant *midint_registry_find(const char *name)
{
    for (size_t i = 0; i < midint_registry_size; i++)
        if (strcmp(midint_registry[i].name, name) == 0)
            return &midint_registry[i];
    return NULL;
}

uint32_t midint_variant_threads_per_instance(const midint_variant *v, uint32_t n)
{
    if (v->ntt_primes) /* the transform length is fixed: a block is always its ipb instances, shorter ones zero-padded */
        return v->block / v->ipb;
    uint32_t chunk = v->q * v->limb_words;
    return (n + chunk - 1) / chunk;
}

int midint_variant_serves(const midint_variant *v, midint_op op, midint_backend backend, uint32_t n)
{
    return v->op == op && v->backend == backend && n >= 1 && n <= v->bits / 32;
}

void midint_plan_launch(const midint_variant *v, uint32_t n, uint64_t count, void *r, const void *a, const void *b,
                        void *aux, int vec, midint_launch *l)
{
    *l = (midint_launch){0};
    l->r = r;
    l->a = a;
    l->b = b;
    l->aux = aux;
    l->vec = (uint32_t)vec;
    /* The block size is fixed per kernel; a smaller instance needs fewer threads, so more fit a block. */
    l->n = n;
    l->ti = midint_variant_threads_per_instance(v, n);
    l->ipb = v->block / l->ti;
    l->count = count;
    l->grid = (count + l->ipb - 1) / l->ipb;
}

size_t midint_variant_count(void)
{
    return midint_registry_size;
}

const char *midint_variant_name(size_t i)
{
    return i < midint_registry_size ? midint_registry[i].name : NULL;
}

const char *midint_registry_id(void)
{
    return midint_registry_hash;
}
