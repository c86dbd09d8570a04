/* locks_kept_wait.c — main waits about 45 ms for kept_lock (a helper thread holds it 60 ms), and
 * then, still holding it, by argument: "fork" (the child unlocks its copy and exits; the parent
 * unlocks), "_exit" or "exec" (/bin/true). A contended wait is recorded after the unlock: these
 * end the image, or copy it, before that unlock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static void *hold(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&kept_lock);
    usleep(60000);
    pthread_mutex_unlock(&kept_lock);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "fork";
    pthread_t t;
    pthread_create(&t, NULL, hold, NULL);
    usleep(15000);
    pthread_mutex_lock(&kept_lock);
    if (strcmp(how, "_exit") == 0) _exit(4);
    if (strcmp(how, "exec") == 0) {
        execl("/bin/true", "true", (char *)NULL);
        return 1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        pthread_mutex_unlock(&kept_lock);
        exit(3);
    }
    int status;
    waitpid(pid, &status, 0);
    pthread_mutex_unlock(&kept_lock);
    pthread_join(t, NULL);
    printf("child %d\n", WEXITSTATUS(status));
    return 0;
}
