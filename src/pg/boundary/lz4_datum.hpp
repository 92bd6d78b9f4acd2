// PostgreSQL's lz4-compressed varlena, made without PostgreSQL: the layout that
// toast_compress_datum(value, TOAST_LZ4_COMPRESSION) returns and that every reader of a column
// decompresses when it detoasts (a 4-byte varlena header marked compressed, a 4-byte word of the
// raw size and the method, then one lz4 block). A build's helper threads compress an image's
// chunks with it: it calls only liblz4, which the server itself is linked with.
#pragma once

#include <cstddef>
#include <cstdint>

namespace grail::pg {

// Whether this server was built with lz4 (then it reads such datums and lz4_datum_prefix works).
bool lz4_datums_supported();

// Compresses as long a prefix of src[0, n) as fits into one lz4-compressed datum of at most
// `capacity` bytes, header included, written at out. Returns how many bytes of src the datum holds
// (0 where none fits, the server has no lz4, or the datum does not decompress to those bytes) and
// sets *datum_bytes to the datum's size. No PostgreSQL call: safe on any thread.
size_t lz4_datum_prefix(const uint8_t *src, size_t n, uint8_t *out, size_t capacity, size_t *datum_bytes);

} // namespace grail::pg
