// The AddressSanitizer defaults of every kiln binary built with
// KILN_ENABLE_SANITIZERS (linked into each target by the top-level
// CMakeLists.txt; the runtime calls this before main).
//
// allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons the slabs it
// starts and unpoisons what it hands out, but only where it was compiled
// with ASan. MLIR's storage uniquer shares one allocator between kiln's
// instrumented code (our attributes' storage) and Debian's uninstrumented
// libMLIR: a slab started by our code is poisoned, and libMLIR then writes
// the strings it allocates there without unpoisoning them, a false
// use-after-poison (kiln-import-onnx creating a #flow.parameter.named
// attribute, then a StringAttr). Real heap errors are still caught: the
// allocator's own redzones and ASan's malloc checks do not depend on it.
extern "C" const char* __asan_default_options() { return "allow_user_poisoning=0"; }
