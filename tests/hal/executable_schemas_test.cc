// The executable FlatBuffer schemas for the GPU formats (cuda-nvptx-fb,
// vulkan-spirv-fb): they build, carry their file identifiers and verify, so
// the compiler can embed them and the drivers can read them back.
#include <gtest/gtest.h>

#include "flatbuffers/flatbuffers.h"
#include "schemas/executable_cuda_generated.h"
#include "schemas/executable_elf_generated.h"
#include "schemas/executable_spirv_generated.h"

namespace kiln {
namespace {

TEST(ExecutableSchemasTest, CudaRoundTrips) {
  namespace fb = schema::cuda;
  flatbuffers::FlatBufferBuilder builder;
  std::vector<flatbuffers::Offset<fb::PtxImage>> images = {
      fb::CreatePtxImageDirect(builder, "sm_80", ".version 7.0\n.target sm_80\n"),
      fb::CreatePtxImageDirect(builder, "sm_90", ".version 8.0\n.target sm_90\n")};
  std::vector<flatbuffers::Offset<fb::Binding>> bindings = {fb::CreateBinding(builder, true),
                                                            fb::CreateBinding(builder, false)};
  fb::BlockSize block(128, 1, 1);
  std::vector<flatbuffers::Offset<fb::Export>> exports = {fb::CreateExportDirect(
      builder, "simple_mul", "simple_mul_kernel", &block, 4096, &bindings, 1)};
  fb::FinishCudaExecutableBuffer(builder,
                                 fb::CreateCudaExecutableDirect(builder, &images, &exports));

  const uint8_t* data = builder.GetBufferPointer();
  flatbuffers::Verifier verifier(data, builder.GetSize());
  ASSERT_TRUE(fb::VerifyCudaExecutableBuffer(verifier));
  EXPECT_STREQ(fb::CudaExecutableIdentifier(), "KPTX");
  EXPECT_TRUE(fb::CudaExecutableBufferHasIdentifier(data));
  EXPECT_FALSE(schema::elf::ElfExecutableBufferHasIdentifier(data));
  const fb::CudaExecutable* executable = fb::GetCudaExecutable(data);
  ASSERT_EQ(executable->images()->size(), 2u);
  EXPECT_EQ(executable->images()->Get(1)->target_arch()->str(), "sm_90");
  const fb::Export* e = executable->exports()->Get(0);
  EXPECT_EQ(e->kernel_name()->str(), "simple_mul_kernel");
  EXPECT_EQ(e->block_size()->x(), 128u);
  EXPECT_EQ(e->shared_memory_bytes(), 4096u);
  EXPECT_TRUE(e->bindings()->Get(0)->read_only());
  EXPECT_EQ(e->constant_count(), 1u);
}

TEST(ExecutableSchemasTest, SpirvRoundTrips) {
  namespace fb = schema::spirv;
  flatbuffers::FlatBufferBuilder builder;
  std::vector<uint32_t> code = {0x07230203u, 0x00010300u, 0, 8, 0};
  std::vector<flatbuffers::Offset<fb::Binding>> bindings = {fb::CreateBinding(builder, false)};
  fb::WorkgroupSize size(64, 1, 1);
  std::vector<flatbuffers::Offset<fb::Export>> exports = {
      fb::CreateExportDirect(builder, "simple_mul_inplace", "main", &size, &bindings, 2)};
  fb::FinishSpirvExecutableBuffer(builder,
                                  fb::CreateSpirvExecutableDirect(builder, &code, &exports));

  const uint8_t* data = builder.GetBufferPointer();
  flatbuffers::Verifier verifier(data, builder.GetSize());
  ASSERT_TRUE(fb::VerifySpirvExecutableBuffer(verifier));
  EXPECT_STREQ(fb::SpirvExecutableIdentifier(), "KSPV");
  const fb::SpirvExecutable* executable = fb::GetSpirvExecutable(data);
  EXPECT_EQ(executable->code()->Get(0), 0x07230203u);
  EXPECT_EQ(executable->exports()->Get(0)->entry_point()->str(), "main");
  EXPECT_EQ(executable->exports()->Get(0)->workgroup_size()->x(), 64u);
  EXPECT_EQ(executable->exports()->Get(0)->constant_count(), 2u);
  EXPECT_STREQ(schema::elf::ElfExecutableIdentifier(), "KELF");
}

}  // namespace
}  // namespace kiln
