-- expect: budget
-- A killed coroutine's <close> handler must not run without a budget.
bot.hear("go", function()
  local f = coroutine.wrap(function()
    local guard <close> = setmetatable({}, { __close = function() while true do end end })
    while true do end
  end)
  f()
end)
