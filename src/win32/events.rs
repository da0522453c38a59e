//! `EventWrite`, `EventWriteTransfer`, `EventWriteEx`, `EventWriteString` and
//! `EventActivityIdControl` (EVT-01…EVT-17).

use super::{ERROR_SUCCESS, Win32};
use etwsim_decode::tracelogging::EventSchema;
use etwsim_kernel::{ActivityControl, WriteOptions};
use etwsim_types::{EventDescriptor, Guid, Keyword, Level, Win32Error};

/// `EVENT_DATA_DESCRIPTOR`: one block of an event's data (EVT-11, EVT-12). `ptr` is what
/// `Ptr` points at (`None` is NULL); `size` is `Size`; `reserved` is the `Reserved` union:
/// its low byte is the `Type` ([`EVENT_DATA_DESCRIPTOR_TYPE_NONE`] and the others), which ETW
/// honours only for a provider that opted in with EventSetInformation (EventProviderSetTraits
/// or EventProviderUseDescriptorType) and ignores otherwise; the upper 24 bits
/// (`Reserved1`, `Reserved2`) must be 0.
#[doc(alias = "EVENT_DATA_DESCRIPTOR")]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EventDataDescriptor<'a> {
    /// What `Ptr` points at.
    pub ptr: Option<&'a [u8]>,
    /// `Size`.
    pub size: u32,
    /// `Reserved`: `Type` in the low byte.
    pub reserved: u32,
}

// The `Type` values (EVT-12); PROVIDER_METADATA is ignored when traits were set with
// EventSetInformation.
pub use etwsim_types::win32_consts::{
    EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA, EVENT_DATA_DESCRIPTOR_TYPE_NONE,
    EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA, EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE,
};

impl<'a> EventDataDescriptor<'a> {
    /// `EventDataDescCreate(&d, ptr, size)`.
    pub fn new(data: &'a [u8]) -> EventDataDescriptor<'a> {
        EventDataDescriptor {
            ptr: Some(data),
            size: data.len() as u32,
            reserved: 0,
        }
    }

    /// A block of the given `Type` (EVT-12): what TraceLoggingDynamic or the TraceLogging
    /// macros pass for metadata and timestamp overrides.
    pub fn typed(data: &'a [u8], ty: u8) -> EventDataDescriptor<'a> {
        EventDataDescriptor {
            reserved: u32::from(ty),
            ..EventDataDescriptor::new(data)
        }
    }
}

/// An event's data blocks, sorted by `Type` (EVT-11, EVT-12).
#[derive(Default)]
struct Blocks<'a> {
    payload: Vec<&'a [u8]>,
    event_metadata: Option<&'a [u8]>,
    provider_metadata: Option<&'a [u8]>,
    timestamp: Option<i64>,
}

/// The 128 blocks EventWrite may take, sorted by `Type` when `typed` (the provider opted in,
/// EVT-12) and all payload otherwise, or the Win32 code that rejects them.
///
/// With `typed`, a second block of the same non-payload type, a timestamp block that is not
/// 8 bytes, and a type above 3 are `ERROR_INVALID_PARAMETER` (the project's choice: ETW
/// documents the four types and nothing about others or repeats).
fn blocks<'a>(
    count: u32,
    data: Option<&'a [EventDataDescriptor<'a>]>,
    typed: bool,
) -> Result<Blocks<'a>, Win32Error> {
    let invalid = Win32Error::ERROR_INVALID_PARAMETER;
    let mut out = Blocks::default();
    if count == 0 {
        return Ok(out); // UserData may be NULL when the count is 0 (EVT-11)
    }
    let descs = data.ok_or(invalid)?.get(..count as usize).ok_or(invalid)?;
    out.payload.reserve(descs.len());
    for d in descs {
        if d.reserved >> 8 != 0 {
            return Err(invalid); // Reserved1 / Reserved2 must be 0 (EVT-11)
        }
        let bytes = match d.ptr {
            None if d.size == 0 => &[][..],
            None => return Err(Win32Error::ERROR_NOACCESS),
            Some(p) => p.get(..d.size as usize).ok_or(Win32Error::ERROR_NOACCESS)?,
        };
        let ty = if typed {
            d.reserved as u8
        } else {
            EVENT_DATA_DESCRIPTOR_TYPE_NONE // the Type byte is ignored (EVT-12)
        };
        let once = |slot: &mut Option<&'a [u8]>| match slot.replace(bytes) {
            None => Ok(()),
            Some(_) => Err(invalid),
        };
        match ty {
            EVENT_DATA_DESCRIPTOR_TYPE_NONE => out.payload.push(bytes),
            EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA => once(&mut out.event_metadata)?,
            EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA => once(&mut out.provider_metadata)?,
            EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE => {
                let raw: [u8; 8] = bytes.try_into().map_err(|_| invalid)?;
                if out.timestamp.replace(i64::from_le_bytes(raw)).is_some() {
                    return Err(invalid);
                }
            }
            _ => return Err(invalid),
        }
    }
    Ok(out)
}

impl Win32 {
    /// The enabled check every EventWrite* starts with (EVT-02, PRV-31): a bad handle or
    /// descriptor, or no session that wants the event, is decided here without building
    /// anything; `Some(provider)` means the write must go on.
    ///
    /// The codes keep their precedence (an unknown or unregistered handle is
    /// `ERROR_INVALID_HANDLE` whatever the descriptor, PRV-03; then a NULL descriptor is
    /// `ERROR_INVALID_PARAMETER`), but the loads come in the order the disabled path wants:
    /// the slot, the enable word, and the registration flag last, once on every path (it is
    /// an `Acquire` load: what is read before it need not be read again after it).
    #[inline]
    fn write_check<'d>(
        &self,
        reg_handle: u64,
        event_descriptor: Option<&'d EventDescriptor>,
    ) -> Result<Option<(&etwsim_kernel::Provider, &'d EventDescriptor)>, u32> {
        let invalid_handle = Win32Error::ERROR_INVALID_HANDLE.code(); // PRV-03
        let Some(p) = self.providers.slot(reg_handle) else {
            return Err(invalid_handle);
        };
        if let Some(desc) = event_descriptor {
            if !p.is_enabled_for(desc.level, desc.keyword) {
                // The disabled path: still refuse a handle unregistered since (PRV-03).
                return if p.is_registered() {
                    Ok(None)
                } else {
                    Err(invalid_handle)
                };
            }
        }
        if !p.is_registered() {
            return Err(invalid_handle);
        }
        match event_descriptor {
            Some(desc) => Ok(Some((p, desc))),
            None => Err(Win32Error::ERROR_INVALID_PARAMETER.code()),
        }
    }

    #[inline]
    fn write_common(
        &self,
        reg_handle: u64,
        event_descriptor: Option<&EventDescriptor>,
        options: &WriteOptions<'_>,
        user_data_count: u32,
        user_data: Option<&[EventDataDescriptor<'_>]>,
    ) -> u32 {
        match self.write_check(reg_handle, event_descriptor) {
            Err(code) => code,
            Ok(None) => ERROR_SUCCESS,
            Ok(Some((p, desc))) => write_enabled(p, desc, options, user_data_count, user_data),
        }
    }

    /// `EventWrite(RegHandle, EventDescriptor, UserDataCount, UserData)` (EVT-01).
    ///
    /// Inline down to the enabled check (P3): the default [`WriteOptions`] are built only
    /// once some session may want the event, off the disabled path.
    #[inline]
    pub fn event_write(
        &self,
        reg_handle: u64,
        event_descriptor: Option<&EventDescriptor>,
        user_data_count: u32,
        user_data: Option<&[EventDataDescriptor<'_>]>,
    ) -> u32 {
        match self.write_check(reg_handle, event_descriptor) {
            Err(code) => code,
            Ok(None) => ERROR_SUCCESS,
            Ok(Some((p, desc))) => write_default(p, desc, user_data_count, user_data),
        }
    }

    /// `EventWriteTransfer(RegHandle, EventDescriptor, ActivityId, RelatedActivityId,
    /// UserDataCount, UserData)` (EVT-14, EVT-17).
    pub fn event_write_transfer(
        &self,
        reg_handle: u64,
        event_descriptor: Option<&EventDescriptor>,
        activity_id: Option<&Guid>,
        related_activity_id: Option<&Guid>,
        user_data_count: u32,
        user_data: Option<&[EventDataDescriptor<'_>]>,
    ) -> u32 {
        let options = WriteOptions {
            activity_id,
            related_activity_id,
            ..WriteOptions::default()
        };
        self.write_common(
            reg_handle,
            event_descriptor,
            &options,
            user_data_count,
            user_data,
        )
    }

    /// `EventWriteEx(RegHandle, EventDescriptor, Filter, Flags, ActivityId,
    /// RelatedActivityId, UserDataCount, UserData)` (EVT-04).
    #[allow(clippy::too_many_arguments)]
    pub fn event_write_ex(
        &self,
        reg_handle: u64,
        event_descriptor: Option<&EventDescriptor>,
        filter: u64,
        flags: u32,
        activity_id: Option<&Guid>,
        related_activity_id: Option<&Guid>,
        user_data_count: u32,
        user_data: Option<&[EventDataDescriptor<'_>]>,
    ) -> u32 {
        let options = WriteOptions {
            activity_id,
            related_activity_id,
            filter,
            flags,
            ..WriteOptions::default()
        };
        self.write_common(
            reg_handle,
            event_descriptor,
            &options,
            user_data_count,
            user_data,
        )
    }

    /// `EventWriteString(RegHandle, Level, Keyword, String)`: a NULL string is
    /// `ERROR_INVALID_PARAMETER` (EVT-13), handle 0 `ERROR_INVALID_HANDLE` (PRV-03).
    pub fn event_write_string(
        &self,
        reg_handle: u64,
        level: u8,
        keyword: u64,
        string: Option<&str>,
    ) -> u32 {
        let Some(p) = self.providers.get(reg_handle) else {
            return Win32Error::ERROR_INVALID_HANDLE.code();
        };
        let Some(text) = string else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        match p.write_string(Level(level), Keyword(keyword), text) {
            Ok(()) => ERROR_SUCCESS,
            Err(e) => e.win32_code().code(),
        }
    }

    /// `EventActivityIdControl(ControlCode, ActivityId)` on the calling thread — the simulated
    /// thread entered on this OS thread for this process, or its implicit one (EVT-15).
    /// Unknown codes and a NULL ActivityId are `ERROR_INVALID_PARAMETER` (the project's
    /// choice; the documentation names no code).
    pub fn event_activity_id_control(
        &self,
        control_code: u32,
        activity_id: Option<&mut Guid>,
    ) -> u32 {
        let (Some(code), Some(id)) = (ActivityControl::from_raw(control_code), activity_id) else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        self.process.activity_id_control(code, id);
        ERROR_SUCCESS
    }
}

/// The rest of an EventWrite once some session may want the event: [`write_enabled`] with the
/// default options.
#[cold]
#[inline(never)]
fn write_default(
    p: &etwsim_kernel::Provider,
    desc: &EventDescriptor,
    user_data_count: u32,
    user_data: Option<&[EventDataDescriptor<'_>]>,
) -> u32 {
    write_enabled(
        p,
        desc,
        &WriteOptions::default(),
        user_data_count,
        user_data,
    )
}

/// The rest of an EventWrite* once some session may want the event.
#[cold]
#[inline(never)]
fn write_enabled(
    p: &etwsim_kernel::Provider,
    desc: &EventDescriptor,
    options: &WriteOptions<'_>,
    user_data_count: u32,
    user_data: Option<&[EventDataDescriptor<'_>]>,
) -> u32 {
    // EVT-12: the Type byte counts only for a provider that opted in, and is looked at only
    // when some block has one.
    let typed = user_data
        .unwrap_or_default()
        .iter()
        .take(user_data_count as usize)
        .any(|d| d.reserved as u8 != 0)
        && p.uses_descriptor_type();
    let blocks = match blocks(user_data_count, user_data, typed) {
        Ok(b) => b,
        Err(e) => return e.code(),
    };
    let typed_options;
    let options = if typed {
        typed_options = WriteOptions {
            tracelogging_metadata: blocks.event_metadata.or(options.tracelogging_metadata),
            event_name: blocks
                .event_metadata
                .and_then(EventSchema::name_of)
                .or(options.event_name),
            provider_traits: blocks.provider_metadata.or(options.provider_traits),
            timestamp: blocks.timestamp.or(options.timestamp),
            ..*options
        };
        &typed_options
    } else {
        options
    };
    match p.write_with_options(desc, options, &blocks.payload) {
        Ok(()) => ERROR_SUCCESS,
        Err(e) => e.win32_code().code(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use etwsim_kernel::{EnableParams, Kernel, Token};

    const OK: u32 = ERROR_SUCCESS;
    const HANDLE: u32 = Win32Error::ERROR_INVALID_HANDLE.code();
    const PARAM: u32 = Win32Error::ERROR_INVALID_PARAMETER.code();

    fn guid(n: u128) -> Guid {
        Guid::from_u128(0x7e57_0000_0000_4000_8000_0000_0001_0000 | n)
    }

    /// The three EventWrite forms, the same call (EVT-01).
    fn each_form(
        w: &Win32,
        h: u64,
        d: Option<&EventDescriptor>,
        count: u32,
        data: Option<&[EventDataDescriptor<'_>]>,
    ) -> [u32; 3] {
        [
            w.event_write(h, d, count, data),
            w.event_write_transfer(h, d, None, None, count, data),
            w.event_write_ex(h, d, 0, 0, None, None, count, data),
        ]
    }

    #[test]
    fn the_enabled_check_keeps_the_codes_and_their_precedence() {
        // rule: EVT-01
        // rule: EVT-02
        // rule: EVT-03
        // rule: PRV-03
        let k = Kernel::builder()
            .deterministic(1)
            .build()
            .expect("a kernel");
        let app = k.spawn("app.exe", Token::user("u")).expect("a process");
        let w = Win32::new(&app);
        let register = |n: u128| {
            let mut h = 0;
            assert_eq!(w.event_register(Some(&guid(n)), None, 0, Some(&mut h)), OK);
            h
        };
        let (off, on, gone_off, gone_on) = (register(1), register(2), register(3), register(4));
        let s = k.session("p3").start().expect("a session");
        let info = EnableParams::new().level(Level::INFORMATION);
        s.enable(guid(2), &info).expect("enable");
        s.enable(guid(4), &info).expect("enable");
        assert_eq!(w.event_unregister(gone_off), OK);
        assert_eq!(w.event_unregister(gone_on), OK);

        let d = EventDescriptor::new(1, Level::INFORMATION, Keyword(1));
        let verbose = EventDescriptor::new(1, Level::VERBOSE, Keyword(1));
        let payload = [1u8; 16];
        let one = [EventDataDescriptor::new(&payload)];
        let cases: [(u64, Option<&EventDescriptor>, [u32; 3]); 12] = [
            (off, Some(&d), [OK; 3]),
            (off, None, [PARAM; 3]),
            (on, Some(&d), [OK; 3]),
            (on, Some(&verbose), [OK; 3]),
            (on, None, [PARAM; 3]),
            // An unregistered handle is a bad handle whatever the descriptor.
            (gone_off, Some(&d), [HANDLE; 3]),
            (gone_off, None, [HANDLE; 3]),
            (gone_on, Some(&d), [HANDLE; 3]),
            (gone_on, None, [HANDLE; 3]),
            (0, Some(&d), [HANDLE; 3]),
            (0, None, [HANDLE; 3]),
            (on + 100, Some(&d), [HANDLE; 3]),
        ];
        for (h, desc, want) in cases {
            assert_eq!(
                each_form(&w, h, desc, 1, Some(&one)),
                want,
                "{h:#x} {desc:?}"
            );
        }
        // The payload is looked at only once some session may want the event: a count with
        // NULL UserData is decided by the enabled check first (EVT-02), then rejected.
        assert_eq!(each_form(&w, off, Some(&d), 1, None), [OK; 3]);
        assert_eq!(each_form(&w, on, Some(&verbose), 1, None), [OK; 3]);
        assert_eq!(each_form(&w, on, Some(&d), 1, None), [PARAM; 3]);
        assert_eq!(each_form(&w, gone_on, Some(&d), 1, None), [HANDLE; 3]);
    }
}
