// SQL on pg_grail's catalog tables, for the store's files (src/pg/store/catalog.cpp defines it):
// each statement runs connected to SPI with CatalogRights (src/pg/store/catalog.hpp says why).
#pragma once

#include <type_traits>

#include "store/catalog.hpp"

extern "C" {
#include "executor/spi.h"
}

namespace grail::pg {

/*
 * Connect to SPI, run fn, disconnect; all with CatalogRights. If fn throws, the error aborts the
 * transaction, which closes the SPI connection.
 */
template <typename Fn>
auto
with_spi(Fn &&fn) -> decltype(fn()) {
	CatalogRights rights;
	guard([] {
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
	});
	if constexpr (std::is_void_v<decltype(fn())>) {
		fn();
		guard([] { SPI_finish(); });
	} else {
		auto result = fn();
		guard([] { SPI_finish(); });
		return result;
	}
}

// Runs one statement in with_spi; an error unless SPI answers expected; returns the rows it
// processed. read_only: run in the statement's snapshot (what a query sees); otherwise SPI takes a
// new one.
int execute(const char *sql, int nargs, Oid *types, Datum *values, int expected, bool read_only = false);

} // namespace grail::pg
