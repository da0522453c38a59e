/* tdh.h for etwsim: the TDH event-decoding functions of libetwsim_sys.so, with the SDK's names
 * and 64-bit layouts (tdh.h). Included by etwsim.h; build with -fshort-wchar.
 *
 * Schemas come from the event's TraceLogging metadata (DecodingSourceTlg), manifests loaded
 * with TdhLoadManifest / TdhLoadManifestFromMemory or installed on the simulated machine
 * (DecodingSourceXMLFile), and the kernel MOF class table (DecodingSourceWbem). Codes:
 * ERROR_INSUFFICIENT_BUFFER (122) with the size needed written back, ERROR_NOT_FOUND (1168)
 * for an event with no schema, ERROR_EVT_INVALID_EVENT_DATA (15005) for a payload that does
 * not match, ERROR_INVALID_PARAMETER (87). TdhGetWppProperty / TdhGetWppMessage are not
 * exported yet. */
#ifndef ETWSIM_TDH_H
#define ETWSIM_TDH_H

#ifndef ETWSIM_H
#include "etwsim.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ERROR_EVT_INVALID_EVENT_DATA 15005L

typedef enum _DECODING_SOURCE {
    DecodingSourceXMLFile = 0,
    DecodingSourceWbem = 1,
    DecodingSourceWPP = 2,
    DecodingSourceTlg = 3,
    DecodingSourceMax = 4
} DECODING_SOURCE;

typedef enum _TDH_IN_TYPE {
    TDH_INTYPE_NULL = 0, TDH_INTYPE_UNICODESTRING = 1, TDH_INTYPE_ANSISTRING = 2,
    TDH_INTYPE_INT8 = 3, TDH_INTYPE_UINT8 = 4, TDH_INTYPE_INT16 = 5, TDH_INTYPE_UINT16 = 6,
    TDH_INTYPE_INT32 = 7, TDH_INTYPE_UINT32 = 8, TDH_INTYPE_INT64 = 9, TDH_INTYPE_UINT64 = 10,
    TDH_INTYPE_FLOAT = 11, TDH_INTYPE_DOUBLE = 12, TDH_INTYPE_BOOLEAN = 13,
    TDH_INTYPE_BINARY = 14, TDH_INTYPE_GUID = 15, TDH_INTYPE_POINTER = 16,
    TDH_INTYPE_FILETIME = 17, TDH_INTYPE_SYSTEMTIME = 18, TDH_INTYPE_SID = 19,
    TDH_INTYPE_HEXINT32 = 20, TDH_INTYPE_HEXINT64 = 21,
    TDH_INTYPE_MANIFEST_COUNTEDSTRING = 22, TDH_INTYPE_MANIFEST_COUNTEDANSISTRING = 23,
    TDH_INTYPE_RESERVED24 = 24, TDH_INTYPE_MANIFEST_COUNTEDBINARY = 25,
    TDH_INTYPE_COUNTEDSTRING = 300, TDH_INTYPE_COUNTEDANSISTRING = 301,
    TDH_INTYPE_REVERSEDCOUNTEDSTRING = 302, TDH_INTYPE_REVERSEDCOUNTEDANSISTRING = 303,
    TDH_INTYPE_NONNULLTERMINATEDSTRING = 304, TDH_INTYPE_NONNULLTERMINATEDANSISTRING = 305,
    TDH_INTYPE_UNICODECHAR = 306, TDH_INTYPE_ANSICHAR = 307, TDH_INTYPE_SIZET = 308,
    TDH_INTYPE_HEXDUMP = 309, TDH_INTYPE_WBEMSID = 310
} TDH_IN_TYPE;

typedef enum _TDH_OUT_TYPE {
    TDH_OUTTYPE_NULL = 0, TDH_OUTTYPE_STRING = 1, TDH_OUTTYPE_DATETIME = 2,
    TDH_OUTTYPE_BYTE = 3, TDH_OUTTYPE_UNSIGNEDBYTE = 4, TDH_OUTTYPE_SHORT = 5,
    TDH_OUTTYPE_UNSIGNEDSHORT = 6, TDH_OUTTYPE_INT = 7, TDH_OUTTYPE_UNSIGNEDINT = 8,
    TDH_OUTTYPE_LONG = 9, TDH_OUTTYPE_UNSIGNEDLONG = 10, TDH_OUTTYPE_FLOAT = 11,
    TDH_OUTTYPE_DOUBLE = 12, TDH_OUTTYPE_BOOLEAN = 13, TDH_OUTTYPE_GUID = 14,
    TDH_OUTTYPE_HEXBINARY = 15, TDH_OUTTYPE_HEXINT8 = 16, TDH_OUTTYPE_HEXINT16 = 17,
    TDH_OUTTYPE_HEXINT32 = 18, TDH_OUTTYPE_HEXINT64 = 19, TDH_OUTTYPE_PID = 20,
    TDH_OUTTYPE_TID = 21, TDH_OUTTYPE_PORT = 22, TDH_OUTTYPE_IPV4 = 23, TDH_OUTTYPE_IPV6 = 24,
    TDH_OUTTYPE_SOCKETADDRESS = 25, TDH_OUTTYPE_CIMDATETIME = 26, TDH_OUTTYPE_ETWTIME = 27,
    TDH_OUTTYPE_XML = 28, TDH_OUTTYPE_ERRORCODE = 29, TDH_OUTTYPE_WIN32ERROR = 30,
    TDH_OUTTYPE_NTSTATUS = 31, TDH_OUTTYPE_HRESULT = 32,
    TDH_OUTTYPE_CULTURE_INSENSITIVE_DATETIME = 33, TDH_OUTTYPE_JSON = 34,
    TDH_OUTTYPE_UTF8 = 35, TDH_OUTTYPE_PKCS7_WITH_TYPE_INFO = 36,
    TDH_OUTTYPE_CODE_POINTER = 37, TDH_OUTTYPE_DATETIME_UTC = 38,
    TDH_OUTTYPE_REDUCEDSTRING = 300, TDH_OUTTYPE_NOPRINT = 301
} TDH_OUT_TYPE;

typedef enum _PROPERTY_FLAGS {
    PropertyStruct = 0x1, PropertyParamLength = 0x2, PropertyParamCount = 0x4,
    PropertyWBEMXmlFragment = 0x8, PropertyParamFixedLength = 0x10,
    PropertyParamFixedCount = 0x20, PropertyHasTags = 0x40, PropertyHasCustomSchema = 0x80
} PROPERTY_FLAGS;

typedef enum _TEMPLATE_FLAGS {
    TEMPLATE_EVENT_DATA = 1, TEMPLATE_USER_DATA = 2, TEMPLATE_CONTROL_GUID = 4
} TEMPLATE_FLAGS;

typedef enum _MAP_FLAGS {
    EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP = 0x1, EVENTMAP_INFO_FLAG_MANIFEST_BITMAP = 0x2,
    EVENTMAP_INFO_FLAG_MANIFEST_PATTERNMAP = 0x4, EVENTMAP_INFO_FLAG_WBEM_VALUEMAP = 0x8,
    EVENTMAP_INFO_FLAG_WBEM_BITMAP = 0x10, EVENTMAP_INFO_FLAG_WBEM_FLAG = 0x20,
    EVENTMAP_INFO_FLAG_WBEM_NO_MAP = 0x40
} MAP_FLAGS;

typedef enum _MAP_VALUETYPE {
    EVENTMAP_ENTRY_VALUETYPE_ULONG = 0, EVENTMAP_ENTRY_VALUETYPE_STRING = 1
} MAP_VALUETYPE;

typedef enum _EVENT_FIELD_TYPE {
    EventKeywordInformation = 0, EventLevelInformation = 1, EventChannelInformation = 2,
    EventTaskInformation = 3, EventOpcodeInformation = 4, EventInformationMax = 5
} EVENT_FIELD_TYPE;

typedef enum _TDH_CONTEXT_TYPE {
    TDH_CONTEXT_WPP_TMFFILE = 0, TDH_CONTEXT_WPP_TMFSEARCHPATH = 1, TDH_CONTEXT_WPP_GMT = 2,
    TDH_CONTEXT_POINTERSIZE = 3, TDH_CONTEXT_PDB_PATH = 4, TDH_CONTEXT_MAXIMUM = 5
} TDH_CONTEXT_TYPE;

typedef struct _TDH_CONTEXT {
    ULONGLONG ParameterValue;
    TDH_CONTEXT_TYPE ParameterType;
    ULONG ParameterSize;
} TDH_CONTEXT, *PTDH_CONTEXT;

typedef struct _PROPERTY_DATA_DESCRIPTOR {
    ULONGLONG PropertyName;
    ULONG ArrayIndex;
    ULONG Reserved;
} PROPERTY_DATA_DESCRIPTOR, *PPROPERTY_DATA_DESCRIPTOR;

typedef struct _EVENT_PROPERTY_INFO {
    PROPERTY_FLAGS Flags;
    ULONG NameOffset;
    union {
        struct { USHORT InType; USHORT OutType; ULONG MapNameOffset; } nonStructType;
        struct { USHORT StructStartIndex; USHORT NumOfStructMembers; ULONG padding; } structType;
        struct { USHORT InType; USHORT OutType; ULONG CustomSchemaOffset; } customSchemaType;
    };
    union { USHORT count; USHORT countPropertyIndex; };
    union { USHORT length; USHORT lengthPropertyIndex; };
    union { ULONG Reserved; struct { ULONG Tags : 28; }; };
} EVENT_PROPERTY_INFO, *PEVENT_PROPERTY_INFO;

typedef struct _TRACE_EVENT_INFO {
    GUID ProviderGuid;
    GUID EventGuid;
    EVENT_DESCRIPTOR EventDescriptor;
    DECODING_SOURCE DecodingSource;
    ULONG ProviderNameOffset;
    ULONG LevelNameOffset;
    ULONG ChannelNameOffset;
    ULONG KeywordsNameOffset;
    ULONG TaskNameOffset;
    ULONG OpcodeNameOffset;
    ULONG EventMessageOffset;
    ULONG ProviderMessageOffset;
    ULONG BinaryXMLOffset;
    ULONG BinaryXMLSize;
    union { ULONG EventNameOffset; ULONG ActivityIDNameOffset; };
    union { ULONG EventAttributesOffset; ULONG RelatedActivityIDNameOffset; };
    ULONG PropertyCount;
    ULONG TopLevelPropertyCount;
    union { TEMPLATE_FLAGS Flags; struct { ULONG Reserved : 4; ULONG Tags : 28; }; };
    EVENT_PROPERTY_INFO EventPropertyInfoArray[1];
} TRACE_EVENT_INFO, *PTRACE_EVENT_INFO;

typedef struct _EVENT_MAP_ENTRY {
    ULONG OutputOffset;
    union { ULONG Value; ULONG InputOffset; };
} EVENT_MAP_ENTRY, *PEVENT_MAP_ENTRY;

typedef struct _EVENT_MAP_INFO {
    ULONG NameOffset;
    MAP_FLAGS Flag;
    ULONG EntryCount;
    union { MAP_VALUETYPE MapEntryValueType; ULONG FormatStringOffset; };
    EVENT_MAP_ENTRY MapEntryArray[1];
} EVENT_MAP_INFO, *PEVENT_MAP_INFO;

typedef struct _TRACE_PROVIDER_INFO {
    GUID ProviderGuid;
    ULONG SchemaSource;
    ULONG ProviderNameOffset;
} TRACE_PROVIDER_INFO;

typedef struct _PROVIDER_ENUMERATION_INFO {
    ULONG NumberOfProviders;
    ULONG Reserved;
    TRACE_PROVIDER_INFO TraceProviderInfoArray[1];
} PROVIDER_ENUMERATION_INFO, *PPROVIDER_ENUMERATION_INFO;

typedef struct _PROVIDER_FIELD_INFO {
    ULONG NameOffset;
    ULONG DescriptionOffset;
    ULONGLONG Value;
} PROVIDER_FIELD_INFO;

typedef struct _PROVIDER_FIELD_INFOARRAY {
    ULONG NumberOfElements;
    EVENT_FIELD_TYPE FieldType;
    PROVIDER_FIELD_INFO FieldInfoArray[1];
} PROVIDER_FIELD_INFOARRAY, *PPROVIDER_FIELD_INFOARRAY;

typedef struct _PROVIDER_EVENT_INFO {
    ULONG NumberOfEvents;
    ULONG Reserved;
    EVENT_DESCRIPTOR EventDescriptorsArray[1];
} PROVIDER_EVENT_INFO, *PPROVIDER_EVENT_INFO;

#define PAYLOADFIELD_EQ 0
#define PAYLOADFIELD_NE 1
#define PAYLOADFIELD_LE 2
#define PAYLOADFIELD_GT 3
#define PAYLOADFIELD_LT 4
#define PAYLOADFIELD_GE 5
#define PAYLOADFIELD_BETWEEN 6
#define PAYLOADFIELD_NOTBETWEEN 7
#define PAYLOADFIELD_MODULO 8
#define PAYLOADFIELD_CONTAINS 20
#define PAYLOADFIELD_DOESNTCONTAIN 21
#define PAYLOADFIELD_IS 30
#define PAYLOADFIELD_ISNOT 31
#define PAYLOADFIELD_INVALID 32
#define MAX_PAYLOAD_PREDICATES 8

typedef struct _PAYLOAD_FILTER_PREDICATE {
    LPWSTR FieldName;
    USHORT CompareOp;
    LPWSTR Value;
} PAYLOAD_FILTER_PREDICATE, *PPAYLOAD_FILTER_PREDICATE;

typedef HANDLE TDH_HANDLE, *PTDH_HANDLE;

ULONG WINAPI TdhGetEventInformation(PEVENT_RECORD Event, ULONG TdhContextCount,
                                    PTDH_CONTEXT TdhContext, PTRACE_EVENT_INFO Buffer,
                                    ULONG *BufferSize);
ULONG WINAPI TdhGetEventMapInformation(PEVENT_RECORD pEvent, PWSTR pMapName,
                                       PEVENT_MAP_INFO pBuffer, ULONG *pBufferSize);
ULONG WINAPI TdhGetPropertySize(PEVENT_RECORD pEvent, ULONG TdhContextCount,
                                PTDH_CONTEXT pTdhContext, ULONG PropertyDataCount,
                                PPROPERTY_DATA_DESCRIPTOR pPropertyData, ULONG *pPropertySize);
ULONG WINAPI TdhGetProperty(PEVENT_RECORD pEvent, ULONG TdhContextCount,
                            PTDH_CONTEXT pTdhContext, ULONG PropertyDataCount,
                            PPROPERTY_DATA_DESCRIPTOR pPropertyData, ULONG BufferSize,
                            BYTE *pBuffer);
ULONG WINAPI TdhFormatProperty(PTRACE_EVENT_INFO EventInfo, PEVENT_MAP_INFO MapInfo,
                               ULONG PointerSize, USHORT PropertyInType,
                               USHORT PropertyOutType, USHORT PropertyLength,
                               USHORT UserDataLength, BYTE *UserData, PULONG BufferSize,
                               PWCHAR Buffer, USHORT *UserDataConsumed);
ULONG WINAPI TdhEnumerateProviders(PPROVIDER_ENUMERATION_INFO pBuffer, ULONG *pBufferSize);
ULONG WINAPI TdhEnumerateProviderFieldInformation(LPGUID pGuid,
                                                  EVENT_FIELD_TYPE EventFieldType,
                                                  PPROVIDER_FIELD_INFOARRAY pBuffer,
                                                  ULONG *pBufferSize);
ULONG WINAPI TdhEnumerateManifestProviderEvents(LPGUID ProviderGuid,
                                                PPROVIDER_EVENT_INFO Buffer,
                                                ULONG *BufferSize);
ULONG WINAPI TdhGetManifestEventInformation(LPGUID ProviderGuid,
                                            PEVENT_DESCRIPTOR EventDescriptor,
                                            PTRACE_EVENT_INFO Buffer, ULONG *BufferSize);
ULONG WINAPI TdhLoadManifest(PWSTR Manifest);
ULONG WINAPI TdhLoadManifestFromMemory(LPCVOID pData, ULONG cbData);
/* ERROR_NOT_SUPPORTED: etwsim reads no WEVT_TEMPLATE resources. */
ULONG WINAPI TdhLoadManifestFromBinary(PWSTR BinaryPath);
ULONG WINAPI TdhUnloadManifest(PWSTR Manifest);
ULONG WINAPI TdhUnloadManifestFromMemory(LPCVOID pData, ULONG cbData);
ULONG WINAPI TdhOpenDecodingHandle(PTDH_HANDLE Handle);
ULONG WINAPI TdhCloseDecodingHandle(TDH_HANDLE Handle);
ULONG WINAPI TdhSetDecodingParameter(TDH_HANDLE Handle, PTDH_CONTEXT TdhContext);
ULONG WINAPI TdhGetDecodingParameter(TDH_HANDLE Handle, PTDH_CONTEXT TdhContext);
ULONG WINAPI TdhCreatePayloadFilter(LPCGUID ProviderGuid, PCEVENT_DESCRIPTOR EventDescriptor,
                                    BOOLEAN EventMatchANY, ULONG PayloadPredicateCount,
                                    PPAYLOAD_FILTER_PREDICATE PayloadPredicates,
                                    PVOID *PayloadFilter);
ULONG WINAPI TdhDeletePayloadFilter(PVOID *PayloadFilter);
ULONG WINAPI TdhAggregatePayloadFilters(ULONG PayloadFilterCount, PVOID *PayloadFilterPtrs,
                                        PBOOLEAN EventMatchALLFlags,
                                        PEVENT_FILTER_DESCRIPTOR EventFilterDescriptor);
ULONG WINAPI TdhCleanupPayloadEventFilterDescriptor(
    PEVENT_FILTER_DESCRIPTOR EventFilterDescriptor);

#ifdef __cplusplus
}
#endif

#endif /* ETWSIM_TDH_H */
