-- expect: runtime
-- Poison everything this VM can reach; the canary runs in its own VM.
bot.hear("go", function()
  string.find = function() return nil end
  table.insert = nil
  _G.bot.send = nil
  pcall(function() getmetatable("").__index = {} end)
  error("poisoned my own VM only")
end)
