/* names.c — thread names as users set them: pthread_setname_np from the creator right after
 * pthread_create, prctl(PR_SET_NAME) inside the thread, no name at all, and a name with quotes,
 * a backslash and bytes that are not UTF-8 (given as argv[1] when present). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static const char *odd_name = "q\"b\\\xff\xfe\xc3\xa9";
static pthread_barrier_t done;

static void *sleeper(void *arg)
{
    if (arg) prctl(PR_SET_NAME, (unsigned long)arg, 0, 0, 0);
    free(malloc(100));
    pthread_barrier_wait(&done);
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    pthread_barrier_init(&done, NULL, 5);
    pthread_create(&t[0], NULL, sleeper, NULL);
    pthread_setname_np(t[0], "setname-1");
    pthread_create(&t[1], NULL, sleeper, "prctl-2");
    pthread_create(&t[2], NULL, sleeper, NULL);          /* unnamed: thread_3 */
    pthread_create(&t[3], NULL, sleeper, NULL);
    pthread_setname_np(t[3], odd_name);
    usleep(400 * 1000);                                  /* sampled while alive */
    pthread_barrier_wait(&done);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    return 0;
}
