// A kernel fault on the GPU (label `gpu`): the CUDA error surfaces as a
// Status on the next wait, and the device then reports itself lost rather
// than hanging. In its own binary: the fault poisons the process's primary
// context for good.
#include <gtest/gtest.h>

#include "tests/hal/cuda/cuda_test_util.h"

namespace kiln::hal::cuda {
namespace {

TEST(CudaFaultTest, KernelFaultLosesTheDevice) {
  std::string skip;
  Ref<Device> device = testing::CreateCudaDevice(false, &skip);
  if (!device) GTEST_SKIP() << skip;
  Result<Ref<Executable>> executable = device->CreateExecutable(
      "cuda-nvptx-fb", testing::BuildCudaExecutable({{"sm_75", testing::ReadTestPtx()}},
                                                    {{"fault", "fault", 32, {false}, 0}}));
  ASSERT_TRUE(executable.ok()) << executable.status().ToString();
  Ref<Buffer> data = testing::Upload(*device, std::vector<float>(32, 1.0f));
  Result<Ref<CommandBuffer>> command_buffer = device->CreateCommandBuffer(CommandBufferMode::kOneShot);
  ASSERT_TRUE(command_buffer.ok());
  ASSERT_TRUE((*command_buffer)->Begin().ok());
  const BufferRef bindings[] = {BufferRef::Of(data)};
  ASSERT_TRUE((*command_buffer)->Dispatch(*executable, 0, {1, 1, 1}, {}, bindings).ok());
  ASSERT_TRUE((*command_buffer)->End().ok());
  Status waited = testing::SubmitAndWait(*device, *command_buffer);
  ASSERT_FALSE(waited.ok());
  EXPECT_NE(waited.message().find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos)
      << waited.ToString();
  // Every later submission fails at once with the lost status.
  Result<Ref<CommandBuffer>> next = device->CreateCommandBuffer(CommandBufferMode::kOneShot);
  ASSERT_FALSE(next.ok());
  EXPECT_NE(next.status().message().find("is lost"), std::string::npos)
      << next.status().ToString();
  Result<Ref<Semaphore>> semaphore = device->CreateSemaphore(0);
  ASSERT_TRUE(semaphore.ok());
  Status submitted = device->QueueExecute(Fence(), Fence({{*semaphore, 1}}), {}, {});
  EXPECT_NE(submitted.message().find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos)
      << submitted.ToString();
}

}  // namespace
}  // namespace kiln::hal::cuda
