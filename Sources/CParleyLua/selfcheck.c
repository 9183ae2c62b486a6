/*
 * Self-check of the pattern matcher against stock Lua, used by the test
 * suite: runs a conformance script in a plain (unsandboxed, trusted) state
 * where `stock` holds Lua's own find/match/gmatch/gsub and `ours` Parley's.
 * It lives here, in C, because building that state makes raising calls that
 * Swift must never make.
 */
#include "parley_codec.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int selfcheck_fn(lua_State *L) {
    const char *src = lua_touserdata(L, 1);
    size_t len = (size_t)lua_tointeger(L, 2);
    luaL_openlibs(L);
    lua_getglobal(L, "string");
    int s = lua_gettop(L);
    lua_newtable(L);
    static const char *const names[] = {"find", "match", "gmatch", "gsub", NULL};
    for (int i = 0; names[i]; i++) {
        lua_getfield(L, s, names[i]);
        lua_setfield(L, -2, names[i]);
    }
    lua_setglobal(L, "stock");
    lua_newtable(L);
    parley_install_patterns(L, lua_gettop(L));
    lua_setglobal(L, "ours");
    if (luaL_loadbufferx(L, src, len, "=pattern_conformance", "t") != LUA_OK) return lua_error(L);
    lua_call(L, 0, 3);
    return 3;
}

int parley_pattern_selfcheck(const char *src, size_t len, long *passed, long *failed, char *details, size_t details_len) {
    parley_ctx *c = calloc(1, sizeof *c);
    if (c == NULL) return -1;
    c->hook_period = 1000000;
    c->instr_limit = INT64_MAX / 2;
    c->wall_limit_ns = 600ull * 1000000000ull;
    c->mem_cap = (size_t)1 << 30;
    lua_State *L = parley_state_alloc(c);
    if (L == NULL) {
        free(c);
        return -1;
    }
    parley_event_begin(L, 0);
    lua_pushcfunction(L, selfcheck_fn);
    lua_pushlightuserdata(L, (void *)src);
    lua_pushinteger(L, (lua_Integer)len);
    int status = lua_pcall(L, 2, 3, 0);
    int result = 0;
    if (status != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        snprintf(details, details_len, "%s", m ? m : "error");
        result = -1;
    } else {
        *passed = (long)lua_tointeger(L, -3);
        *failed = (long)lua_tointeger(L, -2);
        const char *d = lua_tostring(L, -1);
        snprintf(details, details_len, "%s", d ? d : "");
    }
    lua_close(L);
    free(c);
    return result;
}
