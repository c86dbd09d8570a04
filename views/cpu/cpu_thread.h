/* cpu_thread.h — the CPU profile's fields in each thread's state (struct hp_thread,
 * core/thread_state.h): a flag in the first cache line, the ring and stack bound in the last.
 * Field declarations only. */
#ifndef HP_CPU_THREAD_H
#define HP_CPU_THREAD_H

#include <stdint.h>

struct hp_cpu_buf;

#define HP_CPU_THREAD_FIRST_LINE                                                                \
    unsigned char in_cpu_sample;        /* the CPU profile's handler takes a stack: no waiting (dl.c) */

#define HP_CPU_THREAD_FIELDS                                                                    \
    struct hp_cpu_buf *cpu_buf;  /* the ring this thread's SIGPROF handler writes, or NULL */    \
    uintptr_t stack_lo;          /* the lowest address of the thread's stack, 0 unknown (cpu_profile.c) */

#endif
