/* sort.h — an in-place sort for the profiler's own arrays. qsort may allocate from the program's
 * heap, which a report written while another thread holds the malloc lock must not do. */
#ifndef HP_SORT_H
#define HP_SORT_H

#include <stddef.h>

void hp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
