//! Source text, code-point offsets and line/column locations.

use std::borrow::Cow;
use std::sync::OnceLock;

/// The text of an expression together with the index needed to turn code-point
/// offsets into lines and columns.
#[derive(Clone, Debug)]
pub struct Source {
    /// The text.
    text: Text,
    /// Description shown in error messages (`<input>` for expressions given as text).
    description: Cow<'static, str>,
    /// Code-point offset of the first character of each line after the first
    /// (built on first use: only error reports need it).
    line_offsets: OnceLock<Vec<usize>>,
    /// The text as code points, for snippets and column arithmetic (built on
    /// first use: only error reports need it).
    chars: OnceLock<Vec<char>>,
}

/// A source's text: inline up to 24 bytes (a short expression's source
/// allocates nothing but its `Arc`), else one allocation of its bytes
/// (cheaper to build and free than `CompactString`'s heap form).
#[derive(Clone, Debug)]
enum Text {
    Short(compact_str::CompactString),
    Long(Box<str>),
}

impl Text {
    /// Whether `text` is held inline.
    fn is_short(text: &str) -> bool {
        text.len() <= std::mem::size_of::<compact_str::CompactString>()
    }

    fn of(text: &str) -> Self {
        if Self::is_short(text) {
            Text::Short(text.into())
        } else {
            Text::Long(text.into())
        }
    }

    fn owned(text: String) -> Self {
        if Self::is_short(&text) {
            Text::Short(text.as_str().into())
        } else {
            Text::Long(text.into_boxed_str())
        }
    }

    fn as_str(&self) -> &str {
        match self {
            Text::Short(s) => s,
            Text::Long(s) => s,
        }
    }
}

impl PartialEq for Source {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text() && self.description == other.description
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
        Self::described(Text::owned(text.into()), Cow::Borrowed("<input>"))
    }

    /// [`Source::new`] of borrowed text (copied inline when short).
    pub(crate) fn of(text: &str) -> Self {
        Self::described(Text::of(text), Cow::Borrowed("<input>"))
    }

    /// The source `text`, named `description` in messages (instead of `<input>`).
    pub fn with_description(text: impl Into<String>, description: impl Into<String>) -> Self {
        Self::described(Text::owned(text.into()), Cow::Owned(description.into()))
    }

    fn described(text: Text, description: Cow<'static, str>) -> Self {
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
            let text = self.text();
            if !text.contains('\n') {
                return Vec::new();
            }
            text.chars()
                .enumerate()
                .filter(|(_, c)| *c == '\n')
                .map(|(i, _)| i + 1)
                .collect()
        })
    }

    /// The text.
    pub fn text(&self) -> &str {
        self.text.as_str()
    }

    /// The name messages give the source (`<input>` by default).
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The text as code points.
    pub fn chars(&self) -> &[char] {
        self.chars.get_or_init(|| self.text().chars().collect())
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
