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
LIB_CFLAGS := $(CFLAGS) -fPIC -fvisibility=hidden -fexceptions -ftls-model=initial-exec
LIB_LDFLAGS := -shared -Wl,-z,nodelete -Wl,--no-undefined -ldl -lunwind -pthread

LIB_SRC := $(wildcard preload/*.c collectors/*.c report/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIB     := $(BUILD)/libhotpath.so

# Parts the unit tests link directly (everything but the hooks and the process-wide pieces).
UNIT_SRC := collectors/config.c collectors/procfs.c collectors/sort.c collectors/memory.c collectors/histogram.c collectors/child_env.c collectors/mappings.c \
            report/buf.c report/format.c report/utf8.c report/table.c report/json.c
UNIT_TESTS := $(wildcard tests/unit/test_*.c)
UNIT_SRC += collectors/io_names.c
UNIT_SRC += collectors/symbols.c
UNIT_SRC += collectors/stacks.c
UNIT_SRC += report/http_parse.c report/prometheus_text.c
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

TARGET_SRC := $(wildcard tests/targets/*.c)
TARGETS := $(TARGET_SRC:tests/targets/%.c=$(BUILD)/targets/%) $(BUILD)/targets/cxx_alloc

.PHONY: all deps deps-build demo test unit unit-asan integration bench bench-real install clean check-build-deps
.PHONY: fuzz

CONSOLE := $(BUILD)/hotpath-console

all: $(LIB) $(CONSOLE)

$(BUILD)/obj/%.o: %.c $(wildcard preload/*.h collectors/*.h report/*.h) | check-build-deps
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(LIB_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@echo "  LD      $@"
	@$(CC) -o $@ $^ $(LIB_LDFLAGS)

check-build-deps:
	@command -v $(CC) >/dev/null || { echo "make: no C compiler ($(CC)); run scripts/install-deps.sh as root" >&2; exit 1; }
	@/sbin/ldconfig -p 2>/dev/null | grep -q libmimalloc.so.2 || echo "make: warning: libmimalloc.so.2 is not installed (Debian libmimalloc2.0); the profiler will fall back to glibc's internal allocator for its own memory" >&2

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

# The I/O view's fortify test: read/fgets/fprintf become __read_chk, __fgets_chk, __fprintf_chk.
$(BUILD)/targets/io_fortify: tests/targets/io_fortify.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@ (fortified)"
	@$(CC) -O2 -D_FORTIFY_SOURCE=2 -g -std=gnu11 $(WARN) -pthread $< -o $@

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
	@$(MAKE) --no-print-directory unit unit-asan integration fuzz

UNIT_DEPS = $(UNIT_SRC) tests/unit/unit.h $(wildcard collectors/*.h report/*.h)

$(BUILD)/unit/%: tests/unit/%.c $(UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DHP_FIXTURES='"tests/unit/fixtures"' $< $(UNIT_SRC) -o $@ $(CHECK_LIBS) -ldl

$(BUILD)/unit-asan/%: tests/unit/%.c $(UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 $(SAN_FLAGS) -DHP_FIXTURES='"tests/unit/fixtures"' $< $(UNIT_SRC) -o $@ $(CHECK_LIBS) -ldl

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

# ---- install ----
install: $(LIB) $(CONSOLE)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libhotpath.so
	install -m 0755 hotpath-run.sh $(DESTDIR)$(PREFIX)/bin/hotpath-run
	install -m 0755 $(CONSOLE) $(DESTDIR)$(PREFIX)/bin/hotpath-console
	install -m 0644 hotpath-run.1 $(DESTDIR)$(PREFIX)/share/man/man1/hotpath-run.1

clean:
	rm -rf $(BUILD)
