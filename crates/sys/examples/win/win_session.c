/*
 * A Windows-style ETW program, built unchanged with etwsim-cc: _tmain (wmain with
 * _UNICODE), tchar.h, StringCchPrintf, a manifest-less provider, a controller
 * (StartTrace/EnableTraceEx2/ControlTrace stop) and a real-time consumer printing with
 * wprintf. (One process: etwsim's machine is per process.)
 */
#include <windows.h>
#include <tchar.h>
#include <strsafe.h>
#include <evntrace.h>
#include <evntprov.h>
#include <evntcons.h>

static const GUID ProviderId = {0x5dd3a0a1, 0x0032, 0x4000, {0x80, 0, 0, 0, 0, 0, 0, 0x04}};
#define SESSION_NAME _T("etwsim win_session")
static ULONG g_seen;

static VOID WINAPI OnEvent(PEVENT_RECORD pEvent) {
    if (!IsEqualGUID(&pEvent->EventHeader.ProviderId, &ProviderId))
        return;
    g_seen++;
    wprintf(L"event %u level %u: %ls (%u bytes)\n", pEvent->EventHeader.EventDescriptor.Id,
            pEvent->EventHeader.EventDescriptor.Level, (PCWSTR)pEvent->UserData, pEvent->UserDataLength);
}

int _tmain(int argc, _TCHAR *argv[]) {
    ULONG status;
    int count = argc > 1 ? _ttoi(argv[1]) : 3;
    SIZE_T size = sizeof(EVENT_TRACE_PROPERTIES) + sizeof(SESSION_NAME);
    PEVENT_TRACE_PROPERTIES props = (PEVENT_TRACE_PROPERTIES)HeapAlloc(GetProcessHeap(), HEAP_ZERO_MEMORY, size);
    if (!props)
        return 1;
    props->Wnode.BufferSize = (ULONG)size;
    props->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    props->Wnode.ClientContext = 1;
    props->LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
    props->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    TRACEHANDLE session = 0;
    status = StartTrace(&session, SESSION_NAME, props);
    if (status != ERROR_SUCCESS) {
        wprintf(L"StartTrace failed: %lu\n", status);
        return 1;
    }
    status = EnableTraceEx2(session, &ProviderId, EVENT_CONTROL_CODE_ENABLE_PROVIDER, TRACE_LEVEL_VERBOSE, 0, 0, 0,
                            NULL);
    REGHANDLE reg = 0;
    if (status == ERROR_SUCCESS)
        status = EventRegister(&ProviderId, NULL, NULL, &reg);
    for (int i = 1; status == ERROR_SUCCESS && i <= count; i++) {
        TCHAR text[64];
        if (FAILED(StringCchPrintf(text, ARRAYSIZE(text), _T("message %d of %d from %s"), i, count, _T("_tmain"))))
            return 1;
        EVENT_DESCRIPTOR desc;
        EVENT_DATA_DESCRIPTOR data;
        EventDescCreate(&desc, (USHORT)i, 0, 0, TRACE_LEVEL_INFORMATION, 0, 0, 0);
        EventDataDescCreate(&data, text, (ULONG)((_tcslen(text) + 1) * sizeof(TCHAR)));
        status = EventWrite(reg, &desc, 1, &data);
    }
    EVENT_TRACE_LOGFILE log;
    ZeroMemory(&log, sizeof log);
    log.LoggerName = (LPTSTR)SESSION_NAME;
    log.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD;
    log.EventRecordCallback = OnEvent;
    TRACEHANDLE trace = OpenTrace(&log);
    if (trace == INVALID_PROCESSTRACE_HANDLE) {
        WCHAR msg[256];
        FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, GetLastError(), 0, msg,
                       ARRAYSIZE(msg), NULL);
        wprintf(L"OpenTrace failed: %ls", msg);
        return 1;
    }
    EventUnregister(reg);
    status = ControlTrace(session, NULL, props, EVENT_TRACE_CONTROL_STOP);
    wprintf(L"ControlTrace stop: %lu; %lu events lost\n", status, props->EventsLost);
    ProcessTrace(&trace, 1, NULL, NULL);
    CloseTrace(trace);
    HeapFree(GetProcessHeap(), 0, props);
    wprintf(L"%lu of %d events read\n", g_seen, count);
    return g_seen == (ULONG)count ? 0 : 1;
}
