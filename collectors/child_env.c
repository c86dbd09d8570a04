/* child_env.c — see child_env.h. LD_PRELOAD entries are separated by ':' or spaces (ld.so); an
 * entry is ours when its file name is libhotpath.so, wherever it lives, or when it names the
 * library this process loaded (a copy under another name). */
#include "child_env.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

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

/* "LD_PRELOAD=..." for the child; NULL when the variable should be dropped. */
static char *preload_entry(const char *old, const char *lib_path, int profile_children)
{
    size_t old_len = old ? strlen(old) : 0;
    char *out = hp_alloc(sizeof "LD_PRELOAD=" + strlen(lib_path) + 1 + old_len);
    if (!out) return NULL;
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
    if (n == sizeof "LD_PRELOAD=" - 1) {      /* nothing left to preload */
        hp_free(out);
        return NULL;
    }
    return out;
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

char **hp_child_env(char *const envp[], char *const settings[], const char *lib_path,
                    int profile_children, long image)
{
    size_t count = 0, nsettings = 0;
    const char *old_preload = NULL;
    for (; envp && envp[count]; count++)
        if (has_name(envp[count], "LD_PRELOAD")) old_preload = envp[count] + sizeof "LD_PRELOAD=" - 1;
    while (settings && settings[nsettings]) nsettings++;
    char **env = hp_alloc((count + nsettings + 3) * sizeof *env);
    if (!env) return NULL;
    size_t n = 0;
    int failed = 0;
    for (size_t i = 0; i < count; i++) {
        if (has_name(envp[i], "LD_PRELOAD") || has_name(envp[i], HP_IMAGE_VAR)) continue;
        char *copy = hp_strdup(envp[i]);
        if (copy) env[n++] = copy;
        else failed = 1;
    }
    for (size_t i = 0; profile_children && i < nsettings; i++) {
        if (env_sets(envp, count, settings[i])) continue;
        char *copy = hp_strdup(settings[i]);
        if (copy) env[n++] = copy;
        else failed = 1;
    }
    char *preload = preload_entry(old_preload, lib_path, profile_children);
    if (preload) env[n++] = preload;
    else if (profile_children) failed = 1;
    if (image >= 0) {
        char var[64];
        snprintf(var, sizeof var, "%s=%ld", HP_IMAGE_VAR, image);
        char *copy = hp_strdup(var);
        if (copy) env[n++] = copy;
        else failed = 1;
    }
    env[n] = NULL;
    if (failed) {
        hp_child_env_free(env);
        return NULL;
    }
    return env;
}

void hp_child_env_free(char **env)
{
    if (!env) return;
    for (char **e = env; *e; e++) hp_free(*e);
    hp_free(env);
}
