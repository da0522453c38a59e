/* initguid.h for etwsim-cc: DEFINE_GUID after this defines the GUID (selectany: once per program). */
#define INITGUID
#include <guiddef.h>
