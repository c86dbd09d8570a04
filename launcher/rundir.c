/* rundir.c — the run directory: made private (mkdtemp, mode 0700) under $TMPDIR or /tmp, named
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

int hp_rundir_make(char *dir, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    char cwd[PATH_MAX] = "";
    if (!tmp || !*tmp)
        tmp = "/tmp";
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
