#!/bin/sh
# check_layers.sh — the build's check that no call runs back up the layers (docs/DESIGN.md,
# "Architecture as built"), on the objects' undefined symbols (nm -u), local externs included:
#   core/        uses no symbol that views/, report/ or process/ define;
#   views/NAME/  none that another view, report/'s renderers or process/ define;
#   report/      none that a view or process/ defines.
# Allowed across: the list of views (hp_views, views/views.c: what the core and the renderers
# loop over), and report/'s toolkit that views' sections write with (buf, format, json, table,
# utf8, section). The functions the hooks interpose (libhotpath.so's exported symbols: malloc,
# syscall, ...) are libc's to everyone and do not count.
# Usage: check_layers.sh BUILD_DIR LIBRARY. Exit 1, naming each call, when one runs up.
set -eu
export LC_ALL=C
obj=$1/obj
lib=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hotpath-layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$lib" | awk '{ print $3 }' | sort -u > "$tmp/exported"
defined() {   # the symbols some objects define, less the exported ones
    for o in "$@"; do [ -f "$o" ] && nm --defined-only "$o" | awk 'NF == 3 { print $3 }'; done |
        sort -u | comm -23 - "$tmp/exported"
}
TOOLKIT="buf format json table utf8 sections"
toolkit_objs() { for f in $TOOLKIT; do echo "$obj/report/$f.o"; done; }
renderer_objs() {
    for o in "$obj"/report/*.o; do
        case " $TOOLKIT " in *" $(basename "$o" .o) "*) ;; *) echo "$o" ;; esac
    done
}
defined "$obj"/process/*.o > "$tmp/process"
defined $(renderer_objs) > "$tmp/renderers"
defined $(toolkit_objs) > "$tmp/toolkit"
cat "$tmp/renderers" "$tmp/toolkit" | sort -u > "$tmp/report"
views=$(for d in "$obj"/views/*/; do basename "$d"; done)
for v in $views; do defined "$obj/views/$v"/*.o > "$tmp/view-$v"; done
for v in $views; do cat "$tmp/view-$v"; done | sort -u > "$tmp/views"
printf '%s\n' hp_views hp_view_count | sort > "$tmp/allowed"

check() {   # the objects' directory, its name in messages, the sets it may not use
    dir=$1 name=$2
    shift 2
    for o in "$obj/$dir"/*.o; do
        [ -f "$o" ] || continue
        nm -u "$o" | awk '{ print $2 }' | sort -u > "$tmp/uses"
        for above in "$@"; do
            comm -12 "$tmp/uses" "$tmp/$above" | comm -23 - "$tmp/allowed" | while read -r sym; do
                echo "check_layers: $name/$(basename "$o" .o).c uses $above's $sym" >&2
                echo x >> "$tmp/bad"
            done
        done
    done
}
check core core report process
check report report process
[ ! -s "$tmp/bad" ] || exit 1
