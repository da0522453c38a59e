//! The `.etl` file sink: a session's [`Sink`] over the `etwsim-etl` writer, in the session's
//! file mode (SES-31…SES-36, SES-44, SES-61, SES-62, SES-81, BUF-10, BUF-17).

use crate::data::context::Effective;
use crate::data::properties::SessionProperties;
use crate::data::sink::{BufferInfo, Sink};
use crate::machine::disk::Disk;
use crate::{Error, Result};
use etwsim_etl::{CloseStats, WriteOutcome, Writer, WriterOptions};
use std::io;

/// Writes a session's buffers to its log file(s).
pub(crate) struct EtlFileSink {
    writer: Writer,
}

/// Where and how a session's file starts: the header's anchors.
pub(crate) struct FileStart {
    pub(crate) path: String,
    pub(crate) logger_id: u16,
    pub(crate) logger_thread_id: u32,
    pub(crate) cpus: u16,
    pub(crate) start_raw: i64,
    pub(crate) start_filetime: i64,
    pub(crate) boot_filetime: i64,
}

impl EtlFileSink {
    /// Creates the first file (or opens it for APPEND) and writes its header buffer.
    pub(crate) fn create(eff: &Effective, start: &FileStart, disk: &Disk) -> Result<EtlFileSink> {
        let options = WriterOptions::new(&start.path)
            .mode(eff.mode)
            .maximum_file_size(eff.maximum_file_size)
            .buffer_size(eff.buffer_size_kb * 1024)
            .clock(eff.clock)
            .start(start.start_raw, start.start_filetime)
            .boot_time(start.boot_filetime)
            .processors(u32::from(start.cpus))
            .logger_name(eff.name.clone())
            .logger_id(start.logger_id)
            .writer_ids(4, start.logger_thread_id);
        let writer = Writer::create_with(options, disk.opener()).map_err(|e| Error::Other {
            code: e.win32_code(),
            context: format!("the log file {:?} could not be created: {e}", start.path),
        })?;
        Ok(EtlFileSink { writer })
    }
}

impl Sink for EtlFileSink {
    fn write_buffer(&mut self, buffer: &[u8], _info: &BufferInfo) -> io::Result<()> {
        match self.writer.write_buffer(buffer).map_err(io::Error::from)? {
            WriteOutcome::Full => Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "the log file reached its MaximumFileSize",
            )),
            _ => Ok(()),
        }
    }

    fn close(&mut self, stats: &SessionProperties) -> io::Result<()> {
        self.writer
            .close(&CloseStats {
                events_lost: stats.events_lost,
                buffers_lost: stats.log_buffers_lost,
                end_time: None,
            })
            .map(|_| ())
            .map_err(io::Error::from)
    }

    fn is_full(&self) -> bool {
        self.writer.is_full()
    }

    fn increment_file(&mut self) -> io::Result<u32> {
        self.writer.increment_file().map_err(io::Error::from)?;
        Ok(self.writer.file_counter())
    }

    fn file_counter(&self) -> Option<u32> {
        Some(self.writer.file_counter()).filter(|&n| n != 0)
    }
}
