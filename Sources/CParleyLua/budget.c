/*
 * CPU and memory limits of one plugin VM.
 *
 * CPU: a count hook charges instructions against the event's budget and
 * checks the wall-clock deadline. Once either runs out the trip is sticky:
 * the hook re-arms itself at a count of 1 so every further instruction raises
 * again, which is what stops `while true do pcall(f) end` from swallowing the
 * limit. Hooks are per thread and coroutines copy their creator's hook, so the
 * hook is installed when the state is created, before any plugin code runs.
 *
 * The hook is on only while plugin code runs. Under a count hook every Lua
 * instruction, not just every period-th, detours through luaG_traceexec
 * (about 33 machine instructions each), and most of the instructions an
 * event runs are the trusted prelude's routing. So the dispatchers turn the
 * hook off (parley_budget_pause) and the prelude enters each plugin function
 * through parley_enter_plugin (as native.call, or from native.hear after its
 * match), which turns it on for that call only. Plugin
 * code is therefore still hooked from its first instruction, and so is every
 * coroutine it creates. Setting the hook restarts its count, so what a call
 * ran since the last firing cannot be read back; each call is charged one
 * full period instead (an upper bound), and the deadline is checked too.
 *
 * Memory: a lua_Alloc with a cap. Lua treats a NULL from a growing
 * allocation as "not enough memory" (a clean error), but it assumes shrinks
 * never fail, so they never do here. Blocks come from blocks.c, which keeps
 * a per-thread cache of small freed blocks in front of malloc.
 */
#include "parley_lua.h"
#include "blocks.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

parley_ctx *parley_ctx_of(lua_State *L) {
    return *(parley_ctx **)lua_getextraspace(L);
}

/*
 * The deadline's clock. CLOCK_MONOTONIC costs about 29 ns a read on this
 * kind of VM and an event reads it three times or more (start, after each
 * plugin call, after each pattern match); CLOCK_MONOTONIC_COARSE is a read of
 * the vDSO's data page (about 7 ns) but only ticks every jiffy (1-4 ms). A
 * deadline 16 ticks or more away is kept on the coarse clock, so it fires at
 * most one tick (1/16 of the budget) early or late; a shorter one, which a
 * plugin's config may ask for, keeps the precise clock.
 */
static uint64_t coarse_resolution_ns(void) {
    static uint64_t asked;  /* 0: not asked yet; two threads racing both ask, same answer */
    uint64_t res = __atomic_load_n(&asked, __ATOMIC_RELAXED);
    if (res == 0) {
        struct timespec ts;
        if (clock_getres(CLOCK_MONOTONIC_COARSE, &ts) != 0) res = UINT64_MAX;
        else res = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        if (res == 0) res = 1;
        __atomic_store_n(&asked, res, __ATOMIC_RELAXED);
    }
    return res;
}

static int deadline_clock_for(uint64_t wall_limit_ns) {
    uint64_t res = coarse_resolution_ns();
    return res <= wall_limit_ns / 16 ? CLOCK_MONOTONIC_COARSE : CLOCK_MONOTONIC;
}

static uint64_t clock_ns(int clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int past_deadline(parley_ctx *c) {
    return clock_ns(c->deadline_clock) >= c->deadline_ns;
}

static void hook(lua_State *L, lua_Debug *ar);

/* "file:line: " of the innermost frame with a line (the plugin's: the
 * prelude has none, and a charging native is C), or "". Level 0 is the
 * function running: in the hook, the plugin's own. */
static void plugin_where(lua_State *L, char *out, size_t size) {
    lua_Debug ar;
    out[0] = '\0';
    if (!lua_checkstack(L, 3)) return;
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Slf", &ar)) continue;
        int hear = lua_tocfunction(L, -1) == parley_hear;
        lua_pop(L, 1);
        if (ar.currentline > 0) {
            snprintf(out, size, "%s:%d: ", ar.short_src, ar.currentline);
            return;
        }
        /* In a bot.hear pattern's search no plugin line runs yet: name the
         * handler it belongs to (argument 3 of native.hear). */
        if (hear && lua_getlocal(L, &ar, 3)) {
            lua_Debug fn;
            if (!lua_isfunction(L, -1)) {
                lua_pop(L, 1);
                continue;
            }
            if (lua_getinfo(L, ">S", &fn) && fn.linedefined > 0) {   /* pops the function */
                snprintf(out, size, "%s:%d: bot.hear's pattern: ", fn.short_src, fn.linedefined);
                return;
            }
        }
    }
}

/* The budget error's text, as `trip` raises it: where the budget ran out, and which. */
void parley_trip_message(parley_ctx *c, char *out, size_t size) {
    if (c->tripped == PARLEY_TRIP_DEADLINE)
        snprintf(out, size, "%stime budget exceeded (%d ms per event)", c->trip_where, (int)(c->wall_limit_ns / 1000000ull));
    else
        snprintf(out, size, "%sinstruction budget exceeded (%lld instructions per event)", c->trip_where, (long long)c->instr_limit);
}

/* Mark the budget as spent and raise. Never returns. The first trip of an
 * event says where the plugin was; every later one repeats it. */
static void trip(lua_State *L, parley_ctx *c, int why) {
    if (!c->tripped) {
        c->tripped = why;
        plugin_where(L, c->trip_where, sizeof c->trip_where);
    }
    /* Sticky: raise again on the very next instruction of this thread. */
    lua_sethook(L, hook, LUA_MASKCOUNT, 1);
    char msg[320];
    parley_trip_message(c, msg, sizeof msg);
    lua_pushstring(L, msg);
    lua_error(L);
}

static void hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    parley_ctx *c = parley_ctx_of(L);
    if (c->tripped) trip(L, c, c->tripped);
    int count = lua_gethookcount(L);
    c->instr_left -= count;
    /* A coroutine left at count 1 by an earlier event's trip: restore the period. */
    if (count != c->hook_period) lua_sethook(L, hook, LUA_MASKCOUNT, c->hook_period);
    if (c->instr_left <= 0) trip(L, c, PARLEY_TRIP_INSTRUCTIONS);
    if (past_deadline(c)) trip(L, c, PARLEY_TRIP_DEADLINE);
}

void parley_budget_charge(lua_State *L, int64_t units) {
    parley_ctx *c = parley_ctx_of(L);
    if (c->tripped) trip(L, c, c->tripped);
    c->instr_left -= units;
    if (c->instr_left <= 0) trip(L, c, PARLEY_TRIP_INSTRUCTIONS);
    if (past_deadline(c)) trip(L, c, PARLEY_TRIP_DEADLINE);
}

void parley_budget_pause(lua_State *L) {
    lua_sethook(L, NULL, 0, 0);
}

void parley_enter_plugin(lua_State *L, int nargs) {
    parley_ctx *c = parley_ctx_of(L);
    lua_sethook(L, hook, LUA_MASKCOUNT, c->hook_period);
    /* An error (the budget's included) unwinds through here with the hook
     * still on, which keeps a tripped budget sticky for the rest of the event. */
    lua_call(L, nargs, 0);
    lua_sethook(L, NULL, 0, 0);
    parley_budget_charge(L, c->hook_period);
}

int parley_call_plugin(lua_State *L) {
    parley_enter_plugin(L, lua_gettop(L) - 1);
    return 0;
}

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    parley_ctx *c = ud;
    /* When ptr is NULL, osize is a type tag, not a size. */
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        parley_block_free(ptr, old);
        c->mem_used -= old;
        return NULL;
    }
    if (nsize > old) {
        size_t limit = c->mem_cap + (c->host_mode > 0 ? c->mem_headroom : 0);
        size_t grow = nsize - old;
        if (c->mem_used + grow > limit) {
            c->mem_failed = 1;
            return NULL;
        }
    }
    void *p = ptr ? parley_block_resize(ptr, old, nsize) : parley_block_alloc(nsize);
    if (p == NULL) {
        c->mem_failed = 1;
        return NULL;
    }
    c->mem_used = c->mem_used - old + nsize;
    return p;
}

lua_State *parley_state_alloc(parley_ctx *c) {
    lua_State *L = lua_newstate(capped_alloc, c);
    if (L == NULL) return NULL;
    *(parley_ctx **)lua_getextraspace(L) = c;
    /* Generational collection: a plugin's garbage is almost all per-event
     * (event tables, strings it builds), which young collections reclaim
     * cheaply while the heap stays near its live size (default: 20% over it).
     * The incremental default lets an idle VM sit at up to twice its live
     * size, and a process running thousands of bots pays that per bot. */
    lua_gc(L, LUA_GCGEN, 0, 0);
    /* Installed before any code runs, so every coroutine inherits it. */
    lua_sethook(L, hook, LUA_MASKCOUNT, c->hook_period);
    return L;
}

void parley_event_begin(lua_State *L, double now_epoch) {
    parley_ctx *c = parley_ctx_of(L);
    c->instr_left = c->instr_limit;
    c->deadline_clock = deadline_clock_for(c->wall_limit_ns);
    c->deadline_ns = clock_ns(c->deadline_clock) + c->wall_limit_ns;
    c->tripped = PARLEY_TRIP_NONE;
    c->host_mode = 0;
    c->mem_failed = 0;
    c->sends_used = 0;
    c->logs_used = 0;
    c->quota_reported = 0;
    c->close_depth = 0;
    c->actions.len = 0;
    c->now_epoch = now_epoch;
    c->last_error_len = 0;
    /* The hook is left as it is: entering plugin code (parley_enter_plugin)
     * sets it afresh, which also clears a trip's count of 1. */
}

size_t parley_mem_used(lua_State *L) { return parley_ctx_of(L)->mem_used; }

/* Instructions the last event used, to the hook's period (for the dashboard). */
int64_t parley_instructions_used(lua_State *L) {
    parley_ctx *c = parley_ctx_of(L);
    int64_t used = c->instr_limit - c->instr_left;
    return used < 0 ? c->instr_limit : used;
}
