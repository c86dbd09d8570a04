/* rundir.c — the run directory: made private (mkdtemp, mode 0700) under $TMPDIR, else on a
 * memory file system ($XDG_RUNTIME_DIR, else /dev/shm: every process of a run creates its files
 * there, which on a disk file system costs more than a short process itself), else /tmp; named
 * to the program in HOTPATH_RUN_DIR (which every descendant inherits), and removed with the
 * files in it once they were read. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/run.h"

/* Where the run directory goes: the user's $TMPDIR, else a memory file system, else /tmp. */
static const char *parent_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    if (tmp && *tmp)
        return tmp;
    const char *const memory[] = { getenv("XDG_RUNTIME_DIR"), "/dev/shm" };
    for (size_t i = 0; i < sizeof memory / sizeof *memory; i++)
        if (memory[i] && memory[i][0] == '/' && access(memory[i], W_OK | X_OK) == 0)
            return memory[i];
    return "/tmp";
}

int hp_rundir_make(char *dir, size_t size)
{
    const char *tmp = parent_dir();
    char cwd[PATH_MAX] = "";
    size_t len = strlen(tmp);
    while (len > 1 && tmp[len - 1] == '/')
        len--;
    /* absolute, so that a program that changes directory still writes there */
    if (tmp[0] != '/' && !getcwd(cwd, sizeof cwd))
        return -1;
    int n = snprintf(dir, size, "%s%s%.*s/hotpath-run-XXXXXX", cwd, *cwd ? "/" : "", (int)len, tmp);
    if (n < 0 || (size_t)n >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (!mkdtemp(dir))
        return -1;
    if (setenv("HOTPATH_RUN_DIR", dir, 1)) {
        int err = errno;
        rmdir(dir);
        errno = err;
        return -1;
    }
    return 0;
}

int hp_rundir_share_most_cpu(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/most_cpu", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int r = ftruncate(fd, 4096);
    close(fd);
    return r;
}

int hp_rundir_remove(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(fd, e->d_name, 0);
    closedir(d);
    return rmdir(dir);
}
