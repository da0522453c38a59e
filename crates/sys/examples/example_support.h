/*
 * What the C examples share: CHECK (counts failed checks), a sequential file session started
 * as "Configuring and Starting an Event Tracing Session" describes it, a log file read back
 * with OpenTrace / ProcessTrace / CloseTrace, and the exit status.
 * Each example is one .c file that includes this header after etwsim.h.
 */
#ifndef ETWSIM_EXAMPLE_SUPPORT_H
#define ETWSIM_EXAMPLE_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>

#include "etwsim.h"

#define EXAMPLE_MAX_PATH 1024

static int failures;
#define CHECK(cond, ...)                                       \
    do {                                                       \
        if (!(cond)) {                                         \
            fprintf(stderr, "FAILED: " __VA_ARGS__);           \
            fprintf(stderr, "\n");                             \
            failures++;                                        \
        }                                                      \
    } while (0)

/* StartTrace of a sequential file session writing to `path` (8-bit, widened into `wpath`,
   which holds EXAMPLE_MAX_PATH units): EVENT_TRACE_PROPERTIES, then the session name
   (`name_size` bytes with its NUL), then the log file name, LoggerNameOffset and
   LogFileNameOffset pointing at them, `buffer_kb`-KB buffers, no size limit. Returns the
   properties block (StopTrace reports into it; the caller frees it) and the handle in
   `*session`, or NULL if the path is too long or StartTrace failed. */
static inline PEVENT_TRACE_PROPERTIES example_start_file_session(const char *path, WCHAR *wpath, LPCWSTR name,
                                                                 ULONG name_size, ULONG buffer_kb,
                                                                 TRACEHANDLE *session) {
    size_t units = strlen(path);
    if (units >= EXAMPLE_MAX_PATH) {
        fprintf(stderr, "path too long\n");
        return NULL;
    }
    for (size_t i = 0; i <= units; i++) {
        wpath[i] = (WCHAR)(unsigned char)path[i];
    }
    ULONG path_size = EXAMPLE_MAX_PATH * sizeof(WCHAR);
    ULONG size = sizeof(EVENT_TRACE_PROPERTIES) + name_size + path_size;
    PEVENT_TRACE_PROPERTIES props = (PEVENT_TRACE_PROPERTIES)calloc(1, size);
    if (props == NULL) {
        return NULL;
    }
    props->Wnode.BufferSize = size;
    props->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    props->Wnode.ClientContext = 1; /* QPC timestamps */
    props->LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
    props->MaximumFileSize = 0; /* no limit */
    props->BufferSize = buffer_kb;
    props->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    props->LogFileNameOffset = sizeof(EVENT_TRACE_PROPERTIES) + name_size;
    memcpy((char *)props + props->LogFileNameOffset, wpath, (units + 1) * sizeof(WCHAR));
    *session = 0;
    ULONG status = StartTrace(session, name, props);
    CHECK(status == ERROR_SUCCESS, "StartTrace returned %u", status);
    printf("controller: StartTrace(%s) -> %u\n", path, status);
    if (status != ERROR_SUCCESS) {
        free(props);
        return NULL;
    }
    return props;
}

/* OpenTrace(LogFileName = `wpath`, PROCESS_TRACE_MODE_EVENT_RECORD, `callback`, Context =
   `context`), ProcessTrace, CloseTrace: every record of the file goes to `callback`, the
   file's header event first. Returns ProcessTrace's status (or 1 if OpenTrace failed). */
static inline ULONG example_read_file(WCHAR *wpath, PEVENT_RECORD_CALLBACK callback, PVOID context) {
    EVENT_TRACE_LOGFILEW logfile;
    memset(&logfile, 0, sizeof logfile);
    logfile.LogFileName = wpath;
    logfile.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
    logfile.EventRecordCallback = callback;
    logfile.Context = context;
    TRACEHANDLE h = OpenTraceW(&logfile);
    CHECK(h != INVALID_PROCESSTRACE_HANDLE, "OpenTrace failed: %u", GetLastError());
    if (h == INVALID_PROCESSTRACE_HANDLE) {
        return 1;
    }
    ULONG status = ProcessTrace(&h, 1, NULL, NULL);
    CHECK(status == ERROR_SUCCESS, "ProcessTrace returned %u", status);
    CHECK(CloseTrace(h) == ERROR_SUCCESS, "CloseTrace failed");
    return status;
}

/* The exit status: 0 and "`program`: ok" when every CHECK passed. */
static inline int example_result(const char *program) {
    if (failures != 0) {
        fprintf(stderr, "%s: %d check(s) failed\n", program, failures);
        return 1;
    }
    printf("%s: ok\n", program);
    return 0;
}

#endif
