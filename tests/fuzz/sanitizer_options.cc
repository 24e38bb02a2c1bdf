// AddressSanitizer defaults for the fuzz binaries.
//
// buffer.alloc accepts up to 16 GiB (vm/byte_buffer.cc), which a fuzzed
// module asks for easily. With these options an allocation above 400 MiB
// fails (aligned_alloc returns null) and the VM reports a clean
// RESOURCE_EXHAUSTED error, instead of libFuzzer stopping on its malloc
// limit. 400 MiB still admits the largest list the interpreter allows
// (2^24 Variants of 24 bytes), whose operator new must not fail.
// allow_user_poisoning=0: the compiler fuzzer links Debian's uninstrumented
// libMLIR/libLLVM, whose headers poison allocator memory in instrumented code
// only (see cmake/sanitizer_options.cc).
// ASAN_OPTIONS given at run time still override these.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=400:allow_user_poisoning=0";
}
