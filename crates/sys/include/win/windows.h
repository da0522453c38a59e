/*
 * windows.h for etwsim-cc: the base types, macros and the kernel32/ole32/rpcrt4 functions
 * an ETW program calls, with the SDK's names and types (implemented in libetwsim_sys, or
 * inline here). Everything declared is implemented; what is not here is not provided.
 *
 * Defines (set by etwsim-cc): _WIN32, _WIN64, _M_X64/_M_AMD64 (x64 code paths);
 * UNICODE/_UNICODE only when the program's build passes them (W names and TCHAR = WCHAR).
 * _MSC_VER is NOT defined: it would select MSVC-only syntax (__try, #pragma comment,
 * intrinsics) gcc cannot compile; the __declspec forms ETW code uses are mapped below.
 */
#ifndef ETWSIM_WIN_WINDOWS_H
#define ETWSIM_WIN_WINDOWS_H
#include <sal.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <stdio.h>
#include "../etwsim.h"

#ifdef __cplusplus
#define EXTERN_C extern "C"
#define EXTERN_C_START extern "C" {
#define EXTERN_C_END }
#else
#define EXTERN_C extern
#define EXTERN_C_START
#define EXTERN_C_END
#endif
/* __declspec(x) → ETWSIM_DECLSPEC_x: the forms gcc has an equivalent for. */
#define __declspec(x) ETWSIM_DECLSPEC_##x
#define ETWSIM_DECLSPEC_selectany __attribute__((weak))
#define ETWSIM_DECLSPEC_noinline __attribute__((noinline))
#define ETWSIM_DECLSPEC_noreturn __attribute__((noreturn))
#define ETWSIM_DECLSPEC_nothrow __attribute__((nothrow))
#define ETWSIM_DECLSPEC_novtable
#define ETWSIM_DECLSPEC_dllimport
#define ETWSIM_DECLSPEC_dllexport __attribute__((visibility("default")))
#define ETWSIM_DECLSPEC_thread __thread
#define ETWSIM_DECLSPEC_align(n) __attribute__((aligned(n)))
#define DECLSPEC_SELECTANY __attribute__((weak))
#define DECLSPEC_NOINLINE __attribute__((noinline))
#define DECLSPEC_NORETURN __attribute__((noreturn))
#define DECLSPEC_ALIGN(n) __attribute__((aligned(n)))
#define FORCEINLINE static inline __attribute__((always_inline))
#define __forceinline inline __attribute__((always_inline))
#define __int8 char
#define __int16 short
#define __int32 int
#define __int64 long long
#define __cdecl
#define __stdcall
#define CALLBACK
#define APIENTRY
#define WINAPIV
#define WINBASEAPI
#define STDAPI EXTERN_C HRESULT
#define STDMETHODCALLTYPE
#define CONST const
#define IN
#define OUT
#define OPTIONAL

typedef int INT, *PINT, *LPINT;
typedef short SHORT, *PSHORT;
typedef float FLOAT;
typedef int64_t INT64, LONG64, *PLONG64;
typedef uint64_t UINT64, DWORDLONG, *PDWORDLONG, *PULONGLONG;
typedef int32_t INT32, LONG32;
typedef uint32_t UINT32, ULONG32, DWORD32;
typedef int16_t INT16;
typedef uint16_t UINT16, *PUSHORT, *PWORD, *LPWORD;
typedef int8_t INT8;
typedef uint8_t UINT8, *PBYTE, *LPBYTE;
typedef intptr_t INT_PTR, *PINT_PTR, SSIZE_T;
typedef uintptr_t UINT_PTR, *PUINT_PTR, DWORD_PTR, *PDWORD_PTR, *PSIZE_T;
typedef DWORD *PDWORD, *LPDWORD;
typedef LONG *PLONG, *LPLONG;
typedef BOOL *PBOOL, *LPBOOL;
typedef CHAR *PCHAR;
typedef LONG HRESULT;
typedef HANDLE *PHANDLE, *LPHANDLE, HINSTANCE, HMODULE, HLOCAL, HGLOBAL, HWND;
typedef PVOID PSID;
typedef FILETIME *LPFILETIME;
typedef SYSTEMTIME *LPSYSTEMTIME;
typedef WCHAR OLECHAR, *LPOLESTR;
typedef const WCHAR *LPCOLESTR;
typedef GUID IID, CLSID, UUID, *LPIID, *LPCLSID;
typedef long RPC_STATUS;
typedef struct _SECURITY_ATTRIBUTES {
    DWORD nLength;
    LPVOID lpSecurityDescriptor;
    BOOL bInheritHandle;
} SECURITY_ATTRIBUTES, *PSECURITY_ATTRIBUTES, *LPSECURITY_ATTRIBUTES;

#if defined(UNICODE)
typedef WCHAR TCHAR, *PTCHAR;
typedef LPWSTR LPTSTR, PTSTR;
typedef LPCWSTR LPCTSTR, PCTSTR;
#define __TEXT(s) L##s
#else
typedef char TCHAR, *PTCHAR;
typedef LPSTR LPTSTR, PTSTR;
typedef LPCSTR LPCTSTR, PCTSTR;
#define __TEXT(s) s
#endif
#define TEXT(s) __TEXT(s)

#define MAX_PATH 260
#define WAIT_OBJECT_0 0x00000000u
#define WAIT_TIMEOUT 258u
#define WAIT_FAILED 0xFFFFFFFFu
#define HEAP_ZERO_MEMORY 0x00000008u
#define LMEM_FIXED 0x0000u
#define LMEM_ZEROINIT 0x0040u
#define LPTR (LMEM_FIXED | LMEM_ZEROINIT)
#define GMEM_FIXED 0x0000u
#define GMEM_ZEROINIT 0x0040u
#define GPTR (GMEM_FIXED | GMEM_ZEROINIT)
#define FORMAT_MESSAGE_ALLOCATE_BUFFER 0x00000100u
#define FORMAT_MESSAGE_IGNORE_INSERTS 0x00000200u
#define FORMAT_MESSAGE_FROM_STRING 0x00000400u
#define FORMAT_MESSAGE_FROM_HMODULE 0x00000800u
#define FORMAT_MESSAGE_FROM_SYSTEM 0x00001000u
#define FORMAT_MESSAGE_ARGUMENT_ARRAY 0x00002000u
#define FORMAT_MESSAGE_MAX_WIDTH_MASK 0x000000FFu
#define LANG_NEUTRAL 0x00
#define LANG_ENGLISH 0x09
#define SUBLANG_NEUTRAL 0x00
#define SUBLANG_DEFAULT 0x01
#define SUBLANG_ENGLISH_US 0x01
#define MAKELANGID(p, s) ((((WORD)(s)) << 10) | (WORD)(p))
#define ERROR_MR_MID_NOT_FOUND 317L
#define ERROR_INVALID_SID 1337L
#define S_OK ((HRESULT)0L)
#define S_FALSE ((HRESULT)1L)
#define NOERROR 0
#define E_FAIL ((HRESULT)0x80004005L)
#define E_INVALIDARG ((HRESULT)0x80070057L)
#define E_OUTOFMEMORY ((HRESULT)0x8007000EL)
#define E_NOTIMPL ((HRESULT)0x80004001L)
#define CO_E_CLASSSTRING ((HRESULT)0x800401F3L)
#define RPC_S_OK 0L
#define SUCCEEDED(hr) (((HRESULT)(hr)) >= 0)
#define FAILED(hr) (((HRESULT)(hr)) < 0)
#define HRESULT_FROM_WIN32(x) \
    ((HRESULT)(x) <= 0 ? ((HRESULT)(x)) : ((HRESULT)(((x) & 0x0000FFFF) | (7 << 16) | 0x80000000)))
#define SW_SHOWDEFAULT 10

#define UNREFERENCED_PARAMETER(P) ((void)(P))
#define DBG_UNREFERENCED_PARAMETER(P) ((void)(P))
#define DBG_UNREFERENCED_LOCAL_VARIABLE(V) ((void)(V))
#define ARRAYSIZE(a) (sizeof(a) / sizeof((a)[0]))
#ifndef _countof
#define _countof(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define RTL_NUMBER_OF(a) (sizeof(a) / sizeof((a)[0]))
#define FIELD_OFFSET(type, field) ((LONG)offsetof(type, field))
#define CONTAINING_RECORD(address, type, field) ((type *)((PCHAR)(address) - offsetof(type, field)))
#define C_ASSERT(e) ETWSIM_STATIC_ASSERT(e, #e)
#define LOWORD(l) ((WORD)(((DWORD_PTR)(l)) & 0xffff))
#define HIWORD(l) ((WORD)((((DWORD_PTR)(l)) >> 16) & 0xffff))
#define LOBYTE(w) ((BYTE)(((DWORD_PTR)(w)) & 0xff))
#define HIBYTE(w) ((BYTE)((((DWORD_PTR)(w)) >> 8) & 0xff))
#define MAKEWORD(a, b) ((WORD)(((BYTE)(a)) | ((WORD)((BYTE)(b))) << 8))
#define MAKELONG(a, b) ((LONG)(((WORD)(a)) | ((DWORD)((WORD)(b))) << 16))
#define RtlZeroMemory(d, n) memset((d), 0, (n))
#define RtlCopyMemory(d, s, n) memcpy((d), (s), (n))
#define RtlMoveMemory(d, s, n) memmove((d), (s), (n))
#define RtlFillMemory(d, n, f) memset((d), (f), (n))
#define RtlEqualMemory(a, b, n) (!memcmp((a), (b), (n)))
#define ZeroMemory RtlZeroMemory
#define CopyMemory RtlCopyMemory
#define MoveMemory RtlMoveMemory
#define FillMemory RtlFillMemory
#define EqualMemory RtlEqualMemory
/* Not elided by the optimiser, as SecureZeroMemory promises. */
ETWSIM_INLINE PVOID SecureZeroMemory(PVOID ptr, SIZE_T cnt) {
    volatile char *p = (volatile char *)ptr;
    while (cnt--)
        *p++ = 0;
    return ptr;
}
#if !defined(NOMINMAX) && !defined(__cplusplus)
#ifndef min
#define min(a, b) (((a) < (b)) ? (a) : (b))
#endif
#ifndef max
#define max(a, b) (((a) > (b)) ? (a) : (b))
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* kernel32: time */
VOID WINAPI Sleep(DWORD dwMilliseconds);
ULONGLONG WINAPI GetTickCount64(void);
DWORD WINAPI GetTickCount(void);
BOOL WINAPI QueryPerformanceCounter(LARGE_INTEGER *lpPerformanceCount);
BOOL WINAPI QueryPerformanceFrequency(LARGE_INTEGER *lpFrequency);
VOID WINAPI GetSystemTimeAsFileTime(LPFILETIME lpSystemTimeAsFileTime);
BOOL WINAPI FileTimeToSystemTime(const FILETIME *lpFileTime, LPSYSTEMTIME lpSystemTime);
BOOL WINAPI SystemTimeToFileTime(const SYSTEMTIME *lpSystemTime, LPFILETIME lpFileTime);
VOID WINAPI GetSystemTime(LPSYSTEMTIME lpSystemTime);
/* kernel32: process and thread ids */
DWORD WINAPI GetCurrentProcessId(void);
DWORD WINAPI GetCurrentThreadId(void);
/* kernel32: memory (the C heap underneath: HeapFree, LocalFree and GlobalFree free it) */
HANDLE WINAPI GetProcessHeap(void);
LPVOID WINAPI HeapAlloc(HANDLE hHeap, DWORD dwFlags, SIZE_T dwBytes);
BOOL WINAPI HeapFree(HANDLE hHeap, DWORD dwFlags, LPVOID lpMem);
HLOCAL WINAPI LocalAlloc(UINT uFlags, SIZE_T uBytes);
HLOCAL WINAPI LocalFree(HLOCAL hMem);
HGLOBAL WINAPI GlobalAlloc(UINT uFlags, SIZE_T dwBytes);
HGLOBAL WINAPI GlobalFree(HGLOBAL hMem);
/* kernel32: messages for Win32 error codes (FORMAT_MESSAGE_FROM_SYSTEM only) */
DWORD WINAPI FormatMessageW(DWORD dwFlags, LPCVOID lpSource, DWORD dwMessageId, DWORD dwLanguageId,
                            LPWSTR lpBuffer, DWORD nSize, va_list *Arguments);
DWORD WINAPI FormatMessageA(DWORD dwFlags, LPCVOID lpSource, DWORD dwMessageId, DWORD dwLanguageId,
                            LPSTR lpBuffer, DWORD nSize, va_list *Arguments);
/* kernel32 / shell32: the command line */
LPWSTR WINAPI GetCommandLineW(void);
LPWSTR *WINAPI CommandLineToArgvW(LPCWSTR lpCmdLine, int *pNumArgs);
/* ole32 / rpcrt4: GUIDs */
int WINAPI StringFromGUID2(REFGUID rguid, LPOLESTR lpsz, int cchMax);
HRESULT WINAPI CLSIDFromString(LPCOLESTR lpsz, LPCLSID pclsid);
HRESULT WINAPI IIDFromString(LPCOLESTR lpsz, LPIID lpiid);
HRESULT WINAPI CoCreateGuid(GUID *pguid);
RPC_STATUS WINAPI UuidCreate(UUID *Uuid);
/* advapi32: SIDs */
BOOL WINAPI ConvertSidToStringSidW(PSID Sid, LPWSTR *StringSid);
#ifdef __cplusplus
}
#endif

ETWSIM_INLINE BOOL IsEqualGUID(const GUID *rguid1, const GUID *rguid2) {
    return !memcmp(rguid1, rguid2, sizeof(GUID));
}
#define InlineIsEqualGUID IsEqualGUID
#define IsEqualIID IsEqualGUID
#define IsEqualCLSID IsEqualGUID
#ifdef __cplusplus
inline BOOL IsEqualGUID(const GUID &a, const GUID &b) { return !memcmp(&a, &b, sizeof(GUID)); }
inline bool operator==(const GUID &a, const GUID &b) { return !memcmp(&a, &b, sizeof(GUID)); }
inline bool operator!=(const GUID &a, const GUID &b) { return !(a == b); }
inline int StringFromGUID2(const GUID &rguid, LPOLESTR lpsz, int cchMax) {
    return StringFromGUID2(&rguid, lpsz, cchMax);
}
#endif

#ifdef UNICODE
#define FormatMessage FormatMessageW
#define ConvertSidToStringSid ConvertSidToStringSidW
#define GetCommandLine GetCommandLineW
#else
#define FormatMessage FormatMessageA
#endif
#endif
