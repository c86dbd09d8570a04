/* unwind_darwin.c — the program's call stack on macOS (unwind.h): backtrace(), which walks frame
 * pointers (always kept on arm64, and by Apple's compilers on x86-64) without allocating. The
 * profiler's own frames are those inside libhotpath.dylib's __TEXT segment, found from its Mach-O
 * header (__dso_handle) with no call into dyld. The macOS build uses no helper library. */
#include "unwind.h"

#include <errno.h>
#include <execinfo.h>
#include <mach-o/loader.h>
#include <string.h>

#include "stacks.h"

extern const struct mach_header_64 __dso_handle;

struct range { uintptr_t lo, hi; };

static struct range own_text(void)
{
    const struct mach_header_64 *h = &__dso_handle;
    const char *cmd = (const char *)(h + 1);
    for (uint32_t i = 0; i < h->ncmds; i++) {
        const struct load_command *lc = (const struct load_command *)cmd;
        if (lc->cmd == LC_SEGMENT_64) {
            const struct segment_command_64 *seg = (const struct segment_command_64 *)lc;
            if (strncmp(seg->segname, SEG_TEXT, sizeof seg->segname) == 0)
                return (struct range){ (uintptr_t)h, (uintptr_t)h + seg->vmsize };
        }
        cmd += lc->cmdsize;
    }
    return (struct range){ 0, 0 };
}

unsigned hp_unwind_program(void **out, unsigned max, struct hp_thread *t)
{
    static struct range self;           /* the same value whichever thread computes it first */
    if (!self.hi) self = own_text();
    void *raw[HP_STACK_MAX_DEPTH + 12];
    if (max > HP_STACK_MAX_DEPTH) max = HP_STACK_MAX_DEPTH;
    if (t) t->guard++;
    int saved = errno;
    int n = backtrace(raw, (int)(max + 12));
    errno = saved;
    if (t) t->guard--;
    unsigned k = 0;
    int i = 0;
    while (i < n && (uintptr_t)raw[i] >= self.lo && (uintptr_t)raw[i] < self.hi) i++;
    for (; i < n && k < max; i++) out[k++] = raw[i];
    return k;
}

void hp_unwind_on_sampler(int asked)
{
    (void)asked;    /* backtrace() needs no library opened */
}
