/* rpc.h for etwsim-cc: UuidCreate (in windows.h). */
#include <windows.h>
