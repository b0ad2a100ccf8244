# Makefile — generate kernels, build libmidint (CUDA and/or OpenCL), the test drivers and the example.
#
#   make gen SIZES=512,4096,65536   render templates/ into generated/ (default sizes 2^9..2^18)
#            EXPRS=a.expr,b.expr    ... with these fused expressions (default the shipped six and poly)
#   make                            build lib/libmidint.a and lib/libmidint.so
#   make test                       build everything and run the tests (pytest)
#   make example                    build and run the example (GPU when present, else OpenCL/PoCL)
#   make install PREFIX=/usr/local  install the library, header and pkg-config file
#   make wheel                      the Python package (python/README.md) as a wheel in dist/
#
# Knobs: CUDA_ARCH (default 90: sm_90 code + compute_90 PTX), CUDA_PTX_ONLY=1 (PTX alone, no ptxas: CI, which has
# no GPU to run the machine code), NVCC, PYTHON, NO_CUDA=1, NO_OPENCL=1,
# GENFLAGS (extra generator options for `make gen`, e.g. --keep-pruned ntt_32bit_digits).

PYTHON    ?= python3
CC        ?= cc
NVCC      ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_ARCH ?= 90
PREFIX    ?= /usr/local
SIZES     ?=
# EXPRS: comma-separated expression files for `make gen` (default: expressions/six.expr,expressions/poly.expr)
EXPRS_SET := $(if $(filter undefined,$(origin EXPRS)),,1)
CFLAGS    ?= -O2 -g
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)

ifneq ($(NO_CUDA),)
NVCC :=
endif
CUDA_HOME ?= $(if $(NVCC),$(patsubst %/bin/nvcc,%,$(realpath $(NVCC))))
HAVE_OPENCL := $(if $(NO_OPENCL),,$(shell printf '\#include <CL/cl.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1))

BUILD := build
ALL_CFLAGS := $(CFLAGS) -std=c11 -D_GNU_SOURCE -fPIC -Wall -Wextra -Iruntime -Igenerated
CUDA_PTX_ONLY ?=
NVCC_FLAGS := -O3 -std=c++14 -Xcompiler -fPIC -Iruntime -Igenerated \
              $(if $(CUDA_PTX_ONLY),,$(foreach a,$(CUDA_ARCH),-gencode=arch=compute_$(a),code=sm_$(a))) \
              -gencode=arch=compute_$(lastword $(CUDA_ARCH)),code=compute_$(lastword $(CUDA_ARCH))
LIBS := -ldl -lpthread -lm

RUNTIME_SRC := runtime/errors.c runtime/context.c runtime/registry.c runtime/dispatch.c runtime/ops.c runtime/plan.c \
               runtime/backends.c runtime/tuning.c runtime/ntt_tables.c runtime/host_path.c runtime/host_copy.c \
               runtime/expr.c runtime/expr_steps.c runtime/hooks.c runtime/modulus.c runtime/bigdiv.c \
               runtime/batch_gcd.c runtime/wrap_product.c runtime/kernel_call.c runtime/replay.c
GEN_SRC     := generated/registry.c generated/ops_table.c
ifneq ($(HAVE_OPENCL),)
ALL_CFLAGS  += -DMIDINT_HAVE_OPENCL
RUNTIME_SRC += runtime/backend_opencl.c runtime/opencl_warps.c
GEN_SRC     += generated/opencl_sources.c
endif
ifneq ($(NVCC),)
ALL_CFLAGS  += -DMIDINT_HAVE_CUDA -I$(CUDA_HOME)/include
RUNTIME_SRC += runtime/backend_cuda.c
GEN_SRC     += generated/registry_cuda.c
CU_SRC      := $(wildcard generated/cuda/*.cu)
# the shared CUDA runtime, so that a program using CUDA itself shares one runtime with midint
LIBS        := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -lstdc++ $(LIBS)
endif

OBJS := $(patsubst %.c,$(BUILD)/%.o,$(RUNTIME_SRC) $(GEN_SRC)) $(patsubst %.cu,$(BUILD)/%.o,$(CU_SRC))

# Objects depend on the configuration (flags, backends), so that switching CUDA or OpenCL on or off rebuilds.
CONFIG := $(BUILD)/config.txt
CONFIG_TEXT := $(ALL_CFLAGS) | $(NVCC) $(NVCC_FLAGS) | $(LIBS)
$(shell mkdir -p $(BUILD); printf '%s\n' '$(CONFIG_TEXT)' | cmp -s - $(CONFIG) || printf '%s\n' '$(CONFIG_TEXT)' > $(CONFIG))

.PHONY: all lib gen regen test check drivers example tune bench install clean distclean wheel pyext
.DEFAULT_GOAL := all

# Generation runs first in its own make, so that the list of generated .cu files is read after it.
all: generated/.stamp
	@$(MAKE) --no-print-directory -j$(JOBS) lib drivers

# `make gen` regenerates with SIZES (default sizes when SIZES is not given).
gen:
	$(PYTHON) -m generator --out generated $(if $(SIZES),--sizes $(SIZES)) $(if $(EXPRS_SET),--exprs "$(EXPRS)") $(GENFLAGS)
	@touch generated/.stamp

# Templates or generator changed: regenerate with the sizes of the last `make gen`.
generated/.stamp: $(wildcard generator/*.py templates/*.j2 expressions/*.expr)
	$(PYTHON) -m generator --out generated $(if $(SIZES),--sizes $(SIZES),$(if $(wildcard generated/SIZES),--sizes $(shell cat generated/SIZES))) \
		$(if $(EXPRS_SET),--exprs "$(EXPRS)",$(if $(wildcard generated/EXPRS),--exprs "$(shell cat generated/EXPRS)"))
	@touch $@

lib: lib/libmidint.a lib/libmidint.so

lib/libmidint.a: $(OBJS)
	@mkdir -p lib
	rm -f $@ && ar rcs $@ $^

lib/libmidint.so: $(OBJS)
	@mkdir -p lib
	$(CC) -shared -o $@ $^ $(LIBS)

$(BUILD)/%.o: %.c $(wildcard runtime/*.h) generated/.stamp $(CONFIG)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/generated/cuda/%.o: generated/cuda/%.cu runtime/launch.h generated/.stamp $(CONFIG)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

# ---- test drivers and the example: linked against lib/libmidint.so (found through their rpath) and
# statically against GMP, so the GPU machine (which has no GMP) runs a build made here ----
TEST_CFLAGS := $(ALL_CFLAGS) -Itests/drivers
DRIVER_LIBS := -Llib -lmidint -Wl,-rpath,'$$ORIGIN/../../lib' -Wl,-Bstatic -lgmp -Wl,-Bdynamic $(LIBS)
DRIVERS := $(BUILD)/tests/check_batch $(BUILD)/tests/check_expr $(BUILD)/tests/expr_errors $(BUILD)/tests/api_errors \
           $(BUILD)/tests/check_wrap $(BUILD)/examples/addsub_example \
           $(BUILD)/examples/rsa_crt $(BUILD)/examples/batch_gcd $(BUILD)/tuning/measure
drivers: $(DRIVERS)

# the measuring tool behind make tune and make bench (timing through the library: backend-neutral)
DRIVER_COMMON := tests/drivers/cases.c tests/drivers/cases_mod.c tests/drivers/reference.c
DRIVER_DEPS := $(DRIVER_COMMON) tests/drivers/cases.h tests/drivers/reference.h runtime/midint.h lib/libmidint.so

$(BUILD)/tuning/measure: tuning/measure.c tuning/measure_host.c tuning/measure_host.h tuning/measure_ops.c \
                         tuning/measure_ops.h $(DRIVER_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -Ituning -o $@ $< tuning/measure_host.c tuning/measure_ops.c $(DRIVER_COMMON) $(DRIVER_LIBS)

$(BUILD)/tests/%: tests/drivers/%.c $(DRIVER_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(DRIVER_COMMON) $(DRIVER_LIBS)

$(BUILD)/examples/%: examples/%.c lib/libmidint.so
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(DRIVER_LIBS)

example: all
	$(BUILD)/examples/addsub_example

# make pyext: the Python package's optional C converter (python/midint/_convert.c) built in place, so that the tests
# run it; where PYTHON is not CPython or has no headers it is left out and the tests take the pure-Python conversions
PY_EXT_QUERY := import sys, sysconfig as s; sys.implementation.name == "cpython" and \
                print(s.get_paths()["include"], s.get_config_var("EXT_SUFFIX"))
PY_EXT := $(shell $(PYTHON) -c '$(PY_EXT_QUERY)' 2>/dev/null)
PY_CONVERT := $(if $(wildcard $(firstword $(PY_EXT))/Python.h),python/midint/_convert$(word 2,$(PY_EXT)))
ifneq ($(PY_CONVERT),)
pyext: $(PY_CONVERT)
$(PY_CONVERT): python/midint/_convert.c
	$(CC) $(CFLAGS) -O3 -fPIC -shared -pthread -Wall -Wextra -I$(firstword $(PY_EXT)) $< -o $@
else
pyext:
	@echo "pyext: no CPython headers for $(PYTHON): midint._convert not built; the tests take the pure-Python path"
endif

# tests run in parallel when pytest-xdist is installed; the 25 slowest are listed (CI's time is watched)
PYTEST_ARGS ?= $(shell $(PYTHON) -c 'import xdist' 2>/dev/null && printf '%s' '-n $(JOBS)')
test check: all pyext
	$(PYTHON) -m pytest -q -ra --durations=25 $(PYTEST_ARGS) tests

# make tune: time the variants on this machine's GPU and write tuning/tables/<device>.tune (TUNE_ARGS: see
# python3 tuning/tune.py --help). make bench: the dispatched variants against GMP (BENCH_ARGS likewise).
tune: all
	$(PYTHON) tuning/tune.py $(TUNE_ARGS)

bench: all
	$(PYTHON) tuning/bench.py $(BENCH_ARGS)
	$(PYTHON) tuning/bench_host.py $(BENCH_HOST_ARGS)

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 lib/libmidint.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 lib/libmidint.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 runtime/midint.h generated/midint_ops.h $(DESTDIR)$(PREFIX)/include/
	install -d $(DESTDIR)$(PREFIX)/share/midint
	for t in tuning/tables/*.tune; do [ -e "$$t" ] && install -m 644 "$$t" $(DESTDIR)$(PREFIX)/share/midint/; done; true
	printf 'prefix=%s\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include\n\nName: midint\nDescription: batched big-integer arithmetic on GPUs\nVersion: 0.1.0\nCflags: -I$${includedir}\nLibs: -L$${libdir} -lmidint\nLibs.private: %s\n' \
		'$(PREFIX)' '$(LIBS)' > $(DESTDIR)$(PREFIX)/lib/pkgconfig/midint.pc

# make wheel: the Python package with lib/libmidint.so (built here first) and the tuned tables (setup.py)
WHEEL_DIR ?= dist
wheel: generated/.stamp
	@$(MAKE) --no-print-directory -j$(JOBS) lib
	$(PYTHON) -m pip wheel --no-deps -w $(WHEEL_DIR) .

clean:
	rm -rf $(BUILD) lib python/midint/_convert.*.so

distclean: clean
	$(PYTHON) -c "from generator.render import write_tree; from pathlib import Path; write_tree(Path('generated'), {})"
	rm -f generated/.stamp
