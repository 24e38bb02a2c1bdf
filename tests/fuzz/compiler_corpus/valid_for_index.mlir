func.func @sum(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %sq = arith.muli %i, %i : index
    %next = arith.addi %acc, %sq : index
    scf.yield %next : index
  }
  return %r : index
}
