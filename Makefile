# xipbench: build, test, fuzz and benchmark.
#
#   make run          the main job (installs missing Debian packages first)
#   make test         every test; ends with one line "N passed, N failed"
#   make check-asan   the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make fuzz         libFuzzer targets (clang) in build/fuzz/
#   make bench        benchmarks against the targets in DESIGN.md

BUILD    ?= build
CC       ?= cc
HOST_OPT ?= -O2
SAN      ?=
WERROR   ?= $(if $(CI),-Werror,)
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers
CFLAGS   := -std=c11 -g $(HOST_OPT) $(WARN) $(WERROR) $(SAN) $(EXTRA_CFLAGS)
VERSION  := $(shell cat VERSION)
CPPFLAGS := -D_GNU_SOURCE -DXB_SOURCE_DIR='"$(CURDIR)"' -DXB_VERSION='"$(VERSION)"' -MMD -MP
LDFLAGS  := $(SAN)
CORE_LIBS := -lelf -ldw -lm -lsqlite3
HOST_LIBS := -lusb-1.0 -lpcap -lncursesw -lpthread
LIBS_ALL = $(BUILD)/libcli.a $(BUILD)/libtui.a $(BUILD)/libpanels.a $(BUILD)/libsession.a \
	$(BUILD)/libcapture.a $(BUILD)/libprobe.a $(BUILD)/libsim.a $(BUILD)/libcore.a

ifeq ($(origin CC),default)
CC := cc
endif

CORE_SRC := $(wildcard core/*.c)
SIM_SRC  := $(wildcard sim/*.c)
PROBE_SRC := $(wildcard probe/*.c)
CAPTURE_SRC := $(wildcard capture/*.c)
SESSION_SRC := $(wildcard session/*.c)
PANELS_SRC := $(wildcard panels/*.c)
TUI_SRC  := $(wildcard tui/*.c)
CLI_SRC  := $(filter-out cli/main.c,$(wildcard cli/*.c))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
BENCH_SRC := $(wildcard bench/bench_*.c)
TESTLIB_SRC := $(wildcard tests/common/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

CORE_OBJ := $(call obj,$(CORE_SRC))
SIM_OBJ  := $(call obj,$(SIM_SRC))
PROBE_OBJ := $(call obj,$(PROBE_SRC))
CAPTURE_OBJ := $(call obj,$(CAPTURE_SRC))
SESSION_OBJ := $(call obj,$(SESSION_SRC))
PANELS_OBJ := $(call obj,$(PANELS_SRC))
TUI_OBJ  := $(call obj,$(TUI_SRC))
CLI_OBJ  := $(call obj,$(CLI_SRC))
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
REPLAY_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz-replay/%,$(FUZZ_SRC))
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
BENCH_BIN := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))

.PHONY: all deps run test check-asan fuzz bench clean tests-build firmware

all: $(BUILD)/xipbench

deps:
	@sh scripts/ensure-deps.sh

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/libcore.a: $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The virtual Pico (sim/): on top of core, under the CLI.
$(BUILD)/libsim.a: $(SIM_OBJ) $(if $(SIM_OBJ),,$(BUILD)/obj/empty.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Host side of debugging (probe/: CMSIS-DAP over libusb or to the virtual probe) and of
# captures (capture/: usbmon records through libpcap).
$(BUILD)/libprobe.a: $(PROBE_OBJ) $(if $(PROBE_OBJ),,$(BUILD)/obj/empty.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libcapture.a: $(CAPTURE_OBJ) $(if $(CAPTURE_OBJ),,$(BUILD)/obj/empty.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# One live session on one bench (session/), the panels and their canvas (panels/: no
# curses), the terminal application (tui/: tui/term.c is the only curses file).
$(BUILD)/libsession.a: $(SESSION_OBJ) $(if $(SESSION_OBJ),,$(BUILD)/obj/empty.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libpanels.a: $(PANELS_OBJ) $(if $(PANELS_OBJ),,$(BUILD)/obj/empty.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libtui.a: $(TUI_OBJ) $(if $(TUI_OBJ),,$(BUILD)/obj/empty.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/obj/empty.o:
	@mkdir -p $(dir $@)
	echo 'typedef int xb_empty_unit;' | $(CC) -x c -c - -o $@

$(BUILD)/libcli.a: $(CLI_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/xipbench: $(call obj,cli/main.c) $(LIBS_ALL)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBS_ALL) $(CORE_LIBS) $(HOST_LIBS)

# Shared test helpers (synthetic images ...) for unit tests and benchmarks.
$(BUILD)/libtestcommon.a: $(call obj,$(TESTLIB_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Unit tests link everything below the CLI; Unicorn is a test-only oracle.
TEST_LIBS := -lcmocka -lunicorn -lpthread
$(BUILD)/tests/%: $(call obj,tests/unit/%.c) $(BUILD)/libtestcommon.a $(LIBS_ALL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/libtestcommon.a $(LIBS_ALL) $(CORE_LIBS) $(HOST_LIBS) $(TEST_LIBS)

# Fuzz targets also build with the ordinary compiler and a small driver, so that
# `make test` replays their corpora (under ASan with `make check-asan`).
$(BUILD)/fuzz-replay/%: $(call obj,tests/fuzz/%.c) $(call obj,tests/fuzz/replay_main.c) $(LIBS_ALL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CORE_LIBS) $(HOST_LIBS)

$(BUILD)/bench/%: $(call obj,bench/%.c) $(BUILD)/libtestcommon.a $(LIBS_ALL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CORE_LIBS) $(HOST_LIBS) -lunicorn -lpthread

tests-build: $(BUILD)/xipbench $(UNIT_BIN) $(REPLAY_BIN)

test: deps
	@$(MAKE) --no-print-directory -s tests-build >$(BUILD).make.log 2>&1 || { cat $(BUILD).make.log; echo "0 passed, 1 failed"; exit 1; }
	@sh tests/run.sh $(BUILD)

check-asan:
	@$(MAKE) --no-print-directory test BUILD=build-asan HOST_OPT=-O1 \
		SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

FUZZ_CC ?= clang
FUZZ_FLAGS := -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined
fuzz: deps
	@mkdir -p $(BUILD)/fuzz
	@for f in $(FUZZ_SRC); do \
		n=$$(basename $$f .c); \
		echo "  FUZZ $$n"; \
		$(FUZZ_CC) $(FUZZ_FLAGS) -o $(BUILD)/fuzz/$$n $$f $(CORE_SRC) $(SIM_SRC) $(PROBE_SRC) $(CAPTURE_SRC) $(SESSION_SRC) $(PANELS_SRC) $(TUI_SRC) $(CORE_LIBS) $(HOST_LIBS) || exit 1; \
	done
	@echo "fuzz targets in $(BUILD)/fuzz/; run one with: $(BUILD)/fuzz/NAME tests/fuzz/corpus/NAME"

bench: deps
	@$(MAKE) --no-print-directory -s $(BUILD)/xipbench $(BENCH_BIN)
	@sh bench/run.sh $(BUILD)

run: deps
	@$(MAKE) --no-print-directory -s $(BUILD)/xipbench
	@sh scripts/demo.sh $(BUILD)

# The demo echo firmware for the virtual Pico (arm-none-eabi-gcc); variables such as
# LTO=1, OPT=-O2, XIP_CACHE=off, CSUM=asm, MEMCPY=asm pass through.
firmware: deps
	@$(MAKE) --no-print-directory -C firmware

clean:
	rm -rf build build-asan build.make.log build-asan.make.log
	@if [ -f firmware/Makefile ]; then $(MAKE) --no-print-directory -C firmware clean; fi

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
