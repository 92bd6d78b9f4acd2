// Edge rows as the tests write them (pairs of ids, duplicates and self-loops allowed, as a table
// holds them) and the engine's EdgeList, both ways; the ids they name.
#pragma once
#include "graph.hpp"

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace grail_test {

using Rows = std::vector<std::pair<int64_t, int64_t>>;

inline grail::EdgeList
edge_list(const Rows &rows) {
	grail::EdgeList e;
	for (const auto &[s, t] : rows)
		e.append(s, t);
	return e;
}

inline Rows
rows_of(const grail::EdgeList &e) {
	Rows rows;
	for (size_t i = 0; i < e.size(); i++)
		rows.emplace_back(e.source[i], e.target[i]);
	return rows;
}

// The ids the rows name, ascending, each once.
inline std::vector<int64_t>
ids_of(const Rows &rows) {
	std::set<int64_t> ids;
	for (const auto &[s, t] : rows) {
		ids.insert(s);
		ids.insert(t);
	}
	return std::vector<int64_t>(ids.begin(), ids.end());
}

} // namespace grail_test
