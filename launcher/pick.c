/* pick.c — which images the run's report shows in full after the processes table: every one
 * (--all), those whose command line matches a pattern (--only), else the one with the most CPU
 * and every one that lived at least HP_SHOWN_WALL_NS and used at least HP_SHOWN_CPU_PERCENT of
 * the run's CPU. An image that exec'd away within HP_QUICK_EXEC_NS (a shell or env on the way to
 * the real program) is never shown: its report says little, and it wrote no text one. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/run.h"

int hp_image_quick_exec(const struct hp_image *im)
{
    const char *how = json_string_value(json_object_get(im->ended, "how"));
    return how && !strcmp(how, "exec") && hp_image_known(im, HP_WALL) && im->figure[HP_WALL] < HP_QUICK_EXEC_NS;
}

/* The shell glob, or any command line holding the pattern when it has no glob character. */
static int matches(const char *pattern, const char *line)
{
    if (!strpbrk(pattern, "*?["))
        return strstr(line, pattern) != NULL;
    return fnmatch(pattern, line, 0) == 0;
}

void hp_run_pick(struct hp_run *run, const struct hp_run_options *o)
{
    struct hp_image *most = NULL;
    for (size_t i = 0; i < run->nimages; i++) {
        struct hp_image *im = &run->images[i];
        int cpu = hp_image_known(im, HP_CPU), wall = hp_image_known(im, HP_WALL);
        im->shown = 0;
        if (!im->readable || hp_image_quick_exec(im))
            continue;
        if (o->all)
            im->shown = 1;
        else if (o->only)
            im->shown = im->cmdline && matches(o->only, im->cmdline);
        else
            im->shown = cpu && wall && im->figure[HP_WALL] >= HP_SHOWN_WALL_NS &&
                        im->figure[HP_CPU] * 100 >= run->cpu_ns * HP_SHOWN_CPU_PERCENT && run->cpu_ns > 0;
        if (!most || (cpu && (!hp_image_known(most, HP_CPU) || im->figure[HP_CPU] > most->figure[HP_CPU])))
            most = im;
    }
    if (most && !o->all && !o->only)
        most->shown = 1;
}
