-- expect: runtime
-- Every route from a plugin to the host's files and environment.
-- On "go" (HostileTests) it reaches for io without asking: a runtime error.
-- On "!probe" (SandboxReachTests) it tries each route under pcall and
-- reports, in one message, "name: no" when the sandbox said no (an error,
-- nil or false) or "name: GOT <what>" when it got anything. bot.config.path
-- names a file and bot.config.var an environment variable to go after.
bot.hear("^go", function() return io.open(bot.config.path or "/etc/hostname"):read("a") end)

local path = bot.config.path or "/etc/hostname"
local var = bot.config.var or "HOME"
local binary = "\27Lua\84\0\25\147\13\10\26\10\4\8\8"

local routes = {
  {"io.open", function() return io.open(path):read("a") end},
  {"io.lines", function() for l in io.lines(path) do return l end end},
  {"io.popen", function() return io.popen("cat " .. path):read("a") end},
  {"io.read", function() return io.read("a") end},
  {"os.getenv", function() return os.getenv(var) end},
  {"os.execute", function() return os.execute("cat " .. path) end},
  {"os.remove", function() return os.remove(path) end},
  {"os.rename", function() return os.rename(path, path .. ".moved") end},
  {"os.tmpname", function() return os.tmpname() end},
  {"os.exit present", function() return os.exit end},
  {"os.setlocale", function() return os.setlocale() end},
  {"loadfile", function() return loadfile(path) end},
  {"dofile", function() return dofile(path) end},
  {"require", function() return require("io") end},
  {"package.loadlib", function() return package.loadlib("libc.so.6", "getenv") end},
  {"package.loaded", function() return package.loaded.io end},
  {"debug.getregistry", function() return debug.getregistry() end},
  {"debug.getupvalue", function() return debug.getupvalue(bot.send, 1) end},
  {"rawget _G", function() return rawget(_G, "io") or rawget(_G, "package") or rawget(_G, "debug") end},
  {"_ENV", function() return _ENV.io or _ENV.package or _ENV.debug end},
  {"getmetatable _G", function() local mt = getmetatable(_G); return mt and (mt.__index or mt) end},
  {"load binary chunk", function() return load(binary, "b", "b", {}) end},
  {"load bt mode", function() return load(binary, "b", "bt", {}) end},
  {"load default mode", function() return load(binary, "b", nil, {}) end},
  {"load reader", function()
    local done = false
    return load(function() if done then return nil end done = true return binary end, "r", "bt", {})
  end},
  {"load without env", function() return load("return io or package or (os.getenv and os.getenv('" .. var .. "'))")() end},
  {"load with _G", function() return load("return io or package or debug or os.getenv", "g", "t", _G)() end},
  {"string.dump", function() return string.dump(function() end) end},
  {"collectgarbage collect", function() return collectgarbage("collect") end},
  {"collectgarbage step", function() return collectgarbage("step") end},
  {"collectgarbage stop", function() return collectgarbage("stop") end},
  {"collectgarbage generational", function() return collectgarbage("generational") end},
  {"collectgarbage isrunning", function() return collectgarbage("isrunning") end},
  {"string metatable", function() local mt = getmetatable(""); return type(mt) == "table" and mt end},
  {"string metatable swap", function() return setmetatable("", {}) end},
  {"string metatable rawset", function() return rawset(getmetatable(""), "__index", {}) end},
  {"string __index", function() return ("").io or ("").getenv or ("").dump end},
  {"__gc finalizer", function() return setmetatable({}, {__gc = function() end}) end},
  {"coroutine.wrap", function() return coroutine.wrap(function() return io or package or debug end)() end},
  {"coroutine env", function()
    local co = coroutine.create(function() return load("return io or os.getenv")() end)
    local ok, v = coroutine.resume(co)
    return ok and v
  end},
  {"coroutine.close running", function() return coroutine.close(coroutine.running()) end},
  {"bot api", function()
    for k, v in pairs(bot) do
      if type(k) == "string" and (k:find("file") or k:find("env") or k:find("exec") or k:find("open") or k:find("read")) then return k end
    end
  end},
  {"bot.config", function()
    for k, v in pairs(bot.config) do if k ~= "path" and k ~= "var" then return k end end
  end},
}

bot.command("probe", function(msg)
  local lines = {}
  for _, r in ipairs(routes) do
    local ok, v = pcall(r[2])
    if ok and v ~= nil and v ~= false then
      lines[#lines + 1] = r[1] .. ": GOT " .. tostring(v):sub(1, 60)
    else
      lines[#lines + 1] = r[1] .. ": no"
    end
  end
  msg:reply(table.concat(lines, "\n"))
end)
