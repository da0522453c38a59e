/*
 * A classic (MOF) provider logging into a file session, read back with ProcessTrace,
 * written the way Microsoft's ETW documentation describes it:
 *
 *   - "Writing MOF (Classic) Events": RegisterTraceGuids with a ControlCallback and the event
 *     class in TRACE_GUID_REGISTRATION; on WMI_ENABLE_EVENTS the callback keeps
 *     GetTraceLoggerHandle(Buffer), GetTraceEnableLevel and GetTraceEnableFlags; on
 *     WMI_DISABLE_EVENTS it forgets them;
 *   - TraceEvent with an EVENT_TRACE_HEADER (Size, Class.Type/Level/Version, Guid,
 *     Flags = WNODE_FLAG_TRACED_GUID) followed by the event data, or with
 *     WNODE_FLAG_USE_MOF_PTR and MOF_FIELD structures pointing at the data, or with
 *     WNODE_FLAG_USE_GUID_PTR and GuidPtr;
 *   - a controller enables it with EnableTrace (the classic form of EnableTraceEx2);
 *   - ProcessTrace delivers classic events as EVENT_RECORDs: ProviderId = the event class
 *     GUID, Opcode = Class.Type, Level = Class.Level, Version = Class.Version, the
 *     EVENT_HEADER_FLAG_CLASSIC_HEADER flag.
 *
 * Usage: classic_provider [FILE.etl]   (default etwsim_classic.etl in the current folder)
 * Prints what it does; exits non-zero on any failure.
 */
#define UNICODE
#include "etwsim.h"
#include "example_support.h"

#define SESSION_NAME L"etwsim classic example"
#define EVENTS 120 /* a third of each form */

/* The provider's control GUID {2b6f4e1c-90a7-4d35-8c1e-7a2d9f0b3c41} */
static const GUID ControlGuid = {0x2b6f4e1c, 0x90a7, 0x4d35, {0x8c, 0x1e, 0x7a, 0x2d, 0x9f, 0x0b, 0x3c, 0x41}};
/* Its event class {2b6f4e1c-90a7-4d35-8c1e-7a2d9f0b3c42} */
static const GUID EventClassGuid = {0x2b6f4e1c, 0x90a7, 0x4d35, {0x8c, 0x1e, 0x7a, 0x2d, 0x9f, 0x0b, 0x3c, 0x42}};

/* What the control callback was told. */
static TRACEHANDLE g_logger;
static UCHAR g_level;
static ULONG g_flags;
static unsigned g_enables, g_disables;

static ULONG WINAPI ControlCallback(WMIDPREQUESTCODE RequestCode, PVOID Context, ULONG *Reserved, PVOID Buffer) {
    (void)Context;
    (void)Reserved;
    switch (RequestCode) {
    case WMI_ENABLE_EVENTS:
        g_logger = GetTraceLoggerHandle(Buffer);
        g_level = GetTraceEnableLevel(g_logger);
        g_flags = GetTraceEnableFlags(g_logger);
        g_enables++;
        printf("provider: WMI_ENABLE_EVENTS level %u flags %#x\n", g_level, g_flags);
        break;
    case WMI_DISABLE_EVENTS:
        g_logger = 0;
        g_disables++;
        printf("provider: WMI_DISABLE_EVENTS\n");
        break;
    default:
        break;
    }
    return ERROR_SUCCESS;
}

/* The event data: a sequence number and a value, as the MOF class would declare them. */
struct payload {
    ULONG seq;
    ULONG value;
};

/* Form 1: the data right after the header. */
struct inline_event {
    EVENT_TRACE_HEADER header;
    struct payload data;
};

/* Form 2: MOF_FIELDs after the header, pointing at the data. */
struct mof_event {
    EVENT_TRACE_HEADER header;
    MOF_FIELD fields[2];
};

static void fill_header(EVENT_TRACE_HEADER *h, USHORT size, UCHAR type, ULONG flags) {
    memset(h, 0, sizeof *h);
    h->Size = size;
    h->Class.Type = type;
    h->Class.Level = g_level;
    h->Class.Version = 1;
    h->Flags = WNODE_FLAG_TRACED_GUID | flags;
    if (flags & WNODE_FLAG_USE_GUID_PTR) {
        h->GuidPtr = (ULONGLONG)(ULONG_PTR)&EventClassGuid;
    } else {
        h->Guid = EventClassGuid;
    }
}

/* Writes event `i` in form i % 3; returns TraceEvent's status. */
static ULONG write_event(ULONG i) {
    struct payload data = {i, 1000 + i};
    UCHAR type = i == 0 ? EVENT_TRACE_TYPE_START : i == EVENTS - 1 ? EVENT_TRACE_TYPE_END : EVENT_TRACE_TYPE_INFO;
    switch (i % 3) {
    case 0: {
        struct inline_event e;
        fill_header(&e.header, sizeof e, type, 0);
        e.data = data;
        return TraceEvent(g_logger, &e.header);
    }
    case 1: {
        struct mof_event e;
        fill_header(&e.header, sizeof e, type, WNODE_FLAG_USE_MOF_PTR);
        memset(e.fields, 0, sizeof e.fields);
        e.fields[0].DataPtr = (ULONG64)(ULONG_PTR)&data.seq;
        e.fields[0].Length = sizeof data.seq;
        e.fields[1].DataPtr = (ULONG64)(ULONG_PTR)&data.value;
        e.fields[1].Length = sizeof data.value;
        return TraceEvent(g_logger, &e.header);
    }
    default: {
        struct inline_event e;
        fill_header(&e.header, sizeof e, type, WNODE_FLAG_USE_GUID_PTR);
        e.data = data;
        return TraceEvent(g_logger, &e.header);
    }
    }
}

struct reader {
    unsigned events;
    unsigned bad;
    unsigned starts, ends;
    ULONG next;
};

static VOID WINAPI OnEvent(PEVENT_RECORD r) {
    struct reader *rd = (struct reader *)r->UserContext;
    if (memcmp(&r->EventHeader.ProviderId, &EventTraceGuid, sizeof(GUID)) == 0) {
        return; /* the log file's header event */
    }
    const EVENT_HEADER *h = &r->EventHeader;
    struct payload data;
    if (memcmp(&h->ProviderId, &EventClassGuid, sizeof(GUID)) != 0 || r->UserDataLength != sizeof data ||
        !(h->Flags & EVENT_HEADER_FLAG_CLASSIC_HEADER) || h->EventDescriptor.Level != TRACE_LEVEL_INFORMATION ||
        h->EventDescriptor.Version != 1 || h->ProcessId != etwsim_process_id()) {
        rd->bad++;
        return;
    }
    memcpy(&data, r->UserData, sizeof data);
    if (data.seq != rd->next || data.value != 1000 + data.seq) {
        rd->bad++;
    }
    rd->next = data.seq + 1;
    rd->starts += h->EventDescriptor.Opcode == EVENT_TRACE_TYPE_START;
    rd->ends += h->EventDescriptor.Opcode == EVENT_TRACE_TYPE_END;
    rd->events++;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "etwsim_classic.etl";
    WCHAR wpath[EXAMPLE_MAX_PATH];

    /* 1. A sequential file session with 16 KB buffers. */
    TRACEHANDLE session;
    PEVENT_TRACE_PROPERTIES props =
        example_start_file_session(path, wpath, SESSION_NAME, sizeof(SESSION_NAME), 16, &session);
    if (props == NULL) {
        return 1;
    }
    ULONG status;

    /* 2. The classic provider registers its control GUID and its event class. */
    TRACE_GUID_REGISTRATION classes[1] = {{&EventClassGuid, NULL}};
    TRACEHANDLE registration = 0;
    status = RegisterTraceGuids(ControlCallback, NULL, &ControlGuid, 1, classes, NULL, NULL, &registration);
    CHECK(status == ERROR_SUCCESS, "RegisterTraceGuids returned %u", status);

    /* 3. The controller enables it: the callback gets the session's handle. */
    status = EnableTrace(TRUE, 0x5, TRACE_LEVEL_INFORMATION, &ControlGuid, session);
    CHECK(status == ERROR_SUCCESS, "EnableTrace returned %u", status);
    CHECK(g_enables == 1 && g_logger == session, "the control callback did not get the session's handle");
    CHECK(g_level == TRACE_LEVEL_INFORMATION && g_flags == 0x5, "level %u flags %#x", g_level, g_flags);

    /* 4. TraceEvent, three forms in turn. */
    for (ULONG i = 0; i < EVENTS; i++) {
        status = write_event(i);
        CHECK(status == ERROR_SUCCESS, "TraceEvent %u returned %u", i, status);
    }
    printf("provider: wrote %d classic events (inline data, MOF_FIELDs, GuidPtr)\n", EVENTS);

    /* A header without WNODE_FLAG_TRACED_GUID is refused and records nothing. */
    struct inline_event bad;
    fill_header(&bad.header, sizeof bad, EVENT_TRACE_TYPE_INFO, 0);
    bad.header.Flags = 0;
    status = TraceEvent(g_logger, &bad.header);
    CHECK(status == ERROR_INVALID_FLAG_NUMBER, "a header without TRACED_GUID: %u", status);

    /* 5. Disable, stop, unregister. */
    status = EnableTrace(FALSE, 0, 0, &ControlGuid, session);
    CHECK(status == ERROR_SUCCESS && g_disables == 1 && g_logger == 0, "EnableTrace(FALSE) returned %u", status);
    status = StopTrace(session, NULL, props);
    CHECK(status == ERROR_SUCCESS, "StopTrace returned %u", status);
    printf("controller: stopped; BuffersWritten %u, EventsLost %u\n", props->BuffersWritten, props->EventsLost);
    CHECK(props->EventsLost == 0, "events were lost");
    CHECK(UnregisterTraceGuids(registration) == ERROR_SUCCESS, "UnregisterTraceGuids failed");

    /* 6. Read it back. */
    struct reader rd;
    memset(&rd, 0, sizeof rd);
    example_read_file(wpath, OnEvent, &rd);
    printf("consumer: %u classic events (%u START, %u END), %u wrong\n", rd.events, rd.starts, rd.ends, rd.bad);
    CHECK(rd.events == EVENTS, "read %u events, wanted %d", rd.events, EVENTS);
    CHECK(rd.starts == 1 && rd.ends == 1, "START/END types wrong");
    CHECK(rd.bad == 0, "%u events with wrong fields or out of order", rd.bad);
    free(props);
    printf("classic_provider: %s holds %d classic events\n", path, EVENTS);
    return example_result("classic_provider");
}
