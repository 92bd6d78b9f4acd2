# PGXS build of the pg_grail module. The engine (src/core, and cuda/ when nvcc is found) is
# built by CMake into build/ and linked in, the way pg_duckdb builds its library.
EXTENSION = pg_grail
EXTVERSION = 0.7.0
MODULE_big = pg_grail

OBJS = $(patsubst %.cpp,%.o,$(sort $(wildcard src/pg/*/*.cpp)))

# The first version's install script, the upgrade scripts, and the current version's install script
# (made from sql/pg_grail.sql): PostgreSQL reaches every other version through the upgrade chain.
DATA = $(filter-out $(DATA_built),$(wildcard sql/$(EXTENSION)--*.sql))
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql

# pg_regress tests: test/sql/NAME.sql against test/expected/NAME.out, each on its own tables and
# graphs, so that any subset runs in any order (make installcheck REGRESS=bfs).
REGRESS = $(patsubst test/sql/%.sql,%,$(sort $(wildcard test/sql/*.sql)))
REGRESS_OPTS = --inputdir=test --load-extension=$(EXTENSION)

ENGINE_BUILD = build
CMAKE ?= cmake
CMAKE_FLAGS ?=
# CMake writes the engine's link line and where xxhash.h lies (build/engine.mk); read before PGXS,
# which expands PG_CPPFLAGS at once. make remakes the file first, then re-reads the Makefile.
-include $(ENGINE_BUILD)/engine.mk
PG_CPPFLAGS = -Isrc/core -Isrc/pg -Isrc $(GRAIL_ENGINE_CPPFLAGS) -DGRAIL_EXTVERSION=\"$(EXTVERSION)\"
PG_CXXFLAGS = -std=c++17 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers -Wno-cast-function-type -Wno-register -fno-strict-aliasing
SHLIB_LINK = $(GRAIL_ENGINE_LINK) -lstdc++

# GRAIL_SANITIZE=1 (scripts/sanitize.sh): the glue and the engine with AddressSanitizer and
# UndefinedBehaviorSanitizer, CPU only; the server must then run with libasan preloaded.
ifdef GRAIL_SANITIZE
SANITIZE_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
PG_CXXFLAGS += $(SANITIZE_FLAGS)
SHLIB_LINK += $(SANITIZE_FLAGS)
override CMAKE_FLAGS += -DGRAIL_WITH_CUDA=OFF -DGRAIL_SANITIZE=ON
endif

# No JIT bitcode: it needs the clang that PostgreSQL was built with, and our hot paths are C++.
override with_llvm = no
# Objects depend on the headers they include (.deps/): a changed struct must rebuild every user.
override autodepend = yes

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

$(ENGINE_BUILD)/engine.mk: CMakeLists.txt
	$(CMAKE) -S . -B $(ENGINE_BUILD) -DGRAIL_BUILD_TESTS=OFF $(CMAKE_FLAGS)

.PHONY: engine
engine: $(ENGINE_BUILD)/engine.mk
	MAKEFLAGS= $(CMAKE) --build $(ENGINE_BUILD) --target grail_engine pg_grail_gpu_server -j $(or $(JOBS),2)

$(OBJS): | engine
# GRAIL_EXTVERSION comes from here: a new version must rebuild the check that uses it.
src/pg/store/catalog.o: Makefile
$(shlib): engine

# The GPU service's server process, next to the module (src/pg/entry/gpu_service_worker.cpp runs it).
install: install-gpu-server
.PHONY: install-gpu-server
install-gpu-server: engine
	$(INSTALL_PROGRAM) $(ENGINE_BUILD)/pg_grail_gpu_server '$(DESTDIR)$(pkglibdir)/pg_grail_gpu_server'

sql/$(EXTENSION)--$(EXTVERSION).sql: sql/$(EXTENSION).sql
	cp $< $@

EXTRA_CLEAN = $(ENGINE_BUILD)
