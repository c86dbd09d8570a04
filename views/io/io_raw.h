/* io_raw.h — the plain data calls (read, write, their positioned and vectored forms, send, recv,
 * sendto, recvfrom) made by the hook itself with the syscall instruction, where glibc's function
 * would do exactly that. Where system calls flush the TLB (this VM), going through glibc's
 * function costs its code page and an indirect call on each side of the system call: ~25 ns of a
 * hooked read's overhead.
 *
 * Allowed (hp_hot.io_raw) only where the program can see no difference:
 * - x86-64 Linux, and every one of these functions that RTLD_NEXT found is glibc's own (no other
 *   interposer after us, whose function must run);
 * - the program is single-threaded: glibc's function is then a cancellation point that no thread
 *   can act on, and glibc itself makes the bare system call in a single-threaded process. The
 *   first pthread_create, thrd_create, pthread_cancel, timer_create or mq_notify with
 *   SIGEV_THREAD (process/threads.c), or a foreign thread's first hooked call, turns it off for
 *   good (hp_io_raw_off).
 * The result and errno are what glibc's function gives. Not covered: a thread glibc starts on its
 * own (aio, getaddrinfo_a) or a raw clone, whose very first hooked call is a pthread_cancel of
 * the main thread while that thread is blocked in one of these calls, and a pthread_cancel
 * reached without the hook (dlsym on libc): the read goes on, where glibc's would have been
 * cancelled. */
#ifndef HP_IO_RAW_H
#define HP_IO_RAW_H

#include <errno.h>
#include <sys/types.h>

#include "core/hooks.h"

/* Once the profiler runs (not in secure mode): allow raw calls if the functions found are
 * glibc's and no thread was seen yet. */
void hp_io_raw_init(void);
/* A second thread or a cancellation: glibc's functions from now on. */
void hp_io_raw_off(void);

#if defined(__x86_64__) && defined(__linux__)
#define HP_IO_RAW_ARCH 1

static inline ssize_t hp_raw_call(long nr, long a, long b, long c, long d, long e, long f)
{
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long r;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    if (__builtin_expect((unsigned long)r > -4096UL, 0)) {
        errno = (int)-r;
        return -1;
    }
    return r;
}

/* CALL through glibc, or the same system call made here: NR and its six arguments. */
#define RAW_OR(CALL, NR, A, B, C, D, E, F)                                                      \
    (__builtin_expect(hp_hot.io_raw, 1)                                                         \
         ? hp_raw_call(NR, (long)(A), (long)(B), (long)(C), (long)(D), (long)(E), (long)(F))     \
         : (CALL))
#else
#define HP_IO_RAW_ARCH 0
#define RAW_OR(CALL, NR, A, B, C, D, E, F) (CALL)
#endif

#endif
