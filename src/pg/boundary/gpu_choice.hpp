// Which engine runs an algorithm: the grail.device and grail.gpu_min_edges settings as the engine's
// device policy (src/core/device_policy.hpp, which holds the rule and its fallback).
#pragma once

#include "device_policy.hpp"
#include "graph.hpp"

#include <string>
#include <utility>

#include "boundary/guard.hpp"

namespace grail::pg {

// The settings as a policy value.
grail::DevicePolicy device_policy();

// The policy for work on this process's own GPU (not the GPU service's): device_policy(), but a
// parallel worker keeps its share on the CPU under automatic. A worker is a process made for one
// query; its GPU would be a CUDA context made for that share alone, which costs more than the
// share: the filter over 2M rows with 3 workers took 1,151 ms with each process on its own GPU
// (grail.device = gpu, what automatic did before), 254 ms so, 227 ms on the CPU (H200 host,
// bench/lookup_parallel.sh --device, without the GPU service). Under gpu the worker uses it as
// asked.
grail::DevicePolicy in_process_device_policy();

// The NOTICE that `what` runs on the CPU after a GPU failure the policy falls back from.
void notice_cpu_fallback(const char *what, const std::string &reason);

// gpu() where the settings pick the GPU for graph, cpu() otherwise or after a recoverable GPU
// failure under auto (with a NOTICE naming `what`). probe: whether a GPU is usable (the GPU
// service's where the work goes to it, service/gpu_client.hpp).
template <typename Gpu, typename Cpu>
auto
on_chosen_device(const char *what, const Csr &graph, Gpu &&gpu, Cpu &&cpu,
                 grail::DevicePolicy::Probe probe = grail::process_gpu) -> decltype(cpu()) {
	return grail::run_on_device(probe == grail::process_gpu ? in_process_device_policy() : device_policy(), what, graph,
	                            std::forward<Gpu>(gpu), std::forward<Cpu>(cpu), notice_cpu_fallback, probe);
}

} // namespace grail::pg
