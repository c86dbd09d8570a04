/* process_file.c — see process_file.h. */
#define _GNU_SOURCE
#include "process_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/platform.h"
#include "buf.h"
#include "json.h"
#include "report.h"

#define DIR_MAX 512

/* The registry directory's state. */
static struct {
    char dir[DIR_MAX];                /* the directory in use, empty if it is not private to us */
    /* Chosen once, at the start (hp_procfile_choose): a process registers later, when the program
     * may have rewritten its environment (nginx's workers keep only TZ). */
    char chosen[DIR_MAX];
} procfile;

static int private_dir(const char *path)
{
    struct stat st;
    if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) != 0) return -1;
    return S_ISDIR(st.st_mode) && st.st_uid == getuid() && (st.st_mode & 077) == 0 ? 0 : -1;
}

void hp_procfile_choose(void)
{
    if (procfile.chosen[0]) return;
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/' && strlen(xdg) < 400) snprintf(procfile.chosen, sizeof procfile.chosen, "%s/hotpath", xdg);
    else snprintf(procfile.chosen, sizeof procfile.chosen, "/tmp/hotpath-%u", (unsigned)getuid());
}

int hp_procfile_init(void)
{
    hp_procfile_choose();
    memcpy(procfile.dir, procfile.chosen, sizeof procfile.dir);
    syscall(SYS_mkdirat, AT_FDCWD, procfile.dir, 0700);
    if (private_dir(procfile.dir) != 0) {
        procfile.dir[0] = 0;
        return -1;
    }
    return 0;
}

static void file_path(char *out, size_t size, int pid, const char *suffix)
{
    snprintf(out, size, "%s/%d.json%s", procfile.dir, pid, suffix);
}


int hp_procfile_write(int pid, unsigned port, const char *command, uint64_t start_unix_ms,
                      int token_needed)
{
    if (!procfile.dir[0] || private_dir(procfile.dir) != 0) return -1;
    struct hp_buf b = { 0 };
    struct hp_json j;
    hp_json_init(&j, &b, 0);
    hp_json_object_begin(&j, NULL);
    hp_json_i64(&j, "pid", pid);
    hp_json_u64(&j, "port", port);
    hp_json_string(&j, "host", "127.0.0.1");
    hp_json_string(&j, "command", command);
    hp_json_u64(&j, "start_time_unix_ms", start_unix_ms);
    hp_json_string(&j, "version", HP_VERSION);
    hp_json_bool(&j, "token_required", token_needed);
    hp_json_object_end(&j);
    hp_buf_putc(&b, '\n');
    char path[600], tmp[600];
    file_path(path, sizeof path, pid, "");
    file_path(tmp, sizeof tmp, pid, ".tmp");
    int rc = -1;
    syscall(SYS_unlinkat, AT_FDCWD, tmp, 0);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        if (b.data && !b.failed) hp_platform_write_all(fd, b.data, b.len);
        syscall(SYS_close, fd);
        if (b.data && !b.failed && syscall(SYS_renameat, AT_FDCWD, tmp, AT_FDCWD, path) == 0) rc = 0;
        else syscall(SYS_unlinkat, AT_FDCWD, tmp, 0);
    }
    hp_buf_free(&b);
    return rc;
}

/* ---- the user's token: <dir>/token ---- */

static int token_char(unsigned char c)
{
    return c > 0x20 && c != 0x7F;
}

/* The token in a file of ours (a regular file, ours, no group or other access), trimmed of the
 * blanks that end it; 0, or -1 when the file is not one of ours or holds no good token; 1 when
 * it is empty (its maker has yet to write it). */
static int read_token(int fd, char *out, size_t size)
{
    struct stat st;
    if (syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != getuid() || (st.st_mode & 077) != 0)
        return -1;
    char buf[HP_PROCFILE_TOKEN_MAX + 2];
    long n = syscall(SYS_pread64, fd, buf, sizeof buf - 1, 0);
    if (n < 0) return -1;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t')) n--;
    if (n == 0) return 1;
    if ((size_t)n >= size || (size_t)n >= HP_PROCFILE_TOKEN_MAX) return -1;
    for (long i = 0; i < n; i++)
        if (!token_char((unsigned char)buf[i])) return -1;
    memcpy(out, buf, (size_t)n);
    out[n] = 0;
    return 0;
}

/* 32 random bytes as 64 hex digits; 0, or -1 when the kernel gives none. */
static int random_token(char *out)
{
    unsigned char raw[32];
    size_t got = 0;
    while (got < sizeof raw) {
        long n = syscall(SYS_getrandom, raw + got, sizeof raw - got, 0);
        if (n <= 0) break;
        got += (size_t)n;
    }
    if (got < sizeof raw) {       /* a kernel before getrandom (3.17) */
        int fd = (int)syscall(SYS_openat, AT_FDCWD, "/dev/urandom", O_RDONLY | O_CLOEXEC);
        long n = fd >= 0 ? syscall(SYS_read, fd, raw, sizeof raw) : -1;
        if (fd >= 0) syscall(SYS_close, fd);
        if (n != (long)sizeof raw) return -1;
    }
    static const char hex[] = "0123456789abcdef";
    for (unsigned i = 0; i < sizeof raw; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[2 * sizeof raw] = 0;
    return 0;
}

int hp_procfile_user_token(char *out, size_t size)
{
    if (!procfile.dir[0] || size < 65) return -1;
    int dirfd = (int)syscall(SYS_openat, AT_FDCWD, procfile.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dirfd < 0) return -1;
    struct stat st;
    int rc = -1;
    if (syscall(SYS_newfstatat, dirfd, "", &st, AT_EMPTY_PATH) != 0 || st.st_uid != getuid() || (st.st_mode & 077) != 0) {
        syscall(SYS_close, dirfd);
        return -1;
    }
    for (int tries = 0; tries < 3 && rc < 0; tries++) {
        int fd = (int)syscall(SYS_openat, dirfd, "token", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            /* made by a process that races us: it writes the token at once */
            struct timespec ms = { 0, 1000000 };
            for (int i = 0; i < 200 && (rc = read_token(fd, out, size)) == 1; i++)
                syscall(SYS_nanosleep, &ms, NULL);
            syscall(SYS_close, fd);
            if (rc != 0) rc = -1;
            break;
        }
        if (errno != ENOENT) break;
        char made[65];
        if (random_token(made) != 0) break;
        fd = (int)syscall(SYS_openat, dirfd, "token", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) {
            if (errno == EEXIST) continue;        /* another process made it first: read its */
            break;
        }
        hp_platform_write_all(fd, made, 64);
        /* read back: a file left short (a full disk) would fail every later process */
        if (read_token(fd, out, size) == 0 && strcmp(out, made) == 0) rc = 0;
        else syscall(SYS_unlinkat, dirfd, "token", 0);
        syscall(SYS_close, fd);
    }
    syscall(SYS_close, dirfd);
    return rc;
}

void hp_procfile_remove(int pid)
{
    if (!procfile.dir[0]) return;
    char path[600];
    file_path(path, sizeof path, pid, "");
    syscall(SYS_unlinkat, AT_FDCWD, path, 0);
}

/* A registry file (<pid>.json or its .tmp) of a process that no longer exists is removed. */
static int clean_entry(const char *name, void *ctx)
{
    int dirfd = *(int *)ctx;
    char *end;
    long pid = strtol(name, &end, 10);
    if (pid <= 0 || end == name || (strcmp(end, ".json") != 0 && strcmp(end, ".json.tmp") != 0))
        return 0;
    if (syscall(SYS_kill, (pid_t)pid, 0) == 0 || errno != ESRCH) return 0;
    syscall(SYS_unlinkat, dirfd, name, 0);
    return 0;
}

void hp_procfile_clean_stale(void)
{
    if (!procfile.dir[0]) return;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, procfile.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return;
    hp_platform_scan_dir(fd, clean_entry, &fd);
    syscall(SYS_close, fd);
}
