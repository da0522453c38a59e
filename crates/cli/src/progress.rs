//! A progress bar for long reads, on stderr, counted in buffers.
//!
//! It is drawn only when a person can see it and nothing else is drawn there: stderr is a
//! terminal and the output does not go to the terminal too (it goes to a file or a pipe;
//! output scrolling on the terminal shows progress by itself), and the file has at least
//! [`MIN_BUFFERS`] buffers.
//! Otherwise it is hidden and costs one branch per buffer. It is cleared before the command
//! prints its last lines, so the error line (if any) stands alone.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Files smaller than this read in well under a second: no bar.
pub(crate) const MIN_BUFFERS: u64 = 256;

/// The bar, or nothing.
pub(crate) struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar of `total` buffers, if one should be drawn; `to_stdout`: the command's output
    /// goes to standard output.
    pub(crate) fn new(total: u64, to_stdout: bool) -> Progress {
        let visible =
            std::io::stderr().is_terminal() && !(to_stdout && std::io::stdout().is_terminal());
        if !visible || total < MIN_BUFFERS {
            return Progress(None);
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "etwsim: reading {wide_bar} {pos}/{len} buffers, about {eta} left",
        ) {
            bar.set_style(style);
        }
        bar.tick(); // drawn at once, not at the first buffer's end
        Progress(Some(bar))
    }

    /// One more buffer read.
    pub(crate) fn step(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }

    /// Removes the bar from the terminal.
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
