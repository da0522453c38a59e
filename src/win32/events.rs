//! `EventWrite`, `EventWriteTransfer`, `EventWriteEx`, `EventWriteString` and
//! `EventActivityIdControl` (EVT-01…EVT-17).

use super::{ERROR_SUCCESS, Win32};
use etwsim_kernel::{ActivityControl, WriteOptions};
use etwsim_types::{EventDescriptor, Guid, Keyword, Level, Win32Error};

/// `EVENT_DATA_DESCRIPTOR`: one block of an event's payload (EVT-11). `ptr` is what `Ptr`
/// points at (`None` is NULL); `size` is `Size`; `reserved` must be 0 (EVT-11, EVT-12: the
/// type byte is honoured only for providers that opted in, which etwsim does not model).
#[doc(alias = "EVENT_DATA_DESCRIPTOR")]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EventDataDescriptor<'a> {
    /// What `Ptr` points at.
    pub ptr: Option<&'a [u8]>,
    /// `Size`.
    pub size: u32,
    /// `Reserved`.
    pub reserved: u32,
}

impl<'a> EventDataDescriptor<'a> {
    /// `EventDataDescCreate(&d, ptr, size)`.
    pub fn new(data: &'a [u8]) -> EventDataDescriptor<'a> {
        EventDataDescriptor {
            ptr: Some(data),
            size: data.len() as u32,
            reserved: 0,
        }
    }
}

/// The 128 blocks EventWrite may take, as slices, or the Win32 code that rejects them.
fn blocks<'a>(
    count: u32,
    data: Option<&'a [EventDataDescriptor<'a>]>,
) -> Result<Vec<&'a [u8]>, Win32Error> {
    let invalid = Win32Error::ERROR_INVALID_PARAMETER;
    if count == 0 {
        return Ok(Vec::new()); // UserData may be NULL when the count is 0 (EVT-11)
    }
    let descs = data.ok_or(invalid)?.get(..count as usize).ok_or(invalid)?;
    descs
        .iter()
        .map(|d| {
            if d.reserved != 0 {
                return Err(invalid);
            }
            match d.ptr {
                None if d.size == 0 => Ok(&[][..]),
                None => Err(Win32Error::ERROR_NOACCESS),
                Some(p) => p.get(..d.size as usize).ok_or(Win32Error::ERROR_NOACCESS),
            }
        })
        .collect()
}

impl Win32 {
    /// The enabled check every EventWrite* starts with (EVT-02, PRV-31): a bad handle or
    /// descriptor, or no session that wants the event, is decided here without building
    /// anything; `Some(provider)` means the write must go on.
    #[inline]
    fn write_check<'d>(
        &self,
        reg_handle: u64,
        event_descriptor: Option<&'d EventDescriptor>,
    ) -> Result<Option<(&etwsim_kernel::Provider, &'d EventDescriptor)>, u32> {
        let Some(p) = self.providers.get(reg_handle) else {
            return Err(Win32Error::ERROR_INVALID_HANDLE.code()); // PRV-03
        };
        let Some(desc) = event_descriptor else {
            return Err(Win32Error::ERROR_INVALID_PARAMETER.code());
        };
        Ok(p.is_enabled_for(desc.level, desc.keyword)
            .then_some((p, desc)))
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
    #[inline]
    pub fn event_write(
        &self,
        reg_handle: u64,
        event_descriptor: Option<&EventDescriptor>,
        user_data_count: u32,
        user_data: Option<&[EventDataDescriptor<'_>]>,
    ) -> u32 {
        self.write_common(
            reg_handle,
            event_descriptor,
            &WriteOptions::default(),
            user_data_count,
            user_data,
        )
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
    let data = match blocks(user_data_count, user_data) {
        Ok(d) => d,
        Err(e) => return e.code(),
    };
    match p.write_with_options(desc, options, &data) {
        Ok(()) => ERROR_SUCCESS,
        Err(e) => e.win32_code().code(),
    }
}
