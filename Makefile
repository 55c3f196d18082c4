# Affinity-on-next-touch for LLVM's OpenMP: build and test (the release is
# scripts/config.sh's NT_LLVM_VERSION).
#
#   make demo            start here: build what is missing, run demo/ in a 4-node guest
#   make                 deps + patched source + clang + libomp -> build/bin/clang
#   make check           the project's tests (clang, libomp, NUMA guest) with lit
#   make check-guest-kernels  the NUMA guest tests on the other kernels (5.10, 6.12)
#   make check-glibc231  the runtime tests on Debian 11's C library and kernel
#   make libomp-compat   libomp for glibc 2.31 and later (Debian 11's sysroot)
#   make check-stress    the stress and randomized model tests, long
#   make check-examples  examples/ against an installed tree, natively and in the guest
#   make check-sanitizers  the runtime tests built with ASan, then TSan
#   make bench-suite     all the benchmarks, reduced, two guest boots (~11 min);
#                        FULL=1 at full size (~40 min); summary of the targets
#   make bench           the distribution benchmark (host + 2-node guest)
#   make bench-kernels   the suite's headline figures per guest kernel (~25 min)
#   make check-upstream  upstream clang/test/OpenMP and openmp/runtime/test
#   make check-upstream-pristine  the same, ours against the pristine release
#   make patches         regenerate patches/ from build/src/llvm-project's commits
#   make check-patches   patches/ and the tree agree; the series applies to the release
#   make check-patch-prefixes  every prefix of the series compiles what it touches
#   make install PREFIX=dir  a relocatable toolchain (DESTDIR= honoured)
#   make dist            the same as one tarball in build/dist/
#   make check-dist      the tarball in a clean Debian 12 root (debootstrap; root)
#   make libomp-only PREFIX=dir  only libomp, with gcc, no clang, no root
#
# See README.md.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
TOP := $(CURDIR)
B := $(TOP)/build
SRC := $(B)/src/llvm-project
LLVM_VERSION := $(shell . scripts/config.sh && echo $$NT_LLVM_VERSION)
LLVM_MAJOR := $(shell . scripts/config.sh && echo $$NT_LLVM_MAJOR)
LLVM_PREFIX := /usr/lib/llvm-$(LLVM_MAJOR)
LIT := $(LLVM_PREFIX)/bin/lit
JOBS ?= $(shell nproc)
LIT_JOBS ?= $(JOBS)
LIT_OPTS ?= -sv

# ccache across clones and sessions: objects are keyed on paths relative to
# the checkout, in a cache outside it (scripts/config.sh: /var/cache/nexttouch,
# or ~/.cache/nexttouch for a user who cannot write there).
NT_CACHE := $(shell bash -c '. scripts/config.sh && echo $$NT_CACHE')
export CCACHE_DIR ?= $(NT_CACHE)/ccache
export NUMA_VM_CACHE ?= $(NT_CACHE)/numa-vm
export CCACHE_BASEDIR := $(TOP)
export CCACHE_MAXSIZE ?= 5G
export CCACHE_NOHASHDIR := 1

HOST_CC := clang-$(LLVM_MAJOR)
HOST_CXX := clang++-$(LLVM_MAJOR)
CMAKE_COMMON := -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=$(HOST_CC) -DCMAKE_CXX_COMPILER=$(HOST_CXX) \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
# Extra configure flags of clang and LLVM's OpenMP frontend (a new build
# directory only); scripts/patch-prefixes-clang.sh builds at -O0 with them.
CLANG_CMAKE_FLAGS ?=

CLANG_BUILD := $(B)/clang
OMP_BUILD := $(B)/openmp
OVERLAY_BUILD := $(B)/llvm-overlay
CLANG := $(CLANG_BUILD)/bin/clang
RESOURCE_DIR := $(CLANG_BUILD)/lib/clang/$(LLVM_MAJOR)
RESOURCE_INC := $(RESOURCE_DIR)/include

.PHONY: all deps source llvm-overlay clang libomp toolchain check check-clang \
        check-runtime check-guest-kernels check-upstream check-upstream-clang check-upstream-libomp check-upstream-pristine \
        patches check-patches check-patch-prefixes clean demo bench

all: toolchain

deps:
	@bash scripts/install-deps.sh

source: deps
	@bash scripts/setup-source.sh

# LLVM's OpenMP frontend, rebuilt from the patched OMP.td/OMPKinds.def.
llvm-overlay: source
	@if [ ! -f $(OVERLAY_BUILD)/build.ninja ]; then \
	  cmake $(CMAKE_COMMON) $(CLANG_CMAKE_FLAGS) -S tools/llvm-overlay -B $(OVERLAY_BUILD) \
	    -DLLVM_SRC=$(SRC)/llvm -DLLVM_RELEASE=$(LLVM_VERSION) \
	    -DDEBIAN_LLVM_DIR=$(LLVM_PREFIX)/lib/cmake/llvm \
	    >$(OVERLAY_BUILD).configure.log 2>&1 || \
	    { cat $(OVERLAY_BUILD).configure.log; exit 1; }; fi
	ninja -C $(OVERLAY_BUILD)

clang: llvm-overlay
	@if [ ! -f $(CLANG_BUILD)/build.ninja ]; then \
	  cmake $(CMAKE_COMMON) $(CLANG_CMAKE_FLAGS) -S $(SRC)/clang -B $(CLANG_BUILD) \
	    -DLLVM_DIR=$(OVERLAY_BUILD)/lib/cmake/llvm \
	    -DLLVM_USE_LINKER=lld \
	    -DCLANG_ENABLE_STATIC_ANALYZER=OFF -DCLANG_ENABLE_OBJC_REWRITER=OFF \
	    -DCLANG_INCLUDE_TESTS=ON -DLLVM_INCLUDE_TESTS=OFF \
	    -DLLVM_EXTERNAL_LIT=$(LIT) -DCLANG_DEFAULT_OPENMP_RUNTIME=libomp \
	    >$(CLANG_BUILD).configure.log 2>&1 || \
	    { cat $(CLANG_BUILD).configure.log; exit 1; }; fi
	ninja -C $(CLANG_BUILD) -j$(JOBS) clang

# libomp from the patched openmp/, built with Debian's clang of the same release; its tests
# compile with our clang. OPENMP_TEST_OPENMP_FLAGS is given because openmp/'s
# detection of the test compiler caches an empty value when our clang is not
# built yet (make libomp before make clang).  With gfortran, also libomp's
# Fortran module (omp_lib.mod, omp_lib_kinds.mod next to omp.h); a build
# directory configured without it is reconfigured once.  The module is made
# through LIBOMP_FORTRAN_MODULES_COMPILER (gfortran -cpp -fsyntax-only -J):
# 22.1.8's other way, LIBOMP_FORTRAN_MODULES=ON, fails at configure time
# (openmp/module/CMakeLists.txt sets a property of runtime/src before CMake
# has read that directory).
# What every libomp of ours is configured with (libomp, libomp-compat,
# libomp-debug).
OMP_CONFIG := -DLIBOMP_USE_HWLOC=ON -DOPENMP_ENABLE_LIBOMPTARGET=OFF \
  -DLIBOMP_OMPD_SUPPORT=OFF -DOPENMP_ENABLE_OMPT_TOOLS=OFF

FC ?= gfortran
OMP_FORTRAN := $(if $(shell command -v $(FC)),-DLIBOMP_FORTRAN_MODULES=OFF \
  -DLIBOMP_FORTRAN_MODULES_COMPILER=$(shell command -v $(FC)))
libomp: source
	@if [ ! -f $(OMP_BUILD)/build.ninja ]; then \
	  cmake $(CMAKE_COMMON) -S $(SRC)/openmp -B $(OMP_BUILD) \
	    $(OMP_CONFIG) \
	    -DOPENMP_TEST_C_COMPILER=$(CLANG) -DOPENMP_TEST_CXX_COMPILER=$(CLANG)++ \
	    -DOPENMP_TEST_OPENMP_FLAGS=-fopenmp \
	    -DOPENMP_LLVM_LIT_EXECUTABLE=$(LIT) \
	    -DOPENMP_FILECHECK_EXECUTABLE=$(LLVM_PREFIX)/bin/FileCheck \
	    -DOPENMP_NOT_EXECUTABLE=$(LLVM_PREFIX)/bin/not $(OMP_FORTRAN) \
	    -DLIBOMP_INSTALL_ALIASES=OFF \
	    >$(OMP_BUILD).configure.log 2>&1 || \
	    { cat $(OMP_BUILD).configure.log; exit 1; }; \
	elif [ -n "$(OMP_FORTRAN)" ] && \
	     ! grep -q '^LIBOMP_FORTRAN_MODULES_COMPILER:.*=.' $(OMP_BUILD)/CMakeCache.txt; then \
	  cmake $(OMP_FORTRAN) $(OMP_BUILD) >$(OMP_BUILD).configure.log 2>&1 || \
	    { cat $(OMP_BUILD).configure.log; exit 1; }; fi
	ninja -C $(OMP_BUILD) -j$(JOBS) omp $(if $(OMP_FORTRAN),libomp-mod)

# libomp for glibc 2.31 and later (Debian 11, Ubuntu 20.04, RHEL 9 family):
# the same source and flags, built against Debian 11's C library and
# libraries (scripts/sysroot.sh: a sysroot from its packages, no root), so
# that it references no symbol version newer than GLIBC_2.31. A libomp
# linked on Debian 12 needs 2.34 (pthread moved into libc).
COMPAT_BUILD := $(B)/openmp-glibc231
.PHONY: libomp-compat
libomp-compat: source
	@sysroot=$$(bash scripts/sysroot.sh); \
	if [ ! -f $(COMPAT_BUILD)/build.ninja ] || \
	   ! grep -q "^CMAKE_SYSROOT:.*=$$sysroot$$" $(COMPAT_BUILD)/CMakeCache.txt; then \
	  rm -rf $(COMPAT_BUILD); \
	  cmake $(CMAKE_COMMON) -S $(SRC)/openmp -B $(COMPAT_BUILD) \
	    -DCMAKE_SYSROOT=$$sysroot \
	    $(OMP_CONFIG) \
	    -DLIBOMP_INSTALL_ALIASES=OFF \
	    >$(COMPAT_BUILD).configure.log 2>&1 || \
	    { cat $(COMPAT_BUILD).configure.log; exit 1; }; fi
	ninja -C $(COMPAT_BUILD) -j$(JOBS) omp
	@newest=$$(objdump -T $(COMPAT_BUILD)/runtime/src/libomp.so | \
	  grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n1); \
	[ "$$(printf '%s\n' "$$newest" GLIBC_2.31 | sort -V | tail -n1)" = GLIBC_2.31 ] || \
	  { echo "libomp-compat: references $$newest, newer than GLIBC_2.31"; exit 1; }; \
	echo "libomp-compat: $(COMPAT_BUILD)/runtime/src/libomp.so (newest symbol version $$newest)"

# libomp with libomp's own debugging on (KMP_DEBUG: KA_TRACE, with
# KMP_A_DEBUG=N for the level; LIBOMP_ENABLE_ASSERTIONS: KMP_DEBUG_ASSERT),
# optimised (RelWithDebInfo): the same source and flags otherwise.  For
# make check-debug, never installed.
DEBUG_BUILD := $(B)/openmp-debug
.PHONY: libomp-debug
libomp-debug: source
	@if [ ! -f $(DEBUG_BUILD)/build.ninja ]; then \
	  cmake $(CMAKE_COMMON) -S $(SRC)/openmp -B $(DEBUG_BUILD) \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLIBOMP_ENABLE_ASSERTIONS=ON \
	    $(OMP_CONFIG) \
	    -DLIBOMP_INSTALL_ALIASES=OFF \
	    >$(DEBUG_BUILD).configure.log 2>&1 || \
	    { cat $(DEBUG_BUILD).configure.log; exit 1; }; fi
	ninja -C $(DEBUG_BUILD) -j$(JOBS) omp
	@grep -q '^#define LIBOMP_ENABLE_ASSERTIONS 1' $(DEBUG_BUILD)/runtime/src/kmp_config.h && \
	  grep -q '^#define RELWITHDEBINFO_BUILD 1' $(DEBUG_BUILD)/runtime/src/kmp_config.h || \
	  { echo "libomp-debug: assertions are not on"; exit 1; }

# The runtime half alone, for users of any compiler (gcc, gfortran), on any
# Linux distribution: scripts/libomp-only.sh (the release's openmp/ with the
# series' openmp/ part, plain CMake with the system's compilers; hwloc and the
# Fortran module where found).  Installs libomp (with its libgomp and
# libiomp5 aliases), omp.h and omp_lib.mod/omp_lib.h into $(PREFIX)
# (DESTDIR honoured).  No clang, no root, no apt or dpkg.
.PHONY: libomp-only
libomp-only:
	@[ -n "$(PREFIX)" ] || { echo "usage: make libomp-only PREFIX=/install/dir"; exit 2; }
	JOBS=$(JOBS) DESTDIR=$(DESTDIR) bash scripts/libomp-only.sh $(abspath $(PREFIX))

# Our omp.h in clang's resource directory, our libomp next to clang, and a
# default configuration file so that programs linked by build/bin/clang find
# that libomp at run time (-frtlib-add-rpath: an RPATH to lib/<triple>).
toolchain: clang
	$(MAKE) --no-print-directory libomp
	mkdir -p $(RESOURCE_INC)
	for h in omp.h omp-tools.h ompt.h; do \
	  if [ -f $(OMP_BUILD)/runtime/src/$$h ]; then \
	    cp -p $(OMP_BUILD)/runtime/src/$$h $(RESOURCE_INC)/$$h; fi; done
	cp -p $(SRC)/openmp/runtime/src/include/ompx.h $(RESOURCE_INC)/ompx.h 2>/dev/null || true
	triple=$$($(CLANG) -print-target-triple); \
	mkdir -p $(CLANG_BUILD)/lib/$$triple; \
	for l in libomp.so libgomp.so libiomp5.so; do \
	  ln -sfn $(OMP_BUILD)/runtime/src/libomp.so $(CLANG_BUILD)/lib/$$triple/$$l; \
	  ln -sfn $(OMP_BUILD)/runtime/src/libomp.so $(CLANG_BUILD)/lib/$$l; done
	for d in clang clang++; do \
	  echo "-frtlib-add-rpath" > $(CLANG_BUILD)/bin/$$d.cfg; done
	# Sanitizer runtimes: we build no compiler-rt, Debian's libclang-rt-N-dev
	# is built from the same source, and the driver looks for them in
	# its resource directory (lib/linux/libclang_rt.asan-x86_64.a, ...): link
	# Debian's there, so that build/bin/clang -fsanitize=... links.
	if [ -d $(LLVM_PREFIX)/lib/clang/$(LLVM_MAJOR)/lib ] && \
	   [ ! -e $(RESOURCE_DIR)/lib ]; then \
	  ln -s $(LLVM_PREFIX)/lib/clang/$(LLVM_MAJOR)/lib $(RESOURCE_DIR)/lib; fi
	ln -sfn clang/bin $(B)/bin
	@echo "toolchain: $(B)/bin/clang ($$($(B)/bin/clang --version | head -1))"

# make install PREFIX=dir [DESTDIR=staging]: the toolchain as a relocatable
# tree (scripts/install.sh: CMake's install of clang, its resource headers
# and libomp with omp.h and the Fortran module, plus the shared libraries
# they need beyond the C library, all found through $$ORIGIN RPATHs).
# make dist: the same tree as one tarball, build/dist/$(DIST_NAME).tar.gz.
# make check-dist (root, not part of make check): the tarball in a clean
# Debian 12 root made by debootstrap (scripts/check-dist.sh).
DIST_NAME := nexttouch-llvm$(LLVM_MAJOR)-$(shell uname -m)-linux
DIST := $(B)/dist/$(DIST_NAME).tar.gz
.PHONY: install dist check-dist
# The tree's libomp is libomp-compat's (glibc 2.31 and later).
INSTALL_COMPAT = NT_LIBOMP_COMPAT=$(COMPAT_BUILD)/runtime/src NT_SYSROOT=$$(bash scripts/sysroot.sh)
install: toolchain libomp-compat
	@[ -n "$(PREFIX)" ] || { echo "usage: make install PREFIX=/install/dir [DESTDIR=...]"; exit 2; }
	DESTDIR=$(DESTDIR) $(INSTALL_COMPAT) bash scripts/install.sh $(abspath $(PREFIX))

dist: toolchain libomp-compat
	rm -rf $(B)/dist/stage
	DESTDIR= $(INSTALL_COMPAT) bash scripts/install.sh $(B)/dist/stage/$(DIST_NAME)
	tar -C $(B)/dist/stage -czf $(DIST).tmp $(DIST_NAME)
	mv $(DIST).tmp $(DIST)
	rm -rf $(B)/dist/stage
	@echo "dist: $(DIST) ($$(du -h $(DIST) | cut -f1))"

check-dist: dist
	bash scripts/check-dist.sh $(DIST)

# The project's tests: clang/test/OpenMP/{nexttouch,readonly}* and
# openmp/runtime/test/nexttouch/ (with the NUMA guest tests on Debian 12's 6.1
# kernel), in one lit run; the guest tests again on the other kernels
# (check-guest-kernels); the runtime tests on glibc 2.31 (check-glibc231);
# examples/ built against an installed tree and run natively and in the guest
# (check-examples); then the host runtime tests again with ASan and TSan
# builds of the test programs (check-sanitizers, about a minute), against a
# libomp with assertions (check-debug), and the series (check-patches: it
# applies, self-contained, to the pristine release; two minutes).
check: toolchain
	NEXTTOUCH_REQUIRE_GUEST=1 bash scripts/run-lit.sh $(LIT_OPTS) --show-pass -j$(LIT_JOBS) \
	  $(CLANG_BUILD)/test/OpenMP $(OMP_BUILD)/runtime/test/nexttouch \
	  --filter 'nexttouch|readonly'
	$(MAKE) --no-print-directory check-guest-kernels
	$(MAKE) --no-print-directory check-glibc231
	$(MAKE) --no-print-directory check-examples
	$(MAKE) --no-print-directory check-sanitizers
	$(MAKE) --no-print-directory check-debug
	$(MAKE) --no-print-directory check-patches

# examples/ against an installed tree (make install into build/examples/prefix):
# built with find_package(NextTouch) and the tree's clang and gfortran, one
# with gcc, one through pkg-config; run natively with placement forced, then
# in the 2-node guest, where each must place its data (scripts/check-examples.sh).
EXAMPLES_PREFIX := $(B)/examples/prefix
.PHONY: check-examples
check-examples: toolchain libomp-compat
	rm -rf $(EXAMPLES_PREFIX)
	$(MAKE) --no-print-directory install PREFIX=$(EXAMPLES_PREFIX) DESTDIR=
	JOBS=$(JOBS) bash scripts/check-examples.sh $(EXAMPLES_PREFIX)

# Every test of openmp/runtime/test/nexttouch that boots a guest (its RUN
# lines use %numa-vm; its host RUN lines run too), once per kernel of
# GUEST_KERNELS (tools/numa-vm --kernel; 6.1 runs in 'make check' itself).
GUEST_KERNELS ?= 6.12 5.10
GUEST_TESTS = $(shell grep -l '%numa-vm' $(TOP)/openmp/runtime/test/nexttouch/*.c \
  $(TOP)/openmp/runtime/test/nexttouch/*.f90 | xargs -n1 basename | paste -sd'|')
check-guest-kernels: toolchain
	rc=0; for k in $(GUEST_KERNELS); do \
	  echo "== check-guest-kernels: the guest tests on Linux $$k"; \
	  NEXTTOUCH_GUEST_KERNEL=$$k NEXTTOUCH_REQUIRE_GUEST=1 bash scripts/run-lit.sh \
	    $(LIT_OPTS) --show-pass -j$(LIT_JOBS) $(OMP_BUILD)/runtime/test/nexttouch \
	    --filter 'nexttouch/($(GUEST_TESTS))$$' || rc=1; done; \
	exit $$rc

# The runtime tests on glibc 2.31 (Debian 11's C library): the test programs
# compiled against scripts/sysroot.sh's sysroot and run on its loader and
# libraries with libomp-compat's libomp, on the host and in guests booting
# Debian 11's 5.10 kernel (lit.local.cfg: NEXTTOUCH_SYSROOT).
.PHONY: check-glibc231
check-glibc231: toolchain libomp-compat
	NEXTTOUCH_SYSROOT=$$(bash scripts/sysroot.sh) \
	NEXTTOUCH_SYSROOT_LIBOMP=$(COMPAT_BUILD)/runtime/src \
	NEXTTOUCH_GUEST_KERNEL=5.10 NEXTTOUCH_REQUIRE_GUEST=1 \
	  bash scripts/run-lit.sh $(LIT_OPTS) --show-pass -j$(LIT_JOBS) $(OMP_BUILD)/runtime/test/nexttouch

# The long runs of the stress and randomized model tests (stress.c, model.c
# and their NUMA-guest variants guest_stress.c, guest_model.c): the same lit
# tests with NT_STRESS_SCALE times the regions/steps of 'make check'.
# NT_STRESS_SCALE=20 takes about 25 minutes on 2 cores.
NT_STRESS_SCALE ?= 20
.PHONY: check-stress
check-stress: toolchain
	NT_STRESS_SCALE=$(NT_STRESS_SCALE) NEXTTOUCH_REQUIRE_GUEST=1 \
	  bash scripts/run-lit.sh $(LIT_OPTS) --show-pass -j$(LIT_JOBS) \
	  $(OMP_BUILD)/runtime/test/nexttouch --filter 'model|stress'

# The host tests of openmp/runtime/test/nexttouch with the test programs
# (not libomp) built with -fsanitize=address, then -fsanitize=thread (with
# LLVM's Archer for OpenMP synchronisation); options and exceptions in
# lit.local.cfg and docs/Design.rst ("Sanitizers").  Both always run.
.PHONY: check-sanitizers
check-sanitizers: toolchain
	rc=0; for san in address thread; do \
	  echo "== check-sanitizers: -fsanitize=$$san"; \
	  NEXTTOUCH_SANITIZER=$$san bash scripts/run-lit.sh $(LIT_OPTS) \
	    -j$(LIT_JOBS) $(OMP_BUILD)/runtime/test/nexttouch || rc=1; done; \
	exit $$rc

# The host tests of openmp/runtime/test/nexttouch against libomp-debug's
# libomp: every KMP_DEBUG_ASSERT checked (a failed one aborts the test).
# The guest tests run with the release libomp (check, check-guest-kernels).
.PHONY: check-debug
check-debug: toolchain libomp-debug
	NEXTTOUCH_LIBOMP=$(DEBUG_BUILD)/runtime/src \
	  bash scripts/run-lit.sh $(LIT_OPTS) -j$(LIT_JOBS) $(OMP_BUILD)/runtime/test/nexttouch

check-clang:
	bash scripts/run-lit.sh $(LIT_OPTS) -j$(LIT_JOBS) $(CLANG_BUILD)/test/OpenMP --filter 'nexttouch|readonly'

check-runtime:
	bash scripts/run-lit.sh $(LIT_OPTS) -j$(LIT_JOBS) $(OMP_BUILD)/runtime/test/nexttouch

check-upstream: toolchain
	$(MAKE) --no-print-directory check-upstream-clang check-upstream-libomp

check-upstream-clang:
	time bash scripts/run-lit.sh -s -j$(LIT_JOBS) $(CLANG_BUILD)/test/OpenMP

check-upstream-libomp:
	time bash scripts/run-lit.sh -s -j$(LIT_JOBS) $(OMP_BUILD)/runtime/test

# The upstream suites against ours and against the pristine release (a
# pristine libomp; a pristine clang too if ours fails a clang test or with
# PRISTINE_CLANG=1): fails if we fail a test pristine passes.
check-upstream-pristine: toolchain
	time bash scripts/check-upstream-pristine.sh

# The first command a user runs: build whatever is missing (the toolchain
# target), compile demo/nexttouch_demo.c with our clang and run it in an
# emulated 4-node machine. Colours when stdout is a terminal (NO_COLOR=1: none).
DEMO_BIN := $(B)/demo/nexttouch_demo
demo:
	@echo "== make demo 1/4: toolchain: clang + libomp with next-touch ($(B)/bin/clang)."
	@if [ ! -x $(B)/bin/clang ] || [ ! -f $(OMP_BUILD)/runtime/src/libomp.so ]; then \
	  echo "   Not built yet: installing packages, fetching LLVM $(LLVM_VERSION)'s source and building"; \
	  echo "   clang from scratch takes most of an hour on 2 cores (ninja shows [step/total])."; \
	else echo "   Built already: checking that it is up to date (seconds to minutes)."; fi
	@$(MAKE) --no-print-directory toolchain
	@echo "== make demo 2/4: compiling demo/nexttouch_demo.c: build/bin/clang -fopenmp -O2"
	@mkdir -p $(dir $(DEMO_BIN))
	$(B)/bin/clang -fopenmp -O2 demo/nexttouch_demo.c -lnuma -o $(DEMO_BIN)
	@echo "== make demo 3/4: the NUMA guest: QEMU and Debian's kernel (installed and fetched the first time)."
	@tools/numa-vm/numa-vm --prepare
	@echo "== make demo 4/4: booting an emulated machine with 4 NUMA nodes and 4 CPUs (QEMU,"
	@echo "   no hardware NUMA needed) and running the demo in it; about a minute."
	@echo
	@color=; if [ -t 1 ] && [ -z "$${NO_COLOR:-}" ]; then color=--color; fi; \
	tools/numa-vm/numa-vm --nodes 4 --cpus 4 --numa-balancing 0 \
	  --kernel-arg transparent_hugepage=madvise -- \
	  env OMP_NUM_THREADS=4 OMP_PROC_BIND=spread OMP_PLACES=cores \
	  $(DEMO_BIN) $$color

# The benchmarks (docs/Benchmarks.rst): one driver per family in bench/, each
# booting its guests with tools/guest-run and reporting with bench/report.py.
# Standalone targets write their logs, CSVs, tables and plots under
# build/bench/<family>/ and print their table; only bench-suite writes
# bench/results/ and the results section of docs/Benchmarks.rst.

# The distribution benchmark: ours, the oracle and the 2008 user-level
# reference in one 2-node guest, the fault path's cost natively on this host.
# BENCH_MIB=128 for a quicker look (bench/dist.sh).
bench: toolchain
	bash bench/dist.sh

# The suite: distribution, placement accuracy, Jacobi/CG against the
# alternatives (the move_pages oracle among them) with the OMP_PROC_BIND x
# OMP_PLACES sweep, readonly, the cost curves and the C library wrappers'
# cost, at reduced sizes in one
# 2-node and one 4-node guest (~11 min); prints every
# target met or missed, writes bench/results/ and docs/Benchmarks.rst's
# results. FULL=1: every family at its full size (~40 min).
.PHONY: bench-suite
bench-suite: toolchain
	FULL=$(FULL) bash bench/suite.sh

# The suite's headline figures per guest kernel (5.10, 6.1, 6.12): one table,
# a column per kernel (bench/kernels.sh; ~25 min). PAGE=1 writes it into
# docs/Benchmarks.rst and bench/results/kernels.csv.
.PHONY: bench-kernels
bench-kernels: toolchain
	PAGE=$(PAGE) bash bench/kernels.sh

# STREAM, Jacobi, CG, a LULESH-shaped mesh proxy and the batch-window kernel,
# with and without '#pragma omp nexttouch', in a 2-node and a 4-node guest;
# fails if a program fails its verification.
.PHONY: bench-apps
bench-apps: toolchain
	bash bench/apps.sh

# Placement accuracy per access pattern (block, cyclic, dynamic, irregular),
# default and exact window, in a 2-node and a 4-node guest; fails only if a
# data check fails.
.PHONY: bench-accuracy
bench-accuracy: toolchain
	bash bench/accuracy.sh

# readonly(list) after Lankes et al. (ROSS'12): a dense Jacobi solver with
# serial init, nexttouch, the move_pages oracle, readonly replicas and ideal
# init in a 4-node and a 2-node guest, plus the replication cost on the host,
# and the per-region cost of cached items; fails if a run fails its
# verification.
.PHONY: bench-readonly
bench-readonly: toolchain
	bash bench/readonly.sh

# Jacobi and CG (3-D unstructured, RCM order) with serial initialisation: no
# placement, nexttouch, the move_pages oracle, numactl --interleave=all,
# ideal initialisation and AutoNUMA, then OMP_PROC_BIND x OMP_PLACES in a 2-
# and a 4-node guest.
.PHONY: bench-solvers
bench-solvers: toolchain
	bash bench/solvers.sh

# Cost curves: the distribution's time against the size (ours, the oracle,
# the 2008 reference), request and arming cost against the number of
# ranges, readonly's per-region cost against threads (bench/curves.sh).
.PHONY: bench-curves
bench-curves: toolchain
	bash bench/curves.sh

# Next-touch at about a million pages in 100,000 ranges in a 2-node guest
# of 3 GiB per node: pages placed on their toucher's node, request and
# arming cost (bench/scale.sh; about 15 minutes).
.PHONY: bench-scale
bench-scale: toolchain
	bash bench/scale.sh

# The C library wrappers' cost per call, idle and in use, against Debian's
# stock libomp of the same release, natively (bench/wrappers.sh; a minute).
.PHONY: bench-wrappers
bench-wrappers: toolchain
	bash bench/wrappers.sh

patches:
	@bash scripts/patches.sh regen

check-patches:
	@bash scripts/patches.sh check
	@python3 scripts/series.py check

# The self-contained series for review: patches/ with the new files each
# patch first needs (patches/files) added, in build/series/; `git am` them
# on a pristine llvm-project 22.1.8 (scripts/series.py).
.PHONY: series
series: source
	@python3 scripts/series.py build

# Slow, so not part of 'make check': each prefix of the series, applied to a
# throw-away worktree of the pristine release, compiles (-fsyntax-only) the
# files its last patch touches, with the flags of our builds (their
# compile_commands.json; build directories configured before
# CMAKE_EXPORT_COMPILE_COMMANDS was set are reconfigured here), about 6 min;
# each prefix that ends with a patch to openmp/ builds and links libomp,
# which exports the functions its dllexports names
# (scripts/patch-prefixes-libomp.sh), about 4 min; and each prefix that ends
# with a patch to clang/ or llvm/ builds and links clang and passes the
# clang tests it adds (scripts/patch-prefixes-clang.sh, from the same
# self-contained series, incremental in build/prefixes/, clang at -O0:
# two and a half hours from nothing on 2 cores, then only what a changed patch
# rebuilds).
check-patch-prefixes: toolchain
	for d in $(CLANG_BUILD) $(OVERLAY_BUILD) $(OMP_BUILD); do \
	  [ -f $$d/compile_commands.json ] || \
	    cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON $$d >/dev/null; done
	time bash scripts/patches.sh prefixes --jobs $(JOBS)
	time bash scripts/patch-prefixes-libomp.sh
	time bash scripts/patch-prefixes-clang.sh

clean:
	rm -rf $(B)
