// Shared by the CUDA driver tests: creating the `cuda` device (skipping the
// test where there is none), the PTX of test_kernels.cu (built by nvcc next
// to the test binary) and "cuda-nvptx-fb" executables made from it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "hal/builtin_drivers.h"
#include "hal/device.h"
#include "schemas/executable_cuda_generated.h"

namespace kiln::hal::cuda::testing {

// The `cuda` device, or null with the reason in *skip (no driver, no GPU).
inline Ref<Device> CreateCudaDevice(bool use_streams, std::string* skip,
                                    bool library_calls = true) {
  DriverRegistry registry;
  BuiltinDriverOptions options;
  options.cuda_use_streams = use_streams;
  options.cuda_library_calls = library_calls;
  Status registered = RegisterBuiltinDrivers(registry, options);
  if (!registered.ok()) {
    *skip = registered.ToString();
    return nullptr;
  }
  Result<Ref<Device>> device = registry.CreateDevice("cuda");
  if (!device.ok()) {
    *skip = "no CUDA device here: " + device.status().ToString();
    return nullptr;
  }
  return *device;
}

// test_kernels.ptx, which the build puts next to the test binary (so the
// binary runs from a build folder copied to a GPU machine).
inline std::string ReadTestPtx() {
  const std::string dir = ExecutableDirectory();
  std::ifstream file(dir + "kiln_hal_cuda_test_kernels.ptx");
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_FALSE(text.str().empty()) << "cannot read " << dir << "kiln_hal_cuda_test_kernels.ptx";
  return text.str();
}

struct CudaExportSpec {
  std::string name;
  std::string kernel;
  uint32_t block_x;
  std::vector<bool> read_only;
  uint32_t constant_count;
  uint32_t shared_memory_bytes = 0;
};

struct PtxImageSpec {
  std::string target_arch;
  std::string ptx;
};

inline std::vector<uint8_t> BuildCudaExecutable(const std::vector<PtxImageSpec>& images,
                                                const std::vector<CudaExportSpec>& specs) {
  namespace fb = ::kiln::schema::cuda;
  flatbuffers::FlatBufferBuilder builder;
  std::vector<flatbuffers::Offset<fb::PtxImage>> image_offsets;
  for (const PtxImageSpec& image : images) {
    image_offsets.push_back(fb::CreatePtxImage(builder, builder.CreateString(image.target_arch),
                                               builder.CreateString(image.ptx)));
  }
  std::vector<flatbuffers::Offset<fb::Export>> exports;
  for (const CudaExportSpec& spec : specs) {
    std::vector<flatbuffers::Offset<fb::Binding>> bindings;
    for (bool flag : spec.read_only) bindings.push_back(fb::CreateBinding(builder, flag));
    fb::BlockSize block(spec.block_x, 1, 1);
    exports.push_back(fb::CreateExport(
        builder, builder.CreateString(spec.name), builder.CreateString(spec.kernel), &block,
        spec.shared_memory_bytes, builder.CreateVector(bindings), spec.constant_count));
  }
  fb::FinishCudaExecutableBuffer(
      builder, fb::CreateCudaExecutable(builder, builder.CreateVector(image_offsets),
                                        builder.CreateVector(exports)));
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

// A device-local buffer holding `values`.
inline Ref<Buffer> Upload(Device& device, const std::vector<float>& values) {
  Result<Ref<Buffer>> buffer =
      device.allocator().Allocate(BufferParams{}, values.size() * sizeof(float));
  EXPECT_TRUE(buffer.ok()) << buffer.status().ToString();
  if (!buffer.ok()) return nullptr;
  Status written = (*buffer)->WriteData(
      0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()),
                                  values.size() * sizeof(float)));
  EXPECT_TRUE(written.ok()) << written.ToString();
  return *buffer;
}

inline std::vector<float> Download(Buffer& buffer) {
  std::vector<float> values(buffer.byte_length() / sizeof(float));
  Status read = buffer.ReadData(
      0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(values.data()), buffer.byte_length()));
  EXPECT_TRUE(read.ok()) << read.ToString();
  return values;
}

// Submits `command_buffer` with `table` and waits for it.
inline Status SubmitAndWait(Device& device, const Ref<CommandBuffer>& command_buffer,
                            std::span<const Ref<Buffer>> table = {}) {
  KILN_ASSIGN_OR_RETURN(Ref<Semaphore> semaphore, device.CreateSemaphore(0));
  Fence signal({{semaphore, 1}});
  const Ref<CommandBuffer> list[] = {command_buffer};
  KILN_RETURN_IF_ERROR(device.QueueExecute(Fence(), signal, list, table));
  return signal.Wait(std::chrono::seconds(20));
}

}  // namespace kiln::hal::cuda::testing
