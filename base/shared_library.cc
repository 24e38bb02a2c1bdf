#include "base/shared_library.h"

#include <dlfcn.h>

namespace kiln {

Result<void*> OpenSharedLibrary(const char* path, std::string_view what, std::string_view hint) {
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library) return library;
  const char* error = dlerror();
  return UnavailableError(std::string(what) + " " + path + " could not be opened (" +
                          (error ? error : "unknown error") + "); " + std::string(hint));
}

Status ResolveSharedLibrarySymbols(void* library, const char* path,
                                   std::span<const SharedLibrarySymbol> symbols,
                                   std::string_view hint) {
  for (const auto& [name, slot] : symbols) {
    dlerror();  // dlsym's null may be a symbol's value: the error says which.
    *slot = dlsym(library, name);
    if (*slot == nullptr) {
      const char* error = dlerror();
      return UnavailableError(std::string(path) + " does not provide " + name + " (" +
                              (error ? error : "null symbol") + ")" + std::string(hint));
    }
  }
  return OkStatus();
}

}  // namespace kiln
