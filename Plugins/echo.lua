-- echo.lua: the smallest useful plugin.
--   !ping        -> pong
--   !echo text   -> text
-- Commands also work when addressed by name: "parley: ping".

bot.command("ping", function(msg)
  msg:reply("pong")
end, { help = "answers pong: is the bot there?" })

bot.command("echo", function(msg, args)
  -- args is the list of words after the command; args.raw is the text as typed.
  if args.raw == "" then
    msg:reply("usage: !echo <text>")
  else
    msg:reply(args.raw)
  end
end, { help = "says the text back", usage = "<text>" })
