// The GPU service's wire protocol (docs/architecture.md, The GPU service): framed messages over a
// Unix domain socket between a backend and the service's server process. No PostgreSQL here.
//
// A frame is a header (payload length, type; little-endian uint32 each) and its payload. Every
// request payload begins with kProtocolVersion: a server refuses another version with an error
// frame that says so (the module and the server come from different installations). A
// connection carries one request: the backend sends one request frame, the server answers with
// chunk frames (the result's bytes, at most kMaxChunk each) ending in an end frame, or with an
// error frame (an ErrorKind and a message and hint) at any point. The backend cancels by closing
// the connection; the server notices between steps (its cancel hook polls the socket) and drops
// the request.
#pragma once
#include "cpp_only.hpp"
#include "bfs.hpp"
#include "chordless.hpp"
#include "error.hpp"
#include "graph.hpp"
#include "index.hpp"
#include "shared_bytes.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace grail::service {

enum class FrameType : uint32_t {
	// requests
	info = 1,      // the version only
	bfs = 2,       // ImageRef, source vertex u32, max_depth u32, direction u8 (0 out, 1 in)
	scc = 3,       // ImageRef
	reach = 4,     // ImageRef, policy (mode u8, min_edges u64, min_searches u64), count u64, from[count] i64,
	               // to[count] i64
	build = 5,     // BuildRequest; then its rows in two shared frames, source[rows] i64 and target[rows]
	               // i64 (each a file of its own, so that each grows on its own while the rows are read).
	               // The result: encode_built().
	search = 6,    // SearchRequest: component pairs the backend's labels left undecided, only searched.
	               // The result: encode_searched().
	chordless = 7, // ChordlessRequest: the cycles as they are found (append_cycles()' bytes, streamed),
	               // or their counts by length (encode_counts()).
	// answers
	chunk = 100, // the next bytes of the result
	end = 101,   // the result is complete
	error = 102, // ErrorKind u8, message, hint
	// A build's rows arrived and its device work begins (no payload): the backend's
	// grail.gpu_service_wait ends there, since the build itself takes as long as it takes.
	started = 103,
	// Either way: the next bytes (a result's, or a build's rows) in a sealed memory file whose
	// descriptor comes with the frame (shared_bytes.hpp); the payload is their count, u64. A result
	// longer than one chunk comes so.
	shared = 104,
};

// 'G' 'R' and the version (2: the version field; 1 had none; 3: builds; 4: component searches;
// 5: chordless cycles; 6: shared frames; 7: a build's rows in two shared frames).
constexpr uint32_t kProtocolVersion = 0x47520000u | 7u;

constexpr size_t kHeaderBytes = 8;
constexpr size_t kMaxChunk = size_t(1) << 20;
// The largest request payload a server reads (a batch of 16M pairs): anything longer is refused
// before it is read.
constexpr size_t kMaxRequest = size_t(256) << 20;
// The largest result a client reassembles (its caller's memory is what bounds it in practice).
constexpr size_t kMaxResult = size_t(8) << 30;

// A malformed frame or payload, or a broken connection.
class ProtocolError : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// The image a request names is not in the cache (evicted, or its graph dropped or rebuilt since the
// backend mapped it): the backend answers the request itself. Its error frame carries kImageMissing
// in place of an ErrorKind.
class ImageMissing : public Error {
public:
	explicit ImageMissing(const std::string &message) : Error(ErrorKind::invalid_input, message) {
	}
};
constexpr uint8_t kImageMissing = 200;

// A request of another protocol version: its error frame says which.
class VersionMismatch : public Error {
public:
	explicit VersionMismatch(const std::string &message)
	    : Error(ErrorKind::invalid_input, message,
	            "Restart PostgreSQL after installing pg_grail, so that the GPU service runs the installed server.") {
	}
};

// Appends little-endian values to a byte buffer.
class Writer {
public:
	void u8(uint8_t v);
	void u32(uint32_t v);
	void u64(uint64_t v);
	void i64(int64_t v);
	void str(const std::string &s); // u32 length + bytes
	void bytes(const void *p, size_t n);
	// Pads with zeros to a multiple of a bytes from the start.
	void align(size_t a);
	std::vector<uint8_t> &
	buffer() noexcept {
		return buf_;
	}

private:
	std::vector<uint8_t> buf_;
};

// Reads what Writer wrote, every read bounds-checked: a short or long payload is a ProtocolError.
class Reader {
public:
	Reader(const uint8_t *p, size_t n) : p_(p), n_(n) {
	}
	uint8_t u8();
	uint32_t u32();
	uint64_t u64();
	int64_t i64();
	std::string str(size_t max_length = 4096);
	// n bytes, returned in place.
	const uint8_t *bytes(size_t n);
	size_t
	left() const noexcept {
		return n_ - at_;
	}
	// Skips to the next multiple of a bytes from the start (Writer::align's padding).
	void align(size_t a);
	// Throws unless every byte was read.
	void finish() const;

private:
	const uint8_t *p_;
	size_t n_;
	size_t at_ = 0;
};

// Names an image of the shared cache: its file name (no directory) and its build's uuid.
struct ImageRef {
	std::string file;
	std::string build_uuid;
};
void put_image(Writer &w, const ImageRef &image);
// The version every request begins with; check_version throws VersionMismatch for another.
void put_version(Writer &w);
void check_version(Reader &r);
// The info request's payload (the version only), and its check.
std::vector<uint8_t> encode_info_request();
void decode_info_request(const uint8_t *p, size_t n);
ImageRef get_image(Reader &r);
// Whether a file name is one the image cache makes: <database>_<graph>_<build>_<uuid>.img, digits
// and the uuid only (so no '/', no "..", nothing outside the cache directory), uuid its build's.
bool valid_image_name(const std::string &file, const std::string &build_uuid);

struct BfsRequest {
	ImageRef image;
	vid_t source = 0;
	uint32_t max_depth = UINT32_MAX;
	bool reverse = false; // follow in-edges
};
struct SccRequest {
	ImageRef image;
};
struct ReachRequest {
	ImageRef image;
	uint8_t mode = 2; // grail::DeviceMode: 0 cpu, 1 gpu, 2 automatic
	uint64_t min_edges = 0;
	uint64_t min_searches = 0;
	std::vector<int64_t> from, to;
};

// The pairs of a batch that the backend's ids and labels left undecided
// (ReachabilityQuery::Undecided), as components of the image's DAG: the server only searches them
// (it decides nothing again). Each pair from[i] < to[i] < the image's component count; any other
// is refused.
struct SearchRequest {
	ImageRef image;
	std::vector<vid_t> from, to;
};

// A graph build from rows (create_graph, refresh, merges): what Index::build's graph_builder and
// label_builder make on a device. The rows follow the request frame (FrameType::build).
struct BuildRequest {
	uint8_t mode = 2; // grail::DeviceMode, for the labels: 0 cpu, 1 gpu, 2 automatic
	uint64_t min_edges = 0;
	uint32_t labels = kDefaultLabels; // GRAIL traversals, 1..kMaxLabels
	uint64_t seed = 0;                // the labels' seed (BuildOptions::seed)
	uint64_t rows = 0;                // at most kMaxBuildRows
};
// The device builder's limit (build_graph_gpu): fewer than 2^31 rows.
constexpr uint64_t kMaxBuildRows = (uint64_t(1) << 31) - 1;

std::vector<uint8_t> encode(const BfsRequest &r);
std::vector<uint8_t> encode(const SccRequest &r);
std::vector<uint8_t> encode(const ReachRequest &r);
std::vector<uint8_t> encode(const BuildRequest &r);

// Chordless cycles of the image's graph (ChordlessCycleEnumerator's), min_length <= length <=
// max_length (3 <= min_length <= max_length; kNoLengthLimit: none), or only their counts by length
// (count_chordless_cycles()'s, which take no min_length: it is 3 then).
//
// The cycles are streamed: the server sends each batch of the enumeration as soon as it is found
// (the first batches of one cycle, then twice as many each time up to kStreamBatchCycles), in chunk
// frames of at most kMaxChunk that may split a cycle anywhere; the socket's buffer is as far as it
// runs ahead of a backend that reads them as its rows are asked for. A backend that wants no more
// (a LIMIT) closes the connection, and the server's enumeration stops at its next batch or cancel
// point. An error frame may follow cycles already sent. The end frame follows the last cycle.
struct ChordlessRequest {
	ImageRef image;
	uint32_t min_length = 3;
	uint32_t max_length = kNoLengthLimit;
	bool counts = false;
};
constexpr size_t kStreamBatchCycles = 1024;
constexpr size_t kStreamBatchVertices = size_t(1) << 16;
std::vector<uint8_t> encode(const ChordlessRequest &r);
ChordlessRequest decode_chordless(const uint8_t *p, size_t n);

BfsRequest decode_bfs(const uint8_t *p, size_t n);
SccRequest decode_scc(const uint8_t *p, size_t n);
ReachRequest decode_reach(const uint8_t *p, size_t n);
std::vector<uint8_t> encode(const SearchRequest &r);
SearchRequest decode_search(const uint8_t *p, size_t n);
BuildRequest decode_build(const uint8_t *p, size_t n);

// Results, as the bytes that the chunks carry.
//
// A bfs result's bytes: the row count (u64), then the vertices, the depths and the parents (u32
// each, count of each). The server sends them from the search's own arrays (send_bfs_rows: no
// joined copy); encode_bfs_rows() makes the same bytes at once (tests).
using BfsRows = BfsResult;
std::vector<uint8_t> encode_bfs_rows(const vid_t *vertex, const uint32_t *depth, const vid_t *parent, size_t count);

// What a bfs result must be to be taken as rows of a search: vertices of a graph of `vertices`
// vertices (parents too, or kNoVertex), the source first at depth 0, depths that never decrease and
// stay within max_depth; at most one row per vertex.
struct BfsShape {
	size_t vertices = 0;
	vid_t source = 0;
	uint32_t max_depth = UINT32_MAX;
};

// Takes a bfs result's bytes as they come (chunk by chunk, split anywhere) straight into a
// BfsResult's arrays, each allocated once at its size when the count is in: the caller holds one
// copy, which becomes its rows. With a shape, each value is checked against it as it lands (while
// it is in the cache), and finish() checks the first row: a result that is not a search of that
// graph is refused. Any violation, or a result shorter or longer than its count says, is a
// ProtocolError; no bytes read or write out of bounds.
class BfsReceiver {
public:
	BfsReceiver() = default;
	explicit BfsReceiver(const BfsShape &shape) : shape_(shape) {
	}
	void take(const uint8_t *p, size_t n);
	BfsResult finish();

private:
	void start();
	// Checks elements [from, to) of an array (0 vertices, 1 depths, 2 parents) against the shape.
	void check(int array, size_t from, size_t to) const;
	std::optional<BfsShape> shape_;
	uint8_t header_[8] = {};
	uint64_t received_ = 0;
	uint64_t count_ = 0;
	uint64_t total_ = 0;
	BfsResult rows_;
};
// A whole result at once (BfsReceiver without a shape).
BfsRows decode_bfs_rows(const std::vector<uint8_t> &bytes);

// A chordless request's cycles on the wire: for each cycle its length (u32), then its vertices (u32
// each), nothing between cycles. Appends a batch's cycles to out.
void append_cycles(const CycleBatch &batch, std::vector<uint8_t> &out);

// What cycles must be to be taken as chordless cycles of the graph asked about: vertices of a graph
// of `vertices` vertices, min_length <= length <= max_length (and at most the vertex count), in
// canonical form (the smallest vertex first, then the smaller of its two neighbours on the cycle).
struct CycleShape {
	size_t vertices = 0;
	uint32_t min_length = 3;
	uint32_t max_length = kNoLengthLimit;
};

// Takes a chordless stream's bytes as they come (chunk by chunk, split anywhere, a cycle across
// several chunks) and appends each cycle to a batch once all of it is in and checked against the
// shape. Any violation is a ProtocolError; the memory held for a cycle in progress is at most its
// length, itself at most the vertex count.
class CycleReceiver {
public:
	explicit CycleReceiver(const CycleShape &shape) : shape_(shape) {
	}
	void take(const uint8_t *p, size_t n, CycleBatch &batch);
	// Throws unless the bytes taken ended at the end of a cycle (the end frame came there).
	void finish() const;
	// Cycles taken so far.
	uint64_t
	cycles() const noexcept {
		return cycles_;
	}

private:
	void value(uint32_t v, CycleBatch &batch);
	CycleShape shape_;
	uint8_t partial_[4] = {};
	size_t partial_bytes_ = 0;
	bool in_cycle_ = false;
	uint32_t length_ = 0;
	std::vector<vid_t> cycle_;
	uint64_t cycles_ = 0;
};

// A chordless request's counts: the entry count (u64), then counts[k] (u64 each), as
// count_chordless_cycles() returns them.
std::vector<uint8_t> encode_counts(const std::vector<uint64_t> &counts);
// Refused unless they could be the counts of a graph of `vertices` vertices up to max_length: no
// cycle shorter than 3 or longer than either, no trailing zero.
std::vector<uint64_t> decode_counts(const std::vector<uint8_t> &bytes, size_t vertices, uint32_t max_length);
std::vector<uint8_t> encode_components(const uint32_t *of_vertex, size_t vertices, const vid_t *smallest,
                                       size_t components);
struct ComponentRows {
	std::vector<uint32_t> of_vertex;
	std::vector<vid_t> smallest_vertex;
};
ComponentRows decode_components(const std::vector<uint8_t> &bytes);
std::vector<uint8_t> encode_bits(const bool *answers, size_t count);
// A search request's result: the seconds the search itself took in the server (u64: a double's
// bits), then encode_bits() of its answers. decode_searched() returns the seconds.
std::vector<uint8_t> encode_searched(const bool *answers, size_t count, double search_seconds);
double decode_searched(const std::vector<uint8_t> &bytes, bool *answers, size_t count);

// A build's result: the graph, its components, the DAG and its labels, as Index::build adopts them
// (graph_builder, label_builder), with the seconds each step took.
struct BuiltParts {
	BuiltGraph graph;
	GrailLabels labels;
	double label_seconds = 0;
};
// Its bytes: a header of u64s (the bytes' count, the three steps' seconds, rows_known, the label
// count, then the element count of each of the kBuiltArrays arrays), then the arrays' elements,
// each padded to 8 bytes: ids, CSR offsets and targets, repeated edges, component of each vertex,
// smallest vertex of each component, DAG offsets and targets, label records.
constexpr int kBuiltArrays = 9;
constexpr size_t kBuiltHeaderBytes = 8 * (6 + kBuiltArrays);
// The result's bytes as pieces where they lie (the header written into header): what a server
// sends, gathered; joined by encode_built().
std::vector<BytePiece> built_pieces(const BuiltParts &parts, uint8_t (&header)[kBuiltHeaderBytes]);
std::vector<uint8_t> encode_built(const BuiltParts &parts);

// Takes a build result's bytes as they come (chunk by chunk) straight into the parts' arrays, each
// allocated once at its size when the header is in: the backend holds one copy, which Index::build
// adopts. finish() checks every shape a query relies on (ids strictly ascending, offsets, vertices
// and components within range, the smallest vertex of each component in it, one label record per
// component); what Index::build checks of them besides (the labels' consistency and exactness along
// the DAG's edges) it checks there. Any violation is a ProtocolError; no bytes read or write out of
// bounds.
class BuiltReceiver {
public:
	void take(const uint8_t *p, size_t n);
	// The whole result at once, where it lies (a shared frame's mapping): the arrays borrow from it,
	// kept alive by keep, instead of being copied out (a build's parts are hundreds of megabytes).
	// Only as the first bytes, p at an 8-byte boundary; finish() checks them as it checks taken ones.
	void adopt(const uint8_t *p, size_t n, std::shared_ptr<const void> keep);
	BuiltParts finish();

private:
	void start();
	void lay_out();
	template <typename Visit> void each_array(Visit &&visit);
	uint8_t header_[kBuiltHeaderBytes] = {};
	size_t received_ = 0;
	uint64_t total_ = 0;
	unsigned labels_ = 0;
	size_t bytes_[kBuiltArrays] = {};         // each array's bytes
	uint64_t ends_[kBuiltArrays] = {};        // where each array's padding ends
	uint8_t *destination_[kBuiltArrays] = {}; // each array's storage
	int part_ = 0;
	BuiltParts parts_;
	Array<uint32_t> label_data_;
};
// A whole result at once.
BuiltParts decode_built(const std::vector<uint8_t> &bytes);
void decode_bits(const std::vector<uint8_t> &bytes, bool *answers, size_t count);

struct ImageInfo {
	std::string file;
	std::string build_uuid;
	uint64_t host_bytes = 0;   // the mapped image
	uint64_t device_bytes = 0; // its device copies (the stand-in: its host-side copies)
	uint64_t last_use = 0;     // seconds since the epoch
	uint64_t requests = 0;
};
struct ServiceInfo {
	std::string executor; // "gpu" or "cpu stand-in"
	std::string device;   // the device's description
	uint64_t device_memory = 0;
	uint64_t memory_limit = 0;
	uint64_t requests = 0;
	std::vector<ImageInfo> images;
};
std::vector<uint8_t> encode_info(const ServiceInfo &info);
ServiceInfo decode_info(const std::vector<uint8_t> &bytes);

// An error frame's payload.
std::vector<uint8_t> encode_error(ErrorKind kind, const std::string &message, const std::string &hint);
std::vector<uint8_t> encode_image_missing(const std::string &message);
// The error of an error frame's payload, thrown (ImageMissing for kImageMissing).
[[noreturn]] void throw_error(const uint8_t *p, size_t n);
Error decode_error(const uint8_t *p, size_t n);

// Socket I/O. A wait function is called when the socket would block (for_write: waiting to write),
// and may throw (a cancel): the client's is the backend's latch wait; null blocks in poll().
using WaitFn = std::function<void(int fd, bool for_write)>;

// Writes a frame (header and payload); a ProtocolError when the peer is gone.
void send_frame(int fd, FrameType type, const uint8_t *payload, size_t n, const WaitFn &wait);
// Writes a shared frame: the pieces' bytes sealed in a memory file, its descriptor passed with the
// frame.
void send_shared(int fd, const std::vector<BytePiece> &pieces, const WaitFn &wait);
// Writes a shared frame of a memory file already sealed (a RowsFile's) holding count bytes; the
// descriptor stays the caller's.
void send_shared_file(int fd, int file, uint64_t count, const WaitFn &wait);
// Sends bytes as one chunk frame, or a shared frame when longer than kMaxChunk, then an end frame.
void send_result(int fd, const std::vector<uint8_t> &bytes, const WaitFn &wait);
// Sends bytes as chunk frames of at most kMaxChunk (no end frame: more may follow).
void send_chunks(int fd, const uint8_t *bytes, size_t n, const WaitFn &wait);
// Sends a bfs's rows (encode_bfs_rows()'s bytes) from its arrays, as send_result() would send those
// bytes, gathered from the arrays (no joined copy). Every array must hold as many rows as the
// vertices.
void send_bfs_rows(int fd, const BfsResult &rows, const WaitFn &wait);
// Reads one frame, refusing a payload longer than max_payload; false at a clean end of stream
// before a header. A shared frame's bytes are mapped into *shared (its payload checked); a shared
// frame where shared is null, a descriptor with any other frame or a shared frame without one is a
// ProtocolError.
bool recv_frame(int fd, FrameType &type, std::vector<uint8_t> &payload, size_t max_payload, const WaitFn &wait,
                SharedBytes *shared = nullptr);

} // namespace grail::service
