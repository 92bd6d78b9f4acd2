// grail.activity's progress slots and the merge launcher's per-database change counters, in shared
// memory (src/pg/store/activity.hpp).
#include <cstring>
#include <initializer_list>

#include "store/activity.hpp"
#include "boundary/settings.hpp"

extern "C" {
#include "access/twophase.h"
#include "access/xact.h"
#include "mb/pg_wchar.h"
#include "port/atomics.h"
#include "storage/backendid.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/timestamp.h"
}

namespace grail::pg {

namespace {

// Databases whose changes the launcher can tell apart; a database that finds none free makes the
// launcher look at every database instead.
constexpr int kDatabaseSlots = 256;

struct ProgressSlot {
	slock_t mutex;
	bool active;
	int pid;
	Oid database;
	int64_t graph_id;
	Oid schema;
	char name[NAMEDATALEN];
	Oid relid;
	AttrNumber source, target;
	int command;
	int phase;
	int64_t done, total;
	TimestampTz started, phase_started;
};

struct DatabaseSlot {
	Oid database; // InvalidOid: free (set under the lock, read without it)
	pg_atomic_uint64 logged;
	pg_atomic_uint32 urgent;
	pg_atomic_uint32 failed;
};

// A prepared transaction (PREPARE TRANSACTION) that logged changes: they are counted when it is
// committed (COMMIT PREPARED, in any backend of its database), and forgotten if it is rolled back.
struct PreparedSlot {
	Oid database; // InvalidOid: free (under the lock)
	uint64_t logged;
	char gid[GIDSIZE];
};

struct Shared {
	LWLock *lock; // assigns database slots and prepared transaction slots
	Latch *launcher_latch;
	pg_atomic_uint32 rescan;
	DatabaseSlot databases[kDatabaseSlots];
	int prepared_slots; // max_prepared_transactions
	PreparedSlot *prepared;
	int progress_slots;
	ProgressSlot progress[FLEXIBLE_ARRAY_MEMBER];
};

Shared *shared = nullptr;

// This backend's slot while it builds, and its database's counter slot once found.
ProgressSlot *current = nullptr;
// How many BuildProgress objects that found the slot taken are alive: while one is, the progress
// reported is theirs (a build run while a chordless_cycles() stream is open), and must not
// overwrite the row of the one that holds the slot.
int muted = 0;
int my_database_slot = -1;

Size
progress_size() {
	return MAXALIGN(add_size(offsetof(Shared, progress), mul_size(sizeof(ProgressSlot), Size(MaxBackends))));
}

Size
shared_size() {
	return add_size(progress_size(), mul_size(sizeof(PreparedSlot), Size(max_prepared_xacts)));
}

// A backend that exits (FATAL included) while a build is recorded leaves no slot behind.
void
clear_at_exit(int, Datum) {
	if (current != nullptr) {
		SpinLockAcquire(&current->mutex);
		current->active = false;
		SpinLockRelease(&current->mutex);
		current = nullptr;
	}
}

const char *
command_name(int command) {
	switch (BuildCommand(command)) {
	case BuildCommand::create_graph:
		return "create_graph";
	case BuildCommand::refresh_graph:
		return "refresh_graph";
	case BuildCommand::merge_graph:
		return "merge_graph";
	case BuildCommand::background_merge:
		return "background merge";
	case BuildCommand::chordless_cycles:
		return "chordless_cycles";
	}
	return "?";
}

const char *
phase_name(int phase, const char **unit) {
	*unit = nullptr;
	switch (BuildPhase(phase)) {
	case BuildPhase::starting:
		return "starting";
	case BuildPhase::reading_rows:
		*unit = "rows";
		return "reading rows";
	case BuildPhase::building_graph:
		*unit = "rows";
		return "building the graph";
	case BuildPhase::components:
		*unit = "vertices";
		return "strongly connected components";
	case BuildPhase::labels:
		*unit = "vertices";
		return "labels";
	case BuildPhase::deleting_changes:
		*unit = "changes";
		return "deleting merged changes";
	case BuildPhase::storing:
		*unit = "bytes";
		return "storing the index";
	case BuildPhase::searching_cycles:
		*unit = "start vertices";
		return "searching for cycles";
	}
	return "?";
}

// The counter slot of this backend's database, assigned if it has none; -1 if all are taken.
int
database_slot() {
	if (my_database_slot >= 0 && shared->databases[my_database_slot].database == MyDatabaseId)
		return my_database_slot;
	my_database_slot = -1;
	for (LWLockMode mode : {LW_SHARED, LW_EXCLUSIVE}) {
		LWLockAcquire(shared->lock, mode);
		int free_slot = -1;
		for (int i = 0; i < kDatabaseSlots && my_database_slot < 0; i++) {
			if (shared->databases[i].database == MyDatabaseId)
				my_database_slot = i;
			else if (shared->databases[i].database == InvalidOid && free_slot < 0)
				free_slot = i;
		}
		if (my_database_slot < 0 && mode == LW_EXCLUSIVE && free_slot >= 0) {
			pg_atomic_write_u64(&shared->databases[free_slot].logged, 0);
			pg_atomic_write_u32(&shared->databases[free_slot].urgent, 0);
			pg_atomic_write_u32(&shared->databases[free_slot].failed, 0);
			shared->databases[free_slot].database = MyDatabaseId;
			my_database_slot = free_slot;
		}
		LWLockRelease(shared->lock);
		if (my_database_slot >= 0)
			break;
	}
	return my_database_slot;
}

} // namespace

void
request_activity_shmem() {
	RequestAddinShmemSpace(shared_size());
	RequestNamedLWLockTranche("pg_grail activity", 1);
}

void
attach_activity_shmem() {
	bool found;
	shared = static_cast<Shared *>(ShmemInitStruct("pg_grail activity", shared_size(), &found));
	if (!found) {
		std::memset(static_cast<void *>(shared), 0, shared_size());
		shared->lock = &(GetNamedLWLockTranche("pg_grail activity"))->lock;
		shared->launcher_latch = nullptr;
		pg_atomic_init_u32(&shared->rescan, 0);
		for (DatabaseSlot &slot : shared->databases) {
			slot.database = InvalidOid;
			pg_atomic_init_u64(&slot.logged, 0);
			pg_atomic_init_u32(&slot.urgent, 0);
			pg_atomic_init_u32(&slot.failed, 0);
		}
		shared->progress_slots = MaxBackends;
		for (int i = 0; i < MaxBackends; i++)
			SpinLockInit(&shared->progress[i].mutex);
		shared->prepared_slots = max_prepared_xacts;
		shared->prepared = reinterpret_cast<PreparedSlot *>(reinterpret_cast<char *>(shared) + progress_size());
		for (int i = 0; i < max_prepared_xacts; i++)
			shared->prepared[i].database = InvalidOid;
	}
}

bool
activity_enabled() {
	return shared != nullptr;
}

BuildProgress::BuildProgress(BuildCommand command, int64_t graph_id, Oid schema, const char *name, Oid relid,
                             AttrNumber source, AttrNumber target) {
	if (current != nullptr) {
		muted++;
		muting_ = true;
		return;
	}
	if (shared == nullptr || MyBackendId < 1 || MyBackendId > shared->progress_slots)
		return;
	static bool exit_callback = false;
	if (!exit_callback) {
		guard([] { before_shmem_exit(clear_at_exit, 0); });
		exit_callback = true;
	}
	ProgressSlot *slot = &shared->progress[MyBackendId - 1];
	// Cut at a character boundary: grail_internal._activity() returns it as text, which must be valid in
	// the database's encoding.
	int name_length = guard([&] { return pg_mbcliplen(name, int(strlen(name)), int(sizeof slot->name) - 1); });
	TimestampTz now = GetCurrentTimestamp();
	SpinLockAcquire(&slot->mutex);
	slot->active = true;
	slot->pid = MyProcPid;
	slot->database = MyDatabaseId;
	slot->graph_id = graph_id;
	slot->schema = schema;
	memcpy(slot->name, name, name_length);
	slot->name[name_length] = '\0';
	slot->relid = relid;
	slot->source = source;
	slot->target = target;
	slot->command = int(command);
	slot->phase = int(BuildPhase::starting);
	slot->done = 0;
	slot->total = -1;
	slot->started = now;
	slot->phase_started = now;
	SpinLockRelease(&slot->mutex);
	current = slot;
	active_ = true;
}

BuildProgress::~BuildProgress() {
	if (muting_)
		muted--;
	if (!active_)
		return;
	clear_at_exit(0, 0);
}

void
progress_phase(BuildPhase phase, int64_t total) {
	if (current == nullptr || muted > 0)
		return;
	TimestampTz now = GetCurrentTimestamp();
	SpinLockAcquire(&current->mutex);
	current->phase = int(phase);
	current->done = 0;
	current->total = total;
	current->phase_started = now;
	SpinLockRelease(&current->mutex);
}

void
progress_done(int64_t done) {
	if (current == nullptr || muted > 0)
		return;
	SpinLockAcquire(&current->mutex);
	current->done = done;
	SpinLockRelease(&current->mutex);
}

// Edge changes (not rows of grail.pending_change, which hold a batch each) logged by this
// transaction, counted at its commit: a merge worker started before would not
// see them, and a rolled-back change is never merged.
uint64_t uncommitted_rows = 0;
// The name of the transaction that PREPARE TRANSACTION is preparing, until it is prepared.
char preparing_gid[GIDSIZE];

// Adds committed edge changes to this database's counter, waking the launcher if they pass a
// multiple of the threshold.
static void
count_committed(uint64_t rows) {
	int i = database_slot();
	if (i < 0) {
		// Counted nowhere: the launcher looks at every database instead.
		pg_atomic_write_u32(&shared->rescan, 1);
		if (Latch *latch = shared->launcher_latch)
			SetLatch(latch);
		return;
	}
	DatabaseSlot &slot = shared->databases[i];
	uint64_t before = pg_atomic_fetch_add_u64(&slot.logged, rows);
	uint64_t threshold = uint64_t(settings.merge_threshold);
	if (threshold > 0 && before / threshold != (before + rows) / threshold) {
		pg_atomic_write_u32(&slot.urgent, 1);
		if (Latch *latch = shared->launcher_latch)
			SetLatch(latch);
	}
}

// A prepared transaction's changes wait for its COMMIT PREPARED, which another backend may run:
// they are kept in shared memory under its name (a slot left by one of that name that was never
// finished here is reused). There is a slot for each transaction that may be prepared at once.
// The slots do not outlive a restart: the launcher then looks at every database, but the changes
// of a transaction prepared before the restart and committed after it wait for the next changes
// counted in its database.
static void
keep_prepared(uint64_t rows) {
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	PreparedSlot *slot = nullptr;
	for (int i = 0; i < shared->prepared_slots; i++) {
		PreparedSlot &p = shared->prepared[i];
		if (p.database == MyDatabaseId && strcmp(p.gid, preparing_gid) == 0) {
			slot = &p;
			break;
		}
		if (p.database == InvalidOid && slot == nullptr)
			slot = &p;
	}
	if (slot != nullptr) {
		slot->database = MyDatabaseId;
		slot->logged = rows;
		strlcpy(slot->gid, preparing_gid, GIDSIZE);
	}
	LWLockRelease(shared->lock);
}

static void
count_at_commit(XactEvent event, void *) {
	uint64_t rows = uncommitted_rows;
	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT && event != XACT_EVENT_PREPARE &&
	    event != XACT_EVENT_PARALLEL_COMMIT && event != XACT_EVENT_PARALLEL_ABORT)
		return;
	uncommitted_rows = 0;
	if (rows > 0 && shared != nullptr) {
		if (event == XACT_EVENT_COMMIT)
			count_committed(rows);
		else if (event == XACT_EVENT_PREPARE && preparing_gid[0] != '\0')
			keep_prepared(rows);
	}
	preparing_gid[0] = '\0';
}

void
note_pending_changes(uint64_t rows) {
	if (shared == nullptr || rows == 0 || !OidIsValid(MyDatabaseId))
		return;
	static bool registered = false;
	if (!registered) {
		guard([] { RegisterXactCallback(count_at_commit, nullptr); });
		registered = true;
	}
	uncommitted_rows += rows;
}

void
note_prepare_transaction(const char *gid) {
	strlcpy(preparing_gid, gid, GIDSIZE);
}

void
note_prepared_finished(const char *gid, bool committed) {
	if (shared == nullptr || shared->prepared_slots == 0)
		return;
	uint64_t rows = 0;
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < shared->prepared_slots; i++) {
		PreparedSlot &p = shared->prepared[i];
		if (p.database == MyDatabaseId && strcmp(p.gid, gid) == 0) {
			rows = p.logged;
			p.database = InvalidOid;
			break;
		}
	}
	LWLockRelease(shared->lock);
	if (committed && rows > 0)
		count_committed(rows);
}

void
set_merge_launcher(bool running) {
	if (shared == nullptr)
		return;
	shared->launcher_latch = running ? &MyProc->procLatch : nullptr;
}

int
database_changes(DatabaseChanges *out, int max, bool *rescan) {
	int n = 0;
	*rescan = false;
	if (shared == nullptr)
		return 0;
	*rescan = pg_atomic_exchange_u32(&shared->rescan, 0) != 0;
	LWLockAcquire(shared->lock, LW_SHARED);
	for (DatabaseSlot &slot : shared->databases) {
		if (slot.database == InvalidOid || n >= max)
			continue;
		out[n].database = slot.database;
		out[n].logged = pg_atomic_read_u64(&slot.logged);
		out[n].urgent = pg_atomic_exchange_u32(&slot.urgent, 0) != 0;
		out[n].failed = pg_atomic_exchange_u32(&slot.failed, 0) != 0;
		n++;
	}
	LWLockRelease(shared->lock);
	return n;
}

void
note_merge_failed() {
	if (shared == nullptr)
		return;
	int i = database_slot();
	if (i >= 0)
		pg_atomic_write_u32(&shared->databases[i].failed, 1);
}

void
forget_database(Oid database) {
	if (shared == nullptr)
		return;
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	for (DatabaseSlot &slot : shared->databases)
		if (slot.database == database)
			slot.database = InvalidOid;
	LWLockRelease(shared->lock);
}

int
database_slots() {
	return kDatabaseSlots;
}

BuildActivity *
builds_in_progress(int *count) {
	*count = 0;
	if (shared == nullptr)
		return nullptr;
	auto *copies =
	    guard([] { return static_cast<BuildActivity *>(palloc(sizeof(BuildActivity) * shared->progress_slots)); });
	for (int i = 0; i < shared->progress_slots; i++) {
		ProgressSlot *slot = &shared->progress[i];
		SpinLockAcquire(&slot->mutex);
		if (slot->active && slot->database == MyDatabaseId) {
			BuildActivity &a = copies[(*count)++];
			a.pid = slot->pid;
			a.graph_id = slot->graph_id;
			a.schema = slot->schema;
			memcpy(a.name, slot->name, sizeof a.name);
			a.relid = slot->relid;
			a.source = slot->source;
			a.target = slot->target;
			a.command = command_name(slot->command);
			a.phase = phase_name(slot->phase, &a.unit);
			a.done = slot->done;
			a.total = slot->total;
			a.started = slot->started;
			a.phase_started = slot->phase_started;
		}
		SpinLockRelease(&slot->mutex);
	}
	return copies;
}

} // namespace grail::pg
