//! `EventAccessControl`, `EventAccessQuery`, `EventAccessRemove` (evntcons.h, SEC-07).

use etwsim_kernel::EventSecurityOperation;
use etwsim_registry::{AccessMask, Sid};
use etwsim_types::{Guid, Win32Error};

use super::{ERROR_SUCCESS, Win32};

fn code(r: etwsim_kernel::Result<()>) -> u32 {
    match r {
        Ok(()) => ERROR_SUCCESS,
        Err(e) => e.win32_code().code(),
    }
}

impl Win32 {
    /// `EventAccessControl(Guid, Operation, Sid, Rights, AllowOrDeny)`: `Sid` is a binary SID.
    /// A NULL GUID or SID, a SID that does not parse, or an Operation outside 0–3 is
    /// `ERROR_INVALID_PARAMETER`; otherwise [`Kernel::event_access_control`]'s code.
    ///
    /// [`Kernel::event_access_control`]: etwsim_kernel::Kernel::event_access_control
    pub fn event_access_control(
        &self,
        guid: Option<&Guid>,
        operation: u32,
        sid: Option<&[u8]>,
        rights: u32,
        allow_or_deny: bool,
    ) -> u32 {
        let (Some(guid), Some(sid)) = (guid, sid) else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        let Some(op) = EventSecurityOperation::from_raw(operation) else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        let Ok((sid, _)) = Sid::read(sid) else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        code(self.process().kernel().event_access_control(
            self.process(),
            *guid,
            op,
            &sid,
            AccessMask::from_bits_retain(rights),
            allow_or_deny,
        ))
    }

    /// `EventAccessQuery(Guid, Buffer, BufferSize)`: the self-relative descriptor of `guid`
    /// (the defaults when it has none). `*buffer_size` is the buffer's size on input and the
    /// descriptor's on output; a short buffer (or size 0) gives `ERROR_MORE_DATA` with the size
    /// needed. A NULL GUID or size is `ERROR_INVALID_PARAMETER`.
    pub fn event_access_query(
        &self,
        guid: Option<&Guid>,
        buffer: Option<&mut [u8]>,
        buffer_size: Option<&mut u32>,
    ) -> u32 {
        let (Some(guid), Some(size)) = (guid, buffer_size) else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        let Ok(bytes) = self.process().kernel().event_access_query(*guid).to_bytes() else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        let room = (*size as usize).min(buffer.as_ref().map_or(0, |b| b.len()));
        *size = bytes.len() as u32;
        match buffer {
            Some(out) if room >= bytes.len() => {
                out[..bytes.len()].copy_from_slice(&bytes);
                ERROR_SUCCESS
            }
            _ => Win32Error::ERROR_MORE_DATA.code(),
        }
    }

    /// `EventAccessRemove(Guid)`: the stored descriptor is deleted, defaults apply again.
    pub fn event_access_remove(&self, guid: Option<&Guid>) -> u32 {
        let Some(guid) = guid else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        code(
            self.process()
                .kernel()
                .event_access_remove(self.process(), *guid),
        )
    }
}
