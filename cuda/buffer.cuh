// RAII owners of device resources: plain cudaMalloc'd buffers (never managed memory, which can
// overcommit the card), pinned host buffers for small asynchronous read-backs, streams, events
// and CUB temporary storage. Destructors never throw: they run while an Error unwinds.
#pragma once
#include "check.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace grail::cuda {

template <class T> class DeviceBuffer {
public:
	DeviceBuffer() = default;
	explicit DeviceBuffer(size_t count) {
		resize(count);
	}
	DeviceBuffer(const DeviceBuffer &) = delete;
	DeviceBuffer &operator=(const DeviceBuffer &) = delete;
	DeviceBuffer(DeviceBuffer &&other) noexcept
	    : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {
	}
	DeviceBuffer &
	operator=(DeviceBuffer &&other) noexcept {
		if (this != &other) {
			release();
			data_ = std::exchange(other.data_, nullptr);
			count_ = std::exchange(other.count_, 0);
		}
		return *this;
	}
	~DeviceBuffer() {
		release();
	}

	// Discards the contents unless the size stays; the old buffer is freed first so that peak
	// memory stays low.
	void
	resize(size_t count) {
		if (count == count_)
			return;
		release();
		if (count > 0)
			CUDA_CHECK(cudaMalloc(&data_, count * sizeof(T)));
		count_ = count;
	}
	void
	release() noexcept {
		if (data_)
			cudaFree(data_);
		data_ = nullptr;
		count_ = 0;
	}
	T *
	data() const noexcept {
		return data_;
	}
	size_t
	size() const noexcept {
		return count_;
	}
	size_t
	bytes() const noexcept {
		return count_ * sizeof(T);
	}

private:
	T *data_ = nullptr;
	size_t count_ = 0;
};

// Page-locked host memory: a cudaMemcpyAsync into it is truly asynchronous.
template <class T> class PinnedBuffer {
public:
	explicit PinnedBuffer(size_t count) : count_(count) {
		CUDA_CHECK(cudaMallocHost(&data_, count * sizeof(T)));
	}
	PinnedBuffer(const PinnedBuffer &) = delete;
	PinnedBuffer &operator=(const PinnedBuffer &) = delete;
	~PinnedBuffer() {
		cudaFreeHost(data_);
	}
	T *
	data() const noexcept {
		return data_;
	}
	T &
	operator[](size_t k) const noexcept {
		return data_[k];
	}

private:
	T *data_ = nullptr;
	size_t count_;
};

class Stream {
public:
	Stream() {
		CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
	}
	Stream(const Stream &) = delete;
	Stream &operator=(const Stream &) = delete;
	~Stream() {
		cudaStreamDestroy(stream_);
	}
	cudaStream_t
	get() const noexcept {
		return stream_;
	}
	void
	synchronize() const {
		CUDA_CHECK(cudaStreamSynchronize(stream_));
	}

private:
	cudaStream_t stream_ = nullptr;
};

class Event {
public:
	Event() {
		CUDA_CHECK(cudaEventCreate(&event_));
	}
	Event(const Event &) = delete;
	Event &operator=(const Event &) = delete;
	~Event() {
		cudaEventDestroy(event_);
	}
	void
	record(cudaStream_t stream) {
		CUDA_CHECK(cudaEventRecord(event_, stream));
	}
	cudaEvent_t
	get() const noexcept {
		return event_;
	}
	// Milliseconds from start to this event; both must have completed.
	float
	since(const Event &start) const {
		float ms = 0;
		CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
		return ms;
	}

private:
	cudaEvent_t event_ = nullptr;
};

// CUB's two-phase calls ask for temporary storage first; one growing buffer serves them all.
class TempStorage {
public:
	void *
	get(size_t bytes) {
		if (bytes > buffer_.size())
			buffer_.resize(bytes);
		return buffer_.data();
	}

private:
	DeviceBuffer<unsigned char> buffer_;
};

} // namespace grail::cuda
