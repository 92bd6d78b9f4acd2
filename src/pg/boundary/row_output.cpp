#include "boundary/row_output.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"
}

namespace grail::pg {

void
RowOutput::store(char *at, int length, Datum value) {
	switch (length) {
	case 8: {
		int64 v = DatumGetInt64(value);
		std::memcpy(at, &v, 8);
		break;
	}
	case 4: {
		int32 v = DatumGetInt32(value);
		std::memcpy(at, &v, 4);
		break;
	}
	case 2: {
		int16 v = DatumGetInt16(value);
		std::memcpy(at, &v, 2);
		break;
	}
	default:
		*at = DatumGetChar(value);
		break;
	}
}

void
RowOutput::reserve(size_t bytes) {
	if (bytes <= capacity_)
		return;
	size_t capacity = std::max(bytes, 2 * capacity_);
	// repalloc keeps the header, formed once in begin().
	buffer_ = static_cast<char *>(repalloc(buffer_, capacity));
	capacity_ = capacity;
	cell_tuple_.t_data = reinterpret_cast<HeapTupleHeader>(buffer_);
}

void
RowOutput::put_cells(const Cell *cells) {
	size_t worst = size_t(hoff_);
	for (int i = 0; i < columns_; i++)
		worst += size_t(align_[i]) + (attlen_[i] == -1 ? VARHDRSZ + cells[i].length : size_t(attlen_[i]));
	reserve(worst);
	char *data = buffer_ + hoff_;
	size_t at = 0;
	// What heap_fill_tuple() writes for these values: padding bytes zero (a reader tells a short
	// varlena's header from padding by that), a short header for a text that fits one.
	auto align = [&](int alignment) {
		size_t aligned = TYPEALIGN(alignment, at);
		if (aligned != at)
			std::memset(data + at, 0, aligned - at);
		at = aligned;
	};
	for (int i = 0; i < columns_; i++) {
		const Cell &cell = cells[i];
		if (by_value_[i]) {
			align(align_[i]);
			store(data + at, attlen_[i], cell.value);
			at += size_t(attlen_[i]);
		} else if (attlen_[i] == -1) {
			if (packable_[i] && cell.length + VARHDRSZ_SHORT <= VARATT_SHORT_MAX) {
				SET_VARSIZE_SHORT(data + at, cell.length + VARHDRSZ_SHORT);
				if (cell.length != 0)
					std::memcpy(data + at + VARHDRSZ_SHORT, cell.bytes, cell.length);
				at += cell.length + VARHDRSZ_SHORT;
			} else {
				align(align_[i]);
				SET_VARSIZE(data + at, cell.length + VARHDRSZ);
				if (cell.length != 0)
					std::memcpy(data + at + VARHDRSZ, cell.bytes, cell.length);
				at += cell.length + VARHDRSZ;
			}
		} else {
			align(align_[i]);
			std::memcpy(data + at, cell.bytes, size_t(attlen_[i]));
			at += size_t(attlen_[i]);
		}
	}
	cell_tuple_.t_len = uint32(size_t(hoff_) + at);
	tuplestore_puttuple(store_, &cell_tuple_);
}

void
RowOutput::begin(FunctionCallInfo fcinfo, size_t rows, size_t key_bytes) {
	InitMaterializedSRF(fcinfo, 0);
	ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
	desc_ = rsinfo->setDesc;
	columns_ = desc_->natts;
	// The tuples' layout when no column is NULL: every column fixed-width and passed by value.
	fixed_ = columns_ <= kMaxColumns;
	int offset = 0;
	for (int i = 0; fixed_ && i < columns_; i++) {
		Form_pg_attribute att = TupleDescAttr(desc_, i);
		if (att->attisdropped || !att->attbyval || att->attlen <= 0) {
			fixed_ = false;
			break;
		}
		offset = att_align_nominal(offset, att->attalign);
		offset_[i] = offset;
		length_[i] = att->attlen;
		offset += att->attlen;
	}
	// put_cells(): columns passed by value, texts (varlenas) and other fixed-length types.
	cells_ = columns_ <= kMaxColumns;
	bool varwidth = false;
	for (int i = 0; cells_ && i < columns_; i++) {
		Form_pg_attribute att = TupleDescAttr(desc_, i);
		bool by_value = att->attbyval && (att->attlen == 1 || att->attlen == 2 || att->attlen == 4 || att->attlen == 8);
		if (att->attisdropped || !(by_value || att->attlen == -1 || (att->attlen > 0 && !att->attbyval))) {
			cells_ = false;
			break;
		}
		attlen_[i] = att->attlen;
		by_value_[i] = by_value;
		packable_[i] = att->attlen == -1 && att->attstorage != TYPSTORAGE_PLAIN;
		varwidth = varwidth || att->attlen == -1;
		switch (att->attalign) {
		case TYPALIGN_DOUBLE:
			align_[i] = ALIGNOF_DOUBLE;
			break;
		case TYPALIGN_INT:
			align_[i] = ALIGNOF_INT;
			break;
		case TYPALIGN_SHORT:
			align_[i] = ALIGNOF_SHORT;
			break;
		default:
			align_[i] = 1;
			break;
		}
	}
	if (cells_) {
		// The header heap_form_tuple() writes for a row without NULLs, in the memory of the call.
		hoff_ = int(MAXALIGN(SizeofHeapTupleHeader));
		capacity_ = size_t(hoff_) + 256;
		buffer_ = static_cast<char *>(palloc0(capacity_));
		HeapTupleHeader header = reinterpret_cast<HeapTupleHeader>(buffer_);
		HeapTupleHeaderSetTypeId(header, desc_->tdtypeid);
		HeapTupleHeaderSetTypMod(header, desc_->tdtypmod);
		ItemPointerSetInvalid(&header->t_ctid);
		HeapTupleHeaderSetNatts(header, columns_);
		header->t_hoff = uint8(hoff_);
		header->t_infomask = varwidth ? HEAP_HASVARWIDTH : 0;
		cell_tuple_.t_data = header;
		cell_tuple_.t_tableOid = InvalidOid;
		ItemPointerSetInvalid(&cell_tuple_.t_self);
	}
	MemoryContext old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	if (fixed_) {
		// Formed once (the header, the null bitmap's absence, the length); put_fixed() writes
		// each row's values over its data.
		Datum zero[kMaxColumns] = {};
		bool nulls[kMaxColumns] = {};
		HeapTuple formed = heap_form_tuple(desc_, zero, nulls);
		tuple_ = *formed;
	}
	// A tuple in the store: its minimal form rounded up to a power of two by the allocator, the
	// chunk's header and the store's pointer to it. Rows beyond the memory spill, as before.
	size_t tuple = MAXALIGN(SizeofMinimalTupleHeader + size_t(columns_) * 8 + key_bytes + 8);
	size_t chunk = 16;
	while (chunk < tuple)
		chunk *= 2;
	// At most what a hash table of the query may hold (work_mem times hash_mem_multiplier), the
	// memory a DBA gives each node: any role may call these functions, several in one query.
	double wanted_kb = double(rows) * double(chunk + 16 + sizeof(void *)) / 1024.0;
	double limit_kb = double(get_hash_memory_limit()) / 1024.0;
	double kb = std::max(double(work_mem), std::min({wanted_kb * 1.1 + 64, limit_kb, double(INT_MAX)}));
	if (kb > double(work_mem)) {
		bool random_access = (rsinfo->allowedModes & SFRM_Materialize_Random) != 0;
		tuplestore_end(rsinfo->setResult);
		rsinfo->setResult = tuplestore_begin_heap(random_access, false, int(kb));
	}
	store_ = rsinfo->setResult;
	MemoryContextSwitchTo(old);
}

} // namespace grail::pg
