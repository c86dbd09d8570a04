/* out_file.c — see out_file.h. */
#define _GNU_SOURCE
#include "out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/config.h"
#include "core/view.h"
#include "core/memory.h"
#include "core/platform.h"
#include "core/spinlock.h"
#include "buf.h"

#define HELD_MAX 16         /* the report, and the files of the settings of kind FILE */

/* A file opened before a change of credentials, with the file it was. */
struct held {
    char *path;
    int fd;
    dev_t dev;
    ino_t ino;
};

/* The output files' state. */
static struct {
    /* Files opened before a change of credentials, each with the file it was, so that a number
     * the program closed and reused is never written to. */
    struct held held[HELD_MAX];
    int nheld;                        /* held[] entries in use */
    hp_spinlock lock;                 /* held[] and nheld */
} out_files = {
    .lock = HP_SPINLOCK_INIT,
};

static int take_held(const char *path)
{
    int fd = -1;
    hp_spin_lock(&out_files.lock);
    for (int i = 0; i < out_files.nheld; i++) {
        if (strcmp(out_files.held[i].path, path) != 0) continue;
        struct stat st;
        if (fstat(out_files.held[i].fd, &st) == 0 && st.st_dev == out_files.held[i].dev && st.st_ino == out_files.held[i].ino)
            fd = out_files.held[i].fd;            /* else the program closed it: the number is not ours */
        hp_free(out_files.held[i].path);
        out_files.held[i] = out_files.held[--out_files.nheld];
        break;
    }
    hp_spin_unlock(&out_files.lock);
    return fd;
}

int hp_out_file_open(const char *path)
{
    int fd = take_held(path);
    if (fd >= 0 && ftruncate(fd, 0) == 0) return fd;
    if (fd >= 0) hp_platform_close(fd);
    return hp_platform_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
}

void hp_out_file_hold(const char *path)
{
    if (!path[0]) return;
    hp_spin_lock(&out_files.lock);
    int known = 0;
    for (int i = 0; i < out_files.nheld && !known; i++) known = strcmp(out_files.held[i].path, path) == 0;
    if (!known && out_files.nheld < HELD_MAX) {
        struct stat st;
        int fd = hp_platform_open(path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0600);
        if (fd >= 0) hp_platform_move_high(&fd);
        char *copy = fd >= 0 && fstat(fd, &st) == 0 ? hp_strdup(path) : NULL;
        if (copy) out_files.held[out_files.nheld++] = (struct held){ copy, fd, st.st_dev, st.st_ino };
        else if (fd >= 0) hp_platform_close(fd);
    }
    hp_spin_unlock(&out_files.lock);
}

static void hold(const char *pattern, int pid, unsigned image)
{
    char path[HP_OUTPUT_PATH_MAX + 32];
    if (pattern[0] && hp_expand_path(pattern, pid, image, path, sizeof path) == 0) hp_out_file_hold(path);
}

/* Every file a setting of kind FILE in the table names. */
static void hold_files(const struct hp_settings_table *t, int pid, unsigned image)
{
    for (unsigned i = 0; i < t->n; i++)
        if (t->rows[i].kind == HP_SETTING_FILE)
            hold(*(const char *const *)((const char *)t->base + t->rows[i].offset), pid, image);
}

void hp_out_files_hold(int pid, unsigned image)
{
    hold_files(&hp_config_settings, pid, image);
    HP_FOR_EACH_VIEW(v)
        if (v->settings) hold_files(v->settings, pid, image);
}

void hp_out_files_forget(void)
{
    hp_spin_lock(&out_files.lock);
    for (int i = 0; i < out_files.nheld; i++) {
        hp_platform_close(out_files.held[i].fd);
        hp_free(out_files.held[i].path);
    }
    out_files.nheld = 0;
    hp_spin_unlock(&out_files.lock);
}

int hp_out_file_write(const char *pattern, const char *variable, const char *what, int pid,
                      unsigned image, const char *data, size_t len)
{
    char path[HP_OUTPUT_PATH_MAX + 32];
    struct hp_buf msg = { 0 };
    int fd = -1;
    if (hp_expand_path(pattern, pid, image, path, sizeof path) != 0) {
        hp_buf_printf(&msg, "hotpath: %s is too long once expanded; no %s written\n", variable, what);
    } else if ((fd = hp_out_file_open(path)) < 0) {
        hp_buf_printf(&msg, "hotpath: cannot write the %s to %s (%s)\n", what, path, hp_platform_errno_name(errno));
    } else {
        hp_platform_write_all(fd, data, len);
        hp_platform_close(fd);
    }
    if (msg.data && !msg.failed) hp_platform_write_all(2, msg.data, msg.len);
    hp_buf_free(&msg);
    return fd < 0 ? -1 : 0;
}
