// Base fixture of the GPU tests: on a machine without a usable GPU they report skipped, never passed.
#pragma once
#include "device.hpp"

#include <gtest/gtest.h>

namespace grail {

class GpuTest : public ::testing::Test {
protected:
	void
	SetUp() override {
		GpuProbe probe = probe_gpu();
		if (!probe.usable)
			GTEST_SKIP() << "no usable GPU: " << probe.description;
	}
};

} // namespace grail
