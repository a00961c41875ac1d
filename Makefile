# pd2bw - one non-recursive GNU Makefile.
#
#   make                 build the three programs into $(B)/ (default build/)
#   make check           build with AddressSanitizer + UBSan into build/san/
#                        (one job a core) and run every test (unit, golden
#                        CLI, man lint), JOBS at a time
#   make check-readme    run every command of README.md in a fresh clone
#   make install         PREFIX=/usr/local DESTDIR= MANDIR=$(PREFIX)/share/man
#   make NVCC=           build the profiler without CUDA even if nvcc exists
#   make DEVELOPER=1     warnings are errors (CI sets it)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share/pd2bw
MANDIR ?= $(PREFIX)/share/man
B ?= build
comma := ,

CC ?= cc
# make check's sanitizer build compiles at -O1 -g1 unless CFLAGS is given:
# ASan's advice, a fifth less compile time than -O2 -g, and the line
# tables are all its reports use.  The emulated flash kernels keep -O2
# (HOT_CFLAGS): at -O1 their test runs twice as long.
SAN_CFLAGS := $(if $(filter undefined,$(origin CFLAGS)),-O1 -g1,$(CFLAGS))
SAN_HOT := $(if $(filter undefined,$(origin CFLAGS)),HOT_CFLAGS=-O2)
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config
# CBLAS for the profiler's CPU backend: OpenBLAS, or any cblas.pc.
BLAS_PC := $(firstword $(foreach p,openblas cblas,\
	$(if $(shell $(PKG_CONFIG) --exists $(p) 2>/dev/null && echo y),$(p))))
PKGS = hwloc yaml-0.1 $(BLAS_PC)
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

# Every library is checked before anything compiles, and one line names
# all that are missing with the packages that bring them.
ifneq ($(if $(MAKECMDGOALS),$(filter-out clean uninstall,$(MAKECMDGOALS)),all),)
have_pc = $(shell $(PKG_CONFIG) --exists $(1) 2>/dev/null && echo y)
DEPS_MISSING :=
ifeq ($(shell command -v $(PKG_CONFIG) 2>/dev/null),)
DEPS_MISSING += pkg-config:pkg-config:pkgconf-pkg-config
endif
ifeq ($(call have_pc,hwloc),)
DEPS_MISSING += hwloc:libhwloc-dev:hwloc-devel
endif
ifeq ($(call have_pc,yaml-0.1),)
DEPS_MISSING += libyaml:libyaml-dev:libyaml-devel
endif
# GLPK ships no pkg-config file: look for its header.
ifeq ($(shell printf '\043include <glpk.h>\n' | \
	$(CC) $(CPPFLAGS) -E -x c - >/dev/null 2>&1 && echo y),)
DEPS_MISSING += GLPK:libglpk-dev:glpk-devel
endif
ifeq ($(BLAS_PC),)
DEPS_MISSING += OpenBLAS:libopenblas-dev:openblas-devel
endif
ifneq ($(DEPS_MISSING),)
dep_field = $(foreach d,$(DEPS_MISSING),$(word $(1),$(subst :, ,$(d))))
$(error pd2bw: missing $(subst $() ,$(comma) ,$(strip $(call dep_field,1))); \
install them with 'apt-get install $(call dep_field,2)' (Debian/Ubuntu) \
or 'dnf install $(call dep_field,3)' (Fedora/RHEL))
endif
endif

PD2BW_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic \
	-Wshadow -Wstrict-prototypes -Wmissing-prototypes -Iinclude \
	-DPD2BW_DATADIR='"$(DATADIR)"' $(PKG_CFLAGS) -MMD -MP
ifeq ($(DEVELOPER),1)
PD2BW_CFLAGS += -Werror
endif
ifeq ($(SAN),1)
# The sanitizers' runtimes linked in: each run starts faster than with
# the shared ones, and the golden cases start programs thousands of times.
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined -static-libasan -static-libubsan
endif
ALL_CFLAGS = $(PD2BW_CFLAGS) $(CFLAGS) $(SAN_FLAGS)
# --as-needed: a program links only the libraries it calls (pd2bw-plan
# and pd2bw-topo do not load OpenBLAS and its Fortran runtime at start).
LIBS = -Wl,--as-needed $(PKG_LIBS) -lglpk -lm -pthread

# CUDA is optional: with nvcc the profiler gets its GPU backend.
NVCC ?= $(shell command -v nvcc 2>/dev/null)
ifneq ($(NVCC),)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
NVCC_GENCODE ?= -gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90
NVCC_FLAGS ?= -O2 -std=c++17 $(NVCC_GENCODE)
CUDA_CPPFLAGS = -DPD2BW_HAVE_CUDA -I$(CUDA_HOME)/include \
	-DPD2BW_LIBDIR='"$(LIBDIR)/pd2bw"'
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
	-lcublasLt -lcudart_static -lstdc++ -ldl -lrt -lpthread
CUDA_CUPTI = $(firstword $(wildcard $(CUDA_HOME)/extras/CUPTI/lib64 \
	$(CUDA_HOME)/lib64/libcupti.so))
ifneq ($(CUDA_CUPTI),)
CUDA_LIBS += -L$(CUDA_HOME)/extras/CUPTI/lib64 \
	-Wl,-rpath,$(CUDA_HOME)/extras/CUPTI/lib64 -lcupti
CUDA_CPPFLAGS += -I$(CUDA_HOME)/extras/CUPTI/include -DPD2BW_HAVE_CUPTI
endif
PROF_GPU_SRC = $(wildcard profiler/*.cu)
# The backend is a shared object the program loads only for --backend
# cuda and --gemm (profiler/gpu_dl.c): the analytic and cpu paths never
# map cuBLASLt, so they start under a small `ulimit -v`.  The object
# resolves libpd2bw's and the profiler's functions in the program.
CUDA_SO = $(B)/pd2bw-cuda.so
PROF_PROG_LINK = -rdynamic $(B)/profiler/main.o -Wl,--whole-archive \
	$(PROF_A) $(LIB_A) -Wl,--no-whole-archive $(LIBS) -ldl
# The same CUDA backend compiled as host C++ against the host emulation of
# tests/emu (runtime, cuBLASLt, CUPTI), so its kernels, launches, GEMM
# descriptors and CUPTI attribution are tested without a GPU.
CXX ?= c++
EMU_FLAGS = -std=c++17 -DPD2BW_EMU $(CUDA_CPPFLAGS) -Iinclude -Iprofiler \
	-Itests/emu -Itests/unit $(PKG_CFLAGS) -Wall -Wextra -MMD -MP \
	$(CFLAGS) $(SAN_FLAGS)
ifeq ($(DEVELOPER),1)
EMU_FLAGS += -Werror
endif
EMU_RT = $(B)/emu/cudart_emu.o $(B)/emu/cublaslt_emu.o $(B)/emu/cupti_emu.o
EMU_TESTS = $(B)/tests/test_prof_gpu_emu $(B)/tests/test_prof_gpu_emu_shuffled \
	$(B)/tests/test_emu_flash_shuffled \
	$(patsubst tests/emu/%.cc,$(B)/tests/%,$(wildcard tests/emu/test_*.cc))
EMU_PROGS = $(B)/pd2bw-profile-emu
$(info pd2bw: profiler with CUDA ($(NVCC)), loaded from $(CUDA_SO))
else
PROF_GPU_SRC =
CUDA_SO =
PROF_PROG_LINK = $(B)/profiler/main.o $(PROF_A) $(LIB_A) $(LIBS) -ldl
$(info pd2bw: profiler built without CUDA)
endif

# libpd2bw in layers, each a folder: base (errors, options, output files)
# <- formats (readers and writers) <- cost (compute, memory,
# communication, schedule) <- search.  The planner's emitters and pictures
# sit on top of the search.
LIB_SRC = $(wildcard lib/*/*.c)
PLAN_SRC = $(filter-out planner/main.c,$(wildcard planner/*.c planner/*/*.c))
# profiler/gpu_dl.c, the loader of the cuda backend, is the program's
# side only: the tests and the emulation link the backend itself.
PROF_SRC = $(filter-out profiler/main.c profiler/gpu_dl.c,\
	$(wildcard profiler/*.c))
TOPO_SRC = $(filter-out topo/main.c,$(wildcard topo/*.c))
TEST_SRC = $(wildcard tests/unit/test_*.c)

obj = $(patsubst %.c,$(B)/%.o,$(1))
LIB_A = $(B)/libpd2bw.a
PLAN_A = $(B)/libplan.a
PROF_A = $(B)/libprof.a
PROF_EMU_A = $(B)/libprof-emu.a
TOPO_A = $(B)/libtopo.a
PROGS = $(B)/pd2bw-plan $(B)/pd2bw-profile $(B)/pd2bw-topo $(CUDA_SO)
TESTS = $(patsubst tests/unit/%.c,$(B)/tests/%,$(TEST_SRC)) $(EMU_TESTS)
# Scale tests (the documented maxima at full size) cost their size: the
# sanitizer build leaves them out, make check runs the optimised one.
SCALE_TESTS = $(B)/tests/test_maxima
ifeq ($(SAN),1)
TESTS := $(filter-out $(SCALE_TESTS),$(TESTS))
endif
PROF_GPU_OBJ = $(patsubst %.cu,$(B)/%.o,$(PROF_GPU_SRC))

all: $(PROGS)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -c -o $@ $<

$(B)/planner/%.o: planner/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -Iplanner -c -o $@ $<

$(B)/profiler/%.o: profiler/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) $(CUDA_CPPFLAGS) -c -o $@ $<

# The CUDA objects depend on the profiler's and libpd2bw's headers too.
# make check's sanitizer build (CUDA_FROM=the plain build) takes the
# plain build's object when it is newer than all of them: nvcc adds no
# sanitizer, and compiling again costs 16 s of CPU.
$(B)/profiler/%.o: profiler/%.cu $(wildcard profiler/*.cuh profiler/*.h \
		include/pd2bw/*.h)
	@mkdir -p $(@D)
	@fresh=$(if $(CUDA_FROM),1,0); o=$(CUDA_FROM)/profiler/$*.o; \
	for f in $^; do [ "$$o" -nt "$$f" ] || fresh=0; done; \
	if [ $$fresh = 1 ]; then echo "cp $$o $@"; cp "$$o" $@; \
	else set -x; $(NVCC) $(NVCC_FLAGS) -Xcompiler -fPIC -Iinclude \
		$(CUDA_CPPFLAGS) $(PKG_CFLAGS) -c -o $@ $<; fi

# -Bsymbolic: the object's own calls to prof_gpu_* stay inside it, though
# the program (gpu_dl.c) defines the same names.
$(CUDA_SO): $(PROF_GPU_OBJ)
	$(CXX) -shared -Wl,-Bsymbolic $(LDFLAGS) -o $@ $^ $(CUDA_LIBS)

$(B)/emu/gpu.o: profiler/gpu.cu
	@mkdir -p $(@D)
	$(CXX) $(EMU_FLAGS) -x c++ -c -o $@ $<

$(B)/emu/%.o: tests/emu/%.cc
	@mkdir -p $(@D)
	$(CXX) $(EMU_FLAGS) -c -o $@ $<

$(LIB_A): $(call obj,$(LIB_SRC))
$(PLAN_A): $(call obj,$(PLAN_SRC))
$(PROF_A): $(call obj,$(PROF_SRC) profiler/gpu_dl.c)
$(TOPO_A): $(call obj,$(TOPO_SRC))
$(PROF_EMU_A): $(call obj,$(PROF_SRC)) $(B)/emu/gpu.o $(EMU_RT)
$(LIB_A) $(PLAN_A) $(PROF_A) $(PROF_EMU_A) $(TOPO_A):
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

ARCHIVES = $(PLAN_A) $(PROF_A) $(TOPO_A) $(LIB_A)
LINK = $(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) $(LIBS)

$(B)/pd2bw-plan: $(B)/planner/main.o $(PLAN_A) $(LIB_A)
	$(LINK)
$(B)/pd2bw-profile: $(B)/profiler/main.o $(PROF_A) $(LIB_A)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(PROF_PROG_LINK)
$(B)/pd2bw-topo: $(B)/topo/main.o $(TOPO_A) $(LIB_A)
	$(LINK) -ldl
# The backend itself (gpu.o) comes before the archives, so that its
# definitions win over the loader's in libprof.a.
$(B)/tests/%: tests/unit/%.c $(PROF_GPU_OBJ) $(ARCHIVES)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -Itests/unit -Iplanner $(LDFLAGS) -o $@ \
		$(filter %.c %.o %.a,$^) \
		$(LIBS) $(CUDA_LIBS) -ldl

EMU_LIBS = $(LIBS) -lstdc++ -ldl -lpthread
$(B)/pd2bw-profile-emu: $(B)/profiler/main.o $(PROF_EMU_A) $(LIB_A)
	$(LINK) -lstdc++ -ldl -lpthread
$(B)/tests/test_prof_gpu_emu: tests/unit/test_prof_gpu.c $(PROF_EMU_A) \
		$(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -Itests/unit $(LDFLAGS) -o $@ \
		$(filter %.c %.a,$^) $(EMU_LIBS)
# The same checks with threads and blocks in a shuffled order: races fail.
$(B)/emu/order_shuffle.o: tests/emu/order_shuffle.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -c -o $@ $<
$(B)/tests/test_prof_gpu_emu_shuffled: tests/unit/test_prof_gpu.c \
		$(B)/emu/order_shuffle.o $(PROF_EMU_A) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -Itests/unit $(LDFLAGS) -o $@ \
		$(filter %.c %.o %.a,$^) $(EMU_LIBS)
# Compiled once (the flash kernels take long), linked twice.
$(B)/emu/test_emu_flash.o: EMU_FLAGS += $(HOT_CFLAGS)
$(B)/tests/test_emu_flash_shuffled: $(B)/emu/test_emu_flash.o \
		$(B)/emu/order_shuffle.o $(EMU_RT)
	@mkdir -p $(@D)
	$(CXX) $(EMU_FLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(EMU_LIBS)
$(B)/tests/test_emu_%: $(B)/emu/test_emu_%.o $(EMU_RT)
	@mkdir -p $(@D)
	$(CXX) $(EMU_FLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(EMU_LIBS)

# The emulated CUDA backend and flash kernels are the longest compiles:
# started first, they run beside everything else under -j.
tests-build: $(if $(EMU_PROGS),$(B)/emu/gpu.o $(B)/emu/test_emu_flash.o) \
	$(PROGS) $(EMU_PROGS) $(TESTS)

# The test suite runs on the sanitizer build, built one job a core (unless
# make was given -j) and run the same way.  The real CUDA backend is the
# plain build's object when that is fresh (CUDA_FROM), else nvcc compiles
# it for one PTX target only, which the driver compiles for any GPU from
# sm_80 on: the tests need no more, and CI builds every target.  The emitters' sweep (tests/cli/emit/sweep: 271 plans, about
# 1000 runs of pd2bw-plan) and bench/validate.sh --check run the optimised
# pd2bw-plan of $(B), the one `make` builds: under ASan each run costs
# several times as much, and every emitter and evaluate mode run under
# the sanitizers in the other emit/ and plan/ cases.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CHECK_GENCODE = -gencode arch=compute_80,code=compute_80
check test:
	@echo "pd2bw: building $(B)/pd2bw-plan and the tests into build/san" \
		"(sanitizers, $(JOBS) jobs)"
	$(MAKE) $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS)) \
		$(B)/pd2bw-plan $(SCALE_TESTS)
	$(MAKE) $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS)) \
		B=build/san SAN=1 CFLAGS='$(SAN_CFLAGS)' $(SAN_HOT) CUDA_FROM=$(B) \
		$(if $(filter \
		command line,$(origin NVCC_GENCODE)),,NVCC_GENCODE='$(CHECK_GENCODE)') \
		tests-build
	@echo "pd2bw: running the tests ($(JOBS) at a time)"
	JOBS=$(JOBS) PLAIN=$(B) sh tests/run.sh build/san

# The same suite on the plain optimised build (faster; no sanitizers).
check-fast:
	$(MAKE) $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS)) tests-build
	JOBS=$(JOBS) PLAIN=$(B) sh tests/run.sh $(B)

# Every command of README.md, as written, in a fresh clone (tests/readme.sh;
# README_QUICK=1 skips the slow ones: make check itself, the CPU profile).
check-readme:
	sh tests/readme.sh

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(DATADIR)/models \
		$(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR)/pd2bw
	cp $(filter-out %.so,$(PROGS)) $(DESTDIR)$(BINDIR)/
	$(if $(CUDA_SO),mkdir -p $(DESTDIR)$(LIBDIR)/pd2bw && \
		cp $(CUDA_SO) $(DESTDIR)$(LIBDIR)/pd2bw/)
	cp $(LIB_A) $(DESTDIR)$(LIBDIR)/
	cp include/pd2bw/*.h $(DESTDIR)$(INCDIR)/pd2bw/
	cp models/*.yaml $(DESTDIR)$(DATADIR)/models/
	cp man/*.1 $(DESTDIR)$(MANDIR)/man1/
	cp man/*.5 $(DESTDIR)$(MANDIR)/man5/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(filter-out %.so,$(PROGS))))
	rm -rf $(DESTDIR)$(LIBDIR)/pd2bw
	rm -f $(DESTDIR)$(LIBDIR)/libpd2bw.a
	rm -rf $(DESTDIR)$(INCDIR)/pd2bw $(DESTDIR)$(DATADIR)
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(wildcard man/*.5)))

# libFuzzer targets of every reader, built with clang into build/fuzz/ and
# run FUZZ_SECONDS each (default 600); not part of check.
fuzz:
	sh tests/fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf build

.PHONY: all check test check-fast check-readme tests-build install uninstall \
	clean fuzz
.SECONDARY:

# (not build/fuzz/: what the fuzzed programs write in their jails may
# end in .d too)
-include $(shell find $(B) -path $(B)/fuzz -prune -o -name '*.d' -print 2>/dev/null)
