/* altstack_io.c — a signal handler on an 8 KB alternate stack (as Rust's and Go's runtimes set one
 * up) with a guard page below it writes a line to stderr, the program's first use of fd 2, with
 * argv[1] bytes of its own locals on the stack first, then exits 7 (as Rust's stack overflow
 * handler prints its message and aborts). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ALT_SIZE 8192

static int pad;

static __attribute__((noinline)) void report_from_handler(int n)
{
    volatile char locals[n > 0 ? n : 1];
    for (int i = 0; i < n; i += 64) locals[i] = 1;
    static const char msg[] = "handler: wrote to stderr on the alternate stack\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(9);
    (void)locals[0];
}

static void on_usr1(int sig)
{
    (void)sig;
    report_from_handler(pad);
    _exit(7);
}

int main(int argc, char **argv)
{
    pad = argc > 1 ? atoi(argv[1]) : 0;
    char *base = aligned_alloc(4096, ALT_SIZE + 4096);
    if (!base || mprotect(base, 4096, PROT_NONE) != 0) return 1;   /* the guard page below */
    stack_t ss = { .ss_sp = base + 4096, .ss_size = ALT_SIZE, .ss_flags = 0 };
    if (sigaltstack(&ss, NULL) != 0) return 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    return 0;
}
