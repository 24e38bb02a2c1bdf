# Precompiled MLIR headers for the compiler's libraries.
#
# Why: MLIR's headers dominate the compiler's build. A compiler source file
# spends most of its 10-20 s parsing them (compiler/onnx/ops/signal.cc: 10.6 s
# to compile, 8.8 s of it -fsyntax-only; 3.2 s with a precompiled header), and
# CI builds the whole tree on 2 cores inside its time limit. A precompiled
# header costs about 30 s to build, so the libraries share as few as they can:
#   mlir  the compiler's libraries (compiler/*): one PCH, owned by the first
#         library that asks for it, reused by the others (REUSE_FROM needs the
#         same compile flags, which they all have: see compiler/CMakeLists.txt)
#   onnx  kiln_onnx_import, whose ONNX_ML/ONNX_NAMESPACE definitions differ
# GCC uses a PCH only when the flags match; where they do not it parses the
# header as text (-include), so the result is the same, only slower.
#
# KILN_PRECOMPILED_HEADERS=OFF builds without them (each file includes only
# what it names; `include-what-you-use`-style checks want that).
option(KILN_PRECOMPILED_HEADERS
       "Precompile the MLIR headers of the compiler's libraries (faster builds)" ON)

# The headers the compiler's sources include most (grep '#include "mlir/'
# under compiler/); kiln's own headers change too often to be in it.
set(KILN_MLIR_PCH_HEADERS
    <llvm/ADT/DenseMap.h>
    <llvm/ADT/DenseSet.h>
    <llvm/ADT/SmallVector.h>
    <llvm/ADT/StringExtras.h>
    <llvm/ADT/TypeSwitch.h>
    <llvm/Support/raw_ostream.h>
    <mlir/IR/Builders.h>
    <mlir/IR/BuiltinAttributes.h>
    <mlir/IR/BuiltinOps.h>
    <mlir/IR/BuiltinTypes.h>
    <mlir/IR/OpDefinition.h>
    <mlir/IR/OpImplementation.h>
    <mlir/IR/PatternMatch.h>
    <mlir/IR/SymbolTable.h>
    <mlir/Pass/Pass.h>
    <mlir/Pass/PassManager.h>
    <mlir/Transforms/DialectConversion.h>
    <mlir/Dialect/Affine/IR/AffineOps.h>
    <mlir/Dialect/Arith/IR/Arith.h>
    <mlir/Dialect/Func/IR/FuncOps.h>
    <mlir/Dialect/Linalg/IR/Linalg.h>
    <mlir/Dialect/Math/IR/Math.h>
    <mlir/Dialect/MemRef/IR/MemRef.h>
    <mlir/Dialect/SCF/IR/SCF.h>
    <mlir/Dialect/Tensor/IR/Tensor.h>
    <mlir/Dialect/Utils/StaticValueUtils.h>)

# kiln_precompile_mlir_headers(TARGET [GROUP name]): TARGET compiles with the
# group's precompiled header (default group: mlir). The first target of a
# group builds it; the others reuse it. `extra` headers (after GROUP name)
# are added to a group's PCH by its first target only.
function(kiln_precompile_mlir_headers target)
  if(NOT KILN_PRECOMPILED_HEADERS)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "GROUP" "EXTRA_HEADERS")
  if(NOT arg_GROUP)
    set(arg_GROUP mlir)
  endif()
  # A PCH that GCC cannot use is a warning, not a silent slow build.
  target_compile_options(${target} PRIVATE -Winvalid-pch)
  get_property(owner GLOBAL PROPERTY KILN_PCH_OWNER_${arg_GROUP})
  if(owner)
    target_precompile_headers(${target} REUSE_FROM ${owner})
  else()
    target_precompile_headers(${target} PRIVATE ${KILN_MLIR_PCH_HEADERS} ${arg_EXTRA_HEADERS})
    set_property(GLOBAL PROPERTY KILN_PCH_OWNER_${arg_GROUP} ${target})
  endif()
endfunction()
