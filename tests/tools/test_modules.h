// The modules the tool tests run on, built with the ModuleBuilder (so the
// tests depend on the VM only, not on the compiler). The unit tests build them
// in memory; kiln-make-tool-test-modules writes them as .kmod files for the
// ctest tests of kiln-run-module and kiln-dump-module.
//
// "tools_test" (debug locations in "tools_test.mlir"; an 8-byte global set to
// 42 by the initializer `init`; a 16-byte rodata segment "weights"; an
// optional import host.log (i32) -> i32 that nothing provides). Exports:
//   add_i32(i32, i32) -> i32          a + b
//   fib(i32) -> i32                   recursive Fibonacci (reflection attached)
//   mixed(i64, f32, f64) -> (i64, f32, f64)   (a + 1, b * 2, c * 0.25)
//   add_f64(f64, f64) -> f64          a + b
//   fail_outer(i32) -> i32            calls fail_inner, which fails with
//                                     "boom: bad \"value\"" at tools_test.mlir:30:5
//   div(i32, i32) -> i32              a / b (signed; traps on b == 0)
//   make_list() -> (i32, ref)         (7, a new vm.list)
//   list_size(ref) -> i32             size of a vm.list argument
//   noop() -> ()
//   get_global() -> i32               the global the initializer set (42)
//   showcase(i32) -> i32              import.resolved, call.import, rodata,
//                                     buffer.length, trace and switch: with
//                                     host.log unresolved, n = 0 gives 16,
//                                     n = 1 gives 32, anything else -1
// "tensors_test" (tensor_test_modules.cc): functions over hal.buffer_view
// refs that import the hal module, with reflection as kiln-compile writes it:
//   echo(tensor<?x4xf32>) -> tensor<?x4xf32>         returns its argument
//   echo_static(tensor<2x3xi32>) -> tensor<2x3xi32>  returns its argument
//   echo_any(ref) -> ref                             no reflection
//   swap(ref a, ref b) -> (b, a)                     no reflection
//   rotate(ref a, ref b, ref c) -> (b, c, a)         no reflection
//   describe(ref) -> (i32 rank, i64 buffer bytes, i32 element type)
//   mixed(i32 a, tensor<?xf32> t, f32 b) -> (f32 b, tensor<?xf32> t, i32 a + 1)
//   concat_self(tensor<?xf32>) -> tensor<?xf32>      [t, t], copied into a new
//                                                    buffer by a command buffer
//   checked(ref) -> ref              no reflection; hal.buffer_view.assert
//                                    demands tensor<4xf32> ("argument 0 of @checked")
// "plain" (no debug locations): id(f64) -> f64.
// "broken": loads as a FlatBuffer but fails verification (a register out of
// range).
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"

namespace kiln::testing {

Result<std::vector<uint8_t>> BuildToolsTestModule();
Result<std::vector<uint8_t>> BuildTensorsTestModule();
Result<std::vector<uint8_t>> BuildPlainModule();
Result<std::vector<uint8_t>> BuildBrokenModule();

}  // namespace kiln::testing
