//! TcpIp (group 0x06) and UdpIp (0x08): Learn TcpIp_V0_TypeGroup1, TcpIp_V1_*,
//! TcpIp_SendIPV4 / TypeGroup1 / TypeGroup2 / Fail / SendIPV6 / TypeGroup3 / TypeGroup4 and
//! the UdpIp equivalents, with the MOF's `connid` pointer (TraceEvent reads it
//! pointer-sized). Addresses and ports are in network order on the wire (ntwmi WMI_TCPIP_V4…).

use super::{class, ev, f, named};
use crate::mof::{Layout, MofClass, MofField, MofType};

use MofType::{I16, IpV4, IpV6, Pointer, Port, U16, U32};

// ---------------------------------------------------------------------------------------
// TcpIp

static TCP_V0: Layout = Layout {
    name: "TcpIp_V0_TypeGroup1",
    versions: &[0],
    fields: &[
        f("daddr", IpV4),
        f("saddr", IpV4),
        f("dport", Port),
        f("sport", Port),
        f("size", U32),
        f("PID", U32),
    ],
};

/// The connection prefix every v1/v2 record starts with.
const fn conn(ip: MofType) -> [MofField; 6] {
    [
        f("PID", U32),
        f("size", U32),
        f("daddr", ip),
        f("saddr", ip),
        f("dport", Port),
        f("sport", Port),
    ]
}

const V4: [MofField; 6] = conn(IpV4);
const V6: [MofField; 6] = conn(IpV6);

/// Connect/accept options after the prefix.
const OPTIONS: [MofField; 7] = [
    f("mss", U16),
    f("sackopt", U16),
    f("tsopt", U16),
    f("wsopt", U16),
    f("rcvwin", U32),
    f("rcvwinscale", I16),
    f("sndwinscale", I16),
];

static TCP_V1_SEND: Layout = Layout {
    name: "TcpIp_V1_Send",
    versions: &[1],
    fields: &[
        V4[0],
        V4[1],
        V4[2],
        V4[3],
        V4[4],
        V4[5],
        f("startime", U32),
        f("endtime", U32),
        f("connid", Pointer),
        f("seqnum", U32),
    ],
};

static TCP_V1_TG1: Layout = Layout {
    name: "TcpIp_V1_TypeGroup1",
    versions: &[1],
    fields: &[
        V4[0],
        V4[1],
        V4[2],
        V4[3],
        V4[4],
        V4[5],
        f("connid", Pointer),
        f("seqnum", U32),
    ],
};

static TCP_V1_TG2: Layout = Layout {
    name: "TcpIp_V1_TypeGroup2",
    versions: &[1],
    fields: &[
        V4[0],
        V4[1],
        V4[2],
        V4[3],
        V4[4],
        V4[5],
        OPTIONS[0],
        OPTIONS[1],
        OPTIONS[2],
        OPTIONS[3],
        OPTIONS[4],
        OPTIONS[5],
        OPTIONS[6],
        f("connid", Pointer),
        f("seqnum", U32),
    ],
};

static TCP_V1_FAIL: Layout = Layout {
    name: "TcpIp_V1_Fail",
    versions: &[1],
    fields: &[f("Proto", U32)],
};

static TCP_SEND_V4: Layout = Layout {
    name: "TcpIp_SendIPV4",
    versions: &[2],
    fields: &[
        V4[0],
        V4[1],
        V4[2],
        V4[3],
        V4[4],
        V4[5],
        f("startime", U32),
        f("endtime", U32),
        f("seqnum", U32),
        f("connid", Pointer),
    ],
};

static TCP_TG1: Layout = Layout {
    name: "TcpIp_TypeGroup1",
    versions: &[2],
    fields: &[
        V4[0],
        V4[1],
        V4[2],
        V4[3],
        V4[4],
        V4[5],
        f("seqnum", U32),
        f("connid", Pointer),
    ],
};

static TCP_TG2: Layout = Layout {
    name: "TcpIp_TypeGroup2",
    versions: &[2],
    fields: &[
        V4[0],
        V4[1],
        V4[2],
        V4[3],
        V4[4],
        V4[5],
        OPTIONS[0],
        OPTIONS[1],
        OPTIONS[2],
        OPTIONS[3],
        OPTIONS[4],
        OPTIONS[5],
        OPTIONS[6],
        f("seqnum", U32),
        f("connid", Pointer),
    ],
};

static FAIL: Layout = Layout {
    name: "TcpIp_Fail",
    versions: &[2],
    fields: &[f("Proto", U16), f("FailureCode", U16)],
};

static TCP_SEND_V6: Layout = Layout {
    name: "TcpIp_SendIPV6",
    versions: &[2],
    fields: &[
        V6[0],
        V6[1],
        V6[2],
        V6[3],
        V6[4],
        V6[5],
        f("startime", U32),
        f("endtime", U32),
        f("seqnum", U32),
        f("connid", Pointer),
    ],
};

static TCP_TG3: Layout = Layout {
    name: "TcpIp_TypeGroup3",
    versions: &[2],
    fields: &[
        V6[0],
        V6[1],
        V6[2],
        V6[3],
        V6[4],
        V6[5],
        f("seqnum", U32),
        f("connid", Pointer),
    ],
};

static TCP_TG4: Layout = Layout {
    name: "TcpIp_TypeGroup4",
    versions: &[2],
    fields: &[
        V6[0],
        V6[1],
        V6[2],
        V6[3],
        V6[4],
        V6[5],
        OPTIONS[0],
        OPTIONS[1],
        OPTIONS[2],
        OPTIONS[3],
        OPTIONS[4],
        OPTIONS[5],
        OPTIONS[6],
        f("seqnum", U32),
        f("connid", Pointer),
    ],
};

const SEND: &[&Layout] = &[&TCP_V0, &TCP_V1_SEND, &TCP_SEND_V4];
const RECV: &[&Layout] = &[&TCP_V0, &TCP_V1_TG1, &TCP_TG1];
const CONNECT: &[&Layout] = &[&TCP_V0, &TCP_V1_TG2, &TCP_TG2];
const TG1: &[&Layout] = &[&TCP_V1_TG1, &TCP_TG1];
const V1_TG3: &[&Layout] = &[&TCP_V1_TG1];

/// `TcpIp` {9a280ac0-c8e0-11d1-84e2-00c04fb998a2}, group 0x06 (KRN-09). The event names are
/// the version 2 (Windows Vista+) ones; versions 0 and 1 call 10–15 Send, Recv, Connect,
/// Disconnect, Retransmit, Accept.
pub static TCP_IP: MofClass = class(
    "TcpIp",
    0x06,
    &[
        ev(10, "SendIPV4", SEND),
        ev(11, "RecvIPV4", RECV),
        ev(12, "ConnectIPV4", CONNECT),
        ev(13, "DisconnectIPV4", RECV),
        ev(14, "RetransmitIPV4", RECV),
        ev(15, "AcceptIPV4", CONNECT),
        ev(16, "ReconnectIPV4", TG1),
        ev(17, "Fail", &[&TCP_V1_FAIL, &FAIL]),
        ev(18, "TCPCopyIPV4", TG1),
        // Version 1 only; TcpIp_V1_TypeGroup3 has the TypeGroup1 shape.
        ev(19, "ARPCopy", V1_TG3),
        ev(20, "FullACK", V1_TG3),
        ev(21, "PartACK", V1_TG3),
        ev(22, "DupACK", V1_TG3),
        ev(26, "SendIPV6", &[&TCP_SEND_V6]),
        ev(27, "RecvIPV6", &[&TCP_TG3]),
        ev(28, "ConnectIPV6", &[&TCP_TG4]),
        ev(29, "DisconnectIPV6", &[&TCP_TG3]),
        ev(30, "RetransmitIPV6", &[&TCP_TG3]),
        ev(31, "AcceptIPV6", &[&TCP_TG4]),
        ev(32, "ReconnectIPV6", &[&TCP_TG3]),
        named(33, "FailIPV6"),
        ev(34, "TCPCopyIPV6", &[&TCP_TG3]),
        named(35, "ARPCopyIPV6"),
        named(36, "FullACKIPV6"),
        named(37, "PartACKIPV6"),
        named(38, "DupACKIPV6"),
    ],
);

// ---------------------------------------------------------------------------------------
// UdpIp

static UDP_V0: Layout = Layout {
    name: "UdpIp_V0_TypeGroup1",
    versions: &[0],
    fields: &[
        f("context", Pointer),
        f("saddr", IpV4),
        f("sport", Port),
        f("size", U16),
        f("daddr", IpV4),
        f("dport", Port),
        f("dsize", U16),
    ],
};

static UDP_V1: Layout = Layout {
    name: "UdpIp_V1_TypeGroup1",
    versions: &[1],
    fields: &V4,
};

static UDP_TG1: Layout = Layout {
    name: "UdpIp_TypeGroup1",
    versions: &[2],
    fields: &[
        V4[0],
        V4[1],
        V4[2],
        V4[3],
        V4[4],
        V4[5],
        f("seqnum", U32),
        f("connid", Pointer),
    ],
};

static UDP_FAIL: Layout = Layout {
    name: "UdpIp_Fail",
    versions: &[2],
    fields: &[f("Proto", U16), f("FailureCode", U16)],
};

static UDP_TG2: Layout = Layout {
    name: "UdpIp_TypeGroup2",
    versions: &[2],
    fields: &[
        V6[0],
        V6[1],
        V6[2],
        V6[3],
        V6[4],
        V6[5],
        f("seqnum", U32),
        f("connid", Pointer),
    ],
};

const UDP_V4: &[&Layout] = &[&UDP_V0, &UDP_V1, &UDP_TG1];

/// `UdpIp` {bf3a50c5-a9c9-4988-a005-2df0b7c80f80}, group 0x08 (KRN-09). Versions 0 and 1
/// call 10 and 11 Send and Recv.
pub static UDP_IP: MofClass = class(
    "UdpIp",
    0x08,
    &[
        ev(10, "SendIPV4", UDP_V4),
        ev(11, "RecvIPV4", UDP_V4),
        ev(17, "Fail", &[&UDP_FAIL]),
        ev(26, "SendIPV6", &[&UDP_TG2]),
        ev(27, "RecvIPV6", &[&UDP_TG2]),
    ],
);
