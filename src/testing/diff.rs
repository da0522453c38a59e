//! The first difference between two `.etl` files: for "the file is byte-identical across two
//! runs" tests, an answer that says where (buffer, record, field), not just `false`.

use crate::etl::LogFile;
use std::fmt;

/// Where two `.etl` files first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The first byte offset that differs (the shorter file's length if one is a prefix of
    /// the other).
    pub offset: usize,
    /// The buffer holding that byte: 0 is the logfile-header buffer.
    pub buffer: usize,
    /// The first record (in file order, counting from 0) that differs, if the records differ
    /// at all (they may not: a buffer header, the logfile header or padding may be what
    /// differs).
    pub record: Option<usize>,
    /// The first differing field, as `name: a` ≠ `name: b` from the records' (or the logfile
    /// headers') `Debug` form; empty when neither differs.
    pub field: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {:#x} (buffer {})", self.offset, self.buffer)?;
        if let Some(r) = self.record {
            write!(f, ", record {r}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        Ok(())
    }
}

/// The first difference between the `.etl` files `a` and `b` (their bytes), or `None` when
/// they are identical.
///
/// ```
/// use etwsim::testing::first_difference;
/// use etwsim::{EnableParams, EventDescriptor, Kernel, Keyword, Level, Token};
///
/// let run = |payload: &[u8]| -> Result<Vec<u8>, etwsim::Error> {
///     let k = Kernel::builder().deterministic(3).build()?;
///     let guid = "{5eed0207-2026-4e75-8000-636170747572}".parse().unwrap();
///     let s = k.session("S").log_file("s.etl").start()?;
///     s.enable(guid, &EnableParams::new())?;
///     let p = k.spawn("app.exe", Token::user("u"))?.register_provider(guid)?;
///     p.write(&EventDescriptor::new(1, Level::ERROR, Keyword(0)), &[payload])?;
///     s.stop()?;
///     Ok(k.disk().read("s.etl").unwrap())
/// };
/// assert_eq!(first_difference(&run(b"same")?, &run(b"same")?), None);
/// let d = first_difference(&run(b"abcd")?, &run(b"abXd")?).unwrap();
/// assert_eq!(d.record, Some(0));
/// assert!(d.field.contains("user_data"), "{d}");
/// # Ok::<(), etwsim::Error>(())
/// ```
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<Difference> {
    let offset = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or_else(|| (a.len() != b.len()).then(|| a.len().min(b.len())))?;
    let fa = LogFile::from_bytes("a.etl", a.to_vec());
    let fb = LogFile::from_bytes("b.etl", b.to_vec());
    let (mut fa, mut fb) = match (fa, fb) {
        (Ok(fa), Ok(fb)) => (fa, fb),
        (ra, rb) => {
            return Some(Difference {
                offset,
                buffer: 0,
                record: None,
                field: format!(
                    "not both readable: {:?} / {:?}",
                    ra.err().map(|e| e.to_string()),
                    rb.err().map(|e| e.to_string())
                ),
            });
        }
    };
    let size = (fa.header().buffer_size as usize).max(1);
    let buffer = offset / size;
    let ra: Vec<String> = fa
        .records()
        .map(|r| format!("{:#?}", r.map_err(|e| e.to_string())))
        .collect();
    let rb: Vec<String> = fb
        .records()
        .map(|r| format!("{:#?}", r.map_err(|e| e.to_string())))
        .collect();
    let record = (0..ra.len().max(rb.len())).find(|&i| ra.get(i) != rb.get(i));
    let field = match record {
        Some(i) => first_line_diff(
            ra.get(i).map_or("(no record)", String::as_str),
            rb.get(i).map_or("(no record)", String::as_str),
        ),
        None => first_line_diff(
            &format!("{:#?}", fa.header()),
            &format!("{:#?}", fb.header()),
        ),
    };
    Some(Difference {
        offset,
        buffer,
        record,
        field,
    })
}

fn first_line_diff(a: &str, b: &str) -> String {
    let (mut la, mut lb) = (a.lines(), b.lines());
    let t = |l: Option<&str>| {
        l.unwrap_or("(end)")
            .trim()
            .trim_end_matches(',')
            .to_string()
    };
    // The innermost field line above the difference: `user_data: [` for a payload byte.
    let mut context = String::new();
    loop {
        match (la.next(), lb.next()) {
            (None, None) => return String::new(),
            (x, y) if x == y => {
                let line = t(x);
                if line.contains(':') {
                    context = line.trim_end_matches(['[', '{', ' ', ':']).to_string();
                }
            }
            (x, y) => {
                let (x, y) = (t(x), t(y));
                return if x.contains(':') || context.is_empty() {
                    format!("{x} ≠ {y}")
                } else {
                    format!("{context} … {x} ≠ {y}")
                };
            }
        }
    }
}
