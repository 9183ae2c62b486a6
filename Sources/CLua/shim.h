#ifndef PARLEY_CLUA_SHIM_H
#define PARLEY_CLUA_SHIM_H
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#endif
