/*
 * tchar.h for etwsim-cc: _TCHAR and the _t names, wide with _UNICODE (as the SDK maps
 * them: _tmain is wmain, _tprintf wprintf…), narrow without.
 */
#ifndef ETWSIM_WIN_TCHAR_H
#define ETWSIM_WIN_TCHAR_H
#include <windows.h>
#include <strings.h>

ETWSIM_INLINE int _stricmp(const char *a, const char *b) { return strcasecmp(a, b); }
ETWSIM_INLINE int _strnicmp(const char *a, const char *b, size_t n) { return strncasecmp(a, b, n); }

#ifdef _UNICODE
typedef wchar_t _TCHAR, _TSCHAR, _TUCHAR, _TXCHAR;
typedef wchar_t _TINT;
#define __T(x) L##x
#define _tmain wmain
#define _tWinMain wWinMain
#define _tprintf wprintf
#define _ftprintf fwprintf
#define _stprintf_s swprintf
#define _sntprintf _snwprintf
#define _vsntprintf _vsnwprintf
#define _vftprintf vfwprintf
#define _vtprintf vwprintf
#define _tcslen wcslen
#define _tcsnlen wcsnlen
#define _tcscpy wcscpy
#define _tcscpy_s wcscpy_s
#define _tcsncpy wcsncpy
#define _tcsncpy_s wcsncpy_s
#define _tcscat wcscat
#define _tcscat_s wcscat_s
#define _tcscmp wcscmp
#define _tcsncmp wcsncmp
#define _tcsicmp _wcsicmp
#define _tcschr wcschr
#define _tcsrchr wcsrchr
#define _tcsstr wcsstr
#define _tcstol wcstol
#define _tcstoul wcstoul
#define _ttoi _wtoi
#define _tstoi _wtoi
#define _tcsdup _wcsdup
#else
typedef char _TCHAR, _TSCHAR;
typedef unsigned char _TUCHAR;
typedef char _TXCHAR;
typedef int _TINT;
#define __T(x) x
#define _tmain main
#define _tWinMain WinMain
#define _tprintf printf
#define _ftprintf fprintf
#define _sntprintf snprintf
#define _vsntprintf vsnprintf
#define _vftprintf vfprintf
#define _vtprintf vprintf
#define _tcslen strlen
#define _tcsnlen strnlen
#define _tcscpy strcpy
#define _tcsncpy strncpy
#define _tcscat strcat
#define _tcscmp strcmp
#define _tcsncmp strncmp
#define _tcsicmp _stricmp
#define _tcschr strchr
#define _tcsrchr strrchr
#define _tcsstr strstr
#define _tcstol strtol
#define _tcstoul strtoul
#define _ttoi atoi
#define _tstoi atoi
#define _tcsdup strdup
#endif
#define _T(x) __T(x)
#define _TEXT(x) __T(x)
#endif
