// Shared libraries opened at run time: the vendor libraries kiln never
// links (libcuda, libcublasLt, libcudnn; DESIGN.md, principle 5), so that
// its binaries start where they are absent and say plainly why one cannot
// be used.
//
// A library is opened once and never closed (each of them keeps process
// state of its own), and its entry points are resolved into a table of
// function pointers, each named with the error that names what is missing.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "base/result.h"

namespace kiln {

// One entry point to resolve: its name and the pointer to fill.
using SharedLibrarySymbol = std::pair<const char*, void**>;

// dlopen(path) (RTLD_NOW | RTLD_LOCAL). UNAVAILABLE: "<what> <path> could
// not be opened (<dlerror>); <hint>".
Result<void*> OpenSharedLibrary(const char* path, std::string_view what, std::string_view hint);

// Resolves every symbol of `library` (opened from `path`). UNAVAILABLE:
// "<path> does not provide <name> (<dlerror>)<hint>"; the pointers resolved
// before it keep their values.
Status ResolveSharedLibrarySymbols(void* library, const char* path,
                                   std::span<const SharedLibrarySymbol> symbols,
                                   std::string_view hint = "");

}  // namespace kiln
