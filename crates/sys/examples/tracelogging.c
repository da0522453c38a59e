/*
 * A manifest-free (TraceLogging) event written from plain C, without TraceLoggingProvider.h
 * (which needs MSVC): the program lays out the metadata itself, as the TraceLogging wire
 * format describes it, and passes it the way TraceLoggingWrite does:
 *
 *   - EventRegister, then EventSetInformation(EventProviderSetTraits) with the provider
 *     traits blob: UINT16 total size, the provider name (UTF-8, NUL-terminated), no traits.
 *     From then on ETW honours each EVENT_DATA_DESCRIPTOR's Type byte;
 *   - EventWriteTransfer with EVENT_DATA_DESCRIPTORs: [0] the provider traits
 *     (Type = EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA), [1] the event metadata
 *     (Type = EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA): UINT16 total size, one tag byte
 *     (0: no tag), the event name (NUL-terminated), then per field its name and its InType
 *     byte; [2…] the field values (Type 0). The EVENT_DESCRIPTOR has Id 0, Version 0 and
 *     Channel 11 (TraceLogging);
 *   - ETW moves the metadata into the EVENT_SCHEMA_TL and PROV_TRAITS extended items; the
 *     consumer (ProcessTrace on the file) finds them there, decodes each event with its own
 *     metadata and prints it. UserData holds only the values.
 *
 * Fields: message (ANSISTRING), wide (UNICODESTRING), count (UINT32), total (UINT64).
 *
 * Usage: tracelogging [FILE.etl]   (default etwsim_tracelogging.etl in the current folder)
 * Prints each event as the consumer decoded it; exits non-zero on any failure.
 */
#define UNICODE
#include "etwsim.h"
#include "example_support.h"

#define SESSION_NAME L"etwsim tracelogging example"
#define PROVIDER_NAME "Etwsim.Example.TraceLogging"
#define EVENT_NAME "Sample"
#define EVENTS 3
#define BLOB_MAX 256

/* TraceLogging InType values (TlgIn_t). */
#define TLG_IN_UNICODESTRING 1
#define TLG_IN_ANSISTRING 2
#define TLG_IN_UINT32 8
#define TLG_IN_UINT64 10
#define TLG_CHANNEL 11

/* {c3a1d2e4-5b6f-4a70-8192-a3b4c5d6e7f8} */
static const GUID ProviderGuid = {0xc3a1d2e4, 0x5b6f, 0x4a70, {0x81, 0x92, 0xa3, 0xb4, 0xc5, 0xd6, 0xe7, 0xf8}};

/* A metadata blob under construction: a UINT16 size first, filled in by blob_end. */
struct blob {
    unsigned char b[BLOB_MAX];
    USHORT n;
};

static void blob_bytes(struct blob *m, const void *p, size_t len) {
    if (m->n + len > BLOB_MAX) {
        fprintf(stderr, "metadata blob too large\n");
        exit(2);
    }
    memcpy(m->b + m->n, p, len);
    m->n += (USHORT)len;
}
static void blob_u8(struct blob *m, UCHAR v) { blob_bytes(m, &v, 1); }
static void blob_str(struct blob *m, const char *s) { blob_bytes(m, s, strlen(s) + 1); }
static void blob_field(struct blob *m, const char *name, UCHAR in_type) {
    blob_str(m, name);
    blob_u8(m, in_type);
}
static void blob_end(struct blob *m) { memcpy(m->b, &m->n, sizeof m->n); }

/* The values of event `i`. */
struct values {
    char message[32];
    WCHAR wide[16];
    ULONG count;
    ULONGLONG total;
};

static void values_of(ULONG i, struct values *v) {
    memset(v, 0, sizeof *v);
    snprintf(v->message, sizeof v->message, "hello from C #%u", i);
    static const WCHAR wide[] = L"wide \x00e9t\x00e9 #";
    memcpy(v->wide, wide, sizeof wide);
    v->wide[sizeof wide / sizeof(WCHAR) - 1] = (WCHAR)(L'0' + i);
    v->count = i + 1;
    v->total = 0x100000000ull * (i + 1) + 7;
}

static size_t wide_len(const WCHAR *s) {
    size_t n = 0;
    while (s[n] != 0) {
        n++;
    }
    return n;
}

/* ---- the consumer: decodes each event with the metadata it carries ---- */

struct reader {
    unsigned events;
    unsigned bad;
    unsigned with_traits;
};

/* Reads a NUL-terminated string at m[*at] (bounded by len); NULL if it runs off the end. */
static const char *meta_str(const unsigned char *m, size_t len, size_t *at) {
    const char *s = (const char *)m + *at;
    while (*at < len && m[*at] != 0) {
        (*at)++;
    }
    if (*at >= len) {
        return NULL;
    }
    (*at)++;
    return s;
}

static VOID WINAPI OnEvent(PEVENT_RECORD r) {
    struct reader *rd = (struct reader *)r->UserContext;
    if (memcmp(&r->EventHeader.ProviderId, &ProviderGuid, sizeof(GUID)) != 0) {
        return; /* the log file's header event */
    }
    const unsigned char *meta = NULL;
    size_t meta_len = 0;
    for (USHORT i = 0; i < r->ExtendedDataCount; i++) {
        const EVENT_HEADER_EXTENDED_DATA_ITEM *x = &r->ExtendedData[i];
        if (x->ExtType == EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL) {
            meta = (const unsigned char *)(ULONG_PTR)x->DataPtr;
            meta_len = x->DataSize;
        } else if (x->ExtType == EVENT_HEADER_EXT_TYPE_PROV_TRAITS && x->DataSize > 2 &&
                   strcmp((const char *)(ULONG_PTR)x->DataPtr + 2, PROVIDER_NAME) == 0) {
            rd->with_traits++;
        }
    }
    if (meta == NULL || meta_len < 4 || r->EventHeader.EventDescriptor.Channel != TLG_CHANNEL) {
        rd->bad++;
        return;
    }
    USHORT size;
    memcpy(&size, meta, sizeof size);
    size_t at = 2;
    while (at < meta_len && (meta[at] & 0x80)) { /* the tag bytes */
        at++;
    }
    at++;
    const char *name = meta_str(meta, meta_len, &at);
    if (size != meta_len || name == NULL) {
        rd->bad++;
        return;
    }
    struct values got;
    memset(&got, 0, sizeof got);
    unsigned fields = 0;
    const unsigned char *data = (const unsigned char *)r->UserData;
    size_t off = 0, end = r->UserDataLength;
    printf("consumer: %s {", name);
    while (at < meta_len) {
        const char *field = meta_str(meta, meta_len, &at);
        if (field == NULL || at >= meta_len) {
            rd->bad++;
            return;
        }
        UCHAR in_type = meta[at++];
        printf("%s %s: ", fields == 0 ? "" : ",", field);
        switch (in_type) {
        case TLG_IN_ANSISTRING: {
            size_t n = 0;
            while (off + n < end && data[off + n] != 0) {
                n++;
            }
            if (off + n >= end || n >= sizeof got.message) {
                rd->bad++;
                return;
            }
            memcpy(got.message, data + off, n);
            printf("\"%s\"", got.message);
            off += n + 1;
            break;
        }
        case TLG_IN_UNICODESTRING: {
            size_t n = 0;
            while (off + 2 * n + 1 < end && (data[off + 2 * n] | data[off + 2 * n + 1]) != 0) {
                n++;
            }
            if (off + 2 * n + 1 >= end || n >= sizeof got.wide / sizeof(WCHAR)) {
                rd->bad++;
                return;
            }
            memcpy(got.wide, data + off, 2 * n);
            printf("L\"");
            for (size_t k = 0; k < n; k++) {
                if (got.wide[k] < 0x80) {
                    putchar((char)got.wide[k]);
                } else {
                    printf("\\u%04x", (unsigned)got.wide[k]);
                }
            }
            printf("\"");
            off += 2 * n + 2;
            break;
        }
        case TLG_IN_UINT32:
            if (off + 4 > end) {
                rd->bad++;
                return;
            }
            memcpy(&got.count, data + off, 4);
            printf("%u", got.count);
            off += 4;
            break;
        case TLG_IN_UINT64:
            if (off + 8 > end) {
                rd->bad++;
                return;
            }
            memcpy(&got.total, data + off, 8);
            printf("%llu", (unsigned long long)got.total);
            off += 8;
            break;
        default:
            rd->bad++;
            return;
        }
        fields++;
    }
    printf(" }\n");
    struct values want;
    values_of(got.count - 1, &want);
    if (strcmp(name, EVENT_NAME) != 0 || fields != 4 || off != end || got.count != rd->events + 1 ||
        memcmp(&got, &want, sizeof got) != 0) {
        rd->bad++;
        return;
    }
    rd->events++;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "etwsim_tracelogging.etl";
    WCHAR wpath[EXAMPLE_MAX_PATH];

    /* 1. A sequential file session with 16 KB buffers. */
    TRACEHANDLE session;
    PEVENT_TRACE_PROPERTIES props =
        example_start_file_session(path, wpath, SESSION_NAME, sizeof(SESSION_NAME), 16, &session);
    if (props == NULL) {
        return 1;
    }
    ULONG status;

    /* 2. The provider: registered, its traits set (the name), enabled. */
    struct blob traits = {{0}, 2};
    blob_str(&traits, PROVIDER_NAME);
    blob_end(&traits);
    REGHANDLE reg = 0;
    status = EventRegister(&ProviderGuid, NULL, NULL, &reg);
    CHECK(status == ERROR_SUCCESS, "EventRegister returned %u", status);
    status = EventSetInformation(reg, EventProviderSetTraits, traits.b, traits.n);
    CHECK(status == ERROR_SUCCESS, "EventSetInformation returned %u", status);
    status = EnableTraceEx2(session, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, TRACE_LEVEL_VERBOSE, 0, 0, 0,
                            NULL);
    CHECK(status == ERROR_SUCCESS, "EnableTraceEx2 returned %u", status);

    /* 3. The event's metadata, then the events. */
    struct blob meta = {{0}, 2};
    blob_u8(&meta, 0); /* no event tag */
    blob_str(&meta, EVENT_NAME);
    blob_field(&meta, "message", TLG_IN_ANSISTRING);
    blob_field(&meta, "wide", TLG_IN_UNICODESTRING);
    blob_field(&meta, "count", TLG_IN_UINT32);
    blob_field(&meta, "total", TLG_IN_UINT64);
    blob_end(&meta);
    EVENT_DESCRIPTOR desc;
    EventDescCreate(&desc, 0, 0, TLG_CHANNEL, TRACE_LEVEL_INFORMATION, 0, 0, 0x10);
    for (ULONG i = 0; i < EVENTS; i++) {
        struct values v;
        values_of(i, &v);
        EVENT_DATA_DESCRIPTOR data[6];
        EventDataDescCreate(&data[0], traits.b, traits.n);
        data[0].Type = EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA;
        EventDataDescCreate(&data[1], meta.b, meta.n);
        data[1].Type = EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA;
        EventDataDescCreate(&data[2], v.message, (ULONG)strlen(v.message) + 1);
        EventDataDescCreate(&data[3], v.wide, (ULONG)((wide_len(v.wide) + 1) * sizeof(WCHAR)));
        EventDataDescCreate(&data[4], &v.count, sizeof v.count);
        EventDataDescCreate(&data[5], &v.total, sizeof v.total);
        status = EventWriteTransfer(reg, &desc, NULL, NULL, 6, data);
        CHECK(status == ERROR_SUCCESS, "EventWriteTransfer %u returned %u", i, status);
    }
    printf("provider: wrote %d TraceLogging events \"%s\" (%u bytes of metadata)\n", EVENTS, EVENT_NAME, meta.n);

    /* 4. Stop. */
    status = StopTrace(session, NULL, props);
    CHECK(status == ERROR_SUCCESS, "StopTrace returned %u", status);
    CHECK(props->EventsLost == 0, "events were lost");
    CHECK(EventUnregister(reg) == ERROR_SUCCESS, "EventUnregister failed");

    /* 5. Read it back. */
    struct reader rd;
    memset(&rd, 0, sizeof rd);
    example_read_file(wpath, OnEvent, &rd);
    CHECK(rd.events == EVENTS, "decoded %u events, wanted %d", rd.events, EVENTS);
    CHECK(rd.with_traits == EVENTS, "%u events carried the provider traits", rd.with_traits);
    CHECK(rd.bad == 0, "%u events did not decode to what was written", rd.bad);
    free(props);
    printf("tracelogging: %s holds %d TraceLogging events\n", path, EVENTS);
    return example_result("tracelogging");
}
