#include "boundary/row_output.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

extern "C" {
#include "access/htup_details.h"
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
