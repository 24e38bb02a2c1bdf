// Malformed #flow.parameter.named attributes are stopped by the parser.
// RUN: %kiln-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{#flow.parameter.named needs its tensor type}}
util.global private @a : tensor<4xf32> = #flow.parameter.named<"model"::"a">

// -----

// expected-error @+1 {{#flow.parameter.named has an empty key}}
util.global private @b = #flow.parameter.named<"model"::""> : tensor<4xf32>

// -----

// expected-error @+1 {{#flow.parameter.named holds a tensor, not 'f32'}}
util.global private @c = #flow.parameter.named<"model"::"c"> : f32

// -----

// expected-error @+1 {{expected string}}
util.global private @d = #flow.parameter.named<model::"d"> : tensor<4xf32>
