-- Recursive Fibonacci, the same algorithm as BM_Fib32 in vm_benchmark.cc.
-- Usage: lua5.4 fib.lua [N]  (or luajit -joff fib.lua [N]); N defaults to 32.
-- Prints the result and the CPU seconds (os.clock) of just the computation.
local N = tonumber(arg and arg[1]) or 32

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local start = os.clock()
local result = fib(N)
local seconds = os.clock() - start
print(string.format("result=%d seconds=%.6f", result, seconds))
