// Host tensors to and from HAL devices (tools/common/device_tensor.h), on
// both CPU drivers, directly and through a staging copy.
#include "tools/common/device_tensor.h"

#include <gtest/gtest.h>

#include "hal/builtin_drivers.h"
#include "hal/driver_registry.h"
#include "tools/common/tensor_literal.h"

namespace kiln::tools {
namespace {

class DeviceTensorTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    hal::DriverRegistry registry;
    ASSERT_TRUE(hal::RegisterBuiltinDrivers(registry).ok());
    auto device = registry.CreateDevice(GetParam());
    ASSERT_TRUE(device.ok()) << device.status().ToString();
    device_ = *device;
  }

  static HostTensor Literal(std::string_view text) {
    auto tensor = ParseTensorLiteral(text);
    EXPECT_TRUE(tensor.ok()) << tensor.status().ToString();
    return tensor.ok() ? *tensor : HostTensor{};
  }

  Ref<hal::Device> device_;
};

TEST_P(DeviceTensorTest, RoundTrips) {
  for (std::string_view text : {"2x3xf32=1 2 3 4 5 6", "i64=-7", "0x4xi8=", "4xi1=1 0 1 1",
                                "3xbf16=1.5 -2 0.25", "2x2xf16=[1 2][3 4]"}) {
    const HostTensor tensor = Literal(text);
    for (TransferPath up : {TransferPath::kAuto, TransferPath::kStaging}) {
      auto view = UploadTensor(*device_, tensor, up);
      ASSERT_TRUE(view.ok()) << view.status().ToString();
      EXPECT_EQ((*view)->ShapeString(), FormatShapeAndType(tensor.shape, tensor.element_type));
      // Inputs live in memory dispatches can bind; directly uploaded ones
      // in memory the host can write, staged ones need not be.
      EXPECT_TRUE((*view)->buffer()->allowed_usage() & hal::kBufferUsageDispatchStorage);
      EXPECT_EQ(((*view)->buffer()->allowed_usage() & hal::kBufferUsageMapping) != 0,
                up == TransferPath::kAuto);
      for (TransferPath down : {TransferPath::kAuto, TransferPath::kStaging}) {
        auto back = DownloadTensor(*device_, **view, down);
        ASSERT_TRUE(back.ok()) << back.status().ToString();
        EXPECT_EQ(*back, tensor) << text;
      }
    }
  }
}

// A view of the front of a larger buffer reads only its own bytes; a buffer
// the host may not map is read through a staging copy.
TEST_P(DeviceTensorTest, ViewsAndUnmappableBuffers) {
  hal::BufferParams params;
  params.usage = hal::kBufferUsageTransfer | hal::kBufferUsageDispatchStorage;  // No mapping.
  auto buffer = device_->allocator().Allocate(params, 64);
  ASSERT_TRUE(buffer.ok());
  // Fill it through a mappable staging buffer copied on the queue.
  auto source = UploadTensor(*device_, Literal("16xi32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"));
  ASSERT_TRUE(source.ok());
  auto commands = device_->CreateCommandBuffer(hal::CommandBufferMode::kOneShot);
  ASSERT_TRUE(commands.ok());
  ASSERT_TRUE((*commands)->Begin().ok());
  ASSERT_TRUE(
      (*commands)
          ->CopyBuffer(hal::BufferRef::Of((*source)->buffer()), hal::BufferRef::Of(*buffer), 64)
          .ok());
  ASSERT_TRUE((*commands)->End().ok());
  auto done = device_->CreateSemaphore(0);
  ASSERT_TRUE(done.ok());
  const Ref<hal::CommandBuffer> submitted[] = {*commands};
  ASSERT_TRUE(device_->QueueExecute(hal::Fence(), hal::Fence{{*done, 1}}, submitted, {}).ok());
  ASSERT_TRUE((*done)->Wait(1, hal::kInfiniteTimeout).ok());

  const int64_t shape[] = {2, 3};
  auto view = hal::BufferView::Create(*buffer, shape, hal::ElementType::kInt32);
  ASSERT_TRUE(view.ok());
  EXPECT_FALSE((*buffer)->allowed_usage() & hal::kBufferUsageMapping);
  auto back = DownloadTensor(*device_, **view);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, Literal("2x3xi32=0 1 2 3 4 5"));
}

// A buffer that neither the host nor a transfer may touch is an error that
// says what failed, not a crash.
TEST_P(DeviceTensorTest, UnreadableBufferIsAnError) {
  hal::BufferParams params;
  params.usage = hal::kBufferUsageDispatchStorage;
  auto buffer = device_->allocator().Allocate(params, 16);
  ASSERT_TRUE(buffer.ok());
  const int64_t shape[] = {4};
  auto view = hal::BufferView::Create(*buffer, shape, hal::ElementType::kFloat32);
  ASSERT_TRUE(view.ok());
  auto back = DownloadTensor(*device_, **view);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().message().rfind("copying 4xf32 to host-visible memory: ", 0), 0u)
      << back.status().message();
}

INSTANTIATE_TEST_SUITE_P(Drivers, DeviceTensorTest, ::testing::Values("cpu", "cpu-sync"));

}  // namespace
}  // namespace kiln::tools
