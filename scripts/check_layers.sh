#!/bin/sh
# check_layers.sh — the build's check that no call runs back up the layers (docs/DESIGN.md,
# "Architecture as built"): the objects of collectors/ (the core and the views' data) use nothing
# that preload/ (the hooks) or report/ (the renderers) define, and those of report/ nothing that
# preload/ defines, local externs included. The functions the hooks interpose (libhotpath.so's
# exported symbols: malloc, syscall, pthread_sigmask, ...) are libc's to everyone and do not
# count. Usage: check_layers.sh BUILD_DIR LIBRARY. Exit 1, naming each call, when one runs up.
set -eu
obj=$1/obj
lib=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hotpath-layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$lib" | awk '{ print $3 }' | sort -u > "$tmp/exported"
defined() {   # the symbols a directory's objects define, less the exported ones
    for o in "$obj/$1"/*.o; do nm --defined-only "$o" | awk 'NF == 3 { print $3 }'; done |
        sort -u | comm -23 - "$tmp/exported"
}
defined preload > "$tmp/preload"
defined report > "$tmp/report"

# What the hot page is: the hooks' one page, defined in preload/bootstrap.c, read by the I/O
# view's inline lookups. It moves into the core with the view folders (issue "One folder per
# view"); until then it is the one name the lower layers may use.
echo hp_hot > "$tmp/allowed"

check() {   # layer, the layers above it
    layer=$1
    shift
    for o in "$obj/$layer"/*.o; do
        nm -u "$o" | awk '{ print $2 }' | sort -u > "$tmp/uses"
        for above in "$@"; do
            comm -12 "$tmp/uses" "$tmp/$above" | comm -23 - "$tmp/allowed" | while read -r sym; do
                echo "check_layers: $layer/$(basename "$o" .o).c uses $above/'s $sym" >&2
                echo x >> "$tmp/bad"
            done
        done
    done
}
check collectors preload report
check report preload
[ ! -s "$tmp/bad" ] || exit 1
