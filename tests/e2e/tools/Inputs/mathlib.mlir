// The library module of multiple_modules.mlir: exports that another module
// imports as @mathlib.<name>, and a global its initializer sets, so that a
// call through the import shows the library's state was initialized first.
module @mathlib {
  util.global private mutable @offset : i32
  util.initializer {
    %c = arith.constant 100 : i32
    util.global.store %c, @offset : i32
    util.return
  }
  func.func @square(%x: i32) -> i32 {
    %r = arith.muli %x, %x : i32
    return %r : i32
  }
  func.func @shift(%x: i32) -> i32 {
    %offset = util.global.load @offset : i32
    %r = arith.addi %x, %offset : i32
    return %r : i32
  }
}
