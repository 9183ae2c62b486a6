#ifndef PARLEY_JOURNAL_C_H
#define PARLEY_JOURNAL_C_H
/*
 * C side of ParleyJournal: CRC32C (Castagnoli, polynomial 0x1EDC6F41,
 * reflected 0x82F63B78), OS thread names, and early writeback.
 *
 * All functions use "extend" semantics like LevelDB's crc32c::Extend: `crc` is
 * the finished CRC of the data seen so far (0 for none) and the result is the
 * finished CRC of that data followed by `data[0..<len]`. So
 * parley_crc32c(0, "123456789", 9) == 0xE3069283, and
 * parley_crc32c(parley_crc32c(0, a, n), b, m) == CRC of a ++ b.
 */
#include <stdint.h>
#include <stddef.h>

/* Fastest available implementation (SSE4.2 when the CPU has it). */
uint32_t parley_crc32c(uint32_t crc, const void *data, size_t len);

/* Portable slicing-by-8 table implementation. */
uint32_t parley_crc32c_sw(uint32_t crc, const void *data, size_t len);

/* SSE4.2 `crc32` instruction implementation. Only call it when
 * parley_crc32c_hw_available() returns 1; elsewhere it falls back to the
 * table implementation so it is always safe to call. */
uint32_t parley_crc32c_hw(uint32_t crc, const void *data, size_t len);

/* 1 when the CPU supports SSE4.2 (runtime check), else 0. */
int parley_crc32c_hw_available(void);

/*
 * Names the calling thread for the OS (threads.c), cut to the kernel's 15
 * bytes, so `top -H`, perf and gdb tell a bot loop from the journal's writer.
 * Foundation's Thread.name does not reach the OS on Linux. 0 on success.
 */
int parley_set_thread_name(const char *name);

/*
 * Writes the file's dirty pages in [offset, offset + length) to the device
 * and waits for them (writeback.c; Linux sync_file_range, a no-op elsewhere).
 * Not durable: no metadata, no cache flush. It lets a large file reach the
 * disk in pieces, so a concurrent fdatasync never queues behind all of it.
 * 0 on success, else -1 with errno set.
 */
int parley_write_back(int fd, int64_t offset, int64_t length);

#endif
