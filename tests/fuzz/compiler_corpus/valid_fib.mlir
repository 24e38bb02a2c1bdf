func.func @fib(%n: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %lt = arith.cmpi slt, %n, %c2 : i32
  %r = scf.if %lt -> (i32) {
    scf.yield %n : i32
  } else {
    %c1 = arith.constant 1 : i32
    %a = arith.subi %n, %c1 : i32
    %b = arith.subi %n, %c2 : i32
    %fa = func.call @fib(%a) : (i32) -> i32
    %fb = func.call @fib(%b) : (i32) -> i32
    %s = arith.addi %fa, %fb : i32
    scf.yield %s : i32
  }
  return %r : i32
}
