// --version on the compiler tools besides kiln-compile (command_line.mlir):
// kiln-opt prints LLVM's version (mlir-opt's) and then kiln's;
// kiln-import-onnx prints kiln's. Both exit 0 without reading any input.
// RUN: %kiln-opt --version | FileCheck %s --check-prefix=OPT
// RUN: %kiln-import-onnx --version | FileCheck %s --check-prefix=ONNX --match-full-lines

// OPT: LLVM version 22.{{[0-9.]+}}
// OPT: kiln-opt version {{[0-9]+\.[0-9]+\.[0-9]+$}}
// ONNX: kiln-import-onnx version {{[0-9]+\.[0-9]+\.[0-9]+}}
