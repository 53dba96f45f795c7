//! Source text, code-point offsets and line/column locations.

use std::borrow::Cow;
use std::sync::OnceLock;

/// The text of an expression together with the index needed to turn code-point
/// offsets into lines and columns.
#[derive(Clone, Debug)]
pub struct Source {
    /// The text, inline up to 24 bytes (a short expression's source
    /// allocates nothing but its `Arc`).
    text: compact_str::CompactString,
    /// Description shown in error messages (`<input>` for expressions given as text).
    description: Cow<'static, str>,
    /// Code-point offset of the first character of each line after the first
    /// (built on first use: only error reports need it).
    line_offsets: OnceLock<Vec<usize>>,
    /// The text as code points, for snippets and column arithmetic (built on
    /// first use: only error reports need it).
    chars: OnceLock<Vec<char>>,
}

impl PartialEq for Source {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.description == other.description
    }
}

impl Eq for Source {}

/// A 1-based line and 0-based column, both in code points, as cel-go reports them
/// (messages print the column plus one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// 1-based line.
    pub line: usize,
    /// 0-based column, in code points.
    pub column: usize,
}

impl Source {
    /// A source named `<input>`, as cel-go names expressions given as text.
    pub fn new(text: impl Into<String>) -> Self {
        Self::described(text.into().into(), Cow::Borrowed("<input>"))
    }

    /// [`Source::new`] of borrowed text (copied inline when short).
    pub(crate) fn of(text: &str) -> Self {
        Self::described(text.into(), Cow::Borrowed("<input>"))
    }

    /// The source `text`, named `description` in messages (instead of `<input>`).
    pub fn with_description(text: impl Into<String>, description: impl Into<String>) -> Self {
        Self::described(text.into().into(), Cow::Owned(description.into()))
    }

    fn described(text: compact_str::CompactString, description: Cow<'static, str>) -> Self {
        Source {
            text,
            description,
            line_offsets: OnceLock::new(),
            chars: OnceLock::new(),
        }
    }

    /// Code-point offset of the first character of each line after the first.
    fn line_offsets(&self) -> &[usize] {
        self.line_offsets.get_or_init(|| {
            if !self.text.contains('\n') {
                return Vec::new();
            }
            self.text
                .chars()
                .enumerate()
                .filter(|(_, c)| *c == '\n')
                .map(|(i, _)| i + 1)
                .collect()
        })
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The name messages give the source (`<input>` by default).
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The text as code points.
    pub fn chars(&self) -> &[char] {
        self.chars.get_or_init(|| self.text.chars().collect())
    }

    /// Line and column of a code-point offset.
    pub fn location(&self, offset: usize) -> Location {
        let line_offsets = self.line_offsets();
        let line_index = line_offsets.partition_point(|&start| start <= offset);
        let line_start = if line_index == 0 {
            0
        } else {
            line_offsets[line_index - 1]
        };
        Location {
            line: line_index + 1,
            column: offset.saturating_sub(line_start),
        }
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: usize) -> Option<String> {
        let line_offsets = self.line_offsets();
        if line == 0 || line > line_offsets.len() + 1 {
            return None;
        }
        let start = if line == 1 { 0 } else { line_offsets[line - 2] };
        let end = if line <= line_offsets.len() {
            line_offsets[line - 1] - 1
        } else {
            self.chars().len()
        };
        Some(self.chars().get(start..end)?.iter().collect())
    }
}
