//! What can go wrong loading a scenario or writing a report: each error says where.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;

/// A place in a scenario file, and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The scenario file, as it was named.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// The key, as a path (`session[2].buffer_size_kb`, `step[4].write`), when known.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file, self.line, self.column)?;
        if let Some(k) = &self.key {
            write!(f, "`{k}`: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Why a scenario could not be loaded, or a report not made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// What was being done ("cannot read").
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The scenario is wrong at a place: TOML syntax, an unknown or misspelt key, a value of
    /// the wrong type, a name that refers to nothing, a step the kernel cannot do.
    #[error("{0}")]
    Scenario(Box<Located>),
    /// A manifest given to the report is not one.
    #[error("cannot use manifest {}: {message}", path.display())]
    Manifest {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// An output path names one of the command's inputs (the same file, by path, link or
    /// inode): writing it would destroy the input ([`files::refuse_overwrite`]).
    ///
    /// [`files::refuse_overwrite`]: crate::files::refuse_overwrite
    #[error("refusing to write {}: it is the input {}, which writing would destroy", output.display(), input.display())]
    OutputIsInput {
        /// The output as given.
        output: PathBuf,
        /// The input it names, as given.
        input: PathBuf,
    },
    /// An `.etl` file given to the report could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Etl {
        /// The file.
        path: PathBuf,
        /// The reader's error.
        source: etwsim::etl::Error,
    },
}

impl Error {
    /// The place in the scenario, for [`Error::Scenario`].
    pub fn location(&self) -> Option<&Located> {
        match self {
            Error::Scenario(l) => Some(l),
            _ => None,
        }
    }
}

/// A scenario's text, for turning byte offsets into lines and columns: the start of every
/// line is found once, in one pass, and each offset's line by a binary search, so a file of
/// many steps costs the same per step wherever the step is.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    pub name: String,
    pub text: String,
    /// The byte offset where each line starts (the first is 0).
    line_starts: Vec<usize>,
}

impl Source {
    pub(crate) fn new(name: String, text: String) -> Source {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Source {
            name,
            text,
            line_starts,
        }
    }

    /// `at` clamped to the text and moved back to a character boundary.
    fn clamp(&self, at: usize) -> usize {
        let mut at = at.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// The 1-based line of byte offset `at`: the last line that starts at or before it.
    fn line_of(&self, at: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= at).max(1)
    }

    /// The 1-based line and column of byte offset `at` (clamped to the text).
    pub(crate) fn line_col(&self, at: usize) -> (usize, usize) {
        let at = self.clamp(at);
        let line = self.line_of(at);
        let column = self.text[self.line_starts[line - 1]..at].chars().count() + 1;
        (line, column)
    }

    /// The 1-based line of a span's start.
    pub(crate) fn line(&self, span: &Range<usize>) -> usize {
        self.line_of(self.clamp(span.start))
    }

    /// An error at `span`, naming `key` (none when it is empty).
    pub(crate) fn error(
        &self,
        span: &Range<usize>,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Error {
        let (line, column) = self.line_col(span.start);
        let key: String = key.into();
        Error::Scenario(Box::new(Located {
            file: self.name.clone(),
            line,
            column,
            key: (!key.is_empty()).then_some(key),
            message: message.into(),
        }))
    }

    /// A TOML error (syntax, unknown key, wrong type) at its place, with the key path toml
    /// keeps for it.
    pub(crate) fn toml_error(&self, e: &toml::de::Error) -> Error {
        let (line, column) = e.span().map_or((1, 1), |s| self.line_col(s.start));
        // toml keeps the key path private; its Display shows it as "in `a.b`" when it has no
        // input to quote, so a copy without the input tells it.
        let mut bare = e.clone();
        bare.set_input(None);
        let text = bare.to_string();
        let key = text
            .lines()
            .find_map(|l| l.strip_prefix("in `").and_then(|k| k.strip_suffix('`')))
            .map(str::to_string)
            .or_else(|| self.key_at(e.span()));
        let mut key = key.map(|k| self.index_arrays(&k, e.span().map_or(0, |s| s.start)));
        // An unknown key is reported on its table: name the key itself.
        if let Some(field) = e
            .message()
            .strip_prefix("unknown field `")
            .and_then(|r| r.split('`').next())
        {
            key = Some(match key {
                Some(k) if !k.ends_with(field) => format!("{k}.{field}"),
                Some(k) => k,
                None => field.to_string(),
            });
        }
        Error::Scenario(Box::new(Located {
            file: self.name.clone(),
            line,
            column,
            key,
            message: e.message().trim().to_string(),
        }))
    }

    /// Adds the 1-based index of arrays of tables to a toml key path (`session.mode` becomes
    /// `session[2].mode` when the error lies in the second `[[session]]`), by counting the
    /// `[[…]]` headers before byte offset `at`.
    fn index_arrays(&self, key: &str, at: usize) -> String {
        let parts: Vec<&str> = key.split('.').collect();
        let Some(before) = self.text.get(..at.min(self.text.len())) else {
            return key.to_string();
        };
        for n in (1..=parts.len()).rev() {
            let header = format!("[[{}]]", parts[..n].join("."));
            let count = before
                .lines()
                .filter(|l| l.trim_start().starts_with(&header))
                .count();
            if count > 0 {
                let mut out = format!("{}[{count}]", parts[..n].join("."));
                for p in &parts[n..] {
                    out.push('.');
                    out.push_str(p);
                }
                return out;
            }
        }
        key.to_string()
    }

    /// The key written at the start of the line of `span`, if that line is `key = value`.
    fn key_at(&self, span: Option<Range<usize>>) -> Option<String> {
        let (line, _) = self.line_col(span?.start);
        let text = self.text.lines().nth(line - 1)?;
        let (key, _) = text.split_once('=')?;
        let key = key.trim();
        if key.is_empty() || key.starts_with('#') || key.starts_with('[') {
            return None;
        }
        let key = key.trim_matches('"');
        // Inside a table: the key's path starts with the table's.
        let table = self
            .text
            .lines()
            .take(line - 1)
            .filter_map(|l| {
                let t = l.trim();
                t.strip_prefix("[[")
                    .and_then(|r| r.split("]]").next())
                    .or_else(|| t.strip_prefix('[').and_then(|r| r.split(']').next()))
            })
            .last();
        Some(match table {
            Some(t) => format!("{}.{key}", t.trim()),
            None => key.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Source;

    /// Lines and columns as counting from the start finds them.
    fn counted(text: &str, at: usize) -> (usize, usize) {
        let before = &text[..at];
        let line = before.matches('\n').count() + 1;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[start..].chars().count() + 1)
    }

    #[test]
    fn the_line_index_agrees_with_counting_newlines() {
        for text in ["", "a", "\n", "ab\ncd\n\nxé\r\nz", "\n\néé\n"] {
            let s = Source::new("t".into(), text.into());
            for at in 0..=text.len() + 2 {
                let mut b = at.min(text.len());
                while !text.is_char_boundary(b) {
                    b -= 1;
                }
                assert_eq!(s.line_col(at), counted(text, b), "{text:?} at {at}");
                assert_eq!(s.line(&(at..at)), counted(text, b).0, "{text:?} at {at}");
            }
        }
    }
}
