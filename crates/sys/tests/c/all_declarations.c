/*
 * The "compile every declaration" check of etwsim.h: references every function the header
 * declares (so the link proves libetwsim_sys.so exports each one with that name), declares
 * an object of every type, and uses every inline helper and generic-text macro. Built as C
 * (gcc -std=c11) and as C++ (g++ -x c++) by run_examples.sh, then run: it only checks that
 * each function pointer is non-NULL and the helpers fill what they should.
 */
#define UNICODE
#include <stdio.h>

#include "etwsim.h"

typedef void (*any_fn)(void);
#define FN(f) ((any_fn)(f))

int main(void) {
    any_fn functions[] = {
        FN(StartTraceW), FN(StartTraceA), FN(ControlTraceW), FN(ControlTraceA), FN(StopTraceW),
        FN(StopTraceA), FN(FlushTraceW), FN(FlushTraceA), FN(QueryTraceW), FN(QueryTraceA),
        FN(UpdateTraceW), FN(UpdateTraceA), FN(QueryAllTracesW), FN(QueryAllTracesA),
        FN(EnableTraceEx2), FN(EnableTraceEx), FN(EnableTrace), FN(TraceSetInformation),
        FN(TraceQueryInformation), FN(EnumerateTraceGuidsEx), FN(EventRegister), FN(EventUnregister),
        FN(EventEnabled), FN(EventProviderEnabled), FN(EventWrite), FN(EventWriteTransfer),
        FN(EventWriteEx), FN(EventWriteString), FN(EventSetInformation), FN(EventActivityIdControl),
        FN(RegisterTraceGuidsW), FN(RegisterTraceGuidsA), FN(UnregisterTraceGuids), FN(TraceEvent),
        FN(GetTraceLoggerHandle), FN(GetTraceEnableLevel), FN(GetTraceEnableFlags), FN(OpenTraceW),
        FN(OpenTraceA), FN(ProcessTrace), FN(CloseTrace), FN(GetLastError), FN(SetLastError),
        FN(etwsim_set_deterministic), FN(etwsim_set_cpu_count), FN(etwsim_set_process_token),
        FN(etwsim_set_image_name), FN(etwsim_run_pending), FN(etwsim_advance_ms),
        FN(etwsim_process_id),
        /* the generic-text names (UNICODE is defined: the W forms) */
        FN(StartTrace), FN(ControlTrace), FN(StopTrace), FN(FlushTrace), FN(QueryTrace),
        FN(UpdateTrace), FN(QueryAllTraces), FN(OpenTrace), FN(RegisterTraceGuids),
    };
    size_t count = sizeof functions / sizeof functions[0];
    for (size_t i = 0; i < count; i++) {
        if (functions[i] == NULL) {
            fprintf(stderr, "function %zu is NULL\n", i);
            return 1;
        }
    }

    /* One object of every type. */
    UCHAR uc = 0; BYTE by = 0; BOOLEAN bo = FALSE; CHAR ch = 0; USHORT us = 0; WORD wo = 0;
    LONG lo = 0; BOOL bl = TRUE; ULONG ul = 0; DWORD dw = 0; UINT ui = 0; LONGLONG ll = 0;
    ULONGLONG ull = 0; ULONG64 u64 = 0; DWORD64 d64 = 0; ULONG_PTR up = 0; SIZE_T sz = 0;
    LONG_PTR lp = 0; PVOID pv = NULL; LPVOID lpv = NULL; HANDLE ha = NULL; LPCVOID lcv = NULL;
    WCHAR wc = L'x'; PWSTR pws = NULL; LPWSTR lpws = NULL; PCWSTR pcws = L""; LPCWSTR lpcws = L"";
    PSTR ps = NULL; LPSTR lps = NULL; PCSTR pcs = ""; LPCSTR lpcs = ""; PULONG pul = &ul;
    PULONG64 pu64 = &u64; PUCHAR puc = &uc; PBOOLEAN pbo = &bo; PWCHAR pwc = &wc;
    LARGE_INTEGER li; li.QuadPart = 0; PLARGE_INTEGER pli = &li;
    GUID g = {0, 0, 0, {0}}; LPGUID lg = &g; PGUID pg = &g; LPCGUID lcg = &g; PCGUID pcg = &g;
    FILETIME ft = {0, 0}; PFILETIME pft = &ft; SYSTEMTIME st; PSYSTEMTIME pst = &st;
    TIME_ZONE_INFORMATION tz; PTIME_ZONE_INFORMATION ptz = &tz;
    TRACEHANDLE th = 0; PTRACEHANDLE pth = &th; CONTROLTRACE_ID cid = 0; PROCESSTRACE_HANDLE ph = 0;
    CONTROLTRACE_HANDLE ch2 = 0; RELOGSTREAM_HANDLE rh = 0; REGHANDLE reg = 0; PREGHANDLE preg = &reg;
    WNODE_HEADER wn; PWNODE_HEADER pwn = &wn;
    EVENT_TRACE_PROPERTIES etp; PEVENT_TRACE_PROPERTIES petp = &etp;
    EVENT_DESCRIPTOR ed; PEVENT_DESCRIPTOR ped = &ed; PCEVENT_DESCRIPTOR pced = &ed;
    EVENT_DATA_DESCRIPTOR edd; PEVENT_DATA_DESCRIPTOR pedd = &edd;
    EVENT_FILTER_DESCRIPTOR efd; PEVENT_FILTER_DESCRIPTOR pefd = &efd;
    EVENT_FILTER_HEADER efh; PEVENT_FILTER_HEADER pefh = &efh;
    PENABLECALLBACK ecb = NULL; ENABLE_TRACE_PARAMETERS etpar; PENABLE_TRACE_PARAMETERS petpar = &etpar;
    TRACE_GUID_INFO tgi; PTRACE_GUID_INFO ptgi = &tgi;
    TRACE_PROVIDER_INSTANCE_INFO tpi; PTRACE_PROVIDER_INSTANCE_INFO ptpi = &tpi;
    TRACE_ENABLE_INFO tei; PTRACE_ENABLE_INFO ptei = &tei;
    TRACE_GUID_REGISTRATION tgr; PTRACE_GUID_REGISTRATION ptgr = &tgr; WMIDPREQUEST wr = NULL;
    WMIDPREQUESTCODE wrc = WMI_ENABLE_EVENTS; TRACE_QUERY_INFO_CLASS tqic = TraceGuidQueryInfo;
    TRACE_INFO_CLASS tic = TraceMaxLoggersQuery; EVENT_INFO_CLASS eic = EventProviderSetTraits;
    EVENT_TRACE_HEADER eth; PEVENT_TRACE_HEADER peth = &eth;
    MOF_FIELD mf; PMOF_FIELD pmf = &mf;
    ETW_BUFFER_CONTEXT ebc; PETW_BUFFER_CONTEXT pebc = &ebc; EVENT_TRACE et; PEVENT_TRACE pet = &et;
    EVENT_HEADER eh; PEVENT_HEADER peh = &eh;
    EVENT_HEADER_EXTENDED_DATA_ITEM ehi; PEVENT_HEADER_EXTENDED_DATA_ITEM pehi = &ehi;
    EVENT_RECORD er; PEVENT_RECORD per = &er; PCEVENT_RECORD pcer = &er;
    TRACE_LOGFILE_HEADER tlh; PTRACE_LOGFILE_HEADER ptlh = &tlh;
    EVENT_TRACE_LOGFILEW lfw; PEVENT_TRACE_LOGFILEW plfw = &lfw;
    EVENT_TRACE_LOGFILEA lfa; PEVENT_TRACE_LOGFILEA plfa = &lfa;
    EVENT_TRACE_LOGFILE lf; PEVENT_TRACE_LOGFILE plf = &lf;
    PEVENT_TRACE_BUFFER_CALLBACKW bcw = NULL; PEVENT_TRACE_BUFFER_CALLBACKA bca = NULL;
    PEVENT_TRACE_BUFFER_CALLBACK bc = NULL; PEVENT_CALLBACK ec = NULL; PEVENT_RECORD_CALLBACK erc = NULL;
    void *all[] = {&uc, &by, &bo, &ch, &us, &wo, &lo, &bl, &ul, &dw, &ui, &ll, &ull, &u64, &d64, &up,
                   &sz, &lp, &pv, &lpv, &ha, &lcv, &wc, &pws, &lpws, &pcws, &lpcws, &ps, &lps, &pcs,
                   &lpcs, &pul, &pu64, &puc, &pbo, &pwc, &pli, &lg, &pg, &lcg, &pcg, &pft, &pst, &ptz,
                   &pth, &cid, &ph, &ch2, &rh, &preg, &pwn, &petp, &ped, &pced, &pedd, &pefd, &pefh,
                   &ecb, &petpar, &ptgi, &ptpi, &ptei, &ptgr, &wr, &wrc, &tqic, &tic, &eic, &peth, &pmf,
                   &pebc, &pet, &peh, &pehi, &per, &pcer, &ptlh, &plfw, &plfa, &plf, &bcw, &bca, &bc,
                   &ec, &erc};
    (void)all;

    /* The inline helpers. */
    EventDescZero(&ed);
    EventDescCreate(&ed, 7, 1, 2, TRACE_LEVEL_WARNING, 9, 3, 0x8000000000000001ull);
    if (EventDescGetId(&ed) != 7 || EventDescGetVersion(&ed) != 1 || EventDescGetChannel(&ed) != 2 ||
        EventDescGetLevel(&ed) != TRACE_LEVEL_WARNING || EventDescGetTask(&ed) != 9 ||
        EventDescGetOpcode(&ed) != 3 || EventDescGetKeyword(&ed) != 0x8000000000000001ull) {
        fprintf(stderr, "EventDescCreate\n");
        return 1;
    }
    ULONG payload = 42;
    EventDataDescCreate(&edd, &payload, sizeof payload);
    if (edd.Ptr != (ULONGLONG)(ULONG_PTR)&payload || edd.Size != 4 || edd.Reserved != 0) {
        fprintf(stderr, "EventDataDescCreate\n");
        return 1;
    }
    if (INVALID_PROCESSTRACE_HANDLE != ~(TRACEHANDLE)0 || WNODE_FLAG_TRACED_GUID != 0x20000u ||
        EVENT_TRACE_REAL_TIME_MODE != 0x100u || PROCESS_TRACE_MODE_EVENT_RECORD != 0x10000000u ||
        EVENT_CONTROL_CODE_CAPTURE_STATE != 2u || ERROR_WMI_INSTANCE_NOT_FOUND != 4201L ||
        sizeof(KERNEL_LOGGER_NAME) != 17 * sizeof(WCHAR) || SystemTraceControlGuid.Data1 != 0x9e814aadu ||
        MAX_MOF_FIELDS != 16 || EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA != 1 ||
        EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA != 2 || EventProviderSetTraits != 2) {
        fprintf(stderr, "constants\n");
        return 1;
    }
    printf("all_declarations: %zu functions, every type, the helpers: ok\n", count);
    return 0;
}
