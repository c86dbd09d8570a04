/* cpu_fork — the CPU profile across fork: the parent burns 0.4 s of CPU in parent_burn on a worker
 * thread, then forks; the child burns 0.4 s in child_burn on its main thread and 0.4 s in
 * child_thread_burn on a thread it creates. Each process reports its own profile. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#define BURNER(name)                                                          \
    static __attribute__((noinline)) void *name(void *arg)                    \
    {                                                                         \
        (void)arg;                                                            \
        volatile uint64_t acc = 0;                                            \
        double start = cpu_seconds();                                         \
        while (cpu_seconds() - start < 0.4)                                   \
            for (int i = 0; i < 200000; i++) acc = acc * 31 + (uint64_t)i;  \
        return NULL;                                                          \
    }

BURNER(parent_burn)
BURNER(child_burn)
BURNER(child_thread_burn)

int main(void)
{
    pthread_t th;
    pthread_create(&th, NULL, parent_burn, NULL);
    pthread_join(th, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        child_burn(NULL);
        pthread_create(&th, NULL, child_thread_burn, NULL);
        pthread_join(th, NULL);
        return 0;
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
