/* sort.c — heapsort: O(n log n) always, no memory beyond the array (and a small buffer on the
 * stack for the swaps). */
#include "sort.h"

#include <string.h>

/* Through the buffer a block at a time: the rows reports sort are kilobytes (a lock row's frame
 * names), and a byte at a time made sorting 18 of them some 300 us of a report. */
static void swap(unsigned char *a, unsigned char *b, size_t size)
{
    unsigned char t[256];
    while (size > 0) {
        size_t n = size < sizeof t ? size : sizeof t;
        memcpy(t, a, n);
        memcpy(a, b, n);
        memcpy(b, t, n);
        a += n;
        b += n;
        size -= n;
    }
}

static void sift_down(unsigned char *base, size_t root, size_t n, size_t size,
                      int (*cmp)(const void *, const void *))
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size) < 0) child++;
        if (cmp(base + root * size, base + child * size) >= 0) return;
        swap(base + root * size, base + child * size, size);
        root = child;
    }
}

void hp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    unsigned char *b = base;
    if (n < 2) return;
    for (size_t i = n / 2; i-- > 0;) sift_down(b, i, n, size, cmp);
    for (size_t end = n - 1; end > 0; end--) {
        swap(b, b + end * size, size);
        sift_down(b, 0, end, size, cmp);
    }
}
