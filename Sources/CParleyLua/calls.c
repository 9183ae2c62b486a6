/*
 * Protected entry points for the Swift host.
 *
 * Each one pushes a C function and runs it with lua_pcall under a C message
 * handler, so every raising call happens inside protection; the outcome comes
 * back as a PARLEY_* status with the error text copied into ctx->last_error.
 * Swift never sees a longjmp.
 */
#include "parley_codec.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>

#define ERROR_TEXT_MAX 1024

/*
 * Message handler: turns any error value into text without running plugin
 * metamethods (a table whose __tostring throws, nil, a huge string), cuts it
 * to 1 KiB and appends a traceback. It is C and bounded, so it is safe even
 * when it runs with hooks off (errors raised by the budget hook).
 */
static int message_handler(lua_State *L) {
    parley_ctx *c = parley_ctx_of(L);
    c->host_mode++;
    size_t len = 0;
    const char *msg = NULL;
    int t = lua_type(L, 1);
    if (t == LUA_TSTRING) {
        msg = lua_tolstring(L, 1, &len);
        len = parley_utf8_cut(msg, len, ERROR_TEXT_MAX);
        lua_pushlstring(L, msg, len);
    } else if (t == LUA_TNUMBER) {
        lua_pushvalue(L, 1);
        lua_tolstring(L, -1, &len);
    } else {
        lua_pushfstring(L, "(error object is a %s value)", lua_typename(L, t));
    }
    msg = lua_tostring(L, -1);
    luaL_traceback(L, L, msg, 1);
    c->host_mode--;
    return 1;
}

static const char error_lost[] = "an error happened and no memory was left to keep its message";

static void copy_error(parley_ctx *c, const char *s, size_t len) {
    if (c->last_error == NULL) c->last_error = malloc(ERROR_TEXT_MAX + 1);
    if (c->last_error == NULL) {
        c->last_error_len = sizeof error_lost - 1;
        return;
    }
    len = parley_utf8_cut(s, len, ERROR_TEXT_MAX);
    memcpy(c->last_error, s, len);
    c->last_error[len] = 0;
    c->last_error_len = len;
}

const char *parley_last_error(parley_ctx *c, size_t *len) {
    *len = c->last_error_len;
    if (c->last_error == NULL) return c->last_error_len ? error_lost : "";
    return c->last_error;
}

static int run_protected(lua_State *L, lua_CFunction f, void *arg, int *syntax) {
    parley_ctx *c = parley_ctx_of(L);
    int base = lua_gettop(L);
    if (!lua_checkstack(L, 8)) {
        copy_error(c, "stack overflow", 14);
        return PARLEY_ERR_RUNTIME;
    }
    lua_pushcfunction(L, message_handler);
    lua_pushcfunction(L, f);
    lua_pushlightuserdata(L, arg);
    int status = lua_pcall(L, 1, 0, base + 1);
    c->host_mode = 0;
    int result = PARLEY_OK;
    if (status != LUA_OK) {
        size_t len = 0;
        const char *s = NULL;
        if (lua_type(L, -1) == LUA_TSTRING) s = lua_tolstring(L, -1, &len);
        if (s == NULL) {
            s = status == LUA_ERRMEM ? "not enough memory" : "unknown error";
            len = strlen(s);
        }
        char tripped[320];
        if (c->tripped && (status == LUA_ERRMEM || strstr(s, "not enough memory") != NULL)) {
            /* The budget stopped the event; the memory error its last try met is not the news. */
            parley_trip_message(c, tripped, sizeof tripped);
            s = tripped;
            len = strlen(s);
        }
        copy_error(c, s, len);
        if (c->tripped) result = PARLEY_ERR_BUDGET;
        else if (syntax && *syntax) result = PARLEY_ERR_SYNTAX;
        else if (status == LUA_ERRMEM ||
                 (c->mem_failed && strstr(s, "not enough memory") != NULL))
            result = PARLEY_ERR_MEMORY;
        else result = PARLEY_ERR_RUNTIME;
    } else if (c->tripped) {
        /* The plugin caught the budget error and ran out of instructions to raise it in. */
        char s[320];
        parley_trip_message(c, s, sizeof s);
        copy_error(c, s, strlen(s));
        result = PARLEY_ERR_BUDGET;
    }
    lua_settop(L, base);
    return result;
}

/* ---------------------------------------------------------------- setup */

typedef struct setup_args {
    const uint8_t *data;
    size_t len;
} setup_args;

static int setup_fn(lua_State *L) {
    setup_args *a = lua_touserdata(L, 1);
    parley_ctx *c = parley_ctx_of(L);
    parley_open_sandbox(L);
    const uint8_t *p = a->data;
    if (parley_push_decoded(L, &p, a->data + a->len) || !lua_istable(L, -1))
        return luaL_error(L, "malformed setup table");
    int setup = lua_gettop(L);

    lua_getfield(L, setup, "keys");
    if (lua_istable(L, -1)) c->keys_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    else lua_pop(L, 1);

    lua_getfield(L, setup, "natives");
    parley_push_natives(L, -1);
    int natives = lua_gettop(L);
    /* The spec under the natives names check_length's id, for bot.send's character count. */
    lua_getfield(L, natives - 1, "check_length");
    c->check_length_id = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    lua_getfield(L, setup, "transport");
    if (lua_istable(L, -1) && lua_getfield(L, -1, "max_characters") == LUA_TNUMBER && lua_isinteger(L, -1) &&
        lua_tointeger(L, -1) > 0)
        c->max_message_chars = (size_t)lua_tointeger(L, -1);
    lua_settop(L, natives);
    lua_getfield(L, natives, "log_info");
    parley_install_print(L, lua_gettop(L));
    lua_pop(L, 1);

    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_getfield(L, setup, "seed");
    lua_call(L, 1, 0);
    lua_pop(L, 1);

    size_t plen;
    lua_getfield(L, setup, "prelude");
    const char *prelude = lua_tolstring(L, -1, &plen);
    if (prelude == NULL) return luaL_error(L, "setup has no prelude");
    /* Host-made bytecode (parley_compile_chunk) or source text; never plugin input. */
    const char *mode = plen > 0 && prelude[0] == LUA_SIGNATURE[0] ? "b" : "t";
    if (luaL_loadbufferx(L, prelude, plen, "=parley", mode) != LUA_OK) return lua_error(L);
    lua_pushvalue(L, natives);
    lua_pushvalue(L, setup);
    lua_call(L, 2, 2);
    if (lua_isfunction(L, -1)) c->message_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    else lua_pop(L, 1);
    if (!lua_isfunction(L, -1)) return luaL_error(L, "prelude did not return a dispatcher");
    c->dispatch_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    parley_charge_sized(L);
    return 0;
}

lua_State *parley_state_new(size_t mem_cap, void *host, parley_host_fn host_fn,
                            const uint8_t *setup, size_t setup_len, int *status) {
    parley_ctx *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->hook_period = 1000;
    c->instr_limit = 10000000;
    c->wall_limit_ns = 250ull * 1000000ull;
    c->mem_cap = mem_cap;
    c->mem_headroom = (size_t)4 << 20;
    c->sends_per_event = 20;
    c->max_message_bytes = 4096;
    c->logs_per_event = 100;
    c->log_line_max = 1024;
    c->host = host;
    c->host_fn = host_fn;
    c->dispatch_ref = LUA_NOREF;
    c->keys_ref = LUA_NOREF;
    c->message_ref = LUA_NOREF;
    c->room_cache.ref = LUA_NOREF;
    c->user_cache.ref = LUA_NOREF;
    lua_State *L = parley_state_alloc(c);
    if (L == NULL) {
        free(c);
        return NULL;
    }
    /* Setup is trusted code; give it a roomy budget of its own. */
    int64_t limit = c->instr_limit;
    uint64_t wall = c->wall_limit_ns;
    c->instr_limit = 100000000;
    c->wall_limit_ns = 5000ull * 1000000ull;
    parley_event_begin(L, 0);
    setup_args a = {setup, setup_len};
    *status = run_protected(L, setup_fn, &a, NULL);
    c->instr_limit = limit;
    c->wall_limit_ns = wall;
    return L;
}

void parley_state_close(lua_State *L) {
    if (L == NULL) return;
    parley_ctx *c = parley_ctx_of(L);
    lua_sethook(L, NULL, 0, 0);
    lua_close(L);
    parley_buf_free(&c->actions);
    parley_buf_free(&c->scratch_in);
    parley_buf_free(&c->scratch_out);
    free(c->forbidden);
    free(c->rooms);
    free(c->address);
    free(c->last_error);
    free(c);
}

void parley_collect(lua_State *L) {
    /* lua_gc does not raise in 5.4 (finalizers, which could, are never allowed). */
    lua_gc(L, LUA_GCCOLLECT, 0);
}

/* ---------------------------------------------------------------- load */

typedef struct load_args {
    const char *src;
    size_t len;
    const char *name;
    int syntax;
} load_args;

static int load_fn(lua_State *L) {
    load_args *a = lua_touserdata(L, 1);
    const char *problem = parley_chunk_problem(a->src, a->len);
    if (problem) {
        a->syntax = 1;
        return luaL_error(L, "%s: %s", a->name[0] == '=' || a->name[0] == '@' ? a->name + 1 : a->name, problem);
    }
    if (luaL_loadbufferx(L, a->src, a->len, a->name, "t") != LUA_OK) {
        a->syntax = 1;
        return lua_error(L);
    }
    /* The chunk is plugin code: entered like every other plugin function. */
    lua_pushcfunction(L, parley_call_plugin);
    lua_insert(L, -2);
    lua_call(L, 1, 0);
    return 0;
}

int parley_load_plugin(lua_State *L, const char *src, size_t len, const char *chunkname) {
    load_args a = {src, len, chunkname, 0};
    return run_protected(L, load_fn, &a, &a.syntax);
}

/* ---------------------------------------------------------------- dispatch */

typedef struct dispatch_args {
    const char *kind;
    size_t kind_len;
    const uint8_t *event;
    size_t event_len;
    const uint8_t *drops;
    size_t drops_len;
} dispatch_args;

static void push_encoded_or_nil(lua_State *L, const uint8_t *data, size_t len) {
    if (data == NULL || len == 0) {
        lua_pushnil(L);
        return;
    }
    const uint8_t *p = data;
    if (parley_push_decoded(L, &p, data + len)) luaL_error(L, "internal error: malformed event");
}

/*
 * With a dispatcher and its first nargs-1 arguments on the stack: pushes the
 * timer drops as the last one, leaves host mode, turns the budget hook off
 * (the prelude is trusted; it meters plugin code through native.call) and
 * calls it. Every entry into the prelude goes through here.
 */
static void call_prelude(lua_State *L, parley_ctx *c, int nargs, const uint8_t *drops, size_t drops_len) {
    push_encoded_or_nil(L, drops, drops_len);
    c->host_mode--;
    parley_budget_pause(L);
    lua_call(L, nargs, 0);
}

static int dispatch_fn(lua_State *L) {
    dispatch_args *a = lua_touserdata(L, 1);
    parley_ctx *c = parley_ctx_of(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->dispatch_ref);
    c->host_mode++;
    lua_pushlstring(L, a->kind, a->kind_len);
    push_encoded_or_nil(L, a->event, a->event_len);
    call_prelude(L, c, 3, a->drops, a->drops_len);
    return 0;
}

/* Runs a dispatch function once the VM is known to be set up. */
static int run_dispatch(lua_State *L, lua_CFunction f, void *args) {
    parley_ctx *c = parley_ctx_of(L);
    if (c->dispatch_ref == LUA_NOREF) {
        copy_error(c, "plugin VM was not set up", 24);
        return PARLEY_ERR_RUNTIME;
    }
    return run_protected(L, f, args, NULL);
}

int parley_dispatch(lua_State *L, const char *kind, size_t kind_len,
                    const uint8_t *event, size_t event_len,
                    const uint8_t *drops, size_t drops_len) {
    dispatch_args a = {kind, kind_len, event, event_len, drops, drops_len};
    return run_dispatch(L, dispatch_fn, &a);
}

typedef struct message_args {
    const parley_message *m;
    const uint8_t *drops;
    size_t drops_len;
} message_args;

/* Pushes a message field, reusing the string of the last one when the bytes are the same. */
static void push_field(lua_State *L, parley_field_cache *k, const char *s, size_t len) {
    if (k->ref != LUA_NOREF && k->len == len && memcmp(k->bytes, s, len) == 0) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, k->ref);
        return;
    }
    lua_pushlstring(L, s, len);
    if (len > PARLEY_FIELD_CACHE_MAX) return;
    lua_pushvalue(L, -1);
    if (k->ref == LUA_NOREF) k->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    else lua_rawseti(L, LUA_REGISTRYINDEX, k->ref);
    memcpy(k->bytes, s, len);
    k->len = (uint8_t)len;
}

/* Whether a line is a command for this bot: a first look in C, so that the
 * plugin that answers `help` loads the commands extension on the first such
 * line without Lua making strings for every line. */
static int is_command(const parley_ctx *c, const char *s, size_t n) {
    parley_command_span span;
    return parley_find_command(parley_address_of(c), s, n, &span);
}

static int dispatch_message_fn(lua_State *L) {
    message_args *a = lua_touserdata(L, 1);
    const parley_message *m = a->m;
    parley_ctx *c = parley_ctx_of(L);
    if (c->message_ref == LUA_NOREF) return luaL_error(L, "the prelude returned no message dispatcher");
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->message_ref);
    c->host_mode++;
    push_field(L, &c->room_cache, m->room, m->room_len);
    push_field(L, &c->user_cache, m->user, m->user_len);
    lua_pushlstring(L, m->text, m->text_len);
    lua_pushlstring(L, m->id, m->id_len);
    lua_pushnumber(L, m->time);
    lua_pushboolean(L, m->replayed);
    lua_pushboolean(L, is_command(c, m->text, m->text_len));
    call_prelude(L, c, 8, a->drops, a->drops_len);
    return 0;
}

int parley_dispatch_message(lua_State *L, const parley_message *m, const uint8_t *drops, size_t drops_len) {
    message_args a = {m, drops, drops_len};
    parley_ctx *c = parley_ctx_of(L);
    c->event_room = m->room;
    c->event_room_len = m->room_len;
    int status = run_dispatch(L, dispatch_message_fn, &a);
    c->event_room = NULL;  /* the bytes belong to the caller, and only for this call */
    return status;
}

static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud) {
    (void)L;
    return parley_buf_append((parley_buf *)ud, p, sz) ? 1 : 0;
}

int parley_compile_chunk(const char *src, size_t len, const char *name, parley_buf *out) {
    lua_State *L = luaL_newstate();
    if (L == NULL) return -1;
    int result = -1;
    if (luaL_loadbufferx(L, src, len, name, "t") == LUA_OK && lua_dump(L, dump_writer, out, 1) == 0) result = 0;
    lua_close(L);
    return result;
}
