#include <cstring>
#include <map>
#include <utility>

#include "store/image_stats.hpp"

#include "boundary/guard.hpp"

extern "C" {
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
}

namespace grail::pg {

namespace {

// Far more than a cache holds at once (an image is at least some kB, a cache some GB); when
// every slot is taken, the least recently counted image without backends gives its slot up.
constexpr int kSlots = 1024;
constexpr size_t kNameBytes = 96; // <database>_<graph id>_<build uuid>.img is at most 73

struct Slot {
	char name[kNameBytes]; // empty: free
	int32_t backends;
	uint64_t hits;
	uint64_t loads;
	uint64_t touched; // when last counted, in the table's clock
};

struct SharedTable {
	LWLock *lock;
	uint64_t clock;
	Slot slots[kSlots];
};

SharedTable *table = nullptr;

// How many live pointers of this backend map each image; the shared count moves on the first
// and the last. Cleared at backend exit, before shared memory goes.
std::map<std::string, int> *local_uses = nullptr;
bool exiting = false;

// The slot of name, made if missing (nullptr if every slot is in use); under the lock.
Slot *
slot_of(const std::string &name, bool create) {
	if (name.size() >= kNameBytes)
		return nullptr;
	Slot *reusable = nullptr;
	for (Slot &slot : table->slots) {
		if (std::strcmp(slot.name, name.c_str()) == 0)
			return &slot;
		if (slot.backends == 0 && (reusable == nullptr || slot.touched < reusable->touched))
			reusable = &slot;
	}
	if (!create || reusable == nullptr)
		return nullptr;
	std::memset(reusable, 0, sizeof(Slot));
	std::memcpy(reusable->name, name.c_str(), name.size() + 1);
	return reusable;
}

// Adds to the counters of name under the lock. Plain PostgreSQL calls that cannot fail once
// shared memory is attached, so destructors may call it.
void
add(const std::string &name, int backends, uint64_t hits, uint64_t loads) {
	if (table == nullptr)
		return;
	LWLockAcquire(table->lock, LW_EXCLUSIVE);
	if (Slot *slot = slot_of(name, backends >= 0)) {
		slot->backends += backends;
		slot->hits += hits;
		slot->loads += loads;
		slot->touched = ++table->clock;
	}
	LWLockRelease(table->lock);
}

// At backend exit: this backend no longer maps anything. The C++ objects that hold mappings may
// be destroyed later (at exit()), when shared memory is gone; they then count nothing.
void
release_uses(int, Datum) {
	exiting = true;
	if (local_uses == nullptr)
		return;
	for (const auto &use : *local_uses)
		add(use.first, -1, 0, 0);
	local_uses->clear();
}

void
use_changed(const std::string &name, int delta) {
	if (table == nullptr || exiting)
		return;
	if (local_uses == nullptr) {
		local_uses = new std::map<std::string, int>();
		before_shmem_exit(release_uses, 0);
	}
	int &count = (*local_uses)[name];
	count += delta;
	if (count == delta) // 0 -> 1: this backend now maps it
		add(name, 1, 0, 0);
	else if (count == 0) {
		add(name, -1, 0, 0);
		local_uses->erase(name);
	}
}

class ImageUse {
public:
	ImageUse(std::shared_ptr<const uint8_t> mapping, std::string name)
	    : mapping_(std::move(mapping)), name_(std::move(name)) {
		use_changed(name_, 1);
	}
	~ImageUse() {
		use_changed(name_, -1);
	}
	ImageUse(const ImageUse &) = delete;
	ImageUse &operator=(const ImageUse &) = delete;

private:
	std::shared_ptr<const uint8_t> mapping_;
	std::string name_;
};

} // namespace

void
request_image_stats_shmem() {
	RequestAddinShmemSpace(sizeof(SharedTable));
	RequestNamedLWLockTranche("pg_grail", 1);
}

void
attach_image_stats_shmem() {
	bool found;
	table = static_cast<SharedTable *>(ShmemInitStruct("pg_grail image cache", sizeof(SharedTable), &found));
	if (!found) {
		std::memset(table, 0, sizeof(SharedTable));
		table->lock = &(GetNamedLWLockTranche("pg_grail"))->lock;
	}
}

bool
image_stats_enabled() {
	return table != nullptr;
}

void
count_image_hit(const std::string &name) {
	add(name, 0, 1, 0);
}

void
count_image_load(const std::string &name) {
	add(name, 0, 0, 1);
}

std::shared_ptr<const uint8_t>
track_image_use(std::shared_ptr<const uint8_t> mapping, const std::string &name) {
	if (table == nullptr)
		return mapping;
	const uint8_t *bytes = mapping.get();
	auto use = std::make_shared<ImageUse>(std::move(mapping), name);
	return std::shared_ptr<const uint8_t>(use, bytes);
}

bool
image_stats(const std::string &name, ImageStats *stats) {
	if (table == nullptr)
		return false;
	bool found = false;
	LWLockAcquire(table->lock, LW_SHARED);
	if (const Slot *slot = slot_of(name, false)) {
		*stats = {slot->backends, slot->hits, slot->loads};
		found = true;
	}
	LWLockRelease(table->lock);
	return found;
}

} // namespace grail::pg
