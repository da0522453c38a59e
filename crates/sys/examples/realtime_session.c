/*
 * A controller, a provider and a real-time consumer in one program, written the way
 * Microsoft's ETW documentation describes each part:
 *
 *   - "Configuring and Starting an Event Tracing Session": allocate EVENT_TRACE_PROPERTIES
 *     with room for the session name after it, StartTrace, EnableTraceEx2;
 *   - "Writing Manifest-based Events": EventRegister with an enable callback,
 *     EventDescCreate, EventDataDescCreate, EventWrite; EventWriteString;
 *   - "Consuming Events": OpenTrace with PROCESS_TRACE_MODE_REAL_TIME |
 *     PROCESS_TRACE_MODE_EVENT_RECORD, ProcessTrace on its own thread (it blocks until the
 *     session stops), CloseTrace;
 *   - ControlTrace(EVENT_TRACE_CONTROL_STOP) returns the session's statistics.
 *
 * Prints what it does; exits non-zero on any failure.
 */
#define UNICODE
#include <pthread.h>

#include "etwsim.h"
#include "example_support.h"

#define SESSION_NAME L"etwsim realtime example"
#define EVENTS 100

/* {8c1d0a1e-77e4-4f0b-9b1c-5e4f3f6a2b01} */
static const GUID ProviderGuid = {0x8c1d0a1e, 0x77e4, 0x4f0b, {0x9b, 0x1c, 0x5e, 0x4f, 0x3f, 0x6a, 0x2b, 0x01}};

/* Written by the enable callback (on the controller's thread) and read after. */
static ULONG g_is_enabled = 0xFFFFFFFFu;
static UCHAR g_level;

static VOID NTAPI EnableCallback(LPCGUID SourceId, ULONG IsEnabled, UCHAR Level, ULONGLONG MatchAnyKeyword,
                                 ULONGLONG MatchAllKeyword, PEVENT_FILTER_DESCRIPTOR FilterData,
                                 PVOID CallbackContext) {
    (void)SourceId;
    (void)MatchAnyKeyword;
    (void)MatchAllKeyword;
    (void)FilterData;
    (void)CallbackContext;
    g_is_enabled = IsEnabled;
    g_level = Level;
    printf("provider: enable callback IsEnabled=%u Level=%u\n", IsEnabled, Level);
}

/* Consumer state: touched only by the ProcessTrace thread until it is joined. */
struct consumer {
    TRACEHANDLE handle;
    ULONG status;
    unsigned events;
    unsigned strings;
    unsigned out_of_order;
    unsigned foreign;
    ULONG next;
    ULONG pid;
};

static VOID WINAPI EventRecordCallback(PEVENT_RECORD EventRecord) {
    struct consumer *c = (struct consumer *)EventRecord->UserContext;
    if (memcmp(&EventRecord->EventHeader.ProviderId, &ProviderGuid, sizeof(GUID)) != 0 ||
        EventRecord->EventHeader.ProcessId != c->pid) {
        c->foreign++;
        return;
    }
    if (EventRecord->EventHeader.Flags & EVENT_HEADER_FLAG_STRING_ONLY) {
        const WCHAR *s = (const WCHAR *)EventRecord->UserData;
        if (EventRecord->UserDataLength >= 2 * 5 && s[0] == L'd' && s[4] == L'!') {
            c->strings++;
        }
        return;
    }
    if (EventRecord->EventHeader.EventDescriptor.Id != 1 || EventRecord->UserDataLength != 2 * sizeof(ULONG)) {
        c->foreign++;
        return;
    }
    ULONG seq, square;
    memcpy(&seq, EventRecord->UserData, sizeof seq);
    memcpy(&square, (const char *)EventRecord->UserData + sizeof seq, sizeof square);
    if (seq != c->next || square != seq * seq) {
        c->out_of_order++;
    }
    c->next = seq + 1;
    c->events++;
}

static void *ConsumerThread(void *arg) {
    struct consumer *c = (struct consumer *)arg;
    c->status = ProcessTrace(&c->handle, 1, NULL, NULL);
    return NULL;
}

int main(void) {
    /* 1. Start a real-time session. */
    ULONG size = sizeof(EVENT_TRACE_PROPERTIES) + sizeof(SESSION_NAME);
    PEVENT_TRACE_PROPERTIES props = (PEVENT_TRACE_PROPERTIES)calloc(1, size);
    if (props == NULL) {
        return 2;
    }
    props->Wnode.BufferSize = size;
    props->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    props->Wnode.ClientContext = 1; /* QPC clock */
    props->LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
    props->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    TRACEHANDLE session = 0;
    ULONG status = StartTrace(&session, SESSION_NAME, props);
    CHECK(status == ERROR_SUCCESS, "StartTrace returned %u", status);
    CHECK(session != 0, "StartTrace gave no handle");
    printf("controller: StartTrace -> %u, handle %#llx, BufferSize %u KB, %u buffers\n", status,
           (unsigned long long)session, props->BufferSize, props->NumberOfBuffers);
    CHECK(props->Wnode.HistoricalContext == session, "Wnode.HistoricalContext is not the handle");
    CHECK(memcmp((char *)props + props->LoggerNameOffset, SESSION_NAME, sizeof(SESSION_NAME)) == 0,
          "the session name was not copied to LoggerNameOffset");

    /* 2. Register the provider; nothing enables it yet. */
    REGHANDLE reg = 0;
    status = EventRegister(&ProviderGuid, EnableCallback, NULL, &reg);
    CHECK(status == ERROR_SUCCESS && reg != 0, "EventRegister returned %u", status);
    CHECK(!EventProviderEnabled(reg, TRACE_LEVEL_INFORMATION, 0), "enabled before EnableTraceEx2");

    /* 3. Enable it at level INFORMATION: the callback runs before EnableTraceEx2 returns. */
    status = EnableTraceEx2(session, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, TRACE_LEVEL_INFORMATION,
                            0, 0, INFINITE, NULL);
    CHECK(status == ERROR_SUCCESS, "EnableTraceEx2 returned %u", status);
    CHECK(g_is_enabled == EVENT_CONTROL_CODE_ENABLE_PROVIDER && g_level == TRACE_LEVEL_INFORMATION,
          "the enable callback saw IsEnabled=%u Level=%u", g_is_enabled, g_level);
    printf("controller: EnableTraceEx2 -> %u\n", status);

    /* 4. Attach a real-time consumer and run ProcessTrace on its own thread. */
    struct consumer c;
    memset(&c, 0, sizeof c);
    c.pid = etwsim_process_id();
    EVENT_TRACE_LOGFILE logfile;
    memset(&logfile, 0, sizeof logfile);
    logfile.LoggerName = (LPWSTR)SESSION_NAME;
    logfile.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD;
    logfile.EventRecordCallback = EventRecordCallback;
    logfile.Context = &c;
    c.handle = OpenTrace(&logfile);
    CHECK(c.handle != INVALID_PROCESSTRACE_HANDLE, "OpenTrace failed: %u", GetLastError());
    pthread_t thread;
    int started = pthread_create(&thread, NULL, ConsumerThread, &c) == 0;
    CHECK(started, "pthread_create failed");
    printf("consumer: OpenTrace -> %#llx, ProcessTrace running\n", (unsigned long long)c.handle);

    /* 5. Write events: EVENTS at INFORMATION, EVENTS at VERBOSE (filtered), one string. */
    EVENT_DESCRIPTOR info, verbose;
    EventDescCreate(&info, 1, 0, 0, TRACE_LEVEL_INFORMATION, 0, 0, 0);
    EventDescCreate(&verbose, 2, 0, 0, TRACE_LEVEL_VERBOSE, 0, 0, 0);
    CHECK(EventEnabled(reg, &info), "EventEnabled(INFORMATION) is FALSE");
    CHECK(!EventEnabled(reg, &verbose), "EventEnabled(VERBOSE) is TRUE");
    for (ULONG i = 0; i < EVENTS; i++) {
        ULONG square = i * i;
        EVENT_DATA_DESCRIPTOR data[2];
        EventDataDescCreate(&data[0], &i, sizeof i);
        EventDataDescCreate(&data[1], &square, sizeof square);
        status = EventWrite(reg, &info, 2, data);
        CHECK(status == ERROR_SUCCESS, "EventWrite %u returned %u", i, status);
        status = EventWrite(reg, &verbose, 2, data);
        CHECK(status == ERROR_SUCCESS, "EventWrite (verbose) %u returned %u", i, status);
    }
    status = EventWriteString(reg, TRACE_LEVEL_INFORMATION, 0, L"done!");
    CHECK(status == ERROR_SUCCESS, "EventWriteString returned %u", status);
    printf("provider: wrote %d events at INFORMATION, %d at VERBOSE, 1 string\n", EVENTS, EVENTS);

    /* 6. Stop the session: the last buffers are delivered, then ProcessTrace returns. */
    status = ControlTrace(session, NULL, props, EVENT_TRACE_CONTROL_STOP);
    CHECK(status == ERROR_SUCCESS, "ControlTrace(STOP) returned %u", status);
    printf("controller: stopped; EventsLost %u, RealTimeBuffersLost %u\n", props->EventsLost,
           props->RealTimeBuffersLost);
    CHECK(props->EventsLost == 0, "EventsLost %u", props->EventsLost);
    CHECK(g_is_enabled == EVENT_CONTROL_CODE_DISABLE_PROVIDER, "no disable callback at stop");
    if (started) {
        pthread_join(thread, NULL);
    }
    CHECK(c.status == ERROR_SUCCESS, "ProcessTrace returned %u", c.status);
    status = CloseTrace(c.handle);
    CHECK(status == ERROR_SUCCESS, "CloseTrace returned %u", status);
    printf("consumer: ProcessTrace -> %u; %u events, %u strings\n", c.status, c.events, c.strings);
    CHECK(c.events == EVENTS, "received %u events, wanted %d", c.events, EVENTS);
    CHECK(c.strings == 1, "received %u strings, wanted 1", c.strings);
    CHECK(c.out_of_order == 0, "%u events out of order or with a wrong payload", c.out_of_order);
    CHECK(c.foreign == 0, "%u unexpected events", c.foreign);

    /* 7. Clean up; a second EventUnregister is ERROR_INVALID_HANDLE. */
    status = EventUnregister(reg);
    CHECK(status == ERROR_SUCCESS, "EventUnregister returned %u", status);
    status = EventUnregister(reg);
    CHECK(status == ERROR_INVALID_HANDLE, "a second EventUnregister returned %u", status);
    free(props);

    return example_result("realtime_session");
}
