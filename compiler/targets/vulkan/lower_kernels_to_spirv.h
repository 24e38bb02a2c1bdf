// Lowering generated kernels to a SPIR-V module for Vulkan, with the dispatch
// ABI of DESIGN.md: binding i of the layout is descriptor set 0, binding i (a
// storage buffer); the layout's N constants are the push-constant block
// (N x u32 at offset 0).
//
//   --kiln-vulkan-lower-kernels-to-spirv   thread-distributed kernels -> spirv.module
//
// The input is a `builtin.module` of contract kernels (public `func.func
// @name()`, see compiler/targets/cpu/lower_kernels_to_llvm.h for the
// contract) after --kiln-gpu-distribute-to-threads (no linalg left; loops
// over gpu.thread_id, gpu.barrier, workgroup-memory allocs). The output is
// the same module holding one `spirv.module` (Logical GLSL450, the Shader
// capability) with, for each kernel, a GLCompute entry point of the same name
// whose LocalSize is the kernel's `kiln.workgroup_size` (128x1x1 without
// one), ready for upstream's serializer.
//
// The interface ops become:
//   - binding.subspan binding(b): a `spirv.GlobalVariable` in StorageBuffer,
//     `bind(0, b)`, of type struct { T data[]; } (Block, offset 0, stride
//     sizeof(T)), one per binding and element type. Every subspan is first
//     made one-dimensional: SPIR-V has no dynamic strides, so loads and
//     stores of an N-D subspan index the flat array with the row-major linear
//     index (affine.linearize_index over the subspan's sizes) plus the byte
//     offset divided by sizeof(T) (an offset must be a multiple of it).
//   - constant.load ordinal(k): element k of a PushConstant block struct {
//     u32 c[N]; } (Block, offset 0), N the layout's constant count; read as
//     i32, its bits as f32, or as index (i32: kernels index with 32 bits).
//   - workgroup.id/count[d]: the WorkgroupId / NumWorkgroups builtins;
//     workgroup.size[d]: the constant workgroup size.
//   - gpu.thread_id: LocalInvocationId; gpu.barrier: OpControlBarrier with
//     Workgroup execution and memory scope and AcquireRelease over both
//     workgroup and uniform (storage buffer) memory, since kernels also hand
//     data between threads through their bindings (a fill, then the
//     reduction into it).
//   - memref.alloc in #gpu.address_space<workgroup>: a Workgroup variable.
//
// The rest goes through upstream, in this order: fold-memref-alias-ops
// (subviews into the indices of loads and stores), the flattening above,
// affine-expand-index-ops, lower-affine, arith-expand, then one full
// conversion to SPIR-V (gpu, scf to structured control flow, arith, math via
// GLSL.std.450, memref, func, ub) against a Vulkan target environment with
// the capabilities VulkanTargetOptions allows, then spirv-lower-abi-attrs
// (entry points, LocalSize) and spirv-update-vce (the capabilities and
// extensions actually used). An op or type that none of this lowers is an
// error at the op that names it.
#pragma once

#include <memory>

#include "compiler/targets/vulkan/vulkan_target_options.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler::vulkan {

std::unique_ptr<mlir::Pass> createLowerKernelsToSPIRVPass(const VulkanTargetOptions& options = {});

// Registers --kiln-vulkan-lower-kernels-to-spirv (default options) for
// kiln-opt and --pass-pipeline.
void registerLowerKernelsToSPIRVPass();

}  // namespace kiln::compiler::vulkan
