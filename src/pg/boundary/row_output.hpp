// The rows of a set-returning function in materialize mode, at about the cost of the rows
// themselves (what generate_series() pays for as many): a tuplestore sized to keep them in memory
// and, for rows of fixed-width columns (bigint, integer), a tuple formed once whose values are
// overwritten for each row, which the tuplestore copies as it would any tuple. Rows whose columns
// are keys of text or uuid graphs are written the same way (put_cells): the key's bytes copied from
// the graph's dictionary straight into the tuple, laid out as heap_fill_tuple() lays out those
// values (a text of up to 126 bytes with a one-byte header, unaligned; a longer one with a four-byte
// header, aligned), with no text datum formed in between. Every method runs PostgreSQL code: call
// it inside guard(). The object holds only PostgreSQL memory (the query's), so it may live inside a
// guard() lambda.
#pragma once

#include <cstddef>

#include "boundary/guard.hpp"

extern "C" {
#include "access/htup.h"
#include "access/tupdesc.h"
#include "utils/tuplestore.h"
}

namespace grail::pg {

class RowOutput {
public:
	// InitMaterializedSRF(fcinfo, 0), with a tuplestore that keeps `rows` rows in memory (up to
	// work_mem times hash_mem_multiplier, and never less than work_mem, which bounds the usual
	// one); past that it spills to a temporary file as any tuplestore does. key_bytes: the bytes of
	// variable-length values per row (text keys), for that size.
	void begin(FunctionCallInfo fcinfo, size_t rows, size_t key_bytes = 0);

	// Whether every column is of a fixed-width type passed by value, so that put_fixed() may take
	// the rows.
	bool
	fixed_width() const noexcept {
		return fixed_;
	}

	// A row with no NULL, of fixed-width columns only (fixed_width()).
	void
	put_fixed(const Datum *values) {
		char *data = reinterpret_cast<char *>(tuple_.t_data) + tuple_.t_data->t_hoff;
		for (int i = 0; i < columns_; i++)
			store(data + offset_[i], length_[i], values[i]);
		tuplestore_puttuple(store_, &tuple_);
	}

	// Any row.
	void
	put(Datum *values, bool *nulls) {
		tuplestore_putvalues(store_, desc_, values, nulls);
	}

	// A column's value for put_cells(): a datum for a column passed by value (bigint, integer,
	// oid), else the bytes of the value without any header (a text's characters, a uuid's 16
	// bytes), which put_cells() copies.
	struct Cell {
		Datum value;
		const char *bytes;
		size_t length;
	};

	// Whether put_cells() may take the rows: every column passed by value, or a text (varlena) or
	// another fixed-length type (uuid).
	bool
	cells() const noexcept {
		return cells_;
	}

	// A row with no NULL (cells()), its values in cells: formed in place in one buffer, which the
	// tuplestore copies. A fixed-length column passed by reference takes exactly its length in bytes.
	void put_cells(const Cell *cells);

private:
	static constexpr int kMaxColumns = 4;
	static void store(char *at, int length, Datum value);
	// Room for a tuple of `bytes` bytes (header included) in buffer_.
	void reserve(size_t bytes);

	Tuplestorestate *store_ = nullptr;
	TupleDesc desc_ = nullptr;
	HeapTupleData tuple_{};
	bool fixed_ = false;
	int columns_ = 0;
	int offset_[kMaxColumns] = {};
	int length_[kMaxColumns] = {};
	// put_cells(): each column's attlen, alignment in bytes, whether passed by value, whether a
	// varlena that heap_fill_tuple() would store with a short header where it fits; the tuple's
	// header (t_hoff bytes, formed once) and a buffer the rows are formed in.
	bool cells_ = false;
	int attlen_[kMaxColumns] = {};
	int align_[kMaxColumns] = {};
	bool by_value_[kMaxColumns] = {};
	bool packable_[kMaxColumns] = {};
	int hoff_ = 0;
	char *buffer_ = nullptr;
	size_t capacity_ = 0;
	HeapTupleData cell_tuple_{};
};

} // namespace grail::pg
