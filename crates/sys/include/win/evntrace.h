/* evntrace.h for etwsim-cc: the ETW declarations, all in etwsim.h (one header for all four). */
#include <windows.h>
#include "../etwsim.h"
