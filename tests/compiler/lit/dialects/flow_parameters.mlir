// #flow.parameter.named: a tensor kept outside the program, in IREE's two
// spellings (with a scope, and a key alone for the empty scope), as a
// util.global's initial value. Each prints as it parses.
// RUN: %kiln-opt %s | FileCheck %s
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s

// CHECK: util.global private @fc.weight = #flow.parameter.named<"model"::"fc.weight"> : tensor<1024x1024xf32>
util.global private @"fc.weight" = #flow.parameter.named<"model"::"fc.weight"> : tensor<1024x1024xf32>
// CHECK: util.global private @w = #flow.parameter.named<"w"> : tensor<4xi1>
util.global private @w = #flow.parameter.named<"w"> : tensor<4xi1>
// The empty scope written out is the key alone.
// CHECK: util.global private @e = #flow.parameter.named<"e"> : tensor<2xf16>
util.global private @e = #flow.parameter.named<""::"e"> : tensor<2xf16>
// Keys are any string (ONNX initializer names).
// CHECK: util.global private mutable @q = #flow.parameter.named<"model"::"a \22quoted\22 key"> : tensor<f32>
util.global private mutable @q = #flow.parameter.named<"model"::"a \"quoted\" key"> : tensor<f32>
