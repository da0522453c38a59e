/*
 * stdio.h for etwsim-cc: glibc's <stdio.h>, with the printf and wprintf families speaking
 * Microsoft's dialect (%I64x, %S, %ls, %hs, %ws; long is 32 bits; %p is 16 hex digits;
 * %n refused) on 16-bit wchar_t, formatted by libetwsim_sys (etwsim_fmt).
 *
 * These are static inline functions: their only C part is taking the arguments from the
 * va_list, by the kinds etwsim_fmt_kinds reads from the format. glibc's declarations are
 * hidden under etwsim_glibc_* names while it is included. Wide text written to a FILE is
 * UTF-8; narrow %s arguments in wide output are one unit per byte (the "C" locale).
 * At most ETWSIM_FMT_MAX_ARGS (64) arguments per call; more is refused (-1, EINVAL).
 */
#ifndef ETWSIM_WIN_STDIO_H
#define ETWSIM_WIN_STDIO_H
#define printf etwsim_glibc_printf
#define fprintf etwsim_glibc_fprintf
#define sprintf etwsim_glibc_sprintf
#define snprintf etwsim_glibc_snprintf
#define vprintf etwsim_glibc_vprintf
#define vfprintf etwsim_glibc_vfprintf
#define vsprintf etwsim_glibc_vsprintf
#define vsnprintf etwsim_glibc_vsnprintf
#include_next <stdio.h>
#undef printf
#undef fprintf
#undef sprintf
#undef snprintf
#undef vprintf
#undef vfprintf
#undef vsprintf
#undef vsnprintf
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <wchar.h>

#ifdef __cplusplus
extern "C" {
#endif
typedef union etwsim_fmt_arg {
    long long i;
    double d;
    const void *p;
} etwsim_fmt_arg;
int etwsim_fmt_kinds(const void *fmt, int wide, unsigned char *kinds, size_t max);
int etwsim_fmt(const void *fmt, int wide, const etwsim_fmt_arg *args, size_t nargs, int dest,
               void *out, size_t cap);
int etwsim_strsafe_printf(void *dst, size_t cch, int wide, const void *fmt,
                          const etwsim_fmt_arg *args, size_t nargs);
#ifdef __cplusplus
}
#endif
#define ETWSIM_FMT_MAX_ARGS 64

/* Takes fmt's arguments from ap into args; -1 (EINVAL) for a refused format. */
static inline int etwsim_fmt_collect(const void *fmt, int wide, va_list ap, etwsim_fmt_arg *args) {
    unsigned char kinds[ETWSIM_FMT_MAX_ARGS];
    int n = etwsim_fmt_kinds(fmt, wide, kinds, ETWSIM_FMT_MAX_ARGS);
    for (int i = 0; i < n; i++) {
        switch (kinds[i]) {
        case 1: args[i].i = va_arg(ap, int); break;
        case 2: args[i].i = va_arg(ap, long long); break;
        case 3: args[i].d = va_arg(ap, double); break;
        case 4: args[i].d = (double)va_arg(ap, long double); break;
        default: args[i].p = va_arg(ap, const void *); break;
        }
    }
    if (n < 0)
        errno = EINVAL;
    return n;
}

static inline int etwsim_vfmt(const void *fmt, int wide, int dest, void *out, size_t cap, va_list ap) {
    etwsim_fmt_arg args[ETWSIM_FMT_MAX_ARGS];
    int n = etwsim_fmt_collect(fmt, wide, ap, args);
    if (n < 0)
        return -1;
    return etwsim_fmt(fmt, wide, args, (size_t)n, dest, out, cap);
}

#define ETWSIM_VA_FMT(fmt, wide, dest, out, cap)                                               \
    va_list ap;                                                                                \
    va_start(ap, fmt);                                                                         \
    int r = etwsim_vfmt(fmt, wide, dest, out, cap, ap);                                        \
    va_end(ap);                                                                                \
    return r

/* narrow */
static inline int vfprintf(FILE *stream, const char *format, va_list ap) {
    return etwsim_vfmt(format, 0, 0, stream, 0, ap);
}
static inline int vprintf(const char *format, va_list ap) { return etwsim_vfmt(format, 0, 0, stdout, 0, ap); }
static inline int vsprintf(char *buffer, const char *format, va_list ap) {
    return etwsim_vfmt(format, 0, 4, buffer, 0, ap);
}
static inline int vsnprintf(char *buffer, size_t count, const char *format, va_list ap) {
    return etwsim_vfmt(format, 0, 3, buffer, count, ap);
}
static inline int printf(const char *format, ...) { ETWSIM_VA_FMT(format, 0, 0, stdout, 0); }
static inline int fprintf(FILE *stream, const char *format, ...) { ETWSIM_VA_FMT(format, 0, 0, stream, 0); }
static inline int sprintf(char *buffer, const char *format, ...) { ETWSIM_VA_FMT(format, 0, 4, buffer, 0); }
static inline int snprintf(char *buffer, size_t count, const char *format, ...) {
    ETWSIM_VA_FMT(format, 0, 3, buffer, count);
}
/* wide */
static inline int vfwprintf(FILE *stream, const wchar_t *format, va_list ap) {
    return etwsim_vfmt(format, 1, 0, stream, 0, ap);
}
static inline int vwprintf(const wchar_t *format, va_list ap) { return etwsim_vfmt(format, 1, 0, stdout, 0, ap); }
static inline int vswprintf(wchar_t *buffer, size_t count, const wchar_t *format, va_list ap) {
    return etwsim_vfmt(format, 1, 1, buffer, count, ap);
}
static inline int _vsnwprintf(wchar_t *buffer, size_t count, const wchar_t *format, va_list ap) {
    return etwsim_vfmt(format, 1, 2, buffer, count, ap);
}
static inline int wprintf(const wchar_t *format, ...) { ETWSIM_VA_FMT(format, 1, 0, stdout, 0); }
static inline int fwprintf(FILE *stream, const wchar_t *format, ...) { ETWSIM_VA_FMT(format, 1, 0, stream, 0); }
static inline int swprintf(wchar_t *buffer, size_t count, const wchar_t *format, ...) {
    ETWSIM_VA_FMT(format, 1, 1, buffer, count);
}
static inline int _snwprintf(wchar_t *buffer, size_t count, const wchar_t *format, ...) {
    ETWSIM_VA_FMT(format, 1, 2, buffer, count);
}
#endif
