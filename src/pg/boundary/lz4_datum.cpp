#include "boundary/lz4_datum.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

extern "C" {
#include "postgres.h"

#include "access/toast_compression.h"
#include "access/toast_internals.h"
}

#ifdef USE_LZ4
// From lz4.h's stable API (liblz4 1.9), declared here because the server's lz4 is linked without
// its headers: the module resolves it from the server's own liblz4 when it is loaded, so the
// compressor is the library the server decompresses with.
extern "C" int LZ4_compress_destSize(const char *src, char *dst, int *srcSizePtr, int targetDstSize);
extern "C" int LZ4_decompress_safe(const char *src, char *dst, int compressedSize, int dstCapacity);
extern "C" int LZ4_versionNumber(void);
#endif

namespace grail::pg {

bool
lz4_datums_supported() {
#ifdef USE_LZ4
	return true;
#else
	return false;
#endif
}

#ifdef USE_LZ4
// Whether the lz4 block at block, of size bytes, decompresses to raw[0, n).
static bool
decompresses_to(const uint8_t *block, int size, const uint8_t *raw, int n) {
	thread_local std::vector<char> scratch;
	scratch.resize(size_t(n));
	return LZ4_decompress_safe(reinterpret_cast<const char *>(block), scratch.data(), size, n) == n &&
	       memcmp(scratch.data(), raw, size_t(n)) == 0;
}
#endif

size_t
lz4_datum_prefix(const uint8_t *src, size_t n, uint8_t *out, size_t capacity, size_t *datum_bytes) {
	*datum_bytes = 0;
#ifdef USE_LZ4
	if (capacity <= VARHDRSZ_COMPRESSED || n == 0)
		return 0;
	// lz4 counts in int; the raw size must fit the header's 30 bits.
	int taken = int(std::min<size_t>({n, size_t(INT_MAX), size_t(VARLENA_EXTSIZE_MASK)}));
	int target = int(std::min<size_t>(capacity - VARHDRSZ_COMPRESSED, size_t(INT_MAX)));
	int compressed = LZ4_compress_destSize(reinterpret_cast<const char *>(src),
	                                       reinterpret_cast<char *>(out) + VARHDRSZ_COMPRESSED, &taken, target);
	if (compressed <= 0 || taken <= 0)
		return 0;
	// Under liblz4 before 1.9.2, which could write LZ4_compress_destSize's output wrongly (lz4 pull
	// requests 756, 760, 777), read back as the server will (lz4_decompress_datum); a prefix that
	// does not come back is left to a plain row. (Later versions: 12% more CPU for nothing.)
	static const bool verify = LZ4_versionNumber() < 10902;
	if (verify && !decompresses_to(out + VARHDRSZ_COMPRESSED, compressed, src, taken))
		return 0;
	// As toast_compress_datum leaves it (lz4_compress_datum, then the raw size and method).
	SET_VARSIZE_COMPRESSED(out, compressed + VARHDRSZ_COMPRESSED);
	TOAST_COMPRESS_SET_SIZE_AND_COMPRESS_METHOD(out, uint32(taken), TOAST_LZ4_COMPRESSION_ID);
	*datum_bytes = size_t(compressed) + VARHDRSZ_COMPRESSED;
	return size_t(taken);
#else
	(void)src;
	(void)n;
	(void)out;
	(void)capacity;
	return 0;
#endif
}

} // namespace grail::pg
