// The type converter of instruction selection: which register bank holds a
// value of each type.
//
//   i1, i8, i16, i32   i32, kept canonical: i8/i16 sign-extended to 32 bits,
//                      i1 as 0 or 1 (see selection_builder.h)
//   i64, index         i64
//   f32, f64           f32, f64
//   !hal.* (any type of the hal dialect), !vm.buffer, !vm.list
//                      !vm.ref<T> (the ref bank); !vm.ref<T> stays as it is
//
// Everything else (f16, bf16, other integer widths, signed/unsigned integers,
// tensors, vectors, ...) has no VM registers: instruction selection reports
// "type 'f16' is not supported by the VM (yet)" where such a value is
// defined (UnsupportedTypeMessage).
#pragma once

#include <string>

#include "mlir/IR/Types.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::compiler {

class VMTypeConverter : public mlir::TypeConverter {
 public:
  VMTypeConverter();
};

// The converted type of `type`, or a null type when the VM cannot hold it.
mlir::Type ConvertToVMType(mlir::Type type);

// The error for a type ConvertToVMType rejects.
std::string UnsupportedTypeMessage(mlir::Type type);

// Integer width as selection sees it: 1, 8, 16, 32 or 64 (index is 64); 0
// for everything else.
unsigned IntegerWidth(mlir::Type type);

// A narrow integer (i1, i8, i16) lives in an i32 register in canonical form.
inline bool IsNarrowInteger(mlir::Type type) {
  unsigned width = IntegerWidth(type);
  return width != 0 && width < 32;
}

// The bits of an integer constant of `type` in its register's canonical form
// (i1: 0 or 1; i8/i16: sign-extended to 32 bits; i32 as is, zero-extended to
// 64 bits of storage; i64 as is).
uint64_t CanonicalIntegerBits(int64_t value, mlir::Type type);

}  // namespace kiln::compiler
