/* fork_bench.c — the cost of a short-lived process: N fork children, one after another, each
 * allocating 1 KB and ending with exit (or _exit), the parent waiting for each. Prints the mean
 * microseconds per child (fork to reaped), for `make bench`'s short block.
 *   fork_bench exit|_exit N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "exit") && strcmp(argv[1], "_exit"))) {
        fprintf(stderr, "usage: fork_bench exit|_exit N\n");
        return 2;
    }
    int quick = strcmp(argv[1], "_exit") == 0, n = atoi(argv[2]);
    double start = now_us();
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); return 1; }
        if (pid == 0) {
            char *volatile p = malloc(1024);
            memset(p, 1, 1024);
            free(p);
            if (quick) _exit(0);
            exit(0);
        }
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) return 1;
    }
    printf("fork_bench %s %d children: %.1f us per child\n", argv[1], n, (now_us() - start) / n);
    return 0;
}
