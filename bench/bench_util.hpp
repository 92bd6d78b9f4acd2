// Helpers shared by the engine benchmarks (bench/*_bench.cpp).
#pragma once
#include "clock.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace grail::bench {

inline double
median(std::vector<double> v) {
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

// A non-negative integer argument, or exit 2 naming the program and the text.
inline uint64_t
number_arg(const char *program, const char *text) {
	char *end = nullptr;
	unsigned long long v = std::strtoull(text, &end, 10);
	if (*text == '\0' || *end != '\0') {
		std::fprintf(stderr, "%s: not a number: %s\n", program, text);
		std::exit(2);
	}
	return v;
}

} // namespace grail::bench
