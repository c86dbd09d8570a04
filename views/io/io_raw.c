/* io_raw.c — when the I/O hooks may make their system calls themselves (io_raw.h). */
#define _GNU_SOURCE
#include "io_raw.h"

#include <stdatomic.h>
#include <string.h>

#include "core/unloaded.h"

static _Atomic int threads_seen;

#if HP_IO_RAW_ARCH
/* fn is defined by glibc's libc.so itself. */
static int from_libc(void *fn)
{
    const char *path;
    if (!fn || !hp_module_of(fn, &path)) return 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libc.so", 7) == 0;
}
#endif

void hp_io_raw_init(void)
{
#if HP_IO_RAW_ARCH
    void *fns[] = {
        (void *)hp_hot.io.read, (void *)hp_hot.io.write, (void *)hp_hot.io.pread,
        (void *)hp_hot.io.pread64, (void *)hp_hot.io.pwrite, (void *)hp_hot.io.pwrite64,
        (void *)hp_hot.io.readv, (void *)hp_hot.io.writev, (void *)hp_hot.io.send,
        (void *)hp_hot.io.recv, (void *)hp_hot.io.sendto, (void *)hp_hot.io.recvfrom,
        (void *)hp_hot.io.read_chk, (void *)hp_hot.io.pread_chk, (void *)hp_hot.io.pread64_chk,
        (void *)hp_hot.io.recv_chk, (void *)hp_hot.io.recvfrom_chk,
    };
    /* glibc's syscall() is the instruction and errno, no cancellation point: made here whenever
     * it is glibc's, which saves the hook a call into another page */
    hp_hot.syscall_raw = from_libc((void *)hp_hot.io.syscall);
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (!from_libc(fns[i])) return;
    if (!atomic_load(&threads_seen)) hp_hot.io_raw = 1;
#endif
}

void hp_io_raw_off(void)
{
    atomic_store(&threads_seen, 1);
    __atomic_store_n(&hp_hot.io_raw, 0, __ATOMIC_RELAXED);
}
