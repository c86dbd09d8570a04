/* stacks.h — a table of call stacks (docs/DESIGN.md rule 8): preallocated, page-backed, open
 * addressing keyed by the stack's hash and a tag (the thread's index for the CPU profile), CAS
 * insert, no lock. A stack that finds the table (or its frame store) full is counted in the one
 * `<other>` entry. Entries are never removed (a fork child resets the whole table). */
#ifndef HP_STACKS_H
#define HP_STACKS_H

#include <stdatomic.h>
#include <stdint.h>

#define HP_STACK_MAX_DEPTH 128

struct hp_stack {
    uint64_t hash;
    uint32_t tag;                  /* what else the key holds (a thread index) */
    uint32_t depth;                /* frames, innermost first */
    uintptr_t *frames;             /* return addresses; the innermost is the exact pc + 1 */
    _Atomic uint64_t count;        /* samples (or any weight) added to this stack */
    _Atomic int ready;             /* 1 once hash, tag, depth and frames are written */
};

struct hp_stacks {
    uint32_t slots_mask;           /* slots - 1 (a power of two) */
    uint32_t max_entries;
    _Atomic uint32_t *slots;       /* entry index + 1, 0 = empty */
    struct hp_stack *entries;
    _Atomic uint64_t used;         /* entries handed out */
    uintptr_t *store;              /* every entry's frames */
    uint64_t store_words;
    _Atomic uint64_t store_used;
    _Atomic uint64_t other;        /* weight of the stacks that found no room */
};

/* Make a table of `slots` (a power of two) slots and 3/4 as many entries with room for
 * `avg_depth` frames each on average; 0, or -1 when the memory cannot be had. t lives as long as
 * the process: the memory count reads its fill counts (hp_pages_filled). */
int hp_stacks_init(struct hp_stacks *t, uint32_t slots, uint32_t avg_depth);
/* The entry of (tag, frames), made if new: its index, or HP_STACK_OTHER when the table (or its
 * frame store) is full. Adds no weight. Safe from any thread. */
#define HP_STACK_OTHER UINT32_MAX
uint32_t hp_stacks_entry(struct hp_stacks *t, uint32_t tag, const uintptr_t *frames, uint32_t depth);
/* Add weight to (tag, frames); 0, or 1 when it went to `<other>`. Safe from any thread. */
int hp_stacks_add(struct hp_stacks *t, uint32_t tag, const uintptr_t *frames, uint32_t depth,
                  uint64_t weight);
/* Entries handed out so far (some may not be ready yet: check ->ready). */
uint32_t hp_stacks_count(struct hp_stacks *t);
/* Frames stored so far, all entries together: at most this many distinct addresses to name. */
uint64_t hp_stacks_frames(struct hp_stacks *t);
/* Empty the table (a fork child, where no other thread runs). */
void hp_stacks_reset(struct hp_stacks *t);
uint64_t hp_stack_hash(uint32_t tag, const uintptr_t *frames, uint32_t depth);

#endif
