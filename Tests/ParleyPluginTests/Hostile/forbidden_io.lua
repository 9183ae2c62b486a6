-- expect: runtime
bot.hear("go", function() io.open("/etc/passwd") end)
