/*
 * The standard library a plugin sees, and the hardened replacements for the
 * parts of stock Lua 5.4.4 that escape a sandbox (docs/sandbox.md lists
 * the limits):
 *
 *   - no io, package/require, debug, dofile, loadfile, string.dump, warn;
 *   - load: text only, with an explicit environment;
 *   - print goes to the bot log;
 *   - collectgarbage: "count" only;
 *   - os: time, date, difftime, clock (time/date follow the bot's clock);
 *   - setmetatable rejects __gc (finalizers run with hooks off);
 *   - getmetatable does not show the globals' metatable of lazy libraries;
 *   - xpcall skips the message handler once the budget tripped (handlers of
 *     hook-raised errors run with hooks off);
 *   - coroutine.resume/wrap/close never run the <close> handlers of a
 *     coroutine the budget killed (it keeps hooks off for good), and
 *     coroutine.close nesting is bounded (5.4.4's C-stack overflow);
 *   - string.find/match/gmatch/gsub are Parley's budgeted matcher;
 *   - table.sort/move/insert/remove/concat charge the budget for their
 *     loops, which run in C out of the hook's reach, and an empty
 *     string.rep makes no loop;
 *   - the string metatable is locked.
 *
 * table, utf8, coroutine and os are opened on first use: the globals table's
 * __index opens one the first time a plugin names it. Most plugins never
 * touch most of them, and a fleet of simulated users would carry some 2 KB
 * of them per VM. Until then `rawget(_G, "os")` is nil and `pairs(_G)` does
 * not list it. That metatable is invisible (getmetatable(_G) is nil), and a
 * plugin that sets its own on _G gets every library opened first.
 */
#include "parley_codec.h"

#include <lauxlib.h>
#include <lualib.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Registry key of the weak set of coroutines the budget killed. */
static const char *const KILLED_KEY = "parley.killed";
#define MAX_CLOSE_DEPTH 8

/* ---------------------------------------------------------------- base */

static int sb_print(lua_State *L) {
    parley_ctx *c = parley_ctx_of(L);
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
        if (luaL_bufflen(&b) > c->log_line_max) break;
    }
    luaL_pushresult(&b);
    /* Same path (and quota) as bot.log.info. */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, -2);
    lua_call(L, 1, 0);
    return 0;
}

static int sb_load(lua_State *L) {
    size_t len;
    if (lua_type(L, 1) != LUA_TSTRING)
        return luaL_error(L, "load: only source text (a string) can be loaded in a plugin");
    const char *s = lua_tolstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "=(load)");
    const char *mode = luaL_optstring(L, 3, "t");
    if (strchr(mode, 't') == NULL)
        return luaL_error(L, "load: binary chunks are not allowed in a plugin");
    if (lua_type(L, 4) != LUA_TTABLE)
        return luaL_error(L, "load: an explicit environment table (4th argument) is required in a plugin");
    /* Compiling is C work that grows with the text: charged by its size. */
    parley_budget_charge(L, (int64_t)(len / 8));
    const char *problem = parley_chunk_problem(s, len);
    if (problem) {
        lua_pushnil(L);
        lua_pushfstring(L, "load: %s", problem);
        return 2;
    }
    if (luaL_loadbufferx(L, s, len, name, "t") != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushvalue(L, 4);
    if (lua_setupvalue(L, -2, 1) == NULL) lua_pop(L, 1);
    return 1;
}

static int sb_collectgarbage(lua_State *L) {
    const char *opt = luaL_optstring(L, 1, "collect");
    if (strcmp(opt, "count") != 0)
        return luaL_error(L, "collectgarbage: only \"count\" is allowed in a plugin");
    int k = lua_gc(L, LUA_GCCOUNT, 0);
    int b = lua_gc(L, LUA_GCCOUNTB, 0);
    lua_pushnumber(L, (lua_Number)k + ((lua_Number)b / 1024));
    return 1;
}

static void open_pending_libs(lua_State *L, int g);
static int lazy_index(lua_State *L);

/* Whether the metatable at idx is the globals' one that opens libraries on
 * first use: its __index is lazy_index, which no plugin can reach. */
static int is_lazy_mt(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_pushliteral(L, "__index");
    lua_rawget(L, idx);
    int lazy = lua_tocfunction(L, -1) == lazy_index;
    lua_pop(L, 1);
    return lazy;
}

/* getmetatable, blind to the metatable that opens libraries: to a plugin,
 * _G has none until it sets one. */
static int sb_getmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    if (!lua_getmetatable(L, 1) || is_lazy_mt(L, -1)) {
        lua_pushnil(L);
        return 1;
    }
    luaL_getmetafield(L, 1, "__metatable");
    return 1;
}

static int sb_setmetatable(lua_State *L) {
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE && lua_getfield(L, 2, "__gc") != LUA_TNIL)
        return luaL_error(L, "setmetatable: __gc metamethods are not allowed in plugins");
    if (t == LUA_TTABLE) lua_pop(L, 1);
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    /* The metatable that opens libraries on first use is going: open them now. */
    lua_pushglobaltable(L);
    int is_globals = lua_rawequal(L, 1, -1);
    lua_pop(L, 1);
    if (is_globals) open_pending_libs(L, 1);
    lua_setmetatable(L, 1);
    return 1;
}

/* xpcall whose message handler is skipped once the budget has tripped. */
static int guarded_handler(lua_State *L) {
    if (parley_ctx_of(L)->tripped) return 1; /* keep the budget error as is */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int finish_pcall(lua_State *L, int status, lua_KContext extra) {
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int sb_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, guarded_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finish_pcall);
    return finish_pcall(L, status, 2);
}

/* ---------------------------------------------------------------- os */

/* ---------------------------------------------------------------- os: the bot's clock and zone */

/* The span of the bot's zone that holds t; NULL for UTC. */
static const parley_zone_span *zone_at(const parley_zone *z, int64_t t) {
    if (z == NULL || z->count <= 0) return NULL;
    int lo = 0, hi = z->count - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (z->spans[mid].from <= t) lo = mid; else hi = mid - 1;
    }
    return &z->spans[lo];
}

/* t + d, or t itself where that would overflow (os.date then refuses it). */
static lua_Integer shifted(lua_Integer t, int32_t d) {
    if ((d > 0 && t > LUA_MAXINTEGER - d) || (d < 0 && t < LUA_MININTEGER - d)) return t;
    return t + d;
}

/* The stock os.date (upvalue 1 of both closures) of fmt at t, on the stack. */
static void stock_date(lua_State *L, int stock, const char *fmt, size_t len, lua_Integer t) {
    lua_pushvalue(L, stock);
    lua_pushlstring(L, fmt, len);
    lua_pushinteger(L, t);
    lua_call(L, 2, 1);
}

/* os.date in the bot's zone: the stock function in UTC ("!") at t moved by
 * the zone's offset, with %z and %Z written here, since strftime would print
 * UTC's. The process's TZ is never read: it is one for every bot. */
static void zoned_date(lua_State *L, int stock, const char *fmt, size_t len, lua_Integer t) {
    const parley_zone_span *z = len > 0 && fmt[0] == '!' ? NULL : zone_at(parley_ctx_of(L)->zone, t);
    if (z == NULL) {
        if (len > 0 && fmt[0] == '!') { stock_date(L, stock, fmt, len, t); return; }
        /* UTC: the stock function with "!" never reads TZ either. */
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        luaL_addchar(&b, '!');
        luaL_addlstring(&b, fmt, len);
        luaL_pushresult(&b);
        stock_date(L, stock, lua_tostring(L, -1), lua_rawlen(L, -1), t);
        lua_remove(L, -2);
        return;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addchar(&b, '!');
    for (size_t i = 0; i < len; i++) {
        if (fmt[i] != '%' || i + 1 >= len) { luaL_addchar(&b, fmt[i]); continue; }
        char k = fmt[++i];
        if (k == 'z') {
            int m = (z->offset < 0 ? -z->offset : z->offset) / 60;
            char o[16];
            snprintf(o, sizeof o, "%c%02d%02d", z->offset < 0 ? '-' : '+', m / 60, m % 60);
            luaL_addstring(&b, o);
        } else if (k == 'Z') {
            for (const char *a = z->abbrev; *a; a++) {
                if (*a == '%') luaL_addchar(&b, '%');
                luaL_addchar(&b, *a);
            }
        } else {
            luaL_addchar(&b, '%');
            luaL_addchar(&b, k);
        }
    }
    luaL_pushresult(&b);
    stock_date(L, stock, lua_tostring(L, -1), lua_rawlen(L, -1), shifted(t, z->offset));
    lua_remove(L, -2);
    if (lua_istable(L, -1)) {
        lua_pushboolean(L, z->isdst);
        lua_setfield(L, -2, "isdst");
    }
}

/* A format longer than this is refused: strftime's work grows with it, in
 * one C call no budget check reaches (8 MB of "%n" took half a second). */
#define MAX_DATE_FORMAT 4096

static int sb_date(lua_State *L) {
    size_t len;
    const char *fmt = luaL_optlstring(L, 1, "%c", &len);
    if (len > MAX_DATE_FORMAT) return luaL_error(L, "os.date: the format is longer than %d bytes", MAX_DATE_FORMAT);
    lua_Integer t = lua_isnoneornil(L, 2) ? (lua_Integer)floor(parley_ctx_of(L)->now_epoch) : luaL_checkinteger(L, 2);
    zoned_date(L, lua_upvalueindex(1), fmt, len, t);
    return 1;
}

/* A field of os.time's table, checked as the stock function checks it. */
static lua_Integer date_field(lua_State *L, const char *key, lua_Integer d, lua_Integer delta) {
    int isnum;
    int type = lua_getfield(L, 1, key);
    lua_Integer res = lua_tointegerx(L, -1, &isnum);
    if (!isnum) {
        if (type != LUA_TNIL) return luaL_error(L, "field '%s' is not an integer", key);
        if (d < 0) return luaL_error(L, "field '%s' missing in date table", key);
        res = d;
    } else if (!(res >= 0 ? res - delta <= INT_MAX : INT_MIN + delta <= res)) {
        return luaL_error(L, "field '%s' is out-of-bound", key);
    }
    lua_pop(L, 1);
    return res;
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (m 1..12). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* os.time(): the bot's clock. os.time(t): t read as a time in the bot's
 * zone, its fields normalised as the stock function does (a month of 13 is
 * next January), and the table updated to match. */
static int sb_time(lua_State *L) {
    if (lua_isnoneornil(L, 1)) {
        lua_pushinteger(L, (lua_Integer)floor(parley_ctx_of(L)->now_epoch));
        return 1;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    int64_t year = date_field(L, "year", -1, 1900);
    int64_t month = date_field(L, "month", -1, 1);
    int64_t day = date_field(L, "day", -1, 0);
    int64_t hour = date_field(L, "hour", 12, 0);
    int64_t min = date_field(L, "min", 0, 0);
    int64_t sec = date_field(L, "sec", 0, 0);
    /* isdst picks between the two readings of an hour the clocks repeat. */
    int isdst = -1;
    if (lua_getfield(L, 1, "isdst") == LUA_TBOOLEAN) isdst = lua_toboolean(L, -1);
    lua_pop(L, 1);
    int64_t m0 = month - 1;
    year += m0 >= 0 ? m0 / 12 : -((11 - m0) / 12);
    m0 -= 12 * (m0 >= 0 ? m0 / 12 : -((11 - m0) / 12));
    int64_t wall = (days_from_civil(year, m0 + 1, 1) + day - 1) * 86400 + hour * 3600 + min * 60 + sec;
    /* Local to UTC, with the offsets in force a day before and a day after:
     * a reading is good when the offset at the instant it gives is its own.
     * An hour the clocks repeat has two (isdst picks, else the first); an
     * hour they skip has none, and is read with the earlier offset (02:30
     * becomes 03:30), as mktime does. */
    const parley_zone *zone = parley_ctx_of(L)->zone;
    lua_Integer t = wall;
    if (zone_at(zone, wall) != NULL) {
        const parley_zone_span *a = zone_at(zone, wall - 86400), *b = zone_at(zone, wall + 86400);
        int64_t ta = wall - a->offset, tb = wall - b->offset;
        const parley_zone_span *za = zone_at(zone, ta), *zb = zone_at(zone, tb);
        int ga = za->offset == a->offset, gb = zb->offset == b->offset;
        if (ga && gb && ta != tb) t = isdst >= 0 && zb->isdst == isdst && za->isdst != isdst ? tb : ta;
        else if (gb && !ga) t = tb;
        else t = ta;
    }
    /* The table takes the normalised fields, as from os.date("*t", t). */
    zoned_date(L, lua_upvalueindex(2), "*t", 2, t);
    static const char *const fields[] = {"year", "month", "day", "hour", "min", "sec", "yday", "wday", "isdst"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        lua_getfield(L, -1, fields[i]);
        lua_setfield(L, 1, fields[i]);
    }
    lua_pop(L, 1);
    lua_pushinteger(L, t);
    return 1;
}

/* ---------------------------------------------------------------- coroutine */

static int is_killed(lua_State *L, int co_index) {
    co_index = lua_absindex(L, co_index);
    lua_getfield(L, LUA_REGISTRYINDEX, KILLED_KEY);
    lua_pushvalue(L, co_index);
    int killed = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return killed;
}

static void mark_killed(lua_State *L, int co_index) {
    lua_getfield(L, LUA_REGISTRYINDEX, KILLED_KEY);
    lua_pushvalue(L, co_index);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

static lua_State *get_co(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    return co;
}

/* Resume `co` with narg arguments from L's top; returns results count or -1 (error on top). */
static int aux_resume(lua_State *L, lua_State *co, int co_index, int narg) {
    int status, nres;
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
    lua_xmove(L, co, narg);
    status = lua_resume(co, L, narg, &nres);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            lua_pushliteral(L, "too many results to resume");
            return -1;
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1);
    /* A coroutine the hook killed keeps hooks off: never run its <close> handlers. */
    if (parley_ctx_of(L)->tripped) mark_killed(L, co_index);
    return -1;
}

/* NULL when `co` can be resumed, else the reason (stock Lua's wording). */
static const char *resume_refusal(lua_State *L, lua_State *co) {
    if (L == co) return "cannot resume non-suspended coroutine";
    int s = lua_status(co);
    if (s == LUA_YIELD) return NULL;
    if (s == LUA_OK) {
        lua_Debug ar;
        if (lua_getstack(co, 0, &ar)) return "cannot resume non-suspended coroutine";
        if (lua_gettop(co) == 0) return "cannot resume dead coroutine";
        return NULL;
    }
    return "cannot resume dead coroutine";
}

static int sb_resume(lua_State *L) {
    lua_State *co = get_co(L);
    const char *refusal = resume_refusal(L, co);
    if (refusal) {
        lua_pushboolean(L, 0);
        lua_pushstring(L, refusal);
        return 2;
    }
    int r = aux_resume(L, co, 1, lua_gettop(L) - 1);
    if (r < 0) {
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, -(r + 1));
    return r + 1;
}

/* Run a dead coroutine's pending <close> handlers, guarded. Leaves the error (if any) on co. */
static int guarded_reset(lua_State *L, lua_State *co) {
    parley_ctx *c = parley_ctx_of(L);
    if (c->close_depth >= MAX_CLOSE_DEPTH)
        return luaL_error(L, "coroutine.close nested too deeply");
    c->close_depth++;
    int status = lua_resetthread(co);
    c->close_depth--;
    return status;
}

static int sb_wrap_call(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    const char *refusal = resume_refusal(L, co);
    if (refusal) return luaL_error(L, "%s", refusal);
    int r = aux_resume(L, co, lua_upvalueindex(1), lua_gettop(L));
    if (r >= 0) return r;
    int s = lua_status(co);
    if (s != LUA_OK && s != LUA_YIELD && !parley_ctx_of(L)->tripped &&
        !is_killed(L, lua_upvalueindex(1))) {
        lua_pop(L, 1);
        s = guarded_reset(L, co);
        lua_xmove(co, L, 1);
    }
    if (s != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int sb_wrap(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, sb_wrap_call, 1);
    return 1;
}

static int sb_close(lua_State *L) {
    lua_State *co = get_co(L);
    int s = lua_status(co);
    int closable;
    if (co == L) closable = 0;
    else if (s == LUA_YIELD) closable = 1;
    else if (s == LUA_OK) {
        lua_Debug ar;
        closable = !lua_getstack(co, 0, &ar);
    } else closable = 1; /* dead with an error */
    if (!closable) return luaL_error(L, "cannot close a %s coroutine", co == L ? "running" : "normal");
    if (parley_ctx_of(L)->tripped) return luaL_error(L, "budget exceeded");
    if (is_killed(L, 1)) {
        lua_pushboolean(L, 0);
        lua_pushliteral(L, "coroutine was stopped by the CPU budget");
        return 2;
    }
    int status = guarded_reset(L, co);
    if (status == LUA_OK) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_xmove(co, L, 1);
    return 2;
}

/* ---------------------------------------------------------------- table.sort */

/*
 * Sorting without a comparator runs entirely in C, out of the hook's reach:
 * charge n*log2(n) comparisons up front so a huge sort trips the budget
 * instead of overrunning the deadline.
 */
static void charge_steps(lua_State *L, lua_Unsigned steps, lua_Unsigned cost);

static int sb_sort(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    /* The length sort itself takes: __len too (so it is called twice), as a
     * table that lies about it is sorted through __index and __newindex. */
    lua_Integer len = luaL_len(L, 1);
    lua_Unsigned n = len > 0 ? (lua_Unsigned)len : 0, halvings = 0;
    for (lua_Unsigned m = n; m > 1; m >>= 1) halvings++;
    if (halvings) charge_steps(L, n, halvings);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 0);
    return 0;
}

/*
 * The other stock loops that run in C without a bound of their own. A loop
 * that builds a result is bounded by the memory cap, but one that builds
 * nothing is not: string.rep("", 1 << 40) or table.move({}, 1, 1 << 40, 1)
 * would spin for hours out of the hook's reach. These charge the budget for
 * their steps, so they trip it (and the deadline) as a Lua loop would. A
 * step that reads and writes a table costs about what 8 instructions do.
 */
#define TABLE_STEP 8

/* Charges `steps` of `cost` each, capped where a signed 64-bit count ends. */
static void charge_steps(lua_State *L, lua_Unsigned steps, lua_Unsigned cost) {
    lua_Unsigned max = (lua_Unsigned)INT64_MAX / cost;
    parley_budget_charge(L, steps > max ? INT64_MAX : (int64_t)(steps * cost));
}

/* string.rep(s, n [, sep]): charged by the size of its result (which the
 * memory cap also bounds); an empty one is "" without the loop. */
/* Guards the stock functions' pointers the wrappers below call. */
static pthread_mutex_t stock_lock = PTHREAD_MUTEX_INITIALIZER;
static lua_CFunction stock_rep;   /* liblua's, as string.rep was before the sandbox */

static int sb_rep(lua_State *L) {
    size_t l, lsep;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n <= 0 || l + lsep == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    lua_pushcfunction(L, stock_rep);
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    /* After the copy: one too big for the memory cap is a memory error first. */
    parley_budget_charge(L, (int64_t)(lua_rawlen(L, -1) / 8));
    return 1;
}

/* table.move(a1, f, e, t [, a2]): e - f + 1 steps, charged up front. */
static int sb_move(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
    if (e >= f) charge_steps(L, (lua_Unsigned)e - (lua_Unsigned)f + 1u, TABLE_STEP);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* One step of a loop over a table; charged 256 steps at a time. */
#define STEP(L, i) do { if (((i) & 255) == 0) parley_budget_charge((L), 256 * TABLE_STEP); } while (0)

/* table.insert(t, [pos,] v): written here rather than wrapped, as its length
 * comes from __len, which a wrapper would call twice. */
static int sb_insert(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer e = (lua_Integer)((lua_Unsigned)luaL_len(L, 1) + 1u);   /* the first empty slot */
    lua_Integer pos = e;
    switch (lua_gettop(L)) {
    case 2:
        break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        if ((lua_Unsigned)pos - 1u >= (lua_Unsigned)e)
            return luaL_error(L, "bad argument #2 to 'table.insert' (position out of bounds)");
        for (lua_Integer i = e; i > pos; i--) {
            STEP(L, (lua_Unsigned)i);
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        break;
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

/* table.remove(t [, pos]): as table.insert, written here. */
static int sb_remove(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer size = luaL_len(L, 1);
    lua_Integer pos = luaL_optinteger(L, 2, size);
    if (pos != size && (lua_Unsigned)pos - 1u > (lua_Unsigned)size)
        return luaL_error(L, "bad argument #2 to 'table.remove' (position out of bounds)");
    lua_geti(L, 1, pos);   /* the result */
    for (; pos < size; pos++) {
        STEP(L, (lua_Unsigned)pos);
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

/* table.concat(t [, sep [, i [, j]]]): charged for its steps, as __index
 * can hand it the same short value for ever. */
static int sb_concat(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t lsep;
    const char *sep = luaL_optlstring(L, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    lua_Integer last = lua_isnoneornil(L, 4) ? luaL_len(L, 1) : luaL_checkinteger(L, 4);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (lua_Unsigned step = 1; i <= last; i++, step++) {
        STEP(L, step);
        lua_geti(L, 1, i);
        if (!lua_isstring(L, -1))
            return luaL_error(L, "invalid value (%s) at index %I in table for 'concat'", luaL_typename(L, -1), (lua_Integer)i);
        luaL_addvalue(&b);
        if (i < last) luaL_addlstring(&b, sep, lsep);
        if (i == LUA_MAXINTEGER) break;
    }
    luaL_pushresult(&b);
    return 1;
}

/*
 * Stock functions whose work grows with the strings they are given
 * (string.upper, tonumber, utf8.len …). Each call is short, but in C it is
 * out of the hook's reach, and a loop of them over megabyte strings ran for
 * seconds between two of its deadline checks. Wrapped, a call is charged a
 * unit per 8 bytes, which checks the deadline too: of what it made (its
 * results; a number counts 8 bytes) or, for those that read much and make
 * little (a number from a string of megabytes), of its string arguments,
 * before the call. os.date's format is bounded apart.
 *
 * Each wrapper is a light C function (no upvalue, so no allocation in any
 * VM: closures would cost a fleet of simulated users 2 KiB a person),
 * calling the stock function through a pointer read once per process. The
 * prelude keeps the stock sub, lower and byte it took before the wrapping:
 * it calls them on every message, on short strings.
 */
enum { IN_STRING, IN_STRING_MT, IN_MATH, IN_UTF8, IN_GLOBALS };
enum { BY_RESULTS, BY_ARGUMENTS };

static const struct wrapped_fn {
    int table, charge;
    const char *name;
} WRAPPED[] = {
    {IN_STRING, BY_RESULTS, "upper"}, {IN_STRING, BY_RESULTS, "lower"}, {IN_STRING, BY_RESULTS, "reverse"},
    {IN_STRING, BY_RESULTS, "sub"}, {IN_STRING, BY_RESULTS, "byte"}, {IN_STRING, BY_RESULTS, "format"},
    {IN_STRING, BY_RESULTS, "pack"}, {IN_STRING, BY_RESULTS, "unpack"},
    {IN_UTF8, BY_RESULTS, "len"}, {IN_UTF8, BY_RESULTS, "codepoint"}, {IN_UTF8, BY_RESULTS, "offset"},
    {IN_UTF8, BY_RESULTS, "char"},
    {IN_GLOBALS, BY_ARGUMENTS, "tonumber"},
    /* The string metatable's arithmetic: "1" + 2 reads the string as a number. */
    {IN_STRING_MT, BY_ARGUMENTS, "__add"}, {IN_STRING_MT, BY_ARGUMENTS, "__sub"}, {IN_STRING_MT, BY_ARGUMENTS, "__mul"},
    {IN_STRING_MT, BY_ARGUMENTS, "__mod"}, {IN_STRING_MT, BY_ARGUMENTS, "__pow"}, {IN_STRING_MT, BY_ARGUMENTS, "__div"},
    {IN_STRING_MT, BY_ARGUMENTS, "__idiv"}, {IN_STRING_MT, BY_ARGUMENTS, "__unm"},
    /* math reads a numeric string as a number (random and randomseed are
     * closures over their state, which a light wrapper cannot call). */
    {IN_MATH, BY_ARGUMENTS, "abs"}, {IN_MATH, BY_ARGUMENTS, "ceil"}, {IN_MATH, BY_ARGUMENTS, "floor"},
    {IN_MATH, BY_ARGUMENTS, "fmod"}, {IN_MATH, BY_ARGUMENTS, "modf"}, {IN_MATH, BY_ARGUMENTS, "sqrt"},
    {IN_MATH, BY_ARGUMENTS, "exp"}, {IN_MATH, BY_ARGUMENTS, "log"}, {IN_MATH, BY_ARGUMENTS, "sin"},
    {IN_MATH, BY_ARGUMENTS, "cos"}, {IN_MATH, BY_ARGUMENTS, "tan"}, {IN_MATH, BY_ARGUMENTS, "asin"},
    {IN_MATH, BY_ARGUMENTS, "acos"}, {IN_MATH, BY_ARGUMENTS, "atan"}, {IN_MATH, BY_ARGUMENTS, "deg"},
    {IN_MATH, BY_ARGUMENTS, "rad"}, {IN_MATH, BY_ARGUMENTS, "max"}, {IN_MATH, BY_ARGUMENTS, "min"},
    {IN_MATH, BY_ARGUMENTS, "tointeger"}, {IN_MATH, BY_ARGUMENTS, "type"}, {IN_MATH, BY_ARGUMENTS, "ult"},
};
#define WRAPPED_COUNT (int)(sizeof WRAPPED / sizeof WRAPPED[0])

/* The stock functions, by WRAPPED's index: the same in every state (they
 * are liblua's), so kept by the first state that wraps them, under a lock. */
static lua_CFunction stock_fns[WRAPPED_COUNT];

static int call_stock(lua_State *L, int i) {
    int n = lua_gettop(L);
    if (WRAPPED[i].charge == BY_ARGUMENTS) {
        size_t bytes = 0;
        for (int a = 1; a <= n; a++)
            if (lua_type(L, a) == LUA_TSTRING) bytes += lua_rawlen(L, a);
        parley_budget_charge(L, (int64_t)(bytes / 8));
    }
    luaL_checkstack(L, 1, "too many arguments");
    lua_pushcfunction(L, stock_fns[i]);
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    int results = lua_gettop(L);
    if (WRAPPED[i].charge == BY_RESULTS) {
        size_t bytes = 0;
        for (int r = 1; r <= results; r++) bytes += lua_type(L, r) == LUA_TSTRING ? lua_rawlen(L, r) : 8;
        parley_budget_charge(L, (int64_t)(bytes / 8));
    }
    return results;
}

#define W(i) static int wrapped_##i(lua_State *L) { return call_stock(L, i); }
W(0) W(1) W(2) W(3) W(4) W(5) W(6) W(7) W(8) W(9) W(10) W(11) W(12) W(13) W(14) W(15) W(16) W(17) W(18) W(19)
W(20) W(21) W(22) W(23) W(24) W(25) W(26) W(27) W(28) W(29) W(30) W(31) W(32) W(33) W(34) W(35) W(36) W(37)
W(38) W(39) W(40) W(41)
#undef W
static const lua_CFunction WRAPPERS[] = {
    wrapped_0, wrapped_1, wrapped_2, wrapped_3, wrapped_4, wrapped_5, wrapped_6, wrapped_7, wrapped_8, wrapped_9,
    wrapped_10, wrapped_11, wrapped_12, wrapped_13, wrapped_14, wrapped_15, wrapped_16, wrapped_17, wrapped_18,
    wrapped_19, wrapped_20, wrapped_21, wrapped_22, wrapped_23, wrapped_24, wrapped_25, wrapped_26, wrapped_27,
    wrapped_28, wrapped_29, wrapped_30, wrapped_31, wrapped_32, wrapped_33, wrapped_34, wrapped_35, wrapped_36,
    wrapped_37, wrapped_38, wrapped_39, wrapped_40, wrapped_41,
};
_Static_assert(sizeof WRAPPERS / sizeof WRAPPERS[0] == sizeof WRAPPED / sizeof WRAPPED[0], "a wrapper per wrapped function");

/* Replaces, in the table at `t`, the functions WRAPPED lists for `where`. */
static void wrap_table(lua_State *L, int t, int where) {
    t = lua_absindex(L, t);
    for (int i = 0; i < WRAPPED_COUNT; i++) {
        if (WRAPPED[i].table != where) continue;
        if (lua_getfield(L, t, WRAPPED[i].name) != LUA_TFUNCTION) {
            lua_pop(L, 1);
            continue;
        }
        lua_CFunction f = lua_tocfunction(L, -1);
        /* A closure (math.random keeps its state in an upvalue) cannot be
         * called through its bare pointer: left as it is. */
        int closure = lua_getupvalue(L, -1, 1) != NULL;
        lua_settop(L, lua_gettop(L) - (closure ? 2 : 1));
        if (f == NULL || f == WRAPPERS[i] || closure) continue;
        pthread_mutex_lock(&stock_lock);
        if (stock_fns[i] == NULL) stock_fns[i] = f;
        int same = stock_fns[i] == f;
        pthread_mutex_unlock(&stock_lock);
        if (!same) continue;   /* never: liblua has one of each */
        lua_pushcfunction(L, WRAPPERS[i]);
        lua_setfield(L, t, WRAPPED[i].name);
    }
}

void parley_charge_sized(lua_State *L) {
    lua_getglobal(L, "string");
    wrap_table(L, -1, IN_STRING);
    lua_pop(L, 1);
    lua_getglobal(L, "math");
    wrap_table(L, -1, IN_MATH);
    lua_pop(L, 1);
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    wrap_table(L, -1, IN_STRING_MT);
    lua_pop(L, 2);
    lua_pushglobaltable(L);
    wrap_table(L, -1, IN_GLOBALS);
    lua_pop(L, 1);
}

/* Lua 5.4's parser matches each label against the pending gotos and the
 * labels before it, in time that grows with their square: 32,000 of each in
 * a block took over a second to compile, and a chunk may hold many such
 * blocks. No plugin needs thousands, so a chunk naming more than this many
 * (counted from its text, comments and strings included) is refused. */
#define MAX_LABELS_AND_GOTOS 4096

const char *parley_chunk_problem(const char *s, size_t len) {
    size_t count = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] == ':' && s[i + 1] == ':') {
            count++;
            i++;
        } else if (s[i] == 'g' && i + 3 < len && memcmp(s + i, "goto", 4) == 0) {
            count++;
            i += 3;
        }
        if (count > 2 * MAX_LABELS_AND_GOTOS) break;
    }
    /* A label is two "::". */
    return count > 2 * MAX_LABELS_AND_GOTOS
        ? "the chunk has more labels and gotos than a plugin may have (4096); the compiler's time grows with their square"
        : NULL;
}

/* ---------------------------------------------------------------- setup */

static void set_fn(lua_State *L, int table, const char *name, lua_CFunction f) {
    lua_pushcfunction(L, f);
    lua_setfield(L, table, name);
}

/* The sandbox's version of a library just opened, on top of the stack. */

static void adjust_table(lua_State *L) {
    lua_getfield(L, -1, "sort");
    lua_pushcclosure(L, sb_sort, 1);
    lua_setfield(L, -2, "sort");
    lua_getfield(L, -1, "move");
    lua_pushcclosure(L, sb_move, 1);
    lua_setfield(L, -2, "move");
    int t = lua_gettop(L);
    set_fn(L, t, "insert", sb_insert);
    set_fn(L, t, "remove", sb_remove);
    set_fn(L, t, "concat", sb_concat);
}

static void adjust_utf8(lua_State *L) {
    wrap_table(L, lua_gettop(L), IN_UTF8);
}

/* os: time, date (on the bot's clock), difftime, clock. */
static void adjust_os(lua_State *L) {
    int os = lua_gettop(L);
    lua_createtable(L, 0, 4);
    int kept = os + 1;
    /* os.time keeps the stock os.date too: it fills a table as "*t" does. */
    lua_getfield(L, os, "time");
    lua_getfield(L, os, "date");
    lua_pushcclosure(L, sb_time, 2);
    lua_setfield(L, kept, "time");
    lua_getfield(L, os, "date");
    lua_pushcclosure(L, sb_date, 1);
    lua_setfield(L, kept, "date");
    lua_getfield(L, os, "difftime");
    lua_setfield(L, kept, "difftime");
    lua_getfield(L, os, "clock");
    lua_setfield(L, kept, "clock");
    lua_replace(L, os);
}

/* coroutine: guarded resume, wrap and close. */
static void adjust_coroutine(lua_State *L) {
    int co = lua_gettop(L);
    set_fn(L, co, "resume", sb_resume);
    set_fn(L, co, "wrap", sb_wrap);
    set_fn(L, co, "close", sb_close);
}

static const struct lazy_lib {
    const char *name;
    lua_CFunction open;
    void (*adjust)(lua_State *L);
} LAZY_LIBS[] = {
    {LUA_TABLIBNAME, luaopen_table, adjust_table},
    {LUA_UTF8LIBNAME, luaopen_utf8, adjust_utf8},
    {LUA_COLIBNAME, luaopen_coroutine, adjust_coroutine},
    {LUA_OSLIBNAME, luaopen_os, adjust_os},
};
#define LAZY_COUNT (int)(sizeof LAZY_LIBS / sizeof LAZY_LIBS[0])

/* Opens lazy library i into the table at g (the globals) and pushes it. */
static void open_lazy(lua_State *L, int g, int i) {
    lua_pushcfunction(L, LAZY_LIBS[i].open);
    lua_pushstring(L, LAZY_LIBS[i].name);
    lua_call(L, 1, 1);
    if (LAZY_LIBS[i].adjust) LAZY_LIBS[i].adjust(L);
    lua_pushstring(L, LAZY_LIBS[i].name);
    lua_pushvalue(L, -2);
    lua_rawset(L, g);
    /* Only once it is in place: an open that ran out of memory is retried. */
    parley_ctx_of(L)->libs_opened |= 1u << i;
}

static void open_pending_libs(lua_State *L, int g) {
    g = lua_absindex(L, g);
    for (int i = 0; i < LAZY_COUNT; i++) {
        if (parley_ctx_of(L)->libs_opened & (1u << i)) continue;
        open_lazy(L, g, i);
        lua_pop(L, 1);
    }
}

/* __index of the globals: a library's first use opens it. */
static int lazy_index(lua_State *L) {
    if (lua_type(L, 2) != LUA_TSTRING) return 0;
    const char *k = lua_tostring(L, 2);
    for (int i = 0; i < LAZY_COUNT; i++) {
        if (strcmp(k, LAZY_LIBS[i].name) != 0) continue;
        if (parley_ctx_of(L)->libs_opened & (1u << i)) return 0;
        open_lazy(L, 1, i);
        return 1;
    }
    return 0;
}

/* Run in protected mode by parley_state_new. */
int parley_open_sandbox(lua_State *L) {
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base}, {LUA_STRLIBNAME, luaopen_string},
        {LUA_MATHLIBNAME, luaopen_math}, {NULL, NULL},
    };
    for (const luaL_Reg *l = libs; l->func; l++) {
        luaL_requiref(L, l->name, l->func, 1);
        lua_pop(L, 1);
    }
    /* requiref leaves package.loaded-like _LOADED in the registry; drop it. */
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);

    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    static const char *const removed[] = {"dofile", "loadfile", "warn", "require", NULL};
    for (int i = 0; removed[i]; i++) {
        lua_pushnil(L);
        lua_setfield(L, g, removed[i]);
    }
    set_fn(L, g, "load", sb_load);
    set_fn(L, g, "collectgarbage", sb_collectgarbage);
    set_fn(L, g, "setmetatable", sb_setmetatable);
    set_fn(L, g, "getmetatable", sb_getmetatable);
    set_fn(L, g, "xpcall", sb_xpcall);

    /* string: no dump; budgeted patterns; locked metatable. */
    lua_getglobal(L, "string");
    int s = lua_gettop(L);
    lua_pushnil(L);
    lua_setfield(L, s, "dump");
    /* A light function, as the wrappers below are: no closure in every VM. */
    lua_getfield(L, s, "rep");
    pthread_mutex_lock(&stock_lock);
    if (stock_rep == NULL) stock_rep = lua_tocfunction(L, -1);
    pthread_mutex_unlock(&stock_lock);
    lua_pop(L, 1);
    lua_pushcfunction(L, sb_rep);
    lua_setfield(L, s, "rep");
    parley_install_patterns(L, s);
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_pushvalue(L, s);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 3);

    /* The weak set of coroutines the budget killed (see sb_resume). */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, KILLED_KEY);

    /* table, utf8, coroutine, os: on first use. */
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, lazy_index);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, g);

    lua_pop(L, 1); /* globals */
    return 0;
}

/* print → the bot log; installed once the natives exist (needs the log function). */
void parley_install_print(lua_State *L, int log_fn) {
    lua_pushvalue(L, log_fn);
    lua_pushcclosure(L, sb_print, 1);
    lua_setglobal(L, "print");
}
