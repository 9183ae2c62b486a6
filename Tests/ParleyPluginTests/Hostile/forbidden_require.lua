-- expect: runtime
bot.hear("go", function()
  assert(package == nil and debug == nil and dofile == nil and loadfile == nil)
  require("os")
end)
