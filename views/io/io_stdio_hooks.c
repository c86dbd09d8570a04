/* io_stdio_hooks.c — stdio streams, counted on their file descriptor. glibc's stdio calls its own
 * internal write/read, which no hook sees, so the stream functions are counted themselves: bytes
 * as the program handed them over or got them back, time spent in the call (buffer copies and
 * the flushes that happen inside). fflush and fclose add their time to the stream's write time,
 * but no call count. Streams without a descriptor (fmemopen, open_memstream, fopencookie) are not
 * counted. */
#define _GNU_SOURCE
/* bits/stdio.h would define putchar, getline, ... as extern inlines here, clashing with the hooks */
#define __NO_INLINE__ 1
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/own_fds.h"
#include "io_real.h"

/* glibc's FILE (libio.h, stable ABI): a stream backed by a descriptor has _IO_IS_FILEBUF; errors
 * set _IO_ERR_SEEN. Read directly: fileno() and ferror() would take the stream's lock or errno. */
#define HP_IO_IS_FILEBUF 0x2000
#define HP_IO_ERR_SEEN 0x20

static inline int stream_fd(FILE *f)
{
    if (!f || !(f->_flags & HP_IO_IS_FILEBUF)) return -1;
    return f->_fileno;
}

static inline int stream_failed(FILE *f)
{
    return (f->_flags & HP_IO_ERR_SEEN) != 0;
}

#define EARLY_FAIL(value)                                                                       \
    do {                                                                                        \
        if (__builtin_expect(!hp_io_ready(), 0)) { errno = ENOSYS; return value; }              \
    } while (0)

/* A stream call, a read (WRITE 0) or a write (1): T r = CALL; bytes and failure from BYTES and FAILED (which may
 * use r). Uncounted when the thread does not count or the stream has no descriptor. */
#define STDIO(WRITE, F, T, CALL, BYTES, FAILED)                                                   \
    do {                                                                                        \
        struct hp_thread *t_ = hp_io_thread();                                                  \
        int fd_;                                                                                \
        if (!t_ || (fd_ = stream_fd(F)) < 0) return CALL;                                       \
        struct hp_io_res *res_ = hp_io_res_of(t_, fd_);                                             \
        uint64_t t0_ = hp_io_start(t_);                                                         \
        T r = CALL;                                                                             \
        int failed_ = (FAILED);                                                                 \
        hp_io_done(t_, res_, WRITE, t0_, failed_ ? -1 : 0, failed_ ? 0 : (uint64_t)(BYTES));     \
        return r;                                                                               \
    } while (0)

/* ---- opening and closing ---- */

static inline FILE *fopened(FILE *f, const char *path)
{
    int fd;
    if (f && path && (fd = stream_fd(f)) >= 0 && hp_io_thread()) hp_io_opened(fd, AT_FDCWD, path, 0);
    return f;
}

HP_EXPORT FILE *fopen(const char *path, const char *mode)
{
    EARLY_FAIL(NULL);
    return fopened(HP_WITH_ROOM_PTR(hp_hot.io.fopen(path, mode)), path);
}

HP_EXPORT FILE *fopen64(const char *path, const char *mode)
{
    EARLY_FAIL(NULL);
    return fopened(HP_WITH_ROOM_PTR(hp_hot.io.fopen64(path, mode)), path);
}

/* freopen closes the stream's descriptor and opens path in its place (usually the same number). */
static inline void reopening(FILE *f, const char *path)
{
    int fd;
    if (path && (fd = stream_fd(f)) >= 0 && hp_io_thread()) hp_io_close(fd);
}

HP_EXPORT FILE *freopen(const char *path, const char *mode, FILE *f)
{
    EARLY_FAIL(NULL);
    reopening(f, path);
    return fopened(hp_hot.io.freopen(path, mode, f), path);
}

HP_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *f)
{
    EARLY_FAIL(NULL);
    reopening(f, path);
    return fopened(hp_hot.io.freopen64(path, mode, f), path);
}

/* Time of a flush: the stream's write time, no call counted. */
static inline void flushed(struct hp_thread *t, struct hp_io_res *res, uint64_t t0, int r)
{
    uint64_t raw, scaled = hp_io_time(t, t0, &raw);
    if (scaled) atomic_fetch_add_explicit(&res->wr.flush_ticks, scaled, memory_order_relaxed);
    if (r != 0 && hp_io_is_error(errno)) atomic_fetch_add_explicit(&res->wr.errors, 1, memory_order_relaxed);
}

HP_EXPORT int fclose(FILE *f)
{
    EARLY_FAIL(EOF);
    struct hp_thread *t = hp_io_thread();
    int fd = stream_fd(f);
    if (fd == 2) hp_own_stderr_going(1);   /* gnulib's close_stdout, before exit */
    if (!t || fd < 0) return hp_hot.io.fclose(f);
    struct hp_io_res *res = hp_io_res_of(t, fd);
    hp_io_close(fd);
    uint64_t t0 = hp_io_start(t);
    int r = hp_hot.io.fclose(f);
    flushed(t, res, t0, r);
    return r;
}

HP_EXPORT int fflush(FILE *f)
{
    EARLY_FAIL(EOF);
    struct hp_thread *t = hp_io_thread();
    int fd;
    if (!t || (fd = stream_fd(f)) < 0) return hp_hot.io.fflush(f);   /* NULL: every stream */
    struct hp_io_res *res = hp_io_res_of(t, fd);
    uint64_t t0 = hp_io_start(t);
    int r = hp_hot.io.fflush(f);
    flushed(t, res, t0, r);
    return r;
}

/* ---- reads ---- */

HP_EXPORT size_t fread(void *p, size_t size, size_t n, FILE *f)
{
    EARLY_FAIL(0);
    STDIO(0, f, size_t, hp_hot.io.fread(p, size, n, f), r * size, r < n && stream_failed(f));
}

HP_EXPORT size_t fread_unlocked(void *p, size_t size, size_t n, FILE *f)
{
    EARLY_FAIL(0);
    STDIO(0, f, size_t, hp_hot.io.fread_unlocked(p, size, n, f), r * size, r < n && stream_failed(f));
}

HP_EXPORT size_t __fread_chk(void *p, size_t plen, size_t size, size_t n, FILE *f)
{
    EARLY_FAIL(0);
    STDIO(0, f, size_t, hp_hot.io.fread_chk(p, plen, size, n, f), r * size, r < n && stream_failed(f));
}

HP_EXPORT size_t __fread_unlocked_chk(void *p, size_t plen, size_t size, size_t n, FILE *f)
{
    EARLY_FAIL(0);
    STDIO(0, f, size_t, hp_hot.io.fread_unlocked_chk(p, plen, size, n, f), r * size,
          r < n && stream_failed(f));
}

HP_EXPORT char *fgets(char *s, int n, FILE *f)
{
    EARLY_FAIL(NULL);
    STDIO(0, f, char *, hp_hot.io.fgets(s, n, f), r ? strlen(r) : 0, !r && stream_failed(f));
}

HP_EXPORT char *fgets_unlocked(char *s, int n, FILE *f)
{
    EARLY_FAIL(NULL);
    STDIO(0, f, char *, hp_hot.io.fgets_unlocked(s, n, f), r ? strlen(r) : 0, !r && stream_failed(f));
}

HP_EXPORT char *__fgets_chk(char *s, size_t size, int n, FILE *f)
{
    EARLY_FAIL(NULL);
    STDIO(0, f, char *, hp_hot.io.fgets_chk(s, size, n, f), r ? strlen(r) : 0, !r && stream_failed(f));
}

HP_EXPORT char *__fgets_unlocked_chk(char *s, size_t size, int n, FILE *f)
{
    EARLY_FAIL(NULL);
    STDIO(0, f, char *, hp_hot.io.fgets_unlocked_chk(s, size, n, f), r ? strlen(r) : 0,
          !r && stream_failed(f));
}

HP_EXPORT ssize_t getline(char **line, size_t *cap, FILE *f)
{
    EARLY_FAIL(-1);
    STDIO(0, f, ssize_t, hp_hot.io.getline(line, cap, f), r > 0 ? r : 0, r < 0 && stream_failed(f));
}

static ssize_t counted_getdelim(ssize_t (*real)(char **, size_t *, int, FILE *), char **line,
                                size_t *cap, int delim, FILE *f)
{
    STDIO(0, f, ssize_t, real(line, cap, delim, f), r > 0 ? r : 0, r < 0 && stream_failed(f));
}

HP_EXPORT ssize_t getdelim(char **line, size_t *cap, int delim, FILE *f)
{
    EARLY_FAIL(-1);
    return counted_getdelim(hp_hot.io.getdelim, line, cap, delim, f);
}

/* getline as an optimised build calls it (bits/stdio.h inlines getline into this) */
HP_EXPORT ssize_t __getdelim(char **line, size_t *cap, int delim, FILE *f)
{
    EARLY_FAIL(-1);
    return counted_getdelim(hp_hot.io.getdelim_internal, line, cap, delim, f);
}

/* ---- writes ---- */

HP_EXPORT size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    EARLY_FAIL(0);
    STDIO(1, f, size_t, hp_hot.io.fwrite(p, size, n, f), r * size, r < n && size > 0);
}

HP_EXPORT size_t fwrite_unlocked(const void *p, size_t size, size_t n, FILE *f)
{
    EARLY_FAIL(0);
    STDIO(1, f, size_t, hp_hot.io.fwrite_unlocked(p, size, n, f), r * size, r < n && size > 0);
}

HP_EXPORT int fputs(const char *s, FILE *f)
{
    EARLY_FAIL(EOF);
    STDIO(1, f, int, hp_hot.io.fputs(s, f), strlen(s), r == EOF);
}

HP_EXPORT int fputs_unlocked(const char *s, FILE *f)
{
    EARLY_FAIL(EOF);
    STDIO(1, f, int, hp_hot.io.fputs_unlocked(s, f), strlen(s), r == EOF);
}

HP_EXPORT int puts(const char *s)
{
    EARLY_FAIL(EOF);
    FILE *out = stdout;
    STDIO(1, out, int, hp_hot.io.puts(s), strlen(s) + 1, r == EOF);
}

HP_EXPORT int fputc(int c, FILE *f)
{
    EARLY_FAIL(EOF);
    STDIO(1, f, int, hp_hot.io.fputc(c, f), 1, r == EOF);
}

HP_EXPORT int putc(int c, FILE *f)
{
    EARLY_FAIL(EOF);
    STDIO(1, f, int, hp_hot.io.putc(c, f), 1, r == EOF);
}

HP_EXPORT int putchar(int c)
{
    EARLY_FAIL(EOF);
    FILE *out = stdout;
    STDIO(1, out, int, hp_hot.io.putchar(c), 1, r == EOF);
}

/* The printf family: every variadic form goes to the real v-form with its va_list. */
static int counted_vfprintf(FILE *f, int flag, const char *fmt, va_list ap)
{
#define VFPRINTF() (flag < 0 ? hp_hot.io.vfprintf(f, fmt, ap) : hp_hot.io.vfprintf_chk(f, flag, fmt, ap))
    STDIO(1, f, int, VFPRINTF(), r, r < 0);
#undef VFPRINTF
}

static int counted_vdprintf(int fd, int flag, const char *fmt, va_list ap)
{
#define VDPRINTF() (flag < 0 ? hp_hot.io.vdprintf(fd, fmt, ap) : hp_hot.io.vdprintf_chk(fd, flag, fmt, ap))
    struct hp_thread *t = hp_io_thread();
    if (!t) return VDPRINTF();
    struct hp_io_res *res = hp_io_res_of(t, fd);
    uint64_t t0 = hp_io_start(t);
    int r = VDPRINTF();
    hp_io_done(t, res, 1, t0, r, r > 0 ? (uint64_t)r : 0);
    return r;
#undef VDPRINTF
}

HP_EXPORT int printf(const char *fmt, ...)
{
    EARLY_FAIL(-1);
    va_list ap;
    va_start(ap, fmt);
    int r = counted_vfprintf(stdout, -1, fmt, ap);
    va_end(ap);
    return r;
}

HP_EXPORT int fprintf(FILE *f, const char *fmt, ...)
{
    EARLY_FAIL(-1);
    va_list ap;
    va_start(ap, fmt);
    int r = counted_vfprintf(f, -1, fmt, ap);
    va_end(ap);
    return r;
}

HP_EXPORT int vprintf(const char *fmt, va_list ap)
{
    EARLY_FAIL(-1);
    return counted_vfprintf(stdout, -1, fmt, ap);
}

HP_EXPORT int vfprintf(FILE *f, const char *fmt, va_list ap)
{
    EARLY_FAIL(-1);
    return counted_vfprintf(f, -1, fmt, ap);
}

HP_EXPORT int __printf_chk(int flag, const char *fmt, ...)
{
    EARLY_FAIL(-1);
    va_list ap;
    va_start(ap, fmt);
    int r = counted_vfprintf(stdout, flag, fmt, ap);
    va_end(ap);
    return r;
}

HP_EXPORT int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
    EARLY_FAIL(-1);
    va_list ap;
    va_start(ap, fmt);
    int r = counted_vfprintf(f, flag, fmt, ap);
    va_end(ap);
    return r;
}

HP_EXPORT int __vprintf_chk(int flag, const char *fmt, va_list ap)
{
    EARLY_FAIL(-1);
    return counted_vfprintf(stdout, flag, fmt, ap);
}

HP_EXPORT int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
    EARLY_FAIL(-1);
    return counted_vfprintf(f, flag, fmt, ap);
}

HP_EXPORT int dprintf(int fd, const char *fmt, ...)
{
    EARLY_FAIL(-1);
    va_list ap;
    va_start(ap, fmt);
    int r = counted_vdprintf(fd, -1, fmt, ap);
    va_end(ap);
    return r;
}

HP_EXPORT int vdprintf(int fd, const char *fmt, va_list ap)
{
    EARLY_FAIL(-1);
    return counted_vdprintf(fd, -1, fmt, ap);
}

HP_EXPORT int __dprintf_chk(int fd, int flag, const char *fmt, ...)
{
    EARLY_FAIL(-1);
    va_list ap;
    va_start(ap, fmt);
    int r = counted_vdprintf(fd, flag, fmt, ap);
    va_end(ap);
    return r;
}

HP_EXPORT int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap)
{
    EARLY_FAIL(-1);
    return counted_vdprintf(fd, flag, fmt, ap);
}

/* ---- seeks ---- */

static inline void fseeked(FILE *f)
{
    int fd;
    struct hp_thread *t;
    if ((fd = stream_fd(f)) >= 0 && (t = hp_io_thread()))
        atomic_fetch_add_explicit(&hp_io_res_of(t, fd)->seeks, 1, memory_order_relaxed);
}

HP_EXPORT int fseek(FILE *f, long off, int whence)
{
    EARLY_FAIL(-1);
    fseeked(f);
    return hp_hot.io.fseek(f, off, whence);
}

HP_EXPORT int fseeko(FILE *f, off_t off, int whence)
{
    EARLY_FAIL(-1);
    fseeked(f);
    return hp_hot.io.fseeko(f, off, whence);
}

HP_EXPORT int fseeko64(FILE *f, off_t off, int whence)
{
    EARLY_FAIL(-1);
    fseeked(f);
    return hp_hot.io.fseeko64(f, off, whence);
}
