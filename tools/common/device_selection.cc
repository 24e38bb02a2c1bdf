#include "tools/common/device_selection.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace kiln::tools {
namespace {

// One line on each driver hal::RegisterBuiltinDrivers registers. The
// registry keeps names and factories only (a driver is not created to be
// listed: creating cuda's loads libcuda), so what each is lives here.
std::string_view DriverDescription(std::string_view name) {
  if (name == "cpu") {
    return "CPU: dispatches run on a pool of worker threads (--task_topology_group_count); "
           "alias local-task";
  }
  if (name == "cpu-sync") {
    return "CPU, synchronous: dispatches run inline on the calling thread; alias local-sync";
  }
  if (name == "cuda") {
    return "NVIDIA GPUs through the CUDA driver API (CUDA graphs; cuBLASLt/cuDNN library calls)";
  }
  if (name == "vulkan") return "GPUs through Vulkan compute (SPIR-V kernels)";
  return "(no description)";
}

}  // namespace

void PrintDevices(const hal::DriverRegistry& registry) {
  for (const hal::DeviceInfo& device : registry.ListDevices()) {
    std::string line = device.uri;
    // An unavailable driver's entry may carry its name as both.
    if (!device.name.empty() && device.name != device.uri) line += "  " + device.name;
    if (!device.available) line += "  unavailable: " + device.reason;
    if (!device.details.empty()) line += "  " + device.details;
    std::printf("%s\n", line.c_str());
  }
}

void PrintDrivers(const hal::DriverRegistry& registry) {
  const std::vector<std::string> names = registry.DriverNames();
  size_t width = 0;
  for (const std::string& name : names) width = std::max(width, name.size());
  for (const std::string& name : names) {
    const std::string_view description = DriverDescription(name);
    std::printf("%-*s  %.*s\n", static_cast<int>(width), name.c_str(),
                static_cast<int>(description.size()), description.data());
  }
}

Result<Ref<hal::Device>> CreateDeviceFromFlag(const hal::DriverRegistry& registry,
                                              const std::string& uri) {
  auto device = registry.CreateDevice(uri);
  if (!device.ok()) return device.status().WithContext("--device=" + uri);
  return device;
}

void AddDriverFlags(cxxopts::Options& flags) {
  flags.add_options()  //
      ("cuda_use_streams",
       "CUDA: issue command buffers as direct stream launches instead of CUDA graphs "
       "(for debugging; results are identical)",
       cxxopts::value<bool>()->default_value("false"))  //
      ("cuda_library_calls",
       "CUDA: run exports that carry a library call (cuBLASLt matmul, cuDNN convolution) "
       "through the library where it is present; false runs their generated kernels",
       cxxopts::value<bool>()->default_value("true"))  //
      ("cuda_graph_cache",
       "CUDA: keep the graphs of one-shot command buffers (functions with dynamic shapes) "
       "for the next of the same structure; false builds a graph per call",
       cxxopts::value<bool>()->default_value("true"))  //
      ("cpu_library_calls",
       "cpu: run exports that carry a library call (matmul, convolution) through oneDNN "
       "(libdnnl.so.2) where it is present; false runs their generated kernels",
       cxxopts::value<bool>()->default_value("true"))  //
      ("task_topology_group_count",
       "cpu: worker threads of the device (default: one per CPU this process may run on)",
       cxxopts::value<int64_t>());
}

Status ReadDriverFlags(const cxxopts::ParseResult& result, hal::BuiltinDriverOptions* drivers) {
  drivers->cuda_use_streams = result["cuda_use_streams"].as<bool>();
  drivers->cuda_library_calls = result["cuda_library_calls"].as<bool>();
  drivers->cuda_graph_cache = result["cuda_graph_cache"].as<bool>();
  drivers->cpu_library_calls = result["cpu_library_calls"].as<bool>();
  if (result.count("task_topology_group_count")) {
    const int64_t threads = result["task_topology_group_count"].as<int64_t>();
    constexpr int64_t kMaxThreads = 4096;
    if (threads < 1 || threads > kMaxThreads) {
      return InvalidArgumentError("--task_topology_group_count must be between 1 and " +
                                  std::to_string(kMaxThreads) + ", got " + std::to_string(threads));
    }
    drivers->cpu_thread_count = static_cast<uint32_t>(threads);
  }
  return OkStatus();
}

}  // namespace kiln::tools
