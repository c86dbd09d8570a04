/* locks_section.h — naming one lock outside the locks sections (the threads section names the
 * lock a thread is blocked on). */
#ifndef HP_LOCKS_SECTION_H
#define HP_LOCKS_SECTION_H

#include <stddef.h>

/* The report name of a struct hp_lock (symbol, first-lock stack, or address) and its kind
 * ("mutex", "rw_lock", "cond"). */
void hp_lock_describe(const void *lock, char *name, size_t size, const char **kind);

struct hp_json;
/* key: {"kind", "name", "address"} of a struct hp_lock, or null when lock is NULL. */
void hp_lock_json(struct hp_json *j, const char *key, const void *lock);

#endif
