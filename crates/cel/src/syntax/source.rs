//! Source text, code-point offsets and line/column locations.

/// The text of an expression together with the index needed to turn code-point
/// offsets into lines and columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    text: String,
    /// Description shown in error messages (`<input>` for expressions given as text).
    description: String,
    /// Code-point offset of the first character of each line after the first.
    line_offsets: Vec<usize>,
    /// The text as code points, for snippets and column arithmetic.
    chars: Vec<char>,
}

/// A 1-based line and 0-based column, both in code points, as cel-go reports them
/// (messages print the column plus one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub line: usize,
    pub column: usize,
}

impl Source {
    /// A source named `<input>`, as cel-go names expressions given as text.
    pub fn new(text: impl Into<String>) -> Self {
        Self::with_description(text, "<input>")
    }

    pub fn with_description(text: impl Into<String>, description: impl Into<String>) -> Self {
        let text = text.into();
        let chars: Vec<char> = text.chars().collect();
        let line_offsets = chars
            .iter()
            .enumerate()
            .filter(|(_, c)| **c == '\n')
            .map(|(i, _)| i + 1)
            .collect();
        Source {
            text,
            description: description.into(),
            line_offsets,
            chars,
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn description(&self) -> &str {
        &self.description
    }

    /// The text as code points.
    pub fn chars(&self) -> &[char] {
        &self.chars
    }

    /// Line and column of a code-point offset.
    pub fn location(&self, offset: usize) -> Location {
        let line_index = self.line_offsets.partition_point(|&start| start <= offset);
        let line_start = if line_index == 0 {
            0
        } else {
            self.line_offsets[line_index - 1]
        };
        Location {
            line: line_index + 1,
            column: offset.saturating_sub(line_start),
        }
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: usize) -> Option<String> {
        if line == 0 || line > self.line_offsets.len() + 1 {
            return None;
        }
        let start = if line == 1 {
            0
        } else {
            self.line_offsets[line - 2]
        };
        let end = if line <= self.line_offsets.len() {
            self.line_offsets[line - 1] - 1
        } else {
            self.chars.len()
        };
        Some(self.chars[start..end].iter().collect())
    }
}
