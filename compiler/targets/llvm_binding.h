// A binding as an LLVM memref descriptor: what the backends that lower
// generated kernels to the LLVM dialect (cpu, cuda) share. Each finds the
// binding's base pointer its own way (the CPU dispatch state, a CUDA kernel
// parameter); from that pointer, the hal.interface.binding.subspan's byte
// offset and dynamic dims, the descriptor is built the same way: offset 0,
// the sizes of the type and the op, and row-major contiguous strides (or the
// static strides of a strided layout).
#pragma once

#include "compiler/dialects/hal/hal_dialect.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/IR/Builders.h"

namespace kiln::compiler {

// Whether `op`'s memref can be built from a bare pointer: a ranked memref in
// the default memory space whose layout is the identity or has static
// strides and no static offset. Errors are reported at `op`, naming
// `backend` ("CPU", "CUDA") and what its bindings are (`binding_memory`,
// e.g. "plain host memory").
mlir::LogicalResult CheckBindingSubspanType(HAL::InterfaceBindingSubspanOp op,
                                            llvm::StringRef backend,
                                            llvm::StringRef binding_memory);

// The descriptor of `type` (checked by CheckBindingSubspanType) at `base`
// plus `byte_offset` bytes (null: none), its dynamic sizes `dynamic_dims`
// (converted to the index type), as `converter` lowers memrefs.
mlir::Value BuildBindingDescriptor(mlir::OpBuilder& builder, mlir::Location loc,
                                   const mlir::LLVMTypeConverter& converter, mlir::MemRefType type,
                                   mlir::Value base, mlir::Value byte_offset,
                                   mlir::ValueRange dynamic_dims);

}  // namespace kiln::compiler
