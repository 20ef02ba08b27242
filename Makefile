# Quick start:  make run   (install what is missing, build, run the main job)
#               make test  (install what is missing, build, run every test)
PRESET ?= release
BUILD  := build/$(PRESET)
JOBS   ?= $(shell nproc)
DB     ?= ema.db

.PHONY: all deps configure build run test clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	cmake --preset $(PRESET)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job: every registered problem over its default plan, stored in $(DB).
run: configure
	cmake --build $(BUILD) -j $(JOBS) --target ema
	$(BUILD)/src/ema run --all --db $(DB)

test: build
	ctest --test-dir $(BUILD) -j $(JOBS) --output-on-failure

clean:
	rm -rf build
