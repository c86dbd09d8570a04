/* ended_cpu.h — watching a process from outside (hotpath-run --pid), the CPU time the readings
 * miss: a thread that ends is last read up to an interval before its end, and one that starts and
 * ends between two passes is never read. The process's CPU clock keeps every ended thread's time;
 * what it holds beyond the readings goes to the threads that ended since the last pass, in the
 * proportion of their last interval's CPU, or, when none did, to the unseen threads' figure. */
#ifndef HP_ENDED_CPU_H
#define HP_ENDED_CPU_H

#include <stdint.h>

struct hp_record;

/* A pass found record number i gone from the process (caller holds the registry lock, before
 * hp_registry_gone). */
void hp_ended_cpu_note(uint32_t i, const struct hp_record *r);
/* After a pass stored its readings: hand out what the process's clock holds beyond them. */
void hp_ended_cpu_settle(void);
/* The CPU of threads never read, so far. */
uint64_t hp_ended_cpu_unseen_ns(void);

#endif
