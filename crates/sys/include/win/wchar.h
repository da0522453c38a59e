/*
 * wchar.h for etwsim-cc: glibc's <wchar.h>, with the wide-string functions a Windows
 * program calls taken from etwsim's UTF-16 runtime (libetwsim_sys, etwsim_* functions).
 *
 * glibc's wide functions assume a 32-bit wchar_t; under -fshort-wchar they misread
 * 16-bit strings. glibc's own declarations are hidden under etwsim_glibc_* names while it
 * is included, and the Windows names are then declared as renames (asm labels) of the
 * etwsim_* functions: no macro remains for <cwchar> to #undef, and libstdc++'s
 * `using ::wcslen;` finds these. The wprintf family is in stdio.h.
 */
#ifndef ETWSIM_WIN_WCHAR_H
#define ETWSIM_WIN_WCHAR_H
#if !defined(__SIZEOF_WCHAR_T__) || __SIZEOF_WCHAR_T__ != 2
#error "etwsim: wchar_t must be 16 bits as on Windows; build with etwsim-cc (it passes -fshort-wchar)"
#endif

#define wcslen etwsim_glibc_wcslen
#define wcsnlen etwsim_glibc_wcsnlen
#define wcscpy etwsim_glibc_wcscpy
#define wcsncpy etwsim_glibc_wcsncpy
#define wcscat etwsim_glibc_wcscat
#define wcscmp etwsim_glibc_wcscmp
#define wcsncmp etwsim_glibc_wcsncmp
#define wcschr etwsim_glibc_wcschr
#define wcsrchr etwsim_glibc_wcsrchr
#define wcsstr etwsim_glibc_wcsstr
#define wcstol etwsim_glibc_wcstol
#define wcstoul etwsim_glibc_wcstoul
#define wcsdup etwsim_glibc_wcsdup
#define wcscasecmp etwsim_glibc_wcscasecmp
#define wprintf etwsim_glibc_wprintf
#define fwprintf etwsim_glibc_fwprintf
#define swprintf etwsim_glibc_swprintf
#define vwprintf etwsim_glibc_vwprintf
#define vfwprintf etwsim_glibc_vfwprintf
#define vswprintf etwsim_glibc_vswprintf
#include_next <wchar.h>
#undef wcslen
#undef wcsnlen
#undef wcscpy
#undef wcsncpy
#undef wcscat
#undef wcscmp
#undef wcsncmp
#undef wcschr
#undef wcsrchr
#undef wcsstr
#undef wcstol
#undef wcstoul
#undef wcsdup
#undef wcscasecmp
#undef wprintf
#undef fwprintf
#undef swprintf
#undef vwprintf
#undef vfwprintf
#undef vswprintf

#include <stdio.h> /* the wprintf family, with printf's */

#ifndef _ERRNO_T_DEFINED
#define _ERRNO_T_DEFINED
typedef int errno_t;
#endif
#ifndef _TRUNCATE
#define _TRUNCATE ((size_t)-1)
#endif
#ifndef STRUNCATE
#define STRUNCATE 80
#endif

#ifdef __cplusplus
extern "C" {
#endif
#define ETWSIM_RENAME(name) __asm__("etwsim_" #name)
size_t wcslen(const wchar_t *str) ETWSIM_RENAME(wcslen);
size_t wcsnlen(const wchar_t *str, size_t numberOfElements) ETWSIM_RENAME(wcsnlen);
wchar_t *wcscpy(wchar_t *strDestination, const wchar_t *strSource) ETWSIM_RENAME(wcscpy);
errno_t wcscpy_s(wchar_t *dest, size_t dest_size, const wchar_t *src) ETWSIM_RENAME(wcscpy_s);
wchar_t *wcsncpy(wchar_t *strDest, const wchar_t *strSource, size_t count) ETWSIM_RENAME(wcsncpy);
errno_t wcsncpy_s(wchar_t *strDest, size_t numberOfElements, const wchar_t *strSource, size_t count)
    ETWSIM_RENAME(wcsncpy_s);
wchar_t *wcscat(wchar_t *strDestination, const wchar_t *strSource) ETWSIM_RENAME(wcscat);
errno_t wcscat_s(wchar_t *strDestination, size_t numberOfElements, const wchar_t *strSource)
    ETWSIM_RENAME(wcscat_s);
int wcscmp(const wchar_t *string1, const wchar_t *string2) ETWSIM_RENAME(wcscmp);
int wcsncmp(const wchar_t *string1, const wchar_t *string2, size_t count) ETWSIM_RENAME(wcsncmp);
int _wcsicmp(const wchar_t *string1, const wchar_t *string2) ETWSIM_RENAME(wcsicmp);
long wcstol(const wchar_t *strSource, wchar_t **endptr, int base) ETWSIM_RENAME(wcstol);
unsigned long wcstoul(const wchar_t *strSource, wchar_t **endptr, int base) ETWSIM_RENAME(wcstoul);
int _wtoi(const wchar_t *str) ETWSIM_RENAME(wtoi);
wchar_t *_wcsdup(const wchar_t *strSource) ETWSIM_RENAME(wcsdup);
#ifdef __cplusplus
}
/* C++: the const-correct overloads, as the CRT declares them. */
extern "C++" {
const wchar_t *wcschr(const wchar_t *str, wchar_t c) ETWSIM_RENAME(wcschr);
wchar_t *wcschr(wchar_t *str, wchar_t c) ETWSIM_RENAME(wcschr);
const wchar_t *wcsrchr(const wchar_t *str, wchar_t c) ETWSIM_RENAME(wcsrchr);
wchar_t *wcsrchr(wchar_t *str, wchar_t c) ETWSIM_RENAME(wcsrchr);
const wchar_t *wcsstr(const wchar_t *str, const wchar_t *strSearch) ETWSIM_RENAME(wcsstr);
wchar_t *wcsstr(wchar_t *str, const wchar_t *strSearch) ETWSIM_RENAME(wcsstr);
}
#else
wchar_t *wcschr(const wchar_t *str, wchar_t c) ETWSIM_RENAME(wcschr);
wchar_t *wcsrchr(const wchar_t *str, wchar_t c) ETWSIM_RENAME(wcsrchr);
wchar_t *wcsstr(const wchar_t *str, const wchar_t *strSearch) ETWSIM_RENAME(wcsstr);
#endif
#undef ETWSIM_RENAME
#endif
