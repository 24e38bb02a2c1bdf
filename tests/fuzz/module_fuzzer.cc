// libFuzzer entry point: every input is a candidate .kmod that is loaded
// (verified), linked and invoked by RunModuleBytes (module_runner.h).
//
// The same function is compiled into kiln_fuzz_regression_test, which replays
// the seed corpus and the kept reproducers without libFuzzer.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/module_runner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)kiln::fuzz::RunModuleBytes({data, size});
  return 0;
}
