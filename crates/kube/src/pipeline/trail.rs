//! Field paths of the schema-directed walks (pruning, embedded resources, list types), built
//! only when a walk reports something.
//!
//! A walk descends with a [`Trail`] on its stack: each level borrows its parent and names one
//! step, so descending allocates nothing. A [`Path`] or the walk's text form is rendered from
//! it when an error or a pruned field is reported.

use crate::field::Path;

/// Where a walk is: the base it started at and the steps below it.
#[derive(Clone, Copy, Debug)]
pub enum Trail<'a> {
    /// Where the walk started.
    Base(&'a Path),
    /// `.name` below the parent (a declared property).
    Child(&'a Trail<'a>, &'a str),
    /// `[key]` below the parent (an `additionalProperties` member).
    Key(&'a Trail<'a>, &'a str),
    /// `[i]` below the parent.
    Index(&'a Trail<'a>, usize),
}

impl<'a> Trail<'a> {
    pub fn child(&'a self, name: &'a str) -> Trail<'a> {
        Trail::Child(self, name)
    }

    pub fn key(&'a self, key: &'a str) -> Trail<'a> {
        Trail::Key(self, key)
    }

    pub fn index(&'a self, i: usize) -> Trail<'a> {
        Trail::Index(self, i)
    }

    /// The field path (`spec.items[0][key]`).
    pub fn to_path(self) -> Path {
        match self {
            Trail::Base(p) => p.clone(),
            Trail::Child(parent, name) => parent.to_path().child(name),
            Trail::Key(parent, key) => parent.to_path().key(key),
            Trail::Index(parent, i) => parent.to_path().index(i),
        }
    }

    /// The text form pruning reports (`spec.items[0].key`: members of maps are joined with a
    /// dot like properties, no dot at the start), below a base printed the same way.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write_text(&mut out);
        out
    }

    fn write_text(&self, out: &mut String) {
        match self {
            Trail::Base(p) => {
                if !p.is_root() {
                    out.push_str(&p.to_string());
                }
            }
            Trail::Child(parent, name) | Trail::Key(parent, name) => {
                parent.write_text(out);
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Trail::Index(parent, i) => {
                use std::fmt::Write;
                parent.write_text(out);
                let _ = write!(out, "[{i}]");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_texts() {
        let root = Path::root();
        let base = Trail::Base(&root);
        assert_eq!(base.to_path().to_string(), "<nil>");
        assert_eq!(base.text(), "");
        let spec = base.child("spec");
        let items = spec.child("items");
        let first = items.index(0);
        let member = first.key("k.x");
        assert_eq!(member.to_path().to_string(), "spec.items[0][k.x]");
        assert_eq!(member.text(), "spec.items[0].k.x");
        let top = base.index(3);
        assert_eq!(top.text(), "[3]");
        let status = Path::new("status");
        let below = Trail::Base(&status);
        assert_eq!(below.child("a").to_path().to_string(), "status.a");
        assert_eq!(below.child("a").text(), "status.a");
    }
}
