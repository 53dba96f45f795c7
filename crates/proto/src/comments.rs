//! Leading comments of messages, fields and enums: their description text and their marker lines.
//!
//! protox records, for each element, the comment block directly above it (`leading_comments`); a
//! block separated from the element by a blank line is "detached" and is never used here. Within the
//! leading block, marker lines (see [`crate::markers::is_marker_line`]) are taken out; the rest, with
//! one leading space trimmed per line, becomes the description. Blank lines left where markers were
//! removed (the `//` line that separates markers from text) do not reach the description.

use std::collections::HashMap;

use prost_types::FileDescriptorProto;

use crate::markers::is_marker_line;

/// The leading comment of one element, split into description and markers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comment {
    /// The description text, if any remains.
    pub description: Option<String>,
    /// Marker lines, trimmed, with their 1-based line numbers.
    pub markers: Vec<(String, u32)>,
}

/// How descriptions are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescriptionMode {
    /// Every paragraph, line breaks kept (skv2's `multiline_description=true`).
    Multiline,
    /// The first paragraph, whitespace collapsed to single spaces.
    SingleLine,
    /// No descriptions.
    None,
}

/// The source locations of one file: for each descriptor path, the 0-based line the element starts
/// on and its leading comment.
#[derive(Default)]
pub struct FileComments {
    by_path: HashMap<Vec<i32>, (u32, Option<String>)>,
}

impl FileComments {
    /// Indexes the source info of `file` (empty if it has none).
    pub fn new(file: &FileDescriptorProto) -> Self {
        let mut by_path = HashMap::new();
        if let Some(info) = &file.source_code_info {
            for loc in &info.location {
                let line = loc.span.first().copied().unwrap_or(0);
                let line = u32::try_from(line).unwrap_or(0);
                by_path.insert(loc.path.clone(), (line, loc.leading_comments.clone()));
            }
        }
        FileComments { by_path }
    }

    /// The 1-based line the element at `path` starts on, if known.
    pub fn line(&self, path: &[i32]) -> Option<u32> {
        self.by_path
            .get(path)
            .map(|(line, _)| line.saturating_add(1))
    }

    /// The comment of the element at `path`.
    pub fn comment(&self, path: &[i32], mode: DescriptionMode) -> Comment {
        match self.by_path.get(path) {
            Some((line, Some(text))) => split_comment(text, *line, mode),
            _ => Comment::default(),
        }
    }
}

/// Splits a leading comment whose element starts on 0-based line `element_line`.
fn split_comment(text: &str, element_line: u32, mode: DescriptionMode) -> Comment {
    let lines: Vec<&str> = text
        .strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .collect();
    // Line comments sit on the lines directly above the element.
    let count = u32::try_from(lines.len()).unwrap_or(u32::MAX);
    let first_line = element_line.saturating_sub(count) + 1;
    let mut markers = Vec::new();
    let mut kept: Vec<&str> = Vec::new();
    let mut removed_before = false;
    for (i, raw) in lines.iter().enumerate() {
        let line = raw.strip_prefix(' ').unwrap_or(raw);
        let trimmed = line.trim();
        if is_marker_line(trimmed) {
            let n = first_line.saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
            markers.push((trimmed.to_owned(), n));
            // A blank separator line just before the markers goes with them.
            if kept.last().is_some_and(|l| l.trim().is_empty()) {
                kept.pop();
            }
            removed_before = true;
            continue;
        }
        if removed_before && trimmed.is_empty() {
            // ...and so does one just after them.
            removed_before = false;
            continue;
        }
        removed_before = false;
        kept.push(line);
    }
    let description = match mode {
        DescriptionMode::None => None,
        DescriptionMode::Multiline => multiline(&kept),
        DescriptionMode::SingleLine => single_line(&kept),
    };
    Comment {
        description,
        markers,
    }
}

/// Whether a paragraph is hidden from docs (`$hide_from_docs`, `$hide`, `@exclude`).
fn is_hidden(first_line: &str) -> bool {
    let t = first_line.trim_start();
    t.starts_with("$hide_from_docs") || t.starts_with("$hide") || t.starts_with("@exclude")
}

/// Every visible paragraph, lines kept, surrounding blank lines trimmed.
fn multiline(lines: &[&str]) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    let mut hidden = false;
    let mut at_paragraph_start = true;
    for line in lines {
        if line.trim().is_empty() {
            hidden = false;
            at_paragraph_start = true;
            out.push("");
            continue;
        }
        if at_paragraph_start {
            hidden = is_hidden(line);
            at_paragraph_start = false;
        }
        if !hidden && !is_hidden(line) {
            out.push(line);
        }
    }
    // Collapse runs of blank lines left by hidden paragraphs, and trim like Go's TrimSpace.
    let mut text = String::new();
    let mut blank_run = false;
    for line in out {
        if line.trim().is_empty() {
            blank_run = true;
            continue;
        }
        if !text.is_empty() {
            text.push('\n');
            if blank_run {
                text.push('\n');
            }
        }
        blank_run = false;
        text.push_str(line);
    }
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// The first paragraph on one line.
fn single_line(lines: &[&str]) -> Option<String> {
    let words: Vec<&str> = lines
        .iter()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .flat_map(|l| l.split_whitespace())
        .collect();
    let text = words.join(" ");
    (!text.is_empty() && !text.starts_with('$')).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Comment {
        split_comment(text, 10, DescriptionMode::Multiline)
    }

    #[test]
    fn markers_and_their_separator_leave_the_description() {
        let c = split(
            " This is a message\n that does foo.\n\n +kubebuilder:validation:MaxProperties=3\n",
        );
        assert_eq!(
            c.description.as_deref(),
            Some("This is a message\nthat does foo.")
        );
        assert_eq!(
            c.markers,
            vec![("+kubebuilder:validation:MaxProperties=3".into(), 10)]
        );
    }

    #[test]
    fn marker_lines_are_numbered_from_the_element() {
        let c = split(" a\n\n +kubebuilder:validation:Required\n +listType=set\n");
        assert_eq!(c.markers[0].1, 9);
        assert_eq!(c.markers[1].1, 10);
    }

    #[test]
    fn paragraphs_stay_and_hidden_ones_go() {
        let c = split(" First.\n\n $hide_from_docs\n secret\n\n Second.\n");
        assert_eq!(c.description.as_deref(), Some("First.\n\nSecond."));
    }

    #[test]
    fn only_markers_give_no_description() {
        let c = split(" +kubebuilder:validation:Required\n");
        assert_eq!(c.description, None);
        assert_eq!(c.markers.len(), 1);
    }

    #[test]
    fn single_line_mode_takes_the_first_paragraph() {
        let c = split_comment(" a  b\n c\n\n d\n", 3, DescriptionMode::SingleLine);
        assert_eq!(c.description.as_deref(), Some("a b c"));
    }
}
