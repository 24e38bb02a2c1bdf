// ONNX's types in MLIR: element types, tensor types and initializer data.
//
// ONNX distinguishes signed from unsigned integers; kiln's input dialects
// (arith, linalg) use signless integers, so uint8 becomes i8 and the
// importer keeps each value's ONNX element type beside it (see
// ImportedValue) for the ops where signedness matters (division, comparison,
// casts, min/max). bool is i1. Strings, complex numbers and the 8-bit float
// formats have no kiln type: converting them is an error naming the type.
#pragma once

#include <cstdint>
#include <string>

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "onnx/onnx_pb.h"

namespace kiln::onnx_import {

// The ONNX element type (onnx::TensorProto_DataType) of a value.
using OnnxElementType = int32_t;

// "float", "int64", ...: ONNX's name of `type` for messages.
std::string OnnxElementTypeName(OnnxElementType type);

bool IsUnsigned(OnnxElementType type);
bool IsFloat(OnnxElementType type);
bool IsSignedInteger(OnnxElementType type);

// The MLIR element type of `type`, or a null type when kiln has none.
mlir::Type ConvertElementType(mlir::MLIRContext& context, OnnxElementType type);

// The ONNX element type of a signless MLIR element type, reading integers as
// signed (the importer's own constants).
OnnxElementType ElementTypeOf(mlir::Type type);

// The tensor type of an ONNX TypeProto: dim_value sizes static, dim_param or
// missing sizes dynamic; an unknown rank is an unranked tensor. Null when the
// type is not a tensor of a supported element type.
mlir::TensorType ConvertTensorType(mlir::MLIRContext& context, const onnx::TypeProto& type);

// Bytes of one element of `type` in an ONNX tensor's raw data (bool: 1).
int64_t ElementByteSize(OnnxElementType type);

// The contents of an initializer or Constant tensor (raw_data or the typed
// repeated fields; external data must have been read into raw_data first) as
// a DenseElementsAttr of its MLIR type. Fails with a message naming the
// tensor when its type is unsupported or its data does not match its shape.
mlir::FailureOr<mlir::DenseElementsAttr> ConvertTensorProto(mlir::MLIRContext& context,
                                                          const onnx::TensorProto& tensor,
                                                          std::string* error);

}  // namespace kiln::onnx_import
