// ImportedValue: what the importer knows of one ONNX value.
//
// The MLIR value that computes it, its ONNX element type (signedness lives
// here, not in MLIR's signless integers) and, where the importer can know
// it, its contents: initializers, Constant nodes and shape computations on
// static shapes carry a DenseElementsAttr, so that the converters of Shape,
// Gather, Concat, Reshape, Expand, ConstantOfShape, ... fold instead of
// emitting IR (torch-mlir folds the same chains in its canonicalizers).
#pragma once

#include "compiler/onnx/onnx_types.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"

namespace kiln::onnx_import {

struct ImportedValue {
  mlir::Value value;
  OnnxElementType element_type = 0;
  // Set when the contents are known at import time.
  mlir::DenseElementsAttr constant;
};

}  // namespace kiln::onnx_import
