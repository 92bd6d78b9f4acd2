// What this test process holds, counted before and after code that must let go of files.
#pragma once
#include <dirent.h>

#include <cstddef>
#include <fstream>
#include <string>

namespace grail_test {

// Open file descriptors (the directory's own descriptor included: compare counts, not values).
inline size_t
open_descriptors() {
	size_t n = 0;
	DIR *d = opendir("/proc/self/fd");
	while (d && readdir(d) != nullptr)
		n++;
	if (d)
		closedir(d);
	return n;
}

// Mappings of pg_grail's memory files (a sanitizer's allocator maps and unmaps memory of its own
// meanwhile: every mapping would not count only the files').
inline size_t
memfd_mappings() {
	std::ifstream maps("/proc/self/maps");
	size_t n = 0;
	for (std::string line; std::getline(maps, line);)
		n += line.find("memfd:pg_grail") != std::string::npos;
	return n;
}

} // namespace grail_test
