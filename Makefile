# The two commands of the contract: `make report` and `make test`.
# Both install missing distribution packages first (scripts/bootstrap.sh).

PRESET ?= release
BUILD := build/$(PRESET)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# CI sets MEMHIER_WERROR=ON: warnings in host code fail the build there.
MEMHIER_WERROR ?= OFF
NVCC := $(firstword $(wildcard $(shell command -v nvcc 2>/dev/null) $(CUDACXX) /usr/local/cuda/bin/nvcc))
ifneq ($(NVCC),)
export CUDACXX := $(NVCC)
endif

.PHONY: all bootstrap configure build report test test-sanitize claims-doc clean

all: build

bootstrap:
	@scripts/bootstrap.sh

configure: bootstrap
	@cmake --preset $(PRESET) -DMEMHIER_WERROR=$(MEMHIER_WERROR) >/dev/null

build: configure
	@cmake --build --preset $(PRESET) -j $(JOBS)

# Build everything and run the main job: memhier report (files in memhier-report/).
report: build
	@$(BUILD)/src/memhier report

# Build everything and run every test through CTest (GPU tests skip without a GPU), build
# examples/consumer against the installed tree, and `pip install .` + pytest the package.
test: build
	@scripts/bootstrap.sh --browser
	@ctest --preset $(PRESET) -j $(JOBS)
	@scripts/test-consumer.sh $(BUILD)
	@scripts/bootstrap.sh --python
	@scripts/test-python.sh

# The CPU tests under AddressSanitizer + UndefinedBehaviorSanitizer.
test-sanitize: bootstrap
	@cmake --preset sanitize -DMEMHIER_WERROR=$(MEMHIER_WERROR) >/dev/null
	@cmake --build --preset sanitize -j $(JOBS)
	@ctest --preset sanitize -j $(JOBS)

# Regenerate docs/claims.md from the claims catalogue (tests fail while it is stale).
claims-doc: build
	@scripts/gen-claims.sh $(BUILD)/src/memhier

clean:
	rm -rf build memhier-report
