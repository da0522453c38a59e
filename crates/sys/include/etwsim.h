/*
 * etwsim.h: the Windows ETW API (evntrace.h, evntprov.h, evntcons.h, wmistr.h and the
 * winerror.h codes they use) for programs linked with etwsim's simulator,
 * libetwsim_sys.so.
 *
 * Names, values and 64-bit structure layouts are Microsoft's. Build and run:
 *
 *     gcc -fshort-wchar -I crates/sys/include prog.c -L target/release -letwsim_sys -lpthread
 *     LD_LIBRARY_PATH=target/release ./a.out
 *
 * WCHAR is 16 bits (UTF-16), as on Windows: compile with -fshort-wchar so that L"..."
 * literals are UTF-16. The *A functions take char strings read as Latin-1.
 *
 * The first ETW call boots one simulated machine for the process: threaded (a logger
 * thread per session, real clocks), 4 CPUs, log files on the host's file system; the
 * process is one simulated process running as an elevated administrator, its threads
 * simulated threads. The etwsim_* functions at the end of this file change that before the
 * first call. GetLastError/SetLastError are provided because the consumer samples call
 * GetLastError() after OpenTrace.
 *
 * Not modelled: EnableTraceEx2's Timeout is ignored (callbacks have always run when it
 * returns).
 */
#ifndef ETWSIM_H
#define ETWSIM_H

#if !defined(__SIZEOF_WCHAR_T__) || __SIZEOF_WCHAR_T__ != 2
#error "etwsim.h: WCHAR must be 16 bits (UTF-16) as on Windows; compile with -fshort-wchar"
#endif
#if !defined(__SIZEOF_POINTER__) || __SIZEOF_POINTER__ != 8
#error "etwsim.h: the structure layouts are those of 64-bit Windows; build for a 64-bit target"
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
#define ETWSIM_STATIC_ASSERT(e, m) static_assert(e, m)
#define ETWSIM_INLINE inline
extern "C" {
#else
#define ETWSIM_STATIC_ASSERT(e, m) _Static_assert(e, m)
#define ETWSIM_INLINE static inline
#endif

/* ---- Windows base types (windef.h, winnt.h, basetsd.h) ---- */
#define WINAPI
#define NTAPI
#define WMIAPI
#define EVNTAPI
#define VOID void
#ifndef FALSE
#define FALSE 0
#endif
#ifndef TRUE
#define TRUE 1
#endif
typedef unsigned char UCHAR, *PUCHAR, BYTE, BOOLEAN, *PBOOLEAN;
typedef char CHAR;
typedef unsigned short USHORT, WORD;
typedef int32_t LONG, BOOL;
typedef uint32_t ULONG, *PULONG, DWORD, UINT;
typedef int64_t LONGLONG;
typedef uint64_t ULONGLONG, ULONG64, *PULONG64, DWORD64;
typedef uintptr_t ULONG_PTR, SIZE_T;
typedef intptr_t LONG_PTR;
typedef void *PVOID, *LPVOID, *HANDLE;
typedef const void *LPCVOID;
typedef wchar_t WCHAR;
typedef WCHAR *PWSTR, *LPWSTR, *PWCHAR;
typedef const WCHAR *PCWSTR, *LPCWSTR;
typedef CHAR *PSTR, *LPSTR;
typedef const CHAR *PCSTR, *LPCSTR;

typedef union _LARGE_INTEGER {
    struct {
        ULONG LowPart;
        LONG HighPart;
    };
    struct {
        ULONG LowPart;
        LONG HighPart;
    } u;
    LONGLONG QuadPart;
} LARGE_INTEGER, *PLARGE_INTEGER;

typedef struct _GUID {
    uint32_t Data1;
    uint16_t Data2;
    uint16_t Data3;
    uint8_t Data4[8];
} GUID, *LPGUID, *PGUID;
typedef const GUID *LPCGUID, *PCGUID;
#define REFGUID const GUID *

typedef struct _FILETIME {
    DWORD dwLowDateTime;
    DWORD dwHighDateTime;
} FILETIME, *PFILETIME;

typedef struct _SYSTEMTIME {
    WORD wYear;
    WORD wMonth;
    WORD wDayOfWeek;
    WORD wDay;
    WORD wHour;
    WORD wMinute;
    WORD wSecond;
    WORD wMilliseconds;
} SYSTEMTIME, *PSYSTEMTIME;

typedef struct _TIME_ZONE_INFORMATION {
    LONG Bias;
    WCHAR StandardName[32];
    SYSTEMTIME StandardDate;
    LONG StandardBias;
    WCHAR DaylightName[32];
    SYSTEMTIME DaylightDate;
    LONG DaylightBias;
} TIME_ZONE_INFORMATION, *PTIME_ZONE_INFORMATION;

#define INVALID_HANDLE_VALUE ((HANDLE)(LONG_PTR)-1)
#define INFINITE 0xFFFFFFFFu

/* ---- winerror.h codes the ETW functions return ---- */
#define ERROR_SUCCESS 0L
#define ERROR_INVALID_FUNCTION 1L
#define ERROR_ACCESS_DENIED 5L
#define ERROR_INVALID_HANDLE 6L
#define ERROR_NOT_ENOUGH_MEMORY 8L
#define ERROR_OUTOFMEMORY 14L
#define ERROR_BAD_LENGTH 24L
#define ERROR_SHARING_VIOLATION 32L
#define ERROR_NOT_SUPPORTED 50L
#define ERROR_INVALID_PARAMETER 87L
#define ERROR_DISK_FULL 112L
#define ERROR_INSUFFICIENT_BUFFER 122L
#define ERROR_BAD_PATHNAME 161L
#define ERROR_BUSY 170L
#define ERROR_ALREADY_EXISTS 183L
#define ERROR_INVALID_FLAG_NUMBER 186L
#define ERROR_MORE_DATA 234L
#define ERROR_ARITHMETIC_OVERFLOW 534L
#define ERROR_NOACCESS 998L
#define ERROR_CANCELLED 1223L
#define ERROR_ALREADY_INITIALIZED 1247L
#define ERROR_NO_SYSTEM_RESOURCES 1450L
#define ERROR_TIMEOUT 1460L
#define ERROR_LOG_FILE_FULL 1502L
#define ERROR_INVALID_TIME 1901L
#define ERROR_ACTIVE_CONNECTIONS 2402L
#define ERROR_WMI_GUID_NOT_FOUND 4200L
#define ERROR_WMI_INSTANCE_NOT_FOUND 4201L
#define ERROR_CTX_CLOSE_PENDING 7007L

/* ---- ETW handles ---- */
typedef ULONG64 TRACEHANDLE, *PTRACEHANDLE;
typedef TRACEHANDLE CONTROLTRACE_ID, PROCESSTRACE_HANDLE, CONTROLTRACE_HANDLE, RELOGSTREAM_HANDLE;
typedef ULONGLONG REGHANDLE, *PREGHANDLE;
#define INVALID_PROCESSTRACE_HANDLE ((TRACEHANDLE)INVALID_HANDLE_VALUE)

/* ---- names and GUIDs (evntrace.h) ---- */
#define KERNEL_LOGGER_NAMEW L"NT Kernel Logger"
#define GLOBAL_LOGGER_NAMEW L"GlobalLogger"
#define EVENT_LOGGER_NAMEW L"EventLog"
#define DIAG_LOGGER_NAMEW L"DiagLog"
#define KERNEL_LOGGER_NAMEA "NT Kernel Logger"
#define GLOBAL_LOGGER_NAMEA "GlobalLogger"
#define EVENT_LOGGER_NAMEA "EventLog"
#define DIAG_LOGGER_NAMEA "DiagLog"
#define MAX_MOF_FIELDS 16
#define MAX_PAYLOAD_PREDICATES 8
#define EVENT_DATA_DESCRIPTOR_TYPE_NONE 0
#define EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA 1
#define EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA 2
#define EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE 3

#if defined(__GNUC__)
#define ETWSIM_MAYBE_UNUSED __attribute__((unused))
#else
#define ETWSIM_MAYBE_UNUSED
#endif
/* SystemTraceControlGuid {9e814aad-3204-11d2-9a82-006008a86939} */
static const GUID SystemTraceControlGuid ETWSIM_MAYBE_UNUSED =
    {0x9e814aad, 0x3204, 0x11d2, {0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39}};
/* EventTraceGuid {68fdd900-4a3e-11d1-84f4-0000f80464e3} */
static const GUID EventTraceGuid ETWSIM_MAYBE_UNUSED =
    {0x68fdd900, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}};
/* GlobalLoggerGuid {e8908abc-aa84-11d2-9a93-00805f85d7c6} */
static const GUID GlobalLoggerGuid ETWSIM_MAYBE_UNUSED =
    {0xe8908abc, 0xaa84, 0x11d2, {0x9a, 0x93, 0x00, 0x80, 0x5f, 0x85, 0xd7, 0xc6}};

/* ---- constants with Microsoft's names and values ---- */
#define ENABLE_TRACE_PARAMETERS_VERSION 1u
#define ENABLE_TRACE_PARAMETERS_VERSION_2 2u
#define EVENT_ACTIVITY_CTRL_CREATE_ID 3u
#define EVENT_ACTIVITY_CTRL_CREATE_SET_ID 5u
#define EVENT_ACTIVITY_CTRL_GET_ID 1u
#define EVENT_ACTIVITY_CTRL_GET_SET_ID 4u
#define EVENT_ACTIVITY_CTRL_SET_ID 2u
#define EVENT_CONTROL_CODE_CAPTURE_STATE 2u
#define EVENT_CONTROL_CODE_DISABLE_PROVIDER 0u
#define EVENT_CONTROL_CODE_ENABLE_PROVIDER 1u
#define EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0 0x40u
#define EVENT_ENABLE_PROPERTY_ENABLE_SILOS 0x400u
#define EVENT_ENABLE_PROPERTY_EVENT_KEY 0x100u
#define EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE 0x200u
#define EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0 0x10u
#define EVENT_ENABLE_PROPERTY_PROCESS_START_KEY 0x80u
#define EVENT_ENABLE_PROPERTY_PROVIDER_GROUP 0x20u
#define EVENT_ENABLE_PROPERTY_PSM_KEY 8u
#define EVENT_ENABLE_PROPERTY_SID 1u
#define EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING 0x800u
#define EVENT_ENABLE_PROPERTY_STACK_TRACE 4u
#define EVENT_ENABLE_PROPERTY_TS_ID 2u
#define EVENT_FILTER_TYPE_CONTAINER 0x80008000u
#define EVENT_FILTER_TYPE_EVENT_ID 0x80000200u
#define EVENT_FILTER_TYPE_EVENT_NAME 0x80000400u
#define EVENT_FILTER_TYPE_EXECUTABLE_NAME 0x80000008u
#define EVENT_FILTER_TYPE_NONE 0u
#define EVENT_FILTER_TYPE_PACKAGE_APP_ID 0x80000020u
#define EVENT_FILTER_TYPE_PACKAGE_ID 0x80000010u
#define EVENT_FILTER_TYPE_PAYLOAD 0x80000100u
#define EVENT_FILTER_TYPE_PID 0x80000004u
#define EVENT_FILTER_TYPE_SCHEMATIZED 0x80000000u
#define EVENT_FILTER_TYPE_STACKWALK 0x80001000u
#define EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW 0x80004000u
#define EVENT_FILTER_TYPE_STACKWALK_NAME 0x80002000u
#define EVENT_FILTER_TYPE_SYSTEM_FLAGS 0x80000001u
#define EVENT_FILTER_TYPE_TRACEHANDLE 0x80000002u
#define EVENT_HEADER_EXT_TYPE_CONTAINER_ID 0x10u
#define EVENT_HEADER_EXT_TYPE_CONTROL_GUID 0xeu
#define EVENT_HEADER_EXT_TYPE_EVENT_KEY 0xau
#define EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL 0xbu
#define EVENT_HEADER_EXT_TYPE_INSTANCE_INFO 4u
#define EVENT_HEADER_EXT_TYPE_MAX 0x13u
#define EVENT_HEADER_EXT_TYPE_PEBS_INDEX 7u
#define EVENT_HEADER_EXT_TYPE_PMC_COUNTERS 8u
#define EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY 0xdu
#define EVENT_HEADER_EXT_TYPE_PROV_TRAITS 0xcu
#define EVENT_HEADER_EXT_TYPE_PSM_KEY 9u
#define EVENT_HEADER_EXT_TYPE_QPC_DELTA 0xfu
#define EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID 1u
#define EVENT_HEADER_EXT_TYPE_SID 2u
#define EVENT_HEADER_EXT_TYPE_STACK_KEY32 0x11u
#define EVENT_HEADER_EXT_TYPE_STACK_KEY64 0x12u
#define EVENT_HEADER_EXT_TYPE_STACK_TRACE32 5u
#define EVENT_HEADER_EXT_TYPE_STACK_TRACE64 6u
#define EVENT_HEADER_EXT_TYPE_TS_ID 3u
#define EVENT_HEADER_FLAG_32_BIT_HEADER 0x20u
#define EVENT_HEADER_FLAG_64_BIT_HEADER 0x40u
#define EVENT_HEADER_FLAG_CLASSIC_HEADER 0x100u
#define EVENT_HEADER_FLAG_DECODE_GUID 0x80u
#define EVENT_HEADER_FLAG_EXTENDED_INFO 1u
#define EVENT_HEADER_FLAG_NO_CPUTIME 0x10u
#define EVENT_HEADER_FLAG_PRIVATE_SESSION 2u
#define EVENT_HEADER_FLAG_PROCESSOR_INDEX 0x200u
#define EVENT_HEADER_FLAG_STRING_ONLY 4u
#define EVENT_HEADER_FLAG_TRACE_MESSAGE 8u
#define EVENT_HEADER_PROPERTY_FORWARDED_XML 2u
#define EVENT_HEADER_PROPERTY_LEGACY_EVENTLOG 4u
#define EVENT_HEADER_PROPERTY_RELOGGABLE 8u
#define EVENT_HEADER_PROPERTY_XML 1u
#define EVENT_MAX_LEVEL 0xffu
#define EVENT_MIN_LEVEL 0u
#define EVENT_TRACE_ADDTO_TRIAGE_DUMP 0x80000000u
#define EVENT_TRACE_ADD_HEADER_MODE 0x1000u
#define EVENT_TRACE_BUFFERING_MODE 0x400u
#define EVENT_TRACE_COMPRESSED_MODE 0x4000000u
#define EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME 5u
#define EVENT_TRACE_CONTROL_FLUSH 3u
#define EVENT_TRACE_CONTROL_INCREMENT_FILE 4u
#define EVENT_TRACE_CONTROL_QUERY 0u
#define EVENT_TRACE_CONTROL_STOP 1u
#define EVENT_TRACE_CONTROL_UPDATE 2u
#define EVENT_TRACE_DELAY_OPEN_FILE_MODE 0x200u
#define EVENT_TRACE_FILE_MODE_APPEND 4u
#define EVENT_TRACE_FILE_MODE_CIRCULAR 2u
#define EVENT_TRACE_FILE_MODE_NEWFILE 8u
#define EVENT_TRACE_FILE_MODE_NONE 0u
#define EVENT_TRACE_FILE_MODE_PREALLOCATE 0x20u
#define EVENT_TRACE_FILE_MODE_SEQUENTIAL 1u
#define EVENT_TRACE_FLAG_ALPC 0x100000u
#define EVENT_TRACE_FLAG_CSWITCH 0x10u
#define EVENT_TRACE_FLAG_DBGPRINT 0x40000u
#define EVENT_TRACE_FLAG_DEBUG_EVENTS 0x400000u
#define EVENT_TRACE_FLAG_DISK_FILE_IO 0x200u
#define EVENT_TRACE_FLAG_DISK_IO 0x100u
#define EVENT_TRACE_FLAG_DISK_IO_INIT 0x400u
#define EVENT_TRACE_FLAG_DISPATCHER 0x800u
#define EVENT_TRACE_FLAG_DPC 0x20u
#define EVENT_TRACE_FLAG_DRIVER 0x800000u
#define EVENT_TRACE_FLAG_ENABLE_RESERVE 0x20000000u
#define EVENT_TRACE_FLAG_EXTENSION 0x80000000u
#define EVENT_TRACE_FLAG_FILE_IO 0x2000000u
#define EVENT_TRACE_FLAG_FILE_IO_INIT 0x4000000u
#define EVENT_TRACE_FLAG_FORWARD_WMI 0x40000000u
#define EVENT_TRACE_FLAG_IMAGE_LOAD 4u
#define EVENT_TRACE_FLAG_INTERRUPT 0x40u
#define EVENT_TRACE_FLAG_JOB 0x80000u
#define EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS 0x2000u
#define EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS 0x1000u
#define EVENT_TRACE_FLAG_NETWORK_TCPIP 0x10000u
#define EVENT_TRACE_FLAG_NO_SYSCONFIG 0x10000000u
#define EVENT_TRACE_FLAG_PROCESS 1u
#define EVENT_TRACE_FLAG_PROCESS_COUNTERS 8u
#define EVENT_TRACE_FLAG_PROFILE 0x1000000u
#define EVENT_TRACE_FLAG_REGISTRY 0x20000u
#define EVENT_TRACE_FLAG_SPLIT_IO 0x200000u
#define EVENT_TRACE_FLAG_SYSTEMCALL 0x80u
#define EVENT_TRACE_FLAG_THREAD 2u
#define EVENT_TRACE_FLAG_VAMAP 0x8000u
#define EVENT_TRACE_FLAG_VIRTUAL_ALLOC 0x4000u
#define EVENT_TRACE_INDEPENDENT_SESSION_MODE 0x8000000u
#define EVENT_TRACE_MODE_RESERVED 0x100000u
#define EVENT_TRACE_NONSTOPPABLE_MODE 0x40u
#define EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING 0x10000000u
#define EVENT_TRACE_PERSIST_ON_HYBRID_SHUTDOWN 0x800000u
#define EVENT_TRACE_PRIVATE_IN_PROC 0x20000u
#define EVENT_TRACE_PRIVATE_LOGGER_MODE 0x800u
#define EVENT_TRACE_REAL_TIME_MODE 0x100u
#define EVENT_TRACE_RELOG_MODE 0x10000u
#define EVENT_TRACE_SECURE_MODE 0x80u
#define EVENT_TRACE_STOP_ON_HYBRID_SHUTDOWN 0x400000u
#define EVENT_TRACE_SYSTEM_LOGGER_MODE 0x2000000u
#define EVENT_TRACE_TYPE_ACCEPT 0xfu
#define EVENT_TRACE_TYPE_ACKDUP 0x16u
#define EVENT_TRACE_TYPE_ACKFULL 0x14u
#define EVENT_TRACE_TYPE_ACKPART 0x15u
#define EVENT_TRACE_TYPE_CHECKPOINT 8u
#define EVENT_TRACE_TYPE_CONFIG 0xbu
#define EVENT_TRACE_TYPE_CONFIG_BOOT 0x25u
#define EVENT_TRACE_TYPE_CONFIG_CI_INFO 0x1du
#define EVENT_TRACE_TYPE_CONFIG_CPU 0xau
#define EVENT_TRACE_TYPE_CONFIG_DEFRAG 0x1fu
#define EVENT_TRACE_TYPE_CONFIG_DEVICEFAMILY 0x21u
#define EVENT_TRACE_TYPE_CONFIG_DPI 0x1cu
#define EVENT_TRACE_TYPE_CONFIG_FLIGHTID 0x22u
#define EVENT_TRACE_TYPE_CONFIG_IDECHANNEL 0x17u
#define EVENT_TRACE_TYPE_CONFIG_IRQ 0x15u
#define EVENT_TRACE_TYPE_CONFIG_LOGICALDISK 0xcu
#define EVENT_TRACE_TYPE_CONFIG_MACHINEID 0x1eu
#define EVENT_TRACE_TYPE_CONFIG_MOBILEPLATFORM 0x20u
#define EVENT_TRACE_TYPE_CONFIG_NETINFO 0x11u
#define EVENT_TRACE_TYPE_CONFIG_NIC 0xdu
#define EVENT_TRACE_TYPE_CONFIG_NUMANODE 0x18u
#define EVENT_TRACE_TYPE_CONFIG_OPTICALMEDIA 0x12u
#define EVENT_TRACE_TYPE_CONFIG_PHYSICALDISK 0xbu
#define EVENT_TRACE_TYPE_CONFIG_PHYSICALDISK_EX 0x13u
#define EVENT_TRACE_TYPE_CONFIG_PLATFORM 0x19u
#define EVENT_TRACE_TYPE_CONFIG_PNP 0x16u
#define EVENT_TRACE_TYPE_CONFIG_POWER 0x10u
#define EVENT_TRACE_TYPE_CONFIG_PROCESSOR 0x23u
#define EVENT_TRACE_TYPE_CONFIG_PROCESSORGROUP 0x1au
#define EVENT_TRACE_TYPE_CONFIG_PROCESSORNUMBER 0x1bu
#define EVENT_TRACE_TYPE_CONFIG_SERVICES 0xfu
#define EVENT_TRACE_TYPE_CONFIG_VIDEO 0xeu
#define EVENT_TRACE_TYPE_CONFIG_VIRTUALIZATION 0x24u
#define EVENT_TRACE_TYPE_CONNECT 0xcu
#define EVENT_TRACE_TYPE_CONNFAIL 0x11u
#define EVENT_TRACE_TYPE_COPY_ARP 0x13u
#define EVENT_TRACE_TYPE_COPY_TCP 0x12u
#define EVENT_TRACE_TYPE_DBGID_RSDS 0x40u
#define EVENT_TRACE_TYPE_DC_END 4u
#define EVENT_TRACE_TYPE_DC_START 3u
#define EVENT_TRACE_TYPE_DEQUEUE 7u
#define EVENT_TRACE_TYPE_DISCONNECT 0xdu
#define EVENT_TRACE_TYPE_END 2u
#define EVENT_TRACE_TYPE_EXTENSION 5u
#define EVENT_TRACE_TYPE_FLT_POSTOP_COMPLETION 0x63u
#define EVENT_TRACE_TYPE_FLT_POSTOP_FAILURE 0x65u
#define EVENT_TRACE_TYPE_FLT_POSTOP_INIT 0x61u
#define EVENT_TRACE_TYPE_FLT_PREOP_COMPLETION 0x62u
#define EVENT_TRACE_TYPE_FLT_PREOP_FAILURE 0x64u
#define EVENT_TRACE_TYPE_FLT_PREOP_INIT 0x60u
#define EVENT_TRACE_TYPE_GUIDMAP 0xau
#define EVENT_TRACE_TYPE_INFO 0u
#define EVENT_TRACE_TYPE_IO_FLUSH 0xeu
#define EVENT_TRACE_TYPE_IO_FLUSH_INIT 0xfu
#define EVENT_TRACE_TYPE_IO_READ 0xau
#define EVENT_TRACE_TYPE_IO_READ_INIT 0xcu
#define EVENT_TRACE_TYPE_IO_REDIRECTED_INIT 0x10u
#define EVENT_TRACE_TYPE_IO_WRITE 0xbu
#define EVENT_TRACE_TYPE_IO_WRITE_INIT 0xdu
#define EVENT_TRACE_TYPE_LOAD 0xau
#define EVENT_TRACE_TYPE_MM_AV 0xfu
#define EVENT_TRACE_TYPE_MM_COW 0xcu
#define EVENT_TRACE_TYPE_MM_DZF 0xbu
#define EVENT_TRACE_TYPE_MM_GPF 0xdu
#define EVENT_TRACE_TYPE_MM_HPF 0xeu
#define EVENT_TRACE_TYPE_MM_TF 0xau
#define EVENT_TRACE_TYPE_OPTICAL_IO_FLUSH 0x39u
#define EVENT_TRACE_TYPE_OPTICAL_IO_FLUSH_INIT 0x3cu
#define EVENT_TRACE_TYPE_OPTICAL_IO_READ 0x37u
#define EVENT_TRACE_TYPE_OPTICAL_IO_READ_INIT 0x3au
#define EVENT_TRACE_TYPE_OPTICAL_IO_WRITE 0x38u
#define EVENT_TRACE_TYPE_OPTICAL_IO_WRITE_INIT 0x3bu
#define EVENT_TRACE_TYPE_RECEIVE 0xbu
#define EVENT_TRACE_TYPE_RECONNECT 0x10u
#define EVENT_TRACE_TYPE_REGCLOSE 0x1bu
#define EVENT_TRACE_TYPE_REGCOMMIT 0x1eu
#define EVENT_TRACE_TYPE_REGCREATE 0xau
#define EVENT_TRACE_TYPE_REGDELETE 0xcu
#define EVENT_TRACE_TYPE_REGDELETEVALUE 0xfu
#define EVENT_TRACE_TYPE_REGENUMERATEKEY 0x11u
#define EVENT_TRACE_TYPE_REGENUMERATEVALUEKEY 0x12u
#define EVENT_TRACE_TYPE_REGFLUSH 0x15u
#define EVENT_TRACE_TYPE_REGKCBCREATE 0x16u
#define EVENT_TRACE_TYPE_REGKCBDELETE 0x17u
#define EVENT_TRACE_TYPE_REGKCBRUNDOWNBEGIN 0x18u
#define EVENT_TRACE_TYPE_REGKCBRUNDOWNEND 0x19u
#define EVENT_TRACE_TYPE_REGMOUNTHIVE 0x21u
#define EVENT_TRACE_TYPE_REGOPEN 0xbu
#define EVENT_TRACE_TYPE_REGPREPARE 0x1fu
#define EVENT_TRACE_TYPE_REGQUERY 0xdu
#define EVENT_TRACE_TYPE_REGQUERYMULTIPLEVALUE 0x13u
#define EVENT_TRACE_TYPE_REGQUERYSECURITY 0x1du
#define EVENT_TRACE_TYPE_REGQUERYVALUE 0x10u
#define EVENT_TRACE_TYPE_REGROLLBACK 0x20u
#define EVENT_TRACE_TYPE_REGSETINFORMATION 0x14u
#define EVENT_TRACE_TYPE_REGSETSECURITY 0x1cu
#define EVENT_TRACE_TYPE_REGSETVALUE 0xeu
#define EVENT_TRACE_TYPE_REGVIRTUALIZE 0x1au
#define EVENT_TRACE_TYPE_REPLY 6u
#define EVENT_TRACE_TYPE_RESUME 7u
#define EVENT_TRACE_TYPE_RETRANSMIT 0xeu
#define EVENT_TRACE_TYPE_SECURITY 0xdu
#define EVENT_TRACE_TYPE_SEND 0xau
#define EVENT_TRACE_TYPE_SIDINFO 0xcu
#define EVENT_TRACE_TYPE_START 1u
#define EVENT_TRACE_TYPE_STOP 2u
#define EVENT_TRACE_TYPE_SUSPEND 8u
#define EVENT_TRACE_TYPE_TERMINATE 0xbu
#define EVENT_TRACE_TYPE_WINEVT_RECEIVE 0xf0u
#define EVENT_TRACE_TYPE_WINEVT_SEND 9u
#define EVENT_TRACE_USE_GLOBAL_SEQUENCE 0x4000u
#define EVENT_TRACE_USE_KBYTES_FOR_SIZE 0x2000u
#define EVENT_TRACE_USE_LOCAL_SEQUENCE 0x8000u
#define EVENT_TRACE_USE_NOCPUTIME 2u
#define EVENT_TRACE_USE_PAGED_MEMORY 0x1000000u
#define EVENT_TRACE_USE_PROCTIME 1u
#define EVENT_WRITE_FLAG_INPRIVATE 2u
#define EVENT_WRITE_FLAG_NO_FAULTING 1u
#define MAX_EVENT_DATA_DESCRIPTORS 0x80u
#define MAX_EVENT_FILTERS_COUNT 0xdu
#define MAX_EVENT_FILTER_DATA_SIZE 0x400u
#define MAX_EVENT_FILTER_EVENT_ID_COUNT 0x40u
#define MAX_EVENT_FILTER_EVENT_NAME_SIZE 0x1000u
#define MAX_EVENT_FILTER_PAYLOAD_SIZE 0x1000u
#define MAX_EVENT_FILTER_PID_COUNT 8u
#define PROCESS_TRACE_MODE_EVENT_RECORD 0x10000000u
#define PROCESS_TRACE_MODE_RAW_TIMESTAMP 0x1000u
#define PROCESS_TRACE_MODE_REAL_TIME 0x100u
#define TRACE_LEVEL_CRITICAL 1u
#define TRACE_LEVEL_ERROR 2u
#define TRACE_LEVEL_FATAL 1u
#define TRACE_LEVEL_INFORMATION 4u
#define TRACE_LEVEL_NONE 0u
#define TRACE_LEVEL_RESERVED6 6u
#define TRACE_LEVEL_RESERVED7 7u
#define TRACE_LEVEL_RESERVED8 8u
#define TRACE_LEVEL_RESERVED9 9u
#define TRACE_LEVEL_VERBOSE 5u
#define TRACE_LEVEL_WARNING 3u
#define TRACE_PROVIDER_FLAG_LEGACY 1u
#define TRACE_PROVIDER_FLAG_PRE_ENABLE 2u
#define WMI_GLOBAL_LOGGER_ID 1u
#define WMI_GUIDTYPE_DATA 2u
#define WMI_GUIDTYPE_EVENT 3u
#define WMI_GUIDTYPE_TRACE 1u
#define WMI_GUIDTYPE_TRACECONTROL 0u
#define WNODE_FLAG_ALL_DATA 1u
#define WNODE_FLAG_ANSI_INSTANCENAMES 0x4000u
#define WNODE_FLAG_EVENT_ITEM 8u
#define WNODE_FLAG_EVENT_REFERENCE 0x2000u
#define WNODE_FLAG_FIXED_INSTANCE_SIZE 0x10u
#define WNODE_FLAG_INSTANCES_SAME 0x40u
#define WNODE_FLAG_INTERNAL 0x100u
#define WNODE_FLAG_LOG_WNODE 0x40000u
#define WNODE_FLAG_METHOD_ITEM 0x8000u
#define WNODE_FLAG_NO_HEADER 0x200000u
#define WNODE_FLAG_PDO_INSTANCE_NAMES 0x10000u
#define WNODE_FLAG_PERSIST_EVENT 0x400u
#define WNODE_FLAG_SEND_DATA_BLOCK 0x400000u
#define WNODE_FLAG_SEVERITY_MASK 0xff000000u
#define WNODE_FLAG_SINGLE_INSTANCE 2u
#define WNODE_FLAG_SINGLE_ITEM 4u
#define WNODE_FLAG_STATIC_INSTANCE_NAMES 0x80u
#define WNODE_FLAG_TOO_SMALL 0x20u
#define WNODE_FLAG_TRACED_GUID 0x20000u
#define WNODE_FLAG_USE_GUID_PTR 0x80000u
#define WNODE_FLAG_USE_MOF_PTR 0x100000u
#define WNODE_FLAG_USE_TIMESTAMP 0x200u
#define WNODE_FLAG_VERSIONED_PROPERTIES 0x800000u

typedef enum _TRACE_QUERY_INFO_CLASS {
    TraceGuidQueryList = 0,
    TraceGuidQueryInfo = 1,
    TraceGuidQueryProcess = 2,
    TraceStackTracingInfo = 3,
    TraceSystemTraceEnableFlagsInfo = 4,
    TraceSampledProfileIntervalInfo = 5,
    TraceProfileSourceConfigInfo = 6,
    TraceProfileSourceListInfo = 7,
    TracePmcEventListInfo = 8,
    TracePmcCounterListInfo = 9,
    TraceSetDisallowList = 10,
    TraceVersionInfo = 11,
    TraceGroupQueryList = 12,
    TraceGroupQueryInfo = 13,
    TraceDisallowListQuery = 14,
    TraceInfoReserved15 = 15,
    TracePeriodicCaptureStateListInfo = 16,
    TracePeriodicCaptureStateInfo = 17,
    TraceProviderBinaryTracking = 18,
    TraceMaxLoggersQuery = 19,
    TraceLbrConfigurationInfo = 20,
    TraceLbrEventListInfo = 21,
    TraceMaxPmcCounterQuery = 22,
    TraceStreamCount = 23,
    TraceStackCachingInfo = 24,
    TracePmcCounterOwners = 25,
    TraceUnifiedStackCachingInfo = 26,
    TracePmcSessionInformation = 27
} TRACE_QUERY_INFO_CLASS, TRACE_INFO_CLASS;

typedef enum _EVENT_INFO_CLASS {
    EventProviderBinaryTrackInfo = 0,
    EventProviderSetReserved1 = 1,
    EventProviderSetTraits = 2,
    EventProviderUseDescriptorType = 3
} EVENT_INFO_CLASS;

typedef enum {
    WMI_GET_ALL_DATA = 0,
    WMI_GET_SINGLE_INSTANCE = 1,
    WMI_SET_SINGLE_INSTANCE = 2,
    WMI_SET_SINGLE_ITEM = 3,
    WMI_ENABLE_EVENTS = 4,
    WMI_DISABLE_EVENTS = 5,
    WMI_ENABLE_COLLECTION = 6,
    WMI_DISABLE_COLLECTION = 7,
    WMI_REGINFO = 8,
    WMI_EXECUTE_METHOD = 9,
    WMI_CAPTURE_STATE = 10
} WMIDPREQUESTCODE;

/* ---- wmistr.h ---- */
typedef struct _WNODE_HEADER {
    ULONG BufferSize;
    ULONG ProviderId;
    union {
        ULONG64 HistoricalContext;
        struct {
            ULONG Version;
            ULONG Linkage;
        };
    };
    union {
        ULONG CountLost;
        HANDLE KernelHandle;
        LARGE_INTEGER TimeStamp;
    };
    GUID Guid;
    ULONG ClientContext;
    ULONG Flags;
} WNODE_HEADER, *PWNODE_HEADER;

/* ---- evntrace.h: sessions ---- */
typedef struct _EVENT_TRACE_PROPERTIES {
    WNODE_HEADER Wnode;
    ULONG BufferSize;
    ULONG MinimumBuffers;
    ULONG MaximumBuffers;
    ULONG MaximumFileSize;
    ULONG LogFileMode;
    ULONG FlushTimer;
    ULONG EnableFlags;
    union {
        LONG AgeLimit;
        LONG FlushThreshold;
    };
    ULONG NumberOfBuffers;
    ULONG FreeBuffers;
    ULONG EventsLost;
    ULONG BuffersWritten;
    ULONG LogBuffersLost;
    ULONG RealTimeBuffersLost;
    HANDLE LoggerThreadId;
    ULONG LogFileNameOffset;
    ULONG LoggerNameOffset;
} EVENT_TRACE_PROPERTIES, *PEVENT_TRACE_PROPERTIES;

/* ---- evntprov.h ---- */
typedef struct _EVENT_DESCRIPTOR {
    USHORT Id;
    UCHAR Version;
    UCHAR Channel;
    UCHAR Level;
    UCHAR Opcode;
    USHORT Task;
    ULONGLONG Keyword;
} EVENT_DESCRIPTOR, *PEVENT_DESCRIPTOR;
typedef const EVENT_DESCRIPTOR *PCEVENT_DESCRIPTOR;

typedef struct _EVENT_DATA_DESCRIPTOR {
    ULONGLONG Ptr;
    ULONG Size;
    union {
        ULONG Reserved;
        struct {
            UCHAR Type;
            UCHAR Reserved1;
            USHORT Reserved2;
        };
    };
} EVENT_DATA_DESCRIPTOR, *PEVENT_DATA_DESCRIPTOR;

typedef struct _EVENT_FILTER_DESCRIPTOR {
    ULONGLONG Ptr;
    ULONG Size;
    ULONG Type;
} EVENT_FILTER_DESCRIPTOR, *PEVENT_FILTER_DESCRIPTOR;

typedef struct _EVENT_FILTER_HEADER {
    USHORT Id;
    UCHAR Version;
    UCHAR Reserved[5];
    ULONGLONG InstanceId;
    ULONG Size;
    ULONG NextOffset;
} EVENT_FILTER_HEADER, *PEVENT_FILTER_HEADER;

typedef VOID(NTAPI *PENABLECALLBACK)(LPCGUID SourceId, ULONG IsEnabled, UCHAR Level,
                                     ULONGLONG MatchAnyKeyword, ULONGLONG MatchAllKeyword,
                                     PEVENT_FILTER_DESCRIPTOR FilterData, PVOID CallbackContext);

/* ---- evntrace.h: enabling ---- */
typedef struct _ENABLE_TRACE_PARAMETERS {
    ULONG Version;
    ULONG EnableProperty;
    ULONG ControlFlags;
    GUID SourceId;
    PEVENT_FILTER_DESCRIPTOR EnableFilterDesc;
    ULONG FilterDescCount;
} ENABLE_TRACE_PARAMETERS, *PENABLE_TRACE_PARAMETERS;

typedef struct _TRACE_GUID_INFO {
    ULONG InstanceCount;
    ULONG Reserved;
} TRACE_GUID_INFO, *PTRACE_GUID_INFO;

typedef struct _TRACE_PROVIDER_INSTANCE_INFO {
    ULONG NextOffset;
    ULONG EnableCount;
    ULONG Pid;
    ULONG Flags;
} TRACE_PROVIDER_INSTANCE_INFO, *PTRACE_PROVIDER_INSTANCE_INFO;

typedef struct _TRACE_ENABLE_INFO {
    ULONG IsEnabled;
    UCHAR Level;
    UCHAR Reserved1;
    USHORT LoggerId;
    ULONG EnableProperty;
    ULONG Reserved2;
    ULONGLONG MatchAnyKeyword;
    ULONGLONG MatchAllKeyword;
} TRACE_ENABLE_INFO, *PTRACE_ENABLE_INFO;

/* ---- evntrace.h: classic providers ---- */
typedef struct _TRACE_GUID_REGISTRATION {
    LPCGUID Guid;
    HANDLE RegHandle;
} TRACE_GUID_REGISTRATION, *PTRACE_GUID_REGISTRATION;

typedef ULONG(WINAPI *WMIDPREQUEST)(WMIDPREQUESTCODE RequestCode, PVOID RequestContext,
                                    ULONG *BufferSize, PVOID Buffer);

typedef struct _EVENT_TRACE_HEADER {
    USHORT Size;
    union {
        USHORT FieldTypeFlags;
        struct {
            UCHAR HeaderType;
            UCHAR MarkerFlags;
        };
    };
    union {
        ULONG Version;
        struct {
            UCHAR Type;
            UCHAR Level;
            USHORT Version;
        } Class;
    };
    ULONG ThreadId;
    ULONG ProcessId;
    LARGE_INTEGER TimeStamp;
    union {
        GUID Guid;
        ULONGLONG GuidPtr;
    };
    union {
        struct {
            ULONG KernelTime;
            ULONG UserTime;
        };
        ULONG64 ProcessorTime;
        struct {
            ULONG ClientContext;
            ULONG Flags;
        };
    };
} EVENT_TRACE_HEADER, *PEVENT_TRACE_HEADER;

/* With WNODE_FLAG_USE_MOF_PTR, up to MAX_MOF_FIELDS of these follow the EVENT_TRACE_HEADER
   (Size = 48 + 16 * count) and TraceEvent copies the blocks they point at. */
typedef struct _MOF_FIELD {
    ULONG64 DataPtr;
    ULONG Length;
    ULONG DataType;
} MOF_FIELD, *PMOF_FIELD;

/* ---- evntcons.h / evntrace.h: consuming ---- */
typedef struct _ETW_BUFFER_CONTEXT {
    union {
        struct {
            UCHAR ProcessorNumber;
            UCHAR Alignment;
        };
        USHORT ProcessorIndex;
    };
    USHORT LoggerId;
} ETW_BUFFER_CONTEXT, *PETW_BUFFER_CONTEXT;

typedef struct _EVENT_TRACE {
    EVENT_TRACE_HEADER Header;
    ULONG InstanceId;
    ULONG ParentInstanceId;
    GUID ParentGuid;
    PVOID MofData;
    ULONG MofLength;
    union {
        ULONG ClientContext;
        ETW_BUFFER_CONTEXT BufferContext;
    };
} EVENT_TRACE, *PEVENT_TRACE;

typedef struct _EVENT_HEADER {
    USHORT Size;
    USHORT HeaderType;
    USHORT Flags;
    USHORT EventProperty;
    ULONG ThreadId;
    ULONG ProcessId;
    LARGE_INTEGER TimeStamp;
    GUID ProviderId;
    EVENT_DESCRIPTOR EventDescriptor;
    union {
        struct {
            ULONG KernelTime;
            ULONG UserTime;
        };
        ULONG64 ProcessorTime;
    };
    GUID ActivityId;
} EVENT_HEADER, *PEVENT_HEADER;

typedef struct _EVENT_HEADER_EXTENDED_DATA_ITEM {
    USHORT Reserved1;
    USHORT ExtType;
    struct {
        USHORT Linkage : 1;
        USHORT Reserved2 : 15;
    };
    USHORT DataSize;
    ULONGLONG DataPtr;
} EVENT_HEADER_EXTENDED_DATA_ITEM, *PEVENT_HEADER_EXTENDED_DATA_ITEM;

typedef struct _EVENT_RECORD {
    EVENT_HEADER EventHeader;
    ETW_BUFFER_CONTEXT BufferContext;
    USHORT ExtendedDataCount;
    USHORT UserDataLength;
    PEVENT_HEADER_EXTENDED_DATA_ITEM ExtendedData;
    PVOID UserData;
    PVOID UserContext;
} EVENT_RECORD, *PEVENT_RECORD;
typedef const EVENT_RECORD *PCEVENT_RECORD;

typedef struct _TRACE_LOGFILE_HEADER {
    ULONG BufferSize;
    union {
        ULONG Version;
        struct {
            UCHAR MajorVersion;
            UCHAR MinorVersion;
            UCHAR SubVersion;
            UCHAR SubMinorVersion;
        } VersionDetail;
    };
    ULONG ProviderVersion;
    ULONG NumberOfProcessors;
    LARGE_INTEGER EndTime;
    ULONG TimerResolution;
    ULONG MaximumFileSize;
    ULONG LogFileMode;
    ULONG BuffersWritten;
    union {
        GUID LogInstanceGuid;
        struct {
            ULONG StartBuffers;
            ULONG PointerSize;
            ULONG EventsLost;
            ULONG CpuSpeedInMHz;
        };
    };
    LPWSTR LoggerName;
    LPWSTR LogFileName;
    TIME_ZONE_INFORMATION TimeZone;
    LARGE_INTEGER BootTime;
    LARGE_INTEGER PerfFreq;
    LARGE_INTEGER StartTime;
    ULONG ReservedFlags;
    ULONG BuffersLost;
} TRACE_LOGFILE_HEADER, *PTRACE_LOGFILE_HEADER;

typedef struct _EVENT_TRACE_LOGFILEW EVENT_TRACE_LOGFILEW, *PEVENT_TRACE_LOGFILEW;
typedef struct _EVENT_TRACE_LOGFILEA EVENT_TRACE_LOGFILEA, *PEVENT_TRACE_LOGFILEA;
typedef ULONG(WINAPI *PEVENT_TRACE_BUFFER_CALLBACKW)(PEVENT_TRACE_LOGFILEW Logfile);
typedef ULONG(WINAPI *PEVENT_TRACE_BUFFER_CALLBACKA)(PEVENT_TRACE_LOGFILEA Logfile);
typedef VOID(WINAPI *PEVENT_CALLBACK)(PEVENT_TRACE pEvent);
typedef VOID(WINAPI *PEVENT_RECORD_CALLBACK)(PEVENT_RECORD EventRecord);

struct _EVENT_TRACE_LOGFILEW {
    LPWSTR LogFileName;
    LPWSTR LoggerName;
    LONGLONG CurrentTime;
    ULONG BuffersRead;
    union {
        ULONG LogFileMode;
        ULONG ProcessTraceMode;
    };
    EVENT_TRACE CurrentEvent;
    TRACE_LOGFILE_HEADER LogfileHeader;
    PEVENT_TRACE_BUFFER_CALLBACKW BufferCallback;
    ULONG BufferSize;
    ULONG Filled;
    ULONG EventsLost;
    union {
        PEVENT_CALLBACK EventCallback;
        PEVENT_RECORD_CALLBACK EventRecordCallback;
    };
    ULONG IsKernelTrace;
    PVOID Context;
};

struct _EVENT_TRACE_LOGFILEA {
    LPSTR LogFileName;
    LPSTR LoggerName;
    LONGLONG CurrentTime;
    ULONG BuffersRead;
    union {
        ULONG LogFileMode;
        ULONG ProcessTraceMode;
    };
    EVENT_TRACE CurrentEvent;
    TRACE_LOGFILE_HEADER LogfileHeader;
    PEVENT_TRACE_BUFFER_CALLBACKA BufferCallback;
    ULONG BufferSize;
    ULONG Filled;
    ULONG EventsLost;
    union {
        PEVENT_CALLBACK EventCallback;
        PEVENT_RECORD_CALLBACK EventRecordCallback;
    };
    ULONG IsKernelTrace;
    PVOID Context;
};

/* ---- the documented 64-bit sizes and offsets ---- */
ETWSIM_STATIC_ASSERT(sizeof(GUID) == 16, "GUID");
ETWSIM_STATIC_ASSERT(sizeof(TIME_ZONE_INFORMATION) == 172, "TIME_ZONE_INFORMATION");
ETWSIM_STATIC_ASSERT(sizeof(WNODE_HEADER) == 48, "WNODE_HEADER");
ETWSIM_STATIC_ASSERT(offsetof(WNODE_HEADER, Guid) == 24, "WNODE_HEADER.Guid");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_TRACE_PROPERTIES) == 120, "EVENT_TRACE_PROPERTIES");
ETWSIM_STATIC_ASSERT(offsetof(EVENT_TRACE_PROPERTIES, LoggerThreadId) == 104,
                     "EVENT_TRACE_PROPERTIES.LoggerThreadId");
ETWSIM_STATIC_ASSERT(offsetof(EVENT_TRACE_PROPERTIES, LoggerNameOffset) == 116,
                     "EVENT_TRACE_PROPERTIES.LoggerNameOffset");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_DESCRIPTOR) == 16, "EVENT_DESCRIPTOR");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_DATA_DESCRIPTOR) == 16, "EVENT_DATA_DESCRIPTOR");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_FILTER_DESCRIPTOR) == 16, "EVENT_FILTER_DESCRIPTOR");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_FILTER_HEADER) == 24, "EVENT_FILTER_HEADER");
ETWSIM_STATIC_ASSERT(sizeof(ENABLE_TRACE_PARAMETERS) == 48, "ENABLE_TRACE_PARAMETERS");
ETWSIM_STATIC_ASSERT(offsetof(ENABLE_TRACE_PARAMETERS, EnableFilterDesc) == 32,
                     "ENABLE_TRACE_PARAMETERS.EnableFilterDesc");
ETWSIM_STATIC_ASSERT(sizeof(TRACE_GUID_INFO) == 8, "TRACE_GUID_INFO");
ETWSIM_STATIC_ASSERT(sizeof(TRACE_PROVIDER_INSTANCE_INFO) == 16, "TRACE_PROVIDER_INSTANCE_INFO");
ETWSIM_STATIC_ASSERT(sizeof(TRACE_ENABLE_INFO) == 32, "TRACE_ENABLE_INFO");
ETWSIM_STATIC_ASSERT(sizeof(TRACE_GUID_REGISTRATION) == 16, "TRACE_GUID_REGISTRATION");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_TRACE_HEADER) == 48, "EVENT_TRACE_HEADER");
ETWSIM_STATIC_ASSERT(sizeof(MOF_FIELD) == 16, "MOF_FIELD");
ETWSIM_STATIC_ASSERT(sizeof(ETW_BUFFER_CONTEXT) == 4, "ETW_BUFFER_CONTEXT");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_TRACE) == 88, "EVENT_TRACE");
ETWSIM_STATIC_ASSERT(offsetof(EVENT_TRACE, MofData) == 72, "EVENT_TRACE.MofData");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_HEADER) == 80, "EVENT_HEADER");
ETWSIM_STATIC_ASSERT(offsetof(EVENT_HEADER, ActivityId) == 64, "EVENT_HEADER.ActivityId");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_HEADER_EXTENDED_DATA_ITEM) == 16, "EVENT_HEADER_EXTENDED_DATA_ITEM");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_RECORD) == 112, "EVENT_RECORD");
ETWSIM_STATIC_ASSERT(offsetof(EVENT_RECORD, UserContext) == 104, "EVENT_RECORD.UserContext");
ETWSIM_STATIC_ASSERT(sizeof(TRACE_LOGFILE_HEADER) == 280, "TRACE_LOGFILE_HEADER");
ETWSIM_STATIC_ASSERT(offsetof(TRACE_LOGFILE_HEADER, BootTime) == 248, "TRACE_LOGFILE_HEADER.BootTime");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_TRACE_LOGFILEW) == 448, "EVENT_TRACE_LOGFILEW");
ETWSIM_STATIC_ASSERT(offsetof(EVENT_TRACE_LOGFILEW, LogfileHeader) == 120,
                     "EVENT_TRACE_LOGFILEW.LogfileHeader");
ETWSIM_STATIC_ASSERT(offsetof(EVENT_TRACE_LOGFILEW, Context) == 440, "EVENT_TRACE_LOGFILEW.Context");
ETWSIM_STATIC_ASSERT(sizeof(EVENT_TRACE_LOGFILEA) == 448, "EVENT_TRACE_LOGFILEA");

/* ---- evntprov.h inline helpers ---- */
ETWSIM_INLINE VOID EventDescCreate(PEVENT_DESCRIPTOR EventDescriptor, USHORT Id, UCHAR Version,
                                   UCHAR Channel, UCHAR Level, USHORT Task, UCHAR Opcode,
                                   ULONGLONG Keyword) {
    EventDescriptor->Id = Id;
    EventDescriptor->Version = Version;
    EventDescriptor->Channel = Channel;
    EventDescriptor->Level = Level;
    EventDescriptor->Task = Task;
    EventDescriptor->Opcode = Opcode;
    EventDescriptor->Keyword = Keyword;
}
ETWSIM_INLINE VOID EventDescZero(PEVENT_DESCRIPTOR EventDescriptor) {
    memset(EventDescriptor, 0, sizeof(EVENT_DESCRIPTOR));
}
ETWSIM_INLINE USHORT EventDescGetId(PCEVENT_DESCRIPTOR EventDescriptor) { return EventDescriptor->Id; }
ETWSIM_INLINE UCHAR EventDescGetVersion(PCEVENT_DESCRIPTOR EventDescriptor) { return EventDescriptor->Version; }
ETWSIM_INLINE USHORT EventDescGetTask(PCEVENT_DESCRIPTOR EventDescriptor) { return EventDescriptor->Task; }
ETWSIM_INLINE UCHAR EventDescGetOpcode(PCEVENT_DESCRIPTOR EventDescriptor) { return EventDescriptor->Opcode; }
ETWSIM_INLINE UCHAR EventDescGetChannel(PCEVENT_DESCRIPTOR EventDescriptor) { return EventDescriptor->Channel; }
ETWSIM_INLINE UCHAR EventDescGetLevel(PCEVENT_DESCRIPTOR EventDescriptor) { return EventDescriptor->Level; }
ETWSIM_INLINE ULONGLONG EventDescGetKeyword(PCEVENT_DESCRIPTOR EventDescriptor) { return EventDescriptor->Keyword; }
ETWSIM_INLINE VOID EventDataDescCreate(PEVENT_DATA_DESCRIPTOR EventDataDescriptor, const VOID *DataPtr,
                                       ULONG DataSize) {
    EventDataDescriptor->Ptr = (ULONGLONG)(ULONG_PTR)DataPtr;
    EventDataDescriptor->Size = DataSize;
    EventDataDescriptor->Reserved = 0;
}

/* ---- controllers (evntrace.h) ---- */
ULONG WMIAPI StartTraceW(PTRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI StartTraceA(PTRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI ControlTraceW(TRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties,
                           ULONG ControlCode);
ULONG WMIAPI ControlTraceA(TRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties,
                           ULONG ControlCode);
ULONG WMIAPI StopTraceW(TRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI StopTraceA(TRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI FlushTraceW(TRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI FlushTraceA(TRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI QueryTraceW(TRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI QueryTraceA(TRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI UpdateTraceW(TRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI UpdateTraceA(TRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI QueryAllTracesW(PEVENT_TRACE_PROPERTIES *PropertyArray, ULONG PropertyArrayCount,
                             PULONG LoggerCount);
ULONG WMIAPI QueryAllTracesA(PEVENT_TRACE_PROPERTIES *PropertyArray, ULONG PropertyArrayCount,
                             PULONG LoggerCount);
ULONG WMIAPI EnableTraceEx2(TRACEHANDLE TraceHandle, LPCGUID ProviderId, ULONG ControlCode, UCHAR Level,
                            ULONGLONG MatchAnyKeyword, ULONGLONG MatchAllKeyword, ULONG Timeout,
                            PENABLE_TRACE_PARAMETERS EnableParameters);
ULONG WMIAPI EnableTraceEx(LPCGUID ProviderId, LPCGUID SourceId, TRACEHANDLE TraceHandle, ULONG IsEnabled,
                           UCHAR Level, ULONGLONG MatchAnyKeyword, ULONGLONG MatchAllKeyword,
                           ULONG EnableProperty, PEVENT_FILTER_DESCRIPTOR EnableFilterDesc);
ULONG WMIAPI EnableTrace(ULONG Enable, ULONG EnableFlag, ULONG EnableLevel, LPCGUID ControlGuid,
                         TRACEHANDLE TraceHandle);
ULONG WMIAPI TraceSetInformation(TRACEHANDLE SessionHandle, TRACE_INFO_CLASS InformationClass,
                                 PVOID TraceInformation, ULONG InformationLength);
ULONG WMIAPI TraceQueryInformation(TRACEHANDLE SessionHandle, TRACE_INFO_CLASS InformationClass,
                                   PVOID TraceInformation, ULONG InformationLength, PULONG ReturnLength);
ULONG WMIAPI EnumerateTraceGuidsEx(TRACE_QUERY_INFO_CLASS TraceQueryInfoClass, PVOID InBuffer,
                                   ULONG InBufferSize, PVOID OutBuffer, ULONG OutBufferSize,
                                   PULONG ReturnLength);

/* ---- providers (evntprov.h) ---- */
ULONG EVNTAPI EventRegister(LPCGUID ProviderId, PENABLECALLBACK EnableCallback, PVOID CallbackContext,
                            PREGHANDLE RegHandle);
ULONG EVNTAPI EventUnregister(REGHANDLE RegHandle);
BOOLEAN EVNTAPI EventEnabled(REGHANDLE RegHandle, PCEVENT_DESCRIPTOR EventDescriptor);
BOOLEAN EVNTAPI EventProviderEnabled(REGHANDLE RegHandle, UCHAR Level, ULONGLONG Keyword);
ULONG EVNTAPI EventWrite(REGHANDLE RegHandle, PCEVENT_DESCRIPTOR EventDescriptor, ULONG UserDataCount,
                         PEVENT_DATA_DESCRIPTOR UserData);
ULONG EVNTAPI EventWriteTransfer(REGHANDLE RegHandle, PCEVENT_DESCRIPTOR EventDescriptor, LPCGUID ActivityId,
                                 LPCGUID RelatedActivityId, ULONG UserDataCount,
                                 PEVENT_DATA_DESCRIPTOR UserData);
ULONG EVNTAPI EventWriteEx(REGHANDLE RegHandle, PCEVENT_DESCRIPTOR EventDescriptor, ULONG64 Filter,
                           ULONG Flags, LPCGUID ActivityId, LPCGUID RelatedActivityId, ULONG UserDataCount,
                           PEVENT_DATA_DESCRIPTOR UserData);
ULONG EVNTAPI EventWriteString(REGHANDLE RegHandle, UCHAR Level, ULONGLONG Keyword, PCWSTR String);
ULONG EVNTAPI EventSetInformation(REGHANDLE RegHandle, EVENT_INFO_CLASS InformationClass,
                                  PVOID EventInformation, ULONG InformationLength);
ULONG EVNTAPI EventActivityIdControl(ULONG ControlCode, LPGUID ActivityId);

/* ---- classic providers (evntrace.h) ---- */
ULONG WMIAPI RegisterTraceGuidsW(WMIDPREQUEST RequestAddress, PVOID RequestContext, LPCGUID ControlGuid,
                                 ULONG GuidCount, PTRACE_GUID_REGISTRATION TraceGuidReg,
                                 LPCWSTR MofImagePath, LPCWSTR MofResourceName,
                                 PTRACEHANDLE RegistrationHandle);
ULONG WMIAPI RegisterTraceGuidsA(WMIDPREQUEST RequestAddress, PVOID RequestContext, LPCGUID ControlGuid,
                                 ULONG GuidCount, PTRACE_GUID_REGISTRATION TraceGuidReg,
                                 LPCSTR MofImagePath, LPCSTR MofResourceName,
                                 PTRACEHANDLE RegistrationHandle);
ULONG WMIAPI UnregisterTraceGuids(TRACEHANDLE RegistrationHandle);
ULONG WMIAPI TraceEvent(TRACEHANDLE SessionHandle, PEVENT_TRACE_HEADER EventTrace);
TRACEHANDLE WMIAPI GetTraceLoggerHandle(PVOID Buffer);
UCHAR WMIAPI GetTraceEnableLevel(TRACEHANDLE TraceHandle);
ULONG WMIAPI GetTraceEnableFlags(TRACEHANDLE TraceHandle);

/* ---- consumers (evntrace.h) ---- */
TRACEHANDLE WMIAPI OpenTraceW(PEVENT_TRACE_LOGFILEW Logfile);
TRACEHANDLE WMIAPI OpenTraceA(PEVENT_TRACE_LOGFILEA Logfile);
ULONG WMIAPI ProcessTrace(PTRACEHANDLE HandleArray, ULONG HandleCount, PFILETIME StartTime,
                          PFILETIME EndTime);
ULONG WMIAPI CloseTrace(TRACEHANDLE TraceHandle);

/* ---- kernel32 ---- */
DWORD WINAPI GetLastError(void);
VOID WINAPI SetLastError(DWORD dwErrCode);

/* ---- generic-text names: W with UNICODE, A without, as the SDK maps them ---- */
#if defined(UNICODE) || defined(_UNICODE)
#define StartTrace StartTraceW
#define ControlTrace ControlTraceW
#define StopTrace StopTraceW
#define FlushTrace FlushTraceW
#define QueryTrace QueryTraceW
#define UpdateTrace UpdateTraceW
#define QueryAllTraces QueryAllTracesW
#define OpenTrace OpenTraceW
#define RegisterTraceGuids RegisterTraceGuidsW
#define EVENT_TRACE_LOGFILE EVENT_TRACE_LOGFILEW
#define PEVENT_TRACE_LOGFILE PEVENT_TRACE_LOGFILEW
#define PEVENT_TRACE_BUFFER_CALLBACK PEVENT_TRACE_BUFFER_CALLBACKW
#define KERNEL_LOGGER_NAME KERNEL_LOGGER_NAMEW
#define GLOBAL_LOGGER_NAME GLOBAL_LOGGER_NAMEW
#else
#define StartTrace StartTraceA
#define ControlTrace ControlTraceA
#define StopTrace StopTraceA
#define FlushTrace FlushTraceA
#define QueryTrace QueryTraceA
#define UpdateTrace UpdateTraceA
#define QueryAllTraces QueryAllTracesA
#define OpenTrace OpenTraceA
#define RegisterTraceGuids RegisterTraceGuidsA
#define EVENT_TRACE_LOGFILE EVENT_TRACE_LOGFILEA
#define PEVENT_TRACE_LOGFILE PEVENT_TRACE_LOGFILEA
#define PEVENT_TRACE_BUFFER_CALLBACK PEVENT_TRACE_BUFFER_CALLBACKA
#define KERNEL_LOGGER_NAME KERNEL_LOGGER_NAMEA
#define GLOBAL_LOGGER_NAME GLOBAL_LOGGER_NAMEA
#endif

/* ---- the simulated machine (etwsim's own; call before the first ETW function) ---- */

/* etwsim_set_process_token kinds. */
#define ETWSIM_TOKEN_ADMINISTRATOR 0u             /* an elevated administrator (default) */
#define ETWSIM_TOKEN_USER 1u                      /* a standard user: writes events only */
#define ETWSIM_TOKEN_LOCAL_SYSTEM 2u              /* NT AUTHORITY\SYSTEM */
#define ETWSIM_TOKEN_LOCAL_SERVICE 3u             /* NT AUTHORITY\LOCAL SERVICE */
#define ETWSIM_TOKEN_NETWORK_SERVICE 4u           /* NT AUTHORITY\NETWORK SERVICE */
#define ETWSIM_TOKEN_PERFORMANCE_LOG_USER 5u      /* a member of Performance Log Users */
#define ETWSIM_TOKEN_UNELEVATED_ADMINISTRATOR 6u  /* an administrator's filtered token */

/* Deterministic mode: virtual clock, no logger threads, GUIDs from Seed; logger work runs in
 * ControlTrace (FLUSH, STOP), etwsim_run_pending and etwsim_advance_ms. ERROR_ALREADY_INITIALIZED
 * after the first ETW call. */
ULONG etwsim_set_deterministic(ULONG64 Seed);
/* Simulated logical processors, 1..256 (default 4). ERROR_INVALID_PARAMETER outside that range,
 * ERROR_ALREADY_INITIALIZED after the first ETW call. */
ULONG etwsim_set_cpu_count(ULONG Count);
/* Who the process runs as: an ETWSIM_TOKEN_* value. ERROR_INVALID_PARAMETER for another value,
 * ERROR_ALREADY_INITIALIZED after the first ETW call. */
ULONG etwsim_set_process_token(ULONG Kind);
/* The process's image name (for EVENT_FILTER_TYPE_EXECUTABLE_NAME), 1..260 characters; default
 * the executable's file name. ERROR_INVALID_PARAMETER for NULL or a bad length,
 * ERROR_ALREADY_INITIALIZED after the first ETW call. */
ULONG etwsim_set_image_name(LPCSTR Name);
/* Deterministic mode: run the logger work that is due. No effect in threaded mode. */
ULONG etwsim_run_pending(void);
/* Deterministic mode: advance the virtual clock (flush timers fire). No effect in threaded mode. */
ULONG etwsim_advance_ms(ULONG64 Milliseconds);
/* The simulated process id (EVENT_HEADER.ProcessId of this process's events). */
ULONG etwsim_process_id(void);

#ifdef __cplusplus
}
#endif

#include "tdh.h"

#endif /* ETWSIM_H */
