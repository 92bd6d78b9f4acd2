#include "build_delta.hpp"
#include "huge_pages.hpp"
#include "error.hpp"
#include "index.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "service/image_cache.hpp"
#include "store/image_stats.hpp"
#include "boundary/settings.hpp"

extern "C" {
#include <dirent.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/procarray.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
}

namespace grail::pg {

CacheCounters cache_counters;

static const char *const kTempDir = "base/" PG_TEMP_FILES_DIR;
static const char *const kCacheDir = "base/" PG_TEMP_FILES_DIR "/" PG_TEMP_FILE_PREFIX "_grail";
// Held to make a file or give one its name (make_room counts what the directory lists).
static const char *const kSpaceLock = "base/" PG_TEMP_FILES_DIR "/" PG_TEMP_FILE_PREFIX "_grail/space.lock";

// <database>_<graph id>_<build number>_<build uuid>.img: the build's uuid names the image (never
// reused); the graph lets a drop remove the graph's images at once, and the build number lets a
// newer build remove older builds' images that no backend maps any more, instead of waiting for
// their eviction.
static std::string
graph_prefix(int64_t graph_id) {
	return std::string(kCacheDir) + "/" + std::to_string(MyDatabaseId) + "_" + std::to_string(graph_id) + "_";
}

static std::string
cache_path(const GraphRow &row) {
	return graph_prefix(row.id) + std::to_string(row.build) + "_" + row.build_uuid + ".img";
}

static bool
ends_with(const std::string &name, const char *suffix) {
	size_t n = std::strlen(suffix);
	return name.size() > n && name.compare(name.size() - n, n, suffix) == 0;
}

// The name of a cache file without its directory: the key of its server-wide counters.
static std::string
file_name(const std::string &path) {
	return path.substr(path.rfind('/') + 1);
}

/*
 * A cache file this backend maps: the mapping, and the file kept open (with a shared flock) so
 * that each statement can check by a cheap fstat that the file still has its size before a query
 * reads the mapping (the pages of a truncated file are a SIGBUS), and so that a backend that opens
 * a newer build can tell that this one is still in use (remove_unused_older_images). Without a
 * descriptor to spare (AcquireExternalFD) the file is closed, checked by its name instead, and not
 * marked as in use.
 */
struct CachedFile {
	std::string path; // the image's name (a temp file's, until published)
	void *bytes = MAP_FAILED;
	size_t size = 0;
	int fd = -1;

	CachedFile() = default;
	CachedFile(const CachedFile &) = delete;
	CachedFile &operator=(const CachedFile &) = delete;
	~CachedFile() {
		if (bytes != MAP_FAILED)
			munmap(bytes, size);
		if (fd >= 0) {
			close(fd);           // releases the flock
			ReleaseExternalFD(); // a counter: cannot raise an error
		}
	}
	// Keeps fd open, or closes it when this backend has no descriptor to spare.
	void
	keep_open(int descriptor) {
		if (guard([] { return AcquireExternalFD(); }))
			fd = descriptor;
		else
			close(descriptor);
	}
};

/*
 * fd's first size bytes mapped shared at a 2 MB boundary and advised for huge pages. Where the
 * kernel keeps a file's pages in 2 MB folios (ext4 and xfs with large folios, Linux 6.x) such a
 * mapping takes one TLB entry per 2 MB instead of 512: a search reads a vertex's offsets and list
 * scattered over the whole image, and on a 1M-vertex graph most of those reads missed the TLB too.
 * Elsewhere the advice does nothing and the mapping is as plain mmap's. MAP_FAILED if it fails.
 */
static void *
map_shared(size_t size, int prot, int fd) {
	if (size < kHugePage)
		return mmap(nullptr, size, prot, MAP_SHARED, fd, 0);
	// Room at the next boundary, then the file over it.
	const size_t page = size_t(sysconf(_SC_PAGESIZE)), mapped = (size + page - 1) / page * page;
	void *start = reserve_huge_page_aligned(mapped);
	if (start == MAP_FAILED)
		return mmap(nullptr, size, prot, MAP_SHARED, fd, 0);
	void *bytes = mmap(start, size, prot, MAP_SHARED | MAP_FIXED, fd, 0);
	if (bytes == MAP_FAILED) {
		munmap(start, mapped);
		return MAP_FAILED;
	}
#ifdef MADV_HUGEPAGE
	madvise(bytes, size, MADV_HUGEPAGE);
#endif
	return bytes;
}

/*
 * The file at path mapped read-only, or nullptr if it is missing, not size bytes long, or being
 * removed. Pages are not populated: a query reads few of them, and the first ones it reads are
 * already in the page cache that the writer filled.
 */
static std::shared_ptr<CachedFile>
map_file(const std::string &path, size_t size) {
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return nullptr;
	// Shared: an exclusive one is held only by a backend that removes the file (it is unused).
	if (flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
		close(fd);
		return nullptr;
	}
	auto file = std::make_shared<CachedFile>();
	file->path = path;
	file->size = size;
	struct stat st;
	if (fstat(fd, &st) == 0 && uint64_t(st.st_size) == size && st.st_nlink > 0)
		file->bytes = map_shared(size, PROT_READ, fd);
	if (file->bytes == MAP_FAILED) {
		close(fd);
		return nullptr;
	}
	file->keep_open(fd);
	utimensat(AT_FDCWD, path.c_str(), nullptr, 0); // its last use, for eviction
	return file;
}

// The bytes of a mapped file, keeping it mapped (and counted as this backend's use of the image).
static std::shared_ptr<const uint8_t>
image_bytes(const std::shared_ptr<CachedFile> &file) {
	std::shared_ptr<const uint8_t> bytes(file, static_cast<const uint8_t *>(file->bytes));
	return track_image_use(std::move(bytes), file_name(file->path));
}

// The format version in an image's header (after its 8-byte magic), 0 for a shorter image.
static uint32_t
header_format(const void *bytes, size_t size) {
	uint32_t format = 0;
	if (size >= 12)
		memcpy(&format, static_cast<const uint8_t *>(bytes) + 8, sizeof format);
	return format;
}

static bool
make_cache_dirs() {
	for (const char *dir : {kTempDir, kCacheDir})
		if (guard([&] { return MakePGDirectory(dir); }) != 0 && errno != EEXIST)
			return false;
	return true;
}

/*
 * An exclusive flock on a lock file of the cache, which the kernel releases if its holder dies.
 * Waiting polls for cancel requests. Not held when the lock file cannot be made: the caller then
 * goes on without it (held() says so).
 */
class FileLock {
public:
	explicit FileLock(const std::string &path) {
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
	~FileLock() {
		if (fd_ >= 0)
			close(fd_); // releases the lock
	}
	bool
	held() const {
		return fd_ >= 0;
	}
	FileLock(const FileLock &) = delete;
	FileLock &operator=(const FileLock &) = delete;

private:
	int fd_ = -1;
};

struct CacheFile {
	std::string path;
	uint64_t bytes;
	struct timespec used;
	bool being_written; // a .tmp file: counted, never evicted while its writer lives
};

/*
 * The image files in the cache, and those being written (all databases', since the limit is
 * the server's).
 */
static std::vector<CacheFile>
cache_files() {
	std::vector<CacheFile> files;
	DIR *dir = opendir(kCacheDir);
	if (dir == nullptr)
		return files;
	while (struct dirent *entry = readdir(dir)) {
		std::string name = entry->d_name;
		bool image = ends_with(name, ".img"), temp = ends_with(name, ".tmp");
		if (!image && !temp)
			continue;
		std::string path = std::string(kCacheDir) + "/" + name;
		struct stat st;
		if (stat(path.c_str(), &st) == 0)
			files.push_back({path, uint64_t(st.st_size), st.st_mtim, temp});
	}
	closedir(dir);
	return files;
}

/*
 * Whether the backend whose pid names a temp file (<image>.<pid>.tmp) still lives: one that
 * exited without removing its file (a crash; a FATAL error before remove_temp_file was in place)
 * left it to no one. A pid reused by another process is not a backend of this server.
 */
static bool
writer_alive(const std::string &temp) {
	std::string stem = temp.substr(0, temp.size() - 4); // without ".tmp"
	const char *digits = stem.c_str() + stem.rfind('.') + 1;
	char *end;
	long pid = std::strtol(digits, &end, 10);
	if (end == digits || *end != '\0' || pid <= 0 || pid > INT_MAX)
		return true; // not a name this cache gives: left alone
	if (pid == MyProcPid)
		return true;
	if (kill(pid_t(pid), 0) != 0 && errno == ESRCH)
		return false;
	return guard([&] { return BackendPidGetProc(int(pid)) != nullptr; });
}

/*
 * Room for size more bytes within limit: removes the temp files of writers that are gone, then
 * the least recently used images until the files and those being written leave it; false if they
 * cannot. Backends that map a removed image keep it until they notice (still_cached) at their
 * next statement. Under the space lock.
 */
static bool
make_room(uint64_t limit, uint64_t size) {
	std::vector<CacheFile> files = cache_files();
	uint64_t total = 0;
	for (const CacheFile &f : files) {
		bool orphan = f.being_written && !writer_alive(f.path);
		if (!orphan || unlink(f.path.c_str()) != 0)
			total += f.bytes;
	}
	std::sort(files.begin(), files.end(), [](const CacheFile &a, const CacheFile &b) {
		return a.used.tv_sec != b.used.tv_sec ? a.used.tv_sec < b.used.tv_sec : a.used.tv_nsec < b.used.tv_nsec;
	});
	for (const CacheFile &f : files) {
		if (total + size <= limit)
			break;
		if (!f.being_written && unlink(f.path.c_str()) == 0)
			total -= f.bytes;
	}
	return total + size <= limit;
}

/*
 * The temp file this backend writes, removed at exit by remove_temp_file: a FATAL error (a
 * terminated backend) exits without unwinding the C++ frames that would remove it.
 */
static char writing_temp[MAXPGPATH];

static void
remove_temp_file(int, Datum) {
	if (writing_temp[0] != '\0')
		unlink(writing_temp);
}

// A temp file being written: removed when this goes out of scope (an error, a private copy) or
// the backend exits, unless it was published under the image's name first.
class TempFile {
public:
	explicit TempFile(std::string path) : path_(std::move(path)) {
		static bool registered = false;
		if (!registered) {
			guard([] { before_shmem_exit(remove_temp_file, 0); });
			registered = true;
		}
		if (path_.size() < sizeof writing_temp)
			std::memcpy(writing_temp, path_.c_str(), path_.size() + 1);
	}
	~TempFile() {
		if (!published_)
			unlink(path_.c_str());
		writing_temp[0] = '\0';
	}
	void
	published() {
		published_ = true;
	}
	TempFile(const TempFile &) = delete;
	TempFile &operator=(const TempFile &) = delete;

private:
	std::string path_;
	bool published_ = false;
};

/*
 * A new file of size bytes at temp, mapped read-write, its space reserved within the cache's
 * limit (a write to a mapped file with no room left would be a SIGBUS, not an error); nullptr
 * if that fails (no room within the limit, a full disk, a read-only data directory). Images are
 * evicted and the file made under one lock, so that concurrent writers never take the cache past
 * its limit together.
 */
static std::shared_ptr<CachedFile>
create_file(const std::string &temp, size_t size, uint64_t limit) {
	FileLock space(kSpaceLock);
	if (!space.held() || !make_room(limit, size))
		return nullptr;
	int fd = open(temp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return nullptr;
	auto file = std::make_shared<CachedFile>();
	file->path = temp;
	file->size = size;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0 && posix_fallocate(fd, 0, off_t(size)) == 0)
		file->bytes = map_shared(size, PROT_READ | PROT_WRITE, fd);
	if (file->bytes == MAP_FAILED) {
		close(fd);
		return nullptr;
	}
	file->keep_open(fd);
	return file;
}

/*
 * Gives a written image its name, under the space lock: a directory read that races a rename may
 * list the file under neither name, and make_room would then count too little and let the cache
 * pass its limit (seen in TAP 010 on a fresh machine).
 */
static bool
publish(const std::string &temp, const std::string &path) {
	FileLock space(kSpaceLock);
	return rename(temp.c_str(), path.c_str()) == 0;
}

/*
 * The image at path mapped and attached, if it is there and sound; a damaged one is removed.
 *
 * The header and the section table are checked, not the checksum: the writer checked the image
 * in full before it took its name, and a file of the data directory is trusted after that as
 * PostgreSQL trusts its own (reading 100 MB per new backend would cost more than the whole query).
 */
static bool
open_cached(const std::string &path, size_t size, const char *display, OpenedIndex *opened) {
	std::shared_ptr<CachedFile> file = map_file(path, size);
	if (!file)
		return false;
	try {
		*opened = {Index::attach(image_bytes(file), size, Index::Check::header), file,
		           header_format(file->bytes, size)};
		cache_counters.hits++;
		count_image_hit(file_name(path));
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

/*
 * Removes the images of the graph's builds older than row's that no backend maps (each backend
 * holds a shared flock on the images it maps), with their writers' lock files: new readers open
 * row's build. An older image still in use, e.g. by a REPEATABLE READ transaction that sees its
 * build, is left to eviction, and images of newer builds are never touched: readers of two builds
 * must not remove each other's file at every statement.
 */
static void
remove_unused_older_images(const GraphRow &row) {
	std::string prefix = graph_prefix(row.id);
	DIR *dir = opendir(kCacheDir);
	if (dir == nullptr)
		return;
	while (struct dirent *entry = readdir(dir)) {
		std::string path = std::string(kCacheDir) + "/" + entry->d_name;
		if (path.compare(0, prefix.size(), prefix) != 0 || !ends_with(path, ".img"))
			continue;
		const char *digits = path.c_str() + prefix.size(); // <build>_<uuid>.img
		char *end;
		errno = 0;
		long long build = std::strtoll(digits, &end, 10);
		// A delta build's base stays: the next merge and a reader whose cache lost the delta's image
		// make it from the base.
		if (end == digits || *end != '_' || errno != 0 || build >= row.build || build == row.base_build)
			continue;
		int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			unlink(path.c_str());
			unlink((path + ".lock").c_str());
		}
		close(fd);
	}
	closedir(dir);
}

/*
 * Reads the build's image from the catalog chunks into image, then gives the C library's free
 * memory back to the system: detoasting a chunk allocates a few MB that glibc keeps in its heap
 * once freed, which a backend that loaded an image would otherwise hold for the rest of its life.
 */
static void
load_chunks(const GraphRow &row, uint8_t *image) {
	load_index(row, image);
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/*
 * A delta build's image, made from its base build's (opened as any build: mapped from the cache,
 * or read from the base's chunks, which the catalog keeps while a delta names them) and its delta
 * (grail::apply_delta: the same image, checked by size and checksum, as the merge that stored it
 * made). display: the graph's name, for messages.
 */
static std::vector<uint8_t>
delta_image(const GraphRow &row, const char *display) {
	std::vector<uint8_t> bytes = load_delta(row);
	grail::BuildDelta delta = grail::BuildDelta::parse(bytes.data(), bytes.size());
	bytes = std::vector<uint8_t>();
	if (delta.image_bytes != uint64_t(row.index_bytes))
		throw Error(ErrorKind::corrupt_index,
		            format("the stored delta of a pg_grail graph makes an image of %llu "
		                   "bytes, not the %lld recorded",
		                   (unsigned long long)delta.image_bytes, (long long)row.index_bytes));
	// A base is another build: a uuid is never reused, so a base of the build's own uuid is a hand
	// edit of grail.graph, and with its build number too opening it would wait for ever on the lock
	// of the image file that this open holds (the file is named by both).
	if (row.base_build_uuid == row.build_uuid)
		throw Error(ErrorKind::corrupt_index,
		            format("the stored delta of a pg_grail graph names its own build (uuid %s) as its base",
		                   row.build_uuid.c_str()));
	// A base whose stored image is damaged or gone: no image can be made, and no answer is given
	// from anything else; a merge stores a full image (it cannot read that base either).
	OpenedIndex base;
	std::string damage;
	try {
		base = open_index(row.base_row(), display);
	} catch (const PgError &e) {
		if (e.data()->sqlerrcode != ERRCODE_DATA_CORRUPTED)
			throw;
		damage = e.what();
	} catch (const SqlError &e) { // raise()d damage: an impossible recorded size, say
		if (e.sqlstate() != ERRCODE_DATA_CORRUPTED)
			throw;
		damage = e.what();
	} catch (const Error &e) {
		if (e.kind() != ErrorKind::corrupt_index)
			throw;
		damage = e.what();
	}
	if (!damage.empty())
		raise(ERRCODE_DATA_CORRUPTED,
		      format("pg_grail graph \"%s\" cannot be loaded: its build %lld is stored as a delta from build %lld, "
		             "whose stored image cannot be read",
		             display, (long long)row.build, (long long)row.base_build),
		      "grail.merge_graph() or grail.refresh_graph() stores a full image of the rows in its place.", damage);
	uint64_t memory_limit = uint64_t(settings.build_memory_limit_mb) << 20;
	return grail::apply_delta(base.index, delta, memory_limit);
}

/*
 * The build's image into image (row.index_bytes bytes): a full build's from its chunks, a delta
 * build's made from its base and delta.
 */
static void
fill_image(const GraphRow &row, const char *display, uint8_t *image) {
	if (!row.is_delta()) {
		load_chunks(row, image);
		return;
	}
	std::vector<uint8_t> made = delta_image(row, display);
	memcpy(image, made.data(), made.size()); // delta_image checked the size
}

/*
 * A private buffer of the build's recorded size. Where no such memory is to be had, the recorded
 * size is compared with what is stored before "out of memory" is said: a size edited by hand (to a
 * terabyte, say) is a damaged index, which a rebuild mends, not a want of memory.
 */
static std::shared_ptr<uint8_t>
image_buffer_for(const GraphRow &row) {
	try {
		return Index::image_buffer(size_t(row.index_bytes));
	} catch (const std::bad_alloc &) {
		if (row.is_delta()) {
			std::vector<uint8_t> bytes = load_delta(row);
			grail::BuildDelta delta = grail::BuildDelta::parse(bytes.data(), bytes.size());
			if (delta.image_bytes != uint64_t(row.index_bytes))
				throw Error(ErrorKind::corrupt_index,
				            format("the stored delta of a pg_grail graph makes an image of %llu "
				                   "bytes, not the %lld recorded",
				                   (unsigned long long)delta.image_bytes, (long long)row.index_bytes));
		} else {
			int64_t stored = stored_index_bytes(row);
			if (stored != row.index_bytes)
				raise(ERRCODE_DATA_CORRUPTED,
				      format("the stored index of a pg_grail graph is damaged: its recorded size is %lld bytes, "
				             "its chunks hold %lld",
				             (long long)row.index_bytes, (long long)stored),
				      "Rebuild it with grail.refresh_graph().");
		}
		throw;
	}
}

std::string
shared_image_name(const CachedFile *file) {
	if (file == nullptr || !ends_with(file->path, ".img"))
		return {};
	return file_name(file->path);
}

OpenedIndex
open_index(const GraphRow &row, const char *display) {
	size_t size = size_t(row.index_bytes);
	uint64_t limit = uint64_t(settings.shared_cache_size_mb) << 20;
	bool cacheable = limit > 0 && size <= limit && !row.build_uuid.empty();
	OpenedIndex opened;
	std::string path = cacheable ? cache_path(row) : std::string();
	if (cacheable && open_cached(path, size, display, &opened)) {
		remove_unused_older_images(row);
		return opened;
	}
	check_index_size(row);
	if (cacheable) {
		// The first backend that needs the image writes it while the others that need it meanwhile
		// wait, then map what it wrote instead of reading the catalog too.
		FileLock writer(path + ".lock");
		if (open_cached(path, size, display, &opened)) // written while this backend waited
			return opened;
		cache_counters.loads++;
		count_image_load(file_name(path));
		// Into a new cache file: the chunks go straight to the page cache that every backend will
		// map, checked in full there before the file takes its name.
		std::string temp_path = path + "." + std::to_string(MyProcPid) + ".tmp";
		TempFile temp(temp_path);
		if (std::shared_ptr<CachedFile> file = create_file(temp_path, size, limit)) {
			std::shared_ptr<uint8_t> bytes(file, static_cast<uint8_t *>(file->bytes));
			fill_image(row, display, bytes.get());
			Index index = Index::attach(bytes, size, Index::Check::full);
			// A version 1 image is copied out: nothing to share.
			if (index.graph().ids.borrowed() && publish(file->path, path)) {
				temp.published();
				file->path = path;
				remove_unused_older_images(row);
				// Mapped again, read-only, as other backends map it: the writing mapping has every
				// page of the image in this backend's page tables (its resident set, "private" while
				// no other process maps them), where a reader has only the pages its queries read.
				if (std::shared_ptr<CachedFile> reader = map_file(path, size))
					file = std::move(reader);
				return {Index::attach(image_bytes(file), size, Index::Check::header), file,
				        header_format(file->bytes, size)};
			}
			cache_counters.private_copies++;
			// The temp file goes; what the index borrows stays mapped.
			return {std::move(index), nullptr, header_format(bytes.get(), size)};
		}
	} else {
		cache_counters.loads++;
	}
	std::shared_ptr<uint8_t> image = image_buffer_for(row);
	fill_image(row, display, image.get());
	cache_counters.private_copies++;
	uint32_t format = header_format(image.get(), size);
	return {Index::attach(image, size, Index::Check::full), nullptr, format};
}

void
cache_new_image(const GraphRow &row, const std::vector<uint8_t> &bytes) {
	size_t size = bytes.size();
	uint64_t limit = uint64_t(settings.shared_cache_size_mb) << 20;
	if (limit == 0 || size == 0 || size > limit || row.build_uuid.empty() || size != size_t(row.index_bytes) ||
	    !make_cache_dirs())
		return;
	std::string path = cache_path(row);
	FileLock writer(path + ".lock");
	struct stat st;
	if (stat(path.c_str(), &st) == 0)
		return;
	std::string temp_path = path + "." + std::to_string(MyProcPid) + ".tmp";
	TempFile temp(temp_path);
	std::shared_ptr<CachedFile> file = create_file(temp_path, size, limit);
	if (!file)
		return;
	std::shared_ptr<uint8_t> image(file, static_cast<uint8_t *>(file->bytes));
	memcpy(image.get(), bytes.data(), size);
	// Checked as a load from the chunks checks it, before it takes its name: readers trust the file.
	Index index = Index::attach(image, size, Index::Check::full);
	if (index.graph().ids.borrowed() && publish(file->path, path))
		temp.published();
}

void
forget_images(int64_t graph_id) {
	std::string prefix = graph_prefix(graph_id);
	DIR *dir = opendir(kCacheDir);
	if (dir == nullptr)
		return;
	while (struct dirent *entry = readdir(dir)) {
		std::string path = std::string(kCacheDir) + "/" + entry->d_name;
		if (path.compare(0, prefix.size(), prefix) == 0)
			unlink(path.c_str());
	}
	closedir(dir);
}

std::vector<CachedImage>
cached_images() {
	std::vector<CacheFile> files = cache_files();
	std::string prefix = std::to_string(MyDatabaseId) + "_";
	std::vector<CachedImage> images;
	for (const CacheFile &f : files) {
		std::string name = file_name(f.path); // <database>_<graph>_<uuid>.img
		if (f.being_written || name.compare(0, prefix.size(), prefix) != 0)
			continue;
		std::string graph_build_uuid = name.substr(prefix.size(), name.size() - prefix.size() - 4);
		CachedImage image{graph_build_uuid.substr(graph_build_uuid.rfind('_') + 1), f.bytes, f.used.tv_sec, false, {}};
		image.counted = image_stats(name, &image.stats);
		images.push_back(image);
	}
	return images;
}

CacheContents
cache_contents() {
	CacheContents contents;
	for (const CacheFile &f : cache_files())
		if (!f.being_written) {
			contents.bytes += f.bytes;
			contents.images++;
		}
	return contents;
}

bool
still_cached(const CachedFile *file) {
	if (file == nullptr)
		return true;
	struct stat st;
	int found = file->fd >= 0 ? fstat(file->fd, &st) : stat(file->path.c_str(), &st);
	return found == 0 && uint64_t(st.st_size) == file->size && st.st_nlink > 0;
}

} // namespace grail::pg
