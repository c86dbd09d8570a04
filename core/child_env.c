/* child_env.c — see child_env.h. LD_PRELOAD entries are separated by ':' or spaces (ld.so); an
 * entry is ours when its file name is libhotpath.so, wherever it lives, or when it names the
 * library this process loaded (a copy under another name). */
#include "child_env.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_sep(char c)
{
    return c == ':' || c == ' ';
}

static int entry_is_ours(const char *s, size_t len, const char *lib_path)
{
    static const char name[] = "libhotpath.so";
    size_t n = sizeof name - 1;
    if (len >= n && memcmp(s + len - n, name, n) == 0 && (len == n || s[len - n - 1] == '/')) return 1;
    if (len == strlen(lib_path) && memcmp(s, lib_path, len) == 0) return 1;
    char entry[PATH_MAX], resolved[PATH_MAX];
    if (len >= sizeof entry) return 0;
    memcpy(entry, s, len);
    entry[len] = 0;
    return realpath(entry, resolved) && strcmp(resolved, lib_path) == 0;
}

/* "LD_PRELOAD=..." for the child into out (room for preload_bytes); NULL when the variable
 * should be dropped. */
static size_t preload_bytes(const char *old, const char *lib_path)
{
    return sizeof "LD_PRELOAD=" + strlen(lib_path) + 1 + (old ? strlen(old) : 0);
}

static char *preload_entry(char *out, const char *old, const char *lib_path, int profile_children)
{
    strcpy(out, "LD_PRELOAD=");
    size_t n = strlen(out);
    if (profile_children) {
        strcpy(out + n, lib_path);
        n += strlen(lib_path);
    }
    for (const char *p = old; p && *p;) {
        while (is_sep(*p)) p++;
        const char *start = p;
        while (*p && !is_sep(*p)) p++;
        size_t len = (size_t)(p - start);
        if (len == 0 || entry_is_ours(start, len, lib_path)) continue;
        if (n > sizeof "LD_PRELOAD=" - 1) out[n++] = ':';
        memcpy(out + n, start, len);
        n += len;
    }
    out[n] = 0;
    return n == sizeof "LD_PRELOAD=" - 1 ? NULL : out;      /* nothing left to preload: dropped */
}

static int has_name(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* Whether envp sets the variable that `entry` ("NAME=value") sets. */
static int env_sets(char *const envp[], size_t count, const char *entry)
{
    size_t n = strcspn(entry, "=");
    for (size_t i = 0; i < count; i++)
        if (strncmp(envp[i], entry, n) == 0 && envp[i][n] == '=') return 1;
    return 0;
}

/* The program's LD_PRELOAD: its last setting, as the loader takes it. */
static const char *old_preload(char *const envp[])
{
    const char *last = NULL;
    for (size_t i = 0; envp && envp[i]; i++)
        if (has_name(envp[i], "LD_PRELOAD")) last = envp[i] + sizeof "LD_PRELOAD=" - 1;
    return last;
}

#define IMAGE_BYTES 64

void hp_child_env_need(char *const envp[], char *const settings[], const char *lib_path,
                       size_t *slots, size_t *bytes)
{
    size_t count = 0, nsettings = 0;
    while (envp && envp[count]) count++;
    while (settings && settings[nsettings]) nsettings++;
    *slots = count + nsettings + 3;
    *bytes = preload_bytes(old_preload(envp), lib_path) + IMAGE_BYTES;
}

void hp_child_env(char **out, char *buf, char *const envp[], char *const settings[],
                  const char *lib_path, int profile_children, long image)
{
    size_t count = 0, n = 0;
    for (; envp && envp[count]; count++)
        if (!has_name(envp[count], "LD_PRELOAD") && !has_name(envp[count], HP_IMAGE_VAR)) out[n++] = envp[count];
    for (size_t i = 0; profile_children && settings && settings[i]; i++)
        if (!env_sets(envp, count, settings[i])) out[n++] = settings[i];
    const char *old = old_preload(envp);
    char *preload = preload_entry(buf, old, lib_path, profile_children);
    if (preload) out[n++] = preload;
    if (image >= 0 && profile_children) {
        char *var = buf + preload_bytes(old, lib_path);
        snprintf(var, IMAGE_BYTES, "%s=%ld", HP_IMAGE_VAR, image);
        out[n++] = var;
    }
    out[n] = NULL;
}
