// AddressSanitizer defaults for programs that link upstream MLIR/LLVM
// (kiln-compile, kiln-opt), compiled into each of them (an executable's own
// __asan_default_options is the one ASan reads).
//
// LLVM's headers poison and unpoison the memory of their bump allocators when
// the code including them is built with ASan (llvm/Support/Compiler.h), but
// Debian's libMLIR/libLLVM are not: memory an inlined kiln-side allocation
// poisoned is then read by the library, and ASan reports a use-after-poison
// that is not a bug. allow_user_poisoning=0 ignores those manual poisonings;
// every other check (heap overflow, use after free, leaks) stays on.
// ASAN_OPTIONS given at run time still override this.
extern "C" const char* __asan_default_options() { return "allow_user_poisoning=0"; }
