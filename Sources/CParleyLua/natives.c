/*
 * The bot's native functions.
 *
 * Output actions (send, typing, log) are checked against their quotas here
 * and appended to the state's action buffer; the host drains that buffer
 * after the handler returns, so the hot path (a handler that sends) never
 * crosses into Swift. A failed handler's buffer is simply discarded, which is
 * what makes a failed handler have no effects.
 *
 * Queries that need the host (state, timers, history, roster) go through a
 * trampoline: arguments are encoded here, the Swift callback answers with
 * encoded results or an error message, and only after it has returned does
 * this C code push results or raise.
 */
#include "parley_codec.h"

#include <ctype.h>
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

/* Bits of ctx->quota_reported: each quota is reported once per event. */
enum { Q_SENDS = 1, Q_LENGTH = 2, Q_LOGS = 4, Q_FORBIDDEN = 8, Q_OUTBOX = 16, Q_ROOM = 32, Q_EMPTY = 64 };

/* Largest encoded argument list a host call accepts (state values are 64 KiB). */
#define HOST_ARGS_LIMIT ((size_t)2 << 20)

/* A length (u32, little-endian) and the bytes, into space already
 * reserved; returns the end of what it wrote. */
static uint8_t *put_sized(uint8_t *w, const char *s, size_t n) {
    w[0] = (uint8_t)n;
    w[1] = (uint8_t)(n >> 8);
    w[2] = (uint8_t)(n >> 16);
    w[3] = (uint8_t)(n >> 24);
    if (n) memcpy(w + 4, s, n);
    return w + 4 + n;
}

/* A room field: PARLEY_ROOM_HERE for the room of the message being handled,
 * else the room's text. room_size is what put_room will write. */
static int is_event_room(const parley_ctx *c, const char *room, size_t rl) {
    return c->event_room != NULL && rl == c->event_room_len && memcmp(room, c->event_room, rl) == 0;
}

static size_t room_size(int here, size_t rl) { return here ? 4 : 4 + rl; }

static uint8_t *put_room(uint8_t *w, int here, const char *room, size_t rl) {
    if (!here) return put_sized(w, room, rl);
    memset(w, 0xFF, 4); /* PARLEY_ROOM_HERE */
    return w + 4;
}

static int put_bytes(parley_buf *b, const char *s, size_t n) {
    uint8_t *w = parley_buf_extend(b, 4 + n);
    if (w == NULL) return -1;
    put_sized(w, s, n);
    return 0;
}

void parley_report_quota(parley_ctx *c, int bit, const char *msg) {
    if (c->quota_reported & (uint32_t)bit) return;
    c->quota_reported |= (uint32_t)bit;
    uint8_t kind = PARLEY_ACTION_QUOTA;
    (void)(parley_buf_append(&c->actions, &kind, 1) || put_bytes(&c->actions, msg, strlen(msg)));
}

static int refuse(lua_State *L, parley_ctx *c, int bit, const char *msg) {
    if (bit) parley_report_quota(c, bit, msg);
    lua_pushnil(L);
    lua_pushstring(L, msg);
    return 2;
}

size_t parley_utf8_cut(const char *s, size_t len, size_t max) {
    if (len <= max) return len;
    size_t n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    return n;
}

static const char *find_forbidden(parley_ctx *c, const char *text, size_t len) {
    const char *p = c->forbidden, *end = c->forbidden + c->forbidden_len;
    while (p && p < end) {
        size_t n = strlen(p);
        if (n && memmem(text, len, p, n)) return p;
        p += n + 1;
    }
    return NULL;
}

/* The first control character a raw terminal would act on, as a code point;
 * -1 when there is none. StreamChat.isControl's set (C0 but tab; DEL; C1,
 * which UTF-8 writes as C2 80..9F) less LF and CR, which split a text into
 * messages. */
static long find_control(const char *text, size_t len) {
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < len; i++) {
        unsigned char b = s[i];
        if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7F) return b;
        if (b == 0xC2 && i + 1 < len && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F) return s[i + 1];
    }
    return -1;
}

static int is_bot_room(const parley_ctx *c, const char *room, size_t rl) {
    if (c->rooms == NULL) return 1;
    const char *p = c->rooms, *end = c->rooms + c->rooms_len;
    while (p < end) {
        size_t n = strlen(p);
        if (n == rl && memcmp(p, room, rl) == 0) return 1;
        p += n + 1;
    }
    return 0;
}

/* Refuses a room the bot is not in, as the transport would drop the action;
 * reported as a quota breach is, since a plugin that ignores the result
 * (a reminder on a timer, say) would otherwise fail without a trace. */
static int refuse_room(lua_State *L, parley_ctx *c, const char *room, size_t rl) {
    char msg[160];
    snprintf(msg, sizeof msg, "this bot is not in room '%.*s' (its rooms are in its config)", (int)(rl > 60 ? 60 : rl), room);
    return refuse(L, c, Q_ROOM, msg);
}

static int raise_at_plugin(lua_State *L);

/* Argument `arg` as a string (a number converts, as Lua's own functions
 * take it), or an error worded as the other API functions word theirs:
 * "bot.send: the room must be a string, got nil", at the plugin's line. */
static const char *string_arg(lua_State *L, int arg, size_t *len, const char *fn, const char *what) {
    int t = lua_type(L, arg);
    if (t == LUA_TSTRING || t == LUA_TNUMBER) return lua_tolstring(L, arg, len);
    lua_pushfstring(L, "%s: %s must be a string, got %s", fn, what, luaL_typename(L, arg));
    raise_at_plugin(L);
    return NULL;
}

static int nat_trampoline(lua_State *L);

/* bot.send(room, text) -> true | nil, reason */
static int nat_send(lua_State *L) {
    parley_ctx *c = parley_ctx_of(L);
    size_t rl, tl;
    const char *room = string_arg(L, 1, &rl, "bot.send", "the room");
    const char *text = string_arg(L, 2, &tl, "bot.send", "the text");
    /* Transports that count characters (StreamChat: 300): only a text with
     * more bytes than that can be too long, so only those ask the host. */
    if (c->max_message_chars > 0 && tl > c->max_message_chars && c->check_length_id > 0) {
        lua_pushinteger(L, c->check_length_id);
        lua_pushcclosure(L, nat_trampoline, 1);
        lua_pushvalue(L, 2);
        lua_call(L, 1, 2);               /* true | nil, reason */
        if (!lua_toboolean(L, -2)) {
            lua_pushnil(L);
            lua_replace(L, -3);
            return 2;
        }
        lua_pop(L, 2);
    }
    char msg[160];
    if (c->sends_used >= c->sends_per_event) {
        snprintf(msg, sizeof msg, "send quota exceeded: at most %d sends per event", c->sends_per_event);
        return refuse(L, c, Q_SENDS, msg);
    }
    if (c->outbox_limit > 0 && c->outbox_waiting + c->sends_used >= c->outbox_limit) {
        snprintf(msg, sizeof msg, "outbox full: %d sends of this plugin are waiting for the transport (limit %d)",
                 c->outbox_waiting + c->sends_used, c->outbox_limit);
        return refuse(L, c, Q_OUTBOX, msg);
    }
    /* Blank text is no message on any chat (StreamChat drops its empty lines). Stops at the first visible byte. */
    size_t seen = 0;
    while (seen < tl && (text[seen] == ' ' || (text[seen] >= '\t' && text[seen] <= '\r'))) seen++;
    if (seen == tl) return refuse(L, c, Q_EMPTY, "empty message");
    if (tl > c->max_message_bytes) {
        snprintf(msg, sizeof msg, "message too long: %zu bytes, the limit is %zu", tl, c->max_message_bytes);
        return refuse(L, c, Q_LENGTH, msg);
    }
    const char *bad = find_forbidden(c, text, tl);
    if (bad) {
        snprintf(msg, sizeof msg, "message contains '%.40s', which this transport forbids", bad);
        return refuse(L, c, Q_FORBIDDEN, msg);
    }
    long control = c->refuse_controls ? find_control(text, tl) : -1;
    if (control >= 0) {
        snprintf(msg, sizeof msg, "message contains the control character U+%04lX, which this transport cannot carry", control);
        return refuse(L, c, Q_FORBIDDEN, msg);
    }
    /* One reservation for the whole action: this is every reply's path. */
    int here = is_event_room(c, room, rl);
    if (!here && !is_bot_room(c, room, rl)) return refuse_room(L, c, room, rl);
    uint8_t *w = parley_buf_extend(&c->actions, 1 + room_size(here, rl) + 4 + tl);
    if (w == NULL) return luaL_error(L, "not enough memory");
    *w++ = PARLEY_ACTION_SEND;
    w = put_room(w, here, room, rl);
    put_sized(w, text, tl);
    c->sends_used++;
    lua_pushboolean(L, 1);
    return 1;
}

/* bot.typing(room, on) -> true | nil, reason */
static int nat_typing(lua_State *L) {
    parley_ctx *c = parley_ctx_of(L);
    size_t rl;
    const char *room = string_arg(L, 1, &rl, "bot.typing", "the room");
    /* "yes" or 0 would be read as on: only true, false, or nothing (nil: on). */
    if (!lua_isnoneornil(L, 2) && !lua_isboolean(L, 2)) {
        lua_pushfstring(L, "bot.typing: on must be true or false, got %s", luaL_typename(L, 2));
        return raise_at_plugin(L);
    }
    uint8_t on = lua_isnoneornil(L, 2) ? 1 : (uint8_t)lua_toboolean(L, 2);
    int here = is_event_room(c, room, rl);
    if (!here && !is_bot_room(c, room, rl)) return refuse_room(L, c, room, rl);
    uint8_t *w = parley_buf_extend(&c->actions, 1 + room_size(here, rl) + 1);
    if (w == NULL) return luaL_error(L, "not enough memory");
    *w++ = PARLEY_ACTION_TYPING;
    w = put_room(w, here, room, rl);
    *w = on;
    lua_pushboolean(L, 1);
    return 1;
}

/* native.want(bits): the prelude says a handler for these kinds exists (see ctx->wants). */
static int nat_want(lua_State *L) {
    parley_ctx_of(L)->wants |= (uint32_t)luaL_checkinteger(L, 1);
    return 0;
}

/* native.setmetatable(t, mt): the prelude's own, without the sandbox's checks
 * (no __gc, no locked metatable), which cost a string lookup on every message;
 * the prelude only ever gives it its own metatables. */
static int nat_setmetatable(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* bot.log.info/warn/error(...) -> true | nil, reason. Level is upvalue 1. */
static int nat_log(lua_State *L) {
    parley_ctx *c = parley_ctx_of(L);
    uint8_t level = (uint8_t)lua_tointeger(L, lua_upvalueindex(1));
    if (c->logs_used >= c->logs_per_event) {
        char msg[96];
        snprintf(msg, sizeof msg, "log quota exceeded: at most %d log lines per event", c->logs_per_event);
        return refuse(L, c, Q_LOGS, msg);
    }
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, ' ');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
        if (luaL_bufflen(&b) > c->log_line_max) break;
    }
    luaL_pushresult(&b);
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    len = parley_utf8_cut(s, len, c->log_line_max);
    uint8_t kind = PARLEY_ACTION_LOG;
    if (parley_buf_append(&c->actions, &kind, 1) || parley_buf_append(&c->actions, &level, 1) ||
        put_bytes(&c->actions, s, len))
        return luaL_error(L, "not enough memory");
    c->logs_used++;
    lua_pushboolean(L, 1);
    return 1;
}

static int nat_host(lua_State *L);
static int nat_words(lua_State *L);
static int nat_command(lua_State *L);
static int nat_defined_at(lua_State *L);

/* Loads a prelude extension's bytecode, which the host handed the prelude
 * by name (`native.extension`). Only the prelude holds this function, and
 * it passes nothing else to it: plugin code can neither reach it nor feed it.
 * Returns the chunk and the natives only extensions use, made here rather
 * than kept in every VM for the few that load an extension. */
static int nat_load_chunk(lua_State *L) {
    size_t len;
    const char *code = lua_tolstring(L, 1, &len);
    if (code == NULL) return luaL_error(L, "load_chunk: expected bytecode");
    if (luaL_loadbufferx(L, code, len, "=parley", "b") != LUA_OK) return lua_error(L);
    lua_createtable(L, 0, 5);
    lua_pushcfunction(L, nat_host);
    lua_setfield(L, -2, "host");
    lua_pushcfunction(L, nat_words);
    lua_setfield(L, -2, "words");
    lua_pushcfunction(L, nat_command);
    lua_setfield(L, -2, "command");
    lua_pushcfunction(L, nat_defined_at);
    lua_setfield(L, -2, "defined_at");
    lua_pushinteger(L, 1);  /* the level of log_warn */
    lua_pushcclosure(L, nat_log, 1);
    lua_setfield(L, -2, "log_warn");
    return 2;
}

/* words(text) -> { raw = text, word, word, ... }: bot.command's arguments,
 * split on Lua's %s in one pass. gmatch costs a closure, a match and a call
 * a word; this runs once a command, in time linear in the text. */
static int nat_words(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    lua_createtable(L, 4, 1);
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "raw");
    lua_Integer k = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && isspace((unsigned char)s[i])) i++;
        size_t start = i;
        while (i < n && !isspace((unsigned char)s[i])) i++;
        if (i > start) {
            lua_pushlstring(L, s + start, i - start);
            lua_rawseti(L, -2, ++k);
        }
    }
    return 1;
}

parley_address parley_address_of(const parley_ctx *c) {
    parley_address a = {"", "", 0, 0};
    if (c->address == NULL) return a;
    a.prefix = c->address;
    a.prefix_len = strlen(a.prefix);
    a.name = a.prefix + a.prefix_len + 1;
    a.name_len = c->address_len - a.prefix_len - 2;  /* "prefix\0name\0" */
    return a;
}

int parley_prefixed(parley_address a, const char *s, size_t n) {
    return a.prefix_len > 0 && n >= a.prefix_len && memcmp(s, a.prefix, a.prefix_len) == 0;
}

int parley_name_at(const char *s, const char *name, size_t len) {
    for (size_t k = 0; k < len; k++)
        if (tolower((unsigned char)s[k]) != tolower((unsigned char)name[k])) return 0;
    return 1;
}

int parley_find_command(parley_address bot, const char *s, size_t n, parley_command_span *out) {
    size_t i;  /* where the command's name starts */
    int by_name = 0;
    if (parley_prefixed(bot, s, n)) {
        i = bot.prefix_len;
    } else {
        by_name = 1;
        size_t t = (n > 0 && s[0] == '@') ? 1 : 0;
        if (bot.name_len == 0 || n - t < bot.name_len || !parley_name_at(s + t, bot.name, bot.name_len)) return 0;
        size_t a = t + bot.name_len;  /* just after the name */
        if (a < n && (s[a] == ':' || s[a] == ',')) {
            a++;
        } else if (t == 1 && a < n && isspace((unsigned char)s[a])) {
            a++;  /* "@name cmd": at least one blank */
        } else {
            return 0;
        }
        while (a < n && isspace((unsigned char)s[a])) a++;
        if (a == n) return 0;
        i = a;
    }
    size_t e = i;
    while (e < n && !isspace((unsigned char)s[e])) e++;
    if (e == i) return 0;
    out->start = i;
    out->end = e;
    out->by_name = by_name;
    return 1;
}

int parley_is_command(const char *prefix, size_t prefix_len, const char *name, size_t name_len,
                      const char *text, size_t text_len) {
    parley_address bot = {prefix, name, prefix_len, name_len};
    parley_command_span span;
    return parley_find_command(bot, text, text_len, &span);
}

/* command(text) -> cmd, args, by_name, or nothing: `text` read as a command
 * for this bot (parley_find_command), in one call (it runs for every line a
 * commands plugin hears). `cmd` is lower-cased; `args` is the rest without
 * the blanks (Lua's %s) around it. */
static int nat_command(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    parley_command_span span;
    if (!parley_find_command(parley_address_of(parley_ctx_of(L)), s, n, &span)) return 0;
    size_t i = span.start, e = span.end;
    luaL_Buffer b;
    char *w = luaL_buffinitsize(L, &b, e - i);
    for (size_t k = i; k < e; k++) w[k - i] = (char)tolower((unsigned char)s[k]);
    luaL_pushresultsize(&b, e - i);
    size_t from = e, to = n;
    while (from < to && isspace((unsigned char)s[from])) from++;
    while (to > from && isspace((unsigned char)s[to - 1])) to--;
    lua_pushlstring(L, s + from, to - from);
    lua_pushboolean(L, span.by_name);
    return 3;
}

/* A host function's closure by id, for the prelude's extensions: their host
 * functions are not in the natives table, so a VM that never loads an
 * extension holds neither their closures nor their names. */
static int nat_host(lua_State *L) {
    lua_Integer id = lua_tointeger(L, 1);
    lua_pushinteger(L, id);
    lua_pushcclosure(L, nat_trampoline, 1);
    return 1;
}

/* Raises `msg` (on the stack top) as the error of the plugin's call that
 * failed, prefixed "greeter.lua:12: ": the first frame with a line number
 * (the prelude is compiled without them, and host functions have none).
 * A plugin's `return f(...)` hands its frame to f, and Lua keeps no line for
 * it: the text then says so, as the line given is where that chain began. */
static int raise_at_plugin(lua_State *L) {
    lua_Debug ar;
    /* Only the API function the plugin called tells: was it tail-called,
     * in place of the plugin's frame? The prelude's own tail calls between
     * its helpers leave the plugin's frame where it is. That function is the
     * one just above the plugin's frame, or, when a tail call took the
     * plugin's frame, just above the C function that entered the plugin. */
    int tail = 0, boundary_tail = -1, found = 0;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Slt", &ar)) continue;
        if (ar.currentline > 0) {
            lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
            found = 1;
            break;
        }
        if (*ar.what == 'C' && boundary_tail < 0) boundary_tail = tail;
        tail = ar.istailcall;
    }
    if (!found) tail = boundary_tail > 0;
    if (!found) lua_pushliteral(L, "");
    lua_insert(L, -2);
    if (tail) {
        lua_pushstring(L, found ? " (reached through a tail call, `return f(...)`, whose own line Lua does not keep: this is the line of the call that led to it)"
                                : " (in a tail call, `return f(...)`, whose line Lua does not keep)");
        lua_concat(L, 3);
    } else {
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/* native.raise(text): the prelude's own checks fail as a host function does. */
static int nat_raise(lua_State *L) {
    luaL_checkstring(L, 1);
    lua_settop(L, 1);
    return raise_at_plugin(L);
}

/* native.defined_at(fn): "greeter.lua:12", where a plugin function was
 * written, for errors found after it returned (a webhook's answer). */
static int nat_defined_at(lua_State *L) {
    lua_Debug ar;
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_pushvalue(L, 1);
    if (lua_getinfo(L, ">S", &ar) && ar.linedefined > 0)
        lua_pushfstring(L, "%s:%d", ar.short_src, ar.linedefined);
    else
        lua_pushliteral(L, "?");
    return 1;
}

/* Host functions' API names by id ("bot.state.set"), given once a process
 * before any VM is made: an argument the host cannot take is refused in the
 * name of the call the plugin made. */
#define HOST_NAMES 64
static const char *host_names[HOST_NAMES];

void parley_name_host_function(int id, const char *name) {
    if (id > 0 && id < HOST_NAMES && host_names[id] == NULL) host_names[id] = strdup(name);
}

/* The id of the host function whose API name is `name`, or 0. */
static int host_id(const char *name) {
    for (int id = 1; id < HOST_NAMES; id++)
        if (host_names[id] != NULL && strcmp(host_names[id], name) == 0) return id;
    return 0;
}

static int nat_trampoline(lua_State *L);

/* api_table(bot, key): bot.state, bot.json or bot.log, made and stored in
 * `bot` the first time a plugin reaches for it; nothing for any other key.
 * Made here, not in the prelude, so a VM that never uses them holds neither
 * the tables, their closures nor their field names. */
static int nat_api_table(lua_State *L) {
    static const char *const state[] = {"get", "set", "keys", NULL};
    static const char *const json[] = {"encode", "decode", NULL};
    static const char *const levels[] = {"info", "warn", "error", NULL};  /* nat_log's levels, in order */
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
    const char *const *fields = strcmp(k, "state") == 0 ? state : strcmp(k, "json") == 0 ? json
                              : strcmp(k, "log") == 0 ? levels : NULL;
    if (fields == NULL) return 0;
    lua_createtable(L, 0, 3);
    for (int i = 0; fields[i] != NULL; i++) {
        if (fields == levels) {
            lua_pushinteger(L, i);
            lua_pushcclosure(L, nat_log, 1);
        } else {
            char name[32];
            snprintf(name, sizeof name, "bot.%s.%s", k, fields[i]);
            int id = host_id(name);
            if (id == 0) return luaL_error(L, "internal error: no host function %s", name);
            lua_pushinteger(L, id);
            lua_pushcclosure(L, nat_trampoline, 1);
        }
        lua_setfield(L, -2, fields[i]);
    }
    lua_pushvalue(L, 2);
    lua_pushvalue(L, -2);
    lua_rawset(L, 1);
    return 1;
}

/* A host function: upvalue 1 is its id. */
static int nat_trampoline(lua_State *L) {
    parley_ctx *c = parley_ctx_of(L);
    int id = (int)lua_tointeger(L, lua_upvalueindex(1));
    int n = lua_gettop(L);
    c->scratch_in.len = 0;
    for (int i = 1; i <= n; i++) {
        const char *err = parley_encode(L, i, &c->scratch_in, HOST_ARGS_LIMIT);
        if (err) {
            const char *who = id > 0 && id < HOST_NAMES ? host_names[id] : NULL;
            lua_pushnil(L);
            if (who) lua_pushfstring(L, "%s: %s", who, err);
            else lua_pushstring(L, err);
            return 2;
        }
    }
    c->scratch_out.len = 0;
    /* The Swift frame lives only inside this call; nothing below raises until it returns. */
    int r = c->host_fn(c->host, id, c->scratch_in.data, c->scratch_in.len, &c->scratch_out);
    if (r < 0) {
        lua_pushlstring(L, (const char *)c->scratch_out.data, c->scratch_out.len);
        return raise_at_plugin(L);
    }
    if (!lua_checkstack(L, r + 2)) return luaL_error(L, "too many results");
    /* Results cost the budget by size, as arguments do (bot.json.decode can
     * hand back a megabyte of values). No Swift frame is live here. */
    parley_budget_charge(L, (int64_t)(c->scratch_out.len / 64));
    const uint8_t *p = c->scratch_out.data, *end = p + c->scratch_out.len;
    c->host_mode++;
    for (int i = 0; i < r; i++) {
        if (parley_push_decoded(L, &p, end)) {
            c->host_mode--;
            return luaL_error(L, "internal error: malformed result from host function %d", id);
        }
    }
    c->host_mode--;
    return r;
}

void parley_push_natives(lua_State *L, int spec) {
    spec = lua_absindex(L, spec);
    lua_newtable(L);
    int t = lua_gettop(L);
    lua_pushcfunction(L, nat_send);
    lua_setfield(L, t, "send");
    lua_pushcfunction(L, nat_typing);
    lua_setfield(L, t, "typing");
    lua_pushcfunction(L, nat_want);
    lua_setfield(L, t, "want");
    lua_pushcfunction(L, parley_call_plugin);
    lua_setfield(L, t, "call");
    lua_pushcfunction(L, parley_hear);
    lua_setfield(L, t, "hear");
    lua_pushcfunction(L, parley_pattern_problem);
    lua_setfield(L, t, "pattern_problem");
    lua_pushcfunction(L, nat_setmetatable);
    lua_setfield(L, t, "setmetatable");
    lua_pushcfunction(L, nat_load_chunk);
    lua_setfield(L, t, "load_chunk");
    lua_pushcfunction(L, nat_api_table);
    lua_setfield(L, t, "api_table");
    lua_pushcfunction(L, nat_raise);
    lua_setfield(L, t, "raise");
    /* print writes at info, the prelude warns; bot.log's own come from api_table. */
    static const char *const levels[] = {"log_info", "log_warn"};
    for (int i = 0; i < 2; i++) {
        lua_pushinteger(L, i);
        lua_pushcclosure(L, nat_log, 1);
        lua_setfield(L, t, levels[i]);
    }
    if (lua_type(L, spec) == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, spec) != 0) {
            if (lua_type(L, -2) == LUA_TSTRING && lua_isinteger(L, -1)) {
                lua_pushvalue(L, -2);
                lua_insert(L, -2);                       /* key, key, id */
                lua_pushcclosure(L, nat_trampoline, 1);  /* key, key, fn */
                lua_rawset(L, t);                        /* key */
            } else {
                lua_pop(L, 1);
            }
        }
    }
}
