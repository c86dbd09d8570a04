/* thread_self_darwin.c — the pthread key behind hp_self on macOS (thread_state.h). Its destructor
 * is how the profiler learns that a thread ends, whichever way it ends. */
#include "thread_state.h"

pthread_key_t hp_self_key;

int hp_self_key_init(void (*thread_ends)(void *state))
{
    return pthread_key_create(&hp_self_key, thread_ends);
}
