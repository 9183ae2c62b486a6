-- expect: memory
-- Non-tail recursion grows the Lua stack until the memory cap stops it.
local function f(n) return 1 + f(n + 1) end
bot.hear("go", function() f(1) end)
