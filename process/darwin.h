/* darwin.h — what the macOS hooks share: how a hook is installed (dyld's __DATA,__interpose
 * section: pairs of replacement and original that dyld binds in every other image), and the
 * calling thread's state when its operations count. A call made from libhotpath.dylib itself is
 * never interposed, so a hook reaches the real function by its own name. */
#ifndef HP_DARWIN_H
#define HP_DARWIN_H

#include <stdint.h>

#include "core/thread_state.h"

/* The pair is exported: zig's linker dead-strips a local one, "used" or not. */
#define HP_INTERPOSE(replacement, original)                                                      \
    __attribute__((used, visibility("default"), section("__DATA,__interpose"))) const struct {  \
        const void *with, *what;                                                                 \
    } hp_interpose_##original = { (const void *)(uintptr_t)&(replacement),                     \
                                  (const void *)(uintptr_t)&(original) }

/* 1 once the profiler runs; until the constructor has made the thread key, hooks pass through. */
extern int hp_active;
extern int hp_pid;
/* The state of a thread being adopted, or whose end was seen: guard set, so what it allocates
 * meanwhile is not counted and does not adopt it (again). */
extern struct hp_thread hp_busy_state;

/* A thread's first counted operation: give it a state and a record. */
struct hp_thread *hp_adopt_self(void);
/* The thread key's destructor: the thread ends (threads_darwin.c). */
void hp_thread_ends(void *state);

static inline struct hp_thread *hp_counting_thread(void)
{
    if (__builtin_expect(!hp_active, 0)) return 0;
    struct hp_thread *t = hp_self;
    if (__builtin_expect(t != 0, 1)) return t->guard ? 0 : t;
    return hp_adopt_self();
}

#endif
