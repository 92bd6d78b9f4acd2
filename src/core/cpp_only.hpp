// Included by every engine header: the engine (src/core, cuda/) must not see PostgreSQL,
// whose headers redefine C library names and whose errors longjmp over C++ frames.
#pragma once

#ifdef POSTGRES_H
#error "src/core and cuda/ are PostgreSQL-free: do not include postgres.h before an engine header"
#endif
