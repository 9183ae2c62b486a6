/*
 * Parley's Lua 5.4 string patterns: string.find, match, gmatch and gsub.
 *
 * Why not just use stock lstrlib? Stock Lua runs its matcher in C and never
 * reaches the count hook, so a single call such as
 *     string.find(("a"):rep(100), ("a-"):rep(5) .. "b")
 * backtracks for seconds with nothing able to stop it. This matcher has the
 * same semantics (Lua 5.4.4, reference manual 6.4.1) but meters its own work
 * and reports it through parley_budget_charge(), which raises a Lua error
 * once the plugin's budget is spent.
 *
 * Rules this file lives by:
 *   - parley_budget_charge() and most Lua API calls can longjmp, so nothing
 *     here ever owns malloc'd memory: matcher state is on the C stack or in a
 *     Lua userdata, results go through luaL_Buffer.
 *   - No mutable globals: several lua_States run on different threads.
 *   - C recursion is bounded by PAT_MAX_DEPTH, exactly where stock bounds it,
 *     so "pattern too complex" fires for the same patterns.
 *
 * Metering: a "step" is one attempt to match one pattern item at one subject
 * position (backtracking re-attempts count again). Each step costs one unit.
 * Tight byte loops (memchr, memcmp, copying into a gsub result, the %b scan,
 * re-reading a long set) are far cheaper per byte than a step, so they are
 * charged per run of bytes, after the run. Units are gathered in a local
 * countdown and handed over every METER_BATCH units and when the call ends,
 * so the hot path is one decrement and one compare, and what is charged is
 * what was done (measured: 1-15 ns of work per unit for every shape tried,
 * including backtracking blow-ups, long sets and long %b scans). A greedy
 * run of '.', a class or a literal byte is scanned in a tight loop and still
 * charged a step a byte, so there a unit stands for less work than
 * elsewhere (the charge errs high).
 *
 * Speed: besides following stock's algorithm, the scanning loops skip
 * subject positions where the pattern's first item cannot match (see
 * "Skipping ahead"), which is where most of a failing search's time goes;
 * a run of unquantified literal bytes is compared with one memcmp rather
 * than item by item (pm_match); and a greedy item's longest run is scanned
 * without a call per byte (expand_greedy).
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "parley_lua.h"

#define PAT_ESC '%'

/* Same limits as stock, so the same patterns fail the same way. */
#ifdef LUA_MAXCAPTURES
#define PAT_MAX_CAPTURES LUA_MAXCAPTURES
#else
#define PAT_MAX_CAPTURES 32
#endif
#define PAT_MAX_DEPTH 200

/* Special capture lengths: still open, or a position capture "()". */
#define CAP_OPEN ((ptrdiff_t)-1)
#define CAP_POSITION ((ptrdiff_t)-2)

/* Units gathered before reporting; well under the 1,000-step contract. */
#define METER_BATCH 512
/* Bulk byte operations (memchr/memcmp/memcpy): one unit per 16 bytes. */
#define METER_BULK_SHIFT 4
/* Byte-at-a-time scans with a branch per byte (%b): one unit per 4 bytes. */
#define METER_SCAN_SHIFT 2
/*
 * A set item "[...]" is re-read on every test, so its cost per step grows
 * with its length. Sets up to this many bytes count as a plain step; longer
 * ones are also charged per byte, or a pattern with a megabyte-long set
 * would do a megabyte of work per unit charged.
 */
#define METER_SET_FREE 32

#define uchar(c) ((unsigned char)(c))

/* ------------------------------------------------------------------------ */
/* Metering                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Work not yet reported. `credit` counts down from METER_BATCH; reporting
 * happens when it reaches zero and once more when the call finishes, so the
 * total charged equals the work done.
 */
typedef struct pat_meter {
    lua_State *L;
    int64_t credit;
} pat_meter;

static void meter_init(pat_meter *m, lua_State *L) {
    m->L = L;
    m->credit = METER_BATCH;
}

/* Report everything used since the last report. May raise (budget spent);
 * the credit is reset first so a caught error leaves a consistent meter. */
static void meter_settle(pat_meter *m) {
    int64_t used = METER_BATCH - m->credit;
    m->credit = METER_BATCH;
    if (used > 0)
        parley_budget_charge(m->L, used);
}

/* One matcher step: the hot path, kept to a decrement and a compare. */
static inline void meter_step(pat_meter *m) {
    if (--m->credit <= 0)
        meter_settle(m);
}

/* A run of `n` bytes, 2^shift per unit, plus one for the call. (A shift,
 * not a division: a 64-bit divide costs more than the short scans it meters.) */
static inline void meter_bytes(pat_meter *m, size_t n, unsigned shift) {
    m->credit -= 1 + (int64_t)(n >> shift);
    if (m->credit <= 0)
        meter_settle(m);
}

/* ------------------------------------------------------------------------ */
/* Matcher state                                                             */
/* ------------------------------------------------------------------------ */

typedef struct pat_capture {
    const char *start;
    ptrdiff_t len;      /* byte length, CAP_OPEN or CAP_POSITION */
} pat_capture;

typedef struct pat_state {
    const char *src;        /* subject */
    const char *src_end;
    const char *pat_end;    /* patterns may hold NULs: always bound by this */
    int depth_left;         /* recursion still allowed in this attempt */
    int level;              /* captures opened so far */
    pat_meter meter;
    pat_capture cap[PAT_MAX_CAPTURES];
} pat_state;

static void state_init(pat_state *ms, lua_State *L, const char *s, size_t ls,
                       const char *p, size_t lp) {
    ms->src = s;
    ms->src_end = s + ls;
    ms->pat_end = p + lp;
    ms->depth_left = PAT_MAX_DEPTH;
    ms->level = 0;
    meter_init(&ms->meter, L);
}

/* Each attempt at a new subject position starts with no captures and the
 * full recursion allowance (an earlier attempt may have been cut short by
 * an error raised mid-match, e.g. in a gmatch iterator that was resumed). */
static void attempt_reset(pat_state *ms) {
    ms->level = 0;
    ms->depth_left = PAT_MAX_DEPTH;
}

#define STATE_L(ms) ((ms)->meter.L)

/* ------------------------------------------------------------------------ */
/* Single items: classes, sets, literals                                    */
/* ------------------------------------------------------------------------ */

/*
 * Does byte c belong to class letter cl (%a, %D, ...)? A non-letter after
 * '%' stands for itself. Uses <ctype.h> like stock, so the C locale rules
 * apply. Stock folds the letter with tolower()/isupper(); switching on both
 * cases directly gives the same answer (class letters are ASCII) without two
 * libc calls per test, which is most of the cost of a class item.
 */
static inline int class_matches(int c, int cl) {
    switch (cl) {
    case 'a': return isalpha(c) != 0;
    case 'A': return !isalpha(c);
    case 'c': return iscntrl(c) != 0;
    case 'C': return !iscntrl(c);
    case 'd': return isdigit(c) != 0;
    case 'D': return !isdigit(c);
    case 'g': return isgraph(c) != 0;
    case 'G': return !isgraph(c);
    case 'l': return islower(c) != 0;
    case 'L': return !islower(c);
    case 'p': return ispunct(c) != 0;
    case 'P': return !ispunct(c);
    case 's': return isspace(c) != 0;
    case 'S': return !isspace(c);
    case 'u': return isupper(c) != 0;
    case 'U': return !isupper(c);
    case 'w': return isalnum(c) != 0;
    case 'W': return !isalnum(c);
    case 'x': return isxdigit(c) != 0;
    case 'X': return !isxdigit(c);
    case 'z': return c == 0;            /* deprecated, but 5.4 still has it */
    case 'Z': return c != 0;
    default: return cl == c;
    }
}

#ifdef __GLIBC__
/* glibc's <ctype.h> class bit for a lower-case class letter, or 0 for
 * anything else (%z, an escaped byte). */
static unsigned short ctype_bit(int cl) {
    switch (cl) {
    case 'a': return _ISalpha;
    case 'c': return _IScntrl;
    case 'd': return _ISdigit;
    case 'g': return _ISgraph;
    case 'l': return _ISlower;
    case 'p': return _ISpunct;
    case 's': return _ISspace;
    case 'u': return _ISupper;
    case 'w': return _ISalnum;
    case 'x': return _ISxdigit;
    default: return 0;
    }
}
#endif

/*
 * Does byte c belong to the set whose '[' is at p and whose closing ']' is
 * at close? item_end() has already validated the set's extent, so every
 * read here stays inside the pattern.
 */
static int set_matches(int c, const char *p, const char *close) {
    int member = 1;
    if (p[1] == '^') {
        member = 0;
        p++;
    }
    while (++p < close) {
        if (*p == PAT_ESC) {
            p++;
            if (class_matches(c, uchar(*p)))
                return member;
        } else if (p[1] == '-' && p + 2 < close) {
            /* A range; a '-' first or last in the set is a literal. */
            if (uchar(p[0]) <= c && c <= uchar(p[2]))
                return member;
            p += 2;
        } else if (uchar(*p) == c) {
            return member;
        }
    }
    return !member;
}

/*
 * The end of the single item starting at p (where its quantifier, if any,
 * would be). This is also where malformed items are diagnosed, so the
 * errors appear the moment the matcher reaches them, as in stock.
 */
static const char *item_end(pat_state *ms, const char *p) {
    char c = *p++;
    if (c == PAT_ESC) {
        if (p >= ms->pat_end)
            luaL_error(STATE_L(ms), "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        if (p < ms->pat_end && *p == '^')
            p++;
        /* The first member is taken unconditionally, which is why "[]]"
         * and "[^]]" are sets containing ']'. */
        do {
            if (p >= ms->pat_end)
                luaL_error(STATE_L(ms), "malformed pattern (missing ']')");
            c = *p++;
            if (c == PAT_ESC && p < ms->pat_end)
                p++;    /* an escaped char, e.g. "%]", never closes */
        } while (p >= ms->pat_end || *p != ']');
        return p + 1;
    }
    return p;
}

/* Does the item [p, ep) match the subject byte at s? One metered step. */
static inline int item_matches(pat_state *ms, const char *s, const char *p,
                               const char *ep) {
    int c;
    meter_step(&ms->meter);
    if (s >= ms->src_end)
        return 0;
    c = uchar(*s);
    switch (*p) {
    case '.': return 1;
    case PAT_ESC: return class_matches(c, uchar(p[1]));
    case '[':
        if (ep - p > METER_SET_FREE)
            meter_bytes(&ms->meter, (size_t)(ep - p), METER_SCAN_SHIFT);
        return set_matches(c, p, ep - 1);
    default: return uchar(*p) == c;
    }
}

/* ------------------------------------------------------------------------ */
/* The backtracking matcher                                                 */
/* ------------------------------------------------------------------------ */

static const char *pm_match(pat_state *ms, const char *s, const char *p);

/* Bytes that make a pattern more than plain text. (')' and ']' only mean
 * something after '(' or '[', so they are not in the list.) */
static const unsigned char magic_byte[256] = {
    ['^'] = 1, ['$'] = 1, ['*'] = 1, ['+'] = 1, ['?'] = 1,
    ['.'] = 1, ['('] = 1, ['['] = 1, ['%'] = 1, ['-'] = 1,
};

/* Does byte c end a run of literals in pm_match? Every magic byte does, and
 * ')' too, which closes a capture there. ('^' and '$' are literals in the
 * middle of a pattern; they end a run anyway and take the item path, which
 * knows.) */
static inline int ends_run(int c) {
    return magic_byte[c] || c == ')';
}

static const unsigned char quantifier[256] = {
    ['*'] = 1, ['+'] = 1, ['?'] = 1, ['-'] = 1,
};

/* %bxy at s, with p pointing at x: the shortest balanced run, or NULL. */
static const char *match_balance(pat_state *ms, const char *s, const char *p) {
    const char *from = s;
    int open, close, depth = 1;
    if (ms->pat_end - p < 2)
        luaL_error(STATE_L(ms), "malformed pattern (missing arguments to '%%b')");
    if (s >= ms->src_end || *s != *p)
        return NULL;
    open = *p;
    close = p[1];
    while (++s < ms->src_end) {
        if (*s == close) {
            if (--depth == 0) {
                meter_bytes(&ms->meter, (size_t)(s - from), METER_SCAN_SHIFT);
                return s + 1;
            }
        } else if (*s == open) {
            depth++;
        }
    }
    meter_bytes(&ms->meter, (size_t)(s - from), METER_SCAN_SHIFT);
    return NULL;
}

/* Validates a back-reference digit; returns the capture's index. */
static int capture_index(pat_state *ms, int digit) {
    int i = digit - '1';
    if (i < 0 || i >= ms->level || ms->cap[i].len == CAP_OPEN)
        luaL_error(STATE_L(ms), "invalid capture index %%%d", i + 1);
    return i;
}

/* %1-%9 inside a pattern: the captured text again, or NULL. A position
 * capture has no text and never matches (as in stock). */
static const char *match_backref(pat_state *ms, const char *s, int digit) {
    int i = capture_index(ms, digit);
    ptrdiff_t len = ms->cap[i].len;
    if (len < 0 || ms->src_end - s < len)
        return NULL;
    meter_bytes(&ms->meter, (size_t)len, METER_BULK_SHIFT);
    if (memcmp(ms->cap[i].start, s, (size_t)len) != 0)
        return NULL;
    return s + len;
}

/* '(' or '()': open capture `kind` at s, match the rest, and forget the
 * capture again if the rest fails so a backtrack sees the old level. */
static const char *open_capture(pat_state *ms, const char *s, const char *p,
                                ptrdiff_t kind) {
    const char *res;
    int at = ms->level;
    if (at >= PAT_MAX_CAPTURES)
        luaL_error(STATE_L(ms), "too many captures");
    ms->cap[at].start = s;
    ms->cap[at].len = kind;
    ms->level = at + 1;
    res = pm_match(ms, s, p);
    if (res == NULL)
        ms->level--;
    return res;
}

/* ')': close the innermost open capture at s; reopen it on failure. */
static const char *close_capture(pat_state *ms, const char *s, const char *p) {
    const char *res;
    int i = ms->level - 1;
    while (i >= 0 && ms->cap[i].len != CAP_OPEN)
        i--;
    if (i < 0)
        luaL_error(STATE_L(ms), "invalid pattern capture");
    ms->cap[i].len = s - ms->cap[i].start;
    res = pm_match(ms, s, p);
    if (res == NULL)
        ms->cap[i].len = CAP_OPEN;
    return res;
}

/* x* / x+ (after its first match): take as many as possible, then give
 * them back one at a time until the rest of the pattern matches. */
static const char *expand_greedy(pat_state *ms, const char *s, const char *p,
                                 const char *ep) {
    ptrdiff_t n = 0, avail = ms->src_end - s;
    /* The longest run first. For '.', a class and a literal byte the test is
     * hoisted out of item_matches into a tight loop; the run is charged as
     * the n + 1 steps (n matches, one miss) item_matches would have charged.
     * The loop is bounded by the subject, so charging after it is safe. */
    switch (*p) {
    case '.':
        n = avail;
        break;
    case PAT_ESC: {
        int cl = uchar(p[1]);
#ifdef __GLIBC__
        /* <ctype.h>'s own table and bit, read once for the run instead of
         * a call and a switch per byte (isalnum(c) is this very lookup). */
        unsigned short bit = ctype_bit(cl | 0x20);
        if (bit != 0) {
            const unsigned short *table = *__ctype_b_loc();
            int want = (cl & 0x20) ? bit : 0;     /* upper-case letter: the complement */
            while (n < avail && (table[uchar(s[n])] & bit) == want)
                n++;
            break;
        }
#endif
        while (n < avail && class_matches(uchar(s[n]), cl))
            n++;
        break;
    }
    case '[':
        while (item_matches(ms, s + n, p, ep))
            n++;
        goto expanded;
    default: {
        int c = uchar(*p);
        while (n < avail && uchar(s[n]) == c)
            n++;
        break;
    }
    }
    ms->meter.credit -= n + 1;
    if (ms->meter.credit <= 0)
        meter_settle(&ms->meter);
expanded:
    for (; n >= 0; n--) {
        const char *res = pm_match(ms, s + n, ep + 1);
        if (res != NULL)
            return res;
    }
    return NULL;
}

/* x-: try the rest first, taking one more x only when the rest fails. */
static const char *expand_lazy(pat_state *ms, const char *s, const char *p,
                               const char *ep) {
    for (;;) {
        const char *res = pm_match(ms, s, ep + 1);
        if (res != NULL)
            return res;
        if (!item_matches(ms, s, p, ep))
            return NULL;
        s++;
    }
}

/*
 * Match pattern p against the subject at s; returns the end of the match
 * or NULL. Where nothing is left to backtrack to (a plain item, %b, %f, a
 * back-reference) the rest of the pattern is matched by looping ("goto
 * next"); captures and the quantifiers ? * + - must be able to undo, so
 * they recurse, and every recursion spends one unit of depth_left. Which
 * constructs recurse mirrors stock, so the depth limit ("pattern too
 * complex") trips on exactly the same patterns and subjects.
 */
static const char *pm_match(pat_state *ms, const char *s, const char *p) {
    if (ms->depth_left-- == 0)
        luaL_error(STATE_L(ms), "pattern too complex");
    meter_step(&ms->meter);
next:
    if (p == ms->pat_end)
        goto out;
    switch (*p) {
    case '(':
        if (p + 1 < ms->pat_end && p[1] == ')')
            s = open_capture(ms, s, p + 2, CAP_POSITION);
        else
            s = open_capture(ms, s, p + 1, CAP_OPEN);
        goto out;
    case ')':
        s = close_capture(ms, s, p + 1);
        goto out;
    case '$':
        if (p + 1 != ms->pat_end)
            break;      /* not last: an ordinary character */
        if (s != ms->src_end)
            s = NULL;
        goto out;
    case PAT_ESC: {
        int what = (p + 1 < ms->pat_end) ? uchar(p[1]) : -1;
        if (what == 'b') {
            s = match_balance(ms, s, p + 2);
            if (s != NULL) {
                p += 4;
                goto next;
            }
            goto out;
        }
        if (what == 'f') {
            const char *set = p + 2, *ep;
            int before, here;
            if (set >= ms->pat_end || *set != '[')
                luaL_error(STATE_L(ms), "missing '[' after '%%f' in pattern");
            ep = item_end(ms, set);
            /* Outside the subject counts as '\0' on both sides. */
            before = (s == ms->src) ? 0 : uchar(s[-1]);
            here = (s < ms->src_end) ? uchar(*s) : 0;
            meter_step(&ms->meter);
            if (ep - set > METER_SET_FREE)
                meter_bytes(&ms->meter, 2 * (size_t)(ep - set), METER_SCAN_SHIFT);
            if (!set_matches(before, set, ep - 1) && set_matches(here, set, ep - 1)) {
                p = ep;
                goto next;
            }
            s = NULL;
            goto out;
        }
        if (what >= '0' && what <= '9') {
            s = match_backref(ms, s, what);
            if (s != NULL) {
                p += 2;
                goto next;
            }
            goto out;
        }
        break;  /* a class such as %d, or an escaped character */
    }
    default:
        break;
    }

    /* Two or more literal bytes in a row, none of them quantified: compared
     * in one go. Bot patterns are mostly text ("^!ping", "hello (%w+)"), and
     * item by item each byte costs a dispatch and a metered step. Same
     * result as item by item; charged as a memcmp (see Metering). */
    if (!ends_run(uchar(*p))) {
        const char *q = p + 1;
        while (q < ms->pat_end && !ends_run(uchar(*q)))
            q++;
        if (q < ms->pat_end && quantifier[uchar(*q)])
            q--;    /* the byte before a quantifier is its item */
        if (q - p >= 2) {
            size_t n = (size_t)(q - p);
            meter_bytes(&ms->meter, n, METER_BULK_SHIFT);
            if ((size_t)(ms->src_end - s) < n || memcmp(s, p, n) != 0) {
                s = NULL;
                goto out;
            }
            s += n;
            p = q;
            goto next;
        }
    }

    /* A single item, optionally followed by a quantifier. */
    {
        const char *ep = item_end(ms, p);
        int quant = (ep < ms->pat_end) ? *ep : 0;
        if (!item_matches(ms, s, p, ep)) {
            if (quant == '*' || quant == '?' || quant == '-') {
                p = ep + 1;     /* zero repetitions are fine */
                goto next;
            }
            s = NULL;
            goto out;
        }
        switch (quant) {
        case '?': {
            const char *res = pm_match(ms, s + 1, ep + 1);
            if (res != NULL) {
                s = res;
                goto out;
            }
            p = ep + 1;
            goto next;
        }
        case '+':
            s = expand_greedy(ms, s + 1, p, ep);
            goto out;
        case '*':
            s = expand_greedy(ms, s, p, ep);
            goto out;
        case '-':
            s = expand_lazy(ms, s, p, ep);
            goto out;
        default:
            s++;
            p = ep;
            goto next;
        }
    }
out:
    ms->depth_left++;
    return s;
}

/* ------------------------------------------------------------------------ */
/* Skipping ahead                                                           */
/* ------------------------------------------------------------------------ */

/*
 * The unanchored loops (find, match, gmatch, gsub) try a match at every
 * subject position, and on ordinary text nearly all attempts fail on the
 * pattern's first item. When that item must match at least once, a position
 * where it does not match cannot start a match, so the loops test just that
 * item (or memchr for a literal byte) and only enter pm_match at positions
 * where it does. This changes speed only: the same positions match and the
 * same errors are raised (see lead_init).
 */
typedef struct pat_lead {
    const char *p;      /* the first item, or NULL when there is no usable one */
    const char *ep;     /* its end */
    int byte;           /* the item is this literal byte, or -1 */
    int quant;          /* '+' or 0 (no quantifier) */
    int direct;         /* the item starts the pattern (no '(' before it) */
} pat_lead;

/*
 * Find the lead item of pattern p. Leading '(' and '()' are looked through:
 * they consume nothing and cannot fail, except with "too many captures",
 * hence the limit. Anything that can match empty or is not a single item
 * (quantifiers * ? -, %b, %f, back-references, a final '$', ')') gives no
 * lead. item_end() may raise here; the first match attempt would raise the
 * very same error before doing anything observable, so raising it a moment
 * earlier is indistinguishable.
 */
static void lead_init(pat_state *ms, const char *p, pat_lead *lead) {
    int opened = 0;
    const char *ep;
    int quant;
    lead->p = NULL;
    while (p < ms->pat_end && *p == '(' && opened < PAT_MAX_CAPTURES) {
        p += (p + 1 < ms->pat_end && p[1] == ')') ? 2 : 1;
        opened++;
    }
    if (p >= ms->pat_end)
        return;
    switch (*p) {
    case '(': case ')': case '.':
        return;
    case '$':
        if (p + 1 == ms->pat_end)
            return;
        break;
    case PAT_ESC:
        if (p + 1 < ms->pat_end &&
            (p[1] == 'b' || p[1] == 'f' || (p[1] >= '0' && p[1] <= '9')))
            return;
        break;
    default:
        break;
    }
    ep = item_end(ms, p);
    quant = (ep < ms->pat_end) ? *ep : 0;
    if (quant == '*' || quant == '?' || quant == '-')
        return;
    lead->p = p;
    lead->ep = ep;
    lead->quant = quant == '+' ? '+' : 0;
    lead->direct = (opened == 0);
    if (*p == '[')
        lead->byte = -1;
    else if (*p == PAT_ESC)
        lead->byte = isalnum(uchar(p[1])) ? -1 : uchar(p[1]);
    else
        lead->byte = uchar(*p);
}

/* The first position at or after `at` where the lead item matches, or NULL
 * if there is none (then no later position can start a match either). */
static const char *lead_next(pat_state *ms, const pat_lead *lead,
                             const char *at) {
    if (lead->byte >= 0) {
        const char *hit = (const char *)memchr(at, lead->byte, (size_t)(ms->src_end - at));
        meter_bytes(&ms->meter,
                    (size_t)((hit ? hit : ms->src_end) - at), METER_BULK_SHIFT);
        return hit;
    }
    for (; at < ms->src_end; at++) {
        if (item_matches(ms, at, lead->p, lead->ep))
            return at;
    }
    return NULL;
}

/*
 * One match attempt at `at`, where lead_next() has just seen the lead item
 * match. If that item opens the pattern, continue right after it, exactly
 * as pm_match would after its own test, instead of testing it again: on
 * text where most positions pass the lead test (letters for "%a+") the
 * second test would be pure overhead. Depth is spent as pm_match would
 * spend it, so "pattern too complex" still trips at the same point.
 */
static const char *lead_attempt(pat_state *ms, const pat_lead *lead,
                                const char *at, const char *p) {
    const char *res;
    attempt_reset(ms);
    if (!lead->direct)
        return pm_match(ms, at, p);
    if (lead->quant == 0)   /* pm_match would loop on with the next item */
        return pm_match(ms, at + 1, lead->ep);
    /* x+: stand in for the pm_match frame the expansion would run in. */
    ms->depth_left--;
    meter_step(&ms->meter);
    res = expand_greedy(ms, at + 1, lead->p, lead->ep);
    ms->depth_left++;
    return res;
}

/* ------------------------------------------------------------------------ */
/* Captures to Lua values                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Capture i of a successful match [s, e). With no captures in the pattern,
 * index 0 means the whole match. Returns the length and sets *start, or
 * returns CAP_POSITION (then *start is the captured position).
 */
static ptrdiff_t capture_get(pat_state *ms, int i, const char *s,
                             const char *e, const char **start) {
    ptrdiff_t len;
    if (i >= ms->level) {
        if (i != 0)
            luaL_error(STATE_L(ms), "invalid capture index %%%d", i + 1);
        *start = s;
        return e - s;
    }
    len = ms->cap[i].len;
    *start = ms->cap[i].start;
    if (len == CAP_OPEN)
        luaL_error(STATE_L(ms), "unfinished capture");
    return len;
}

static void push_capture(pat_state *ms, int i, const char *s, const char *e) {
    lua_State *L = STATE_L(ms);
    const char *start;
    ptrdiff_t len = capture_get(ms, i, s, e, &start);
    if (len == CAP_POSITION)
        lua_pushinteger(L, (lua_Integer)(start - ms->src) + 1);
    else
        lua_pushlstring(L, start, (size_t)len);
}

/* Push all captures; if s is non-NULL and there are none, the whole match.
 * (find passes NULL: it reports the span itself.) */
static int push_captures(pat_state *ms, const char *s, const char *e) {
    int i, n = (ms->level == 0 && s != NULL) ? 1 : ms->level;
    luaL_checkstack(STATE_L(ms), n, "too many captures");
    for (i = 0; i < n; i++)
        push_capture(ms, i, s, e);
    return n;
}

/* ------------------------------------------------------------------------ */
/* find and match                                                           */
/* ------------------------------------------------------------------------ */

/* 1-based start position from a user `init`: negative counts from the end,
 * 0 and anything before the start clip to 1; may exceed len + 1. */
static size_t start_position(lua_Integer pos, size_t len) {
    if (pos > 0)
        return (size_t)pos;
    if (pos == 0 || pos < -(lua_Integer)len)
        return 1;
    return len + (size_t)pos + 1;
}

/* A pattern without magic bytes (magic_byte, above) is searched for as
 * plain bytes. */
static int has_no_magic(const char *p, size_t lp) {
    size_t i;
    for (i = 0; i < lp; i++) {
        if (magic_byte[uchar(p[i])])
            return 0;
    }
    return 1;
}

/* First occurrence of needle in hay, metered by bytes scanned/compared. */
static const char *plain_search(pat_meter *m, const char *hay, size_t lh,
                                const char *needle, size_t ln) {
    const char *cur = hay, *stop;
    if (ln == 0)
        return hay;
    if (ln > lh)
        return NULL;
    stop = hay + (lh - ln) + 1;     /* one past the last possible start */
    while (cur < stop) {
        const char *hit = (const char *)memchr(cur, needle[0], (size_t)(stop - cur));
        if (hit == NULL) {
            meter_bytes(m, (size_t)(stop - cur), METER_BULK_SHIFT);
            return NULL;
        }
        meter_bytes(m, (size_t)(hit - cur) + ln, METER_BULK_SHIFT);
        if (memcmp(hit + 1, needle + 1, ln - 1) == 0)
            return hit;
        cur = hit + 1;
    }
    return NULL;
}

/* find with a plain needle (the `plain` flag, or no magic bytes at all);
 * `scanned` is how much of the pattern has_no_magic() had to read. Where the
 * needle starts, or NULL. */
static const char *plain_find(lua_State *L, const char *s, size_t ls, size_t init,
                              const char *p, size_t lp, size_t scanned) {
    pat_meter m;
    const char *hit;
    meter_init(&m, L);
    if (scanned > METER_SET_FREE)
        meter_bytes(&m, scanned, METER_SCAN_SHIFT);
    hit = plain_search(&m, s + init, ls - init, p, lp);
    meter_settle(&m);
    return hit;
}

/* What a successful search pushes. */
enum {
    PUSH_SPAN,      /* find: start, end, then the captures */
    PUSH_MATCH,     /* match: the captures, else the whole match */
    PUSH_CAPTURES,  /* bot.hear: the captures only (none when there are none) */
};

/*
 * The search behind string.find, string.match and bot.hear: the first match
 * of p in s at or after the 0-based `init` (which must not exceed ls). Pushes
 * what `push` says and returns how many values, or returns -1 and pushes
 * nothing when there is no match. `plain` is find's fourth argument.
 */
static int search(lua_State *L, const char *s, size_t ls, size_t init,
                  const char *p, size_t lp, int push, int plain) {
    pat_state ms;
    pat_lead lead;
    const char *at;
    int anchored;

    if (push != PUSH_MATCH && (plain || has_no_magic(p, lp))) {
        const char *hit = plain_find(L, s, ls, init, p, lp, plain ? 0 : lp);
        if (hit == NULL)
            return -1;
        if (push == PUSH_CAPTURES)
            return 0;
        lua_pushinteger(L, (lua_Integer)(hit - s) + 1);
        lua_pushinteger(L, (lua_Integer)(hit - s) + (lua_Integer)lp);
        return 2;
    }
    state_init(&ms, L, s, ls, p, lp);
    if (push != PUSH_MATCH && lp > METER_SET_FREE)
        meter_bytes(&ms.meter, lp, METER_SCAN_SHIFT);   /* has_no_magic's scan */

    anchored = (lp > 0 && *p == '^');
    if (anchored)
        p++;    /* state_init already fixed pat_end, which stays */
    lead.p = NULL;
    if (!anchored)
        lead_init(&ms, p, &lead);
    at = s + init;
    for (;;) {
        const char *e;
        if (lead.p != NULL) {
            if ((at = lead_next(&ms, &lead, at)) == NULL)
                break;
            e = lead_attempt(&ms, &lead, at, p);
        } else {
            attempt_reset(&ms);
            e = pm_match(&ms, at, p);
        }
        if (e != NULL) {
            meter_settle(&ms.meter);
            if (push == PUSH_MATCH)
                return push_captures(&ms, at, e);
            if (push == PUSH_CAPTURES)
                return push_captures(&ms, NULL, NULL);
            lua_pushinteger(L, (lua_Integer)(at - s) + 1);
            lua_pushinteger(L, (lua_Integer)(e - s));
            return push_captures(&ms, NULL, NULL) + 2;
        }
        if (anchored || at >= ms.src_end)
            break;
        at++;
    }
    meter_settle(&ms.meter);
    return -1;
}

static int find_or_match(lua_State *L, int is_find) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
    int n;
    if (init <= ls) {
        n = is_find ? search(L, s, ls, init, p, lp, PUSH_SPAN, lua_toboolean(L, 4))
                    : search(L, s, ls, init, p, lp, PUSH_MATCH, 0);
        if (n >= 0)
            return n;
    }
    luaL_pushfail(L);
    return 1;
}

/*
 * `native.hear(text, pattern, fn, msg)`: one bot.hear of the message
 * dispatcher. Searches text for pattern as string.find would and, on a
 * match, enters the plugin's fn(msg, captures...) as native.call does. One
 * C call where the dispatcher used to make three (find, a Lua helper taking
 * find's results as varargs, and call): hear is what nearly every plugin
 * uses, on every line its rooms hear. text and pattern stay below the call,
 * which keeps s and p alive while the captures are pushed.
 */
int parley_hear(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    lua_settop(L, 4);
    if (search(L, s, ls, 0, p, lp, PUSH_CAPTURES, 0) < 0)
        return 0;
    parley_enter_plugin(L, lua_gettop(L) - 3);      /* fn(msg, captures...) */
    return 0;
}

static int pat_find(lua_State *L) {
    return find_or_match(L, 1);
}

static int pat_match(lua_State *L) {
    return find_or_match(L, 0);
}

/* ------------------------------------------------------------------------ */
/* gmatch                                                                   */
/* ------------------------------------------------------------------------ */

/* Iterator state, a userdata upvalue (Lua owns the memory, so an error
 * raised mid-iteration leaks nothing). The subject and pattern strings are
 * upvalues too, which keeps the pointers below valid. */
typedef struct pat_iter {
    const char *next;       /* where the next search starts */
    const char *lastmatch;  /* end of the previous match, or NULL */
    const char *pat;
    int lead_ready;         /* lead computed (on the first call, like stock's
                               first attempt, so pattern errors surface there) */
    pat_lead lead;
    pat_state ms;
} pat_iter;

static int gmatch_step(lua_State *L) {
    pat_iter *it = (pat_iter *)lua_touserdata(L, lua_upvalueindex(3));
    const char *at;
    it->ms.meter.L = L;     /* may be resumed from another coroutine */
    if (!it->lead_ready && it->next <= it->ms.src_end) {
        lead_init(&it->ms, it->pat, &it->lead);
        it->lead_ready = 1;
    }
    for (at = it->next; at <= it->ms.src_end; at++) {
        const char *e;
        if (it->lead.p != NULL) {
            if ((at = lead_next(&it->ms, &it->lead, at)) == NULL)
                break;
            e = lead_attempt(&it->ms, &it->lead, at, it->pat);
        } else {
            attempt_reset(&it->ms);
            e = pm_match(&it->ms, at, it->pat);
        }
        /* An empty match where the last match ended would make no
         * progress; 5.4 skips it and tries one byte further. */
        if (e != NULL && e != it->lastmatch) {
            /* Charge before advancing: if the budget raises, a retry
             * finds this same match again instead of skipping it. */
            meter_settle(&it->ms.meter);
            it->next = it->lastmatch = e;
            return push_captures(&it->ms, at, e);
        }
    }
    meter_settle(&it->ms.meter);
    return 0;
}

static int pat_gmatch(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
    pat_iter *it;
    lua_settop(L, 2);       /* subject and pattern become upvalues */
    it = (pat_iter *)lua_newuserdatauv(L, sizeof(pat_iter), 0);
    if (init > ls)
        init = ls + 1;      /* past the end: iterate nothing, no overflow */
    /* No anchor handling: in gmatch a leading '^' is an ordinary char. */
    state_init(&it->ms, L, s, ls, p, lp);
    it->next = s + init;
    it->lastmatch = NULL;
    it->pat = p;
    it->lead_ready = 0;
    it->lead.p = NULL;
    lua_pushcclosure(L, gmatch_step, 3);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* gsub                                                                     */
/* ------------------------------------------------------------------------ */

static void add_bytes(pat_state *ms, luaL_Buffer *b, const char *p, size_t n) {
    meter_bytes(&ms->meter, n, METER_BULK_SHIFT);
    luaL_addlstring(b, p, n);
}

/* Append a replacement template for the match [s, e): "%0" is the whole
 * match, "%1".."%9" captures, "%%" a percent; any other '%' is an error. */
static void add_template(pat_state *ms, luaL_Buffer *b, const char *tpl,
                         size_t tl, const char *s, const char *e) {
    lua_State *L = STATE_L(ms);
    const char *end = tpl + tl;
    const char *pct;
    while ((pct = (const char *)memchr(tpl, PAT_ESC, (size_t)(end - tpl))) != NULL) {
        int d = (pct + 1 < end) ? uchar(pct[1]) : -1;
        add_bytes(ms, b, tpl, (size_t)(pct - tpl));
        if (d == PAT_ESC) {
            luaL_addchar(b, PAT_ESC);
        } else if (d == '0') {
            add_bytes(ms, b, s, (size_t)(e - s));
        } else if (d >= '1' && d <= '9') {
            const char *start;
            ptrdiff_t len = capture_get(ms, d - '1', s, e, &start);
            if (len == CAP_POSITION) {
                lua_pushinteger(L, (lua_Integer)(start - ms->src) + 1);
                luaL_addvalue(b);   /* as its decimal text */
            } else {
                add_bytes(ms, b, start, (size_t)len);
            }
        } else {
            luaL_error(L, "invalid use of '%c' in replacement string", PAT_ESC);
        }
        tpl = pct + 2;
    }
    add_bytes(ms, b, tpl, (size_t)(end - tpl));
}

/* Append the replacement for match [s, e). Returns whether the output
 * differs from the input here (false/nil from a table or function keeps
 * the original text). */
static int add_replacement(pat_state *ms, luaL_Buffer *b, const char *s,
                           const char *e, int rtype, const char *tpl,
                           size_t tl) {
    lua_State *L = STATE_L(ms);
    size_t n;
    if (rtype == LUA_TFUNCTION) {
        int nargs;
        lua_pushvalue(L, 3);
        nargs = push_captures(ms, s, e);
        lua_call(L, nargs, 1);
    } else if (rtype == LUA_TTABLE) {
        push_capture(ms, 0, s, e);
        lua_gettable(L, 3);
    } else {
        add_template(ms, b, tpl, tl, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        add_bytes(ms, b, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1))
        return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    lua_tolstring(L, -1, &n);
    meter_bytes(&ms->meter, n, METER_BULK_SHIFT);
    luaL_addvalue(b);
    return 1;
}

static int pat_gsub(lua_State *L) {
    size_t srcl, lp, tl = 0;
    const char *src = luaL_checklstring(L, 1, &srcl);
    const char *p = luaL_checklstring(L, 2, &lp);
    const char *lastmatch = NULL;
    const char *tpl = NULL;
    int rtype = lua_type(L, 3);
    lua_Integer max_n = luaL_optinteger(L, 4, (lua_Integer)srcl + 1);
    int anchored = (lp > 0 && *p == '^');
    lua_Integer n = 0;
    int changed = 0;
    pat_state ms;
    pat_lead lead;
    luaL_Buffer b;

    luaL_argexpected(L, rtype == LUA_TNUMBER || rtype == LUA_TSTRING ||
                     rtype == LUA_TFUNCTION || rtype == LUA_TTABLE, 3,
                     "string/function/table");
    if (rtype == LUA_TNUMBER || rtype == LUA_TSTRING)
        tpl = lua_tolstring(L, 3, &tl);     /* a number becomes its text */
    luaL_buffinit(L, &b);
    if (anchored) {
        p++;
        lp--;
    }
    state_init(&ms, L, src, srcl, p, lp);
    lead.p = NULL;
    if (!anchored && max_n > 0)     /* stock raises only if it tries */
        lead_init(&ms, p, &lead);
    while (n < max_n) {
        const char *e;
        if (lead.p != NULL) {
            /* Copy the run no match can start in, in one piece. */
            const char *at = lead_next(&ms, &lead, src);
            if (at == NULL)
                break;      /* the tail is copied below */
            if (at > src) {
                add_bytes(&ms, &b, src, (size_t)(at - src));
                src = at;
            }
            e = lead_attempt(&ms, &lead, src, p);
        } else {
            attempt_reset(&ms);
            e = pm_match(&ms, src, p);
        }
        /* As in gmatch, an empty match right where the previous match
         * ended is not a new match. */
        if (e != NULL && e != lastmatch) {
            n++;
            changed |= add_replacement(&ms, &b, src, e, rtype, tpl, tl);
            src = lastmatch = e;
        } else if (src < ms.src_end) {
            luaL_addchar(&b, *src++);
        } else {
            break;
        }
        if (anchored)
            break;
    }
    if (!changed) {
        lua_pushvalue(L, 1);    /* nothing replaced: the subject itself */
    } else {
        add_bytes(&ms, &b, src, (size_t)(ms.src_end - src));
        luaL_pushresult(&b);
    }
    meter_settle(&ms.meter);
    lua_pushinteger(L, n);
    return 2;
}

/* ------------------------------------------------------------------------ */
/* Checking a pattern without matching                                      */
/* ------------------------------------------------------------------------ */

/* The end of the set that starts at `p` ('['), as Lua reads it (a ']' right
 * after '[' or "[^" is a member), or NULL when it has no ']'. */
static const char *set_end(const char *p, const char *end) {
    p++;
    if (p < end && *p == '^') p++;
    do {
        if (p >= end) return NULL;
        if (*(p++) == '%' && p < end) p++;
    } while (p >= end || *p != ']');
    return p + 1;
}

/* lua_CFunction `native.pattern_problem(pattern)`: why the pattern would
 * fail, or nil. The matcher finds a malformed item only when a match
 * reaches it; `bot.hear` asks here once, when the plugin loads, so a bad
 * pattern is an error with the plugin's line, not one on every message. */
int parley_pattern_problem(lua_State *L) {
    size_t n;
    const char *p = luaL_checklstring(L, 1, &n), *end = p + n;
    char closed[PAT_MAX_CAPTURES];   /* per capture opened so far: closed yet? */
    int level = 0;
    if (p < end && *p == '^') p++;
    while (p < end) {
        char c = *p;
        if (c == '(') {
            if (level >= PAT_MAX_CAPTURES) return lua_pushstring(L, "too many captures"), 1;
            int position = p + 1 < end && p[1] == ')';   /* "()" closes at once */
            closed[level++] = (char)position;
            p += position ? 2 : 1;
            continue;
        }
        if (c == ')') {
            int l = level - 1;
            while (l >= 0 && closed[l]) l--;
            if (l < 0) return lua_pushstring(L, "invalid pattern capture"), 1;
            closed[l] = 1;
            p++;
            continue;
        }
        if (c == '$' && p + 1 == end) break;
        if (c == '%') {
            if (p + 1 >= end) return lua_pushstring(L, "malformed pattern (ends with '%')"), 1;
            char d = p[1];
            if (d == 'b') {
                if (end - p < 4) return lua_pushstring(L, "malformed pattern (missing arguments to '%b')"), 1;
                p += 4;
                continue;
            }
            if (d == 'f') {
                p += 2;
                if (p >= end || *p != '[') return lua_pushstring(L, "missing '[' after '%f' in pattern"), 1;
                if ((p = set_end(p, end)) == NULL) return lua_pushstring(L, "malformed pattern (missing ']')"), 1;
                continue;
            }
            if (d >= '0' && d <= '9') {
                int l = d - '1';
                if (l < 0 || l >= level || !closed[l]) return lua_pushfstring(L, "invalid capture index %%%d in pattern", l + 1), 1;
                p += 2;
                continue;
            }
            p += 2;
        } else if (c == '[') {
            if ((p = set_end(p, end)) == NULL) return lua_pushstring(L, "malformed pattern (missing ']')"), 1;
        } else {
            p++;
        }
        if (p < end && (*p == '*' || *p == '+' || *p == '-' || *p == '?')) p++;
    }
    for (int l = 0; l < level; l++) {
        if (!closed[l]) return lua_pushstring(L, "unfinished capture"), 1;
    }
    lua_pushnil(L);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Installation                                                             */
/* ------------------------------------------------------------------------ */

void parley_install_patterns(lua_State *L, int string_table) {
    static const luaL_Reg fns[] = {
        {"find", pat_find},
        {"match", pat_match},
        {"gmatch", pat_gmatch},
        {"gsub", pat_gsub},
        {NULL, NULL},
    };
    const luaL_Reg *r;
    int t = lua_absindex(L, string_table);
    for (r = fns; r->name != NULL; r++) {
        lua_pushcfunction(L, r->func);
        lua_setfield(L, t, r->name);
    }
}
