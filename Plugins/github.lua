-- github.lua: posts GitHub pushes to a room.
--
-- Config (bot.toml):
--   [bot.plugin.github]
--   room = "dev"                    -- where pushes are announced
--   [bot.webhooks.github]
--   secret_env = "GITHUB_WEBHOOK_SECRET"   -- the secret set on GitHub's webhook page
--
-- Run with `parley run bot.toml --http 127.0.0.1:8080` behind your reverse
-- proxy and give GitHub the URL https://YOUR.HOST/hooks/BOT/github/push
-- (content type application/json). With a secret configured, Parley answers
-- 401 to any request whose X-Hub-Signature-256 does not match, before this
-- plugin sees it.

local room = bot.settings({ room = "dev" }).room

-- A commit subject can be as long as its author liked: the room gets its
-- first 200 characters. utf8.offset finds where the 201st begins.
local function subject(message)
  local first = message:match("^[^\r\n]*")
  local cut = utf8.len(first) and utf8.offset(first, 201)
  if cut and cut <= #first then first = first:sub(1, cut - 1) .. "…" end
  return first
end

-- A field of the payload that should be text; anything else reads as `missing`.
local function text(v, missing) return type(v) == "string" and v ~= "" and v or missing end

bot.webhook("push", function(req)
  local event = req.headers["x-github-event"]
  -- GitHub sends a "ping" when the webhook is created.
  if event == "ping" then return { status = 200, body = "pong" } end
  if event ~= "push" then return { status = 202, body = "ignored" } end

  local push = bot.json.decode(req.body)
  if type(push) ~= "table" or type(push.repository) ~= "table" or type(push.ref) ~= "string"
     or (push.commits ~= nil and type(push.commits) ~= "table") then
    return { status = 400, body = "not a push payload" }
  end
  local who = text(type(push.pusher) == "table" and push.pusher.name, "someone")
  local repo = text(push.repository.full_name, "?")
  local tag = push.ref:match("^refs/tags/(.+)")
  local branch = push.ref:gsub("^refs/heads/", "")
  local commits = push.commits or {}
  local line
  if push.deleted then
    line = ("%s deleted %s %s of %s"):format(who, tag and "tag" or "branch", tag or branch, repo)
  elseif tag then
    line = ("%s pushed tag %s to %s"):format(who, tag, repo)
  elseif #commits == 0 then
    -- A new branch at an existing commit, or a force-push back: no new commits to count.
    line = ("%s %s branch %s of %s"):format(who, push.created and "created" or "moved", branch, repo)
  else
    line = ("%s pushed %d commit%s to %s of %s"):format(who, #commits, #commits == 1 and "" or "s", branch, repo)
    -- The first line of the newest commit's message says what it was about.
    local head = commits[#commits]
    local said = type(head) == "table" and text(head.message) and subject(head.message)
    if said and said ~= "" then line = line .. ": " .. said end
  end
  -- Names and subjects come from outside: bot.fit cuts the line to what the
  -- chat carries (StreamChat: 300 characters) and breaks up its frame tokens.
  -- A send still refused (the outbox full, say) is a failure GitHub should
  -- see and retry.
  local ok, why = bot.send(room, bot.fit(line))
  if not ok then return { status = 503, body = "not announced: " .. why } end
  -- Returning nothing answers 204; once answered, the send is in the journal.
end)
