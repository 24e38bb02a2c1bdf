-- Integer loop, the same algorithm as BM_Loop1e8 in vm_benchmark.cc:
-- s = sum over i in [0, N) of i * 3 % 7.
-- Usage: lua5.4 loop.lua [N]  (or luajit -joff loop.lua [N]); N defaults to 10^8.
-- Prints the result and the CPU seconds (os.clock) of just the computation.
local N = tonumber(arg and arg[1]) or 100000000

local start = os.clock()
local s = 0
for i = 0, N - 1 do
  s = s + i * 3 % 7
end
local seconds = os.clock() - start
print(string.format("result=%d seconds=%.6f", s, seconds))
