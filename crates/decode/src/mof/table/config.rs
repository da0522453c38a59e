//! SystemConfig (= EventTraceConfigGuid, group 0x0B): the hardware and system description the
//! kernel logger writes at the end of a trace (SES-70). Learn SystemConfig_V0_* (v0, v1) and
//! SystemConfig_* (v2); ntwmi's records for the newer versions (CPU_CONFIG_RECORD v3,
//! WMI_IRQ_RECORD v3, WMI_PNP_RECORD_V4/V5, OPTICAL_MEDIA_RECORD, WMI_DPI_RECORD); Windows'
//! MOF (dissect.etl's copy) for the Windows 8+ records ntwmi only names.

use super::{class, ev, f, named, opt};
use crate::mof::{Layout, MofClass, MofType};

use MofType::{Ansiz, Guid, I32, I64, Pointer, U8, U16, U32, U64, Utf16Chars, Utf16z};

static CPU_V0: Layout = Layout {
    name: "SystemConfig_V0_CPU",
    versions: &[0, 1],
    fields: &[
        f("MHz", U32),
        f("NumberOfProcessors", U32),
        f("MemSize", U32),
        f("PageSize", U32),
        f("AllocationGranularity", U32),
        f("ComputerName", Utf16Chars(256)),
        f("DomainName", Utf16Chars(132)),
        f("HyperThreadingFlag", Pointer),
    ],
};

static CPU_V2: Layout = Layout {
    name: "SystemConfig_CPU",
    versions: &[2],
    fields: &[
        f("MHz", U32),
        f("NumberOfProcessors", U32),
        f("MemSize", U32),
        f("PageSize", U32),
        f("AllocationGranularity", U32),
        f("ComputerName", Utf16Chars(256)),
        f("DomainName", Utf16Chars(134)),
        f("HyperThreadingFlag", Pointer),
    ],
};

/// ntwmi `CPU_CONFIG_RECORD`.
static CPU_V3: Layout = Layout {
    name: "SystemConfig_CPU",
    versions: &[3],
    fields: &[
        f("MHz", U32),
        f("NumberOfProcessors", U32),
        f("MemSize", U32),
        f("PageSize", U32),
        f("AllocationGranularity", U32),
        f("ComputerName", Utf16Chars(256)),
        f("DomainName", Utf16Chars(134)),
        f("HyperThreadingFlag", Pointer),
        f("HighestUserAddress", Pointer),
        f("ProcessorArchitecture", U16),
        f("ProcessorLevel", U16),
        f("ProcessorRevision", U16),
        f("NxEnabled", U8),
        f("PaeEnabled", U8),
        f("MemorySpeed", U32),
    ],
};

static PHY_DISK: Layout = Layout {
    name: "SystemConfig_PhyDisk",
    versions: &[0, 1, 2],
    fields: &[
        f("DiskNumber", U32),
        f("BytesPerSector", U32),
        f("SectorsPerTrack", U32),
        f("TracksPerCylinder", U32),
        f("Cylinders", U64),
        f("SCSIPort", U32),
        f("SCSIPath", U32),
        f("SCSITarget", U32),
        f("SCSILun", U32),
        f("Manufacturer", Utf16Chars(256)),
        f("PartitionCount", U32),
        f("WriteCacheEnabled", U8),
        f("Pad", U8),
        f("BootDriveLetter", Utf16Chars(3)),
        f("Spare", Utf16Chars(2)),
    ],
};

static LOG_DISK_V0: Layout = Layout {
    name: "SystemConfig_V0_LogDisk",
    versions: &[0, 1],
    fields: &[
        f("StartOffset", U64),
        f("PartitionSize", U64),
        f("DiskNumber", U32),
        f("Size", U32),
        f("DriveType", U32),
        f("DriveLetterString", Utf16Chars(4)),
        f("Pad1", U32),
        f("PartitionNumber", U32),
        f("SectorsPerCluster", U32),
        f("BytesPerSector", U32),
        f("Pad2", U32),
        f("NumberOfFreeClusters", I64),
        f("TotalNumberOfClusters", I64),
        f("FileSystem", Utf16Chars(16)),
        f("VolumeExt", U32),
    ],
};

static LOG_DISK: Layout = Layout {
    name: "SystemConfig_LogDisk",
    versions: &[2],
    fields: &[
        f("StartOffset", U64),
        f("PartitionSize", U64),
        f("DiskNumber", U32),
        f("Size", U32),
        f("DriveType", U32),
        f("DriveLetterString", Utf16Chars(4)),
        f("Pad1", U32),
        f("PartitionNumber", U32),
        f("SectorsPerCluster", U32),
        f("BytesPerSector", U32),
        f("Pad2", U32),
        f("NumberOfFreeClusters", I64),
        f("TotalNumberOfClusters", I64),
        f("FileSystem", Utf16Chars(16)),
        f("VolumeExt", U32),
        f("Pad3", U32),
    ],
};

static NIC_V0: Layout = Layout {
    name: "SystemConfig_V0_NIC",
    versions: &[0, 1],
    fields: &[
        f("NICName", Utf16Chars(256)),
        f("Index", U32),
        f("PhysicalAddrLen", U32),
        f("PhysicalAddr", Utf16Chars(8)),
        f("Size", U32),
        f("IpAddress", I32),
        f("SubnetMask", I32),
        f("DhcpServer", I32),
        f("Gateway", I32),
        f("PrimaryWinsServer", I32),
        f("SecondaryWinsServer", I32),
        f("DnsServer1", I32),
        f("DnsServer2", I32),
        f("DnsServer3", I32),
        f("DnsServer4", I32),
        f("Data", U32),
    ],
};

static NIC: Layout = Layout {
    name: "SystemConfig_NIC",
    versions: &[2],
    fields: &[
        f("PhysicalAddr", U64),
        f("PhysicalAddrLen", U32),
        f("Ipv4Index", U32),
        f("Ipv6Index", U32),
        f("NICDescription", Utf16z),
        f("IpAddresses", Utf16z),
        f("DnsServerAddresses", Utf16z),
    ],
};

static VIDEO: Layout = Layout {
    name: "SystemConfig_Video",
    versions: &[0, 1, 2],
    fields: &[
        f("MemorySize", U32),
        f("XResolution", U32),
        f("YResolution", U32),
        f("BitsPerPixel", U32),
        f("VRefresh", U32),
        f("ChipType", Utf16Chars(256)),
        f("DACType", Utf16Chars(256)),
        f("AdapterString", Utf16Chars(256)),
        f("BiosString", Utf16Chars(256)),
        f("DeviceId", Utf16Chars(256)),
        f("StateFlags", U32),
    ],
};

static SERVICES_V0: Layout = Layout {
    name: "SystemConfig_V0_Services",
    versions: &[0, 1],
    fields: &[
        f("ServiceName", Utf16Chars(34)),
        f("DisplayName", Utf16Chars(256)),
        f("ProcessName", Utf16Chars(34)),
        f("ProcessId", U32),
    ],
};

static SERVICES: Layout = Layout {
    name: "SystemConfig_Services",
    versions: &[2],
    fields: &[
        f("ProcessId", U32),
        f("ServiceState", U32),
        f("SubProcessTag", U32),
        f("ServiceName", Utf16z),
        f("DisplayName", Utf16z),
        f("ProcessName", Utf16z),
    ],
};

/// Windows 8+ appends the load-order and svchost groups (Windows' MOF, dissect.etl's copy;
/// real traces carry five strings).
static SERVICES_V3: Layout = Layout {
    name: "SystemConfig_Services",
    versions: &[3],
    fields: &[
        f("ProcessId", U32),
        f("ServiceState", U32),
        f("SubProcessTag", U32),
        f("ServiceName", Utf16z),
        f("DisplayName", Utf16z),
        f("ProcessName", Utf16z),
        f("LoadOrderGroup", Utf16z),
        f("SvchostGroup", Utf16z),
    ],
};

static POWER: Layout = Layout {
    name: "SystemConfig_Power",
    versions: &[0, 1, 2],
    fields: &[
        f("S1", U8),
        f("S2", U8),
        f("S3", U8),
        f("S4", U8),
        f("S5", U8),
        f("Pad1", U8),
        f("Pad2", U8),
        f("Pad3", U8),
    ],
};

static NETWORK: Layout = Layout {
    name: "SystemConfig_Network",
    versions: &[2],
    fields: &[
        f("TcbTablePartitions", U32),
        f("MaxHashTableSize", U32),
        f("MaxUserPort", U32),
        f("TcpTimedWaitDelay", U32),
    ],
};

/// ntwmi `OPTICAL_MEDIA_RECORD`, whose variable part holds the drive letter and file system
/// (UTF-16) and the device and manufacturer names (8-bit), as Windows' MOF lists them.
static OPTICAL_MEDIA: Layout = Layout {
    name: "SystemConfig_OpticalMedia",
    versions: &[2],
    fields: &[
        f("DiskNumber", U16),
        f("BusType", U16),
        f("DeviceType", U16),
        f("MediaType", U16),
        f("StartingOffset", U64),
        f("Size", U64),
        f("NumberOfFreeBlocks", U64),
        f("TotalNumberOfBlocks", U64),
        f("NextWritableAddress", U64),
        f("NumberOfSessions", U32),
        f("NumberOfTracks", U32),
        f("BytesPerSector", U32),
        f("DiscStatus", U16),
        f("LastSessionStatus", U16),
        f("DriveLetter", Utf16z),
        f("FileSystemName", Utf16z),
        f("DeviceName", Ansiz),
        f("ManufacturerName", Ansiz),
    ],
};

static IRQ: Layout = Layout {
    name: "SystemConfig_IRQ",
    versions: &[0, 1, 2],
    fields: &[
        f("IRQAffinity", U64),
        f("IRQNum", U32),
        f("DeviceDescriptionLen", U32),
        f("DeviceDescription", Utf16z),
    ],
};

/// ntwmi `WMI_IRQ_RECORD` (the processor group added).
static IRQ_V3: Layout = Layout {
    name: "SystemConfig_IRQ",
    versions: &[3],
    fields: &[
        f("IRQAffinity", U64),
        f("IRQGroup", U16),
        f("Reserved", U16),
        f("IRQNum", U32),
        f("DeviceDescriptionLen", U32),
        f("DeviceDescription", Utf16z),
    ],
};

static PNP: Layout = Layout {
    name: "SystemConfig_PnP",
    versions: &[0, 1, 2],
    fields: &[
        f("IDLength", U32),
        f("DescriptionLength", U32),
        f("FriendlyNameLength", U32),
        f("DeviceID", Utf16z),
        f("DeviceDescription", Utf16z),
        f("FriendlyName", Utf16z),
    ],
};

/// ntwmi `WMI_PNP_RECORD_V3`; Windows' MOF appends the PDO name.
static PNP_V3: Layout = Layout {
    name: "SystemConfig_PnP",
    versions: &[3],
    fields: &[
        f("IDLength", U32),
        f("DescriptionLength", U32),
        f("FriendlyNameLength", U32),
        f("DeviceID", Utf16z),
        f("DeviceDescription", Utf16z),
        f("FriendlyName", Utf16z),
        opt("PdoName", Utf16z),
    ],
};

/// ntwmi `WMI_PNP_RECORD_V4`. The strings end with UpperFilterCount upper-filter names and
/// LowerFilterCount lower-filter names (none when both counts are 0, as real traces show);
/// the layout stops at ServiceName and leaves those names as trailing bytes, as TraceEvent
/// does.
static PNP_V4: Layout = Layout {
    name: "SystemConfig_PnP",
    versions: &[4],
    fields: &[
        f("ClassGuid", Guid),
        f("UpperFilterCount", U32),
        f("LowerFilterCount", U32),
        f("DeviceID", Utf16z),
        f("DeviceDescription", Utf16z),
        f("FriendlyName", Utf16z),
        f("PdoName", Utf16z),
        f("ServiceName", Utf16z),
    ],
};

/// ntwmi `WMI_PNP_RECORD_V5` (the filter names as in v4).
static PNP_V5: Layout = Layout {
    name: "SystemConfig_PnP",
    versions: &[5],
    fields: &[
        f("ClassGuid", Guid),
        f("UpperFilterCount", U32),
        f("LowerFilterCount", U32),
        f("DevStatus", U32),
        f("DevProblem", U32),
        f("DeviceID", Utf16z),
        f("DeviceDescription", Utf16z),
        f("FriendlyName", Utf16z),
        f("PdoName", Utf16z),
        f("ServiceName", Utf16z),
    ],
};

static IDE_CHANNEL: Layout = Layout {
    name: "SystemConfig_IDEChannel",
    versions: &[2],
    fields: &[
        f("TargetId", U32),
        f("DeviceType", U32),
        f("DeviceTimingMode", U32),
        f("LocationInformationLen", U32),
        f("LocationInformation", Utf16z),
    ],
};

static NUMA_NODE: Layout = Layout {
    name: "SystemConfig_NumaNode",
    versions: &[2],
    fields: &[f("NodeCount", U32), f("NodeMap", U64)],
};

static PLATFORM: Layout = Layout {
    name: "SystemConfig_Platform",
    versions: &[2],
    fields: &[
        f("SystemManufacturer", Utf16z),
        f("SystemProductName", Utf16z),
        f("BiosDate", Utf16z),
        f("BiosVersion", Utf16z),
    ],
};

static PROCESSOR_GROUP: Layout = Layout {
    name: "SystemConfig_ProcessorGroup",
    versions: &[2],
    fields: &[f("GroupCount", U32), f("Affinity", Pointer)],
};

static PROCESSOR_NUMBER: Layout = Layout {
    name: "SystemConfig_ProcessorNumber",
    versions: &[2],
    fields: &[f("ProcessorCount", U32), f("ProcessorNumber", U32)],
};

/// ntwmi `WMI_DPI_RECORD`.
static DPI: Layout = Layout {
    name: "SystemConfig_DPI",
    versions: &[2],
    fields: &[f("MachineDPI", U32), f("UserDPI", U32)],
};

static CODE_INTEGRITY: Layout = Layout {
    name: "SystemConfig_CodeIntegrity",
    versions: &[2],
    fields: &[f("CodeIntegrityInfo", U32)],
};

static MACHINE_ID: Layout = Layout {
    name: "SystemConfig_MachineId",
    versions: &[2],
    fields: &[f("MachineId", Guid)],
};

static DEVICE_FAMILY: Layout = Layout {
    name: "SystemConfig_DeviceFamily",
    versions: &[2],
    fields: &[
        f("UAPInfo", U64),
        f("DeviceFamily", U32),
        f("DeviceForm", U32),
    ],
};

static FLIGHT_IDS: Layout = Layout {
    name: "SystemConfig_FlightIds",
    versions: &[2],
    fields: &[f("UpdateId", Utf16z), f("FlightIdList", Utf16z)],
};

/// `SystemConfig` (= EventTraceConfigGuid) {01853a65-418f-4f36-aefc-dc0f1d2fd235}, group
/// 0x0B (KRN-12). Types 31 (Defragmentation), 32 (MobilePlatform) and 35 (Processors) are
/// named only: their layouts appear in no source of the table's precedence list but
/// Windows' MOF, and 35's strings have no stated lengths there.
pub static SYSTEM_CONFIG: MofClass = class(
    "SystemConfig",
    0x0B,
    &[
        ev(10, "CPU", &[&CPU_V0, &CPU_V2, &CPU_V3]),
        ev(11, "PhyDisk", &[&PHY_DISK]),
        ev(12, "LogDisk", &[&LOG_DISK_V0, &LOG_DISK]),
        ev(13, "NIC", &[&NIC_V0, &NIC]),
        ev(14, "Video", &[&VIDEO]),
        ev(15, "Services", &[&SERVICES_V0, &SERVICES, &SERVICES_V3]),
        ev(16, "Power", &[&POWER]),
        ev(17, "Network", &[&NETWORK]),
        ev(18, "OpticalMedia", &[&OPTICAL_MEDIA]),
        named(19, "PhyDiskEx"),
        ev(21, "IRQ", &[&IRQ, &IRQ_V3]),
        ev(22, "PnP", &[&PNP, &PNP_V3, &PNP_V4, &PNP_V5]),
        ev(23, "IDEChannel", &[&IDE_CHANNEL]),
        ev(24, "NumaNode", &[&NUMA_NODE]),
        ev(25, "Platform", &[&PLATFORM]),
        ev(26, "ProcessorGroup", &[&PROCESSOR_GROUP]),
        ev(27, "ProcessorNumber", &[&PROCESSOR_NUMBER]),
        ev(28, "DPI", &[&DPI]),
        ev(29, "CodeIntegrity", &[&CODE_INTEGRITY]),
        ev(30, "MachineId", &[&MACHINE_ID]),
        named(31, "Defragmentation"),
        named(32, "MobilePlatform"),
        ev(33, "DeviceFamily", &[&DEVICE_FAMILY]),
        ev(34, "FlightIds", &[&FLIGHT_IDS]),
        named(35, "Processors"),
        named(36, "Virtualization"),
        named(37, "Boot"),
    ],
);
