"func.func"() ({
^bb0(%a: i32, %b: i32):
  %0 = "arith.addi"(%a, %b) : (i32, i32) -> i32
  %1 = "arith.cmpi"(%0, %a) {predicate = 2 : i64} : (i32, i32) -> i1
  %2 = "arith.select"(%1, %a, %0) : (i1, i32, i32) -> i32
  "func.return"(%2) : (i32) -> ()
}) {sym_name = "g", function_type = (i32, i32) -> i32} : () -> ()
