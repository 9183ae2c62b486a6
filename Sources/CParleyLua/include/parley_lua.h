/*
 * The C half of Parley's Lua sandbox.
 *
 * Why this exists: Lua raises errors with longjmp, and a longjmp through a
 * Swift frame is undefined behaviour. So every call that can raise (pushes,
 * table building, lua_error itself) lives here, in C. Swift only ever calls
 * the non-raising entry points below; Swift callbacks reached from Lua run
 * inside a C trampoline and report errors through a result struct, after
 * which the C side raises with no Swift frame on the stack.
 *
 * One parley_ctx per lua_State (per plugin), reachable through the state's
 * extra space, holds the plugin's budget, memory account, quotas and the
 * buffer of actions the current event produced.
 */
#ifndef PARLEY_LUA_H
#define PARLEY_LUA_H

#include <stddef.h>
#include <stdint.h>
#include <lua.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Why a budget tripped. Sticky until parley_event_begin. */
enum {
    PARLEY_TRIP_NONE = 0,
    PARLEY_TRIP_INSTRUCTIONS = 1,
    PARLEY_TRIP_DEADLINE = 2,
};

/* Result of a protected call from the host. */
enum {
    PARLEY_OK = 0,
    PARLEY_ERR_SYNTAX = 1,
    PARLEY_ERR_RUNTIME = 2,
    PARLEY_ERR_BUDGET = 3,
    PARLEY_ERR_MEMORY = 4,
};

/*
 * Kinds of record in the action buffer (natives.c writes them, PluginVM.swift
 * reads them). A text is a u32 length (little-endian) and its bytes. A room
 * is a text, or just the length PARLEY_ROOM_HERE: the room of the message
 * being handled (see parley_ctx.event_room).
 */
enum {
    PARLEY_ACTION_SEND = 1,    /* room, text */
    PARLEY_ACTION_TYPING = 2,  /* room, on (0/1) */
    PARLEY_ACTION_LOG = 3,     /* level (0 info, 1 warn, 2 error), text */
    PARLEY_ACTION_QUOTA = 4,   /* text: which quota, reported once per event */
};
#define PARLEY_ROOM_HERE 0xFFFFFFFFu

/* A growable byte buffer owned by C (malloc), never by the Lua allocator. */
typedef struct parley_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} parley_buf;

/*
 * A Swift callback reached through the trampoline. `args`/`nargs` is the
 * call's arguments in the value encoding (parley_codec.h). The callback
 * writes its results into `out` (same encoding, a sequence of values) and
 * returns the number of results, or -1 after writing an error message into
 * `out` (raw UTF-8 text), which C then raises as a Lua error.
 */
typedef int (*parley_host_fn)(void *host, int fn_id,
                              const uint8_t *args, size_t args_len,
                              parley_buf *out);

/*
 * The last string of one message field pushed into the VM, kept alive by a
 * registry ref. Rooms and senders repeat from one line to the next, and
 * pushing the same bytes again would hash and look them up in Lua's string
 * table every time; a byte compare here is cheaper. Only short strings (the
 * ones Lua interns) are kept.
 */
#define PARLEY_FIELD_CACHE_MAX 40
typedef struct parley_field_cache {
    int ref;                         /* LUA_NOREF until the first push */
    uint8_t len;
    char bytes[PARLEY_FIELD_CACHE_MAX];
} parley_field_cache;

/* One stretch of a time zone's history: from `from` (seconds since 1970)
 * until the next span's, local time is UTC + offset. The first span starts
 * at INT64_MIN. Built by the host for os.date and os.time. */
typedef struct parley_zone_span {
    int64_t from;
    int32_t offset;
    int32_t isdst;
    char abbrev[12];                /* NUL-terminated, as Foundation names it ("GMT+2") */
} parley_zone_span;

typedef struct parley_zone {
    int32_t count;
    const parley_zone_span *spans;
} parley_zone;

typedef struct parley_ctx {
    /* ---- CPU budget (per event) ---- */
    int64_t instr_limit;      /* instructions per event */
    int64_t instr_left;       /* decremented by the hook and by C work (patterns) */
    uint64_t wall_limit_ns;   /* wall-clock budget per event */
    uint64_t deadline_ns;     /* deadline of the running event, on deadline_clock */
    int deadline_clock;       /* the clock of deadline_ns, chosen per event (budget.c) */
    int hook_period;          /* count-hook period in instructions */
    int tripped;              /* PARLEY_TRIP_*; sticky for the event */
    /* "pb.lua:3: ": the plugin's line where the budget ran out, which every
     * later raise of the trip names (a pcall that caught the first one would
     * otherwise have the error blame the line after it). */
    char trip_where[96];

    /* ---- memory ---- */
    size_t mem_used;
    size_t mem_cap;           /* plugin cap in bytes */
    size_t mem_headroom;      /* extra the host may use while building values */
    int host_mode;            /* >0 while the host builds values for the plugin */
    int mem_failed;           /* an allocation was refused during this event */

    /* ---- per-event quotas enforced in C ---- */
    int sends_per_event;
    int sends_used;
    /* The bot's outbox, per plugin: sends of this plugin still waiting for the
     * transport when the event began, and how many may wait (0 = no bound).
     * Bounds what a plugin can queue across events (timers that send forever). */
    int outbox_waiting;
    int outbox_limit;
    size_t max_message_bytes;       /* byte limit for bot.send text */
    size_t max_message_chars;       /* 0 = none; characters, checked by host when bytes exceed it */
    int check_length_id;            /* the host function that counts them (check_length) */
    int logs_per_event;
    int logs_used;
    size_t log_line_max;            /* bytes; longer lines are cut */
    uint32_t quota_reported;        /* bit per quota already reported this event */
    /* Substrings a transport forbids in user text (NUL-separated list). */
    char *forbidden;
    size_t forbidden_len;
    /* Nonzero: the transport cannot carry control characters (C0 but tab and
     * line breaks, DEL, C1), so bot.send refuses them instead of the link
     * dropping the text later. */
    int refuse_controls;
    /* The bot's rooms (NUL-separated list; NULL: any room): a send elsewhere
     * is refused when it is made, not dropped by the transport later. */
    char *rooms;
    size_t rooms_len;
    /* The command prefix and the bot's name, each followed by a NUL: a line
     * that starts with the prefix or has the name near its start could be a
     * command, which the message dispatcher is told (see calls.c). */
    char *address;
    size_t address_len;

    /* ---- the message being handled ---- */
    /* Its room's bytes while parley_dispatch_message runs (NULL otherwise):
     * a send or typing indicator to that room (nearly every reply) records
     * the room as PARLEY_ROOM_HERE, and the host hands back the room string
     * it already has instead of comparing bytes and making a new one. */
    const char *event_room;
    size_t event_room_len;

    /* ---- clock for os.time()/os.date() ---- */
    double now_epoch;               /* seconds since 1970, set by the host per event */
    const parley_zone *zone;        /* the bot's time zone (shared, never freed); NULL: UTC */

    /* ---- actions the current event produced ---- */
    parley_buf actions;

    /* ---- the Swift host ---- */
    void *host;
    parley_host_fn host_fn;
    parley_buf scratch_in;          /* encoded arguments for a host call */
    parley_buf scratch_out;         /* encoded results from a host call */

    /* ---- which event kinds the plugin handles ---- */
    /* One bit per kind (the prelude's WANT table, from Swift's EventInterest),
     * set by the prelude as handlers register (native.want). The host reads
     * it before an event and skips the VM for a kind nothing listens to: a
     * simulated user with no handlers need not build a table for every line
     * its room hears. */
    uint32_t wants;

    /* ---- libraries opened on first use (sandbox.c) ---- */
    uint32_t libs_opened;           /* one bit per lazy library already opened */

    /* ---- misc guards ---- */
    int close_depth;                /* nesting of coroutine.close/wrap cleanup */
    int dispatch_ref;               /* registry ref of the prelude's dispatcher */
    int keys_ref;                   /* registry ref of the common-string list (codec tag 7) */
    int message_ref;                /* registry ref of the prelude's message dispatcher */
    parley_field_cache room_cache;  /* the last message's room */
    parley_field_cache user_cache;  /* the last message's sender */
    /* Message of the last failed protected call (read it with
     * parley_last_error). Allocated at the first failure: most VMs never
     * fail, and 1 KiB inline in every one is 10 MiB across 10,000 bots. */
    char *last_error;
    size_t last_error_len;
} parley_ctx;

/* The ctx of a state (stored in its extra space). */
parley_ctx *parley_ctx_of(lua_State *L);

/*
 * The message of the last failed protected call and its length (0: none).
 * Never NULL: when no memory was left to keep a message, a fixed one says so.
 */
const char *parley_last_error(parley_ctx *c, size_t *len);

/*
 * Charge `units` of work done in C on behalf of the plugin (the pattern
 * matcher calls this at least every 1,000 steps). Returns only while the
 * budget holds; once it is exhausted or the deadline has passed it trips the
 * budget (sticky) and raises a Lua error, so call it only from C code running
 * inside Lua (a lua_CFunction), never with a Swift frame on the stack.
 */
void parley_budget_charge(lua_State *L, int64_t units);
/* Turns the count hook off for trusted host code (the prelude's dispatch). */
void parley_budget_pause(lua_State *L);
/* lua_CFunction `native.call(fn, ...)`: runs one plugin function with the
 * count hook on, then off again; charges one hook period per call. */
int parley_call_plugin(lua_State *L);
/* What native.call does, from C: calls the plugin function below the top
 * `nargs` values with the count hook on. Only from a lua_CFunction. */
void parley_enter_plugin(lua_State *L, int nargs);
/* lua_CFunction `native.hear(text, pattern, fn, msg)`: searches text as
 * string.find would and, on a match, calls fn(msg, captures...) as
 * native.call does. Defined in patterns.c. */
int parley_hear(lua_State *L);
/* lua_CFunction `native.pattern_problem(pattern)`: why the pattern is
 * malformed, or nil, without matching anything. Defined in patterns.c. */
int parley_pattern_problem(lua_State *L);

/*
 * Install Parley's budgeted pattern functions as find, match, gmatch and gsub
 * in the table at stack index `string_table` (the sandbox's `string` table,
 * which is also the string metatable's __index, so `s:find(...)` reaches them).
 * Defined in patterns.c.
 */
void parley_install_patterns(lua_State *L, int string_table);


/* ------------------------------------------------------------------------
 * Value encoding shared by C and Swift (see parley_codec.c).
 *
 * Values cross the C/Swift boundary as bytes, never as lua_State access from
 * Swift, so Swift never makes a call that could raise. Little endian:
 *   0x00 nil | 0x01 false | 0x02 true | 0x03 int64 | 0x04 double (IEEE bits)
 *   0x05 string: u32 length, bytes
 *   0x06 table: u32 n (array part: values for keys 1..n, in order),
 *               u32 m (then m key/value pairs; keys are strings, numbers or
 *               booleans)
 *   0x07 common string: u8 index into the VM's key list (setup `keys`),
 *               so hot field names are not hashed again for every event
 * ---------------------------------------------------------------------- */
enum {
    PARLEY_V_NIL = 0, PARLEY_V_FALSE = 1, PARLEY_V_TRUE = 2, PARLEY_V_INT = 3,
    PARLEY_V_DOUBLE = 4, PARLEY_V_STRING = 5, PARLEY_V_TABLE = 6, PARLEY_V_KEY = 7,
};

/* Deepest table nesting the codec accepts either way. */
#define PARLEY_MAX_DEPTH 32

/* Append raw bytes to a buffer (malloc-backed). Returns 0, or -1 when out of memory. */
int parley_buf_append(parley_buf *b, const void *data, size_t len);
/* Grows `b` by `len` bytes and returns where they start (for the caller to
 * fill), or NULL when memory ran out (then `b` is unchanged). */
uint8_t *parley_buf_extend(parley_buf *b, size_t len);
void parley_buf_free(parley_buf *b);

/* ------------------------------------------------------------------------
 * Entry points for the Swift host. None of them raises: each runs its work
 * inside lua_pcall and reports the outcome as a PARLEY_* status, with the
 * error text in ctx->last_error.
 * ---------------------------------------------------------------------- */

/*
 * Create a sandboxed state with a capped allocator and the CPU hook already
 * installed. `setup` is an encoded table:
 *   { prelude = <Lua source of the trusted prelude>, name = <bot name>,
 *     prefix = <command prefix>, config = <plugin config table>,
 *     seed = <integer for math.randomseed>,
 *     keys = { <common strings for codec tag 7>, ... },
 *     natives = { <name> = <host function id>, ... } }
 * The prelude returns the dispatcher and optionally a table of metatables by
 * event kind, which the host sets on decoded event tables.
 * Returns NULL only when the state itself cannot be allocated; other setup
 * failures return a state with status in *status and the message in
 * ctx->last_error (close it with parley_state_close).
 */
lua_State *parley_state_new(size_t mem_cap, void *host, parley_host_fn host_fn,
                            const uint8_t *setup, size_t setup_len, int *status);
void parley_state_close(lua_State *L);

/* Reset the per-event budget, quotas and action buffer before an event. */
void parley_event_begin(lua_State *L, double now_epoch);

/* Load plugin source (text mode only) and run its top-level chunk. */
int parley_load_plugin(lua_State *L, const char *src, size_t len, const char *chunkname);

/*
 * Deliver one event: calls the prelude's dispatcher with (kind, event,
 * drops), where `event` and `drops` are encoded values (drops may be empty:
 * nil). Must follow parley_event_begin.
 */
int parley_dispatch(lua_State *L, const char *kind, size_t kind_len,
                    const uint8_t *event, size_t event_len,
                    const uint8_t *drops, size_t drops_len);

/* A chat message's fields, read in place from the host's strings. */
typedef struct parley_message {
    const char *room; size_t room_len;
    const char *user; size_t user_len;
    const char *text; size_t text_len;
    const char *id; size_t id_len;
    double time;
    int replayed;
} parley_message;

/*
 * Deliver one message: the fields go to the prelude's message dispatcher as
 * arguments (room, user, text, id, time, replayed, drops) and Lua's own table
 * constructor builds the event, instead of the host encoding it and C
 * decoding it again. Messages are the hot path: every line a room hears
 * reaches every plugin that listens.
 */
int parley_dispatch_message(lua_State *L, const parley_message *m, const uint8_t *drops, size_t drops_len);

/* Whether `text` is a command for a bot called `name` whose commands start
 * with `prefix`: the rule bot.command reads lines by, for the host (which
 * lines the inbox sheds last, which reach the plugin that answers `help`). */
int parley_is_command(const char *prefix, size_t prefix_len, const char *name, size_t name_len,
                      const char *text, size_t text_len);

/* Bytes currently allocated by the state. */
size_t parley_mem_used(lua_State *L);
/* Bytes of free small blocks on the calling thread's lists (blocks.c). */
size_t parley_block_free_bytes(void);
int64_t parley_instructions_used(lua_State *L);

/*
 * Test support: runs the pattern conformance script (which returns passed,
 * failed, details) in a trusted state with `stock` and `ours` pattern tables.
 * Returns 0, or -1 when the script itself failed (message in details).
 */
int parley_pattern_selfcheck(const char *src, size_t len, long *passed, long *failed,
                             char *details, size_t details_len);

/*
 * Fuzz support (probe.c): one call of the pattern matcher in a throwaway
 * trusted state with an instruction budget and no wall-clock limit.
 * op: 0 find, 1 plain find, 2 match, 3 gmatch loop, 4 gsub with the template
 * `r`, 5 gsub with a function, 6 gsub with a table; max_n < 0 means no limit.
 * Returns 0 (ok), 1 (Lua error), 2 (budget spent) or -1 (no memory for a state).
 */
int parley_pattern_probe(int op, const char *s, size_t ls, const char *p, size_t lp,
                         const char *r, size_t lr, long long init, long long max_n,
                         int64_t budget);

/*
 * Compile trusted host source (the prelude) once per process into stripped
 * bytecode for parley_state_new's setup. Why: every VM otherwise compiles it
 * again and keeps its debug info (line tables, local names): about 6 KB per
 * VM, 60 MB across 10,000 simulated users. Plugin code is never loaded this
 * way; it keeps its line numbers for error messages. Returns 0, or -1 when
 * the source does not compile (the caller then hands over the text, so the
 * setup reports the syntax error).
 */
int parley_compile_chunk(const char *src, size_t len, const char *name, parley_buf *out);

/* Names host function `id` as the API call plugins make ("bot.state.set"),
 * for the arguments it refuses; once a process, before any VM is made. */
void parley_name_host_function(int id, const char *name);

/* Run a full garbage collection (after an event that failed on memory). */
void parley_collect(lua_State *L);

#ifdef __cplusplus
}
#endif

#endif
