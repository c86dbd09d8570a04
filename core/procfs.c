/* procfs.c — see procfs.h. The comm field is bounded by the first '(' and the LAST ')', since a
 * thread name may itself contain ") (". */
#include "procfs.h"

#include <string.h>

static const char *skip_field(const char *p, const char *end)
{
    while (p < end && *p != ' ') p++;
    while (p < end && *p == ' ') p++;
    return p;
}

static int read_u64(const char **pp, const char *end, uint64_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    if (p >= end || *p < '0' || *p > '9') return -1;
    while (p < end && *p >= '0' && *p <= '9') v = v * 10 + (uint64_t)(*p++ - '0');
    *out = v;
    *pp = p;
    return 0;
}

int hp_parse_task_stat(const char *buf, size_t len, struct hp_task_stat *out)
{
    const char *end = buf + len;
    const char *open = memchr(buf, '(', len);
    const char *close = NULL;
    for (const char *p = end; p-- > buf;)
        if (*p == ')') { close = p; break; }
    if (!open || !close || close < open) return -1;

    size_t n = (size_t)(close - open - 1);
    if (n > sizeof out->comm - 1) n = sizeof out->comm - 1;
    memcpy(out->comm, open + 1, n);
    out->comm[n] = 0;

    const char *p = close + 1;
    if (p >= end || *p != ' ') return -1;
    p++;
    if (p >= end) return -1;
    out->state = *p;                     /* field 3 */
    for (int field = 3; field < 14; field++) p = skip_field(p, end);
    if (read_u64(&p, end, &out->utime_ticks) != 0) return -1;   /* field 14 */
    p = skip_field(p, end);
    if (read_u64(&p, end, &out->stime_ticks) != 0) return -1;   /* field 15 */
    return 0;
}

int hp_parse_status_kb(const char *buf, size_t len, const char *field, uint64_t *kb)
{
    size_t flen = strlen(field);
    const char *end = buf + len;
    for (const char *line = buf; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *lend = nl ? nl : end;
        if ((size_t)(lend - line) > flen && memcmp(line, field, flen) == 0 && line[flen] == ':') {
            const char *p = line + flen + 1;
            while (p < lend && (*p == ' ' || *p == '\t')) p++;
            return read_u64(&p, lend, kb);
        }
        line = lend + 1;
    }
    return -1;
}

int hp_parse_schedstat_ns(const char *buf, size_t len, uint64_t *ns)
{
    const char *p = buf;
    return read_u64(&p, buf + len, ns);
}

const char *hp_state_name(char state)
{
    switch (state) {
    case 'R': return "Running";
    case 'S': return "Sleeping";
    case 'D': return "Blocked";
    case 'T': case 't': return "Stopped";
    case 'Z': return "Zombie";
    case 'I': return "Idle";
    case 'X': case 'x': return "Dead";
    case 'P': return "Parked";
    default: return "Unknown";
    }
}
