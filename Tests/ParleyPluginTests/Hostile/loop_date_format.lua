-- expect: runtime
-- strftime's work grows with the format, in one C call: a format over 4096
-- bytes is refused.
bot.hear("go", function()
  os.date(string.rep("%n", 4000000), 0)
end)
