/*
 * A TDH consumer: a provider part writes manifest events to a file, then the consumer part
 * reads the file back and decodes every event as TDH consumers do:
 *
 *   - TdhLoadManifest makes the provider's manifest known to this process;
 *   - for each EVENT_RECORD, TdhGetEventInformation (two calls: size, then data);
 *   - for each top-level property: the element count (fixed or from a count property),
 *     TdhGetPropertySize + TdhGetProperty for each element, TdhGetEventMapInformation for a
 *     mapped property, and TdhFormatProperty (two calls) for its text;
 *   - the text is printed as "Name: value" and compared with what the provider wrote.
 *
 * Usage: tdh_consumer [FILE.etl]   (default etwsim_tdh.etl in the current folder)
 */
#define UNICODE
#include "etwsim.h"
#include "example_support.h"

/* ULONG_MAX as Windows defines it: "the whole property" in PROPERTY_DATA_DESCRIPTOR.ArrayIndex. */
#define WHOLE_PROPERTY 0xFFFFFFFFu

#define SESSION_NAME L"etwsim tdh example"
#define MANIFEST_FILE "etwsim_tdh_consumer.man"

/* {6a1f0c3e-52b4-4d8a-9e77-0c5d2a4b8f31} */
static const GUID ProviderGuid = {0x6a1f0c3e, 0x52b4, 0x4d8a, {0x9e, 0x77, 0x0c, 0x5d, 0x2a, 0x4b, 0x8f, 0x31}};

static const char Manifest[] =
    "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n"
    " <instrumentation><events>\n"
    "  <provider name=\"Etwsim-Tdh-Example\" guid=\"{6a1f0c3e-52b4-4d8a-9e77-0c5d2a4b8f31}\" symbol=\"EX\">\n"
    "   <tasks><task name=\"Copy\" value=\"1\"/></tasks>\n"
    "   <maps><valueMap name=\"Mode\"><map value=\"0\" message=\"$(string.Fast)\"/>\n"
    "         <map value=\"1\" message=\"$(string.Safe)\"/></valueMap></maps>\n"
    "   <templates><template tid=\"T\">\n"
    "     <data name=\"Source\" inType=\"win:UnicodeString\"/>\n"
    "     <data name=\"Bytes\" inType=\"win:UInt64\"/>\n"
    "     <data name=\"Mode\" inType=\"win:UInt32\" map=\"Mode\"/>\n"
    "     <data name=\"Status\" inType=\"win:UInt32\" outType=\"win:HexInt32\"/>\n"
    "     <data name=\"Job\" inType=\"win:GUID\"/>\n"
    "     <data name=\"Ok\" inType=\"win:Boolean\"/>\n"
    "     <data name=\"Count\" inType=\"win:UInt16\"/>\n"
    "     <data name=\"Sizes\" inType=\"win:UInt32\" count=\"Count\"/>\n"
    "   </template></templates>\n"
    "   <events><event value=\"1\" version=\"0\" level=\"win:Informational\" task=\"Copy\" template=\"T\"/></events>\n"
    "  </provider>\n"
    " </events></instrumentation>\n"
    " <localization><resources culture=\"en-US\"><stringTable>\n"
    "  <string id=\"Fast\" value=\"Fast\"/><string id=\"Safe\" value=\"Safe\"/>\n"
    " </stringTable></resources></localization>\n"
    "</instrumentationManifest>\n";

/* What the consumer must print for the event, one line per property value. */
static const char *const Expected[] = {
    "Source: C:\\data\\in.bin",
    "Bytes: 1048576",
    "Mode: Safe",
    "Status: 0xC0000022",
    "Job: {0B0F1E2D-3C4B-4A59-8687-98A9BACBDCEE}",
    "Ok: true",
    "Count: 3",
    "Sizes[0]: 10",
    "Sizes[1]: 20",
    "Sizes[2]: 30",
};
#define EXPECTED_LINES (sizeof Expected / sizeof Expected[0])

/* A UTF-16 string of the TRACE_EVENT_INFO as ASCII (printf's %ls expects 32-bit wchar_t). */
static const char *narrow(const WCHAR *w, char *out, size_t n) {
    size_t i = 0;
    for (; w && w[i] && i + 1 < n; i++) out[i] = w[i] < 128 ? (char)w[i] : '?';
    out[i] = 0;
    return out;
}

struct consumer {
    unsigned events;
    unsigned lines;
    unsigned mismatches;
};

static void print_line(struct consumer *c, const WCHAR *name, int index, const WCHAR *value) {
    char line[512];
    int n = 0;
    for (const WCHAR *p = name; *p && n < 200; p++) line[n++] = (char)*p;
    if (index >= 0) n += snprintf(line + n, sizeof line - n, "[%d]", index);
    line[n++] = ':';
    line[n++] = ' ';
    for (const WCHAR *p = value; *p && n < 500; p++) line[n++] = *p < 128 ? (char)*p : '?';
    line[n] = 0;
    printf("  %s\n", line);
    if (c->lines >= EXPECTED_LINES || strcmp(line, Expected[c->lines]) != 0) {
        c->mismatches++;
    }
    c->lines++;
}

/* Formats element `index` (WHOLE_PROPERTY: the whole scalar) of top-level property `i`. */
static ULONG format_one(struct consumer *c, PEVENT_RECORD r, PTRACE_EVENT_INFO info, ULONG i, ULONG index) {
    EVENT_PROPERTY_INFO *p = &info->EventPropertyInfoArray[i];
    PROPERTY_DATA_DESCRIPTOR desc;
    desc.PropertyName = (ULONGLONG)(ULONG_PTR)((BYTE *)info + p->NameOffset);
    desc.ArrayIndex = index;
    desc.Reserved = 0;
    ULONG size = 0;
    ULONG status = TdhGetPropertySize(r, 0, NULL, 1, &desc, &size);
    if (status != ERROR_SUCCESS) return status;
    BYTE *data = (BYTE *)malloc(size ? size : 1);
    status = TdhGetProperty(r, 0, NULL, 1, &desc, size, data);
    PEVENT_MAP_INFO map = NULL;
    if (status == ERROR_SUCCESS && p->nonStructType.MapNameOffset != 0) {
        ULONG map_size = 0;
        PWSTR map_name = (PWSTR)((BYTE *)info + p->nonStructType.MapNameOffset);
        status = TdhGetEventMapInformation(r, map_name, NULL, &map_size);
        if (status == ERROR_INSUFFICIENT_BUFFER) {
            map = (PEVENT_MAP_INFO)malloc(map_size);
            status = TdhGetEventMapInformation(r, map_name, map, &map_size);
        }
    }
    if (status == ERROR_SUCCESS) {
        ULONG text_size = 0;
        USHORT used = 0;
        ULONG ptr = (r->EventHeader.Flags & EVENT_HEADER_FLAG_32_BIT_HEADER) ? 4 : 8;
        status = TdhFormatProperty(info, map, ptr, p->nonStructType.InType, p->nonStructType.OutType, p->length,
                                   (USHORT)size, data, &text_size, NULL, &used);
        if (status == ERROR_INSUFFICIENT_BUFFER) {
            WCHAR *text = (WCHAR *)malloc(text_size);
            status = TdhFormatProperty(info, map, ptr, p->nonStructType.InType, p->nonStructType.OutType,
                                       p->length, (USHORT)size, data, &text_size, text, &used);
            if (status == ERROR_SUCCESS) {
                CHECK(used == size, "property %u: TdhFormatProperty used %u of %u bytes", i, used, size);
                print_line(c, (WCHAR *)((BYTE *)info + p->NameOffset), index == WHOLE_PROPERTY ? -1 : (int)index, text);
            }
            free(text);
        }
    }
    free(map);
    free(data);
    return status;
}

/* The value of integer property `i` (a count). */
static ULONG integer_property(PEVENT_RECORD r, PTRACE_EVENT_INFO info, USHORT i, ULONG *value) {
    PROPERTY_DATA_DESCRIPTOR desc;
    desc.PropertyName = (ULONGLONG)(ULONG_PTR)((BYTE *)info + info->EventPropertyInfoArray[i].NameOffset);
    desc.ArrayIndex = WHOLE_PROPERTY;
    desc.Reserved = 0;
    ULONG size = 0;
    ULONG status = TdhGetPropertySize(r, 0, NULL, 1, &desc, &size);
    if (status != ERROR_SUCCESS || size > sizeof(ULONG)) return status ? status : ERROR_INVALID_PARAMETER;
    *value = 0;
    return TdhGetProperty(r, 0, NULL, 1, &desc, size, (BYTE *)value);
}

static VOID WINAPI OnEvent(PEVENT_RECORD r) {
    struct consumer *c = (struct consumer *)r->UserContext;
    if (memcmp(&r->EventHeader.ProviderId, &ProviderGuid, sizeof(GUID)) != 0) {
        return; /* the file's header event */
    }
    ULONG size = 0;
    ULONG status = TdhGetEventInformation(r, 0, NULL, NULL, &size);
    CHECK(status == ERROR_INSUFFICIENT_BUFFER, "TdhGetEventInformation(size) returned %u", status);
    PTRACE_EVENT_INFO info = (PTRACE_EVENT_INFO)malloc(size);
    status = TdhGetEventInformation(r, 0, NULL, info, &size);
    CHECK(status == ERROR_SUCCESS, "TdhGetEventInformation returned %u", status);
    if (status != ERROR_SUCCESS) {
        free(info);
        return;
    }
    c->events++;
    char provider[128], task[128];
    printf("event %u: %s/%s, DecodingSource %d, %u properties\n", r->EventHeader.EventDescriptor.Id,
           narrow((WCHAR *)((BYTE *)info + info->ProviderNameOffset), provider, sizeof provider),
           narrow((WCHAR *)((BYTE *)info + info->TaskNameOffset), task, sizeof task), (int)info->DecodingSource,
           info->TopLevelPropertyCount);
    CHECK(info->DecodingSource == DecodingSourceXMLFile, "DecodingSource %d", (int)info->DecodingSource);
    for (ULONG i = 0; i < info->TopLevelPropertyCount; i++) {
        EVENT_PROPERTY_INFO *p = &info->EventPropertyInfoArray[i];
        CHECK((p->Flags & PropertyStruct) == 0, "no structs in this manifest");
        ULONG count = 1;
        int is_array = 0;
        if (p->Flags & PropertyParamCount) {
            status = integer_property(r, info, p->countPropertyIndex, &count);
            CHECK(status == ERROR_SUCCESS, "count of property %u: %u", i, status);
            is_array = 1;
        } else if (p->Flags & PropertyParamFixedCount) {
            count = p->count;
            is_array = 1;
        }
        for (ULONG k = 0; k < count; k++) {
            status = format_one(c, r, info, i, is_array ? k : WHOLE_PROPERTY);
            CHECK(status == ERROR_SUCCESS, "property %u element %u: %u", i, k, status);
        }
    }
    free(info);
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "etwsim_tdh.etl";
    WCHAR wpath[EXAMPLE_MAX_PATH];

    /* The provider's manifest, as a file TdhLoadManifest reads. */
    FILE *f = fopen(MANIFEST_FILE, "wb");
    CHECK(f != NULL, "cannot write %s", MANIFEST_FILE);
    if (f == NULL) return 1;
    fwrite(Manifest, 1, sizeof Manifest - 1, f);
    fclose(f);
    WCHAR wman[64];
    for (size_t i = 0; i <= strlen(MANIFEST_FILE); i++) wman[i] = (WCHAR)MANIFEST_FILE[i];
    ULONG status = TdhLoadManifest(wman);
    CHECK(status == ERROR_SUCCESS, "TdhLoadManifest returned %u", status);

    /* Provider part: one event to a file session. */
    TRACEHANDLE session;
    PEVENT_TRACE_PROPERTIES props =
        example_start_file_session(path, wpath, SESSION_NAME, sizeof(SESSION_NAME), 64, &session);
    if (props == NULL) return 1;
    REGHANDLE reg = 0;
    status = EventRegister(&ProviderGuid, NULL, NULL, &reg);
    CHECK(status == ERROR_SUCCESS, "EventRegister returned %u", status);
    status = EnableTraceEx2(session, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, TRACE_LEVEL_VERBOSE, 0, 0, 0,
                            NULL);
    CHECK(status == ERROR_SUCCESS, "EnableTraceEx2 returned %u", status);
    EVENT_DESCRIPTOR desc;
    EventDescCreate(&desc, 1, 0, 0, TRACE_LEVEL_INFORMATION, 1, 0, 0);
    const WCHAR source[] = L"C:\\data\\in.bin";
    ULONGLONG bytes = 1048576;
    ULONG mode = 1, code = 0xC0000022u, ok = 1;
    GUID job = {0x0b0f1e2d, 0x3c4b, 0x4a59, {0x86, 0x87, 0x98, 0xa9, 0xba, 0xcb, 0xdc, 0xee}};
    USHORT count = 3;
    ULONG sizes[3] = {10, 20, 30};
    EVENT_DATA_DESCRIPTOR data[8];
    EventDataDescCreate(&data[0], source, sizeof source);
    EventDataDescCreate(&data[1], &bytes, sizeof bytes);
    EventDataDescCreate(&data[2], &mode, sizeof mode);
    EventDataDescCreate(&data[3], &code, sizeof code);
    EventDataDescCreate(&data[4], &job, sizeof job);
    EventDataDescCreate(&data[5], &ok, sizeof ok);
    EventDataDescCreate(&data[6], &count, sizeof count);
    EventDataDescCreate(&data[7], sizes, sizeof sizes);
    status = EventWrite(reg, &desc, 8, data);
    CHECK(status == ERROR_SUCCESS, "EventWrite returned %u", status);
    status = StopTrace(session, NULL, props);
    CHECK(status == ERROR_SUCCESS, "StopTrace returned %u", status);
    EventUnregister(reg);
    free(props);

    /* Consumer part. */
    struct consumer c;
    memset(&c, 0, sizeof c);
    example_read_file(wpath, OnEvent, &c);
    CHECK(c.events == 1, "decoded %u events, wanted 1", c.events);
    CHECK(c.lines == EXPECTED_LINES, "printed %u lines, wanted %u", c.lines, (unsigned)EXPECTED_LINES);
    CHECK(c.mismatches == 0, "%u lines differ from what the provider wrote", c.mismatches);

    /* The codes a consumer sees for bad input. */
    ULONG size = 0;
    CHECK(TdhGetEventInformation(NULL, 0, NULL, NULL, &size) == ERROR_INVALID_PARAMETER, "NULL event");
    CHECK(TdhLoadManifestFromBinary(wman) == ERROR_NOT_SUPPORTED, "TdhLoadManifestFromBinary");
    CHECK(TdhUnloadManifest(wman) == ERROR_SUCCESS, "TdhUnloadManifest");
    remove(MANIFEST_FILE);
    return example_result("tdh_consumer");
}
