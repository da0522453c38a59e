/*
 * A file session read back with ProcessTrace, written the way Microsoft's ETW
 * documentation describes it:
 *
 *   - "Configuring and Starting an Event Tracing Session": EVENT_TRACE_PROPERTIES followed
 *     by the session name and the log file name, LogFileNameOffset set and the file name
 *     copied there, EVENT_TRACE_FILE_MODE_SEQUENTIAL;
 *   - a provider writes with EventWrite and EventWriteTransfer (an activity ID and a
 *     related activity ID);
 *   - StopTrace finishes the file; OpenTrace(LogFileName) fills LogfileHeader; ProcessTrace
 *     delivers every event oldest first, then BufferCallback (return TRUE to go on).
 *
 * Usage: file_session [FILE.etl]   (default etwsim_file_session.etl in the current folder)
 * Prints what it does; exits non-zero on any failure.
 */
#define UNICODE
#include "etwsim.h"
#include "example_support.h"

#define SESSION_NAME L"etwsim file example"
#define EVENTS 500

/* {3f9c2b7a-1d44-4e0c-a7d2-6b2f8e9c0d11} */
static const GUID ProviderGuid = {0x3f9c2b7a, 0x1d44, 0x4e0c, {0xa7, 0xd2, 0x6b, 0x2f, 0x8e, 0x9c, 0x0d, 0x11}};
/* {0b0f1e2d-3c4b-4a59-8687-98a9bacbdcee} */
static const GUID Activity = {0x0b0f1e2d, 0x3c4b, 0x4a59, {0x86, 0x87, 0x98, 0xa9, 0xba, 0xcb, 0xdc, 0xee}};

struct reader {
    unsigned events;
    unsigned transfers;
    unsigned related;
    unsigned bad;
    unsigned header_events;
    ULONG next;
    LONGLONG last_time;
    unsigned buffer_calls;
    ULONG buffers_read;
};

static VOID WINAPI OnEvent(PEVENT_RECORD r) {
    struct reader *rd = (struct reader *)r->UserContext;
    /* As Microsoft's samples do: the first event of a log file is its header event
       (EventTraceGuid, EVENT_TRACE_TYPE_INFO), and buffer 0 may hold more EventTrace records. */
    if (memcmp(&r->EventHeader.ProviderId, &EventTraceGuid, sizeof(GUID)) == 0) {
        if (r->EventHeader.EventDescriptor.Opcode == EVENT_TRACE_TYPE_INFO && rd->events > 0) {
            rd->bad++; /* the header event must come before every event */
        }
        rd->header_events++;
        return;
    }
    if (memcmp(&r->EventHeader.ProviderId, &ProviderGuid, sizeof(GUID)) != 0 || r->UserDataLength != 12) {
        rd->bad++;
        return;
    }
    ULONG seq;
    ULONGLONG value;
    memcpy(&seq, r->UserData, 4);
    memcpy(&value, (const char *)r->UserData + 4, 8);
    if (seq != rd->next || value != 0x1000000000ull + seq || r->EventHeader.TimeStamp.QuadPart < rd->last_time) {
        rd->bad++;
    }
    rd->next = seq + 1;
    rd->last_time = r->EventHeader.TimeStamp.QuadPart;
    if (r->EventHeader.EventDescriptor.Id == 2) {
        rd->transfers += memcmp(&r->EventHeader.ActivityId, &Activity, sizeof(GUID)) == 0;
        for (USHORT i = 0; i < r->ExtendedDataCount; i++) {
            if (r->ExtendedData[i].ExtType == EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID &&
                r->ExtendedData[i].DataSize == sizeof(GUID)) {
                rd->related++;
            }
        }
    }
    rd->events++;
}

static struct reader *g_reader;

static ULONG WINAPI OnBuffer(PEVENT_TRACE_LOGFILEW logfile) {
    g_reader->buffer_calls++;
    g_reader->buffers_read = logfile->BuffersRead;
    return TRUE;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "etwsim_file_session.etl";
    WCHAR wpath[EXAMPLE_MAX_PATH];

    /* 1. Properties, then the session name, then the log file name (example_support.h):
     *    a sequential file with 64 KB buffers. */
    TRACEHANDLE session;
    PEVENT_TRACE_PROPERTIES props =
        example_start_file_session(path, wpath, SESSION_NAME, sizeof(SESSION_NAME), 64, &session);
    if (props == NULL) {
        return 1;
    }
    ULONG status;

    /* 2. A provider, enabled with keyword 0x1. */
    REGHANDLE reg = 0;
    status = EventRegister(&ProviderGuid, NULL, NULL, &reg);
    CHECK(status == ERROR_SUCCESS, "EventRegister returned %u", status);
    status = EnableTraceEx2(session, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, TRACE_LEVEL_VERBOSE, 0x1, 0,
                            0, NULL);
    CHECK(status == ERROR_SUCCESS, "EnableTraceEx2 returned %u", status);

    /* 3. EVENTS events; every tenth through EventWriteTransfer. Keyword 0x2 events are not
     *    wanted by the session (MatchAnyKeyword 0x1) and are not recorded. */
    EVENT_DESCRIPTOR plain, transfer, unwanted;
    EventDescCreate(&plain, 1, 0, 0, TRACE_LEVEL_INFORMATION, 0, 0, 0x1);
    EventDescCreate(&transfer, 2, 0, 0, TRACE_LEVEL_INFORMATION, 0, 1 /* START */, 0x1);
    EventDescCreate(&unwanted, 3, 0, 0, TRACE_LEVEL_INFORMATION, 0, 0, 0x2);
    GUID related = Activity;
    related.Data1 ^= 0xFFFFu;
    for (ULONG i = 0; i < EVENTS; i++) {
        ULONGLONG value = 0x1000000000ull + i;
        EVENT_DATA_DESCRIPTOR data[2];
        EventDataDescCreate(&data[0], &i, sizeof i);
        EventDataDescCreate(&data[1], &value, sizeof value);
        if (i % 10 == 0) {
            status = EventWriteTransfer(reg, &transfer, &Activity, &related, 2, data);
        } else {
            status = EventWrite(reg, &plain, 2, data);
        }
        CHECK(status == ERROR_SUCCESS, "write %u returned %u", i, status);
        status = EventWrite(reg, &unwanted, 2, data);
        CHECK(status == ERROR_SUCCESS, "unwanted write %u returned %u", i, status);
    }
    printf("provider: wrote %d events (%d with EventWriteTransfer)\n", EVENTS, EVENTS / 10);

    /* 4. Stop: the file is complete. */
    status = StopTrace(session, NULL, props);
    CHECK(status == ERROR_SUCCESS, "StopTrace returned %u", status);
    printf("controller: stopped; BuffersWritten %u, EventsLost %u, LogBuffersLost %u\n", props->BuffersWritten,
           props->EventsLost, props->LogBuffersLost);
    CHECK(props->EventsLost == 0 && props->LogBuffersLost == 0, "events or buffers were lost");
    EventUnregister(reg);

    /* 5. Read it back. */
    struct reader rd;
    memset(&rd, 0, sizeof rd);
    g_reader = &rd;
    EVENT_TRACE_LOGFILEW logfile;
    memset(&logfile, 0, sizeof logfile);
    logfile.LogFileName = wpath;
    logfile.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
    logfile.EventRecordCallback = OnEvent;
    logfile.BufferCallback = OnBuffer;
    logfile.Context = &rd;
    TRACEHANDLE h = OpenTraceW(&logfile);
    CHECK(h != INVALID_PROCESSTRACE_HANDLE, "OpenTrace failed: %u", GetLastError());
    if (h == INVALID_PROCESSTRACE_HANDLE) {
        return 1;
    }
    TRACE_LOGFILE_HEADER *hdr = &logfile.LogfileHeader;
    printf("consumer: OpenTrace -> header: BufferSize %u, BuffersWritten %u, PointerSize %u, CPUs %u\n",
           hdr->BufferSize, hdr->BuffersWritten, hdr->PointerSize, hdr->NumberOfProcessors);
    CHECK(hdr->PointerSize == 8, "PointerSize %u", hdr->PointerSize);
    CHECK(hdr->BufferSize == 64 * 1024, "BufferSize %u", hdr->BufferSize);
    CHECK(hdr->LoggerName != NULL && memcmp(hdr->LoggerName, SESSION_NAME, sizeof(SESSION_NAME)) == 0,
          "LoggerName is not the session's name");
    status = ProcessTrace(&h, 1, NULL, NULL);
    CHECK(status == ERROR_SUCCESS, "ProcessTrace returned %u", status);
    CHECK(CloseTrace(h) == ERROR_SUCCESS, "CloseTrace failed");
    printf("consumer: ProcessTrace -> %u; %u events (%u transfers with %u related IDs), %u buffer callbacks\n",
           status, rd.events, rd.transfers, rd.related, rd.buffer_calls);
    CHECK(rd.events == EVENTS, "read %u events, wanted %d", rd.events, EVENTS);
    CHECK(rd.transfers == EVENTS / 10 && rd.related == EVENTS / 10, "transfer events wrong");
    CHECK(rd.bad == 0, "%u events out of order or with wrong payloads", rd.bad);
    CHECK(rd.header_events >= 1, "no header event (EventTraceGuid) was delivered");
    CHECK(rd.buffer_calls >= 1, "BufferCallback never ran");
    free(props);
    printf("file_session: %s holds %d events\n", path, EVENTS);
    return example_result("file_session");
}
