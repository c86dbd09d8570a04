/* libc_churn.c — keeps glibc itself busy for about SECONDS of CPU (default 0.5) in functions
 * whose names only glibc's full symbol table (its debug file) gives as reports should show them:
 *
 *   libc_churn malloc [SECONDS]   blocks above tcache's largest size (1032 bytes) freed out of
 *                                 order: every call runs glibc's static _int_malloc and _int_free
 *   libc_churn sem [SECONDS]      sem_post and sem_wait on one semaphore, named there only with
 *                                 their version (sem_post@@GLIBC_2.34)
 *
 * Prints the number of rounds. */
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCKS 1024

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void malloc_round(void)
{
    static void *blocks[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) blocks[i] = malloc(1100 + (size_t)(i * 7919 % 3000));
    for (int i = 0; i < BLOCKS; i += 2) free(blocks[i]);
    for (int i = 1; i < BLOCKS; i += 2) free(blocks[i]);
}

static void sem_round(void)
{
    static sem_t s;
    static int made;
    if (!made) made = sem_init(&s, 0, 0) == 0;
    for (int i = 0; i < 10000; i++) {
        sem_post(&s);
        sem_wait(&s);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "malloc") != 0 && strcmp(argv[1], "sem") != 0)) {
        fprintf(stderr, "usage: libc_churn malloc|sem [SECONDS]\n");
        return 2;
    }
    void (*round)(void) = strcmp(argv[1], "malloc") == 0 ? malloc_round : sem_round;
    double seconds = argc > 2 ? atof(argv[2]) : 0.5, start = cpu_seconds();
    long rounds = 0;
    while (cpu_seconds() - start < seconds) {
        round();
        rounds++;
    }
    printf("%ld\n", rounds);
    return 0;
}
