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

TEST(ExecutableSchemasTest, SpirvRoundTripsWithSeveralModules) {
  namespace fb = schema::spirv;
  flatbuffers::FlatBufferBuilder builder;
  std::vector<uint32_t> mul_code = {0x07230203u, 0x00010300u, 0, 8, 0};
  std::vector<uint32_t> add_code = {0x07230203u, 0x00010000u, 0, 9, 0, 0x00010000u};
  std::vector<flatbuffers::Offset<fb::ShaderModule>> modules = {
      fb::CreateShaderModuleDirect(builder, &mul_code),
      fb::CreateShaderModuleDirect(builder, &add_code)};
  std::vector<flatbuffers::Offset<fb::Binding>> bindings = {fb::CreateBinding(builder, true),
                                                            fb::CreateBinding(builder, false)};
  fb::WorkgroupSize mul_size(64, 1, 1);
  fb::WorkgroupSize add_size(8, 4, 2);
  std::vector<flatbuffers::Offset<fb::Export>> exports = {
      fb::CreateExportDirect(builder, "simple_mul", "main", 0, &mul_size, &bindings, 2),
      fb::CreateExportDirect(builder, "simple_add", "add_main", 1, &add_size, &bindings, 1)};
  fb::FinishSpirvExecutableBuffer(builder,
                                  fb::CreateSpirvExecutableDirect(builder, &modules, &exports));

  const uint8_t* data = builder.GetBufferPointer();
  flatbuffers::Verifier verifier(data, builder.GetSize());
  ASSERT_TRUE(fb::VerifySpirvExecutableBuffer(verifier));
  EXPECT_STREQ(fb::SpirvExecutableIdentifier(), "KSPV");
  EXPECT_TRUE(fb::SpirvExecutableBufferHasIdentifier(data));
  EXPECT_FALSE(schema::cuda::CudaExecutableBufferHasIdentifier(data));
  const fb::SpirvExecutable* executable = fb::GetSpirvExecutable(data);
  ASSERT_EQ(executable->modules()->size(), 2u);
  EXPECT_EQ(executable->modules()->Get(0)->code()->Get(0), 0x07230203u);
  EXPECT_EQ(executable->modules()->Get(1)->code()->size(), 6u);
  EXPECT_EQ(executable->modules()->Get(1)->code()->Get(3), 9u);
  ASSERT_EQ(executable->exports()->size(), 2u);
  const fb::Export* mul = executable->exports()->Get(0);
  EXPECT_EQ(mul->name()->str(), "simple_mul");
  EXPECT_EQ(mul->entry_point()->str(), "main");
  EXPECT_EQ(mul->module_ordinal(), 0u);
  EXPECT_EQ(mul->workgroup_size()->x(), 64u);
  EXPECT_EQ(mul->constant_count(), 2u);
  EXPECT_TRUE(mul->bindings()->Get(0)->read_only());
  const fb::Export* add = executable->exports()->Get(1);
  EXPECT_EQ(add->entry_point()->str(), "add_main");
  EXPECT_EQ(add->module_ordinal(), 1u);
  EXPECT_EQ(add->workgroup_size()->y(), 4u);
  EXPECT_EQ(add->workgroup_size()->z(), 2u);
  EXPECT_STREQ(schema::elf::ElfExecutableIdentifier(), "KELF");
}

}  // namespace
}  // namespace kiln
