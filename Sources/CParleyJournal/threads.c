/*
 * OS thread names (pthread_setname_np is a GNU extension that Swift's Glibc
 * module does not expose).
 */
#include <pthread.h>
#include <string.h>

#include "parley_journal.h"

int parley_set_thread_name(const char *name) {
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = 0;
    return pthread_setname_np(pthread_self(), cut);
}
