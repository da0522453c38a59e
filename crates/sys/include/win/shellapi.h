/* shellapi.h for etwsim-cc: CommandLineToArgvW (in windows.h). */
#include <windows.h>
