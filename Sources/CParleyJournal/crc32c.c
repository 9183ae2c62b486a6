/*
 * CRC32C for the journal: slicing-by-8 tables, plus the SSE4.2 crc32
 * instruction selected at runtime (__builtin_cpu_supports).
 *
 * The tables are computed once at load time by a constructor, so every call
 * after that is lock-free and thread-safe.
 */
#include "parley_journal.h"
#include <string.h>

#define POLY 0x82F63B78u /* reflected Castagnoli polynomial */

static uint32_t table[8][256];
static int hw_available;

__attribute__((constructor))
static void parley_crc32c_init(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = table[0][n];
        for (int k = 1; k < 8; k++) {
            c = table[0][c & 0xff] ^ (c >> 8);
            table[k][n] = c;
        }
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    hw_available = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#else
    hw_available = 0;
#endif
}

static inline uint64_t load_le64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

uint32_t parley_crc32c_sw(uint32_t crc, const void *data, size_t len) {
    const unsigned char *p = (const unsigned char *)data;
    uint32_t c = ~crc;
    /* Byte at a time until 8-byte aligned, so the wide loads are aligned. */
    while (len > 0 && ((uintptr_t)p & 7) != 0) {
        c = table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
        len--;
    }
    while (len >= 8) {
        uint64_t w = load_le64(p) ^ (uint64_t)c;
        c = table[7][w & 0xff] ^
            table[6][(w >> 8) & 0xff] ^
            table[5][(w >> 16) & 0xff] ^
            table[4][(w >> 24) & 0xff] ^
            table[3][(w >> 32) & 0xff] ^
            table[2][(w >> 40) & 0xff] ^
            table[1][(w >> 48) & 0xff] ^
            table[0][(w >> 56) & 0xff];
        p += 8;
        len -= 8;
    }
    while (len > 0) {
        c = table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
        len--;
    }
    return ~c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const void *data, size_t len) {
    const unsigned char *p = (const unsigned char *)data;
    uint64_t c = (uint32_t)~crc;
    while (len > 0 && ((uintptr_t)p & 7) != 0) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        len--;
    }
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __builtin_ia32_crc32di(c, w);
        p += 8;
        len -= 8;
    }
    while (len > 0) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        len--;
    }
    return ~(uint32_t)c;
}
#endif

uint32_t parley_crc32c_hw(uint32_t crc, const void *data, size_t len) {
#if defined(__x86_64__)
    if (hw_available) return crc32c_sse42(crc, data, len);
#endif
    return parley_crc32c_sw(crc, data, len);
}

int parley_crc32c_hw_available(void) { return hw_available; }

uint32_t parley_crc32c(uint32_t crc, const void *data, size_t len) {
#if defined(__x86_64__)
    if (hw_available) return crc32c_sse42(crc, data, len);
#endif
    return parley_crc32c_sw(crc, data, len);
}
