# Quick start:  make run   (install what is missing, build, run the main job, write its report)
#               make test  (install what is missing, Chromium included, build, run every test)
PRESET ?= release
BUILD  := build/$(PRESET)
JOBS   ?= $(shell nproc)
DB     ?= ema.db
REPORT ?= ema-report.html

# Where `make install` puts bin/ema: ~/.local for a user (on the PATH of most desktop shells), /usr/local for root.
PREFIX ?= $(if $(filter 0,$(shell id -u)),/usr/local,$(HOME)/.local)

.PHONY: all deps test-deps configure build run install test test-asan format clean

all: build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

# WERROR=1: the warnings of ema's own code are errors (CI).
configure: deps
	cmake --preset $(PRESET) $(if $(WERROR),-DEMA_WERROR=ON,-DEMA_WERROR=OFF)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job: every registered problem, its sizes chosen for a budget of $(BUDGET) and its verdicts
# settled with what the budget keeps back (docs/calibration.md), stored in $(DB), then its report
# (and the example programs of docs/cli/exec.md, examples/, built beside ema). On the 2-core VM two
# draws answered firm and right for 13 and 18 of 31 series, where the fixed plans (`--all --rounds 2`,
# 10-15 min) had answered for 4-10 in six (docs/fitting.md, 2026-12-03 (night)).
BUDGET ?= 8m
run: configure
	cmake --build $(BUILD) -j $(JOBS) --target ema examples
	$(BUILD)/src/ema run --all --budget $(BUDGET) --db $(DB)
	$(BUILD)/src/ema report --db $(DB) --html $(REPORT)
	@echo "report: $(abspath $(REPORT)) (open it in a browser)"

# Puts ema on the PATH: $(PREFIX)/bin/ema, and says how to add $(PREFIX)/bin to PATH where it is not.
install: configure
	cmake --build $(BUILD) -j $(JOBS) --target ema
	cmake --install $(BUILD) --prefix "$(PREFIX)"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) echo "ema is on your PATH: $(PREFIX)/bin/ema";; \
	  *) echo "installed $(PREFIX)/bin/ema; to run it as ema: export PATH=\"$(PREFIX)/bin:\$$PATH\" (in ~/.bashrc to keep it)";; esac

test: test-deps build
	ctest --test-dir $(BUILD) -j $(JOBS) --output-on-failure

# The CPU tests again under AddressSanitizer + UndefinedBehaviorSanitizer (preset asan, no CUDA);
# not those labelled `source`, which test the sources alone and run no code of ema's.
test-asan: export ASAN_OPTIONS = allocator_may_return_null=1:detect_leaks=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0
test-asan: test-deps
	cmake --preset asan $(if $(WERROR),-DEMA_WERROR=ON,-DEMA_WERROR=OFF)
	cmake --build build/asan -j $(JOBS)
	ctest --test-dir build/asan -j $(JOBS) -L cpu -LE source --output-on-failure

# Formats the C++ and CUDA sources with .clang-format (the test sources_follow_clang_format checks them).
format:
	scripts/format.sh

clean:
	rm -rf build
