#include "tools/common/device_selection.h"

#include <cstdio>

namespace kiln::tools {

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
  if (result.count("task_topology_group_count") > 1) {
    return InvalidArgumentError("--task_topology_group_count given more than once");
  }
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
