#include "error.hpp"
#include "index.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "image_cache.hpp"
#include "settings.hpp"

extern "C" {
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "funcapi.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
}

namespace grail::pg {

CacheCounters cache_counters;

static const char *const kTempDir = "base/" PG_TEMP_FILES_DIR;
static const char *const kCacheDir = "base/" PG_TEMP_FILES_DIR "/" PG_TEMP_FILE_PREFIX "_grail";

// <database>_<graph id>_<build uuid>.img: the build names the image (never reused); the graph
// lets a new build, or a drop, remove the graph's older images at once instead of waiting for
// their eviction.
static std::string
graph_prefix(int64_t graph_id) {
	return std::string(kCacheDir) + "/" + std::to_string(MyDatabaseId) + "_" + std::to_string(graph_id) + "_";
}

static std::string
cache_path(const GraphRow &row) {
	return graph_prefix(row.id) + row.build_uuid + ".img";
}

/*
 * The file at path mapped read-only, or nullptr if it is missing or not size bytes long.
 */
static std::shared_ptr<const uint8_t>
map_file(const std::string &path, size_t size) {
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return nullptr;
	struct stat st;
	void *mapped = MAP_FAILED;
	if (fstat(fd, &st) == 0 && uint64_t(st.st_size) == size)
		// Populated at once: the checksum reads every page anyway, and one call maps them faster
		// than a fault per page.
		mapped = mmap(nullptr, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	close(fd);
	if (mapped == MAP_FAILED)
		return nullptr;
	utimensat(AT_FDCWD, path.c_str(), nullptr, 0); // its last use, for eviction
	return std::shared_ptr<const uint8_t>(static_cast<const uint8_t *>(mapped),
	                                      [size](const uint8_t *p) { munmap(const_cast<uint8_t *>(p), size); });
}

static bool
make_cache_dirs() {
	for (const char *dir : {kTempDir, kCacheDir})
		if (guard([&] { return MakePGDirectory(dir); }) != 0 && errno != EEXIST)
			return false;
	return true;
}

/*
 * The right to write one image: the first backend that needs it writes it while the others that
 * need it meanwhile wait (an flock, which the kernel releases if the writer dies), then map what
 * it wrote instead of reading the catalog too. Waiting polls for cancel requests. Not held when
 * the lock file cannot be made: the caller then writes on its own.
 */
class WriteLock {
public:
	explicit WriteLock(const std::string &path) {
		if (!make_cache_dirs())
			return;
		fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		while (fd_ >= 0 && flock(fd_, LOCK_EX | LOCK_NB) != 0) {
			if (errno != EWOULDBLOCK && errno != EINTR) {
				close(fd_);
				fd_ = -1;
			} else {
				guard([] {
					CHECK_FOR_INTERRUPTS();
					pg_usleep(1000L);
				});
			}
		}
	}
	~WriteLock() {
		if (fd_ >= 0)
			close(fd_); // releases the lock
	}
	WriteLock(const WriteLock &) = delete;
	WriteLock &operator=(const WriteLock &) = delete;

private:
	int fd_ = -1;
};

/*
 * A new file of size bytes under a temporary name next to path, mapped read-write, its space
 * reserved (a write to a mapped file with no room left would be a SIGBUS, not an error); nullptr,
 * and nothing left behind, if that fails (a full disk, a read-only data directory).
 */
static std::shared_ptr<uint8_t>
create_file(const std::string &temp, size_t size) {
	int fd = open(temp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return nullptr;
	void *mapped = MAP_FAILED;
	if (posix_fallocate(fd, 0, off_t(size)) == 0)
		mapped = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (mapped == MAP_FAILED) {
		unlink(temp.c_str());
		return nullptr;
	}
	return std::shared_ptr<uint8_t>(static_cast<uint8_t *>(mapped), [size](uint8_t *p) { munmap(p, size); });
}

struct CacheFile {
	std::string path;
	uint64_t bytes;
	struct timespec used;
};

/*
 * The image files in the cache (all databases', since the limit is the server's).
 */
static std::vector<CacheFile>
cache_files() {
	std::vector<CacheFile> files;
	DIR *dir = opendir(kCacheDir);
	if (dir == nullptr)
		return files;
	while (struct dirent *entry = readdir(dir)) {
		std::string name = entry->d_name;
		if (name.size() < 4 || name.compare(name.size() - 4, 4, ".img") != 0)
			continue;
		std::string path = std::string(kCacheDir) + "/" + name;
		struct stat st;
		if (stat(path.c_str(), &st) == 0)
			files.push_back({path, uint64_t(st.st_size), st.st_mtim});
	}
	closedir(dir);
	return files;
}

/*
 * Remove the least recently used images until the cache fits its limit, keeping keep. Backends
 * that map a removed image keep it until they notice (still_cached) at their next statement.
 */
static void
evict(uint64_t limit, const std::string &keep) {
	std::vector<CacheFile> files = cache_files();
	uint64_t total = 0;
	for (const CacheFile &f : files)
		total += f.bytes;
	std::sort(files.begin(), files.end(), [](const CacheFile &a, const CacheFile &b) {
		return a.used.tv_sec != b.used.tv_sec ? a.used.tv_sec < b.used.tv_sec : a.used.tv_nsec < b.used.tv_nsec;
	});
	for (const CacheFile &f : files) {
		if (total <= limit)
			break;
		if (f.path != keep && unlink(f.path.c_str()) == 0)
			total -= f.bytes;
	}
}

/*
 * The image at path mapped and attached, if it is there and sound; a damaged one is removed.
 */
static bool
open_cached(const std::string &path, size_t size, const char *display, OpenedIndex *opened) {
	std::shared_ptr<const uint8_t> mapped = map_file(path, size);
	if (!mapped)
		return false;
	// The writer checked it in full; the checksum catches damage since.
	try {
		*opened = {Index::attach(mapped, size, Index::Check::checksum), path};
		cache_counters.hits++;
		return true;
	} catch (const Error &e) {
		if (e.kind() != ErrorKind::corrupt_index)
			throw;
		unlink(path.c_str());
		guard([&] {
			ereport(WARNING, (errmsg("pg_grail graph \"%s\": its cached image file was damaged (%s); read again "
			                         "from the catalog",
			                         display, e.what())));
		});
		return false;
	}
}

OpenedIndex
open_index(const GraphRow &row, const char *display) {
	size_t size = size_t(row.index_bytes);
	uint64_t limit = uint64_t(settings.shared_cache_size_mb) << 20;
	bool cacheable = limit > 0 && size <= limit && !row.build_uuid.empty();
	OpenedIndex opened;
	std::string path = cacheable ? cache_path(row) : std::string();
	if (cacheable && open_cached(path, size, display, &opened))
		return opened;
	check_index_size(row);
	if (cacheable) {
		WriteLock lock(path + ".lock");
		if (open_cached(path, size, display, &opened)) // written while this backend waited
			return opened;
		// Into a new cache file: the chunks go straight to the page cache that every backend will
		// map, checked in full there before the file takes its name.
		std::string temp = path + "." + std::to_string(MyProcPid) + ".tmp";
		cache_counters.loads++;
		if (std::shared_ptr<uint8_t> file = create_file(temp, size)) {
			Index index;
			try {
				load_index(row, file.get());
				index = Index::attach(file, size, Index::Check::full);
			} catch (...) {
				unlink(temp.c_str());
				throw;
			}
			// A version 1 image is copied out: nothing to share.
			if (index.graph().ids.borrowed() && rename(temp.c_str(), path.c_str()) == 0) {
				forget_images(row.id, path);
				evict(limit, path);
				return {std::move(index), path};
			}
			unlink(temp.c_str()); // what the index borrows stays mapped
			cache_counters.private_copies++;
			return {std::move(index), std::string()};
		}
	} else {
		cache_counters.loads++;
	}
	std::shared_ptr<uint8_t> image = Index::image_buffer(size);
	load_index(row, image.get());
	cache_counters.private_copies++;
	return {Index::attach(image, size, Index::Check::full), std::string()};
}

void
forget_images(int64_t graph_id, const std::string &keep) {
	std::string prefix = graph_prefix(graph_id);
	std::string keep_build = keep.empty() ? std::string() : keep.substr(0, keep.size() - 4); // without ".img"
	DIR *dir = opendir(kCacheDir);
	if (dir == nullptr)
		return;
	while (struct dirent *entry = readdir(dir)) {
		std::string path = std::string(kCacheDir) + "/" + entry->d_name;
		if (path.compare(0, prefix.size(), prefix) == 0 &&
		    (keep_build.empty() || path.compare(0, keep_build.size(), keep_build) != 0))
			unlink(path.c_str());
	}
	closedir(dir);
}

bool
still_cached(const std::string &path) {
	return path.empty() || access(path.c_str(), F_OK) == 0;
}

} // namespace grail::pg

using namespace grail::pg;

/*
 * grail.cache_info(): one row per cached image file of this database.
 */
GRAIL_FUNCTION(grail_cache_info) {
	std::vector<CacheFile> files = cache_files();
	std::string prefix = std::string(kCacheDir) + "/" + std::to_string(MyDatabaseId) + "_";
	guard([&] {
		InitMaterializedSRF(fcinfo, 0);
		ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
		for (const CacheFile &f : files) {
			if (f.path.compare(0, prefix.size(), prefix) != 0)
				continue;
			std::string name = f.path.substr(prefix.size(), f.path.size() - prefix.size() - 4); // graph_uuid
			std::string uuid = name.substr(name.find('_') + 1);
			Datum values[3];
			bool nulls[3] = {false, false, false};
			values[0] = DirectFunctionCall1(uuid_in, CStringGetDatum(uuid.c_str()));
			values[1] = Int64GetDatum(int64(f.bytes));
			values[2] = TimestampTzGetDatum(time_t_to_timestamptz(f.used.tv_sec));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	});
	return (Datum)0;
}

/*
 * grail.cache_counters(): this backend's hits, loads and private copies, and the cache's size.
 */
GRAIL_FUNCTION(grail_cache_counters) {
	std::vector<CacheFile> files = cache_files();
	uint64_t cached = 0;
	for (const CacheFile &f : files)
		cached += f.bytes;
	return guard([&] {
		TupleDesc desc;
		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "grail.cache_counters() must return a record");
		desc = BlessTupleDesc(desc);
		Datum values[6] = {Int64GetDatum(int64(uint64_t(settings.shared_cache_size_mb) << 20)),
		                   Int64GetDatum(int64(cached)),
		                   Int64GetDatum(int64(files.size())),
		                   Int64GetDatum(int64(cache_counters.hits)),
		                   Int64GetDatum(int64(cache_counters.loads)),
		                   Int64GetDatum(int64(cache_counters.private_copies))};
		bool nulls[6] = {false, false, false, false, false, false};
		return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
	});
}
