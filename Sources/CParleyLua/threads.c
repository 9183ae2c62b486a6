/*
 * OS thread names for the Lua threads (pthread_setname_np is a GNU extension
 * that Swift's Glibc module does not expose).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <string.h>

#include "parley_lua.h"

int parley_set_thread_name(const char *name) {
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = 0;
    return pthread_setname_np(pthread_self(), cut);
}

int parley_thread_name(char *buf, size_t len) {
    return pthread_getname_np(pthread_self(), buf, len);
}
