#!/usr/bin/env python3
"""The ETW API from Python through ctypes, against libetwsim_sys.so.

A provider with a Python enable callback, a file session, EventWrite, StopTrace, then
OpenTraceW + ProcessTrace with a Python EventRecordCallback reading the events back.

Usage: ctypes_session.py PATH/TO/libetwsim_sys.so     (exits non-zero on any failure)
"""
import ctypes as C
import sys
import uuid

lib = C.CDLL(sys.argv[1] if len(sys.argv) > 1 else "libetwsim_sys.so")


class GUID(C.Structure):
    _fields_ = [("Data1", C.c_uint32), ("Data2", C.c_uint16), ("Data3", C.c_uint16),
                ("Data4", C.c_uint8 * 8)]

    @classmethod
    def of(cls, text):
        u = uuid.UUID(text)
        return cls.from_buffer_copy(u.bytes_le)

    def __eq__(self, other):
        return bytes(self) == bytes(other)


class WNODE_HEADER(C.Structure):
    _fields_ = [("BufferSize", C.c_uint32), ("ProviderId", C.c_uint32),
                ("HistoricalContext", C.c_uint64), ("TimeStamp", C.c_int64), ("Guid", GUID),
                ("ClientContext", C.c_uint32), ("Flags", C.c_uint32)]


class EVENT_TRACE_PROPERTIES(C.Structure):
    _fields_ = [("Wnode", WNODE_HEADER)] + [(n, C.c_uint32) for n in (
        "BufferSize", "MinimumBuffers", "MaximumBuffers", "MaximumFileSize", "LogFileMode",
        "FlushTimer", "EnableFlags", "AgeLimit", "NumberOfBuffers", "FreeBuffers", "EventsLost",
        "BuffersWritten", "LogBuffersLost", "RealTimeBuffersLost")] + [
        ("LoggerThreadId", C.c_void_p), ("LogFileNameOffset", C.c_uint32),
        ("LoggerNameOffset", C.c_uint32)]


class EVENT_DESCRIPTOR(C.Structure):
    _fields_ = [("Id", C.c_uint16), ("Version", C.c_uint8), ("Channel", C.c_uint8),
                ("Level", C.c_uint8), ("Opcode", C.c_uint8), ("Task", C.c_uint16),
                ("Keyword", C.c_uint64)]


class EVENT_DATA_DESCRIPTOR(C.Structure):
    _fields_ = [("Ptr", C.c_uint64), ("Size", C.c_uint32), ("Reserved", C.c_uint32)]


class EVENT_HEADER(C.Structure):
    _fields_ = [("Size", C.c_uint16), ("HeaderType", C.c_uint16), ("Flags", C.c_uint16),
                ("EventProperty", C.c_uint16), ("ThreadId", C.c_uint32), ("ProcessId", C.c_uint32),
                ("TimeStamp", C.c_int64), ("ProviderId", GUID), ("EventDescriptor", EVENT_DESCRIPTOR),
                ("ProcessorTime", C.c_uint64), ("ActivityId", GUID)]


class EVENT_RECORD(C.Structure):
    _fields_ = [("EventHeader", EVENT_HEADER), ("BufferContext", C.c_uint32),
                ("ExtendedDataCount", C.c_uint16), ("UserDataLength", C.c_uint16),
                ("ExtendedData", C.c_void_p), ("UserData", C.c_void_p), ("UserContext", C.c_void_p)]


for t, n in ((WNODE_HEADER, 48), (EVENT_TRACE_PROPERTIES, 120), (EVENT_DESCRIPTOR, 16),
             (EVENT_DATA_DESCRIPTOR, 16), (EVENT_HEADER, 80), (EVENT_RECORD, 112)):
    assert C.sizeof(t) == n, (t.__name__, C.sizeof(t))

# EVENT_TRACE_LOGFILEW (448 bytes) is only filled at the offsets this program uses.
LOGFILE_SIZE, OFF_LOGFILENAME, OFF_MODE, OFF_HEADER_BUFFERS, OFF_RECORD_CB = 448, 0, 28, 156, 424

ENABLECALLBACK = C.CFUNCTYPE(None, C.POINTER(GUID), C.c_uint32, C.c_uint8, C.c_uint64,
                             C.c_uint64, C.c_void_p, C.c_void_p)
RECORDCALLBACK = C.CFUNCTYPE(None, C.POINTER(EVENT_RECORD))

u32, u64 = C.c_uint32, C.c_uint64
# Names are passed as addresses of UTF-16 bytes: Python's c_wchar may be 32 bits.
lib.StartTraceW.argtypes = [C.POINTER(u64), C.c_void_p, C.c_void_p]
lib.StartTraceW.restype = u32
lib.ControlTraceW.argtypes = [u64, C.c_void_p, C.c_void_p, u32]
lib.ControlTraceW.restype = u32
lib.EventRegister.argtypes = [C.POINTER(GUID), ENABLECALLBACK, C.c_void_p, C.POINTER(u64)]
lib.EventRegister.restype = u32
lib.EventUnregister.argtypes = [u64]
lib.EventUnregister.restype = u32
lib.EnableTraceEx2.argtypes = [u64, C.POINTER(GUID), u32, C.c_uint8, u64, u64, u32, C.c_void_p]
lib.EnableTraceEx2.restype = u32
lib.EventWrite.argtypes = [u64, C.POINTER(EVENT_DESCRIPTOR), u32, C.POINTER(EVENT_DATA_DESCRIPTOR)]
lib.EventWrite.restype = u32
lib.OpenTraceW.argtypes = [C.c_void_p]
lib.OpenTraceW.restype = u64
lib.ProcessTrace.argtypes = [C.POINTER(u64), u32, C.c_void_p, C.c_void_p]
lib.ProcessTrace.restype = u32
lib.CloseTrace.argtypes = [u64]
lib.CloseTrace.restype = u32


def utf16z(s):
    """UTF-16 bytes with a NUL: WCHAR is 16 bits whatever Python's wchar_t is."""
    return (s + "\0").encode("utf-16-le")


def fail(msg):
    print("FAILED:", msg, file=sys.stderr)
    sys.exit(1)


PROVIDER = GUID.of("{6a1f3c5e-2b7d-4e90-8c41-0d2e3f4a5b6c}")
SESSION = "etwsim ctypes example"
PATH = "etwsim_ctypes.etl"
N = 25

# 1. A provider with a Python enable callback.
seen = []


@ENABLECALLBACK
def on_enable(source, is_enabled, level, any_kw, all_kw, filt, ctx):
    seen.append((is_enabled, level))


reg = u64(0)
if lib.EventRegister(C.byref(PROVIDER), on_enable, None, C.byref(reg)) != 0:
    fail("EventRegister")

# 2. A sequential file session: the structure, the session name, the file name.
name, path = utf16z(SESSION), utf16z(PATH)
size = C.sizeof(EVENT_TRACE_PROPERTIES) + len(name) + len(path)
block = C.create_string_buffer(size)
props = EVENT_TRACE_PROPERTIES.from_buffer(block)
props.Wnode.BufferSize = size
props.Wnode.Flags = 0x00020000  # WNODE_FLAG_TRACED_GUID
props.Wnode.ClientContext = 1
props.LogFileMode = 0x1  # EVENT_TRACE_FILE_MODE_SEQUENTIAL
props.LoggerNameOffset = C.sizeof(EVENT_TRACE_PROPERTIES)
props.LogFileNameOffset = C.sizeof(EVENT_TRACE_PROPERTIES) + len(name)
C.memmove(C.addressof(block) + props.LogFileNameOffset, path, len(path))
handle = u64(0)
name_buf = C.create_string_buffer(name, len(name))
status = lib.StartTraceW(C.byref(handle), C.cast(name_buf, C.c_void_p).value, C.addressof(block))
if status != 0:
    fail(f"StartTraceW returned {status}")
print(f"StartTraceW -> handle {handle.value:#x}, {props.NumberOfBuffers} buffers")

# 3. Enable (the Python callback runs before EnableTraceEx2 returns), write N events.
if lib.EnableTraceEx2(handle, C.byref(PROVIDER), 1, 4, 0, 0, 0, None) != 0:
    fail("EnableTraceEx2")
if seen != [(1, 4)]:
    fail(f"enable callback saw {seen}")
desc = EVENT_DESCRIPTOR(Id=7, Level=4)
for i in range(N):
    value = u32(i * 3)
    data = EVENT_DATA_DESCRIPTOR(Ptr=C.addressof(value), Size=4)
    if lib.EventWrite(reg, C.byref(desc), 1, C.byref(data)) != 0:
        fail("EventWrite")

# 4. Stop; the statistics come back in the block.
if lib.ControlTraceW(handle, None, C.addressof(block), 1) != 0:  # EVENT_TRACE_CONTROL_STOP
    fail("ControlTraceW(STOP)")
print(f"stopped: BuffersWritten {props.BuffersWritten}, EventsLost {props.EventsLost}")
if seen[-1][0] != 0:
    fail("no disable callback at stop")

# 5. Read the file back.
values = []


@RECORDCALLBACK
def on_event(rec):
    r = rec.contents
    if r.EventHeader.ProviderId == PROVIDER and r.EventHeader.EventDescriptor.Id == 7:
        values.append(C.cast(r.UserData, C.POINTER(C.c_uint32))[0])


logfile = C.create_string_buffer(LOGFILE_SIZE)
path_buf = C.create_string_buffer(path, len(path))
C.c_void_p.from_buffer(logfile, OFF_LOGFILENAME).value = C.addressof(path_buf)
C.c_uint32.from_buffer(logfile, OFF_MODE).value = 0x10000000  # PROCESS_TRACE_MODE_EVENT_RECORD
C.c_void_p.from_buffer(logfile, OFF_RECORD_CB).value = C.cast(on_event, C.c_void_p).value
trace = u64(lib.OpenTraceW(C.addressof(logfile)))
if trace.value == 0xFFFFFFFFFFFFFFFF:
    fail("OpenTraceW")
buffers = C.c_uint32.from_buffer(logfile, OFF_HEADER_BUFFERS).value
status = lib.ProcessTrace(C.byref(trace), 1, None, None)
lib.CloseTrace(trace)
if status != 0 or values != [i * 3 for i in range(N)]:
    fail(f"ProcessTrace returned {status}, values {values}")
lib.EventUnregister(reg)
print(f"ctypes_session: ok ({N} events read back; LogfileHeader.BuffersWritten {buffers})")
