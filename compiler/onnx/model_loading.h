// Reading an .onnx file: the ModelProto, its external data, and ONNX's own
// shape inference. A file named *.onnxtxt is read in ONNX's text format
// (onnx/defs/parser.h: `<ir_version: 8, opset_import: ["" : 17]>
// g (float[N] x) => (float[N] y) { y = Relu(x) }`), which is how kiln's
// importer tests write their models.
//
// Tensors stored outside the model (data_location EXTERNAL, as exporters
// write models above protobuf's 2 GiB limit) are read into raw_data from
// files beside the model; a location outside the model's directory is
// refused. Shape inference (libonnx, with data propagation) then gives
// every intermediate value a type, and the shapes that Shape → Gather →
// Concat chains compute become static dimensions where the inputs are
// static: converters read their result types from it.
#pragma once

#include <string>

#include "onnx/onnx_pb.h"

namespace kiln::onnx_import {

// Loads `path` into `model`. On failure returns false with `error` naming
// the file and what is wrong with it.
bool LoadOnnxModel(const std::string& path, onnx::ModelProto& model, std::string* error);

// Runs ONNX's shape inference on `model` in place (node-level inference
// errors are ignored: the converters check what they need).
bool InferOnnxShapes(onnx::ModelProto& model, std::string* error);

}  // namespace kiln::onnx_import
