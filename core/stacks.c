/* stacks.c — see stacks.h. */
#include "stacks.h"

#include <string.h>

#include "memory.h"

uint64_t hp_stack_hash(uint32_t tag, const uintptr_t *frames, uint32_t depth)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)tag << 32) ^ depth;
    for (uint32_t i = 0; i < depth; i++) {
        h ^= (uint64_t)frames[i];
        h *= 0xFF51AFD7ED558CCDull;
        h ^= h >> 33;
    }
    return h ? h : 1;
}

int hp_stacks_init(struct hp_stacks *t, uint32_t slots, uint32_t avg_depth)
{
    memset(t, 0, sizeof *t);
    t->slots_mask = slots - 1;
    t->max_entries = slots / 4 * 3;
    t->store_words = (uint64_t)t->max_entries * avg_depth;
    t->slots = hp_pages(sizeof *t->slots * slots);
    t->entries = hp_pages_filled(sizeof *t->entries * t->max_entries, &t->used, sizeof *t->entries);
    t->store = hp_pages_filled(sizeof *t->store * t->store_words, &t->store_used, sizeof *t->store);
    return t->slots && t->entries && t->store ? 0 : -1;
}

static int same(const struct hp_stack *e, uint64_t hash, uint32_t tag, const uintptr_t *frames,
                uint32_t depth)
{
    return e->hash == hash && e->tag == tag && e->depth == depth &&
           memcmp(e->frames, frames, depth * sizeof *frames) == 0;
}

uint32_t hp_stacks_entry(struct hp_stacks *t, uint32_t tag, const uintptr_t *frames, uint32_t depth)
{
    if (!t->slots) return HP_STACK_OTHER;
    uint64_t hash = hp_stack_hash(tag, frames, depth);
    uint32_t mine = 0;   /* an entry this call filled but has not published in a slot */
    for (uint32_t probe = 0, i = (uint32_t)hash & t->slots_mask; probe <= t->slots_mask;
         probe++, i = (i + 1) & t->slots_mask) {
        uint32_t v = atomic_load_explicit(&t->slots[i], memory_order_acquire);
        if (v == 0) {
            if (!mine) {
                uint64_t e = atomic_fetch_add(&t->used, 1);
                uint64_t at = atomic_fetch_add(&t->store_used, depth);
                if (e >= t->max_entries || at + depth > t->store_words) break;
                struct hp_stack *s = &t->entries[e];
                s->hash = hash;
                s->tag = tag;
                s->depth = depth;
                s->frames = t->store + at;
                memcpy(s->frames, frames, depth * sizeof *frames);
                atomic_store_explicit(&s->ready, 1, memory_order_release);
                mine = (uint32_t)e + 1;
            }
            uint32_t expect = 0;
            if (atomic_compare_exchange_strong(&t->slots[i], &expect, mine)) return mine - 1;
            v = expect;   /* another thread took the slot: is it our stack? */
        }
        struct hp_stack *s = &t->entries[v - 1];
        while (!atomic_load_explicit(&s->ready, memory_order_acquire)) { }
        /* an entry filled by this call and not published stays unused (never ready twice) */
        if (same(s, hash, tag, frames, depth)) return v - 1;
    }
    return HP_STACK_OTHER;
}

int hp_stacks_add(struct hp_stacks *t, uint32_t tag, const uintptr_t *frames, uint32_t depth,
                  uint64_t weight)
{
    uint32_t e = hp_stacks_entry(t, tag, frames, depth);
    if (e == HP_STACK_OTHER) {
        atomic_fetch_add_explicit(&t->other, weight, memory_order_relaxed);
        return 1;
    }
    atomic_fetch_add_explicit(&t->entries[e].count, weight, memory_order_relaxed);
    return 0;
}

uint32_t hp_stacks_count(struct hp_stacks *t)
{
    uint64_t n = atomic_load_explicit(&t->used, memory_order_acquire);
    return n < t->max_entries ? (uint32_t)n : t->max_entries;
}

uint64_t hp_stacks_frames(struct hp_stacks *t)
{
    uint64_t words = atomic_load(&t->store_used);   /* a claim past the end counts too: clamp */
    return words < t->store_words ? words : t->store_words;
}

void hp_stacks_reset(struct hp_stacks *t)
{
    if (!t->slots) return;
    /* page blocks of their own: given back rather than written, so a fork child (the one caller)
     * does not fault in every page of a table its parent barely used; none to give back when no
     * entry was ever claimed (a slot is written only after its entry is counted) */
    uint32_t n = hp_stacks_count(t);
    uint64_t words = hp_stacks_frames(t);
    if (atomic_load(&t->used)) hp_pages_zero((void *)t->slots, sizeof *t->slots * (t->slots_mask + 1));
    if (n) hp_pages_zero(t->entries, sizeof *t->entries * n);
    /* the frames too: the memory count takes the table's filled part as its resident part */
    if (words) hp_pages_zero(t->store, sizeof *t->store * words);
    atomic_store(&t->used, 0);
    atomic_store(&t->store_used, 0);
    atomic_store(&t->other, 0);
}
