/* locks_sampling.c — locks taken in a fixed pattern, where a fixed sampling period would time
 * the holds of one lock and never the other's: each round takes lock_a then lock_b (a mutex
 * period of 20 is even), and takes table_rw for reading 9 times and writing once (an rwlock's
 * reads and writes share one count, and 10 divides 20). With an argument, a fork child then
 * reads table_rw 5 times. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 20000

pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
pthread_rwlock_t table_rw = PTHREAD_RWLOCK_INITIALIZER;
static volatile long a, b, table;

int main(int argc, char **argv)
{
    (void)argv;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock_a);
        a++;
        pthread_mutex_unlock(&lock_a);
        pthread_mutex_lock(&lock_b);
        b++;
        pthread_mutex_unlock(&lock_b);
        if (i % 10 == 9) {
            pthread_rwlock_wrlock(&table_rw);
            table++;
        } else {
            pthread_rwlock_rdlock(&table_rw);
            (void)table;
        }
        pthread_rwlock_unlock(&table_rw);
    }
    printf("%ld %ld %ld\n", a, b, table);
    fflush(stdout);
    if (argc > 1) {
        pid_t pid = fork();
        if (pid == 0) {
            for (int i = 0; i < 5; i++) {
                pthread_rwlock_rdlock(&table_rw);
                pthread_rwlock_unlock(&table_rw);
            }
            _exit(0);
        }
        waitpid(pid, NULL, 0);
    }
    return 0;
}
