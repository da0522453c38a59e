/* sddl.h for etwsim-cc: ConvertSidToStringSidW/A (in windows.h). */
#include <windows.h>
