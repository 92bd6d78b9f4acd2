// Array<T>: the storage of every array of an index (vertex ids, CSR offsets and targets,
// components, labels, the id hash table). It either owns a std::vector, as builders make it, or
// borrows a range of a flat index image that something else keeps alive (a buffer, a mapped
// file), so that an index is queried where its image lies instead of being copied out of it.
//
// Reads work the same on both. Writes work on an owned array only: a write to a borrowed one
// throws, since it would go to an image that other readers share; a builder that needs a
// writable copy asks for one with owned().
#pragma once
#include "cpp_only.hpp"

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <vector>

namespace grail {

template <typename T> class Array {
public:
	using value_type = T;
	using iterator = T *;
	using const_iterator = const T *;

	Array() = default;
	Array(std::vector<T> v) : owned_(std::move(v)) { // NOLINT: a vector is an owned array
	}
	Array(std::initializer_list<T> values) : owned_(values) {
	}
	explicit Array(size_t count, const T &value = T()) : owned_(count, value) {
	}

	// count elements at data, valid while keep (or whatever owns them) lives.
	static Array
	borrow(const T *data, size_t count, std::shared_ptr<const void> keep) {
		Array a;
		a.borrowed_ = data;
		a.borrowed_count_ = count;
		a.keep_ = std::move(keep);
		return a;
	}

	bool
	borrowed() const noexcept {
		return borrowed_ != nullptr || keep_ != nullptr;
	}
	size_t
	size() const noexcept {
		return borrowed() ? borrowed_count_ : owned_.size();
	}
	bool
	empty() const noexcept {
		return size() == 0;
	}
	const T *
	data() const noexcept {
		return borrowed() ? borrowed_ : owned_.data();
	}
	const T &
	operator[](size_t i) const noexcept {
		return data()[i];
	}
	const T *
	begin() const noexcept {
		return data();
	}
	const T *
	end() const noexcept {
		return data() + size();
	}
	const T &
	front() const noexcept {
		return data()[0];
	}
	const T &
	back() const noexcept {
		return data()[size() - 1];
	}

	// Writable access (owned arrays only).
	std::vector<T> &
	owned() {
		if (borrowed())
			throw std::logic_error("pg_grail internal error: a write to an index array borrowed from an image");
		return owned_;
	}
	T *
	data() {
		return owned().data();
	}
	T &
	operator[](size_t i) {
		return owned()[i];
	}
	T *
	begin() {
		return owned().data();
	}
	T *
	end() {
		return owned().data() + owned_.size();
	}
	T &
	back() {
		return owned().back();
	}
	void
	resize(size_t n) {
		owned().resize(n);
	}
	void
	resize(size_t n, const T &value) {
		owned().resize(n, value);
	}
	void
	assign(size_t n, const T &value) {
		owned().assign(n, value);
	}
	template <typename It>
	void
	assign(It first, It last) {
		owned().assign(first, last);
	}
	void
	reserve(size_t n) {
		owned().reserve(n);
	}
	void
	push_back(const T &value) {
		owned().push_back(value);
	}
	void
	shrink_to_fit() {
		owned().shrink_to_fit();
	}
	void
	clear() noexcept {
		owned_.clear();
		borrowed_ = nullptr;
		borrowed_count_ = 0;
		keep_.reset();
	}

	friend bool
	operator==(const Array &a, const Array &b) noexcept {
		if (a.size() != b.size())
			return false;
		for (size_t i = 0; i < a.size(); i++)
			if (!(a[i] == b[i]))
				return false;
		return true;
	}
	friend bool
	operator!=(const Array &a, const Array &b) noexcept {
		return !(a == b);
	}

private:
	std::vector<T> owned_;
	const T *borrowed_ = nullptr;
	size_t borrowed_count_ = 0;
	std::shared_ptr<const void> keep_;
};

} // namespace grail
