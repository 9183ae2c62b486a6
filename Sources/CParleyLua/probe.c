/*
 * Fuzz support: runs one call of Parley's pattern matcher (find, match,
 * gmatch, gsub or bot.hear's native) on attacker-chosen subject, pattern and
 * replacement, under an instruction budget, in a throwaway trusted state.
 *
 * It lives in C for the same reason as selfcheck.c: the matcher raises (Lua
 * errors, budget trips) by longjmp, which must never cross a Swift frame. The
 * fuzz target calls this and only looks at the status: an error or a spent
 * budget is an expected outcome; a crash, or a call that outlives its budget
 * by far (unmetered work), is what the fuzzer is looking for.
 */
#include "parley_codec.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An error about the pattern's form, as opposed to a spent budget, a pattern
 * too deep to match, or a bad replacement (whose capture indexes read the
 * same, so op 4's are left out). */
static int is_form_error(const char *m, int op) {
    if (m == NULL) return 0;
    if (strstr(m, "invalid capture index")) return op != 4;
    return strstr(m, "malformed pattern") || strstr(m, "invalid pattern capture") || strstr(m, "unfinished capture")
        || strstr(m, "after '%f'") || strstr(m, "too many captures");
}

/* The driver runs as Lua so gmatch loops and function/table replacements go
 * through the same paths a plugin's calls do. */
static const char driver[] =
    "local op, s, p, r, init, n = ...\n"
    "local str = string\n"
    "if op == 0 then return str.find(s, p, init)\n"
    "elseif op == 1 then return str.find(s, p, init, true)\n"
    "elseif op == 2 then return str.match(s, p, init)\n"
    "elseif op == 3 then\n"
    "  local k = 0\n"
    "  for a, b in str.gmatch(s, p, init) do k = k + 1; if k > 10000 then break end end\n"
    "  return k\n"
    "elseif op == 4 then return str.gsub(s, p, r, n)\n"
    "elseif op == 5 then return str.gsub(s, p, function(a, b) if b then return r end return nil end, n)\n"
    "elseif op == 6 then return str.gsub(s, p, { [r] = s, a = false, [\"\"] = 1 }, n)\n"
    "else\n"  /* bot.hear's native: the search of find, then a call with the captures */
    "  local k\n"
    "  hear(s, p, function(msg, ...) k = select('#', ...) end, {})\n"
    "  return k\n"
    "end\n";

static int probe_fn(lua_State *L) {
    lua_newtable(L);
    parley_install_patterns(L, lua_gettop(L));
    lua_setglobal(L, "string");
    lua_pushcfunction(L, parley_hear);
    lua_setglobal(L, "hear");
    if (luaL_loadbufferx(L, driver, sizeof driver - 1, "=probe", "t") != LUA_OK) return lua_error(L);
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 0);
    return 0;
}

int parley_pattern_probe(int op, const char *s, size_t ls, const char *p, size_t lp,
                         const char *r, size_t lr, long long init, long long max_n,
                         int64_t budget) {
    parley_ctx *c = calloc(1, sizeof *c);
    if (c == NULL) return -1;
    c->hook_period = 1000;
    c->instr_limit = budget;
    /* No wall-clock limit: the instruction budget alone must stop the work,
     * so unmetered loops show up as slow inputs instead of being cut short. */
    c->wall_limit_ns = 3600ull * 1000000000ull;
    c->mem_cap = (size_t)64 << 20;
    lua_State *L = parley_state_alloc(c);
    if (L == NULL) {
        free(c);
        return -1;
    }
    parley_event_begin(L, 0);
    /* The check bot.hear makes at load must agree with the matcher: a pattern
     * it passes never fails for its form. (The matcher may never reach a bad
     * item, so a pattern it flags can still match.) */
    int flagged = 1;
    if (op != 1) {
        lua_pushcfunction(L, parley_pattern_problem);
        lua_pushlstring(L, p, lp);
        if (lua_pcall(L, 1, 1, 0) == LUA_OK) flagged = !lua_isnil(L, -1);
        lua_pop(L, 1);
    }
    lua_pushcfunction(L, probe_fn);
    lua_pushinteger(L, op);
    lua_pushlstring(L, s, ls);
    lua_pushlstring(L, p, lp);
    lua_pushlstring(L, r, lr);
    lua_pushinteger(L, (lua_Integer)init);
    if (max_n < 0) lua_pushnil(L); else lua_pushinteger(L, (lua_Integer)max_n);
    int status = lua_pcall(L, 6, 0, 0);
    int result = status == LUA_OK ? 0 : (c->tripped ? 2 : 1);
    if (result == 1 && !flagged && is_form_error(lua_tostring(L, -1), op)) {
        fprintf(stderr, "parley-fuzz pattern: the load-time check passed a pattern the matcher refused: %s\n", lua_tostring(L, -1));
        abort();
    }
    lua_close(L);
    free(c);
    return result;
}
