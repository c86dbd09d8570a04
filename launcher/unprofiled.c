/* unprofiled.c — one line when the preload cannot take effect and the program will run
 * unprofiled: the file exec will start (the program found as execvp finds it, or a script's
 * interpreter, `#!/usr/bin/env name` found on PATH) is set-user-ID or set-group-ID of another
 * user or group (the loader's secure mode drops LD_PRELOAD), or has no dynamic section (static:
 * no loader at all). Read here from the file's first bytes and program headers, where the shell
 * script ran head, sed, grep and ldd: a dozen processes before the program's first. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/launcher.h"

/* name as execvp finds it into out (a name with a slash as it is): 0, or -1 when not found. */
static int find_program(const char *name, char *out, size_t size)
{
    struct stat st;
    if (strchr(name, '/')) {
        snprintf(out, size, "%s", name);
        return 0;
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/local/bin:/bin:/usr/bin";; ) {
        const char *end = strchrnul(p, ':');
        int len = (int)(end - p);
        snprintf(out, size, "%.*s%s%s", len, p, len ? "/" : "", name);
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0) return 0;
        if (!*end) return -1;
        p = end + 1;
    }
}

/* Whether the ELF file open as fd, whose first n bytes are head, has a PT_DYNAMIC program header
 * (ldd's "dynamic executable"): 1, 0, or -1 when its headers cannot be read. */
static int has_dynamic(int fd, const char *head, size_t n)
{
    uint64_t at;
    unsigned count, size, least;
    if (head[EI_CLASS] == ELFCLASS64) {
        Elf64_Ehdr e;
        if (n < sizeof e) return -1;
        memcpy(&e, head, sizeof e);
        at = e.e_phoff, count = e.e_phnum, size = e.e_phentsize, least = sizeof(Elf64_Phdr);
    } else {
        Elf32_Ehdr e;
        if (n < sizeof e) return -1;
        memcpy(&e, head, sizeof e);
        at = e.e_phoff, count = e.e_phnum, size = e.e_phentsize, least = sizeof(Elf32_Phdr);
    }
    if (size < least) return -1;
    for (unsigned i = 0; i < count; i++) {
        uint32_t type;   /* p_type is the first word of either layout */
        if (pread(fd, &type, sizeof type, (off_t)(at + (uint64_t)i * size)) != (ssize_t)sizeof type) return -1;
        if (type == PT_DYNAMIC) return 1;
    }
    return 0;
}

/* A script's interpreter into out from its first line (#!/usr/bin/env name: name on PATH): 1 when
 * the file is a script, 0 when not, -1 when its interpreter cannot be found. */
static int interpreter(const char *head, size_t n, char *out, size_t size)
{
    if (n < 2 || head[0] != '#' || head[1] != '!')
        return 0;
    char line[257], *save = NULL;
    size_t len = strcspn(head + 2, "\n");
    snprintf(line, sizeof line, "%.*s", (int)(len < n - 2 ? len : n - 2), head + 2);
    const char *first = strtok_r(line, " \t", &save), *second = strtok_r(NULL, " \t", &save);
    if (!first)
        return -1;
    const char *base = strrchr(first, '/');
    if (strcmp(base ? base + 1 : first, "env") == 0 && second)
        return find_program(second, out, size) == 0 ? 1 : -1;
    snprintf(out, size, "%s", first);
    return 1;
}

void hp_say_if_unprofiled(const char *name)
{
    char path[PATH_MAX], interp[PATH_MAX], head[256];
    struct stat st;
    if (find_program(name, path, sizeof path) != 0)
        return;
    for (int hop = 0; hop < 2; hop++) {        /* the program, then a script's interpreter */
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return;
        ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, head, sizeof head, 0) : -1;
        if (n > EI_CLASS && memcmp(head, ELFMAG, SELFMAG) == 0) {
            int dynamic = has_dynamic(fd, head, (size_t)n);
            close(fd);
            if ((st.st_mode & S_ISUID && st.st_uid != geteuid()) || (st.st_mode & S_ISGID && st.st_gid != getegid()))
                fprintf(stderr, "hotpath-run: %s is set-user-ID or set-group-ID: the loader ignores LD_PRELOAD for it, so it runs unprofiled\n", path);
            else if (dynamic == 0)
                fprintf(stderr, "hotpath-run: %s is statically linked: nothing can be preloaded into it, so it runs unprofiled\n", path);
            return;
        }
        close(fd);
        if (n < 0 || hop || interpreter(head, (size_t)n, interp, sizeof interp) != 1)
            return;
        snprintf(path, sizeof path, "%s", interp);
    }
}
