#!/bin/sh
# check_layers.sh — the build's check that no call runs back up the layers (docs/DESIGN.md,
# "Architecture as built"), on the objects' undefined symbols (nm -u), local externs included:
#   core/        uses no symbol that views/, report/ or process/ define;
#   views/NAME/  none that another view, report/'s renderers or process/ define;
#   report/      none that a view or process/ defines;
#   process/     none that a view defines (it reaches the views through the list only).
# Allowed across: the list of views (hp_views, views/views.c from views/list.h: what the core and the renderers
# loop over), and report/'s toolkit that views' sections write with (buf, format, json, table,
# utf8, section, prometheus_text, fn_names, folded, profile_files, flamegraph, history_json). The functions the hooks interpose (libhotpath.so's exported symbols: malloc,
# syscall, ...) are libc's to everyone and do not count.
# Usage: check_layers.sh BUILD_DIR LIBRARY OBJECT... (the library's objects, under BUILD_DIR/obj;
# any other object there, left from an earlier tree, is not looked at). Exit 1, naming each call,
# when one runs up.
set -eu
export LC_ALL=C
obj=$1/obj
lib=$2
shift 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hotpath-layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' "$@" > "$tmp/objects"
in_dir() { grep "^$obj/$1/[^/]*\.o\$" "$tmp/objects" || true; }   # the library's objects of one directory

nm -D --defined-only "$lib" | awk '{ print $3 }' | sort -u > "$tmp/exported"
defined() {   # the symbols some objects define, less the exported ones
    for o in "$@"; do nm --defined-only "$o" | awk 'NF == 3 { print $3 }'; done |
        sort -u | comm -23 - "$tmp/exported"
}
TOOLKIT="buf format json table utf8 section prometheus_text fn_names folded profile_files flamegraph history_json"
toolkit_objs() { for f in $TOOLKIT; do echo "$obj/report/$f.o"; done; }
renderer_objs() {
    for o in $(in_dir report); do
        case " $TOOLKIT " in *" $(basename "$o" .o) "*) ;; *) echo "$o" ;; esac
    done
}
defined $(in_dir process) > "$tmp/process"
defined $(renderer_objs) > "$tmp/renderers"
defined $(toolkit_objs) > "$tmp/toolkit"
cat "$tmp/renderers" "$tmp/toolkit" | sort -u > "$tmp/report"
views=$(sed -n "s|^$obj/views/\([^/]*\)/[^/]*\.o\$|\1|p" "$tmp/objects" | sort -u)
for v in $views; do defined $(in_dir "views/$v") > "$tmp/view-$v"; done
for v in $views; do cat "$tmp/view-$v"; done | sort -u > "$tmp/views"
printf '%s\n' hp_views hp_view_count | sort > "$tmp/allowed"

check() {   # the objects' directory, its name in messages, the sets it may not use
    dir=$1 name=$2
    shift 2
    for o in $(in_dir "$dir"); do
        nm -u "$o" | awk '{ print $2 }' | sort -u > "$tmp/uses"
        for above in "$@"; do
            comm -12 "$tmp/uses" "$tmp/$above" | comm -23 - "$tmp/allowed" | while read -r sym; do
                echo "check_layers: $name/$(basename "$o" .o).c uses $above's $sym" >&2
                echo x >> "$tmp/bad"
            done
        done
    done
}
check core core views report process
for v in $views; do
    for w in $views; do [ "$w" = "$v" ] || cat "$tmp/view-$w"; done | sort -u > "$tmp/others"
    check "views/$v" "views/$v" others renderers process
done
check report report views process
check process process views
[ ! -s "$tmp/bad" ] || exit 1
