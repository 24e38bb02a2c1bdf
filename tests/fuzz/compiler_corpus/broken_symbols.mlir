util.global private @k : i32 = 1 : i32
func.func @f(%a: i32) {
  util.global.store %a, @k : i32
  func.call @missing(%a) : (i32) -> ()
  cf.br ^nowhere
}
func.func @f() {
  return
}
