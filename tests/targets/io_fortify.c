/* io_fortify.c — built with -O2 -D_FORTIFY_SOURCE=2 (explicit rule in the Makefile), so read,
 * fgets, fread and fprintf/printf become __read_chk, __fgets_chk, __fread_chk, __fprintf_chk and
 * __printf_chk, as in Debian's packages; and __getdelim, which getline becomes where bits/stdio.h
 * inlines it (called by name here: whether the compiler inlines it varies). The I/O view must
 * count them all.
 *
 *   io_fortify PATH     writes PATH with fprintf (100 lines), reads it back with fgets, then
 *                       with read(2), with fread and with __getdelim; prints "truth KEY VALUE" lines. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    /* sizes the compiler cannot fold, so the _chk forms are used */
    size_t n = (size_t)atoi("64") + (size_t)(argc - 2);
    FILE *f = fopen(argv[1], "w");
    if (!f) return 1;
    long written = 0;
    for (int i = 0; i < 100; i++) written += fprintf(f, "line %03d %s\n", i, argv[1] + (argc - 2));
    fclose(f);

    f = fopen(argv[1], "r");
    if (!f) return 1;
    char line[128];
    long lines = 0, fgets_bytes = 0;
    while (fgets(line, (int)n, f)) {
        lines++;
        fgets_bytes += (long)strlen(line);
    }
    fclose(f);

    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) return 1;
    char buf[256];
    long read_bytes = 0;
    ssize_t r;
    while ((r = read(fd, buf, n)) > 0) read_bytes += r;
    close(fd);

    f = fopen(argv[1], "r");
    long fread_bytes = 0;
    size_t got;
    while ((got = fread(buf, 1, n, f)) > 0) fread_bytes += (long)got;
    fclose(f);

    f = fopen(argv[1], "r");
    char *gl = NULL;
    size_t cap = 0;
    long getline_bytes = 0;
    ssize_t len;
    while ((len = __getdelim(&gl, &cap, '\n', f)) > 0) getline_bytes += len;
    free(gl);
    fclose(f);

    printf("truth written %ld\n", written);
    printf("truth lines %ld\n", lines);
    printf("truth fgets_bytes %ld\n", fgets_bytes);
    printf("truth read_bytes %ld\n", read_bytes);
    printf("truth fread_bytes %ld\n", fread_bytes);
    printf("truth getline_bytes %ld\n", getline_bytes);
    return 0;
}
