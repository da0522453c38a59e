/* guiddef.h for etwsim-cc: GUID (declared in etwsim.h), IsEqualGUID, C++'s == and
 * DEFINE_GUID (a declaration, or with initguid.h a definition). */
#ifndef ETWSIM_WIN_GUIDDEF_H
#define ETWSIM_WIN_GUIDDEF_H
#include <windows.h>
#endif
#undef DEFINE_GUID
#ifdef INITGUID
#define DEFINE_GUID(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8)                                   \
    EXTERN_C const GUID DECLSPEC_SELECTANY name = {l, w1, w2, {b1, b2, b3, b4, b5, b6, b7, b8}}
#else
#define DEFINE_GUID(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) EXTERN_C const GUID name
#endif
