// Only in the static link (KILN_LINK_MLIR_STATIC): Debian builds LLVM with
// Polly linked into its tools, so LTO's optimizer (pulled in by lld's ELF
// driver) registers Polly's passes through getPollyPluginInfo(), which lives
// in libPolly: Debian ships Polly only as the LLVMPolly.so plugin, without a
// static archive. kiln never runs LTO (lld links the native objects kiln's
// own codegen emitted), so this definition satisfies the link and registers
// nothing. The shared libLLVM brings its own definition.
#include "llvm/Config/llvm-config.h"
#include "llvm/Plugins/PassPlugin.h"

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly", LLVM_VERSION_STRING, [](llvm::PassBuilder&) {}};
}
