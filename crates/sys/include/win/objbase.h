/* objbase.h for etwsim-cc: the GUID part (StringFromGUID2, CLSIDFromString, IIDFromString, CoCreateGuid). */
#include <windows.h>
