/*
 * Early writeback (sync_file_range is a Linux extension that Swift's Glibc
 * module does not expose).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>

#include "parley_journal.h"

int parley_write_back(int fd, int64_t offset, int64_t length) {
#ifdef __linux__
    int r;
    do {
        r = sync_file_range(fd, offset, length,
                            SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    } while (r != 0 && errno == EINTR);
    return r;
#else
    (void)fd; (void)offset; (void)length;
    return 0;
#endif
}
