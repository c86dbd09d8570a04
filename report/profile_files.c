/* profile_files.c — see profile_files.h. */
#include "profile_files.h"

#include "flamegraph.h"
#include "out_file.h"

void hp_profile_files_write(const struct hp_profile_files *f, int pid, unsigned image)
{
    if (!f->folded_path[0] && !f->svg_path[0]) return;
    struct hp_buf folded = { 0 }, svg = { 0 };
    int ok = f->folded(&folded) == 0;
    if (ok || f->off) {
        if (f->folded_path[0])
            hp_out_file_write(f->folded_path, f->folded_variable, "folded stacks", pid, image,
                              folded.data ? folded.data : "", folded.len);
        if (f->svg_path[0]) {
            if (hp_flamegraph_svg(&svg, folded.data ? folded.data : "", folded.len, f->title, f->unit) != 0) {
                hp_buf_free(&svg);
                hp_flamegraph_empty_svg(&svg, f->title, f->why_empty);
            }
            if (!svg.failed)
                hp_out_file_write(f->svg_path, f->svg_variable, "flame graph", pid, image, svg.data, svg.len);
        }
    }
    hp_buf_free(&svg);
    hp_buf_free(&folded);
}
