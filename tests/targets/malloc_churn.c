/* malloc_churn.c — keeps glibc's allocator itself busy for about SECONDS (argument, default 0.5)
 * of CPU: blocks above tcache's largest size (1032 bytes) freed out of order, so that every call
 * runs glibc's internal _int_malloc and _int_free, functions only its full symbol table names.
 * Prints the number of rounds. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BLOCKS 1024

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.5, start = cpu_seconds();
    static void *blocks[BLOCKS];
    long rounds = 0;
    while (cpu_seconds() - start < seconds) {
        for (int i = 0; i < BLOCKS; i++) blocks[i] = malloc(1100 + (size_t)(i * 7919 % 3000));
        for (int i = 0; i < BLOCKS; i += 2) free(blocks[i]);
        for (int i = 1; i < BLOCKS; i += 2) free(blocks[i]);
        rounds++;
    }
    printf("%ld\n", rounds);
    return 0;
}
