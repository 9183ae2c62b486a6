-- expect: budget
local function f(n) return f(n + 1) end
bot.hear("go", function() f(1) end)
