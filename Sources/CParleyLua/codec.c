/*
 * The value codec (format in parley_lua.h).
 *
 * Encoding reads plugin tables with raw access only (lua_next, lua_rawgeti),
 * so no __index/__pairs metamethod of the plugin runs while the host copies a
 * value; depth and size are bounded, and the work is charged to the budget.
 * Decoding builds Lua values from bytes the host wrote; it runs inside a
 * protected call because every push may allocate.
 */
#include "parley_codec.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

uint8_t *parley_buf_extend(parley_buf *b, size_t len) {
    /* Allocates even for 0 bytes, so success always returns a real pointer. */
    if (len > b->cap - b->len || b->data == NULL) {
        /* Small to begin with: every VM holds three of these, and most
         * events put a few dozen bytes in them. */
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->len < len) {
            if (cap > ((size_t)1 << 40)) return NULL;
            cap *= 2;
        }
        uint8_t *p = realloc(b->data, cap);
        if (p == NULL) return NULL;
        b->data = p;
        b->cap = cap;
    }
    uint8_t *at = b->data + b->len;
    b->len += len;
    return at;
}

int parley_buf_append(parley_buf *b, const void *data, size_t len) {
    uint8_t *at = parley_buf_extend(b, len);
    if (at == NULL) return -1;
    if (len) memcpy(at, data, len);
    return 0;
}

void parley_buf_free(parley_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static int put_u8(parley_buf *b, uint8_t v) { return parley_buf_append(b, &v, 1); }

int parley_put_u32(parley_buf *b, uint32_t v) {
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return parley_buf_append(b, x, 4);
}

static int put_u64(parley_buf *b, uint64_t v) {
    uint8_t x[8];
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)(v >> (8 * i));
    return parley_buf_append(b, x, 8);
}

int parley_put_string(parley_buf *b, const char *s, size_t len) {
    if (len > UINT32_MAX) return -1;
    if (put_u8(b, PARLEY_V_STRING) || parley_put_u32(b, (uint32_t)len)) return -1;
    return parley_buf_append(b, s, len);
}

typedef struct encoder {
    lua_State *L;
    parley_buf *out;
    size_t limit;
    const char *err;
} encoder;

static int enc_fail(encoder *e, const char *why) {
    if (e->err == NULL) e->err = why;
    return -1;
}

static int enc_value(encoder *e, int idx, int depth, int as_key);

static int enc_scalar_key_ok(lua_State *L, int idx) {
    int t = lua_type(L, idx);
    return t == LUA_TSTRING || t == LUA_TNUMBER || t == LUA_TBOOLEAN;
}

static int enc_table(encoder *e, int idx, int depth) {
    lua_State *L = e->L;
    if (depth >= PARLEY_MAX_DEPTH) return enc_fail(e, "table nested too deeply (or cyclic)");
    if (!lua_checkstack(L, 4)) return enc_fail(e, "table nested too deeply");
    lua_Unsigned n = lua_rawlen(L, idx);
    /* The array part is 1..n only while those keys are all non-nil. */
    lua_Unsigned arr = 0;
    while (arr < n) {
        int t = lua_rawgeti(L, idx, (lua_Integer)(arr + 1));
        lua_pop(L, 1);
        if (t == LUA_TNIL) break;
        arr++;
    }
    /* Count the remaining pairs first. */
    uint32_t pairs = 0;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1);
        if (lua_isinteger(L, -1)) {
            lua_Integer k = lua_tointeger(L, -1);
            if (k >= 1 && (lua_Unsigned)k <= arr) continue;
        }
        if (++pairs > (1u << 24)) {
            lua_pop(L, 1);
            return enc_fail(e, "table too large");
        }
    }
    parley_budget_charge(L, (int64_t)(arr + pairs));
    if (put_u8(e->out, PARLEY_V_TABLE) || parley_put_u32(e->out, (uint32_t)arr) || parley_put_u32(e->out, pairs))
        return enc_fail(e, "out of memory");
    for (lua_Unsigned i = 1; i <= arr; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i);
        int r = enc_value(e, lua_gettop(L), depth + 1, 0);
        lua_pop(L, 1);
        if (r) return r;
    }
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        int vi = lua_gettop(L), ki = vi - 1;
        if (lua_isinteger(L, ki)) {
            lua_Integer k = lua_tointeger(L, ki);
            if (k >= 1 && (lua_Unsigned)k <= arr) { lua_pop(L, 1); continue; }
        }
        if (!enc_scalar_key_ok(L, ki)) {
            lua_pop(L, 2);
            return enc_fail(e, "table keys must be strings, numbers or booleans");
        }
        if (enc_value(e, ki, depth + 1, 1) || enc_value(e, vi, depth + 1, 0)) {
            lua_pop(L, 2);
            return -1;
        }
        lua_pop(L, 1);
    }
    return 0;
}

static int enc_value(encoder *e, int idx, int depth, int as_key) {
    lua_State *L = e->L;
    (void)as_key;
    if (e->out->len > e->limit) return enc_fail(e, "value too large");
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
    case LUA_TNONE:
        return put_u8(e->out, PARLEY_V_NIL) ? enc_fail(e, "out of memory") : 0;
    case LUA_TBOOLEAN:
        return put_u8(e->out, lua_toboolean(L, idx) ? PARLEY_V_TRUE : PARLEY_V_FALSE)
                   ? enc_fail(e, "out of memory") : 0;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
            if (put_u8(e->out, PARLEY_V_INT) || put_u64(e->out, (uint64_t)lua_tointeger(L, idx)))
                return enc_fail(e, "out of memory");
        } else {
            lua_Number d = lua_tonumber(L, idx);
            uint64_t bits;
            memcpy(&bits, &d, 8);
            if (put_u8(e->out, PARLEY_V_DOUBLE) || put_u64(e->out, bits))
                return enc_fail(e, "out of memory");
        }
        return 0;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        if (len > e->limit) return enc_fail(e, "value too large");
        parley_budget_charge(L, (int64_t)(len / 64));
        return parley_put_string(e->out, s, len) ? enc_fail(e, "out of memory") : 0;
    }
    case LUA_TTABLE:
        return enc_table(e, lua_absindex(L, idx), depth);
    case LUA_TFUNCTION:
        return enc_fail(e, "functions cannot be passed or stored here");
    default:
        return enc_fail(e, "only strings, numbers, booleans and tables can be passed or stored here");
    }
}

const char *parley_encode(lua_State *L, int idx, parley_buf *out, size_t limit) {
    encoder e = {L, out, limit, NULL};
    int r = enc_value(&e, lua_absindex(L, idx), 0, 0);
    if (r == 0 && out->len > limit) return "value too large";
    return r ? (e.err ? e.err : "cannot encode value") : NULL;
}

/* ---------------------------------------------------------------- decode */

static int get_u32(const uint8_t **p, const uint8_t *end, uint32_t *v) {
    if (end - *p < 4) return -1;
    const uint8_t *x = *p;
    *v = (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 | (uint32_t)x[3] << 24;
    *p += 4;
    return 0;
}

static int get_u64(const uint8_t **p, const uint8_t *end, uint64_t *v) {
    if (end - *p < 8) return -1;
    uint64_t r = 0;
    for (int i = 7; i >= 0; i--) r = (r << 8) | (*p)[i];
    *v = r;
    *p += 8;
    return 0;
}

/* `keys` is the stack index of the common-string list, or 0 when there is none. */
static int dec_value(lua_State *L, const uint8_t **p, const uint8_t *end, int depth, int keys) {
    if (*p >= end) return -1;
    uint8_t tag = *(*p)++;
    switch (tag) {
    case PARLEY_V_NIL: lua_pushnil(L); return 0;
    case PARLEY_V_FALSE: lua_pushboolean(L, 0); return 0;
    case PARLEY_V_TRUE: lua_pushboolean(L, 1); return 0;
    case PARLEY_V_INT: {
        uint64_t v;
        if (get_u64(p, end, &v)) return -1;
        lua_pushinteger(L, (lua_Integer)v);
        return 0;
    }
    case PARLEY_V_DOUBLE: {
        uint64_t v;
        double d;
        if (get_u64(p, end, &v)) return -1;
        memcpy(&d, &v, 8);
        lua_pushnumber(L, d);
        return 0;
    }
    case PARLEY_V_STRING: {
        uint32_t n;
        if (get_u32(p, end, &n) || (size_t)(end - *p) < n) return -1;
        lua_pushlstring(L, (const char *)*p, n);
        *p += n;
        return 0;
    }
    case PARLEY_V_KEY: {
        if (*p >= end || keys == 0) return -1;
        uint8_t idx = *(*p)++;
        if (lua_rawgeti(L, keys, (lua_Integer)idx + 1) != LUA_TSTRING) {
            lua_pop(L, 1);
            return -1;
        }
        return 0;
    }
    case PARLEY_V_TABLE: {
        uint32_t arr, pairs;
        if (depth >= PARLEY_MAX_DEPTH) return -1;
        if (get_u32(p, end, &arr) || get_u32(p, end, &pairs)) return -1;
        /* Every element takes at least one byte: refuse absurd counts early. */
        if ((uint64_t)arr + 2ull * pairs > (uint64_t)(end - *p)) return -1;
        /* Room for this table, a key and a value, and the nested table's own check. */
        if (!lua_checkstack(L, 4)) return -1;
        lua_createtable(L, (int)arr, (int)pairs);
        for (uint32_t i = 1; i <= arr; i++) {
            if (dec_value(L, p, end, depth + 1, keys)) return -1;
            lua_rawseti(L, -2, i);
        }
        for (uint32_t i = 0; i < pairs; i++) {
            if (dec_value(L, p, end, depth + 1, keys)) return -1;
            if (dec_value(L, p, end, depth + 1, keys)) return -1;
            if (lua_isnil(L, -2)) { lua_pop(L, 2); continue; }
            if (lua_type(L, -2) == LUA_TNUMBER && lua_tonumber(L, -2) != lua_tonumber(L, -2)) {
                lua_pop(L, 2); /* NaN key */
                continue;
            }
            lua_rawset(L, -3);
        }
        return 0;
    }
    default:
        return -1;
    }
}

int parley_push_decoded(lua_State *L, const uint8_t **p, const uint8_t *end) {
    int top = lua_gettop(L);
    parley_ctx *c = parley_ctx_of(L);
    int keys = 0;
    if (!lua_checkstack(L, 4)) return -1;
    if (c->keys_ref != LUA_NOREF && c->keys_ref > 0) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, c->keys_ref);
        keys = lua_gettop(L);
    }
    if (dec_value(L, p, end, 0, keys)) {
        lua_settop(L, top);
        return -1;
    }
    if (keys) lua_remove(L, keys);
    return 0;
}
