/*
 * The UTF-16 runtime under etwsim-cc: the cases glibc gets wrong under -fshort-wchar
 * (wcslen, wcscpy, wprintf, swprintf), the MSVC printf dialect, the *_s and strsafe error
 * codes, and a provider that sizes its payload with wcslen (2N+2 bytes, as on Windows).
 * Standard output is compared with crt_check.expected by run_examples.sh.
 */
#include <windows.h>
#include <tchar.h>
#include <strsafe.h>
#include <errno.h>
#include <stdlib.h>

static int failures;
#define CHECK(e)                                                                                   \
    do {                                                                                           \
        if (!(e)) {                                                                                \
            fprintf(stderr, "FAILED line %d: %s\n", __LINE__, #e);                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static const GUID ProviderGuid = {0x5dd3a0a1, 0x0032, 0x4000, {0x80, 0, 0, 0, 0, 0, 0, 0x32}};
static ULONG g_events;
static VOID WINAPI OnEvent(PEVENT_RECORD r) {
    if (IsEqualGUID(&r->EventHeader.ProviderId, &ProviderGuid)) {
        g_events++;
        wprintf(L"event %u: %u bytes: %ls\n", r->EventHeader.EventDescriptor.Id, r->UserDataLength,
                (const wchar_t *)r->UserData);
    }
}

int main(void) {
    const wchar_t *text = L"23 characters long text";
    CHECK(wcslen(text) == 23);
    CHECK(wcsnlen(text, 5) == 5);
    wchar_t buf[64];
    CHECK(wcscpy(buf, text) == buf && wcscmp(buf, text) == 0);
    CHECK(wcscat(buf, L"!") == buf && wcslen(buf) == 24);
    CHECK(wcsncmp(buf, L"23 charX", 7) == 0 && wcsncmp(buf, L"23 charX", 8) > 0);
    CHECK(_wcsicmp(L"Hello", L"hELLO") == 0);
    CHECK(wcschr(buf, L'c') == buf + 3 && wcsrchr(buf, L't') == buf + 22 && wcsstr(buf, L"long") == buf + 14);
    CHECK(wcstol(L"-0x10", NULL, 16) == -16 && wcstoul(L"4294967295", NULL, 10) == 4294967295u);
    CHECK(_wtoi(L"  42x") == 42);
    wchar_t *dup = _wcsdup(text);
    CHECK(dup && wcscmp(dup, text) == 0);
    free(dup);

    /* *_s: their errno values, never a write past the declared size. */
    wchar_t small[8];
    CHECK(wcscpy_s(small, 8, text) == ERANGE && small[0] == 0);
    CHECK(wcscpy_s(NULL, 8, text) == EINVAL);
    CHECK(wcscpy_s(small, 8, NULL) == EINVAL);
    CHECK(wcsncpy_s(small, 8, text, _TRUNCATE) == STRUNCATE && wcscmp(small, L"23 char") == 0);
    CHECK(wcscpy_s(small, 8, L"abc") == 0 && wcscat_s(small, 8, L"defg") == 0 && wcscmp(small, L"abcdefg") == 0);
    CHECK(wcscat_s(small, 8, L"h") == ERANGE);

    /* strsafe */
    TCHAR line[16];
    CHECK(StringCchPrintf(line, ARRAYSIZE(line), TEXT("%s=%d"), TEXT("answer"), 42) == S_OK);
    CHECK(_tcscmp(line, TEXT("answer=42")) == 0);
    CHECK(StringCchPrintf(line, 6, TEXT("%s"), TEXT("too long")) == STRSAFE_E_INSUFFICIENT_BUFFER &&
          _tcscmp(line, TEXT("too l")) == 0);
    CHECK(StringCchPrintf(line, 0, TEXT("x")) == STRSAFE_E_INVALID_PARAMETER);
    CHECK(StringCchCopyW(small, 8, L"0123456789") == STRSAFE_E_INSUFFICIENT_BUFFER && wcscmp(small, L"0123456") == 0);
    CHECK(StringCchCatW(small, 8, L"x") == STRSAFE_E_INSUFFICIENT_BUFFER);
    size_t len = 99;
    CHECK(StringCchLengthW(L"abc", 10, &len) == S_OK && len == 3);
    CHECK(StringCchLengthW(small, 3, &len) == STRSAFE_E_INVALID_PARAMETER && len == 0);
    CHECK(StringCbPrintfW(buf, sizeof buf, L"%04x", 0xab) == S_OK && wcscmp(buf, L"00ab") == 0);

    /* swprintf / _snwprintf: the counts and terminators Windows documents. */
    CHECK(swprintf(buf, 64, L"%d-%ls", 7, L"seven") == 7 && wcscmp(buf, L"7-seven") == 0);
    CHECK(swprintf(buf, 4, L"%ls", L"seven") == -1 && wcscmp(buf, L"sev") == 0);
    CHECK(_snwprintf(buf, 5, L"%ls", L"seven") == 5 && buf[4] == L'n');

    /* printf and wprintf in Microsoft's dialect (compared with crt_check.expected). */
    unsigned long long big = 0x123456789abcdefULL;
    printf("narrow: %I64x %I64u %S %ls %hs %ws %lu\n", big, big, L"wide-S", L"wide-ls", "narrow-hs", L"wide-ws",
           (unsigned long)4000000000u);
    wprintf(L"wide: %I64X %s %S %hs %ls %ws %5.2f|%-4d|%c%C\n", big, L"wide-s", "narrow-S", "narrow-hs", L"wide-ls",
            L"wide-ws", 3.14159, 7, L'w', 'n');
    _tprintf(_T("tchar: %s %zu\n"), _T("generic"), wcslen(text));
    wprintf(L"%ls\n", L"non-ASCII: \u00e9\u4e2d");
    fflush(stdout);

    /* A provider that sizes its payload with wcslen: 2N+2 bytes, as Windows writes. */
    CHECK(etwsim_set_deterministic(32) == ERROR_SUCCESS);
    struct {
        EVENT_TRACE_PROPERTIES p;
        WCHAR name[64];
    } props;
    ZeroMemory(&props, sizeof props);
    props.p.Wnode.BufferSize = sizeof props;
    props.p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    props.p.Wnode.ClientContext = 1;
    props.p.LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
    props.p.LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    TRACEHANDLE session = 0;
    CHECK(StartTraceW(&session, L"etwsim crt_check", &props.p) == ERROR_SUCCESS);
    CHECK(EnableTraceEx2(session, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, TRACE_LEVEL_VERBOSE, 0, 0, 0,
                         NULL) == ERROR_SUCCESS);
    REGHANDLE reg = 0;
    CHECK(EventRegister(&ProviderGuid, NULL, NULL, &reg) == ERROR_SUCCESS);
    const wchar_t *message = L"a UTF-16 payload of eighty characters, sized with wcslen as programs do it......";
    EVENT_DESCRIPTOR desc;
    EventDescCreate(&desc, 1, 0, 0, TRACE_LEVEL_INFORMATION, 0, 0, 0);
    EVENT_DATA_DESCRIPTOR data;
    EventDataDescCreate(&data, message, (ULONG)((wcslen(message) + 1) * sizeof(WCHAR)));
    CHECK(data.Size == 162);
    CHECK(EventWrite(reg, &desc, 1, &data) == ERROR_SUCCESS);
    EVENT_TRACE_LOGFILEW log;
    ZeroMemory(&log, sizeof log);
    log.LoggerName = (LPWSTR)L"etwsim crt_check";
    log.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD;
    log.EventRecordCallback = OnEvent;
    TRACEHANDLE h = OpenTraceW(&log);
    CHECK(h != INVALID_PROCESSTRACE_HANDLE);
    CHECK(EventUnregister(reg) == ERROR_SUCCESS);
    CHECK(ControlTraceW(session, NULL, &props.p, EVENT_TRACE_CONTROL_STOP) == ERROR_SUCCESS);
    CHECK(ProcessTrace(&h, 1, NULL, NULL) == ERROR_SUCCESS);
    CHECK(CloseTrace(h) == ERROR_SUCCESS);
    CHECK(g_events == 1);

    if (failures) {
        fprintf(stderr, "crt_check: %d failures\n", failures);
        return 1;
    }
    wprintf(L"crt_check: ok\n");
    return 0;
}
