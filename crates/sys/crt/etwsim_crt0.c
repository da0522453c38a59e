/*
 * etwsim_crt0.c: the Windows entry points for programs linked by etwsim-cc/etwsim-c++.
 * A weak main: a program's own main wins; otherwise this calls the program's wmain
 * (argv as UTF-16), WinMain or wWinMain (the command line after the program name, and
 * SW_SHOWDEFAULT), whichever it defines.
 */
#include <stddef.h>
#include <stdio.h>

#if !defined(__SIZEOF_WCHAR_T__) || __SIZEOF_WCHAR_T__ != 2
#error "etwsim_crt0.c is built with -fshort-wchar"
#endif

extern int wmain(int argc, wchar_t **argv, wchar_t **envp) __attribute__((weak));
extern int WinMain(void *hInstance, void *hPrevInstance, char *lpCmdLine, int nShowCmd) __attribute__((weak));
extern int wWinMain(void *hInstance, void *hPrevInstance, wchar_t *lpCmdLine, int nShowCmd)
    __attribute__((weak));
wchar_t **etwsim_wide_argv(void);
const wchar_t *GetCommandLineW(void);

/* The command line after the program name, as Windows passes it to WinMain. */
static const wchar_t *after_program(const wchar_t *s) {
    if (*s == L'"') {
        for (s++; *s && *s != L'"'; s++)
            ;
        if (*s)
            s++;
    } else {
        while (*s && *s != L' ' && *s != L'\t')
            s++;
    }
    while (*s == L' ' || *s == L'\t')
        s++;
    return s;
}

static char *skip_program(int argc, char **argv, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = 0;
    for (int i = 1; i < argc; i++) {
        for (const char *p = argv[i]; *p && n + 2 < cap; p++)
            buf[n++] = *p;
        if (i + 1 < argc && n + 2 < cap)
            buf[n++] = ' ';
        buf[n] = 0;
    }
    return buf;
}

__attribute__((weak)) int main(int argc, char **argv) {
    if (wmain) {
        wchar_t **wargv = etwsim_wide_argv();
        int n = 0;
        while (wargv[n])
            n++;
        return wmain(n, wargv, NULL);
    }
    if (wWinMain)
        return wWinMain(NULL, NULL, (wchar_t *)after_program(GetCommandLineW()), 10);
    if (WinMain) {
        static char line[32768];
        return WinMain(NULL, NULL, skip_program(argc, argv, line, sizeof line), 10);
    }
    fputs("etwsim: the program defines none of main, wmain, WinMain, wWinMain\n", stderr);
    return 1;
}
