/* out_file.c — see out_file.h. */
#define _GNU_SOURCE
#include "out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "../collectors/config.h"
#include "../collectors/platform.h"
#include "buf.h"

int hp_out_file_write(const char *pattern, const char *variable, const char *what, int pid,
                      unsigned image, const char *data, size_t len)
{
    char path[HP_OUTPUT_PATH_MAX + 32];
    struct hp_buf msg = { 0 };
    int fd = -1;
    if (hp_expand_path(pattern, pid, image, path, sizeof path) != 0) {
        hp_buf_printf(&msg, "hotpath: %s is too long once expanded; no %s written\n", variable, what);
    } else if ((fd = hp_platform_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600)) < 0) {
        hp_buf_printf(&msg, "hotpath: cannot write the %s to %s (%s)\n", what, path, hp_platform_errno_name(errno));
    } else {
        hp_platform_write_all(fd, data, len);
        hp_platform_close(fd);
    }
    if (msg.data && !msg.failed) hp_platform_write_all(2, msg.data, msg.len);
    hp_buf_free(&msg);
    return fd < 0 ? -1 : 0;
}
