-- expect: runtime
bot.hear("go", function()
  error(setmetatable({}, { __tostring = function() error("boom") end }))
end)
