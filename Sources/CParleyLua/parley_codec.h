/* Internal to CParleyLua: codec and library helpers shared by its .c files. */
#ifndef PARLEY_CODEC_INTERNAL_H
#define PARLEY_CODEC_INTERNAL_H

#include "parley_lua.h"

/*
 * Encode the Lua value at `idx` (raw access, depth <= PARLEY_MAX_DEPTH, at
 * most `limit` bytes). Returns NULL on success or a static reason string.
 * May raise (budget), so call only from C running inside Lua.
 */
const char *parley_encode(lua_State *L, int idx, parley_buf *out, size_t limit);

/* Append a little-endian u32 (lengths in the codec and the action buffer). */
int parley_put_u32(parley_buf *b, uint32_t v);

/* print -> the bot log (sandbox.c): installs `print` calling the log function at `log_fn`. */
void parley_install_print(lua_State *L, int log_fn);

/* Append an encoded string value. */
int parley_put_string(parley_buf *b, const char *s, size_t len);

/* Decode one value from *p and push it; advances *p. -1 on malformed input. */
int parley_push_decoded(lua_State *L, const uint8_t **p, const uint8_t *end);

/* The budget error's text for a tripped event (budget.c). */
void parley_trip_message(parley_ctx *c, char *out, size_t size);

/* The bot's command prefix and name (parley_ctx.address; both empty until
 * the host set them), which the message dispatcher and bot.command read
 * lines against (natives.c). */
typedef struct {
    const char *prefix, *name;
    size_t prefix_len, name_len;
} parley_address;
parley_address parley_address_of(const parley_ctx *c);

/* Whether the `n` bytes at `s` start with the bot's command prefix (never, when it is empty). */
int parley_prefixed(parley_address a, const char *s, size_t n);

/* Whether the `len` bytes at `s` are `name`'s, in any case as string.lower sees it. */
int parley_name_at(const char *s, const char *name, size_t len);

/* Where the command is in a line that is one for this bot: "!cmd args" when
 * the line starts with the prefix (by_name 0); else "name: cmd", "name, cmd"
 * or "@name cmd", the name in any case (by_name 1). A line that merely starts
 * with the name ("max said hi") is none. The one rule for what a command is:
 * bot.command's parse, the dispatcher's first look and the host's
 * (parley_is_command) all read lines with it. */
typedef struct {
    size_t start, end;  /* the command's name: s[start..<end] */
    int by_name;
} parley_command_span;
int parley_find_command(parley_address bot, const char *s, size_t n, parley_command_span *out);

/* Budget/alloc internals (budget.c). */
lua_State *parley_state_alloc(parley_ctx *c);

/* Sandboxed standard library (sandbox.c): opens and trims the libraries. */
int parley_open_sandbox(lua_State *L);

/* Wraps the string functions whose work grows with their strings so a call
 * is charged (sandbox.c); run after the prelude took the stock ones it uses. */
void parley_charge_sized(lua_State *L);

/* Why a chunk's text may not be compiled (too many labels and gotos), or NULL (sandbox.c). */
const char *parley_chunk_problem(const char *s, size_t len);

/* The bot's native functions (natives.c): pushes a table of them. */
void parley_push_natives(lua_State *L, int natives_spec);

/* Report a quota once per event: appends a PARLEY_ACTION_QUOTA record. */
void parley_report_quota(parley_ctx *c, int bit, const char *msg);

/* Length of `s` cut at a UTF-8 character boundary to at most `max` bytes. */
size_t parley_utf8_cut(const char *s, size_t len, size_t max);

#endif
