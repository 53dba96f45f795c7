//! The YAML event stream as go-yaml v2 produces it, from libyaml.
//!
//! go-yaml v2 (under `sigs.k8s.io/yaml`, kubectl's reader) is a line-by-line Go port of the C
//! libyaml scanner and parser. `unsafe-libyaml-norway` is a mechanical Rust translation of that
//! same C code, so its events, and what it accepts, are go-yaml's: flow collections and quoted
//! scalars continued at or left of the enclosing key's column, which YAML 1.2 parsers such as
//! `yaml-rust2` reject, read as kubectl reads them. The crate is already a dependency of the
//! workspace (through `serde_norway`), maintained as the libyaml of the `serde_yaml` forks.
//!
//! This module is the only place that touches the C-style API; it hands out owned events.

use std::borrow::Cow;
use std::ptr::{self, NonNull};

use unsafe_libyaml_norway as unsafe_sys;

/// A position: 1-based line and column (columns count characters, as libyaml's marks do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mark {
    pub line: usize,
    pub column: usize,
}

fn mark(m: unsafe_sys::yaml_mark_t) -> Mark {
    Mark {
        line: usize::try_from(m.line)
            .unwrap_or(usize::MAX)
            .saturating_add(1),
        column: usize::try_from(m.column)
            .unwrap_or(usize::MAX)
            .saturating_add(1),
    }
}

/// One parser event; a scalar's text is borrowed from the input when the fast path
/// (`yaml_fast.rs`) reads it unchanged, owned when libyaml produced it.
#[derive(Debug, PartialEq)]
pub(crate) enum Event<'a> {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias(String),
    Scalar {
        value: Cow<'a, str>,
        plain: bool,
        tag: Option<String>,
        anchor: Option<String>,
    },
    SequenceStart {
        anchor: Option<String>,
    },
    SequenceEnd,
    MappingStart {
        anchor: Option<String>,
    },
    MappingEnd,
}

/// A syntax error: libyaml's problem text, with its context when it has one.
#[derive(Debug)]
pub(crate) struct SyntaxError {
    pub mark: Mark,
    pub message: String,
}

/// The parser and the input it points into, kept together on the heap (libyaml holds a raw
/// pointer to both).
struct Pinned {
    sys: unsafe_sys::yaml_parser_t,
    _input: Box<[u8]>,
}

pub(crate) struct Parser {
    pin: Box<Pinned>,
    failed: bool,
}

/// A C string owned by libyaml, copied out (`None` for a null pointer).
///
/// # Safety
/// `p` is null or points to a NUL-terminated string alive for the call.
unsafe fn c_string(p: *const u8) -> Option<String> {
    let p = NonNull::new(p.cast_mut())?;
    // SAFETY: the caller guarantees a NUL-terminated string.
    let s = unsafe { std::ffi::CStr::from_ptr(p.as_ptr().cast()) };
    Some(String::from_utf8_lossy(s.to_bytes()).into_owned())
}

impl Parser {
    pub fn new(text: &str) -> Parser {
        let input: Box<[u8]> = text.as_bytes().into();
        // SAFETY: a zeroed `yaml_parser_t` is what `yaml_parser_initialize` expects to fill; the
        // box keeps the parser and its input at stable addresses for the parser's lifetime, and
        // the input outlives every use through `Drop` order (the parser is deleted first).
        let mut pin = Box::new(Pinned {
            sys: unsafe { std::mem::MaybeUninit::zeroed().assume_init() },
            _input: input,
        });
        let failed = unsafe {
            let parser = ptr::addr_of_mut!(pin.sys);
            let failed = unsafe_sys::yaml_parser_initialize(parser).fail;
            if !failed {
                unsafe_sys::yaml_parser_set_encoding(parser, unsafe_sys::YAML_UTF8_ENCODING);
                let (ptr, len) = (pin._input.as_ptr(), pin._input.len());
                unsafe_sys::yaml_parser_set_input_string(parser, ptr, len as u64);
            }
            failed
        };
        Parser { pin, failed }
    }

    fn error(&self) -> SyntaxError {
        let p = &self.pin.sys;
        // SAFETY: libyaml's problem and context are static strings or null.
        let problem = unsafe { c_string(p.problem.cast()) }
            .unwrap_or_else(|| "the YAML parser failed".into());
        let context = unsafe { c_string(p.context.cast()) };
        SyntaxError {
            mark: mark(p.problem_mark),
            message: match context {
                Some(c) => format!("{c}: {problem}"),
                None => problem,
            },
        }
    }

    /// The next event and where it starts.
    pub fn next(&mut self) -> Result<(Event<'static>, Mark), SyntaxError> {
        if self.failed {
            return Err(self.error());
        }
        let mut event = std::mem::MaybeUninit::<unsafe_sys::yaml_event_t>::zeroed();
        // SAFETY: the parser was initialised; a successful `yaml_parser_parse` fills `event`,
        // whose strings are copied out before `yaml_event_delete` frees them.
        unsafe {
            let parser = ptr::addr_of_mut!(self.pin.sys);
            if unsafe_sys::yaml_parser_parse(parser, event.as_mut_ptr()).fail {
                self.failed = true;
                return Err(self.error());
            }
            let e = &*event.as_ptr();
            let at = mark(e.start_mark);
            let out = match e.type_ {
                unsafe_sys::YAML_STREAM_START_EVENT => Event::StreamStart,
                unsafe_sys::YAML_DOCUMENT_START_EVENT => Event::DocumentStart,
                unsafe_sys::YAML_DOCUMENT_END_EVENT => Event::DocumentEnd,
                unsafe_sys::YAML_ALIAS_EVENT => {
                    Event::Alias(c_string(e.data.alias.anchor).unwrap_or_default())
                }
                unsafe_sys::YAML_SCALAR_EVENT => {
                    let s = &e.data.scalar;
                    let bytes = if s.value.is_null() {
                        &[][..]
                    } else {
                        std::slice::from_raw_parts(s.value, s.length as usize)
                    };
                    Event::Scalar {
                        value: Cow::Owned(String::from_utf8_lossy(bytes).into_owned()),
                        plain: s.style == unsafe_sys::YAML_PLAIN_SCALAR_STYLE,
                        tag: c_string(s.tag),
                        anchor: c_string(s.anchor),
                    }
                }
                unsafe_sys::YAML_SEQUENCE_START_EVENT => Event::SequenceStart {
                    anchor: c_string(e.data.sequence_start.anchor),
                },
                unsafe_sys::YAML_SEQUENCE_END_EVENT => Event::SequenceEnd,
                unsafe_sys::YAML_MAPPING_START_EVENT => Event::MappingStart {
                    anchor: c_string(e.data.mapping_start.anchor),
                },
                unsafe_sys::YAML_MAPPING_END_EVENT => Event::MappingEnd,
                _ => Event::StreamEnd,
            };
            unsafe_sys::yaml_event_delete(event.as_mut_ptr());
            Ok((out, at))
        }
    }
}

impl Drop for Parser {
    fn drop(&mut self) {
        // SAFETY: the parser was initialised (or zeroed, which `yaml_parser_delete` accepts)
        // and is deleted once.
        unsafe { unsafe_sys::yaml_parser_delete(ptr::addr_of_mut!(self.pin.sys)) }
    }
}
