-- expect: runtime
bot.hear("go", function()
  assert(string.dump == nil)
  load("\27Lua", "x", "b", {})
end)
