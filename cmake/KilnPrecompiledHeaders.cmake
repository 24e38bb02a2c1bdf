# Precompiled MLIR headers for the compiler, its tools and its tests.
#
# Why: CI time. CI builds the whole tree on a 2-core machine inside a time
# limit, and most of that build is the compiler's MLIR-heavy sources, which
# spend most of their 10-20 s each parsing MLIR's headers, the same ones in
# every file (compiler/onnx/ops/signal.cc: 7.7 s to compile, 2.5 s with a
# precompiled header; kiln_onnx_import's 38 files: 234 s of CPU, 111 s with
# its PCH, whose build is 30 s of that; compiler/{dispatch,host,input}: 187 s,
# 108 s with theirs; files whose time is code generation gain less).
#
# A precompiled header costs 20-40 s to build, so the targets share as few as
# they can: the first target of a group builds the group's PCH and the others
# reuse it (target_precompile_headers(REUSE_FROM), which needs the same
# compile flags):
#   mlir  the compiler's libraries (compiler/*), kiln-compile, kiln-opt and
#         the compiler's GoogleTest tests (tests/compiler/*): MLIR's IR,
#         passes, rewriting and the upstream dialects kiln uses.
#   onnx  kiln_onnx_import and kiln-import-onnx: their ONNX_ML and
#         ONNX_NAMESPACE definitions select ONNX's protobuf header, so they get
#         one of their own, with onnx_pb.h and the MLIR the importer uses.
# Not here: kiln_compiler_target_formats (no MLIR), the Python extension
# (-fvisibility=hidden: a PCH would change its symbols' visibility) and the
# fuzz binaries (their harness sources are shared with MLIR-free targets).
#
# GCC uses a PCH only when the flags that matter match (-fPIC/-fPIE, -m...,
# the macros the headers test); otherwise it parses the headers as text
# (CMake passes them with -include), so the result is the same, only slow.
# -Winvalid-pch (which CMake adds with each PCH) makes that a warning:
# `ninja 2>&1 | grep -- -Winvalid-pch` should find nothing. Executables are
# compiled -fPIC like the libraries whose PCH they reuse (GCC's default PIE
# would not match it); the tests and tools lose nothing by that.
#
# The headers are upstream's only: kiln's own (and their generated .h.inc)
# change too often, and each change would rebuild the PCH and all its users.
#
# KILN_PRECOMPILED_HEADERS=OFF builds without them, e.g. to check that every
# file includes what it uses (the PCH is included into each file first). The
# fuzz build (KILN_BUILD_FUZZERS, clang) gives some compiler libraries
# coverage flags and not others, so it goes without.
option(KILN_PRECOMPILED_HEADERS
       "Precompile the MLIR headers of the compiler's sources (faster builds)" ON)

# The upstream headers the compiler's sources include most, directly or
# through kiln's headers (g++ -M over the 96 files of compiler/ but onnx/,
# tests/compiler and the tools: the IR headers and Builders in 80-85 of them,
# Pass in 45, Arith 42, Tensor and Func 32, Linalg 26, DialectConversion 23,
# MemRef 20, SCF 18). Each header a file does not use costs it a little
# (loading the PCH, about 700 MB with -g1, takes 1.5 s); the LLVM, GPU and
# Vector dialects (7-10 files each) would double that and the PCH's build
# time, for less than they save.
set(KILN_MLIR_PCH_HEADERS
    <llvm/ADT/DenseMap.h>
    <llvm/ADT/DenseSet.h>
    <llvm/ADT/MapVector.h>
    <llvm/ADT/STLExtras.h>
    <llvm/ADT/SmallVector.h>
    <llvm/ADT/StringExtras.h>
    <llvm/ADT/TypeSwitch.h>
    <llvm/Support/raw_ostream.h>
    <mlir/IR/Builders.h>
    <mlir/IR/BuiltinAttributes.h>
    <mlir/IR/BuiltinOps.h>
    <mlir/IR/BuiltinTypes.h>
    <mlir/IR/Dominance.h>
    <mlir/IR/IRMapping.h>
    <mlir/IR/ImplicitLocOpBuilder.h>
    <mlir/IR/Matchers.h>
    <mlir/IR/OpDefinition.h>
    <mlir/IR/OpImplementation.h>
    <mlir/IR/PatternMatch.h>
    <mlir/IR/SymbolTable.h>
    <mlir/Pass/Pass.h>
    <mlir/Pass/PassManager.h>
    <mlir/Transforms/DialectConversion.h>
    <mlir/Transforms/GreedyPatternRewriteDriver.h>
    <mlir/Dialect/Affine/IR/AffineOps.h>
    <mlir/Dialect/Arith/IR/Arith.h>
    <mlir/Dialect/Arith/Utils/Utils.h>
    <mlir/Dialect/Bufferization/IR/Bufferization.h>
    <mlir/Dialect/ControlFlow/IR/ControlFlow.h>
    <mlir/Dialect/Func/IR/FuncOps.h>
    <mlir/Dialect/Linalg/IR/Linalg.h>
    <mlir/Dialect/Math/IR/Math.h>
    <mlir/Dialect/MemRef/IR/MemRef.h>
    <mlir/Dialect/SCF/IR/SCF.h>
    <mlir/Dialect/Tensor/IR/Tensor.h>
    <mlir/Dialect/UB/IR/UBOps.h>
    <mlir/Dialect/Utils/StaticValueUtils.h>)

# The importer's: ONNX's messages and the MLIR it builds (func, linalg,
# tensor, arith, math).
set(KILN_ONNX_PCH_HEADERS
    <onnx/onnx_pb.h>
    <llvm/ADT/STLExtras.h>
    <llvm/ADT/SmallVector.h>
    <llvm/ADT/StringExtras.h>
    <mlir/IR/Builders.h>
    <mlir/IR/BuiltinAttributes.h>
    <mlir/IR/BuiltinOps.h>
    <mlir/IR/BuiltinTypes.h>
    <mlir/IR/IRMapping.h>
    <mlir/IR/ImplicitLocOpBuilder.h>
    <mlir/IR/Matchers.h>
    <mlir/Dialect/Arith/IR/Arith.h>
    <mlir/Dialect/Arith/Utils/Utils.h>
    <mlir/Dialect/Func/IR/FuncOps.h>
    <mlir/Dialect/Linalg/IR/Linalg.h>
    <mlir/Dialect/Math/IR/Math.h>
    <mlir/Dialect/Tensor/IR/Tensor.h>
    <mlir/Dialect/Utils/StaticValueUtils.h>)

# kiln_precompile_headers(GROUP TARGET...): each TARGET (where it exists)
# compiles with GROUP's precompiled header (GROUP: mlir or onnx). The first
# target given for a group builds it, the later ones reuse it.
function(kiln_precompile_headers group)
  if(NOT KILN_PRECOMPILED_HEADERS OR KILN_BUILD_FUZZERS)
    return()
  endif()
  string(TOUPPER ${group} group_upper)
  if(NOT DEFINED KILN_${group_upper}_PCH_HEADERS)
    message(FATAL_ERROR "kiln_precompile_headers: no precompiled header group '${group}'")
  endif()
  foreach(target IN LISTS ARGN)
    if(NOT TARGET ${target})
      continue()
    endif()
    get_target_property(type ${target} TYPE)
    if(NOT type STREQUAL "EXECUTABLE")
      set_property(GLOBAL APPEND PROPERTY KILN_PCH_LIBRARIES_${group} ${target})
    endif()
    get_property(owner GLOBAL PROPERTY KILN_PCH_OWNER_${group})
    if(NOT owner)
      target_precompile_headers(${target} PRIVATE ${KILN_${group_upper}_PCH_HEADERS})
      set_property(GLOBAL PROPERTY KILN_PCH_OWNER_${group} ${target})
      continue()
    endif()
    target_precompile_headers(${target} REUSE_FROM ${owner})
    # An executable is position independent (GCC's default PIE, or -fPIE
    # from POSITION_INDEPENDENT_CODE) where the owner, a library, is -fPIC:
    # GCC would not use the PCH. -fPIC comes after -fPIE and wins.
    get_target_property(owner_pic ${owner} POSITION_INDEPENDENT_CODE)
    if(owner_pic AND type STREQUAL "EXECUTABLE")
      target_compile_options(${target} PRIVATE -fPIC)
    endif()
  endforeach()
endfunction()

# kiln_precompile_headers_of_tests(DIRECTORY): the executables made under
# DIRECTORY (and its subdirectories) that link a library with a PCH reuse
# that PCH (the onnx group's where they link the importer, whose definitions
# they then have); the others (e.g. the target formats' tests, MLIR-free) go
# without. For tests/compiler, whose CMakeLists.txt files need not know.
function(kiln_precompile_headers_of_tests directory)
  if(NOT KILN_PRECOMPILED_HEADERS)
    return()
  endif()
  get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    get_target_property(libraries ${target} LINK_LIBRARIES)
    if(NOT type STREQUAL "EXECUTABLE" OR NOT libraries)
      continue()
    endif()
    foreach(group onnx mlir)
      get_property(group_libraries GLOBAL PROPERTY KILN_PCH_LIBRARIES_${group})
      set(uses_group FALSE)
      foreach(library IN LISTS libraries)
        if(library IN_LIST group_libraries)
          set(uses_group TRUE)
        endif()
      endforeach()
      if(uses_group)
        kiln_precompile_headers(${group} ${target})
        break()
      endif()
    endforeach()
  endforeach()
  get_property(subdirectories DIRECTORY ${directory} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    kiln_precompile_headers_of_tests(${subdirectory})
  endforeach()
endfunction()
