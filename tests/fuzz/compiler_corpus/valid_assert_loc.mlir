#loc = loc("model.py":3:4)
!t = i32
func.func @check(%x: !t) -> !t {
  %c0 = arith.constant 0 : !t
  %ok = arith.cmpi sgt, %x, %c0 : !t
  cf.assert %ok, "x must be positive" loc(#loc)
  return %x : !t
}
