/*
 * strsafe.h for etwsim-cc: StringCch* and StringCb* (Printf, VPrintf, Copy, CopyN, Cat,
 * CatN, Length), W and A, with the generic names. Results are the documented HRESULTs:
 * S_OK, STRSAFE_E_INSUFFICIENT_BUFFER (output cut and NUL-terminated),
 * STRSAFE_E_INVALID_PARAMETER (a size of 0 or above STRSAFE_MAX_CCH, a destination
 * unterminated within its size for Cat, a string unterminated within cchMax for Length).
 * A NULL destination also gives STRSAFE_E_INVALID_PARAMETER (Windows's strsafe would fault).
 */
#ifndef ETWSIM_WIN_STRSAFE_H
#define ETWSIM_WIN_STRSAFE_H
#include <windows.h>
#define STRSAFE_MAX_CCH 2147483647
#define STRSAFE_E_INSUFFICIENT_BUFFER ((HRESULT)0x8007007AL)
#define STRSAFE_E_INVALID_PARAMETER ((HRESULT)0x80070057L)
#define STRSAFE_E_END_OF_FILE ((HRESULT)0x80070026L)
typedef char *STRSAFE_LPSTR;
typedef const char *STRSAFE_LPCSTR;
typedef wchar_t *STRSAFE_LPWSTR;
typedef const wchar_t *STRSAFE_LPCWSTR;

#ifdef __cplusplus
extern "C" {
#endif
HRESULT etwsim_strsafe_length(const void *s, int wide, size_t max, size_t *len);
HRESULT etwsim_strsafe_copy(void *dst, size_t cch, int wide, const void *src, size_t count, int cat);
#ifdef __cplusplus
}
#endif

static inline HRESULT StringCchVPrintfW(STRSAFE_LPWSTR pszDest, size_t cchDest, STRSAFE_LPCWSTR pszFormat,
                                        va_list argList) {
    etwsim_fmt_arg args[ETWSIM_FMT_MAX_ARGS];
    int n = etwsim_fmt_collect(pszFormat, 1, argList, args);
    if (n < 0) {
        if (pszDest && cchDest)
            *pszDest = 0;
        return STRSAFE_E_INVALID_PARAMETER;
    }
    return etwsim_strsafe_printf(pszDest, cchDest, 1, pszFormat, args, (size_t)n);
}
static inline HRESULT StringCchVPrintfA(STRSAFE_LPSTR pszDest, size_t cchDest, STRSAFE_LPCSTR pszFormat,
                                        va_list argList) {
    etwsim_fmt_arg args[ETWSIM_FMT_MAX_ARGS];
    int n = etwsim_fmt_collect(pszFormat, 0, argList, args);
    if (n < 0) {
        if (pszDest && cchDest)
            *pszDest = 0;
        return STRSAFE_E_INVALID_PARAMETER;
    }
    return etwsim_strsafe_printf(pszDest, cchDest, 0, pszFormat, args, (size_t)n);
}
static inline HRESULT StringCchPrintfW(STRSAFE_LPWSTR pszDest, size_t cchDest, STRSAFE_LPCWSTR pszFormat, ...) {
    va_list ap;
    va_start(ap, pszFormat);
    HRESULT hr = StringCchVPrintfW(pszDest, cchDest, pszFormat, ap);
    va_end(ap);
    return hr;
}
static inline HRESULT StringCchPrintfA(STRSAFE_LPSTR pszDest, size_t cchDest, STRSAFE_LPCSTR pszFormat, ...) {
    va_list ap;
    va_start(ap, pszFormat);
    HRESULT hr = StringCchVPrintfA(pszDest, cchDest, pszFormat, ap);
    va_end(ap);
    return hr;
}
/* Cb: a byte size; for W an odd size or one above STRSAFE_MAX_CCH units is refused. */
#define ETWSIM_CB_W(cb) (((cb) % sizeof(wchar_t)) ? (size_t)0 : (cb) / sizeof(wchar_t))
static inline HRESULT StringCbVPrintfW(STRSAFE_LPWSTR d, size_t cb, STRSAFE_LPCWSTR f, va_list ap) {
    return StringCchVPrintfW(d, ETWSIM_CB_W(cb), f, ap);
}
static inline HRESULT StringCbVPrintfA(STRSAFE_LPSTR d, size_t cb, STRSAFE_LPCSTR f, va_list ap) {
    return StringCchVPrintfA(d, cb, f, ap);
}
static inline HRESULT StringCbPrintfW(STRSAFE_LPWSTR d, size_t cb, STRSAFE_LPCWSTR f, ...) {
    va_list ap;
    va_start(ap, f);
    HRESULT hr = StringCchVPrintfW(d, ETWSIM_CB_W(cb), f, ap);
    va_end(ap);
    return hr;
}
static inline HRESULT StringCbPrintfA(STRSAFE_LPSTR d, size_t cb, STRSAFE_LPCSTR f, ...) {
    va_list ap;
    va_start(ap, f);
    HRESULT hr = StringCchVPrintfA(d, cb, f, ap);
    va_end(ap);
    return hr;
}
static inline HRESULT StringCchCopyW(STRSAFE_LPWSTR d, size_t cch, STRSAFE_LPCWSTR s) {
    return etwsim_strsafe_copy(d, cch, 1, s, (size_t)-1, 0);
}
static inline HRESULT StringCchCopyA(STRSAFE_LPSTR d, size_t cch, STRSAFE_LPCSTR s) {
    return etwsim_strsafe_copy(d, cch, 0, s, (size_t)-1, 0);
}
static inline HRESULT StringCchCopyNW(STRSAFE_LPWSTR d, size_t cch, STRSAFE_LPCWSTR s, size_t n) {
    return n > STRSAFE_MAX_CCH ? STRSAFE_E_INVALID_PARAMETER : etwsim_strsafe_copy(d, cch, 1, s, n, 0);
}
static inline HRESULT StringCchCopyNA(STRSAFE_LPSTR d, size_t cch, STRSAFE_LPCSTR s, size_t n) {
    return n > STRSAFE_MAX_CCH ? STRSAFE_E_INVALID_PARAMETER : etwsim_strsafe_copy(d, cch, 0, s, n, 0);
}
static inline HRESULT StringCchCatW(STRSAFE_LPWSTR d, size_t cch, STRSAFE_LPCWSTR s) {
    return etwsim_strsafe_copy(d, cch, 1, s, (size_t)-1, 1);
}
static inline HRESULT StringCchCatA(STRSAFE_LPSTR d, size_t cch, STRSAFE_LPCSTR s) {
    return etwsim_strsafe_copy(d, cch, 0, s, (size_t)-1, 1);
}
static inline HRESULT StringCchCatNW(STRSAFE_LPWSTR d, size_t cch, STRSAFE_LPCWSTR s, size_t n) {
    return n > STRSAFE_MAX_CCH ? STRSAFE_E_INVALID_PARAMETER : etwsim_strsafe_copy(d, cch, 1, s, n, 1);
}
static inline HRESULT StringCchCatNA(STRSAFE_LPSTR d, size_t cch, STRSAFE_LPCSTR s, size_t n) {
    return n > STRSAFE_MAX_CCH ? STRSAFE_E_INVALID_PARAMETER : etwsim_strsafe_copy(d, cch, 0, s, n, 1);
}
static inline HRESULT StringCchLengthW(STRSAFE_LPCWSTR s, size_t cchMax, size_t *pcch) {
    return etwsim_strsafe_length(s, 1, cchMax, pcch);
}
static inline HRESULT StringCchLengthA(STRSAFE_LPCSTR s, size_t cchMax, size_t *pcch) {
    return etwsim_strsafe_length(s, 0, cchMax, pcch);
}
static inline HRESULT StringCbCopyW(STRSAFE_LPWSTR d, size_t cb, STRSAFE_LPCWSTR s) {
    return StringCchCopyW(d, ETWSIM_CB_W(cb), s);
}
static inline HRESULT StringCbCopyA(STRSAFE_LPSTR d, size_t cb, STRSAFE_LPCSTR s) { return StringCchCopyA(d, cb, s); }
static inline HRESULT StringCbCatW(STRSAFE_LPWSTR d, size_t cb, STRSAFE_LPCWSTR s) {
    return StringCchCatW(d, ETWSIM_CB_W(cb), s);
}
static inline HRESULT StringCbCatA(STRSAFE_LPSTR d, size_t cb, STRSAFE_LPCSTR s) { return StringCchCatA(d, cb, s); }
static inline HRESULT StringCbLengthW(STRSAFE_LPCWSTR s, size_t cbMax, size_t *pcb) {
    size_t n = 0;
    HRESULT hr = etwsim_strsafe_length(s, 1, cbMax / sizeof(wchar_t), &n);
    if (pcb)
        *pcb = n * sizeof(wchar_t);
    return hr;
}
static inline HRESULT StringCbLengthA(STRSAFE_LPCSTR s, size_t cbMax, size_t *pcb) {
    return etwsim_strsafe_length(s, 0, cbMax, pcb);
}
#ifdef UNICODE
#define StringCchPrintf StringCchPrintfW
#define StringCchVPrintf StringCchVPrintfW
#define StringCbPrintf StringCbPrintfW
#define StringCbVPrintf StringCbVPrintfW
#define StringCchCopy StringCchCopyW
#define StringCchCopyN StringCchCopyNW
#define StringCchCat StringCchCatW
#define StringCchCatN StringCchCatNW
#define StringCchLength StringCchLengthW
#define StringCbCopy StringCbCopyW
#define StringCbCat StringCbCatW
#define StringCbLength StringCbLengthW
#else
#define StringCchPrintf StringCchPrintfA
#define StringCchVPrintf StringCchVPrintfA
#define StringCbPrintf StringCbPrintfA
#define StringCbVPrintf StringCbVPrintfA
#define StringCchCopy StringCchCopyA
#define StringCchCopyN StringCchCopyNA
#define StringCchCat StringCchCatA
#define StringCchCatN StringCchCatNA
#define StringCchLength StringCchLengthA
#define StringCbCopy StringCbCopyA
#define StringCbCat StringCbCatA
#define StringCbLength StringCbLengthA
#endif
#endif
