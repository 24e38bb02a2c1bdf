// The Vulkan driver has no collectives: CreateChannel says so, and a
// collective on another driver's channel is refused when it is recorded
// (so none ever reaches the Vulkan executor).
#include <gtest/gtest.h>

#include "hal/cpu/cpu_device.h"
#include "tests/hal/vulkan/vulkan_test_util.h"

namespace kiln::hal::vulkan {
namespace {

using testing::SubmitAndWait;
using testing::Unwrap;
using testing::VulkanTest;

TEST_F(VulkanTest, CreateChannelSaysTheDriverHasNoCollectives) {
  ChannelParams params;  // A group of one: nothing else could be wrong.
  Result<Ref<Channel>> channel = device_->CreateChannel(params);
  ASSERT_FALSE(channel.ok());
  EXPECT_EQ(channel.status().code(), StatusCode::kUnavailable) << channel.status().ToString();
  EXPECT_NE(channel.status().message().find("the vulkan driver has no collectives"),
            std::string::npos)
      << channel.status().ToString();
}

TEST_F(VulkanTest, CollectiveIsRefusedWhenRecorded) {
  cpu::CpuDeviceOptions options;
  options.asynchronous = false;
  Ref<cpu::CpuDevice> cpu = Unwrap(cpu::CpuDevice::Create(options));
  Ref<Channel> channel = Unwrap(cpu->CreateChannel(ChannelParams{}));
  Ref<Buffer> buffer = Allocate(64);
  Ref<CommandBuffer> command_buffer = Begin();
  CollectiveOp op;
  op.kind = CollectiveKind::kAllReduce;
  op.reduction = CollectiveReduction::kSum;
  op.element_type = ElementType::kFloat32;
  Status status = command_buffer->Collective(channel, op, BufferRef::Of(buffer, 0, 16),
                                             BufferRef::Of(buffer, 16, 16), 4);
  EXPECT_EQ(status.code(), StatusCode::kUnavailable) << status.ToString();
  EXPECT_NE(status.message().find("no collectives"), std::string::npos) << status.ToString();
  // Nothing was recorded: the command buffer ends and runs empty.
  ASSERT_TRUE(command_buffer->End().ok());
  Status ran = SubmitAndWait(*device_, command_buffer);
  EXPECT_TRUE(ran.ok()) << ran.ToString();
}

}  // namespace
}  // namespace kiln::hal::vulkan
