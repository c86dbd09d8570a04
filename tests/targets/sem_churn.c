/* sem_churn.c — posts and waits on one semaphore for about SECONDS (argument, default 0.3) of
 * CPU: time in sem_post and sem_wait, whose names in glibc's full symbol table carry their
 * version (sem_post@@GLIBC_2.34). Prints the number of rounds. */
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.3, start = cpu_seconds();
    sem_t s;
    sem_init(&s, 0, 0);
    long rounds = 0;
    while (cpu_seconds() - start < seconds) {
        for (int i = 0; i < 10000; i++) {
            sem_post(&s);
            sem_wait(&s);
        }
        rounds++;
    }
    printf("%ld\n", rounds);
    return 0;
}
