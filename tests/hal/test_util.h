// Helpers shared by the HAL tests: devices, buffers with typed contents, and
// an in-process CPU executable whose kernels follow hal/cpu/kernel_abi.h.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "hal/builtin_drivers.h"
#include "hal/cpu/cpu_device.h"
#include "hal/cpu/cpu_executable.h"
#include "hal/device.h"
#include "hal/driver_registry.h"

namespace kiln::hal::testing {

#define KILN_ASSERT_OK(expr)                                             \
  do {                                                                   \
    ::kiln::Status kiln_test_status_ = (expr);                           \
    ASSERT_TRUE(kiln_test_status_.ok()) << kiln_test_status_.ToString(); \
  } while (false)

template <typename T>
T Unwrap(Result<T> result) {
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return std::move(result).value();
}

inline Ref<Device> CreateDevice(const std::string& uri) {
  DriverRegistry registry;
  Status registered = RegisterBuiltinDrivers(registry);
  EXPECT_TRUE(registered.ok()) << registered.ToString();
  return Unwrap(registry.CreateDevice(uri));
}

template <typename T>
Ref<Buffer> MakeBuffer(Device& device, const std::vector<T>& values) {
  Ref<Buffer> buffer =
      Unwrap(device.allocator().Allocate(BufferParams{}, values.size() * sizeof(T)));
  Status written =
      buffer->WriteData(0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()),
                                                    values.size() * sizeof(T)));
  EXPECT_TRUE(written.ok()) << written.ToString();
  return buffer;
}

template <typename T>
std::vector<T> ReadBuffer(Buffer& buffer, size_t offset = 0, size_t count = ~size_t{0}) {
  if (count == ~size_t{0}) count = (buffer.byte_length() - offset) / sizeof(T);
  std::vector<T> values(count);
  Status read = buffer.ReadData(
      offset, std::span<uint8_t>(reinterpret_cast<uint8_t*>(values.data()), count * sizeof(T)));
  EXPECT_TRUE(read.ok()) << read.ToString();
  return values;
}

inline ExecutableExport MakeExport(std::string name, std::array<uint32_t, 3> workgroup_size,
                                   uint32_t constant_count, std::vector<bool> read_only) {
  ExecutableExport e;
  e.name = std::move(name);
  e.workgroup_size = workgroup_size;
  e.layout.constant_count = constant_count;
  for (bool flag : read_only) e.layout.bindings.push_back({DescriptorType::kStorageBuffer, flag});
  return e;
}

// Kernels of the test executable, in export order.
namespace kernels {

// binding 0: uint32 out[count_x * count_y * count_z * 4]; each workgroup
// writes its id (+1, so unwritten slots stay 0) and its size to its own
// four slots.
inline int RecordIds(const kiln_hal_dispatch_state_t* s) {
  uint32_t linear =
      s->workgroup_id[0] +
      s->workgroup_count[0] * (s->workgroup_id[1] + s->workgroup_count[1] * s->workgroup_id[2]);
  uint32_t* out = static_cast<uint32_t*>(s->bindings[0]) + linear * 4;
  out[0] = s->workgroup_id[0] + 1;
  out[1] = s->workgroup_id[1] + 1;
  out[2] = s->workgroup_id[2] + 1;
  out[3] = s->workgroup_size[0] * 10000 + s->workgroup_size[1] * 100 + s->workgroup_size[2];
  return 0;
}

// out[i] = in[i] * constants[1] + constants[2] for i < constants[0]
// (bindings 0 = in, 1 = out; int32 values); workgroup size 4.
inline int MulAdd(const kiln_hal_dispatch_state_t* s) {
  const int32_t* in = static_cast<const int32_t*>(s->bindings[0]);
  int32_t* out = static_cast<int32_t*>(s->bindings[1]);
  uint32_t n = s->constants[0];
  uint32_t begin = s->workgroup_id[0] * s->workgroup_size[0];
  for (uint32_t i = begin; i < begin + s->workgroup_size[0] && i < n; ++i) {
    out[i] = in[i] * static_cast<int32_t>(s->constants[1]) + static_cast<int32_t>(s->constants[2]);
  }
  return 0;
}

// Returns constants[0] from workgroup constants[1]; 0 elsewhere.
inline int FailIn(const kiln_hal_dispatch_state_t* s) {
  return s->workgroup_id[0] == s->constants[1] ? static_cast<int>(s->constants[0]) : 0;
}

// binding 1 (uint64 out[2 * binding_count]): the binding lengths and the
// address difference between bindings 0 and 1 (for subspans).
inline int Describe(const kiln_hal_dispatch_state_t* s) {
  uint64_t* out = static_cast<uint64_t*>(s->bindings[1]);
  out[0] = s->binding_count;
  out[1] = s->constant_count;
  out[2] = s->binding_lengths[0];
  out[3] = s->binding_lengths[1];
  out[4] = *static_cast<const uint32_t*>(s->bindings[0]);
  return 0;
}

// binding 0: int32 in/out; adds 1 to element 0 (workgroup count 1).
inline int Increment(const kiln_hal_dispatch_state_t* s) {
  ++*static_cast<int32_t*>(s->bindings[0]);
  return 0;
}

}  // namespace kernels

enum TestExport : uint32_t { kRecordIds = 0, kMulAdd, kFailIn, kDescribe, kIncrement };

inline Ref<cpu::CpuExecutable> MakeTestExecutable() {
  std::vector<cpu::CpuExport> exports = {
      {MakeExport("record_ids", {3, 2, 1}, 0, {false}), kernels::RecordIds, nullptr},
      {MakeExport("mul_add", {4, 1, 1}, 3, {true, false}), kernels::MulAdd, nullptr},
      {MakeExport("fail_in", {1, 1, 1}, 2, {}), kernels::FailIn, nullptr},
      {MakeExport("describe", {1, 1, 1}, 0, {true, false}), kernels::Describe, nullptr},
      {MakeExport("increment", {1, 1, 1}, 0, {false}), kernels::Increment, nullptr},
  };
  return Unwrap(cpu::CpuExecutable::Create("test-in-process", std::move(exports)));
}

// The gtest name of a test parameterized by a device name ("cpu-4-threads"
// becomes "cpu_4_threads": gtest names allow no '-').
inline std::string DeviceParamName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

// Submits one command buffer with no waits and waits for it.
inline Status SubmitAndWait(Device& device, const Ref<CommandBuffer>& command_buffer,
                            std::span<const Ref<Buffer>> binding_table = {}) {
  KILN_ASSIGN_OR_RETURN(Ref<Semaphore> semaphore, device.CreateSemaphore(0));
  Fence signal{{semaphore, 1}};
  KILN_RETURN_IF_ERROR(
      device.QueueExecute(Fence(), signal, std::span(&command_buffer, 1), binding_table));
  return signal.Wait(std::chrono::seconds(30));
}

}  // namespace kiln::hal::testing
